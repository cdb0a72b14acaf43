/* jobcheck.c: ddpgen --check, a generated job checked before it is
 * queued (jobcheck.h). */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gen.h"
#include "job.h"
#include "jobcheck.h"
#include "launcher.h"
#include "profile.h"
#include "quote.h"
#include "runtime.h"
#include "script.h"
#include "util.h"
#include "xmalloc.h"

/* The output of a command kept for messages: its last bytes. */
#define JOBCHECK_OUT_MAX	65536
/* Arguments of the training looked at, at most. */
#define JOBCHECK_ARGS_MAX	64
/* The byte before each line of the probe's own report, and its name. */
#define JOBCHECK_MARK		'\036'
#define JOBCHECK_ARGV0		"ddpgen-check"

static const char *const levels[] = { "PASS", "WARN", "FAIL" };

const char *
jobcheck_level_name(enum jobcheck_level l)
{
	return levels[l];
}

static void __attribute__((format(printf, 4, 5)))
finding(struct jobcheck *c, enum jobcheck_level level, const char *name,
    const char *fmt, ...)
{
	struct jobcheck_finding	*f;
	va_list			 ap;

	c->v = xreallocarray(c->v, c->n + 1, sizeof *c->v);
	f = &c->v[c->n++];
	f->level = level;
	f->name = xstrdup(name);
	va_start(ap, fmt);
	xvasprintf(&f->detail, fmt, ap);
	va_end(ap);
}

int
jobcheck_failed(const struct jobcheck *c)
{
	size_t	i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].level == JOBCHECK_FAIL)
			return 1;
	return 0;
}

void
jobcheck_free(struct jobcheck *c)
{
	size_t	i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free(c->v[i].detail);
	}
	free(c->v);
	memset(c, 0, sizeof *c);
}

/* The line at *s, which moves past it; NULL at the end. Caller frees. */
static char *
next_line(const char **s)
{
	const char	*nl;
	char		*line;

	if (**s == '\0')
		return NULL;
	if ((nl = strchr(*s, '\n')) == NULL)
		nl = *s + strlen(*s);
	line = xstrndup(*s, (size_t)(nl - *s));
	*s = *nl == '\n' ? nl + 1 : nl;
	return line;
}

static int
ends_with(const char *s, const char *end)
{
	size_t	n = strlen(s), m = strlen(end);

	return n >= m && strcmp(s + n - m, end) == 0;
}

int
jobcheck_command(const char *text, struct strlist *argv, char **cause)
{
	const char	*s = text;
	char		*line, *why;
	int		 found = 0, rc;

	while (!found && (line = next_line(&s)) != NULL) {
		found = line[0] == '#' && ends_with(line, "Regenerate with:");
		free(line);
	}
	if (!found)
		return util_fail(cause, "no comment ending in 'Regenerate "
		    "with:': not a shell job of ddpgen's, or its header was "
		    "replaced");
	if ((line = next_line(&s)) == NULL || strncmp(line, "#   ", 4) != 0) {
		free(line);
		return util_fail(cause, "no '#   ddpgen ...' line after "
		    "'Regenerate with:'");
	}
	rc = quote_sh_unquote(line + 4, argv, &why);
	free(line);
	if (rc == -1) {
		util_fail(cause, "the 'Regenerate with' line: %s", why);
		free(why);
		return -1;
	}
	if (argv->n == 0 || strcmp(argv->v[0], "ddpgen") != 0)
		return util_fail(cause, "the 'Regenerate with' line does not "
		    "start with ddpgen");
	return 0;
}

/* The NAME of a line "export NAME='<value>'", or NULL. Caller frees. */
static char *
redacted_name(const char *line)
{
	const char	*eq;

	if (strncmp(line, "export ", 7) != 0 ||
	    (eq = strchr(line + 7, '=')) == NULL ||
	    strcmp(eq + 1, "'" JOBCHECK_REDACTED "'") != 0)
		return NULL;
	return xstrndup(line + 7, (size_t)(eq - line - 7));
}

