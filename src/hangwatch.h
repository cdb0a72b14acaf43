/* hangwatch.h: the heartbeat contract kept on a node (ddprank(1),
 * HANGS). ddprank exec makes a heartbeat directory of this node's own,
 * names it to the workers (DDPGEN_HEARTBEAT: each touches the file of
 * its RANK there once a step) with what turns on their stacks and
 * torch's flight recorder; its watcher (watch.h) looks at the beats
 * once a second. When a rank that has beaten since it started has not
 * for the stall limit, the watcher takes the evidence (every local
 * worker's stacks, labelled, on standard error; the flight recorder's
 * dump; whether node 0 answers), writes this node's record into the
 * job directory, and ends the launcher HANG_DUMP_WAIT seconds later.
 * ddprank verdict reads the records (hang.h). */
#ifndef DDPGEN_HANGWATCH_H
#define DDPGEN_HANGWATCH_H

#include <sys/types.h>

#include "hang.h"
#include "watch.h"

struct nodes_env;
struct sdir;

/* The signal the stack hook (python/sitecustomize.py) registers with
 * faulthandler: its default action is to do nothing, so a worker
 * without the hook is not harmed by it. */
#define HANGWATCH_SIGNAL	SIGWINCH
/* Milliseconds the workers have to write their stacks. */
#define HANGWATCH_DUMP_MS	2000
/* Milliseconds node 0 has to answer the reachability probe. */
#define HANGWATCH_PROBE_MS	2000
/* A node that saw its ranks silent this long when its launcher ended,
 * and had no stall of its own to record, records that: the verdict
 * then does not take it for a node that died. */
#define HANGWATCH_QUIET	5.0

struct hangwatch_worker {
	pid_t			 pid;
	unsigned long long	 starttime;	/* with pid, one process */
	long			 rank;
	long			 local_rank;
	double			 start;		/* wall clock */
	double			 age;		/* since its beat, or -1 */
	enum hang_state		 state;
	int			 seen;
	int			 hooked;	/* the hook registered */
	char			*stacks;	/* what it dumped, or NULL */
	size_t			 stacks_len;
};

struct hangwatch {
	int		 timeout;	/* --hang-timeout; 0: off */
	const char	*base;		/* --hang-dir; NULL: the state
					   directory's jobs */
	char		*dir;		/* the heartbeat directory */
	char		*alt;		/* the same name under TMPDIR, or
					   NULL (hangwatch_setup) */
	const char	*proc;		/* the watch's /proc */
	char		*run;		/* the job directory's name */
	char		*node;		/* this node's name in the list */
	char		*addr;		/* node 0's: the probe */
	int		 port;
	double		 boot;		/* wall clock at boot */
	long		 tck;
	struct hangwatch_worker	w[WATCH_MAX];
	size_t		 nw;
	double		 next;		/* the next look */
	int		 fired;		/* the evidence is taken */
	double		 fired_at;
	int		 recorded;
};

/* The job directory's name for this run: the batch job's id (with its
 * array task; not the step, nor Flux's run, which differ between the
 * preflight's, the training's and the batch shell) and the restart
 * count. NULL + *cause without a job id. */
char	*hangwatch_run_name(const struct nodes_env *, int sched,
	    const char *hostfile, char **cause);

/* Opens the job directory name in base (NULL: the state directory's
 * jobs), made 0700. -1 + *cause. */
int	 hangwatch_jobdir(struct sdir *base, struct sdir *run,
	    const char *basepath, const char *name, char **cause);

/* Where node 0 is, and this node's name, from ddprank's rank. */
void	 hangwatch_target(struct hangwatch *, const char *node,
	    const char *addr, int port);

/* Makes the heartbeat directory and sets the workers' variables;
 * before exec, with timeout, base and run set. -1 + *cause when the
 * contract cannot be offered; 0 with *warning (caller frees) when part
 * of it cannot (no job directory: no record, no flight recorder). */
int	 hangwatch_setup(struct hangwatch *, char **warning, char **cause);

/* One look, at most once a second: WATCH_END once the evidence of a
 * stall was taken HANG_DUMP_WAIT seconds ago. */
enum watch_verdict hangwatch_tick(struct hangwatch *, const struct watch *);

/* After WATCH_END, before the launcher is ended: the stacks of the
 * workers without the hook (PYTHONFAULTHANDLER's, on SIGABRT), then
 * every worker killed, so that the launcher restarts none. */
void	 hangwatch_end(struct hangwatch *, const struct watch *);

/* When the watcher ends: the record of a quiet node that recorded no
 * stall, and the heartbeat directory removed. */
void	 hangwatch_exit(struct hangwatch *);
/* Where the launcher was not exec'd: the heartbeat directory removed
 * and the strings freed. */
void	 hangwatch_free(struct hangwatch *);

#endif
