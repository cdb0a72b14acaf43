/* job.c: from ddpgen's options and the site profile to the job script. */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "badnodes.h"
#include "fault.h"
#include "gen.h"
#include "job.h"
#include "launcher.h"
#include "profile.h"
#include "runtime.h"
#include "scheduler.h"
#include "script.h"
#include "state.h"
#include "tmpl.h"
#include "util.h"
#include "xmalloc.h"

/* Removes NAME=... from env, if there. */
static void
job_env_remove(struct strlist *env, const char *name)
{
	size_t	i, len = strlen(name);

	for (i = 0; i < env->n; i++) {
		if (strncmp(env->v[i], name, len) == 0 &&
		    env->v[i][len] == '=') {
			free(env->v[i]);
			memmove(&env->v[i], &env->v[i + 1],
			    (env->n - i) * sizeof env->v[0]);
			env->n--;
			return;
		}
	}
}

static void
job_set_str(char **dst, const char *src)
{
	if (src == NULL)
		return;
	free(*dst);
	*dst = xstrdup(src);
}

/* One grammar and one message (vocab_port_parse), as ddprank's. */
static enum fault
job_port(struct profile *p, const char *port, char **cause)
{
	char	*why = NULL;

	if (port != NULL && vocab_port_parse(port, &p->port, &why) == -1) {
		util_fail(cause, "--port: %s", why);
		free(why);
		return FAULT_USAGE;
	}
	return FAULT_NONE;
}

static enum fault
job_rdzv(struct profile *p, const char *rdzv, char **cause)
{
	char	*w;
	int	 i;

	if (rdzv == NULL)
		return FAULT_NONE;
	if ((i = vocab_word(rdzv_names, rdzv)) == -1) {
		w = words_join(rdzv_names, " or ");
		util_fail(cause, "--rdzv: '%s' is not %s", rdzv, w);
		free(w);
		return FAULT_USAGE;
	}
	p->rdzv = (enum rdzv)i;
	return FAULT_NONE;
}

static enum fault
job_container(struct profile *p, const char *container, char **cause)
{
	char	*names;
	int	 i;

	if (container == NULL)
		return FAULT_NONE;
	if ((i = vocab_word(runtime_names(), container)) == -1) {
		names = runtime_names_text();
		util_fail(cause, "--container: '%s' is not %s", container,
		    names);
		free(names);
		return FAULT_USAGE;
	}
	p->container = (enum runtime_id)i;
	return FAULT_NONE;
}

static enum fault
job_bind(struct profile *p, const char *bind, char **cause)
{
	char	*w;
	int	 i;

	if (bind == NULL)
		return FAULT_NONE;
	if ((i = vocab_word(bind_names, bind)) == -1) {
		w = words_join(bind_names, " or ");
		util_fail(cause, "--bind: '%s' is not %s", bind, w);
		free(w);
		return FAULT_USAGE;
	}
	p->bind = (enum bind_policy)i;
	return FAULT_NONE;
}

/* --launcher NAME names a row; a profile whose launcher names the same
 * row keeps its words (a torchrun at a path stays). */
static enum fault
job_launcher(struct profile *p, const char *name, char **cause)
{
	char	*names;
	int	 i;

	if (name == NULL)
		return FAULT_NONE;
	if ((i = vocab_word(launcher_names(), name)) == -1) {
		util_fail(cause, "--launcher: '%s' is not %s", name,
		    (names = launcher_names_text()));
		free(names);
		return FAULT_USAGE;
	}
	if (p->launcher.n > 0 &&
	    launcher_find(p->launcher.v[0]) == (enum launcher_id)i)
		return FAULT_NONE;
	strlist_free(&p->launcher);
	strlist_init(&p->launcher);
	strlist_add(&p->launcher, name);
	return FAULT_NONE;
}

/* --format picks the template of the same name with the format's
 * extension: hpcpack.xml becomes hpcpack.cmd. */