/* Whether line is "export NAME=...". */
static int
exports(const char *line, const char *name)
{
	size_t	n = strlen(name);

	return strncmp(line, "export ", 7) == 0 &&
	    strncmp(line + 7, name, n) == 0 && line[7 + n] == '=';
}

size_t
jobcheck_compare(const char *text, const char *regen, struct strlist *subst)
{
	const char	*a = text, *b = regen;
	char		*la, *lb, *name;
	size_t		 n = 0, differs = 0;

	for (;;) {
		la = next_line(&a);
		lb = next_line(&b);
		n++;
		if (la == NULL || lb == NULL) {
			if (la != NULL || lb != NULL)
				differs = n;
			free(la);
			free(lb);
			return differs;
		}
		if (strcmp(la, lb) != 0) {
			if ((name = redacted_name(lb)) != NULL &&
			    exports(la, name)) {
				strlist_addown(subst, name);
				strlist_add(subst, la);
			} else {
				free(name);
				differs = n;
			}
		}
		free(la);
		free(lb);
		if (differs != 0)
			return differs;
	}
}

/* What the probe runs first: its report at the shell's end, and the
 * line and status of a command that ends it (set -e, as in the job):
 * the line of the last command that failed (ERR), else of the last one
 * that started (DEBUG: a source of a missing file, a function that
 * fails, set no ERR trap off). Neither is inherited by functions, so a
 * line inside a setup line's function (conda's) names the setup line. */
static const char probe_head[] =
    "exec </dev/null\n"
    "ddpgen_check_words=(\"$@\")\n"
    "ddpgen_check_err=0 ddpgen_check_at=0 ddpgen_check_done=''\n"
    "trap 'ddpgen_check_at=$LINENO' DEBUG\n"
    "trap 'ddpgen_check_err=$LINENO' ERR\n"
    "trap 'ddpgen_check_rc=$?; trap - DEBUG; "
    "[ -n \"$ddpgen_check_done\" ] || printf \"\\036failed %s %s %s\\n\" "
    "\"$ddpgen_check_err\" \"$ddpgen_check_at\" \"$ddpgen_check_rc\"' EXIT\n"
    "set -euo pipefail\n";

static const char probe_tail[] =
    "\nddpgen_check_done=1\n"
    "printf '\\036pwd %s\\n' \"$PWD\"\n"
    "for ddpgen_check_w in \"${ddpgen_check_words[@]}\"; do\n"
    "\tif ddpgen_check_p=$(type -P -- \"$ddpgen_check_w\"); then\n"
    "\t\tprintf '\\036found %s\\n' \"$ddpgen_check_p\"\n"
    "\telse\n"
    "\t\tprintf '\\036missing\\n'\n"
    "\tfi\n"
    "done\n";

char *
jobcheck_program(const char *env, const struct strlist *subst,
    struct strlist *unknown)
{
	struct buf	 b;
	const char	*s = env;
	char		*line, *name;
	size_t		 i;

	buf_init(&b);
	buf_adds(&b, probe_head);
	while ((line = next_line(&s)) != NULL) {
		if ((name = redacted_name(line)) == NULL) {
			buf_addf(&b, "%s\n", line);
			free(line);
			continue;
		}
		for (i = 0; i + 1 < subst->n; i += 2)
			if (strcmp(subst->v[i], name) == 0)
				break;
		if (i + 1 < subst->n) {
			buf_addf(&b, "%s\n", subst->v[i + 1]);
			free(name);
		} else
			strlist_addown(unknown, name);
		free(line);
	}
	buf_adds(&b, probe_tail);
	return buf_take(&b);
}

/* A command's end. */
struct run {
	int		 status;	/* waitpid's */
	int		 timed_out;
	int		 error;		/* errno of fork or pipe, or 0 */
	struct buf	 out;		/* its last output */
};

