/* job.h: job resolution, from ddpgen's options and the site profile to
 * the resolved job: the options laid over the profile (--format's
 * template, --env's values and names), the checks that need both, where
 * ddprank is on the nodes, the template file; then the rendered script.
 * Functions returning enum fault give FAULT_NONE on success, and
 * otherwise a category (fault.h) and set *cause (caller frees); nothing
 * here prints or exits. */
#ifndef DDPGEN_JOB_H
#define DDPGEN_JOB_H

#include <stddef.h>

#include "fault.h"
#include "script.h"
#include "util.h"

/* Command-line values that override the profile; NULL / -1 = not given. */
struct job_opts {
	const char	*site;
	int		 nodes;
	int		 gpus;
	int		 nproc;
	const char	*time;
	const char	*partition;
	const char	*account;
	const char	*qos;
	const char	*constraint;
	const char	*job_name;
	struct strlist	 env;		/* NAME=VALUE or NAME, in order */
	size_t		*env_at;	/* the argv index of each */
	struct strlist	 setup;
	const char	*port;
	const char	*rdzv;
	const char	*launcher;
	const char	*iface;
	const char	*template;
	const char	*ddprank;
	const char	*format;
	int		 preflight;	/* --preflight 1, --no-preflight 0 */
	int		 requeue;	/* --requeue 1, --no-requeue 0 */
	int		 signal_lead;	/* --signal-lead */
	int		 hang_timeout;	/* --hang-timeout */
	const char	*container;	/* --container */
	const char	*image;		/* --image */
	const char	*bind;		/* --bind */
	int		 local;		/* --local: the site's job run on
					   this machine (the caller lays the
					   site over the local profile) */
	/* The operands, and ddpgen's whole command line for the job's
	 * "Regenerate with" comment (argv[0] is not used). */
	const char	*script;
	char *const	*args;
	size_t		 nargs;
	char *const	*argv;
	size_t		 argc;
};

/* The resolved job: job is what script_render takes; the rest is the
 * storage it points into. */
struct job_resolved {
	struct job	 job;
	struct profile	*prof;
	struct strlist	 pass;		/* --env NAME: passed at run time */
	struct strlist	 cmd;		/* ddpgen's command line, redacted */
	char		*ddprank;
	char		*tpath;		/* the template file */
	struct strlist	 tdirs;		/* the template path, for partials */
	char		*warning;	/* for the user, or NULL; set even
					   when job_resolve fails */
	char		*scope;		/* whose bad nodes */
	struct strlist	 exclude;	/* the bad nodes remembered */
	char		*note;		/* which, for the user, or NULL */
};

/* Lays o over p (which r then owns, and frees) and resolves the job;
 * exedir is the directory of ddpgen, or NULL. Free r with job_free
 * whatever this returns. */
enum fault job_resolve(struct job_resolved *r, struct profile *p,
	    const struct job_opts *o, const char *exedir, char **cause);

/* Renders the resolved job into out; a shell script bash refuses, or a
 * job over HPC Pack's limits, is an error and out is then discarded. */
enum fault job_render(const struct job_resolved *, struct buf *out,
	    char **cause);

void	job_free(struct job_resolved *);

#endif