static enum fault
job_format(struct profile *p, const char *format, char **cause)
{
	const struct gen_format	*f;
	enum sched_id		 s;
	char			*dot, *t, *names;

	if (format == NULL)
		return FAULT_NONE;
	if ((f = gen_format(format, &s)) == NULL || s != p->scheduler) {
		names = gen_formats_text(f == NULL ? SCHED_AUTO :
		    p->scheduler);
		if (f == NULL)
			util_fail(cause, "--format: '%s' is not %s", format,
			    names);
		else
			util_fail(cause, "--format: %s is not a format for %s "
			    "sites (%s)", format,
			    sched_get(p->scheduler)->title, names);
		free(names);
		return FAULT_USAGE;
	}
	t = xstrdup(p->template);
	if ((dot = strrchr(t, '.')) != NULL && strchr(dot, '/') == NULL)
		*dot = '\0';
	free(p->template);
	xasprintf(&p->template, "%s%s", t, tmpl_ctx_ext(f->ctx));
	free(t);
	return FAULT_NONE;
}

/* Command-line values win over the profile's. */
static enum fault
job_apply_opts(struct profile *p, const struct job_opts *o, char **cause)
{
	enum fault xc;

	if (o->gpus != -1)
		p->gpus_per_node = o->gpus;
	if (o->nproc != -1)
		p->nproc_per_node = o->nproc;
	job_set_str(&p->time, o->time);
	job_set_str(&p->partition, o->partition);
	job_set_str(&p->account, o->account);
	job_set_str(&p->qos, o->qos);
	job_set_str(&p->constraint, o->constraint);
	job_set_str(&p->job_name, o->job_name);
	job_set_str(&p->template, o->template);
	job_set_str(&p->ddprank, o->ddprank);
	job_set_str(&p->image, o->image);
	if (o->preflight != -1)
		p->preflight = o->preflight;
	if (o->requeue != -1)
		p->requeue = o->requeue;
	if (o->signal_lead != -1)
		p->signal_lead = o->signal_lead;
	if (o->hang_timeout != -1)
		p->hang_timeout = o->hang_timeout;
	if (o->iface != NULL) {
		job_set_str(&p->iface, o->iface);
		p->discovery = PROFILE_IFACE;
	}
	if ((xc = job_format(p, o->format, cause)) != FAULT_NONE ||
	    (xc = job_port(p, o->port, cause)) != FAULT_NONE ||
	    (xc = job_rdzv(p, o->rdzv, cause)) != FAULT_NONE ||
	    (xc = job_container(p, o->container, cause)) != FAULT_NONE ||
	    (xc = job_bind(p, o->bind, cause)) != FAULT_NONE ||
	    (xc = job_launcher(p, o->launcher, cause)) != FAULT_NONE)
		return xc;
	/* An image nothing runs would be dropped without a word. */
	if (o->image != NULL && p->container == RT_NONE) {
		util_fail(cause, "--image: '%s' needs a container runtime: "
		    "--container, or the profile's container", o->image);
		return FAULT_USAGE;
	}
	strlist_copy(&p->setup, &o->setup);
	return FAULT_NONE;
}

/* A job no longer than the signal lead would be warned as it starts:
 * unless --requeue or --signal-lead asked for it (profile_validate then
 * refuses), such a job is not carried on, and r->warning says so. */
static void
job_short(struct job_resolved *r, const struct job_opts *o)
{
	struct profile	*p = r->prof;
	long long	 secs;

	if (!(gen_get(p->scheduler)->flags & GEN_WARN_SIGNAL) || !p->requeue ||
	    o->requeue == 1 || o->signal_lead != -1 ||
	    profile_parse_time(p->time, &secs) != 0 || secs <= 0 ||
	    secs > p->signal_lead)
		return;
	xasprintf(&r->warning, "time limit '%s' is not longer than "
	    "signal_lead (%d s): the job is not requeued", p->time,
	    p->signal_lead);
	p->requeue = 0;
}

/* Drops name from pass, if there. */
static void
job_pass_remove(struct strlist *pass, const char *name)
{
	size_t	k;

	for (k = 0; k < pass->n; k++) {
		if (strcmp(pass->v[k], name) == 0) {
			free(pass->v[k]);
			memmove(&pass->v[k], &pass->v[k + 1],
			    (pass->n - k) * sizeof pass->v[0]);
			pass->n--;
			return;
		}
	}
}