static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
run_keep(struct run *r, const char *s, size_t n)
{
	size_t	drop;

	buf_addn(&r->out, s, n);
	if (r->out.len > JOBCHECK_OUT_MAX) {
		drop = r->out.len - JOBCHECK_OUT_MAX;
		memmove(r->out.s, r->out.s + drop, r->out.len - drop + 1);
		r->out.len -= drop;
	}
}

static void __attribute__((noreturn))
run_child(char *const *argv, int fd)
{
	int	null;

	(void)setpgid(0, 0);
	if ((null = open("/dev/null", O_RDONLY)) != -1)
		(void)dup2(null, STDIN_FILENO);
	(void)dup2(fd, STDOUT_FILENO);
	(void)dup2(fd, STDERR_FILENO);
	execvp(argv[0], argv);
	_exit(errno == ENOENT ? 127 : 126);
}

/* Runs argv in its own process group, standard input /dev/null, its
 * output (both) into r->out; ended after timeout seconds. */
static void
run_cmd(struct run *r, char *const *argv, int timeout)
{
	struct pollfd	 pfd;
	char		 chunk[4096];
	double		 end = now() + timeout;
	ssize_t		 n;
	pid_t		 pid;
	int		 p[2];

	memset(r, 0, sizeof *r);
	buf_init(&r->out);
	if (pipe(p) == -1 || (pid = fork()) == -1) {
		r->error = errno;
		return;
	}
	if (pid == 0) {
		close(p[0]);
		run_child(argv, p[1]);
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	for (;;) {
		if (now() >= end) {
			r->timed_out = 1;
			(void)kill(-pid, SIGKILL);
			break;
		}
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		if ((n = read(p[0], chunk, sizeof chunk)) <= 0) {
			if (n == -1 && errno == EINTR)
				continue;
			break;
		}
		run_keep(r, chunk, (size_t)n);
	}
	close(p[0]);
	while (waitpid(pid, &r->status, 0) == -1 && errno == EINTR)
		;
	/* What it left running in its group goes with it. */
	(void)kill(-pid, SIGKILL);
}

/* The last line of output that is not the probe's own, or "", without
 * bash's "NAME: line N: " before it (the probe's lines, not the job's). */
static char *
last_line(const struct buf *out)
{
	const char	*s = out->s != NULL ? out->s : "", *p;
	char		*line, *last = xstrdup("");
	size_t		 n;

	while ((line = next_line(&s)) != NULL) {
		if (line[0] != JOBCHECK_MARK && line[strspn(line, " \t")] !=
		    '\0') {
			free(last);
			last = line;
		} else
			free(line);
	}
	p = last;
	if (strncmp(p, JOBCHECK_ARGV0 ": ", sizeof JOBCHECK_ARGV0 + 1) == 0) {
		p += sizeof JOBCHECK_ARGV0 + 1;
		n = strncmp(p, "line ", 5) == 0 ? strspn(p + 5, "0123456789") :
		    0;
		if (n > 0 && strncmp(p + 5 + n, ": ", 2) == 0)
			p += 5 + n + 2;
		memmove(last, p, strlen(p) + 1);
	}
	return last;
}

/* What the probe found. */
struct probe {
	int		 ran;		/* its report came */
	char		*failed_line;	/* the command that ended it */
	int		 failed_rc;
	char		*why;		/* the last line it printed */
	char		*pwd;
	struct strlist	 found;		/* per word: the path, or "" */
};

/* The probe's report lines into pr; prog is the program, whose line
 * a failure names. */
static void
probe_parse(struct probe *pr, const struct run *r, const char *prog)
{
	const char	*s = r->out.s != NULL ? r->out.s : "", *p;
	char		*line;
	long		 at, err, k, head = 0;
	int		 rc;

	/* A line of the head is none of the job's. */
	for (p = probe_head; *p != '\0'; p++)
		head += *p == '\n';

	while ((line = next_line(&s)) != NULL) {
		if (line[0] != JOBCHECK_MARK) {
			free(line);
			continue;
		}
		if (strncmp(line + 1, "pwd ", 4) == 0) {
			free(pr->pwd);
			pr->pwd = xstrdup(line + 5);
			pr->ran = 1;
		} else if (strncmp(line + 1, "found ", 6) == 0)
			strlist_add(&pr->found, line + 7);
		else if (strcmp(line + 1, "missing") == 0)
			strlist_add(&pr->found, "");
		else if (sscanf(line + 1, "failed %ld %ld %d", &err, &at,
		    &rc) == 3) {
			pr->failed_rc = rc;
			if (err > 0)
				at = err;
			if (at <= head)
				at = 0;
			for (p = prog, k = 1; at > 0 && k < at && p != NULL;
			    k++)
				if ((p = strchr(p, '\n')) != NULL)
					p++;
			free(pr->failed_line);
			pr->failed_line = at > 0 && p != NULL ?
			    xstrndup(p, strcspn(p, "\n")) : NULL;
			if (pr->failed_line == NULL)
				pr->failed_line = xstrdup("");
		}
		free(line);
	}
	pr->why = last_line(&r->out);
}

static void
probe_free(struct probe *pr)
{
	free(pr->failed_line);
	free(pr->why);
	free(pr->pwd);
	strlist_free(&pr->found);
}

/* ": WHY" when why is not empty, for the end of a detail. */
static const char *
colon(const char *why)
{
	return *why != '\0' ? ": " : "";
}

/* The setup lines and environment, in a fresh bash, and where they
 * leave each of words. */
static void
check_setup(struct jobcheck *c, struct probe *pr, const struct profile *p,
    const struct strlist *subst, const struct strlist *words)
{
	struct strlist	 argv, unknown;
	struct buf	 env;
	struct run	 r;
	char		*prog;
	size_t		 i;

	buf_init(&env);
	script_shell_env(&env, p);
	strlist_init(&unknown);
	prog = jobcheck_program(env.s != NULL ? env.s : "", subst, &unknown);
	buf_free(&env);
	for (i = 0; i < unknown.n; i++)
		finding(c, JOBCHECK_WARN, "env", "%s: its value (--env, not "
		    "repeated in the 'Regenerate with' line) was not found "
		    "in the script: applied without it", unknown.v[i]);
	strlist_free(&unknown);
	strlist_init(&argv);
	strlist_add(&argv, "bash");
	strlist_add(&argv, "--noprofile");
	strlist_add(&argv, "--norc");
	strlist_add(&argv, "-c");
	strlist_add(&argv, prog);
	strlist_add(&argv, JOBCHECK_ARGV0);
	strlist_copy(&argv, words);
	run_cmd(&r, argv.v, JOBCHECK_TIMEOUT);
	strlist_free(&argv);
	probe_parse(pr, &r, prog);
	if (r.error != 0)
		finding(c, JOBCHECK_FAIL, "setup", "cannot run bash: %s",
		    strerror(r.error));
	else if (r.timed_out)
		finding(c, JOBCHECK_FAIL, "setup", "the setup lines had not "
		    "finished after %d s", JOBCHECK_TIMEOUT);
	else if (pr->failed_line != NULL)
		finding(c, JOBCHECK_FAIL, "setup", "'%s' ends the job with "
		    "status %d%s%s", *pr->failed_line != '\0' ?
		    pr->failed_line : "a command", pr->failed_rc,
		    colon(pr->why), pr->why);
	else if (!pr->ran)
		finding(c, JOBCHECK_FAIL, "setup", "bash ended without a "
		    "report (status %d)%s%s", WIFEXITED(r.status) ?
		    WEXITSTATUS(r.status) : 128 + WTERMSIG(r.status),
		    colon(pr->why), pr->why);
	else
		finding(c, JOBCHECK_PASS, "setup", "%zu setup line%s, %zu env "
		    "and %zu env_default entr%s applied in a fresh bash",
		    p->setup.n, p->setup.n == 1 ? "" : "s", p->env.n,
		    p->env_default.n, p->env_default.n == 1 ? "y" : "ies");
	free(prog);
	buf_free(&r.out);
}

/* Word i of the probe: where it is on the job's PATH. */
static void
check_found(struct jobcheck *c, const struct probe *pr, size_t i,
    const char *name, const char *word, enum jobcheck_level missing,
    const char *more)
{
	if (!pr->ran || i >= pr->found.n)
		return;
	if (*pr->found.v[i] != '\0')
		finding(c, JOBCHECK_PASS, name, "'%s' is %s", word,
		    pr->found.v[i]);
	else
		finding(c, missing, name, "'%s' is not on the PATH the job's "
		    "setup lines leave%s", word, more);
}

/* path, relative to dir when it is not absolute. Caller frees. */
static char *
at_dir(const char *dir, const char *path)
{
	char	*s;

	if (path[0] == '/' || dir == NULL)
		return xstrdup(path);
	xasprintf(&s, "%s/%s", dir, path);
	return s;
}

/* Whether the launcher's options make the script a module or a program
 * (torchrun -m, --no-python). */
static int
script_not_file(const struct profile *p)
{
	static const char *const opts[] = { "-m", "--module", "--no_python",
	    "--no-python", NULL };
	size_t	i, k;

	for (i = 0; i < p->launcher_args.n; i++)
		for (k = 0; opts[k] != NULL; k++)
			if (strcmp(p->launcher_args.v[i], opts[k]) == 0)
				return 1;
	return 0;
}

static void
check_script(struct jobcheck *c, const struct job *job, const char *pwd)
{
	const struct profile	*p = job->prof;
	struct stat		 st;
	char			*path;
	int			 boxed = p->container != RT_NONE;

	if (script_not_file(p)) {
		finding(c, JOBCHECK_WARN, "script", "'%s' names a module or a "
		    "program (launcher_args): not checked", job->script);
		return;
	}
	path = at_dir(pwd, job->script);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, R_OK) == 0)
		finding(c, JOBCHECK_PASS, "script", "'%s' is a file", path);
	else if (stat(path, &st) == 0)
		finding(c, JOBCHECK_FAIL, "script", "'%s' is not a readable "
		    "file", path);
	else
		finding(c, boxed ? JOBCHECK_WARN : JOBCHECK_FAIL, "script",
		    "'%s' does not exist here%s", path, boxed ?
		    " (it may be in the container's image)" : "");
	free(path);
}

