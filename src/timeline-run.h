/* timeline-run.h: the launch timeline on a node, as ddprank exec runs
 * it (ddprank(1), TIMELINE): its own moments, then the training's hook
 * and the reporter that sends node 0 the node's line (timeline-run.c).
 * Functions returning int return 0, or -1 and set *cause (caller
 * frees). */
#ifndef DDPGEN_TIMELINE_RUN_H
#define DDPGEN_TIMELINE_RUN_H

#include <stdint.h>

#include "scheduler.h"
#include "timeline.h"

struct auth;
struct nodes_env;

/* The variable that names the hook, for the training. */
#define TL_ENV		"DDPRANK_TIMELINE"
/* The variable that sets the wait (seconds; 0 turns the timeline off). */
#define TL_WAIT_ENV	"DDPRANK_TIMELINE_WAIT"

/* What the reporter needs of the job, beyond self's rank and host. */
struct tl_run {
	int			 wait;		/* seconds; 0: off */
	int			 per_process;	/* the task is one process */
	uint64_t		 nnodes;
	const char		*addr;		/* the master address */
	int			 port, lo, hi;	/* the training's; the range */
	const struct auth	*auth;
	const struct nodes_env	*env;
	enum sched_id		 sched;
	const char		*hostfile;
	const char		*dir;		/* --exchange dir:PATH, or NULL */
	double			 job_start;	/* 0: not known */
};

/* CLOCK_REALTIME in seconds. */
double	timeline_clock(void);
/* At ddprank's start: self's ddprank and step moments. */
void	timeline_begin(struct tl_node *self);
/* Self passed phase p now. */
void	timeline_mark(struct tl_node *self, enum tl_phase p);
/* The wait from DDPRANK_TIMELINE_WAIT's value s (NULL: the default). */
int	timeline_wait(const char *s, int *wait, char **cause);
/* Just before the launcher is exec'd: notes the moment, makes the hook
 * and exports DDPRANK_TIMELINE naming it, and forks the reporter. With
 * run->wait 0 it only unsets DDPRANK_TIMELINE. On failure nothing is
 * left behind: the training starts without the timeline. */
int	timeline_launch(struct tl_node *self, const struct tl_run *,
	    char **cause);

#endif
