/* gen-slurm.c: ddpgen's Slurm back-end: sbatch scripts (templates/slurm.sh
 * and its fragments in templates/slurm/). */
#include "config.h"

#include <stdlib.h>

#include "gen.h"
#include "nodecmd.h"
#include "profile.h"
#include "runtime.h"
#include "script.h"
#include "tmpl.h"
#include "util.h"

static const struct gen_format slurm_formats[] = { { "sh", TMPL_SH } };

/* The profile's keys that sbatch options or the life cycle write. */
static const char *const slurm_keys[] = { "partition", "account", "qos",
    "constraint", "job_output", "cpus_per_task", "label_output",
    "sbatch_extra", "requeue", "signal_lead", "checkpoint_signal",
    "max_requeues", "hang_timeout", "hang_dir", "max_failures",
    "bad_node_hours", NULL };

/* Shifter's #SBATCH options: the image, and the modules (a GPU job's
 * first, then the profile's). */
static void
slurm_sbatch_container(struct tmpl_vars *v, const struct profile *p)
{
	const struct runtime	*rt = runtime_get(p->container);
	struct strlist		 l, mods;
	struct buf		 b;
	size_t			 i;

	strlist_init(&l);
	strlist_init(&mods);
	if (rt->image == RT_IMAGE_SBATCH) {
		buf_init(&b);
		buf_addf(&b, "--image=%s", p->image);
		strlist_addown(&l, b.s);
		for (i = 0; p->gpus_per_node > 0 && rt->gpu_modules != NULL &&
		    rt->gpu_modules[i] != NULL; i++)
			strlist_add(&mods, rt->gpu_modules[i]);
		strlist_copy(&mods, &p->container_modules);
	}
	if (mods.n > 0) {
		buf_init(&b);
		buf_adds(&b, rt->module_opt);
		for (i = 0; i < mods.n; i++)
			buf_addf(&b, "%s%s", i > 0 ? "," : "", mods.v[i]);
		strlist_addown(&l, b.s);
	}
	tmpl_set_list(v, "container_sbatch", l.v, l.n);
	strlist_free(&l);
	strlist_free(&mods);
}

/* The time limit and output pattern are sbatch's own; --exclusive from
 * two nodes on, where other users' jobs on the nodes could bind the port
 * first, or reach the unauthenticated store from next door. The
 * container runtime's #SBATCH and srun options, and whether ddprank runs
 * inside it. */
static void
slurm_vars(struct tmpl_vars *v, const struct job *job)
{
	const struct profile	*p = job->prof;
	struct strlist		 l;

	tmpl_set(v, "time", p->time);
	tmpl_set(v, "output", p->job_output);
	tmpl_set(v, "exclusive", p->exclusive && job->nodes > 1 ? "1" : "");
	slurm_sbatch_container(v, p);
	nodecmd_srun_container(&l, job);
	tmpl_set_list(v, "container_srun", l.v, l.n);
	strlist_free(&l);
	tmpl_set(v, "container_inside",
	    runtime_get(p->container)->inside ? "1" : "");
}

/* sbatch --test-only validates the job and asks slurmctld when it would
 * start it, without queueing it: "sbatch: Job 42 to start at
 * 2026-12-04T10:00:00 using 8 processors on nodes n[1-2] in partition
 * p", or "sbatch: error: Batch job submission failed: Invalid partition
 * name specified" (sbatch(1); sbatch.c's words, Slurm 22.05 to 24.11). */
static const char *const slurm_dry_run[] = { "sbatch", "--test-only", NULL };

const struct gen gen_slurm = {
	.sched = SCHED_SLURM,
	.submit = "sbatch",
	.tmpl = "slurm.sh",
	.formats = slurm_formats,
	.nformats = sizeof slurm_formats / sizeof slurm_formats[0],
	.flags = GEN_WARN_SIGNAL | GEN_ENV_PASS | GEN_ENV_SCRIPT |
	    GEN_LEAVES_OUT,
	.cmd_ddprank = "\"$DDPRANK\"",
	.keys = slurm_keys,
	.images = 1 << RT_IMAGE_NONE | 1 << RT_IMAGE_WORD |
	    1 << RT_IMAGE_SBATCH | 1 << RT_IMAGE_SRUN,
	.vars = slurm_vars,
	.dry_run = slurm_dry_run,
	.dry_run_start = " to start at",
	.dry_run_refused = "Batch job submission failed",
};
