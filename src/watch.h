/* watch.h: ending a torchrun whose worker group failed for good, rather
 * than letting it hold the job in its exit barrier (ddprank(1), exec).
 *
 * torchrun 1.13 waits in its exit barrier, 300 s, for the other nodes'
 * agents after its workers fail with no restarts left; they, whose
 * workers wait for the failed ones, never come. ddprank exec forks a
 * watcher before it execs the launcher: the watcher reads the
 * launcher's children in /proc, and once a worker has exited non-zero
 * with no restarts left (TORCHELASTIC_RESTART_COUNT and
 * TORCHELASTIC_MAX_RESTARTS, which torchrun gives its workers), no
 * worker is left and torchrun has had WATCH_GRACE seconds to end by
 * itself, it says so and kills torchrun. A worker that exits 0 is
 * never a reason. */
#ifndef DDPGEN_WATCH_H
#define DDPGEN_WATCH_H

#include <sys/types.h>

/* Seconds torchrun has, after the failure, to end by itself: the other
 * agents reach the barrier too when their workers fail in turn, and
 * torchrun then prints its own report. */
#define WATCH_GRACE	20
/* Seconds between SIGTERM and SIGKILL: in the barrier torchrun blocks
 * in the store, where Python's handler cannot run. */
#define WATCH_KILL_WAIT	3
/* Milliseconds between two looks at /proc. */
#define WATCH_TICK_MS	100
/* Workers remembered at once (torchrun's children). */
#define WATCH_MAX	256

/* One line of /proc/PID/stat. */
struct watch_stat {
	pid_t	ppid;
	pid_t	pgrp;
	char	state;		/* 'Z': exited, not yet reaped */
	int	exit_code;	/* as waitpid(2) gives it, for a zombie */
	unsigned long long starttime;	/* since boot: with the pid, one process */
};

/* What torchrun told a worker. -1: not known. */
struct watch_env {
	long	restart_count;
	long	max_restarts;
	long	local_rank;
	long	rank;		/* RANK: the heartbeat's name (hang.h) */
};

struct watch_worker {
	pid_t			pid;
	struct watch_env	env;
	int			failed;		/* its failure was counted */
	int			seen;		/* in this look at /proc */
};

struct watch {
	const char		*proc;		/* "/proc"; another root in tests */
	pid_t			 launcher;	/* whose children are watched */
	unsigned long long	 launcher_start; /* its starttime; 0: gone */
	pid_t			 self;		/* the watcher: not a worker */
	int			 is_torchrun;	/* argv[0] is torchrun */
	long			 argv_max;	/* --max-restarts from argv */
	struct watch_env	 last;		/* the newest worker's */
	struct watch_worker	 w[WATCH_MAX];
	size_t			 nw;
	/* The failure that ends the launcher, once seen. */
	int			 final;
	double			 final_at;
	pid_t			 final_pid;
	int			 final_code;
	struct watch_env	 final_env;
};

enum watch_verdict {
	WATCH_WAIT,	/* nothing to do */
	WATCH_END	/* end the launcher: watch_message says why */
};

/* Parses the text of /proc/PID/stat; -1 if it is not one. */
int	watch_stat_parse(const char *, struct watch_stat *);
/* Reads the variables above from NUL-separated NAME=VALUE strings. */
void	watch_env_parse(const char *, size_t, struct watch_env *);
/* Whether argv runs torchrun (torchrun, or python -m
 * torch.distributed.run): the only launcher watched. */
int	watch_is_torchrun(const char *const *);
/* Sets up w to watch launcher's children; argv is the command exec'd. */
void	watch_init(struct watch *, const char *proc, pid_t launcher,
	    pid_t self, const char *const *argv);
/* 1 while the launcher lives: not a zombie, and not another process
 * that took its id. */
int	watch_alive(const struct watch *);
/* One look at the launcher's children at time now (seconds). */
enum watch_verdict watch_tick(struct watch *, double now);
/* Why the launcher is ended, for a node named node; the caller frees. */
char	*watch_message(const struct watch *, const char *node);
/* The launcher's running children outside process group pgrp (the
 * launcher's own), at most max of them, into pids; returns how many.
 * torch 2.x starts each worker in a session of its own, so that a
 * signal to the launcher's group (how Flux and LSF signal a task) no
 * longer reaches them: the watcher passes it on to these. */
size_t	watch_outside(const struct watch *, pid_t pgrp, pid_t *pids,
	    size_t max);
/* The launcher and its descendants, parents before children, at most
 * max of them, into pids; returns how many: the workers of launchers
 * that start them further down (deepspeed's, accelerate's), and
 * srun-direct's, where the launcher is the worker. */
size_t	watch_descendants(const struct watch *, pid_t *pids, size_t max);
/* Reads PID's stat (-1 when it is gone) and its environment (NULL
 * when unreadable; the caller frees). */
int	watch_read_stat(const struct watch *, pid_t, struct watch_stat *);
char	*watch_read_env(const struct watch *, pid_t, size_t *len);

#endif
