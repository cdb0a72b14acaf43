/* gen-hpcpack.c: ddpgen's HPC Pack back-end: job files for the head node
 * (templates/hpcpack.xml, .cmd, .ps1), a task per node running the same
 * command line, and HPC Pack's limits on them. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "nodecmd.h"
#include "profile.h"
#include "quote.h"
#include "runtime.h"
#include "script.h"
#include "tmpl.h"
#include "util.h"
#include "xmalloc.h"

/* HPC Pack's limits (Microsoft's API pages, HPC Pack 2008 R2 and
 * later): a task's CommandLine, and all of a task's environment
 * variables together, which ddpgen also holds the job's variables to,
 * since no job-level limit is documented. cmd.exe reads lines of at most
 * 8191 characters; HPCPACK_CMD_EXPAND is kept free on every line for
 * what %DDPGEN_OUT% (a file under %TEMP%) expands to, MAX_PATH. */
#define HPCPACK_MAX_COMMAND_LINE	480
#define HPCPACK_MAX_ENV			2048
#define HPCPACK_MAX_CMD_LINE		8191
#define HPCPACK_CMD_EXPAND		260

static const struct gen_format hpcpack_formats[] = {
	{ "xml", TMPL_XML }, { "cmd", TMPL_CMD }, { "ps", TMPL_PS }
};

/* The profile's keys the job file or its tasks write. */
static const char *const hpcpack_keys[] = { "node_group", "shared_dir",
    "task_shell", "path", "fail_on_task_failure", "exchange_timeout",
    NULL };

/*
 * HPC Pack sets its job variables as given, before the task shell reads
 * its startup files. A value that the job-time rule expands ($NAME,
 * ${NAME}, \$) is exported by DDPGEN_TASK instead, after the setup
 * lines as in a Slurm script, so "PATH=/opt/x:$PATH" extends the PATH
 * the startup files made (script.c leaves it out of env, GEN_ENV_IN_TASK).
 */
static int
hpcpack_in_task(const char *item)
{
	const char	*eq = strchr(item, '=');

	return quote_has_vars(eq == NULL ? "" : eq + 1);
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
hpcpack_task_export(struct buf *b, const char *name, size_t namelen,
    const char *value)
{
	buf_addf(b, "export %.*s=", (int)namelen, name);
	quote_sh_vars_line(b, value);
	buf_adds(b, " && ");
}

/* The exports of hpcpack_in_task's values, path's first. */
static void
hpcpack_task_exports(struct buf *b, const struct profile *p)
{
	size_t	i, n;

	if (quote_has_vars(p->path_env))
		hpcpack_task_export(b, "PATH", 4, p->path_env);
	for (i = 0; i < p->env.n; i++) {
		if (!hpcpack_in_task(p->env.v[i]))
			continue;
		n = strcspn(p->env.v[i], "=");
		hpcpack_task_export(b, p->env.v[i], n, p->env.v[i] + n + 1);
	}
}

static char *
hpcpack_task_command(const struct job *job)
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
	hpcpack_task_exports(&b, job->prof);
	if (job->prof->preflight) {
		nodecmd_doctor(&cmd, job);
		nodecmd_sh(&b, &cmd, &gen_hpcpack);
		nodecmd_free(&cmd);
		buf_adds(&b, " && ");
	}
	nodecmd_build(&cmd, job);
	nodecmd_sh(&b, &cmd, &gen_hpcpack);
	nodecmd_free(&cmd);
	buf_adds(&b, " || (exit \"$(($? == 253 ? 1 : $?))\")");
	return buf_take(&b);
}

/* The bash option of each task_shell. */
static const char *const hpcpack_shell_flags[] = {
	[PROFILE_SHELL_LOGIN] = "-lc",
	[PROFILE_SHELL_INTERACTIVE] = "-ic",
	[PROFILE_SHELL_PLAIN] = "-c",
	[PROFILE_SHELL_LOGIN_INTERACTIVE] = "-lic"
};

/* What an interactive bash without a terminal says first on stderr, as
 * grep's basic regular expressions (the number is a process group). */
#define HPCPACK_NOISE1	"bash: cannot set terminal process group " \
			"([-0-9]*): Inappropriate ioctl for device"
#define HPCPACK_NOISE2	"bash: no job control in this shell"

/*
 * The task's CommandLine, which the agent runs with its own bash: the
 * task shell evaluating DDPGEN_TASK. An interactive shell without a
 * terminal prints two lines about job control before it reads its
 * startup files; its stderr goes through a grep that drops exactly
 * those, and the real stderr comes back (from fd 3) before the task's
 * own code runs, so the startup files' messages are kept.
 */
