/* gen-local.c: ddpgen's local back-end: a script that runs the job on this
 * machine, no scheduler (templates/local.sh and its fragments in
 * templates/local/): each node a virtual one, its own ddprank, and the
 * life cycle rehearsed by the script itself. */
#include "config.h"

#include <stdio.h>

#include "gen.h"
#include "profile.h"
#include "runtime.h"
#include "script.h"
#include "tmpl.h"
#include "util.h"
#include "vocab.h"

static const struct gen_format local_formats[] = { { "local", TMPL_SH } };

/* The life cycle, which the script rehearses; no request: there is no
 * one to ask. */
static const char *const local_keys[] = { "requeue", "signal_lead",
    "checkpoint_signal", "max_requeues", "hang_timeout", "hang_dir", NULL };

/* The time limit in seconds, which the script's own timer keeps, ""
 * for none; whether it counts the processes per node when it runs; no
 * output file (the terminal's) and nothing held (the machine is the
 * user's). */
static void
local_vars(struct tmpl_vars *v, const struct job *job)
{
	const struct profile	*p = job->prof;
	long long		 secs = 0;
	char			 s[32];

	s[0] = '\0';
	if (*p->time != '\0' && profile_parse_time(p->time, &secs) == 0 &&
	    secs > 0)
		snprintf(s, sizeof s, "%lld", secs);
	tmpl_set(v, "time", s);
	tmpl_set(v, "output", "");
	tmpl_set(v, "exclusive", "");
	tmpl_set(v, "nproc_run", gen_nproc_at_run(p) ? "1" : "");
}

/* c10d only where the user accepts that the machine's other users reach
 * its store; no preflight: it checks what a cluster's nodes can get
 * wrong, which one machine cannot show, and ddpgen --check checks the
 * job before it runs. */
static void
local_check(const struct profile *p, gen_problem_fn *fn, void *arg)
{
	/* Nothing holds this machine: its other users reach the store
	 * as well as the job's nodes do. */
	if (p->rdzv == RDZV_C10D && !p->c10d_shared)
		fn(arg, "rdzv", "rdzv: c10d on this machine, which local jobs "
		    "do not hold: " PROFILE_C10D_RISK "; use static, or "
		    PROFILE_C10D_KEY);
	if (p->preflight)
		fn(arg, "preflight", "preflight: local jobs run no preflight "
		    "(ddprank doctor checks what a cluster's nodes can get "
		    "wrong); ddpgen --check checks a job before it runs");
}

/* Virtual nodes share this machine's cores and GPUs: a binding plan made
 * on each, for its own local ranks, would put them on the same ones. */
static int
local_check_job(const struct job *job, const char *tpath, char **cause)
{
	(void)tpath;
	if (job->prof->bind == BIND_NONE || job->nodes == 1)
		return 0;
	util_fail(cause, "bind: %s for %d virtual nodes: they share this "
	    "machine's cores, and each node's plan would put its workers on "
	    "the same ones; bind one node, or none", bind_names[job->prof->bind],
	    job->nodes);
	return -1;
}

/* The script's timer warns before the time limit. */
const struct gen gen_local = {
	.sched = SCHED_LOCAL,
	.submit = "bash",
	.tmpl = "local.sh",
	.formats = local_formats,
	.nformats = sizeof local_formats / sizeof local_formats[0],
	.flags = GEN_WARN_SIGNAL | GEN_ENV_PASS | GEN_ENV_SCRIPT |
	    GEN_NAME_SCHED | GEN_NPROC_RUN | GEN_NO_PREFLIGHT,
	.cmd_ddprank = "\"$DDPRANK\"",
	.keys = local_keys,
	.images = 1 << RT_IMAGE_NONE | 1 << RT_IMAGE_WORD,
	.vars = local_vars,
	.check = local_check,
	.check_job = local_check_job,
};
