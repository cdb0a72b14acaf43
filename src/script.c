/* script.c: the template variables of a job, and rendering its script. */
#include "config.h"

#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/*
 * HPC Pack sets its job variables as given, before the task shell reads
 * its startup files. A value that the job-time rule expands ($NAME,
 * ${NAME}, \$) is exported by DDPGEN_TASK instead, after the setup
 * lines as in a Slurm script, so "PATH=/opt/x:$PATH" extends the PATH
 * the startup files made.
 */
static int
script_job_time(const struct profile *p, const char *item)
{
	const char	*eq = strchr(item, '=');

	return sched_get(p->scheduler)->env_refs_in_task &&
	    quote_has_vars(eq == NULL ? "" : eq + 1);
}

/* env items are NAME=VALUE, checked by the profile; the template gets
 * them as records so the name and the value are escaped apart. An HPC
 * Pack job leaves out those DDPGEN_TASK exports (script_job_time). */
static void
script_set_envlist(struct tmpl_vars *v, const char *var,
    const struct profile *p, const struct strlist *env)
{
	static const char *const fields[] = { "name", "value", NULL };
	struct tmpl_vars	*rec;
	const char		*eq;
	char			*name;
	size_t			 i;

	tmpl_set_fields(v, var, fields);
	for (i = 0; i < env->n; i++) {
		if (script_job_time(p, env->v[i]))
			continue;
		eq = strchr(env->v[i], '=');
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
 * template (Slurm, PBS, LSF, Flux), which places it as shell_env: the
 * setup lines run without -u, then env exported, then env_default
 * exported where the job lacks the variable (from the submitting
 * environment, or a module a setup line loads). $NAME and ${NAME} in
 * values expand when the job runs (quote_sh_vars); names are the
 * profile's checked identifiers. Each part opens with a blank line; the
 * whole has no final newline, which the template's line gives. */
static void
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

/* Slurm's output pattern in Flux's terms (flux-submit(1), MUSTACHE
 * TEMPLATES): %j the job id, %x its name, %% a %; any other % stays. */
static void
script_set_flux_output(struct tmpl_vars *v, const struct profile *p)
{
	struct buf	 b;
	const char	*s;

	buf_init(&b);
	for (s = p->job_output; *s != '\0'; s++) {
		if (s[0] == '%' && s[1] == 'j')
			buf_adds(&b, "{{id}}");
		else if (s[0] == '%' && s[1] == 'x')
			buf_adds(&b, "{{name}}");
		else if (s[0] == '%' && s[1] == '%')
			buf_addc(&b, '%');
		else {
			buf_addc(&b, *s);
			continue;
		}
		s++;
	}
	tmpl_set(v, "job_output_flux", b.s);
	buf_free(&b);
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
	script_set_count(v, "cpus_per_task", cpus);
	tmpl_set(v, "launcher_name", l->name);
	tmpl_set(v, "per_process", l->per_process ? "1" : "");
	script_set_int(v, "tasks_per_node", l->per_process ? nproc : 1);
	script_set_int(v, "procs_per_task", l->per_process ? 1 : nproc);
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
	script_set_launcher(v, p);
	script_set_int(v, "nproc_per_node", profile_nproc(p));
	script_set_list(v, "sbatch_extra", &p->sbatch_extra);
	script_set_flux_output(v, p);
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

/* LSF: the run limit as bsub -W's [hour:]minute and the warning's
 * lead as -wt's minutes, both rounded up; how tasks start (lsf_launcher:
 * -nnodes and jsrun, or -n with span[ptile=1] and blaunch). */
static void
script_set_lsf(struct tmpl_vars *v, const struct profile *p)
{
	long long	secs, min;
	char		w[64];

	w[0] = '\0';
	if (profile_parse_time(p->time, &secs) == 0 && secs > 0) {
		min = (secs + 59) / 60;
		snprintf(w, sizeof w, "%lld:%02lld", min / 60, min % 60);
	}
	tmpl_set(v, "lsf_walltime", w);
	script_set_int(v, "lsf_warn_time", (p->signal_lead + 59) / 60);
	tmpl_set(v, "lsf_jsrun", p->lsf_launcher == PROFILE_LSF_JSRUN ?
	    "1" : "");
	/* bsub -o names the job id %J; the default is Slurm's pattern. */
	tmpl_set(v, "lsf_output", strcmp(p->job_output, "ddp-%j.out") == 0 ?
	    "ddp-%J.out" : p->job_output);
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
		script_set_int(v, "port", p->port);
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

/* The task's shell code, the value of the job variable DDPGEN_TASK: the
 * setup lines (through eval, so that they keep their newlines), the
 * preflight (profile key preflight), then the command. One line without
 * ';' (quote_sh_line), since job new's /jobenv takes ';' between
 * variables. "|| :" keeps a failed setup line
 * from stopping the task, as it would not in a script. The HPC Pack
 * agent reruns a task that exits 253 without telling anyone, so that
 * status becomes 1: the last command's status is the shell's, and exit
 * runs in a subshell, since an interactive login shell's own exit prints
 * "logout". */
static void
script_task_export(struct buf *b, const char *name, size_t namelen,
    const char *value)
{
	buf_addf(b, "export %.*s=", (int)namelen, name);
	quote_sh_vars_line(b, value);
	buf_adds(b, " && ");
}

/* The exports of script_job_time's values, path's first. */
static void
script_task_exports(struct buf *b, const struct profile *p)
{
	size_t	i, n;

	if (quote_has_vars(p->path_env))
		script_task_export(b, "PATH", 4, p->path_env);
	for (i = 0; i < p->env.n; i++) {
		if (!script_job_time(p, p->env.v[i]))
			continue;
		n = strcspn(p->env.v[i], "=");
		script_task_export(b, p->env.v[i], n, p->env.v[i] + n + 1);
	}
}

static char *
script_task_command(const struct job *job)
{
	const struct strlist	*setup = &job->prof->setup;
	struct nodecmd		 cmd;
	struct buf		 b, code;
	size_t			 i;

	buf_init(&b);
	if (setup->n > 0) {
		buf_init(&code);
		for (i = 0; i < setup->n; i++)
			buf_addf(&code, "%s\n", setup->v[i]);
		buf_adds(&b, "eval ");
		quote_sh_line(&b, code.s);
		buf_adds(&b, " || : && ");
		buf_free(&code);
	}
	script_task_exports(&b, job->prof);
	if (job->prof->preflight) {
		nodecmd_doctor(&cmd, job);
		nodecmd_sh(&b, &cmd, job);
		nodecmd_free(&cmd);
		buf_adds(&b, " && ");
	}
	nodecmd_build(&cmd, job);
	nodecmd_sh(&b, &cmd, job);
	nodecmd_free(&cmd);
	buf_adds(&b, " || (exit \"$(($? == 253 ? 1 : $?))\")");
	return buf_take(&b);
}

/* The bash option of each task_shell. */
static const char *const script_shell_flags[] = {
	[PROFILE_SHELL_LOGIN] = "-lc",
	[PROFILE_SHELL_INTERACTIVE] = "-ic",
	[PROFILE_SHELL_PLAIN] = "-c",
	[PROFILE_SHELL_LOGIN_INTERACTIVE] = "-lic"
};

/* What an interactive bash without a terminal says first on stderr, as
 * grep's basic regular expressions (the number is a process group). */
#define SCRIPT_NOISE1	"bash: cannot set terminal process group ([-0-9]*): " \
			"Inappropriate ioctl for device"
#define SCRIPT_NOISE2	"bash: no job control in this shell"

/*
 * The task's CommandLine, which the agent runs with its own bash: the
 * task shell evaluating DDPGEN_TASK. An interactive shell without a
 * terminal prints two lines about job control before it reads its
 * startup files; its stderr goes through a grep that drops exactly
 * those, and the real stderr comes back (from fd 3) before the task's
 * own code runs, so the startup files' messages are kept.
 */
static char *
script_task_command_line(const struct profile *p)
{
	char	*s;

	if (p->task_shell == PROFILE_SHELL_LOGIN ||
	    p->task_shell == PROFILE_SHELL_PLAIN)
		xasprintf(&s, "bash %s 'eval \"$DDPGEN_TASK\"'",
		    script_shell_flags[p->task_shell]);
	else
		xasprintf(&s, "bash %s 'exec 2>&3 3>&- && eval "
		    "\"$DDPGEN_TASK\"' 3>&2 2> >(grep -vx -e '%s' -e '%s' >&2)",
		    script_shell_flags[p->task_shell], SCRIPT_NOISE1,
		    SCRIPT_NOISE2);
	return s;
}

/* The command that regenerates the job, for DDPGEN_COMMAND: shell words
 * on one line without ';'. */
static char *
script_command_line(const struct job *job)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < job->argc; i++) {
		if (i > 0)
			buf_addc(&b, ' ');
		quote_sh_line(&b, job->argv[i]);
	}
	return buf_take(&b);
}

/* "D:HH:MM" for job new's /runtime and New-HpcJob's -RunTime: days,
 * hours and minutes, the seconds rounded up to a minute. */
static void
script_set_runtime_dhm(struct tmpl_vars *v, long long secs)
{
	long long	m = (secs + 59) / 60;
	char		s[64];

	if (secs <= 0)
		s[0] = '\0';
	else
		snprintf(s, sizeof s, "%02lld:%02lld:%02lld", m / 1440,
		    m / 60 % 24, m % 60);
	tmpl_set(v, "runtime", s);
}

static void
script_set_tasks(struct tmpl_vars *v, const struct job *job)
{
	static const char *const fields[] = { "task_id", "stdout", "stderr",
					       NULL };
	struct tmpl_vars	*rec;
	char			*s;
	int			 i;

	/* One record per node costs memory in proportion to the nodes, so
	 * only the HPC Pack templates, which need them, get them. */
	tmpl_set_fields(v, "tasks", fields);
	if (job->prof->scheduler != SCHED_HPCPACK)
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
	const struct profile	*p = job->prof;
	long long		 secs = 0;
	char			*s;

	tmpl_set(v, "node_group", p->node_group);
	tmpl_set(v, "shared_dir", p->shared_dir);
	tmpl_set(v, "task_shell", profile_shell_names[p->task_shell]);
	tmpl_set(v, "task_shell_flag", script_shell_flags[p->task_shell]);
	tmpl_set(v, "path", quote_has_vars(p->path_env) ? "" : p->path_env);
	tmpl_set(v, "exclusive", p->exclusive ? "true" : "false");
	tmpl_set(v, "fail_on_task_failure",
	    p->fail_on_task_failure ? "true" : "false");
	script_set_int(v, "exchange_timeout", p->exchange_timeout);
	if (*p->time != '\0')
		profile_parse_time(p->time, &secs);
	/* At most INT_MAX: profile_validate says so. */
	script_set_count(v, "runtime_seconds", secs > 0 ? (int)secs : 0);
	script_set_runtime_dhm(v, secs);
	s = script_task_command(job);
	tmpl_set(v, "task_command", s);
	free(s);
	s = script_task_command_line(p);
	tmpl_set(v, "task_command_line", s);
	free(s);
	s = script_command_line(job);
	tmpl_set(v, "command_line", s);
	free(s);
	script_set_tasks(v, job);
}

/* Length in UTF-16 code units, as Windows counts characters: one per
 * UTF-8 sequence, two for those of 4 bytes (beyond U+FFFF). */
static size_t
script_u16len(const char *s)
{
	const unsigned char	*p;
	size_t			 n = 0;

	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if ((*p & 0xc0) != 0x80)
			n++;
		if (*p >= 0xf0)
			n++;
	}
	return n;
}

/* The template writes a cmd.exe batch file (tmpl_ctx_of). */
static int
script_is_cmd(const char *path)
{
	enum tmpl_ctx	ctx;

	return tmpl_ctx_of(path, &ctx) == 0 && ctx == TMPL_CMD;
}

/* job new's /jobenv reads ';' as the start of another variable, and no
 * escape for it is documented: a .cmd job refuses such a value. */
static int
script_check_jobenv(const struct profile *p, char **cause)
{
	size_t	i;

	if (strchr(p->path_env, ';') != NULL && !quote_has_vars(p->path_env))
		return util_fail(cause, "path: ';' cannot be written in a "
		    "cmd.exe job: job new's /jobenv would start another "
		    "variable there (use --format xml or ps)");
	for (i = 0; i < p->env.n; i++) {
		if (strchr(p->env.v[i], ';') == NULL ||
		    script_job_time(p, p->env.v[i]))
			continue;
		return util_fail(cause, "env: %.*s: ';' cannot be written in "
		    "a cmd.exe job: job new's /jobenv would start another "
		    "variable there (use --format xml or ps)",
		    (int)strcspn(p->env.v[i], "="), p->env.v[i]);
	}
	return 0;
}

/* All the job's variables as name=value, the way the limit is counted. */
static size_t
script_env_len(const struct job *job, size_t *task, size_t *command)
{
	const struct profile	*p = job->prof;
	char			*s;
	size_t			 n, i;

	s = script_task_command(job);
	*task = strlen("DDPGEN_TASK=") + script_u16len(s);
	free(s);
	s = script_command_line(job);
	*command = strlen("DDPGEN_COMMAND=") + script_u16len(s);
	free(s);
	n = *task + *command;
	if (*p->path_env != '\0' && !quote_has_vars(p->path_env))
		n += strlen("PATH=") + script_u16len(p->path_env);
	for (i = 0; i < p->env.n; i++)
		if (!script_job_time(p, p->env.v[i]))
			n += script_u16len(p->env.v[i]);
	return n;
}

int
script_check_hpcpack(const struct job *job, const char *tpath, char **cause)
{
	const struct profile	*p = job->prof;
	size_t			 n, task, command;
	char			*s;

	if (p->scheduler != SCHED_HPCPACK)
		return 0;
	s = script_task_command_line(p);
	n = script_u16len(s);
	free(s);
	if (n > SCRIPT_MAX_COMMAND_LINE)
		return util_fail(cause, "task_shell: the task's command line "
		    "has %zu characters; HPC Pack takes at most %d", n,
		    SCRIPT_MAX_COMMAND_LINE);
	n = script_env_len(job, &task, &command);
	if (n > SCRIPT_MAX_ENV)
		return util_fail(cause, "job variables: %zu characters "
		    "(DDPGEN_TASK, the task's command, %zu; DDPGEN_COMMAND "
		    "%zu; path and env %zu); HPC Pack takes at most %d: "
		    "shorten the arguments, setup lines or env values", n,
		    task, command, n - task - command, SCRIPT_MAX_ENV);
	if (script_is_cmd(tpath))
		return script_check_jobenv(p, cause);
	return 0;
}

int
script_check_output(const char *tpath, const struct buf *out, char **cause)
{
	const char	*line, *end;
	char		*copy;
	size_t		 n, lineno = 1;

	if (!script_is_cmd(tpath))
		return 0;
	for (line = out->s; *line != '\0'; line = end + 1, lineno++) {
		if ((end = strchr(line, '\n')) == NULL)
			end = line + strlen(line);
		/* The CR of a CRLF ends the line, as the LF does. */
		copy = xstrndup(line, (size_t)(end - line -
		    (end > line && end[-1] == '\r')));
		n = script_u16len(copy);
		free(copy);
		if (n + SCRIPT_CMD_EXPAND > SCRIPT_MAX_CMD_LINE)
			return util_fail(cause, "cmd.exe: line %zu of the "
			    "batch file has %zu characters; cmd.exe reads at "
			    "most %d, less %d kept for the file name "
			    "%%DDPGEN_OUT%% expands to (use --format xml or ps)",
			    lineno, n, SCRIPT_MAX_CMD_LINE, SCRIPT_CMD_EXPAND);
		if (*end == '\0')
			break;
	}
	return 0;
}

/* The commands each node runs, as shell code (nodecmd.h): the
 * preflight and the training. */
static void
script_set_node_commands(struct tmpl_vars *v, const struct job *job)
{
	struct nodecmd	cmd;
	struct buf	b;

	buf_init(&b);
	nodecmd_build(&cmd, job);
	nodecmd_sh(&b, &cmd, job);
	nodecmd_free(&cmd);
	tmpl_set(v, "node_command", b.s);
	buf_free(&b);
	buf_init(&b);
	nodecmd_doctor(&cmd, job);
	nodecmd_sh(&b, &cmd, job);
	nodecmd_free(&cmd);
	tmpl_set(v, "preflight_command", b.s);
	buf_free(&b);
}

/* Shifter's #SBATCH options: the image, and the modules (a GPU job's
 * first, then the profile's). */
static void
script_set_sbatch_container(struct tmpl_vars *v, const struct profile *p)
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
	script_set_list(v, "container_sbatch", &l);
	strlist_free(&l);
	strlist_free(&mods);
}

