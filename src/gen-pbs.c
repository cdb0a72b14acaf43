/* gen-pbs.c: ddpgen's PBS Pro back-end: qsub scripts (templates/pbs.sh
 * and its fragments in templates/pbs/). */
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

static const struct gen_format pbs_formats[] = { { "pbs", TMPL_SH } };

/* The profile's keys that #PBS lines or the life cycle write. */
static const char *const pbs_keys[] = { "partition", "account",
    "job_output", "cpus_per_task", "requeue", "signal_lead",
    "checkpoint_signal", "max_requeues", "hang_timeout", "hang_dir",
    "max_failures", "bad_node_hours", "filesystems", "pbs_select",
    "pbs_launcher", NULL };

/* A word of a #PBS line as qsub splits it (quote_pbs). */
static const struct tmpl_filter pbs_filters[] = {
	{ "pbs", quote_pbs, 1 },
	{ NULL, NULL, 0 }
};

/*
 * The nodes to leave out. PBS has no way for a job to keep a host out:
 * a chunk of a select statement is "one or more <resource name>=<value>
 * statements separated by a colon" (OpenPBS, doc/man1/pbs_resources.7B,
 * "Requesting Resources in Chunks"), so host=NAME names a host to use
 * and nothing says "not this one"; the node filter that would have
 * (PBS Pro design PP-507, "User requests none of the allocated nodes
 * will be node X, node Y, node Z", pbspro.atlassian.net) is marked
 * stalled, and REFERENCE's host!= is no syntax of either. What a user
 * can write is a larger select: the job asks for one chunk more per
 * node to leave out (pbs_chunks), and takes the first of its hosts that
 * are not among them (pbs/nodes.sh, DDPGEN_EXCLUDE), at most nodes of
 * them; the hosts it leaves idle are the price.
 */
static void
pbs_exclusion(struct tmpl_vars *v, const struct job *job)
{
	char	*list;
	size_t	 n;

	list = gen_exclusion(job, "", "", ",", &n);
	tmpl_set(v, "pbs_exclude", list);
	tmpl_set_int(v, "pbs_chunks", (long long)(job->nodes + n));
	free(list);
}

/* The walltime as H:MM:SS; the output file, which qsub -o takes as a
 * path and expands nothing in, so that a Slurm pattern (the default
 * ddp-%j.out) leaves PBS's own NAME.oID; place=scatter:excl from two
 * nodes on, as Slurm's --exclusive; the resources and how tasks
 * start. */
static void
pbs_vars(struct tmpl_vars *v, const struct job *job)
{
	const struct profile	*p = job->prof;
	long long		 secs = 0;
	char			 s[64];

	if (*p->time != '\0')
		profile_parse_time(p->time, &secs);
	if (secs <= 0)
		s[0] = '\0';
	else
		snprintf(s, sizeof s, "%lld:%02lld:%02lld", secs / 3600,
		    secs / 60 % 60, secs % 60);
	tmpl_set(v, "time", s);
	tmpl_set(v, "output", strchr(p->job_output, '%') != NULL ? "" :
	    p->job_output);
	tmpl_set(v, "exclusive", p->exclusive && job->nodes > 1 ? "1" : "");
	tmpl_set(v, "filesystems", p->filesystems);
	tmpl_set(v, "pbs_select", p->pbs_select);
	tmpl_set(v, "pbs_launcher", profile_pbs_launch_names[p->pbs_launcher]);
	tmpl_set(v, "pbs_mpiexec", p->pbs_launcher == PROFILE_PBS_MPIEXEC ?
	    "1" : "");
	pbs_exclusion(v, job);
}

/* No signal before the walltime: the script arms a timer. */
const struct gen gen_pbs = {
	.sched = SCHED_PBS,
	.submit = "qsub",
	.tmpl = "pbs.sh",
	.formats = pbs_formats,
	.nformats = sizeof pbs_formats / sizeof pbs_formats[0],
	.flags = GEN_ENV_SCRIPT | GEN_LEAVES_OUT,
	.cmd_ddprank = "\"$DDPRANK\"",
	.keys = pbs_keys,
	.images = 1 << RT_IMAGE_NONE | 1 << RT_IMAGE_WORD,
	.filters = pbs_filters,
	.vars = pbs_vars,
};