/* The value of an argument that may be a path: ARG, or VALUE of
 * --NAME=VALUE; NULL when it names no file and holds no '/'. */
static const char *
path_of(const char *arg)
{
	const char	*eq;

	if (arg[0] == '-' && (eq = strchr(arg, '=')) != NULL)
		arg = eq + 1;
	if (*arg == '\0' || util_has_cntrl(arg))
		return NULL;
	return arg;
}

/* The training's arguments that are paths: a file or directory here
 * passes; a path with a '/' that does not exist warns (an output, or a
 * path of the nodes'). */
static void
check_args(struct jobcheck *c, const struct job *job, const char *pwd)
{
	struct stat	 st;
	const char	*a;
	char		*path;
	size_t		 i;

	for (i = 0; i < job->nargs && i < JOBCHECK_ARGS_MAX; i++) {
		if ((a = path_of(job->args[i])) == NULL)
			continue;
		path = at_dir(pwd, a);
		if (stat(path, &st) == 0)
			finding(c, JOBCHECK_PASS, "argument", "'%s' is a %s", a,
			    S_ISDIR(st.st_mode) ? "directory" : "file");
		else if (strchr(a, '/') != NULL)
			finding(c, JOBCHECK_WARN, "argument", "'%s' does not "
			    "exist here (an output, or a path of the nodes?)",
			    a);
		free(path);
	}
}