static char *
hpcpack_task_command_line(const struct profile *p)
{
	char	*s;

	if (p->task_shell == PROFILE_SHELL_LOGIN ||
	    p->task_shell == PROFILE_SHELL_PLAIN)
		xasprintf(&s, "bash %s 'eval \"$DDPGEN_TASK\"'",
		    hpcpack_shell_flags[p->task_shell]);
	else
		xasprintf(&s, "bash %s 'exec 2>&3 3>&- && eval "
		    "\"$DDPGEN_TASK\"' 3>&2 2> >(grep -vx -e '%s' -e '%s' >&2)",
		    hpcpack_shell_flags[p->task_shell], HPCPACK_NOISE1,
		    HPCPACK_NOISE2);
	return s;
}

/* The command that regenerates the job, for DDPGEN_COMMAND: shell words
 * on one line without ';'. */
static char *
hpcpack_command_line(const struct job *job)
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

/* The time limit: in seconds for the XML's RuntimeSeconds, and as
 * "D:HH:MM" for job new's /runtime and New-HpcJob's -RunTime: days,
 * hours and minutes, the seconds rounded up to a minute. */
static void
hpcpack_time(struct tmpl_vars *v, const struct profile *p)
{
	long long	secs = 0, m;
	char		s[64];

	if (*p->time != '\0')
		profile_parse_time(p->time, &secs);
	/* At most INT_MAX: hpcpack_check says so. */
	tmpl_set_count(v, "time", secs > 0 ? secs : 0);
	m = (secs + 59) / 60;
	if (secs <= 0)
		s[0] = '\0';
	else
		snprintf(s, sizeof s, "%02lld:%02lld:%02lld", m / 1440,
		    m / 60 % 24, m % 60);
	tmpl_set(v, "runtime", s);
}

/* One task per node, each with its own output files. */
static void
hpcpack_tasks(struct tmpl_vars *v, const struct job *job)
{
	static const char *const fields[] = { "task_id", "stdout", "stderr",
					       NULL };
	struct tmpl_vars	*rec;
	char			*s;
	int			 i;

	tmpl_set_fields(v, "tasks", fields);
	for (i = 1; i <= job->nodes; i++) {
		rec = tmpl_add_record(v, "tasks");
		tmpl_set_int(rec, "task_id", i);
		xasprintf(&s, "%s.%d.out", job->prof->job_name, i);
		tmpl_set(rec, "stdout", s);
		free(s);
		xasprintf(&s, "%s.%d.err", job->prof->job_name, i);
		tmpl_set(rec, "stderr", s);
		free(s);
	}
}

/* HPC Pack holds one node exclusively too (IsExclusive); each task's
 * output goes to its own files (tasks), so output is empty. */
static void
hpcpack_vars(struct tmpl_vars *v, const struct job *job)
{
	const struct profile	*p = job->prof;
	char			*s;

	hpcpack_time(v, p);
	tmpl_set(v, "output", "");
	tmpl_set(v, "exclusive", p->exclusive ? "true" : "false");
	tmpl_set(v, "node_group", p->node_group);
	tmpl_set(v, "shared_dir", p->shared_dir);
	tmpl_set(v, "task_shell", profile_shell_names[p->task_shell]);
	tmpl_set(v, "task_shell_flag", hpcpack_shell_flags[p->task_shell]);
	tmpl_set(v, "path", quote_has_vars(p->path_env) ? "" : p->path_env);
	tmpl_set(v, "fail_on_task_failure",
	    p->fail_on_task_failure ? "true" : "false");
	tmpl_set_int(v, "exchange_timeout", p->exchange_timeout);
	s = hpcpack_task_command(job);
	tmpl_set(v, "task_command", s);
	free(s);
	s = hpcpack_task_command_line(p);
	tmpl_set(v, "task_command_line", s);
	free(s);
	s = hpcpack_command_line(job);
	tmpl_set(v, "command_line", s);
	free(s);
	hpcpack_tasks(v, job);
}

/* The nodes exchange addresses in shared_dir; the node agent's PATH is
 * minimal; RuntimeSeconds, cmd's set /a and PowerShell's [int] are
 * 32-bit. */
static void
hpcpack_check(const struct profile *p, gen_problem_fn *fn, void *arg)
{
	long long	 secs;
	struct buf	 b;
	char		*msg;

	if (p->shared_dir[0] != '/') {
		buf_init(&b);
		util_addvis(&b, p->shared_dir, strlen(p->shared_dir));
		xasprintf(&msg, "shared_dir: '%s' is not an absolute path "
		    "(hpcpack nodes exchange addresses there)", b.s);
		fn(arg, "shared_dir", msg);
		free(msg);
		buf_free(&b);
	}
	if (p->task_shell == PROFILE_SHELL_PLAIN && p->path_env[0] == '\0')
		fn(arg, "task_shell", "task_shell: 'plain' needs path (the "
		    "node agent's PATH is minimal)");
	if (profile_parse_time(p->time, &secs) == 0 && secs > INT_MAX) {
		xasprintf(&msg, "time: '%s' is %lld seconds; HPC Pack takes "
		    "at most %d", p->time, secs, INT_MAX);
		fn(arg, "time", msg);
		free(msg);
	}
}

/* Length in UTF-16 code units, as Windows counts characters: one per
 * UTF-8 sequence, two for those of 4 bytes (beyond U+FFFF). */
