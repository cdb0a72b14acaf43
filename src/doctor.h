/* doctor.h: ddprank doctor, the preflight: checks on every node, then
 * node 0 gathers the findings over TCP and writes one report. The
 * checks and the report are documented in ddprank(1). */
#ifndef DDPGEN_DOCTOR_H
#define DDPGEN_DOCTOR_H

#include <stddef.h>
#include <stdint.h>

#include "gather.h"
#include "util.h"

struct auth;
struct bindrun_opts;
struct netif_sys;
struct nodes_env;
struct rank_opts;

/* Default seconds node 0 waits for the other nodes' findings. */
#define DOCTOR_WAIT_DEFAULT	5
#define DOCTOR_WAIT_MAX		600

enum doctor_level {
	DOCTOR_PASS,
	DOCTOR_WARN,
	DOCTOR_FAIL
};

/* The checks, in report order. */
enum doctor_check {
	DOCTOR_NODES,		/* identity; every node agrees with node 0 */
	DOCTOR_IFACE,
	DOCTOR_RESOLVE,
	DOCTOR_PORT,
	DOCTOR_CONNECT,
	DOCTOR_LAUNCHER,
	DOCTOR_TORCH,		/* --deep: the launcher's python imports torch */
	DOCTOR_GPUS,
	DOCTOR_BIND,		/* the binding plan; bound processes */
	DOCTOR_ENV,
	DOCTOR_SHARED,
	DOCTOR_NCHECKS
};

/* "iface" etc.; -1 from doctor_check_parse for an unknown name. */
const char	*doctor_check_name(enum doctor_check);
int		 doctor_check_parse(const char *, enum doctor_check *);

struct doctor_finding {
	enum doctor_level	 level;
	char			*detail;	/* NULL when not run */
	int			 nobody;	/* a failure that is no
						   node's fault (not sent) */
};

/* What one node found, and what it computed. */
struct doctor_node {
	int			 reported;	/* node 0 has its findings */
	uint64_t		 rank;
	uint64_t		 nnodes;
	int			 port;
	char			*addr;		/* master address it uses */
	char			*host;
	char			*src;		/* its --iface address, kept
						   on the node (not sent) */
	struct doctor_finding	 f[DOCTOR_NCHECKS];
};

void	doctor_node_init(struct doctor_node *);
void	doctor_node_free(struct doctor_node *);
/* Sets the finding of check c (replacing an earlier one). */
void	doctor_set(struct doctor_node *, enum doctor_check c,
	    enum doctor_level, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));

/* Everything a check reads, so Check can fake it. */
struct doctor_sys {
	const struct nodes_env	*env;
	const struct netif_sys	*net;
	/* Appends the names of the entries of directory dir; -1 when it
	 * cannot be read (absent is not an error: nothing is added). */
	int	(*list)(void *arg, const char *dir, struct strlist *names);
	/* 1 if path is an executable regular file. */
	int	(*executable)(void *arg, const char *path);
	/* 0 if a file can be created in dir, else -1 and *cause; -2 and
	 * *cause when dir is refused as one someone else could have made
	 * or swapped (sdir.c), which is no node's fault. */
	int	(*writable)(void *arg, const char *dir, char **cause);
	/* The environment as NAME=VALUE strings, NULL-terminated. */
	char	*const *(*environ)(void *arg);
	/* Runs argv for at most ms milliseconds (then kills it); puts the
	 * time it took in *took_ms and the last line of its standard error
	 * (caller frees) in *err. Returns its exit status, or -1 and sets
	 * *err when it could not run or was killed. */
	int	(*run)(void *arg, char *const *argv, int ms, int *took_ms,
		    char **err);
	/* The first line of file path (at most len - 1 bytes); -1 if none. */
	int	(*firstline)(void *arg, const char *path, char *buf, size_t len);
	/* Up to len - 1 bytes of file path, NUL-terminated; their number,
	 * or -1 when it cannot be read. NULL: no file can. */
	long	(*readfile)(void *arg, const char *path, char *buf, size_t len);
	void	*arg;
};

extern const struct doctor_sys doctor_sys_real;

struct doctor_opts {
	const struct rank_opts	*ro;
	int			 family;	/* AF_UNSPEC, AF_INET(6) */
	const char		*launcher;	/* NULL: torchrun */
	uint64_t		 gpus;		/* per node; 0: not asked */
	int			 wait;		/* seconds */
	const char		*shared;	/* HPC Pack directory, or NULL */
	int			 deep;		/* --deep: import torch */
	/* The doctor runs in the training's own step (the tasks run it
	 * before ddprank exec), not the step before it: the training's
	 * automatic port is this step's. */
	int			 same_step;
	/* What exec would refuse: --comm-iface (compiled, and its
	 * pattern; NULL: none) and --rdzv (c10d: the host name must lead
	 * to the --iface interface). */
	struct rx		*comm_rx;
	const char		*comm_iface;
	int			 c10d;
	/* --bind and its options; NULL or BIND_NONE: no plan to check. */
	const struct bindrun_opts *bind;
};

/* The local checks, each filling its finding of n. */
void	doctor_check_iface(struct doctor_node *, const struct doctor_opts *,
	    const struct doctor_sys *);
void	doctor_check_resolve(struct doctor_node *, const struct doctor_opts *,
	    const struct doctor_sys *);
void	doctor_check_launcher(struct doctor_node *,
	    const struct doctor_opts *, const struct doctor_sys *);
void	doctor_check_gpus(struct doctor_node *, const struct doctor_opts *,
	    const struct doctor_sys *);