/* The container runtime (runtime.h): what the template places besides
 * the node command, which holds the runtime's own command. */
static void
script_set_container(struct tmpl_vars *v, const struct job *job)
{
	const struct profile	*p = job->prof;
	struct strlist		 l;

	tmpl_set(v, "container", p->container == RT_NONE ? "" :
	    runtime_names[p->container]);
	tmpl_set(v, "image", p->image);
	tmpl_set(v, "container_inside",
	    runtime_get(p->container)->inside ? "1" : "");
	script_set_sbatch_container(v, p);
	nodecmd_srun_container(&l, job);
	script_set_list(v, "container_srun", &l);
	strlist_free(&l);
}

/* PBS Pro: the walltime as H:MM:SS, the output file, the resources. */
static void
script_set_pbs(struct tmpl_vars *v, const struct profile *p)
{
	long long	secs = 0;
	char		s[64];

	if (*p->time != '\0')
		profile_parse_time(p->time, &secs);
	if (secs <= 0)
		s[0] = '\0';
	else
		snprintf(s, sizeof s, "%lld:%02lld:%02lld", secs / 3600,
		    secs / 60 % 60, secs % 60);
	tmpl_set(v, "walltime", s);
	/* qsub -o takes a path and expands nothing: a Slurm pattern
	 * (the default ddp-%j.out) leaves PBS's own NAME.oID. */
	tmpl_set(v, "pbs_output", strchr(p->job_output, '%') != NULL ? "" :
	    p->job_output);
	tmpl_set(v, "filesystems", p->filesystems);
	tmpl_set(v, "pbs_select", p->pbs_select);
	tmpl_set(v, "pbs_launcher", profile_pbs_launch_names[p->pbs_launcher]);
	tmpl_set(v, "pbs_mpiexec", p->pbs_launcher == PROFILE_PBS_MPIEXEC ?
	    "1" : "");
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
	/* Other users' jobs on the nodes could bind the port first, or
	 * reach the unauthenticated store from next door. */
	tmpl_set(v, "sbatch_exclusive", job->prof->exclusive &&
	    job->nodes > 1 ? "1" : "");
	tmpl_set(v, "ddprank", job->ddprank);
	tmpl_set(v, "script", job->script);
	tmpl_set_list(v, "args", job->args, job->nargs);
	script_set_node_commands(v, job);
	script_set_container(v, job);
	if (job->env_pass != NULL)
		script_set_list(v, "env_pass", job->env_pass);
	else
		tmpl_set_empty_list(v, "env_pass");
	script_set_requests(v, job->prof);
	script_set_runtime(v, job->prof);
	script_set_life(v, job->prof);
	script_set_lsf(v, job->prof);
	script_set_hpcpack(v, job);
	script_set_pbs(v, job->prof);
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
