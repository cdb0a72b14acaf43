/* verdict.h: ddprank verdict, run by the batch shell once the training
 * step has ended (ddprank(1), HANGS): every node's record of a stall,
 * or the preflight's failures, from the job directory, judged
 * (hang_verdict), the nodes to leave out remembered (badnodes.h), the
 * records removed. */
#ifndef DDPGEN_VERDICT_H
#define DDPGEN_VERDICT_H

#include "hang.h"
#include "util.h"

struct nodes_env;

struct verdict_opts {
	const char	*base;		/* --hang-dir, or NULL */
	const char	*site;		/* --site: whose bad nodes; NULL:
					   none remembered */
	long		 remember;	/* --remember, seconds; 0: not */
	int		 sched;		/* --scheduler */
	const char	*hostfile;	/* --hostfile */
};

/* The word ddprank verdict prints for each kind. */
extern const char *const verdict_kinds[];

/* Fills v (free it with hang_verdict_free); notes gets a line for each
 * record it could not read and for the bad nodes it could not
 * remember, none of which is fatal. -1 + *cause when the job directory
 * cannot be opened. */
int	verdict_run(struct hang_verdict *v, struct strlist *notes,
	    const struct verdict_opts *, const struct nodes_env *,
	    char **cause);

/* Writes the preflight's failures ("NODE WHY" lines) as a record of
 * the job directory, for verdict_run. -1 + *cause. */
int	verdict_record_bad(const struct strlist *bad, const char *base,
	    const struct nodes_env *, int sched, const char *hostfile,
	    char **cause);

#endif
