/* scheduler.h: the schedulers, one row each: what ddprank reads from a job's
 * environment (node list, job id, array task, step), how the list is
 * spelled, how tasks are numbered and rerun. Detection, loading, job ids,
 * ports and messages all read this table; what ddpgen writes for a
 * scheduler is its back-end's row (gen.h), which names this one. Adding
 * a scheduler is adding a row here and a back-end (src/README). */
#ifndef DDPGEN_SCHEDULER_H
#define DDPGEN_SCHEDULER_H

/* The schedulers. SCHED_AUTO (ddprank's --scheduler auto, and what a
 * zeroed struct holds) is none in particular. Those ddpgen generates jobs
 * for follow it, in the order of gen.c's table, so the profile's
 * scheduler key is SCHED_GEN_FIRST plus an index into gen_names(). */
enum sched_id {
	SCHED_AUTO,
	SCHED_SLURM,
	SCHED_HPCPACK,
	SCHED_FLUX,
	SCHED_PBS,
	SCHED_LSF,
	SCHED_LOCAL,
	SCHED_HOSTFILE
};
#define SCHED_COUNT	(SCHED_HOSTFILE + 1)
#define SCHED_GEN_FIRST	SCHED_SLURM

/* How a node-list variable is spelled; nodes.c has one loader each. */
enum sched_list {
	SCHED_LIST_NONE,	/* no variable: auto, or --hostfile */
	SCHED_LIST_HOSTLIST,	/* "nid[01-04],gpu7" (hostlist.h) */
	SCHED_LIST_COUNTED,	/* "COUNT host1 cores1 host2 cores2 ..." */
	SCHED_LIST_PAIRS,	/* "host1 n1 host2 n2 ..." */
	SCHED_LIST_NODEFILE,	/* the path of a file, a host per slot */
	SCHED_LIST_FLUX_R	/* the variable names a Flux job, whose
				   resource set R holds the list (fluxr.h) */
};

struct sched {
	const char	*name;		/* --scheduler, profile's scheduler */
	const char	*title;		/* "HPC Pack", for messages */

	/* ddprank: the node list, in order of preference (NULL-ended). */
	const char *const *list_vars;
	enum sched_list	 list;
	/* When set, the list's first host is a launch node that runs no
	 * task, and is left out (LSF with IBM CSM: CSM_ALLOCATION_ID). */
	const char	*launch_var;
	/* The scheduler's index of this node in the list, and its name for
	 * it (Slurm's SLURM_NODEID, SLURMD_NODENAME), or NULL. */
	const char	*nodeid_var;
	const char	*selfname_var;
	int		 hostlist_flags; /* how nodes_find compares names */
	/* One ddprank per node: this task's index on its node, and the
	 * step's task and node counts, whichever the scheduler sets (Slurm:
	 * SLURM_LOCALID, SLURM_STEP_NUM_TASKS, SLURM_STEP_NUM_NODES); more
	 * tasks than nodes is refused, saying how to start one per node. */
	const char	*local_task_var;
	const char	*step_tasks_var;
	const char	*step_nodes_var;
	const char	*one_per_node;
	/* The shared-directory exchange and the doctor's: the task's number,
	 * task_number_base for node 0 (HPC Pack's CCP_TASKID, from 1), and
	 * the times the job was rerun (CCP_RETRY_COUNT). */
	const char	*task_number_var;
	int		 task_number_base;
	const char	*retry_var;
	/* The scheduler's count of the job's restarts, which the training
	 * sees in DDPGEN_RESTART_COUNT (restart.h): Slurm's requeues, HPC
	 * Pack's reruns. */
	const char	*restart_var;
	/* The doctor's GPU check: the GPUs the scheduler gave the node, and
	 * the variable set when it gave each task only its own, with the
	 * submit option that does so (Slurm's --gpus-per-task). */
	const char	*gpus_var;
	const char	*gpus_per_task_var;
	const char	*gpus_per_task_opt;
	/* ddprank ip --first-node run elsewhere than on node 0: where the
	 * scheduler runs a batch script and what runs it on node 0 instead
	 * (Slurm's salloc and sbatch), and the command that runs one task
	 * on a named node, its name appended (srun's). */
	const char	*batch_host_note;
	const char	*one_task_cmd;
	/* The doctor's last line: the option that keeps the failing nodes
	 * out of the next submission, before their hostlist; NULL for
	 * sbatch's "--exclude=". */
	const char	*exclude_opt;
	/* Tasks may see only part of the job's nodes (HPC Pack's
	 * CCP_NODES): --nnodes and --exchange are the remedy. */
	int		 partial_list;

	/* The job id, the same on every node: job_var's decimal number
	 * (job_prefix: only its leading digits, as PBS's "1234.server");
	 * array task and step from the last of task_vars and step_vars that
	 * is set (older names first). task_zero_absent: a task of 0 means
	 * no array (LSF's LSB_JOBINDEX). */
	const char	*job_var;
	int		 job_prefix;
	int		 job_f58;	/* Flux's F58 form, or decimal */
	/* The id the automatic port and the job directory derive from,
	 * where set, instead of job_var's: one that every run of a batch
	 * job, and its script, see alike, where job_var names each run
	 * (Flux's FLUX_ENCLOSING_ID: the doctor's run and the training's
	 * are two jobs of the batch job, and its script has no
	 * FLUX_JOB_ID). */
	const char	*port_job_var;
	const char *const *task_vars;
	const char *const *step_vars;
	int		 task_zero_absent;

	/* A signal to the job reaches each task's process group, not the
	 * task's descendants (Flux's job shell, LSF's bkill -s): ddprank
	 * exec's watcher passes the checkpoint signal on to the launcher's
	 * children in another group (torch 2.x's workers). */
	int		 signals_group;
	/* Every node of the list is this machine (ddpgen's local jobs,
	 * their virtual nodes): nodeid_var alone says which node this is,
	 * since every node has this host's name, and the master address
	 * may be a loopback one, which every node reaches. Never for a
	 * scheduler of real nodes, where a loopback master is the classic
	 * failure (ddprank(1), MASTER ADDRESS). */
	int		 virtual_nodes;
};

/* The row of s. */
const struct sched *sched_get(enum sched_id);

/* The scheduler whose task numbers and retry count the shared-directory
 * exchange and the doctor's directory gather read: s when its row has a
 * task number, else the first row that has one (the scheduler whose
 * tasks may see only part of the list, for which they exist). */
enum sched_id	 sched_numbered(enum sched_id s);

/* "slurm" etc. (every scheduler, "auto" too) to its id; -1 when none. */
int		 sched_parse(const char *, enum sched_id *);
const char	*sched_name(enum sched_id);

/* "a, b or c" of every --scheduler name. Caller frees. */
char		*sched_names_text(void);

/* "V1, V2, V3" of every scheduler's list_vars, in table order, for
 * "none of ... is set". Caller frees. */
char		*sched_list_vars_text(void);

/* The job id variable of s, or, for SCHED_AUTO and SCHED_HOSTFILE,
 * "A, B, C or D" of every scheduler's, first being listed first (or
 * table order when first has none). Caller frees. */
char		*sched_job_vars_text(enum sched_id s, enum sched_id first);

#endif
