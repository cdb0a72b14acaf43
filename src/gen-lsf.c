/* gen-lsf.c: ddpgen's LSF back-end: bsub scripts (templates/lsf.sh and
 * its fragments in templates/lsf/). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "profile.h"
#include "quote.h"
#include "runtime.h"
#include "script.h"
#include "tmpl.h"
#include "util.h"
#include "xmalloc.h"

static const struct gen_format lsf_formats[] = { { "lsf", TMPL_SH } };

/* The profile's keys that #BSUB lines, jsrun or the life cycle write. */
static const char *const lsf_keys[] = { "partition", "account",
    "job_output", "cpus_per_task", "requeue", "signal_lead",
    "checkpoint_signal", "max_requeues", "hang_timeout", "hang_dir",
    "max_failures", "bad_node_hours", "lsf_launcher", NULL };

/* A value of an #BSUB line (quote_bsub). */
static const struct tmpl_filter lsf_filters[] = {
	{ "bsub", quote_bsub, 1 },
	{ NULL, NULL, 0 }
};

/* The nodes to leave out as a resource requirement of bsub -R, whose
 * select string takes a host's name as hname (IBM Spectrum LSF 10.1,
 * "Selection string"), the name in single quotes, which bsub's -R page
 * asks of a hyphen (select[hname!='host06-x12']), the whole in double
 * quotes: "select[hname!='a' && hname!='b-1']". The #BSUB line takes it
 * as it is: its names are host names (gen_exclusion), which hold
 * nothing quote_bsub refuses but the quotes written here. */
static void
lsf_exclusion(struct tmpl_vars *v, const struct job *job)
{
	char	*list, *sel = NULL;
	size_t	 n;

	list = gen_exclusion(job, "hname!='", "'", " && ", &n);
	if (n > 0)
		xasprintf(&sel, "\"select[%s]\"", list);
	tmpl_set(v, "lsf_exclude", sel != NULL ? sel : "");
	free(sel);
	free(list);
}

/* The run limit as bsub -W's [hour:]minute and the warning's lead as
 * -wt's minutes, both rounded up; bsub -o names the job id %J, where the
 * default is Slurm's pattern; -x from two nodes on, as Slurm's
 * --exclusive; how tasks start (lsf_launcher: -nnodes and jsrun, or -n
 * with span[ptile=1] and blaunch). */
static void
lsf_vars(struct tmpl_vars *v, const struct job *job)
{
	const struct profile	*p = job->prof;
	long long		 secs, min;
	char			 w[64];

	w[0] = '\0';
	if (profile_parse_time(p->time, &secs) == 0 && secs > 0) {
		min = (secs + 59) / 60;
		snprintf(w, sizeof w, "%lld:%02lld", min / 60, min % 60);
	}
	tmpl_set(v, "time", w);
	tmpl_set(v, "output", strcmp(p->job_output, "ddp-%j.out") == 0 ?
	    "ddp-%J.out" : p->job_output);
	tmpl_set(v, "exclusive", p->exclusive && job->nodes > 1 ? "1" : "");
	tmpl_set_int(v, "lsf_warn_time", (p->signal_lead + 59) / 60);
	tmpl_set(v, "lsf_jsrun", p->lsf_launcher == PROFILE_LSF_JSRUN ?
	    "1" : "");
	lsf_exclusion(v, job);
}

/* What lands on an #BSUB line must be one bsub can read (quote_bsub);
 * under CSM the batch shell runs on a launch node; blaunch starts a
 * task with the CPUs LSF gives it. */
static void
lsf_check(const struct profile *p, gen_problem_fn *fn, void *arg)
{
	const struct {
		const char	*key;
		const char	*value;
	} bsub[] = {
		{ "job_name", p->job_name }, { "job_output", p->job_output },
		{ "partition", p->partition }, { "account", p->account },
	};
	struct buf	 b;
	char		*why, *msg;
	size_t		 i;

	for (i = 0; i < sizeof bsub / sizeof bsub[0]; i++) {
		buf_init(&b);
		if (quote_bsub(&b, bsub[i].value, &why) == -1) {
			xasprintf(&msg, "%s: %s", bsub[i].key, why);
			fn(arg, bsub[i].key, msg);
			free(msg);
			free(why);
		}
		buf_free(&b);
	}
	if (p->lsf_launcher == PROFILE_LSF_JSRUN &&
	    p->discovery == PROFILE_IFACE)
		fn(arg, "discovery", "discovery: 'iface' reads the batch "
		    "shell's node, which lsf_launcher = jsrun leaves out (a "
		    "launch node): use hostname");
	if (p->lsf_launcher == PROFILE_LSF_BLAUNCH && p->cpus_per_task > 0)
		fn(arg, "cpus_per_task", "cpus_per_task: lsf_launcher = "
		    "blaunch has no word for it (jsrun's --cpu_per_rs has)");
}

/* bsub -wa/-wt: a warning before the run limit. */
const struct gen gen_lsf = {
	.sched = SCHED_LSF,
	.submit = "bsub",
	.tmpl = "lsf.sh",
	.formats = lsf_formats,
	.nformats = sizeof lsf_formats / sizeof lsf_formats[0],
	.flags = GEN_WARN_SIGNAL | GEN_ENV_SCRIPT | GEN_LEAVES_OUT,
	.cmd_ddprank = "\"$DDPRANK\"",
	.keys = lsf_keys,
	.images = 1 << RT_IMAGE_NONE | 1 << RT_IMAGE_WORD,
	.filters = lsf_filters,
	.vars = lsf_vars,
	.check = lsf_check,
};
