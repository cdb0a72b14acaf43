/* script.c: the template variables every job has, finding templates and
 * their partials, and rendering the job script. What one scheduler's
 * jobs have besides is its back-end's (gen.h). */
#include "config.h"

#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"
#include "launcher.h"
#include "nodecmd.h"
#include "profile.h"
#include "quote.h"
#include "runtime.h"
#include "scheduler.h"
#include "script.h"
#include "tmpl.h"
#include "util.h"
#include "xmalloc.h"

static void
script_set_list(struct tmpl_vars *v, const char *name,
    const struct strlist *l)
{
	tmpl_set_list(v, name, l->v, l->n);
}

/* env items are NAME=VALUE, checked by the profile; the template gets
 * them as records so the name and the value are escaped apart. Where the
 * task exports a value with $NAME references itself (GEN_ENV_IN_TASK),
 * it is left out. */
static void
script_set_envlist(struct tmpl_vars *v, const char *var,
    const struct profile *p, const struct strlist *env)
{
	static const char *const fields[] = { "name", "value", NULL };
	struct tmpl_vars	*rec;
	const char		*eq;
	char			*name;
	size_t			 i;
	int			 in_task;

	in_task = gen_get(p->scheduler)->flags & GEN_ENV_IN_TASK;
	tmpl_set_fields(v, var, fields);
	for (i = 0; i < env->n; i++) {
		eq = strchr(env->v[i], '=');
		if (in_task && quote_has_vars(eq == NULL ? "" : eq + 1))
			continue;
		name = xstrndup(env->v[i], eq == NULL ? strlen(env->v[i]) :
		    (size_t)(eq - env->v[i]));
		rec = tmpl_add_record(v, var);
		tmpl_set(rec, "name", name);
		tmpl_set(rec, "value", eq == NULL ? "" : eq + 1);
		free(name);
	}
}

/* Each NAME=VALUE of l as "CMD NAME<sep>VALUE", a line each. */
static void
script_shell_items(struct buf *b, const struct strlist *l, const char *cmd,
    char sep)
{
	const char	*eq;
	size_t		 i;

	for (i = 0; i < l->n; i++) {
		eq = strchr(l->v[i], '=');
		buf_adds(b, cmd);
		buf_addn(b, l->v[i], eq == NULL ? strlen(l->v[i]) :
		    (size_t)(eq - l->v[i]));
		buf_addc(b, sep);
		quote_sh_vars(b, eq == NULL ? "" : eq + 1);
		buf_addc(b, '\n');
	}
}

/* The job's environment as shell code, one place for every shell
 * template, which places it as shell_env: the setup lines run without
 * -u, then env exported, then env_default exported where the job lacks
 * the variable (from the submitting environment, or a module a setup
 * line loads). $NAME and ${NAME} in values expand when the job runs
 * (quote_sh_vars); names are the profile's checked identifiers. Each
 * part opens with a blank line; the whole has no final newline, which
 * the template's line gives. */
void
script_shell_env(struct buf *b, const struct profile *p)
{
	size_t	i;

	if (p->setup.n > 0) {
		buf_adds(b, "\n# Setup lines run as the user's own shell runs "
		    "them, without -u, which\n# /etc/bash.bashrc, conda "
		    "activate and module scripts trip over.\nset +u\n");
		for (i = 0; i < p->setup.n; i++)
			buf_addf(b, "%s\n", p->setup.v[i]);
		buf_adds(b, "set -euo pipefail\n");
	}
	if (p->env.n > 0) {
		buf_adds(b, "\n# $NAME and ${NAME} expand when the job runs; "
		    "nothing else does.\n# shellcheck disable=SC2016\n{\n");
		script_shell_items(b, &p->env, "export ", '=');
		buf_adds(b, "}\n");
	}
	if (p->env_default.n > 0) {
		buf_adds(b, "\n# The site's defaults (profile key env_default): "
		    "a variable the job has\n# already, from the submitting "
		    "environment or a setup line (a module),\n# keeps its "
		    "value. $NAME and ${NAME} expand when the job runs.\n"
		    "ddpgen_default() {\n\t[ -n \"${!1+set}\" ] || export "
		    "\"$1=$2\"\n}\n# shellcheck disable=SC2016\n{\n");
		script_shell_items(b, &p->env_default, "ddpgen_default ", ' ');
		buf_adds(b, "}\n");
	}
	if (b->len > 0)
		b->s[--b->len] = '\0';
}

/* A launcher that runs one task per process (srun) shares the node's
 * CPUs (cpus_per_task: a node's) between the tasks; else the one task
 * of a node shares them between its processes. */
