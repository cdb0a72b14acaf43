/* bindrun.h: ddprank's binding at run time (ddprank(1), BINDING): the
 * plan for this node from its topology, its GPUs as the job sees them
 * and its local ranks (bind.h), handed by ddprank exec to the workers,
 * applied by each worker to itself (sched_setaffinity, read back), and
 * printed by ddprank bind --explain. Functions returning enum fault
 * give FAULT_NONE on success, and otherwise a category (fault.h) and
 * set *cause (caller frees); nothing here prints. */
#ifndef DDPGEN_BINDRUN_H
#define DDPGEN_BINDRUN_H

#include "bind.h"
#include "cpuset.h"
#include "fault.h"
#include "topo.h"
#include "util.h"

struct bindrun_opts {
	enum bind_policy policy;
	struct cpuset	 reserve;	/* --bind-reserve */
	const char	*nic_var;	/* --bind-nic-var, or NULL */
	const char	*topology;	/* --topology XML, NULL: this node */
	int		 nranks;	/* --nproc-per-node, 0: not given */
	/* The worker step (ddprank bind -- COMMAND): run the launcher's
	 * python on COMMAND (--python), and put --local_rank=N after its
	 * first word (--local-rank-arg), as the launcher would have. */
	int		 python;
	int		 local_rank_arg;
};

/* The plan for this node: its topology, the GPUs CUDA_VISIBLE_DEVICES
 * (or ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES) show, o->nranks local
 * ranks (else LOCAL_WORLD_SIZE's; with neither, one per GPU for gpu and
 * one per NUMA domain for numa). Free both with bind_plan_free and
 * topo_free whatever this returns. */
enum fault bindrun_plan(struct bind_plan *, struct topo *,
	    const struct bindrun_opts *, char **cause);

/* This process's CPUs, as sched_getaffinity(2) reports them. */
enum fault bindrun_allowed(struct cpuset *, char **cause);

/* ddprank exec, before it runs the command: the plan, checked against
 * this task's CPUs and exported in BIND_PLAN_VAR; for a launcher with
 * one agent per node (per_process 0) the workers' binding step applies
 * it, for srun-direct (one task per rank) this task applies its own
 * part, its rank being LOCAL_RANK. Nothing when o->policy is BIND_NONE.
 * *warning (caller frees) when the kernel runs the task elsewhere than
 * planned, which is no error. */
enum fault bindrun_exec(const struct bindrun_opts *, int per_process,
	    char **warning, char **cause);

/* ddprank bind -- COMMAND: this worker's part of BIND_PLAN_VAR (its rank
 * is LOCAL_RANK), applied; then the command to run in out: COMMAND, or
 * with o->python the launcher's python (its parent's first word) with
 * -u before it. */
enum fault bindrun_worker(const struct bindrun_opts *, char *const *argv,
	    int argc, struct strlist *out, char **warning, char **cause);

/* Applies one rank's part to process pid (0: this one) and reads the
 * CPUs back: an error when the kernel refuses the CPUs, *warning (caller
 * frees) when it gave others. */
enum fault bindrun_affinity(int pid, const struct cpuset *, size_t rank,
	    char **warning, char **cause);

/* ddprank bind --explain: the plan for this node, one line per local
 * rank (bind_explain), or one line saying bind none binds nothing. */
enum fault bindrun_explain(const struct bindrun_opts *, struct buf *,
	    char **cause);

#endif
