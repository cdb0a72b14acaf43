/* testlib.h: helpers shared by the Check suites; each failure is a
 * failed Check assertion. */
#ifndef DDPGEN_TESTLIB_H
#define DDPGEN_TESTLIB_H

#include <stddef.h>
#include <stdint.h>

#include <check.h>

#include "netif.h"
#include "nodes.h"

struct buf;

/* Runs every test of s; the exit status of a suite's main(): 0 when
 * all passed, 1 otherwise. */
int		 t_run(Suite *s);
/* A fresh directory PREFIX.XXXXXX under $TMPDIR or /tmp; the caller
 * removes and frees it with t_rmtree. */
char		*t_tmpdir(const char *prefix);
/* Removes dir and everything under it, then frees dir. */
void		 t_rmtree(char *dir);
/* A fresh file PREFIX.XXXXXX under $TMPDIR or /tmp holding the string
 * data; the caller unlinks and frees it. */
char		*t_tmpfile(const char *prefix, const char *data);
/* Writes len bytes of data to path, creating or truncating it. */
void		 t_write(const char *path, const char *data, size_t len);
/* Runs cmd through sh, appending its standard output to out; returns
 * pclose's status. */
int		 t_capture(const char *cmd, struct buf *out);
/* A TCP listener on 127.0.0.1 at a port the kernel picks, put in port. */
int		 t_listener(int *port);

/* --- a fake environment ----------------------------------------------------- */
/* An environment given as a NULL-terminated list of "NAME=VALUE". */
#define ENV(...)	((const char *const []){ __VA_ARGS__, NULL })

/* The value of name in arg, a NULL-terminated array of "NAME=value"
 * strings, or NULL: a struct nodes_env's get. */
const char	*t_env_get(void *arg, const char *name);
/* A struct nodes_env reading vars (an ENV(...)), which must outlive it. */
struct nodes_env t_env(const char *const *vars);

/* --- a fixed-seed random generator ------------------------------------------- */
/* xorshift64, so a failure can be replayed anywhere: t_rng_seed, then
 * each t_rng is the next state (never 0 for a seed other than 0). */
void		 t_rng_seed(uint64_t seed);
uint64_t	 t_rng(void);
/* A number below n (n > 0), from the next state. */
uint32_t	 t_rng_below(uint32_t n);

/* --- a fake network: test/testnet.o, linked with src/netif.o ----------------- */
/* One row of getifaddrs(3): an interface's link (addr NULL) or one of
 * its addresses. */
struct t_if {
	const char	*name;		/* NULL ends a list */
	int		 up;
	const char	*addr;
	int		 prefix;
};

/* A fake machine behind a struct netif_sys. */
struct t_net {
	const char		*hostname;	/* NULL: gethostname fails */
	const struct t_if	*ifs;		/* NULL: getifaddrs fails */
	/* What names resolve to: "NAME=ADDR ADDR ...", NULL-terminated;
	 * "*=ADDR ..." for any other name; a name without a line does
	 * not resolve. */
	const char *const	*dns;
	int			 resolved;	/* calls to resolve */
};

/* The seam over net, which must outlive it. */
struct netif_sys t_net_sys(struct t_net *net);
/* Adds every row of ifs to l. */
void		 t_net_ifs(struct netif_list *l, const struct t_if *ifs);

#endif
