/* port.h: MASTER_PORT: given, or derived from the job id so that every
 * node computes the same one without talking to the others. */
#ifndef DDPGEN_PORT_H
#define DDPGEN_PORT_H

#include <stdint.h>

#include "vocab.h"

struct auth;

/* --port and --port-range are parsed by vocab_port_parse and
 * vocab_port_range (vocab.h), for ddpgen too. */

/* The automatic port, documented in ddprank(1):
 *	n = JOBID; n = n * 1009 + TASK (if any); n = n * 1009 + STEP (if any)
 *	port = LO + n mod (HI - LO + 1)
 * in unsigned 64-bit arithmetic; task and step are -1 when absent. */
int	port_auto(uint64_t jobid, int64_t task, int64_t step, int lo, int hi);
/* The same numbers under the job's secret: the first 8 bytes of
 * HMAC-SHA256("ddprank port", "JOBID TASK STEP"), big-endian, mod the
 * range size, plus LO. Unknown in advance to other users, which only
 * raises the cost of taking the port first: they can still try them all.
 * -1 when the HMAC fails. */
int	port_auto_secret(const struct auth *, uint64_t jobid, int64_t task,
	    int64_t step, int lo, int hi);
/* The port ddprank doctor gathers the findings on, in the same range
 * and never the training's port train: with the job's secret and a job
 * id (have_job), HMAC-SHA256("ddprank doctor port", "JOBID TASK STEP")
 * as above; without, the training's port is no secret and the doctor's
 * is the one half the range away from it. A range of the training's
 * port alone gives the port next to it. */
int	port_doctor(const struct auth *, int have_job, uint64_t jobid,
	    int64_t task, int64_t step, int train, int lo, int hi);
/* The port the launch timeline is gathered on, the same way under the
 * label "ddprank timeline port", or without a secret the one a quarter
 * of the range away from the training's. */
int	port_timeline(const struct auth *, int have_job, uint64_t jobid,
	    int64_t task, int64_t step, int train, int lo, int hi);

/* Checks that port can be bound on addr, when it is a numeric address
 * (so that it is one of this host's), and then as torch's TCPStore binds
 * it: on the IPv6 wildcard, dual-stack, or on 0.0.0.0 where IPv6 is
 * missing; with SO_REUSEADDR, closing the socket each time. A port taken
 * on any address, 127.0.0.1 included, fails. Returns -1 and sets *cause
 * saying why not. */
int	port_check(const char *addr, int port, char **cause);
/* The same, the port named what in messages ("port N" when NULL): a
 * secret port is named without its number. */
int	port_check_as(const char *addr, int port, const char *what,
	    char **cause);

#endif