static int
job_env_has(const struct strlist *env, const char *name)
{
	size_t	i, len = strlen(name);

	for (i = 0; i < env->n; i++)
		if (strncmp(env->v[i], name, len) == 0 &&
		    (env->v[i][len] == '=' || env->v[i][len] == '\0'))
			return 1;
	return 0;
}

/* env_default: an entry whose name env or --env gives goes. Where the
 * job is a shell script (the back-end's GEN_ENV_SCRIPT), the rest stay
 * for it to export when the job does not have them, from the submitting
 * environment or a module a setup line loads; elsewhere (HPC Pack's job
 * variables) nothing can be there first, and they join env. */
static void
job_env_defaults(struct profile *p, const struct strlist *pass)
{
	struct strlist	 keep;
	char		*name;
	size_t		 i;
	int		 run_time = gen_get(p->scheduler)->flags & GEN_ENV_SCRIPT;

	strlist_init(&keep);
	for (i = 0; i < p->env_default.n; i++) {
		name = xstrndup(p->env_default.v[i],
		    strcspn(p->env_default.v[i], "="));
		if (!job_env_has(&p->env, name) && !job_env_has(pass, name))
			strlist_add(run_time ? &keep : &p->env,
			    p->env_default.v[i]);
		free(name);
	}
	strlist_free(&p->env_default);
	p->env_default = keep;
}

/* Applies each --env in order, the last for a name winning: NAME=VALUE
 * replaces the profile's NAME; a bare NAME is passed from the submitting
 * shell at run time instead (into pass), so its value is never written. */
static enum fault
job_apply_env(struct profile *p, const struct job_opts *o,
    struct strlist *pass, char **cause)
{
	size_t	i;
	char	*name, *where;

	for (i = 0; i < o->env.n; i++) {
		name = xstrndup(o->env.v[i], strcspn(o->env.v[i], "="));
		job_pass_remove(pass, name);
		if (strchr(o->env.v[i], '=') != NULL)
			profile_env_set(&p->env, o->env.v[i]);
		else {
			job_env_remove(&p->env, name);
			strlist_add(pass, name);
		}
		free(name);
	}
	if (pass->n > 0 && !(gen_get(p->scheduler)->flags & GEN_ENV_PASS)) {
		where = gen_env_pass_text();
		util_fail(cause, "--env: '%s': passing a variable from the "
		    "submitting shell works on %s sites only; give %s=VALUE",
		    pass->v[0], where, pass->v[0]);
		free(where);
		return FAULT_USAGE;
	}
	job_env_defaults(p, pass);
	return FAULT_NONE;
}

/* ddpgen's command line for the job's "Regenerate with" comment, with
 * each --env value replaced by a placeholder: a secret given there is
 * not written a second time. */
static void
job_redact_argv(struct strlist *out, const struct job_opts *o)
{
	const char	*eq;
	char		*s;
	size_t		 i, k = 0;

	strlist_add(out, "ddpgen");
	/* env_at ascends: the options were parsed in order. */
	for (i = 1; i < o->argc; i++) {
		while (k < o->env.n && o->env_at[k] < i)
			k++;
		/* The value ends argv[i], in "-eN=V" too. */
		eq = NULL;
		if (k < o->env.n && o->env_at[k] == i)
			eq = strchr(o->argv[i] + strlen(o->argv[i]) -
			    strlen(o->env.v[k]), '=');
		if (eq != NULL)
			xasprintf(&s, "%.*s=<value>", (int)(eq - o->argv[i]),
			    o->argv[i]);
		else
			s = xstrdup(o->argv[i]);
		strlist_addown(out, s);
	}
}

/* The first executable DIR/ddprank along PATH's absolute directories. */
static char *
job_path_ddprank(void)
{
	char	 path[PATH_MAX], *dirs, *tok, *save;
	char	*found = NULL;

	dirs = xstrdup(getenv("PATH") != NULL ? getenv("PATH") : "");
	for (tok = strtok_r(dirs, ":", &save); tok != NULL && found == NULL;
	    tok = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof path, "%s/ddprank", tok);
		if (tok[0] == '/' && access(path, X_OK) == 0)
			found = xstrdup(path);
	}
	free(dirs);
	return found;
}

