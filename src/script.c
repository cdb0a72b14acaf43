/* script.c: the template variables of a job, and rendering its script. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"
#include "quote.h"
#include "script.h"
#include "tmpl.h"
#include "util.h"
#include "xmalloc.h"

/* Sets name to the decimal n, or to "" when n is 0 so templates can test
 * it with {{?name}}. */
static void
script_set_count(struct tmpl_vars *v, const char *name, int n)
{
	char	num[32];

	if (n == 0)
		num[0] = '\0';
	else
		snprintf(num, sizeof num, "%d", n);
	tmpl_set(v, name, num);
}

static void
script_set_int(struct tmpl_vars *v, const char *name, int n)
{
	char	num[32];

	snprintf(num, sizeof num, "%d", n);
	tmpl_set(v, name, num);
}

static void
script_set_list(struct tmpl_vars *v, const char *name,
    const struct strlist *l)
{
	tmpl_set_list(v, name, l->v, l->n);
}

/* env items are NAME=VALUE, checked by the profile; the template gets
 * them as records so the name and the value are escaped apart. */
static void
script_set_env(struct tmpl_vars *v, const struct strlist *env)
{
	struct tmpl_vars	*rec;
	const char		*eq;
	char			*name;
	size_t			 i;

	tmpl_set_empty_list(v, "env");
	for (i = 0; i < env->n; i++) {
		eq = strchr(env->v[i], '=');
		name = xstrndup(env->v[i], eq == NULL ? strlen(env->v[i]) :
		    (size_t)(eq - env->v[i]));
		rec = tmpl_add_record(v, "env");
		tmpl_set(rec, "name", name);
		tmpl_set(rec, "value", eq == NULL ? "" : eq + 1);
		free(name);
	}
}

static void
script_set_requests(struct tmpl_vars *v, const struct profile *p)
{
	tmpl_set(v, "job_name", p->job_name);
	tmpl_set(v, "job_output", p->job_output);
	tmpl_set(v, "partition", p->partition);
	tmpl_set(v, "account", p->account);
	tmpl_set(v, "qos", p->qos);
	tmpl_set(v, "constraint", p->constraint);
	tmpl_set(v, "time", p->time);
	script_set_count(v, "gpus_per_node", p->gpus_per_node);
	script_set_count(v, "cpus_per_task", p->cpus_per_task);
	script_set_int(v, "nproc_per_node", profile_nproc(p));
	script_set_list(v, "sbatch_extra", &p->sbatch_extra);
}

/* Long trainings: the warning, the checkpoint signal, the requeues. */
static void
script_set_life(struct tmpl_vars *v, const struct profile *p)
{
	tmpl_set(v, "requeue", p->requeue ? "1" : "");
	script_set_int(v, "signal_lead", p->signal_lead);
	tmpl_set(v, "checkpoint_signal",
	    profile_signal_names[p->checkpoint_signal]);
	script_set_int(v, "max_requeues", p->max_requeues);
	script_set_count(v, "max_restarts", p->max_restarts);
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
		script_set_int(v, "port", p->port);
	snprintf(range, sizeof range, "%d-%d", p->port_min, p->port_max);
	tmpl_set(v, "port_range", range);
	tmpl_set(v, "rdzv", profile_rdzv_names[p->rdzv]);
	tmpl_set(v, "rdzv_c10d", p->rdzv == PROFILE_C10D ? "1" : "");
	script_set_list(v, "launcher", &p->launcher);
	script_set_list(v, "launcher_args", &p->launcher_args);
	script_set_list(v, "setup", &p->setup);
	script_set_env(v, &p->env);
}

/* The command every HPC Pack task runs: ddprank exec with the shared
 * directory exchange, then the launcher. Setup lines come first, each
 * ending in a newline, since they are shell code of any shape. */
static void
script_task_argv(const struct job *job, struct strlist *argv)
{
	const struct profile	*p = job->prof;
	char			*s;

	strlist_add(argv, job->ddprank);
	strlist_add(argv, "exec");
	strlist_add(argv, "--exchange");
	xasprintf(&s, "dir:%s/.ddprank", p->shared_dir);
	strlist_addown(argv, s);
	strlist_add(argv, "--exchange-timeout");
	xasprintf(&s, "%d", p->exchange_timeout);
	strlist_addown(argv, s);
	/* The one reliable count: CCP_NODES may name only the task's own
	 * node. */
	strlist_add(argv, "--nnodes");
	xasprintf(&s, "%d", job->nodes);
	strlist_addown(argv, s);
	if (*p->iface != '\0') {
		strlist_add(argv, "--iface");
		strlist_add(argv, p->iface);
	}
	strlist_add(argv, "--port");
	if (p->port == 0)
		strlist_add(argv, "auto");
	else {
		xasprintf(&s, "%d", p->port);
		strlist_addown(argv, s);
	}
	strlist_add(argv, "--port-range");
	xasprintf(&s, "%d-%d", p->port_min, p->port_max);
	strlist_addown(argv, s);
	strlist_add(argv, "--rdzv");
	strlist_add(argv, profile_rdzv_names[p->rdzv]);
	strlist_add(argv, "--");
	strlist_copy(argv, &p->launcher);
	xasprintf(&s, "--nproc_per_node=%d", profile_nproc(p));
	strlist_addown(argv, s);
	if (p->max_restarts > 0) {
		xasprintf(&s, "--max-restarts=%d", p->max_restarts);
		strlist_addown(argv, s);
	}
	strlist_copy(argv, &p->launcher_args);
	strlist_add(argv, job->script);
}

