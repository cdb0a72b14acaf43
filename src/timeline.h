/* timeline.h: the launch timeline (ddprank(1), TIMELINE): the times at
 * which each node passes the phases of a job's start, on CLOCK_REALTIME
 * (seconds since the epoch), the lines the training appends through
 * its hook, one message per node to node 0, and node 0's report. Pure:
 * no clock, no files; timeline-run.c is the process that reads the
 * hook and gathers. */
#ifndef DDPGEN_TIMELINE_H
#define DDPGEN_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* The phases, in the order a node passes them. Each is a moment: the
 * report's phase p is the time from the phase before it (on that
 * node) to p. */
enum tl_phase {
	TL_STEP,	/* the task started: the step reached the node */
	TL_DDPRANK,	/* ddprank exec started */
	TL_RANK,	/* node list read, rank computed */
	TL_EXCHANGE,	/* the exchange done (--exchange) */
	TL_EXEC,	/* the launcher exec'd */
	TL_PYTHON,	/* a worker's python started (the hook, by itself) */
	TL_IMPORT,	/* the training: its imports done */
	TL_INIT,	/* the training: process group initialised */
	TL_COLLECTIVE,	/* the training: first collective done */
	TL_NPHASES
};

/* The first phase the training's hook may name. */
#define TL_HOOK_FIRST	TL_PYTHON

/* Bytes of the hook read at most, per node; a line longer than
 * TL_LINE_MAX bytes, its newline included, is refused. */
#define TL_HOOK_MAX	65536
#define TL_LINE_MAX	128
/* Processes per node the hook counts, at most (ddprank's own bound on
 * --nproc-per-node). */
#define TL_LOCAL_MAX	1024
/* Seconds a node waits for its training's first collective by default,
 * and at most (DDPRANK_TIMELINE_WAIT); 0 turns the timeline off. */
#define TL_WAIT_DEFAULT	300
#define TL_WAIT_MAX	86400

/* The phase's word ("import"), its title in the report ("import"); -1
 * from timeline_phase_parse for a word that is none. */
const char	*timeline_phase_word(enum tl_phase);
const char	*timeline_phase_title(enum tl_phase);
int		 timeline_phase_parse(const char *, size_t, enum tl_phase *);

/* Why a node's record ended. */
enum tl_end {
	TL_END_DONE,	/* every process of the node did a collective */
	TL_END_EXITED,	/* the launcher exited first */
	TL_END_WAITED,	/* the wait was over first */
	TL_NENDS
};

/* One node's record. */
struct tl_node {
	int		 reported;	/* node 0 has it */
	uint64_t	 rank;
	char		*host;
	double		 t[TL_NPHASES];	/* 0: not passed */
	enum tl_end	 end;
	unsigned int	 bad;		/* hook lines refused */
	int		 full;		/* the hook wrote more than
					   TL_HOOK_MAX bytes */
};

void	timeline_node_init(struct tl_node *);
void	timeline_node_free(struct tl_node *);

/* The hook as a node reads it: what has come of the current line, and
 * which processes have done a collective. */
struct tl_hook {
	char		 line[TL_LINE_MAX];
	size_t		 len;		/* of line */
	int		 skip;		/* in a line too long */
	size_t		 total;		/* bytes taken in all */
	int		 per_process;	/* the node's task is one process */
	uint64_t	 lws;		/* largest local world size said */
	unsigned char	 coll[TL_LOCAL_MAX / 8];
	uint64_t	 ncoll;		/* processes past a collective */
	int		 anon;		/* a collective line without ranks */
};

void	timeline_hook_init(struct tl_hook *, int per_process);
/* Takes len bytes the training appended to the hook, read at time now:
 * lines "PHASE [TIME [LOCAL_RANK LOCAL_WORLD_SIZE]]" (ddprank(1)), a
 * time within a minute of since (the node's ddprank start) and now.
 * The latest time of each phase counts; a line that is not one is
 * counted in n->bad; past TL_HOOK_MAX bytes nothing more is taken and
 * n->full is set. */
void	timeline_hook_feed(struct tl_node *n, struct tl_hook *,
	    const char *data, size_t len, double since, double now);
/* 1 when every process of the node has done its first collective: as
 * many as the largest LOCAL_WORLD_SIZE said (one, per_process), or one
 * that said no rank. */
int	timeline_hook_done(const struct tl_node *, const struct tl_hook *);

/* The message to node 0 (one line, then "end"):
 *	ddprank-timeline 1
 *	node RANK HOST END BAD FULL PHASE=TIME ...
 *	end
 * timeline_decode reads exactly len bytes (without a "mac" line),
 * -1 and *cause on anything else. */
void	timeline_encode(struct buf *, const struct tl_node *);
int	timeline_decode(struct tl_node *, const char *buf, size_t len,
	    char **cause);

/* Node 0's view: one entry per node rank. */
struct tl_report {
	struct tl_node	*v;
	uint64_t	 n;
	double		 job_start;	/* 0: not known */
	int		 wait;		/* the nodes' wait, seconds */
	size_t		 dropped;	/* connections without a message */
	char		*gather_why;	/* node 0 could not gather, or NULL */
};

void	timeline_report_free(struct tl_report *);
/* The report (ddprank(1), TIMELINE): a line per phase with its median
 * and its slowest node, the nodes missing, then one line naming the
 * start-up and the slowest node and phase. */
void	timeline_format(struct buf *, const struct tl_report *);

/* The job's start as the environment says it: DDPGEN_JOB_START (the
 * batch shell's EPOCHREALTIME), else SLURM_JOB_START_TIME; 0 when
 * neither is a time. get reads a variable (NULL: unset). */
double	timeline_job_start(const char *(*get)(const char *));

#endif