/* Where ddprank lives on the nodes: the profile or --ddprank, else the
 * one beside this ddpgen, else BINDIR's, else the first in PATH. The
 * script calls it by this absolute path. */
static enum fault
job_find_ddprank(char **out, const char *given, const char *exedir,
    char **cause)
{
	char	*p;

	if (*given != '\0') {
		if (given[0] != '/') {
			util_fail(cause, "ddprank path '%s' is not absolute",
			    given);
			return FAULT_USAGE;
		}
		*out = xstrdup(given);
		return FAULT_NONE;
	}
	if (exedir != NULL) {
		xasprintf(&p, "%s/ddprank", exedir);
		if (access(p, X_OK) == 0) {
			*out = p;
			return FAULT_NONE;
		}
		free(p);
	}
	if (access(DDPGEN_BINDIR "/ddprank", X_OK) == 0)
		*out = xstrdup(DDPGEN_BINDIR "/ddprank");
	else if ((*out = job_path_ddprank()) == NULL) {
		util_fail(cause, "cannot find ddprank (beside ddpgen, in %s or "
		    "in PATH); install it or set ddprank in the profile",
		    DDPGEN_BINDIR);
		return FAULT_SYS;
	}
	return FAULT_NONE;
}

/* A runtime that starts the tasks inside it mounts ddprank's directory
 * (nodecmd_srun_container), as one item of a ',' list of SRC:DST. */
static enum fault
job_check_inside(const struct profile *p, const char *ddprank, char **cause)
{
	const char	*slash = strrchr(ddprank, '/');

	if (!runtime_get(p->container)->inside)
		return FAULT_NONE;
	if (slash == ddprank || strpbrk(ddprank, ",:") != NULL) {
		util_fail(cause, "ddprank path '%s': %s mounts its directory, "
		    "which must not be / or hold ',' or ':'", ddprank,
		    runtime_get(p->container)->name);
		return FAULT_USAGE;
	}
	return FAULT_NONE;
}

/* The profile's template path is already absolute when it has a slash
 * (see profile.c); -T's is relative to the current directory. A name
 * without a slash is looked up in the template path, which the render
 * keeps for the template's partials. */
static enum fault
job_find_template(struct job_resolved *r, const struct profile *p,
    const char *exedir, char **cause)
{
	script_template_path(&r->tdirs, NULL, exedir);
	r->tpath = script_find_template(p->template, &r->tdirs, cause);
	return r->tpath == NULL ? FAULT_CONFIG : FAULT_NONE;
}

/* Setup lines are shell code: bash -n checks them as a block, and a
 * failure names the first line bash refuses on its own (or all of them,
 * when only together they fail, as an unclosed if). nprof of them come
 * from the profile, where at ("FILE:LINE: ") set them, the rest from
 * -S. */
static enum fault
job_check_setup(const struct strlist *setup, size_t nprof, const char *at,
    char **cause)
{
	struct buf	 b;
	char		*all, *why;
	size_t		 i;
	int		 rc;

	if (setup->n == 0)
		return FAULT_NONE;
	buf_init(&b);
	for (i = 0; i < setup->n; i++)
		buf_addf(&b, "%s\n", setup->v[i]);
	rc = script_check_syntax(b.s, 0, &all);
	buf_free(&b);
	if (rc != -1)
		return FAULT_NONE;
	for (i = 0; i < setup->n; i++) {
		if (script_check_syntax(setup->v[i], 1, &why) != -1)
			continue;
		free(all);
		util_fail(cause, "%ssetup: '%s' is not valid shell: %s",
		    i < nprof ? at : "--", setup->v[i], why);
		free(why);
		return i < nprof ? FAULT_CONFIG : FAULT_USAGE;
	}
	util_fail(cause, "%ssetup lines are not valid shell together: %s",
	    nprof > 0 ? at : "", all);
	free(all);
	return nprof == setup->n ? FAULT_CONFIG : FAULT_USAGE;
}

/* An -e value the format cannot carry is a usage error, before the
 * template would report it as its own (a profile error). */