static void
script_set_launcher(struct tmpl_vars *v, const struct profile *p)
{
	const struct launcher	*l;
	int			 nproc = profile_nproc(p), cpus;

	l = launcher_get(launcher_find(p->launcher.v[0]));
	cpus = p->cpus_per_task;
	if (l->per_process && cpus > 0)
		cpus = cpus / nproc > 0 ? cpus / nproc : 1;
	tmpl_set_count(v, "cpus_per_task", cpus);
	tmpl_set(v, "launcher_name", l->name);
	tmpl_set(v, "per_process", l->per_process ? "1" : "");
	tmpl_set_int(v, "tasks_per_node", l->per_process ? nproc : 1);
	tmpl_set_int(v, "procs_per_task", l->per_process ? 1 : nproc);
	/* srun-direct's tasks bind themselves (ddprank(1), BINDING): srun
	 * must not bind each to its block of the node first. */
	tmpl_set(v, "srun_cpu_bind", l->per_process && p->bind != BIND_NONE ?
	    "none" : "");
}

/* The profile's requests as they are; the time limit, the output file
 * and exclusive are the back-end's, in the scheduler's form. */
static void
script_set_requests(struct tmpl_vars *v, const struct profile *p)
{
	tmpl_set(v, "job_name", p->job_name);
	tmpl_set(v, "partition", p->partition);
	tmpl_set(v, "account", p->account);
	tmpl_set(v, "qos", p->qos);
	tmpl_set(v, "constraint", p->constraint);
	tmpl_set_count(v, "gpus_per_node", p->gpus_per_node);
	script_set_launcher(v, p);
	tmpl_set_int(v, "nproc_per_node", profile_nproc(p));
	script_set_list(v, "sbatch_extra", &p->sbatch_extra);
}

/* Long trainings: the warning, the checkpoint signal, the requeues. */
static void
script_set_life(struct tmpl_vars *v, const struct profile *p)
{
	tmpl_set(v, "requeue", p->requeue ? "1" : "");
	tmpl_set_int(v, "signal_lead", p->signal_lead);
	tmpl_set(v, "checkpoint_signal",
	    profile_signal_names[p->checkpoint_signal]);
	tmpl_set_int(v, "max_requeues", p->max_requeues);
	tmpl_set_count(v, "max_restarts", p->max_restarts);
}

/* Hangs and bad nodes (ddpgen(1), HANGS AND BAD NODES): the stall
 * limit, the reruns without the nodes to blame, how long they are
 * remembered, and those remembered now. */
static void
script_set_hang(struct tmpl_vars *v, const struct job *job)
{
	const struct profile	*p = job->prof;
	struct buf		 b;
	size_t			 i;
	/* ddprank verdict after the step: a stall to report, or nodes
	 * (the stall's, the preflight's) to leave out of the rerun. */
	const struct gen	*g = gen_get(p->scheduler);
	int			 leaves = (g->flags & GEN_LEAVES_OUT) != 0;
	int			 leave = p->requeue && leaves &&
	    (p->hang_timeout > 0 || p->preflight);

	tmpl_set(v, "hang", p->hang_timeout > 0 ? "1" : "");
	tmpl_set_count(v, "hang_timeout", p->hang_timeout);
	tmpl_set(v, "hang_dir", p->hang_dir);
	tmpl_set(v, "verdict", p->hang_timeout > 0 || leave ? "1" : "");
	tmpl_set(v, "leave_out", leave ? "1" : "");
	tmpl_set_int(v, "max_failures", p->max_failures);
	/* Bad nodes are remembered where the next job can leave them out,
	 * not a local job's (its nodes are this machine). */
	tmpl_set_count(v, "bad_node_seconds", leaves ?
	    p->bad_node_hours * 3600 : 0);
	/* ddprank verdict reads the job's variables as the node command
	 * does: told the scheduler where the node command is. */
	tmpl_set(v, "verdict_scheduler", g->flags & GEN_NAME_SCHED ?
	    sched_name(p->scheduler) : "");
	tmpl_set(v, "scope", job->scope != NULL ? job->scope : "");
	buf_init(&b);
	for (i = 0; job->exclude != NULL && i < job->exclude->n; i++)
		buf_addf(&b, "%s%s", i > 0 ? "," : "", job->exclude->v[i]);
	tmpl_set(v, "exclude", b.s);
	buf_free(&b);
}

/* The program's first word, which the preflight looks for (srun's is
 * the python that runs the script). */
static void
script_set_program(struct tmpl_vars *v, const struct profile *p)
{
	struct strlist	prog;

	strlist_init(&prog);
	launcher_program(&prog, &p->launcher);
	tmpl_set(v, "launcher_program", prog.v[0]);
	strlist_free(&prog);
}

static void
script_set_shell_env(struct tmpl_vars *v, const struct profile *p)
{
	struct buf	b;

	buf_init(&b);
	script_shell_env(&b, p);
	tmpl_set(v, "shell_env", b.len > 0 ? b.s : "");
	buf_free(&b);
}

