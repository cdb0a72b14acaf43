/* gather.h: the one gather of everything node 0 collects from the other
 * nodes of a job (ddprank doctor's findings, the launch timeline):
 * every node but node 0 sends one message, sealed with the job's secret
 * for this job and run, over TCP to node 0's address or as a file of a
 * run directory of the shared one (through sdir.c); node 0 opens each,
 * hands it to its owner's filing function, and waits a bounded time,
 * whatever the others or another user send. ddprank(1) documents what
 * each gather costs and bounds. Functions returning int return 0 (or a
 * descriptor), or -1 and set *cause (caller frees), unless said
 * otherwise. */
#ifndef DDPGEN_GATHER_H
#define DDPGEN_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "scheduler.h"
#include "sdir.h"
#include "util.h"

struct auth;
struct nodes_env;

/* A message larger than this is no node's. */
#define GATHER_MSG_MAX		65536
/* Connections node 0 reads at once; the listen backlog holds the rest. */
#define GATHER_CONNS_MAX	512
/* A connection that has not brought its message this soon after it was
 * accepted is dropped: a node writes it as soon as it connects. */
#define GATHER_SILENT_MS	2000
/* Connections held at once from one address: a node needs one. */
#define GATHER_PEER_MAX		4
/* A sender retries this often while node 0 does not listen yet. */
#define GATHER_RETRY_MS		200

/* Whose messages a gather takes: the job's secret (auth NULL or its
 * length 0: none), the job id as the scheduler gives it and the run's
 * name (either NULL: ""). */
struct gather_scope {
	const struct auth	*auth;
	const char		*job;
	const char		*run;
};

/* What the MAC covers, the one place every message is sealed and
 * opened with: "job LEN:JOB\nrun LEN:RUN\n" and the message, so that a
 * message of another job or run does not authenticate in this one.
 * Appends to b. */
void	gather_mac_input(struct buf *b, const struct gather_scope *,
	    const char *msg, size_t len);
/* b holds, from start, a message of lines ending "end\n". With a
 * secret, puts the line "mac HEX" before "end": the HMAC-SHA256 under
 * label (each kind of message has its own) of gather_mac_input of what
 * comes before it. -1, and the message removed from b, when the HMAC
 * fails: nothing is ever sent unsealed where a secret is. */
int	gather_seal(struct buf *b, size_t start, const char *label,
	    const struct gather_scope *);
/* The message in buf, len bytes, checked: with a secret, sealed under
 * label for this scope. The message without its "mac" line goes to
 * *body (caller frees with buf_free), still ending "end\n". */
int	gather_open(const char *buf, size_t len, const char *label,
	    const struct gather_scope *, struct buf *body, char **cause);

/* Node 0's side of one gather: the function that files an opened
 * message (returns 1 and sets *rank when it is the first message of a
 * node, else 0), how many messages to wait for, and what came. */
struct gather_sink {
	int		(*file)(void *arg, const char *msg, size_t len,
			    uint64_t *rank);
	void		*arg;
	const char	*label;		/* the MAC's */
	const struct gather_scope *scope;
	size_t		 want;
	size_t		 got;
	/* Connections dropped without a message (silent, too many from
	 * one peer or at once): a node that never reported may have been
	 * crowded out, and is not to be blamed. */
	size_t		 dropped;
};

/* --- over TCP ------------------------------------------------------------ */

/* A listening socket on addr and port, non-blocking. */
int	gather_listen(const char *addr, int port, char **cause);

/* Node 0 reading connections on a listening socket, one poll at a
 * time, so that a caller can wait for something else as well. */
struct gather_tcp;
struct gather_tcp *gather_tcp_new(int lfd, struct gather_sink *);
/* One poll of at most ms milliseconds: accepts and reads what came. */
void	gather_tcp_poll(struct gather_tcp *, int ms);
/* Closes every connection (not the listening socket) and frees. */
void	gather_tcp_free(struct gather_tcp *);
/* Polls until the sink has every message or ms have passed. */
void	gather_tcp(int lfd, int ms, struct gather_sink *);

/* A node's message to node 0 at addr and port: connect, send, wait for
 * "ok"; retried every GATHER_RETRY_MS while node 0 does not listen, for
 * at most ms milliseconds in all. On failure *cause says why, naming
 * the address and the port, the port as what (NULL: its number). */
int	gather_send(const char *addr, int port, const char *msg, size_t len,
	    int ms, char **cause);

/* --- through a shared directory ------------------------------------------ */

/* A run directory of the shared one for one gather: node RANK writes
 * its message as the file "tN", N = RANK + 1 (HPC Pack's task), and
 * node 0 reads them. */
struct gather_dir {
	struct sdir	 base, run;
	char		*name;		/* the run directory's */
};

void	gather_dir_init(struct gather_dir *);
/* Opens base (sdir_open_base, named base_what in messages: the
 * exchange's) and the run directory name in it, made if missing (named
 * what). */
int	gather_dir_open(struct gather_dir *, const char *base,
	    const char *base_what, const char *what, int secret,
	    const char *name, char **cause);
/* 1 when the last open refused a directory someone else made. */
int	gather_dir_refused(const struct gather_dir *);
/* Writes msg, whole, as node rank's file. */
int	gather_dir_write(struct gather_dir *, uint64_t rank, const char *msg,
	    size_t len, char **cause);
/* Node 0: reads the files of nodes 1 to n - 1 not yet filed until the
 * sink has every message or ms have passed, then removes the run
 * directory (only the names this gather writes). */
void	gather_dir_collect(struct gather_dir *, uint64_t n, int ms,
	    struct gather_sink *);
void	gather_dir_close(struct gather_dir *);

/* --- whose messages ------------------------------------------------------- */

/* The job of this environment as a gather names it: the job id with
 * its array task and step ("JOB[.TASK][.STEP]", "" without a job), the
 * run's name (the exchange's, which the scheduler's retry count
 * changes), and the numbers the gather's ports derive from. */
struct gather_job {
	int		 set;
	uint64_t	 port_id;
	int64_t		 task, step;
	int64_t		 retry;		/* the scheduler's retry count */
	char		*job;
	char		*run;
	struct gather_scope sc;
};

void	gather_job_init(struct gather_job *, const struct nodes_env *,
	    enum sched_id, const char *hostfile, const struct auth *);
void	gather_job_free(struct gather_job *);

#endif
