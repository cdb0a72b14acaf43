/* scheduler.c: the table of schedulers, and the words it gives messages. */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "hostlist.h"
#include "scheduler.h"
#include "util.h"
#include "xmalloc.h"

/* SLURM_NODELIST is the older name of SLURM_JOB_NODELIST, still set by
 * some wrappers and by Slurm itself for compatibility: the last resort.
 * SLURM_STEPID is the older name of SLURM_STEP_ID. */
static const char *const slurm_list[] = { "SLURM_STEP_NODELIST",
    "SLURM_JOB_NODELIST", "SLURM_NODELIST", NULL };
static const char *const slurm_task[] = { "SLURM_ARRAY_TASK_ID", NULL };
static const char *const slurm_step[] = { "SLURM_STEPID", "SLURM_STEP_ID",
    NULL };

static const char *const hpcpack_list[] = { "CCP_NODES", NULL };

/* Flux sets no node list variable: FLUX_JOB_ID names the job, whose
 * resource set R (flux job info ID R) lists its nodes (nodes.c). Flux
 * starts jobs' tasks without the SLURM_ and PALS_ variables of a
 * Slurm or PBS allocation it runs in, but not without PBS's or LSF's
 * own: it comes before them, the innermost scheduler being the one
 * that started the task. */
static const char *const flux_list[] = { "FLUX_JOB_ID", NULL };

/* Array sub-jobs share the numeric prefix: PBS Pro numbers them in
 * PBS_ARRAY_INDEX, Torque in PBS_ARRAYID. */
static const char *const pbs_list[] = { "PBS_NODEFILE", NULL };
static const char *const pbs_task[] = { "PBS_ARRAYID", "PBS_ARRAY_INDEX",
    NULL };

/* Elements of an LSF job array share LSB_JOBID; LSB_JOBINDEX is 0
 * outside arrays. */
static const char *const lsf_list[] = { "LSB_MCPU_HOSTS", NULL };
static const char *const lsf_task[] = { "LSB_JOBINDEX", NULL };

/* ddpgen's local jobs (templates/local/): the script names this machine
 * once per virtual node, and gives each node's ddprank its index and
 * the run's count of its restarts. */
static const char *const local_list[] = { "DDPGEN_LOCAL_NODES", NULL };

static const char *const none[] = { NULL };