static void
script_set_runtime(struct tmpl_vars *v, const struct profile *p)
{
	char	range[64];

	tmpl_set(v, "iface", p->iface);
	tmpl_set(v, "discovery", profile_disc_names[p->discovery]);
	tmpl_set(v, "discovery_iface", p->discovery == PROFILE_IFACE ?
	    "1" : "");
	if (p->port == 0)
		tmpl_set(v, "port", "auto");
	else
		tmpl_set_int(v, "port", p->port);
	snprintf(range, sizeof range, "%d-%d", p->port_min, p->port_max);
	tmpl_set(v, "port_range", range);
	tmpl_set(v, "rdzv", rdzv_names[p->rdzv]);
	tmpl_set(v, "rdzv_c10d", p->rdzv == RDZV_C10D ? "1" : "");
	tmpl_set(v, "label_output", p->label_output ? "1" : "");
	script_set_list(v, "launcher", &p->launcher);
	script_set_program(v, p);
	script_set_list(v, "launcher_args", &p->launcher_args);
	tmpl_set(v, "preflight", p->preflight ? "1" : "");
	script_set_list(v, "setup", &p->setup);
	script_set_envlist(v, "env", p, &p->env);
	script_set_envlist(v, "env_default", p, &p->env_default);
	script_set_shell_env(v, p);
}

/* The commands each node runs, as shell code laid out as the back-end
 * says (nodecmd.h): the preflight and the training. */
static void
script_set_node_commands(struct tmpl_vars *v, const struct job *job)
{
	const struct gen	*g = gen_get(job->prof->scheduler);
	struct nodecmd		 cmd;
	struct buf		 b;

	buf_init(&b);
	nodecmd_build(&cmd, job);
	nodecmd_sh(&b, &cmd, g);
	nodecmd_free(&cmd);
	tmpl_set(v, "node_command", b.s);
	buf_free(&b);
	buf_init(&b);
	nodecmd_doctor(&cmd, job);
	nodecmd_sh(&b, &cmd, g);
	nodecmd_free(&cmd);
	tmpl_set(v, "preflight_command", b.s);
	buf_free(&b);
}

struct tmpl_vars *
script_vars(const struct job *job)
{
	const struct profile	*p = job->prof;
	struct tmpl_vars	*v;

	v = tmpl_vars_new();
	tmpl_set(v, "version", DDPGEN_VERSION);
	tmpl_set(v, "site", job->site);
	tmpl_set(v, "description", p->description);
	tmpl_set(v, "submit", gen_get(p->scheduler)->submit);
	tmpl_set_list(v, "command", job->argv, job->argc);
	tmpl_set_int(v, "nodes", job->nodes);
	tmpl_set(v, "ddprank", job->ddprank);
	tmpl_set(v, "script", job->script);
	tmpl_set_list(v, "args", job->args, job->nargs);
	script_set_node_commands(v, job);
	tmpl_set(v, "container", p->container == RT_NONE ? "" :
	    runtime_get(p->container)->name);
	tmpl_set(v, "image", p->image);
	if (job->env_pass != NULL)
		script_set_list(v, "env_pass", job->env_pass);
	else
		tmpl_set_empty_list(v, "env_pass");
	script_set_requests(v, p);
	script_set_runtime(v, p);
	script_set_life(v, p);
	script_set_hang(v, job);
	gen_get(p->scheduler)->vars(v, job);
	return v;
}

void
script_template_path(struct strlist *dirs,
    const char *(*getenv_fn)(const char *), const char *exedir)
{
	util_searchpath(dirs, "DDPGEN_TEMPLATE_PATH", "templates", getenv_fn,
	    exedir);
}

