/* rank-exec.h: what ddprank exec does around rank_compute (ddprank(1),
 * exec): the launch timeline's first moments before it; after it the
 * launcher's variables and argv, the binding, the restart variables,
 * the legacy-store hook, the timeline's reporter and the watcher, and
 * the exec of the launcher. Functions return a category of failure
 * (fault.h), which ddprank.c turns into the exit status, and print their
 * one line themselves. */
#ifndef DDPGEN_RANK_EXEC_H
#define DDPGEN_RANK_EXEC_H

#include "fault.h"
#include "hangwatch.h"
#include "timeline-run.h"
#include "vocab.h"

struct auth;
struct bindrun_opts;
struct exchange_opts;
struct launcher;
struct rank;
struct rank_opts;

struct rank_exec {
	/* The options, set by the caller. */
	const struct launcher	*launcher;	/* --launcher's row */
	int			 nproc;		/* --nproc-per-node; 0: none */
	int			 launcher_at;	/* --launcher-at */
	enum rdzv		 rdzv;
	char			**argv;		/* COMMAND [ARGS...] */
	int			 argc;
	const struct rank_opts	*ro;
	const struct exchange_opts *xo;
	const struct auth	*auth;
	const struct bindrun_opts *bind;
	/* The launch timeline: this node's record and the job. */
	struct tl_node		 tl;
	struct tl_run		 tlr;
	/* The heartbeat contract (--hang-timeout, --hang-dir). */
	struct hangwatch	 hw;
};

/* Before rank_compute: the timeline's first moments, and ro's marks. */
enum fault rank_exec_begin(struct rank_exec *, struct rank_opts *ro);
/* After it: execs the launcher, so returns only on failure, or FAULT_NONE
 * where a lower MPI rank on this node runs the command. */
enum fault rank_exec(struct rank_exec *, const struct rank *);
void	rank_exec_free(struct rank_exec *);

#endif