/* The task's shell code: the setup lines, then the command. The HPC Pack
 * agent reruns a task that exits 253 without telling anyone, so that
 * status becomes 1. */
static char *
script_task_command(const struct job *job)
{
	struct strlist	 argv;
	struct buf	 b;
	size_t		 i;

	buf_init(&b);
	for (i = 0; i < job->prof->setup.n; i++)
		buf_addf(&b, "%s\n", job->prof->setup.v[i]);
	strlist_init(&argv);
	script_task_argv(job, &argv);
	for (i = 0; i < job->nargs; i++)
		strlist_add(&argv, job->args[i]);
	for (i = 0; i < argv.n; i++) {
		if (i > 0)
			buf_addc(&b, ' ');
		quote_sh(&b, argv.v[i]);
	}
	strlist_free(&argv);
	buf_adds(&b, "; rc=$?; if [ \"$rc\" -eq 253 ]; then rc=1; fi; "
	    "exit \"$rc\"");
	return buf_take(&b);
}

static void
script_set_tasks(struct tmpl_vars *v, const struct job *job)
{
	struct tmpl_vars	*rec;
	char			*s;
	int			 i;

	/* One record per node costs memory in proportion to the nodes, so
	 * only the HPC Pack templates, which need them, get them. */
	tmpl_set_empty_list(v, "tasks");
	if (job->prof->scheduler != PROFILE_HPCPACK)
		return;
	for (i = 1; i <= job->nodes; i++) {
		rec = tmpl_add_record(v, "tasks");
		script_set_int(rec, "task_id", i);
		xasprintf(&s, "%s.%d.out", job->prof->job_name, i);
		tmpl_set(rec, "stdout", s);
		free(s);
		xasprintf(&s, "%s.%d.err", job->prof->job_name, i);
		tmpl_set(rec, "stderr", s);
		free(s);
	}
}

static void
script_set_hpcpack(struct tmpl_vars *v, const struct job *job)
{
	static const char *const flags[] = {
		[PROFILE_SHELL_LOGIN] = "-lc",
		[PROFILE_SHELL_INTERACTIVE] = "-ic",
		[PROFILE_SHELL_PLAIN] = "-c"
	};
	const struct profile	*p = job->prof;
	long long		 secs = 0;
	char			*s;

	tmpl_set(v, "node_group", p->node_group);
	tmpl_set(v, "shared_dir", p->shared_dir);
	tmpl_set(v, "task_shell", profile_shell_names[p->task_shell]);
	tmpl_set(v, "task_shell_flag", flags[p->task_shell]);
	tmpl_set(v, "path", p->path_env);
	tmpl_set(v, "exclusive", p->exclusive ? "true" : "false");
	tmpl_set(v, "fail_on_task_failure",
	    p->fail_on_task_failure ? "true" : "false");
	script_set_int(v, "exchange_timeout", p->exchange_timeout);
	if (*p->time != '\0')
		profile_parse_time(p->time, &secs);
	/* At most INT_MAX: profile_validate says so. */
	script_set_count(v, "runtime_seconds", secs > 0 ? (int)secs : 0);
	s = script_task_command(job);
	tmpl_set(v, "task_command", s);
	free(s);
	script_set_tasks(v, job);
}

struct tmpl_vars *
script_vars(const struct job *job)
{
	struct tmpl_vars	*v;

	v = tmpl_vars_new();
	tmpl_set(v, "version", DDPGEN_VERSION);
	tmpl_set(v, "site", job->site);
	tmpl_set(v, "description", job->prof->description);
	tmpl_set_list(v, "command", job->argv, job->argc);
	script_set_int(v, "nodes", job->nodes);
	tmpl_set(v, "ddprank", job->ddprank);
	tmpl_set(v, "script", job->script);
	tmpl_set_list(v, "args", job->args, job->nargs);
	script_set_requests(v, job->prof);
	script_set_runtime(v, job->prof);
	script_set_life(v, job->prof);
	script_set_hpcpack(v, job);
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

int
script_render(const struct job *job, const char *path, struct buf *out,
    char **cause)
{
	struct tmpl		*t;
	struct tmpl_vars	*v;
	int			 rc;

	if ((t = tmpl_load(path, cause)) == NULL)
		return -1;
	v = script_vars(job);
	rc = tmpl_render(t, v, out, cause);
	tmpl_vars_free(v);
	tmpl_free(t);
	return rc;
}