/* ddprank at the path the job runs it from. */
static void
check_ddprank(struct jobcheck *c, const struct job *job)
{
	/* A local job's nodes are this machine. */
	enum jobcheck_level	bad = sched_get(job->prof->scheduler)->
	    virtual_nodes ? JOBCHECK_FAIL : JOBCHECK_WARN;

	if (access(job->ddprank, X_OK) == 0)
		finding(c, JOBCHECK_PASS, "ddprank", "'%s' is executable",
		    job->ddprank);
	else
		finding(c, bad, "ddprank", "'%s': %s here (every node runs it "
		    "at this path)", job->ddprank, strerror(errno));
}

/* The image: a path here, else a name only the runtime knows. */
static void
check_image(struct jobcheck *c, const struct profile *p, const char *pwd)
{
	const char	*img = p->image;
	struct stat	 st;
	char		*path;
	int		 is_path;

	if (p->container == RT_NONE)
		return;
	if (strstr(img, "://") != NULL) {
		finding(c, JOBCHECK_WARN, "image", "'%s' comes from a registry "
		    "when the job starts: not checked here", img);
		return;
	}
	is_path = img[0] == '/' || strncmp(img, "./", 2) == 0 ||
	    strncmp(img, "../", 3) == 0;
	path = at_dir(pwd, img);
	if (stat(path, &st) == 0)
		finding(c, JOBCHECK_PASS, "image", "'%s' is a %s", path,
		    S_ISDIR(st.st_mode) ? "directory" : "file");
	else if (is_path)
		finding(c, JOBCHECK_FAIL, "image", "'%s' does not exist", path);
	else
		finding(c, JOBCHECK_WARN, "image", "'%s' is no file here: a "
		    "registry's name, or the runtime's own, not checked", img);
	free(path);
}