char *
script_find_template(const char *name, const struct strlist *dirs,
    char **cause)
{
	char	*p;
	size_t	 i;

	if (strchr(name, '/') != NULL) {
		if (access(name, R_OK) != 0) {
			util_fail(cause, "template %s: not readable", name);
			return NULL;
		}
		return xstrdup(name);
	}
	for (i = 0; i < dirs->n; i++) {
		xasprintf(&p, "%s/%s", dirs->v[i], name);
		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	util_fail(cause, "template '%s' not found in the template path", name);
	return NULL;
}

/* Where a template's partials are looked for: the template's own
 * directory, unless the template was found along the template path,
 * then the template path. */
struct script_partials {
	const char		*sched;
	struct strlist		 dirs;
};

/*
 * A partial NAME of the file FROM (its stem STEM: job for job.sh) is the
 * scheduler's own SCHED/NAME if a directory has one, else FROM's own part
 * STEM/NAME (job.sh's defaults, in job/), else NAME beside it: the
 * directories are searched in order for each in turn, so a site's
 * template directory may hold its own version of any of them.
 */
static char *
script_find_partial(void *arg, const char *from, const char *name,
    char **cause)
{
	const struct script_partials	*sp = arg;
	const char			*base = strrchr(from, '/');
	char				*stem, *p, *try[3];
	size_t				 i, k;

	base = base != NULL ? base + 1 : from;
	stem = xstrndup(base, strcspn(base, "."));
	xasprintf(&try[0], "%s/%s", sp->sched, name);
	xasprintf(&try[1], "%s/%s", stem, name);
	try[2] = xstrdup(name);
	p = NULL;
	for (k = 0; k < 3 && p == NULL; k++) {
		for (i = 0; i < sp->dirs.n && p == NULL; i++) {
			xasprintf(&p, "%s/%s", sp->dirs.v[i], try[k]);
			if (access(p, R_OK) != 0) {
				free(p);
				p = NULL;
			}
		}
	}
	if (p == NULL)
		util_fail(cause, "none of %s, %s or %s is in the template's "
		    "directory or the template path", try[0], try[1], try[2]);
	for (k = 0; k < 3; k++)
		free(try[k]);
	free(stem);
	return p;
}

int
script_render(const struct job *job, const char *path,
    const struct strlist *dirs, struct buf *out, char **cause)
{
	const struct gen	*g = gen_get(job->prof->scheduler);
	struct script_partials	 sp;
	struct tmpl_opts	 opts;
	struct tmpl		*t;
	struct tmpl_vars	*v;
	const char		*slash = strrchr(path, '/');
	char			*dir;
	size_t			 i;
	int			 rc;

	sp.sched = sched_name(g->sched);
	strlist_init(&sp.dirs);
	dir = slash == NULL ? xstrdup(".") : xstrndup(path, slash == path ?
	    1 : (size_t)(slash - path));
	for (i = 0; i < dirs->n && strcmp(dirs->v[i], dir) != 0; i++)
		;
	if (i == dirs->n)
		strlist_addown(&sp.dirs, dir);
	else
		free(dir);
	strlist_copy(&sp.dirs, dirs);
	opts.find = script_find_partial;
	opts.arg = &sp;
	opts.filters = g->filters;
	t = tmpl_load(path, &opts, cause);
	strlist_free(&sp.dirs);
	if (t == NULL)
		return -1;
	v = script_vars(job);
	rc = tmpl_render(t, v, out, cause);
	tmpl_vars_free(v);
	tmpl_free(t);
	return rc;
}

/* Runs "bash -n" on the code in fd, its standard error into err.
 * Returns bash's wait status, or -1 with errno set. */
static int
script_run_bash_n(int fd, struct buf *err)
{
	char	chunk[4096];
	pid_t	pid;
	ssize_t	n;
	int	pfd[2], status;

	if (pipe(pfd) == -1)
		return -1;
	if ((pid = fork()) == -1) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		if (dup2(fd, 0) == -1 || dup2(pfd[1], 1) == -1 ||
		    dup2(pfd[1], 2) == -1)
			_exit(127);
		close(pfd[0]);
		close(pfd[1]);
		execlp("bash", "bash", "-n", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], chunk, sizeof chunk)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;
		buf_addn(err, chunk, (size_t)n);
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	return status;
}

/* bash's first line of complaint, without its "bash: " (and, when
 * strip_line, "line N: ") prefix. */
static char *
script_bash_message(const char *err, int strip_line)
{
	const char	*s = err, *p;

	if (strncmp(s, "bash: ", 6) == 0)
		s += 6;
	if (strip_line && strncmp(s, "line ", 5) == 0 &&
	    (p = strstr(s, ": ")) != NULL)
		s = p + 2;
	return xstrndup(s, strcspn(s, "\n"));
}

int
script_check_syntax(const char *code, int strip_line, char **cause)
{
	struct buf	 err;
	FILE		*f;
	int		 status;

	if ((f = tmpfile()) == NULL)
		return util_fail(cause, "bash -n: temporary file: %s",
		    strerror(errno));
	if (fputs(code, f) == EOF || fflush(f) == EOF ||
	    lseek(fileno(f), 0, SEEK_SET) == -1) {
		fclose(f);
		return util_fail(cause, "bash -n: temporary file: %s",
		    strerror(errno));
	}
	buf_init(&err);
	status = script_run_bash_n(fileno(f), &err);
	fclose(f);
	if (status == -1) {
		buf_free(&err);
		return util_fail(cause, "bash -n: %s", strerror(errno));
	}
	/* No bash to ask: exec failed and it said nothing. */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && err.len == 0) {
		buf_free(&err);
		return 1;
	}
	/* A warning (a here-document that runs to the end) fails too. */
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || err.len > 0) {
		*cause = script_bash_message(err.len > 0 ? err.s :
		    "bash -n failed", strip_line);
		buf_free(&err);
		return -1;
	}
	buf_free(&err);
	return 0;
}