static const struct sched sched_table[SCHED_COUNT] = {
	[SCHED_SLURM] = {
		.name = "slurm", .title = "Slurm",
		.list_vars = slurm_list, .list = SCHED_LIST_HOSTLIST,
		.nodeid_var = "SLURM_NODEID",
		.selfname_var = "SLURMD_NODENAME",
		.hostlist_flags = HOSTLIST_SHORT,
		.local_task_var = "SLURM_LOCALID",
		.step_tasks_var = "SLURM_STEP_NUM_TASKS",
		.step_nodes_var = "SLURM_STEP_NUM_NODES",
		.one_per_node = "start the step with srun -N N -n N",
		.restart_var = "SLURM_RESTART_COUNT",
		.gpus_var = "SLURM_GPUS_ON_NODE",
		.gpus_per_task_var = "SLURM_GPUS_PER_TASK",
		.gpus_per_task_opt = "--gpus-per-task",
		.batch_host_note = "sbatch runs a script there, salloc on the "
		    "host it was started on; submit with sbatch",
		.one_task_cmd = "srun --nodes=1 --ntasks=1 --nodelist=",
		.job_var = "SLURM_JOB_ID", .task_vars = slurm_task,
		.step_vars = slurm_step,
	},
	[SCHED_HPCPACK] = {
		.name = "hpcpack", .title = "HPC Pack",
		.list_vars = hpcpack_list, .list = SCHED_LIST_COUNTED,
		/* HPC Pack names nodes in NetBIOS upper case; the Linux
		 * hostname may be lower case, short or not. */
		.hostlist_flags = HOSTLIST_SHORT | HOSTLIST_ICASE,
		.partial_list = 1,
		.task_number_var = "CCP_TASKID", .task_number_base = 1,
		.retry_var = "CCP_RETRY_COUNT",
		/* Its reruns of a job. */
		.restart_var = "CCP_RETRY_COUNT",
		/* Not CCP_TASKID: each node runs its own task. */
		.job_var = "CCP_JOBID", .task_vars = none, .step_vars = none,
	},
	[SCHED_FLUX] = {
		.name = "flux", .title = "Flux",
		.list_vars = flux_list, .list = SCHED_LIST_FLUX_R,
		/* The task's rank is the node's with one task per node and
		 * the default block task map (flux-environment(7)). */
		.nodeid_var = "FLUX_TASK_RANK",
		.hostlist_flags = HOSTLIST_SHORT,
		.local_task_var = "FLUX_TASK_LOCAL_ID",
		.step_tasks_var = "FLUX_JOB_SIZE",
		.step_nodes_var = "FLUX_JOB_NNODES",
		.one_per_node = "start it with flux run -N N --tasks-per-node=1",
		/* A negated hostlist term of RFC 35's constraint syntax
		 * (flux-batch(1), CONSTRAINTS). */
		.exclude_opt = "--requires=-host:",
		.job_var = "FLUX_JOB_ID", .job_f58 = 1,
		/* The batch job's id in the enclosing instance, in every
		 * run's tasks (flux-environment(7)). */
		.port_job_var = "FLUX_ENCLOSING_ID",
		.task_vars = none, .step_vars = none,
		.signals_group = 1,
	},
	[SCHED_PBS] = {
		.name = "pbs", .title = "PBS",
		.list_vars = pbs_list, .list = SCHED_LIST_NODEFILE,
		.hostlist_flags = HOSTLIST_SHORT,
		.job_var = "PBS_JOBID", .job_prefix = 1,
		.task_vars = pbs_task, .step_vars = none,
	},
	[SCHED_LSF] = {
		.name = "lsf", .title = "LSF",
		.list_vars = lsf_list, .list = SCHED_LIST_PAIRS,
		.launch_var = "CSM_ALLOCATION_ID",
		.hostlist_flags = HOSTLIST_SHORT,
		.job_var = "LSB_JOBID", .task_vars = lsf_task,
		.step_vars = none, .task_zero_absent = 1,
		.signals_group = 1,
	},
	[SCHED_LOCAL] = {
		.name = "local", .title = "local",
		.list_vars = local_list, .list = SCHED_LIST_HOSTLIST,
		.nodeid_var = "DDPGEN_LOCAL_NODE",
		.hostlist_flags = HOSTLIST_SHORT,
		/* The script's restarts of itself, as a requeue's. */
		.restart_var = "DDPGEN_LOCAL_RESTARTS",
		/* The script's process id. */
		.job_var = "DDPGEN_LOCAL_JOB",
		.task_vars = none, .step_vars = none,
		/* The script signals each node's process group. */
		.signals_group = 1,
		.virtual_nodes = 1,
	},
	[SCHED_HOSTFILE] = {
		.name = "hostfile", .title = "hostfile",
		.list_vars = none, .hostlist_flags = HOSTLIST_SHORT,
		.task_vars = none, .step_vars = none,
	},
	[SCHED_AUTO] = {
		.name = "auto", .title = "auto",
		.list_vars = none, .hostlist_flags = HOSTLIST_SHORT,
		.task_vars = none, .step_vars = none,
	},
};


const struct sched *
sched_get(enum sched_id s)
{
	return &sched_table[s];
}

enum sched_id
sched_numbered(enum sched_id s)
{
	size_t	i;

	if (sched_table[s].task_number_var != NULL)
		return s;
	for (i = 0; i < SCHED_COUNT; i++)
		if (sched_table[i].task_number_var != NULL)
			return (enum sched_id)i;
	return s;
}

int
sched_parse(const char *s, enum sched_id *out)
{
	size_t	i;

	for (i = 0; i < SCHED_COUNT; i++) {
		if (strcmp(s, sched_table[i].name) == 0) {
			*out = (enum sched_id)i;
			return 0;
		}
	}
	return -1;
}

const char *
sched_name(enum sched_id s)
{
	return sched_table[s].name;
}

char *
sched_names_text(void)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < SCHED_COUNT; i++)
		buf_add_item(&b, sched_table[i].name, i + 1 == SCHED_COUNT,
		    " or ");
	return buf_take(&b);
}

char *
sched_list_vars_text(void)
{
	struct buf	 b;
	size_t		 i;
	const char *const *v;

	buf_init(&b);
	for (i = 0; i < SCHED_COUNT; i++)
		for (v = sched_table[i].list_vars; *v != NULL; v++)
			buf_add_item(&b, *v, 0, " or ");
	return buf_take(&b);
}

char *
sched_job_vars_text(enum sched_id s, enum sched_id first)
{
	const char	*vars[SCHED_COUNT + 1];
	size_t		 i, n = 0;

	if (sched_table[s].job_var != NULL)
		return xstrdup(sched_table[s].job_var);
	if (sched_table[first].job_var != NULL)
		vars[n++] = sched_table[first].job_var;
	for (i = 0; i < SCHED_COUNT; i++)
		if (i != first && sched_table[i].job_var != NULL)
			vars[n++] = sched_table[i].job_var;
	vars[n] = NULL;
	return words_join(vars, " or ");
}