/* The words of the first line of out that holds word, after it, up to
 * the end of the line; NULL when none. Caller frees. */
static char *
line_after(const struct buf *out, const char *word)
{
	const char	*s = out->s != NULL ? out->s : "", *at;

	if ((at = strstr(s, word)) == NULL)
		return NULL;
	at += strlen(word);
	return xstrndup(at, strcspn(at, "\n"));
}

/* The scheduler's dry run (the back-end's), which asks it whether it
 * takes the job, and when it would start it; the file's path given. */
static void
check_queue(struct jobcheck *c, const struct job *job, const char *file)
{
	const struct gen	*g = gen_get(job->prof->scheduler);
	const struct profile	*p = job->prof;
	struct strlist		 argv;
	struct run		 r;
	char			*guess, *why;
	size_t			 i;

	if (g->dry_run == NULL) {
		if (*p->partition != '\0' || *p->account != '\0')
			finding(c, JOBCHECK_WARN, "queue", "%s has no dry run: "
			    "partition '%s' and account '%s' not checked",
			    g->submit, p->partition, p->account);
		return;
	}
	strlist_init(&argv);
	for (i = 0; g->dry_run[i] != NULL; i++)
		strlist_add(&argv, g->dry_run[i]);
	strlist_add(&argv, file);
	run_cmd(&r, argv.v, JOBCHECK_TIMEOUT);
	why = last_line(&r.out);
	if (r.error == 0 && !r.timed_out && WIFEXITED(r.status) &&
	    WEXITSTATUS(r.status) == 127 && r.out.len == 0)
		finding(c, JOBCHECK_WARN, "queue", "%s is not on PATH here: "
		    "partition and account not checked", g->dry_run[0]);
	else if (r.error != 0 || r.timed_out)
		finding(c, JOBCHECK_WARN, "queue", "%s %s: %s", g->dry_run[0],
		    g->dry_run[1], r.timed_out ? "no answer" :
		    strerror(r.error));
	else if ((!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) &&
	    r.out.s != NULL && strstr(r.out.s, g->dry_run_refused) != NULL)
		finding(c, JOBCHECK_FAIL, "queue", "%s %s refuses the job%s%s",
		    g->dry_run[0], g->dry_run[1], colon(why), why);
	else if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
		finding(c, JOBCHECK_WARN, "queue", "%s %s could not ask %s%s%s",
		    g->dry_run[0], g->dry_run[1],
		    sched_get(p->scheduler)->title, colon(why), why);
	else if ((guess = line_after(&r.out, g->dry_run_start)) != NULL) {
		finding(c, JOBCHECK_PASS, "queue", "%s %s takes the job; %s's "
		    "guess, not a promise: it would start at%s",
		    g->dry_run[0], g->dry_run[1],
		    sched_get(p->scheduler)->title, guess);
		free(guess);
	} else
		finding(c, JOBCHECK_PASS, "queue", "%s %s takes the job%s%s",
		    g->dry_run[0], g->dry_run[1], colon(why), why);
	free(why);
	strlist_free(&argv);
	buf_free(&r.out);
}