static size_t
hpcpack_u16len(const char *s)
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
hpcpack_is_cmd(const char *path)
{
	enum tmpl_ctx	ctx;

	return tmpl_ctx_of(path, &ctx) == 0 && ctx == TMPL_CMD;
}

/* job new's /jobenv reads ';' as the start of another variable, and no
 * escape for it is documented: a .cmd job refuses such a value. */
static int
hpcpack_check_jobenv(const struct profile *p, char **cause)
{
	size_t	i;

	if (strchr(p->path_env, ';') != NULL && !quote_has_vars(p->path_env))
		return util_fail(cause, "path: ';' cannot be written in a "
		    "cmd.exe job: job new's /jobenv would start another "
		    "variable there (use --format xml or ps)");
	for (i = 0; i < p->env.n; i++) {
		if (strchr(p->env.v[i], ';') == NULL ||
		    hpcpack_in_task(p->env.v[i]))
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
hpcpack_env_len(const struct job *job, size_t *task, size_t *command)
{
	const struct profile	*p = job->prof;
	char			*s;
	size_t			 n, i;

	s = hpcpack_task_command(job);
	*task = strlen("DDPGEN_TASK=") + hpcpack_u16len(s);
	free(s);
	s = hpcpack_command_line(job);
	*command = strlen("DDPGEN_COMMAND=") + hpcpack_u16len(s);
	free(s);
	n = *task + *command;
	if (*p->path_env != '\0' && !quote_has_vars(p->path_env))
		n += strlen("PATH=") + hpcpack_u16len(p->path_env);
	for (i = 0; i < p->env.n; i++)
		if (!hpcpack_in_task(p->env.v[i]))
			n += hpcpack_u16len(p->env.v[i]);
	return n;
}

/* HPC Pack's limits, and for a template ending in .cmd, no ';' in an
 * env value. */
static int
hpcpack_check_job(const struct job *job, const char *tpath, char **cause)
{
	const struct profile	*p = job->prof;
	size_t			 n, task, command;
	char			*s;

	s = hpcpack_task_command_line(p);
	n = hpcpack_u16len(s);
	free(s);
	if (n > HPCPACK_MAX_COMMAND_LINE)
		return util_fail(cause, "task_shell: the task's command line "
		    "has %zu characters; HPC Pack takes at most %d", n,
		    HPCPACK_MAX_COMMAND_LINE);
	n = hpcpack_env_len(job, &task, &command);
	if (n > HPCPACK_MAX_ENV)
		return util_fail(cause, "job variables: %zu characters "
		    "(DDPGEN_TASK, the task's command, %zu; DDPGEN_COMMAND "
		    "%zu; path and env %zu); HPC Pack takes at most %d: "
		    "shorten the arguments, setup lines or env values", n,
		    task, command, n - task - command, HPCPACK_MAX_ENV);
	if (hpcpack_is_cmd(tpath))
		return hpcpack_check_jobenv(p, cause);
	return 0;
}

/* A rendered .cmd job's lines against cmd.exe's line limit. */
static int
hpcpack_check_output(const char *tpath, const struct buf *out, char **cause)
{
	const char	*line, *end;
	char		*copy;
	size_t		 n, lineno = 1;

	if (!hpcpack_is_cmd(tpath))
		return 0;
	for (line = out->s; *line != '\0'; line = end + 1, lineno++) {
		if ((end = strchr(line, '\n')) == NULL)
			end = line + strlen(line);
		/* The CR of a CRLF ends the line, as the LF does. */
		copy = xstrndup(line, (size_t)(end - line -
		    (end > line && end[-1] == '\r')));
		n = hpcpack_u16len(copy);
		free(copy);
		if (n + HPCPACK_CMD_EXPAND > HPCPACK_MAX_CMD_LINE)
			return util_fail(cause, "cmd.exe: line %zu of the "
			    "batch file has %zu characters; cmd.exe reads at "
			    "most %d, less %d kept for the file name "
			    "%%DDPGEN_OUT%% expands to (use --format xml or ps)",
			    lineno, n, HPCPACK_MAX_CMD_LINE, HPCPACK_CMD_EXPAND);
		if (*end == '\0')
			break;
	}
	return 0;
}

/* Job variables, set before the task shell's startup files run; the
 * node command on one line; exclusive holds one node too. */
const struct gen gen_hpcpack = {
	.sched = SCHED_HPCPACK,
	.submit = "job submit",
	.tmpl = "hpcpack.xml",
	.formats = hpcpack_formats,
	.nformats = sizeof hpcpack_formats / sizeof hpcpack_formats[0],
	.flags = GEN_ENV_IN_TASK | GEN_ONE_LINE | GEN_HOLD_ONE,
	.keys = hpcpack_keys,
	.images = 1 << RT_IMAGE_NONE | 1 << RT_IMAGE_WORD,
	.vars = hpcpack_vars,
	.check = hpcpack_check,
	.check_job = hpcpack_check_job,
	.check_output = hpcpack_check_output,
};
