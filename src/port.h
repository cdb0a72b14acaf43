/* port.h: MASTER_PORT: given, or derived from the job id so that every
 * node computes the same one without talking to the others. */
#ifndef DDPGEN_PORT_H
#define DDPGEN_PORT_H

#include <stdint.h>

#define PORT_LO_DEFAULT	20000
#define PORT_HI_DEFAULT	29999

/* Parses --port: "auto" gives 0, else a port in 1-65535. Returns -1 and
 * sets *cause on anything else. */
int	port_parse(const char *s, int *port, char **cause);
/* Parses --port-range "LO-HI" with 1 <= LO <= HI <= 65535. */
int	port_parse_range(const char *s, int *lo, int *hi, char **cause);

/* The automatic port, documented in ddprank(1):
 *	n = JOBID; n = n * 1009 + TASK (if any); n = n * 1009 + STEP (if any)
 *	port = LO + n mod (HI - LO + 1)
 * in unsigned 64-bit arithmetic; task and step are -1 when absent. */
int	port_auto(uint64_t jobid, int64_t task, int64_t step, int lo, int hi);

/* Checks that port can be bound on addr (a numeric address, or NULL or a
 * name for the IPv4 wildcard) with SO_REUSEADDR, then closes the socket.
 * Returns -1 and sets *cause saying why not. */
int	port_check(const char *addr, int port, char **cause);

#endif