/* The words the probe looks for on PATH, and what each is. */
struct words {
	struct strlist	 w;
	size_t		 launcher, python, runtime;	/* SIZE_MAX: none */
};

static void
probe_words(struct words *ws, const struct profile *p)
{
	const struct runtime	*rt = runtime_get(p->container);
	struct strlist		 prog;

	strlist_init(&ws->w);
	ws->launcher = ws->python = ws->runtime = SIZE_MAX;
	if (rt->argv != NULL) {
		ws->runtime = ws->w.n;
		strlist_add(&ws->w, rt->argv[0]);
	}
	if (p->container == RT_NONE) {
		strlist_init(&prog);
		launcher_program(&prog, &p->launcher);
		ws->launcher = ws->w.n;
		strlist_add(&ws->w, prog.v[0]);
		strlist_free(&prog);
		ws->python = ws->w.n;
		strlist_add(&ws->w, "python3");
	}
}

void
jobcheck_run(struct jobcheck *c, const struct job_resolved *r,
    const char *file, const char *text, const struct buf *regen)
{
	const struct job	*job = &r->job;
	const struct profile	*p = job->prof;
	struct strlist		 subst;
	struct probe		 pr;
	struct words		 ws;
	size_t			 line;

	memset(c, 0, sizeof *c);
	strlist_init(&subst);
	if ((line = jobcheck_compare(text, regen->s, &subst)) == 0)
		finding(c, JOBCHECK_PASS, "job", "the script is what its "
		    "'Regenerate with' line gives now (site %s)", job->site);
	else
		finding(c, JOBCHECK_WARN, "job", "line %zu is not what the "
		    "'Regenerate with' line gives now (the script, the "
		    "profile or a template changed since): what follows "
		    "checks the job it gives now", line);
	memset(&pr, 0, sizeof pr);
	strlist_init(&pr.found);
	probe_words(&ws, p);
	check_setup(c, &pr, p, &subst, &ws.w);
	if (ws.runtime != SIZE_MAX)
		check_found(c, &pr, ws.runtime, "runtime", ws.w.v[ws.runtime],
		    JOBCHECK_FAIL, "");
	if (ws.launcher != SIZE_MAX)
		check_found(c, &pr, ws.launcher, "launcher",
		    ws.w.v[ws.launcher], JOBCHECK_FAIL, "");
	else
		finding(c, JOBCHECK_WARN, "launcher", "runs in the container "
		    "('%s'): not checked here", p->image);
	if (ws.python != SIZE_MAX)
		check_found(c, &pr, ws.python, "python", "python3",
		    JOBCHECK_WARN, " (the launcher may run its own)");
	check_ddprank(c, job);
	check_script(c, job, pr.pwd);
	check_args(c, job, pr.pwd);
	check_image(c, p, pr.pwd);
	check_queue(c, job, file);
	strlist_free(&ws.w);
	probe_free(&pr);
	strlist_free(&subst);
}