static enum fault
job_check_env_values(const struct job_opts *o, const struct profile *p,
    char **cause)
{
	enum tmpl_ctx	 ctx;
	struct buf	 b;
	char		*why;
	size_t		 i;
	int		 rc;

	/* An unknown extension is the template loader's to report. */
	if (tmpl_ctx_of(p->template, &ctx) == -1)
		return FAULT_NONE;
	for (i = 0; i < o->env.n; i++) {
		if (strchr(o->env.v[i], '=') == NULL)
			continue;	/* passed at run time */
		buf_init(&b);
		rc = tmpl_escape(ctx, &b, strchr(o->env.v[i], '=') + 1, &why);
		buf_free(&b);
		if (rc == -1) {
			util_fail(cause, "--env: '%s': %s", o->env.v[i], why);
			free(why);
			return FAULT_USAGE;
		}
	}
	return FAULT_NONE;
}

/* A back-end holds one node exclusively only with GEN_HOLD_ONE: the
 * others ask for it from two nodes on (their exclusive variable). */
static enum fault
job_check_c10d(const struct profile *p, long long nodes, char **cause)
{
	if (p->rdzv != RDZV_C10D || p->c10d_shared || nodes > 1 ||
	    (gen_get(p->scheduler)->flags & GEN_HOLD_ONE))
		return FAULT_NONE;
	util_fail(cause, "rdzv: c10d on one node, which is not held "
	    "exclusively: " PROFILE_C10D_RISK "; use static, or "
	    PROFILE_C10D_KEY);
	return FAULT_USAGE;
}

/* The profile with the options laid over it, checked. */
static enum fault
job_profile(struct job_resolved *r, const struct job_opts *o, char **cause)
{
	struct profile	*p = r->prof;
	size_t		 nprof = p->setup.n;
	enum fault	 xc;

	if ((xc = job_apply_opts(p, o, cause)) != FAULT_NONE)
		return xc;
	job_short(r, o);
	if ((xc = job_apply_env(p, o, &r->pass, cause)) != FAULT_NONE)
		return xc;
	if (profile_validate(p, cause) == -1)
		return FAULT_USAGE;
	if ((xc = job_check_c10d(p, o->nodes, cause)) != FAULT_NONE ||
	    (xc = job_check_setup(&p->setup, nprof, p->setup_at,
	    cause)) != FAULT_NONE)
		return xc;
	return job_check_env_values(o, p, cause);
}

/* "NODE (until DATE: WHY)", for the note. */
static void
job_bad_item(struct buf *b, const struct badnode *e)
{
	char		when[64];
	time_t		t = (time_t)e->until;
	struct tm	tm;

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm) == 0)
		snprintf(when, sizeof when, "%lld", e->until);
	buf_addf(b, "%s (until %s: ", e->node, when);
	util_addvis(b, e->why, strlen(e->why));
	buf_addc(b, ')');
}

/* The nodes remembered as bad for this site (ddpgen(1), HANGS AND
 * BAD NODES),
 * where the template leaves them out: into r->exclude, with a note for
 * the user. Not being able to read them is a warning, not an error. */
static void
job_bad_nodes(struct job_resolved *r, const struct job_opts *o)
{
	struct badnodes	 bad;
	struct stat	 st;
	struct buf	 b;
	char		*dir, *file, *cause;
	size_t		 i, n = 0;
	int		 leaves = (gen_get(r->prof->scheduler)->flags &
	    GEN_LEAVES_OUT) != 0;

	strlist_init(&r->exclude);
	r->scope = badnodes_scope(o->site);
	r->job.scope = r->scope;
	r->job.exclude = &r->exclude;
	if (!leaves)
		return;
	if ((dir = state_path(util_getenv, &cause)) == NULL) {
		free(cause);
		return;
	}
	xasprintf(&file, "%s/" BADNODES_FILE, dir);
	free(dir);
	/* Nothing remembered yet: no state directory is made for it. */
	if (lstat(file, &st) == -1 && errno == ENOENT) {
		free(file);
		return;
	}
	free(file);
	buf_init(&b);
	if (badnodes_update(&bad, (long long)time(NULL), NULL, NULL,
	    util_getenv, &cause) == -1) {
		xasprintf(&r->note, "warning: the bad nodes are not left out: "
		    "%s", cause);
		free(cause);
		buf_free(&b);
		return;
	}
	for (i = 0; i < bad.n; i++) {
		if (strcmp(bad.v[i].site, r->scope) != 0)
			continue;
		strlist_add(&r->exclude, bad.v[i].node);
		buf_adds(&b, n++ > 0 ? ", " : "");
		job_bad_item(&b, &bad.v[i]);
	}
	if (n > 0)
		xasprintf(&r->note, "leaving out %zu %s remembered as bad: %s; "
		    "'ddpgen --forget-bad-nodes' forgets them", n, n == 1 ?
		    "node" : "nodes", b.s);
	buf_free(&b);
	badnodes_free(&bad);
}