void	doctor_check_env(struct doctor_node *, const struct doctor_sys *);
/* The binding (doctor-bind.c): the plan o->bind asks for can be made on
 * this node, and every process of this user and job (the scheduler
 * row's job variable alike) that a binding step bound (BIND_PLAN_VAR
 * and LOCAL_RANK in its environment) runs on its rank's CPUs; a WARN
 * names the rank and process of the first that does not.
 * Not run without a plan or a bound process. */
void	doctor_check_bind(struct doctor_node *, const struct doctor_opts *,
	    const struct doctor_sys *);
/* --deep: the python the launcher runs imports torch within o->wait
 * seconds; the time it took is reported. */
void	doctor_check_torch(struct doctor_node *, const struct doctor_opts *,
	    const struct doctor_sys *);
void	doctor_check_shared(struct doctor_node *, const struct doctor_opts *,
	    const struct doctor_sys *);
/* The version of torch that launcher's python finds (doctor_check_torch
 * says which python that is), read from torch/version.py without
 * importing torch, within ms milliseconds; -1 and *cause if none. */
int	doctor_torch_version(const char *launcher, const struct doctor_sys *,
	    int ms, int *major, int *minor, char **cause);
/* 1 when launcher's torch is 2.3 or later, whose torchrun takes
 * PET_LOCAL_ADDR instead of the host name (rank_opts' local_addr_ok);
 * else 0, and *why says what is known of it. */
int	doctor_torch_local_addr(const char *launcher,
	    const struct doctor_sys *, char **why);
/* Node 0: the training's port n->port can be bound on addr, or on the
 * wildcard alone when addr is NULL (port.c's check), then is closed at
 * once; hide: the port is the job's secret and no message names it. */
void	doctor_check_port(struct doctor_node *, const char *addr, int hide);

/* The known variables (doctor-vars.c), sorted, NULL-terminated, and the
 * prefixes checked against them. */
extern const char *const doctor_known_vars[];
extern const char *const doctor_var_prefixes[];
/* The known name nearest to name by edit distance, and the distance. */
const char	*doctor_nearest_var(const char *name, size_t *distance);

/* The wire format from a node to node 0 (one line each):
 *	ddprank-doctor 1
 *	node RANK NNODES PORT ADDR HOST
 *	CHECK LEVEL DETAIL	(one per finding)
 *	end
 * doctor_decode reads exactly len bytes, returns -1 and sets *cause on
 * anything else. */
void	doctor_encode(struct buf *, const struct doctor_node *);
int	doctor_decode(struct doctor_node *, const char *buf, size_t len,
	    char **cause);
/* The same, sealed with the job's secret for this job and run when
 * there is one (gather.h: a line "mac HEX" before "end", under the
 * label "ddprank doctor"). doctor_open refuses a message without a
 * valid one when it has a secret itself. doctor_seal returns -1, and
 * adds nothing, when the HMAC fails: findings are never sent unsealed. */
#define DOCTOR_MAC_LABEL	"ddprank doctor"
int	doctor_seal(struct buf *, const struct doctor_node *,
	    const struct gather_scope *);
int	doctor_open(struct doctor_node *, const char *buf, size_t len,
	    const struct gather_scope *, char **cause);

/* Node 0's view: one entry per node rank. */
struct doctor_report {
	struct doctor_node	*v;
	uint64_t		 n;
	int			 local;	/* this node alone: no node 0 */
	int			 dir;	/* gathered through the shared
					   directory, not TCP */
	int			 wait;
	/* The port the findings were gathered on (0: none, or the
	 * training's), and whether the training's port is the job's
	 * secret, which the report then never shows. */
	int			 gport;
	int			 hide_port;
	/* Connections node 0 dropped without findings (silent, too many
	 * from one peer, too many at once): a node that never reported
	 * may have been crowded out, and is not blamed. */
	size_t			 dropped;
	/* The option the text report's last line begins with, before the
	 * nodes to blame; NULL: "--exclude=" (the caller sets it from the
	 * scheduler's row). */
	const char		*exclude_opt;
};

void	doctor_report_free(struct doctor_report *);
/* Adds to node 0's findings what the others disagree on, and a connect
 * failure for every node that never reported. */
void	doctor_compare(struct doctor_report *);
/* 1 when some check failed. */
int	doctor_failed(const struct doctor_report *);
/* The report as text (one line per check, then --exclude=...) or JSON. */
void	doctor_format_text(struct buf *, const struct doctor_report *);
void	doctor_format_json(struct buf *, const struct doctor_report *);

/* Node 0's side of the doctor's gather (gather.h) into r, whose n is
 * set: it waits for r->n - 1 findings. */
void	doctor_sink(struct gather_sink *, struct doctor_report *,
	    const struct gather_scope *);
/* This node's findings alone in r (r->local), compared: for a node
 * whose gather failed. self's fields move into r. */
void	doctor_alone(struct doctor_report *, struct doctor_node *);

/* Runs the checks on this node, then: node 0 gathers the others'
 * findings into r; another node sends its own and sets *sent, or, when
 * it cannot, leaves them alone in r (r->local). Free r with
 * doctor_report_free. */
void	doctor_run(struct doctor_report *r, int *sent,
	    const struct doctor_opts *, const struct doctor_sys *);

/* doctor_run's HPC Pack half (o->shared set): self, with the local
 * findings and its host, goes into r or, once written for node 0, is
 * freed. */
void	doctor_run_dir(struct doctor_report *r, int *sent,
	    struct doctor_node *self, const struct doctor_opts *,
	    const struct doctor_sys *);

/* The nodes to leave out, one "HOST CHECK: DETAIL" each (the first
 * check that blames it), appended to out: what the report's last line
 * names. */
void	doctor_blamed(const struct doctor_report *, struct strlist *out);

#endif
