/* restart.h: what a training learns about the runs before it (ddpgen(1),
 * LONG TRAININGS): the restart count, why the last run stopped, and the
 * checkpoint signal its launcher must not die of. */
#ifndef DDPGEN_RESTART_H
#define DDPGEN_RESTART_H

/* The most restarts counted: far above any max_requeues. */
#define RESTART_MAX	1000000

struct restart {
	long long	 count;		/* DDPGEN_RESTART_COUNT */
	const char	*last_stop;	/* DDPGEN_LAST_STOP, static */
	int		 signo;		/* checkpoint signal; 0: none */
};

/* From each scheduler's count of the job's restarts (its row's
 * restart_var: SLURM_RESTART_COUNT, CCP_RETRY_COUNT) and
 * DDPGEN_RESTART_BASE (restarts of the job's earlier continuations),
 * DDPGEN_LAST_STOP (as the batch shell read it from the job's state) and
 * DDPGEN_CHECKPOINT_SIGNAL. A count
 * that is not a number counts as 0, a reason that is not one of the
 * words as "requeued" after a restart and "none" before; an unknown
 * signal is -1 + *cause. */
int	restart_read(struct restart *,
	    const char *(*getenv_fn)(const char *), char **cause);

#endif