enum fault
job_resolve(struct job_resolved *r, struct profile *p,
    const struct job_opts *o, const char *exedir, char **cause)
{
	struct job		*job = &r->job;
	const struct gen	*g;
	enum fault		 xc;

	memset(r, 0, sizeof *r);
	r->prof = p;
	strlist_init(&r->pass);
	strlist_init(&r->cmd);
	strlist_init(&r->tdirs);
	/* A job that runs '' would fail on every node, once it has waited
	 * in the queue. */
	if (o->script[0] == '\0') {
		util_fail(cause, "script: the training script is an empty "
		    "word ('')");
		return FAULT_USAGE;
	}
	if ((xc = job_profile(r, o, cause)) != FAULT_NONE)
		return xc;
	job->prof = p;
	job->site = o->site;
	job->nodes = o->nodes;
	job->script = o->script;
	job->args = o->args;
	job->nargs = o->nargs;
	job_redact_argv(&r->cmd, o);
	job->argc = r->cmd.n;
	job->argv = r->cmd.v;
	job->env_pass = &r->pass;
	if ((xc = job_find_ddprank(&r->ddprank, p->ddprank, exedir,
	    cause)) != FAULT_NONE ||
	    (xc = job_check_inside(p, r->ddprank, cause)) != FAULT_NONE ||
	    (xc = job_find_template(r, p, exedir, cause)) != FAULT_NONE)
		return xc;
	job->ddprank = r->ddprank;
	g = gen_get(p->scheduler);
	if (g->check_job != NULL && g->check_job(job, r->tpath, cause) == -1)
		return FAULT_USAGE;
	job_bad_nodes(r, o);
	return FAULT_NONE;
}

/* A shell script that bash refuses is never written. */
static enum fault
job_check_script(const char *tpath, const struct buf *b, char **cause)
{
	enum tmpl_ctx	 ctx;
	char		*why;

	if (tmpl_ctx_of(tpath, &ctx) == -1 || ctx != TMPL_SH)
		return FAULT_NONE;
	if (script_check_syntax(b->s, 0, &why) == -1) {
		util_fail(cause, "%s: the generated script is not valid shell: "
		    "%s", tpath, why);
		free(why);
		return FAULT_CONFIG;
	}
	return FAULT_NONE;
}

enum fault
job_render(const struct job_resolved *r, struct buf *out, char **cause)
{
	const struct gen	*g = gen_get(r->prof->scheduler);
	enum fault		 xc;

	if (script_render(&r->job, r->tpath, &r->tdirs, out, cause) == -1)
		return FAULT_CONFIG;
	if ((xc = job_check_script(r->tpath, out, cause)) != FAULT_NONE)
		return xc;
	if (g->check_output != NULL &&
	    g->check_output(r->tpath, out, cause) == -1)
		return FAULT_USAGE;
	return FAULT_NONE;
}

void
job_free(struct job_resolved *r)
{
	if (r->prof != NULL)
		profile_free(r->prof);
	strlist_free(&r->pass);
	strlist_free(&r->cmd);
	free(r->ddprank);
	free(r->tpath);
	strlist_free(&r->tdirs);
	free(r->warning);
	free(r->scope);
	free(r->note);
	if (r->job.exclude != NULL)
		strlist_free(&r->exclude);
	memset(r, 0, sizeof *r);
}
