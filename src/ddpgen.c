/* ddpgen.c: parse the command line, load the site profile, print the job. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exitcode.h"
#include "profile.h"
#include "quote.h"
#include "rx.h"
#include "script.h"
#include "util.h"
#include "xmalloc.h"

/* Command-line values that override the profile; NULL / -1 = not given. */
struct opts {
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
	const char	*output;
	struct strlist	 env;		/* NAME=VALUE or NAME, in order */
	size_t		*env_at;	/* the argv index of each */
	struct strlist	 setup;
	const char	*port;
	const char	*rdzv;
	const char	*iface;
	const char	*template;
	const char	*ddprank;
	const char	*format;
	const char	*show_site;
	int		 list_sites;
	int		 preflight;	/* -1: the profile's */
	int		 requeue;	/* -1: the profile's */
	int		 signal_lead;	/* -1: the profile's */
	int		 job_opt;	/* the first option of a job, or 0 */
};

enum {
	OPT_DDPRANK = 256,
	OPT_LIST_SITES,
	OPT_SHOW_SITE,
	OPT_PREFLIGHT,
	OPT_NO_PREFLIGHT,
	OPT_REQUEUE,
	OPT_NO_REQUEUE,
	OPT_SIGNAL_LEAD
};

static const struct option longopts[] = {
	{ "site",		required_argument,	NULL, 's' },
	{ "nodes",		required_argument,	NULL, 'N' },
	{ "gpus-per-node",	required_argument,	NULL, 'G' },
	{ "nproc-per-node",	required_argument,	NULL, 'n' },
	{ "time",		required_argument,	NULL, 't' },
	{ "partition",		required_argument,	NULL, 'p' },
	{ "account",		required_argument,	NULL, 'A' },
	{ "qos",		required_argument,	NULL, 'q' },
	{ "constraint",		required_argument,	NULL, 'C' },
	{ "job-name",		required_argument,	NULL, 'J' },
	{ "output",		required_argument,	NULL, 'o' },
	{ "env",		required_argument,	NULL, 'e' },
	{ "format",		required_argument,	NULL, 'f' },
	{ "setup",		required_argument,	NULL, 'S' },
	{ "port",		required_argument,	NULL, 'P' },
	{ "rdzv",		required_argument,	NULL, 'r' },
	{ "iface",		required_argument,	NULL, 'i' },
	{ "template",		required_argument,	NULL, 'T' },
	{ "ddprank",		required_argument,	NULL, OPT_DDPRANK },
	{ "preflight",		no_argument,		NULL, OPT_PREFLIGHT },
	{ "no-preflight",	no_argument,		NULL, OPT_NO_PREFLIGHT },
	{ "list-sites",		no_argument,		NULL, OPT_LIST_SITES },
	{ "show-site",		required_argument,	NULL, OPT_SHOW_SITE },
	{ "requeue",		no_argument,		NULL, OPT_REQUEUE },
	{ "no-requeue",		no_argument,		NULL, OPT_NO_REQUEUE },
	{ "signal-lead",	required_argument,	NULL, OPT_SIGNAL_LEAD },
	{ "help",		no_argument,		NULL, 'h' },
	{ "version",		no_argument,		NULL, 'V' },
	{ NULL,			0,			NULL, 0 }
};

static void
usage(FILE *f)
{
	fprintf(f,
"usage: ddpgen [-s site] [-N nodes] [-G gpus-per-node] [-n nproc-per-node]\n"
"              [-t time] [-p partition] [-A account] [-q qos]\n"
"              [-C constraint] [-J job-name] [-o file] [-f format]\n"
"              [-e name[=value]] [-S command] [-P port|auto]\n"
"              [-r static|c10d] [-i regex] [-T template] [--ddprank path]\n"
"              [--preflight | --no-preflight]\n"
"              [--requeue | --no-requeue] [--signal-lead seconds]\n"
"              script [argument ...]\n"
"       ddpgen --list-sites\n"
"       ddpgen --show-site site\n"
"       ddpgen -h | -V\n");
}

static void __attribute__((noreturn, format(printf, 2, 3)))
die(int status, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	util_vwarn(fmt, ap);
	va_end(ap);
	exit(status);
}

/* Everything printed reached standard output: XC_OK, or one line on
 * standard error and XC_FAIL (a full disk, /dev/full, a closed pipe). */
static int
stdout_done(void)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		util_warn("standard output: %s", errno != 0 ?
		    strerror(errno) : "write error");
		return XC_FAIL;
	}
	return XC_OK;
}

/* The directory holding this executable, so the build tree's profiles/
 * and templates/ are found without installing (caller frees). */
static char *
exe_dir(void)
{
	char	path[PATH_MAX];
	ssize_t	n;

	if ((n = readlink("/proc/self/exe", path, sizeof path - 1)) <= 0)
		return NULL;
	path[n] = '\0';
	return xstrdup(dirname(path));
}

static int
num_arg(const char *opt, const char *s, int min, int max)
{
	long long	v;

	if (util_strtonum(s, min, max, &v) == -1)
		die(XC_USAGE, "--%s: '%s' is not a number from %d to %d",
		    opt, s, min, max);
	return (int)v;
}

/* Removes NAME=... from env, if there. */
static void
env_remove(struct strlist *env, const char *name)
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
set_str(char **dst, const char *src)
{
	if (src == NULL)
		return;
	free(*dst);
	*dst = xstrdup(src);
}

static void
apply_port(struct profile *p, const char *port)
{
	if (port != NULL && profile_parse_port(port, &p->port, NULL) == -1)
		die(XC_USAGE, "--port: '%s' is not a number from 1 to 65535",
		    port);
}

static void
apply_rdzv(struct profile *p, const char *rdzv)
{
	int	i;

	if (rdzv == NULL)
		return;
	if ((i = profile_word(profile_rdzv_names, rdzv)) == -1)
		die(XC_USAGE, "--rdzv: '%s' is not static or c10d", rdzv);
	p->rdzv = (enum profile_rdzv)i;
}

/* The output formats and the template extension each one selects; the
 * first format of a scheduler is its default. */
static const struct format {
	const char		*name;
	enum profile_sched	 sched;
	const char		*ext;
} formats[] = {
	{ "sh",		PROFILE_SLURM,		".sh" },
	{ "xml",	PROFILE_HPCPACK,	".xml" },
	{ "cmd",	PROFILE_HPCPACK,	".cmd" },
	{ "ps",		PROFILE_HPCPACK,	".ps1" },
};

/* --format picks the template of the same name with the format's
 * extension: hpcpack.xml becomes hpcpack.cmd. */
static void
apply_format(struct profile *p, const char *format)
{
	const struct format	*f = NULL;
	char			*dot, *t;
	size_t			 i;

	if (format == NULL)
		return;
	for (i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (strcmp(formats[i].name, format) == 0)
			f = &formats[i];
	if (f == NULL)
		die(XC_USAGE, "--format: '%s' is not sh, xml, cmd or ps", format);
	if (f->sched != p->scheduler)
		die(XC_USAGE, "--format: %s is not a format for %s sites "
		    "(%s)", format, p->scheduler == PROFILE_SLURM ? "Slurm" :
		    "HPC Pack", p->scheduler == PROFILE_SLURM ? "sh" :
		    "xml, cmd or ps");
	t = xstrdup(p->template);
	if ((dot = strrchr(t, '.')) != NULL && strchr(dot, '/') == NULL)
		*dot = '\0';
	free(p->template);
	xasprintf(&p->template, "%s%s", t, f->ext);
	free(t);
}

/* Command-line values win over the profile's. */
static void
apply_opts(struct profile *p, const struct opts *o)
{
	if (o->gpus != -1)
		p->gpus_per_node = o->gpus;
	if (o->nproc != -1)
		p->nproc_per_node = o->nproc;
	set_str(&p->time, o->time);
	set_str(&p->partition, o->partition);
	set_str(&p->account, o->account);
	set_str(&p->qos, o->qos);
	set_str(&p->constraint, o->constraint);
	set_str(&p->job_name, o->job_name);
	set_str(&p->template, o->template);
	set_str(&p->ddprank, o->ddprank);
	if (o->preflight != -1)
		p->preflight = o->preflight;
	if (o->requeue != -1)
		p->requeue = o->requeue;
	if (o->signal_lead != -1)
		p->signal_lead = o->signal_lead;
	if (o->iface != NULL) {
		set_str(&p->iface, o->iface);
		p->discovery = PROFILE_IFACE;
	}
	apply_format(p, o->format);
	apply_port(p, o->port);
	apply_rdzv(p, o->rdzv);
	strlist_copy(&p->setup, &o->setup);
}

/* Applies each --env in order, the last for a name winning: NAME=VALUE
 * replaces the profile's NAME; a bare NAME is passed from the submitting
 * shell at run time instead (into pass), so its value is never written. */
static void
apply_env(struct profile *p, const struct opts *o, struct strlist *pass)
{
	size_t	i, k;
	char	*name;

	for (i = 0; i < o->env.n; i++) {
		name = xstrndup(o->env.v[i], strcspn(o->env.v[i], "="));
		for (k = 0; k < pass->n; k++)
			if (strcmp(pass->v[k], name) == 0)
				break;
		if (k < pass->n) {
			free(pass->v[k]);
			memmove(&pass->v[k], &pass->v[k + 1],
			    (pass->n - k) * sizeof pass->v[0]);
			pass->n--;
		}
		if (strchr(o->env.v[i], '=') != NULL)
			profile_env_set(&p->env, o->env.v[i]);
		else {
			env_remove(&p->env, name);
			strlist_add(pass, name);
		}
		free(name);
	}
	if (pass->n > 0 && p->scheduler != PROFILE_SLURM)
		die(XC_USAGE, "--env: '%s': passing a variable from the "
		    "submitting shell works on Slurm sites only; give %s=VALUE",
		    pass->v[0], pass->v[0]);
}

/* ddpgen's command line for the job's "Regenerate with" comment, with
 * each --env value replaced by a placeholder: a secret given there is
 * not written a second time. */
static void
redact_argv(struct strlist *out, const struct opts *o, int argc,
    char **argv)
{
	const char	*eq;
	char		*s;
	size_t		 i, k = 0;

	/* env_at ascends: the options were parsed in order. */
	for (i = 0; i < (size_t)argc; i++) {
		while (k < o->env.n && o->env_at[k] < i)
			k++;
		/* The value ends argv[i], in "-eN=V" too. */
		eq = NULL;
		if (k < o->env.n && o->env_at[k] == i)
			eq = strchr(argv[i] + strlen(argv[i]) -
			    strlen(o->env.v[k]), '=');
		if (eq != NULL)
			xasprintf(&s, "%.*s=<value>", (int)(eq - argv[i]),
			    argv[i]);
		else
			s = xstrdup(argv[i]);
		strlist_addown(out, s);
	}
}

/* NAME=VALUE, or a bare NAME to pass from the submitting shell. */
/* A job no longer than the signal lead would be warned as it starts:
 * unless --requeue or --signal-lead asked for it (profile_validate then
 * refuses), such a job is not carried on, and ddpgen says so. */
static void
short_job(struct profile *p, const struct opts *o)
{
	long long	secs;

	if (p->scheduler != PROFILE_SLURM || !p->requeue || o->requeue == 1 ||
	    o->signal_lead != -1 || profile_parse_time(p->time, &secs) != 0 ||
	    secs <= 0 || secs > p->signal_lead)
		return;
	util_warn("warning: time limit '%s' is not longer than signal_lead "
	    "(%d s): the job is not requeued", p->time, p->signal_lead);
	p->requeue = 0;
}

static void
check_env_arg(const char *s)
{
	char	*item;
	int	 rc;

	if (strchr(s, '=') == NULL)
		xasprintf(&item, "%s=", s);
	else
		item = xstrdup(s);
	rc = profile_check_env(item, NULL);
	free(item);
	if (rc == -1)
		die(XC_USAGE, "--env: '%s' is not NAME=VALUE or NAME with NAME "
		    "a shell variable name", s);
}

static void
add_env(struct opts *o, const char *arg)
{
	check_env_arg(arg);
	strlist_add(&o->env, arg);
	o->env_at = xreallocarray(o->env_at, o->env.n, sizeof *o->env_at);
	/* optarg ends argv[optind - 1]: "-e N=V", "-eN=V", "--env=N=V". */
	o->env_at[o->env.n - 1] = (size_t)optind - 1;
}

/* "--nodes" for 'N': options are named by their long name in messages. */
static const char *
optname(int ch)
{
	size_t	i;

	for (i = 0; longopts[i].name != NULL; i++)
		if (longopts[i].val == ch)
			return longopts[i].name;
	return "?";
}

static void
parse_opt(struct opts *o, int ch)
{
	if (o->job_opt == 0 && strchr("hV", ch) == NULL &&
	    ch != OPT_LIST_SITES && ch != OPT_SHOW_SITE)
		o->job_opt = ch;
	switch (ch) {
	case 's': o->site = optarg; break;
	case 'N': o->nodes = num_arg("nodes", optarg, 1, 1000000); break;
	case 'G': o->gpus = num_arg("gpus-per-node", optarg, 0, 1024); break;
	case 'n': o->nproc = num_arg("nproc-per-node", optarg, 1, 1024);
		break;
	case 't':
		if (profile_parse_time(optarg, NULL) == -1)
			die(XC_USAGE, "--time: '%s' is not a Slurm time "
			    "(minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S or "
			    "UNLIMITED)", optarg);
		o->time = optarg;
		break;
	case 'p': o->partition = optarg; break;
	case 'A': o->account = optarg; break;
	case 'q': o->qos = optarg; break;
	case 'C': o->constraint = optarg; break;
	case 'J': o->job_name = optarg; break;
	case 'o': o->output = optarg; break;
	case 'f': o->format = optarg; break;
	case 'e': add_env(o, optarg); break;
	case 'S': strlist_add(&o->setup, optarg); break;
	case 'P': o->port = optarg; break;
	case 'r': o->rdzv = optarg; break;
	case 'i': o->iface = optarg; break;
	case 'T': o->template = optarg; break;
	case OPT_DDPRANK: o->ddprank = optarg; break;
	case OPT_PREFLIGHT: o->preflight = 1; break;
	case OPT_NO_PREFLIGHT: o->preflight = 0; break;
	case OPT_LIST_SITES: o->list_sites = 1; break;
	case OPT_SHOW_SITE: o->show_site = optarg; break;
	case OPT_REQUEUE: o->requeue = 1; break;
	case OPT_NO_REQUEUE: o->requeue = 0; break;
	case OPT_SIGNAL_LEAD:
		o->signal_lead = num_arg("signal-lead", optarg, 1, 65535);
		break;
	case 'h': usage(stdout); exit(stdout_done());
	case 'V': printf("ddpgen %s\n", DDPGEN_VERSION); exit(stdout_done());
	}
}

/* getopt's own messages would name argv[0], a full path. */
static void __attribute__((noreturn))
bad_opt(int ch, char **argv)
{
	char	*msg = util_opterr(ch, argv, longopts);

	util_warn("%s", msg);
	free(msg);
	usage(stderr);
	exit(XC_USAGE);
}

static void
parse_opts(struct opts *o, int argc, char **argv)
{
	int	ch;

	memset(o, 0, sizeof *o);
	o->nodes = 1;
	o->gpus = o->nproc = o->preflight = -1;
	o->requeue = o->signal_lead = -1;
	strlist_init(&o->env);
	strlist_init(&o->setup);
	opterr = 0;
	while ((ch = getopt_long(argc, argv,
	    "+:s:N:G:n:t:p:A:q:C:J:o:f:e:S:P:r:i:T:hV", longopts,
	    NULL)) != -1) {
		if (ch == '?' || ch == ':')
			bad_opt(ch, argv);
		parse_opt(o, ch);
	}
}

static struct profile *
load_site(const char *site, const struct strlist *dirs)
{
	struct strlist	 errors;
	struct profile	*p;
	size_t		 i;

	strlist_init(&errors);
	p = profile_load(site, dirs, &errors);
	for (i = 0; i < errors.n; i++)
		util_warn("%s", errors.v[i]);
	strlist_free(&errors);
	if (p == NULL)
		exit(XC_CONFIG);
	return p;
}

static int
list_sites(const struct strlist *dirs)
{
	struct profile_site	*sites;
	size_t			 i, n;

	n = profile_list(dirs, &sites);
	for (i = 0; i < n; i++)
		printf("%-12s %s (%s)\n", sites[i].name,
		    sites[i].description, sites[i].path);
	profile_sites_free(sites, n);
	return stdout_done();
}

static int
show_site(const char *site, const struct strlist *dirs)
{
	struct profile	*p;
	struct buf	 b;

	p = load_site(site, dirs);
	buf_init(&b);
	profile_dump(p, &b);
	fputs(b.s, stdout);
	buf_free(&b);
	profile_free(p);
	return stdout_done();
}

/* Where ddprank lives on the nodes: the profile or --ddprank, else the
 * one beside this ddpgen, else BINDIR's, else the first in PATH. The
 * script calls it by this absolute path. */
static char *
find_ddprank(const char *given, const char *exedir)
{
	char	 path[PATH_MAX], *p, *dirs, *tok, *save;
	char	*found = NULL;

	if (*given != '\0') {
		if (given[0] != '/')
			die(XC_USAGE, "ddprank path '%s' is not absolute",
			    given);
		return xstrdup(given);
	}
	if (exedir != NULL) {
		xasprintf(&p, "%s/ddprank", exedir);
		if (access(p, X_OK) == 0)
			return p;
		free(p);
	}
	if (access(DDPGEN_BINDIR "/ddprank", X_OK) == 0)
		return xstrdup(DDPGEN_BINDIR "/ddprank");
	dirs = xstrdup(getenv("PATH") != NULL ? getenv("PATH") : "");
	for (tok = strtok_r(dirs, ":", &save); tok != NULL && found == NULL;
	    tok = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof path, "%s/ddprank", tok);
		if (tok[0] == '/' && access(path, X_OK) == 0)
			found = xstrdup(path);
	}
	free(dirs);
	if (found == NULL)
		die(XC_FAIL, "cannot find ddprank (beside ddpgen, in %s or "
		    "in PATH); install it or set ddprank in the profile",
		    DDPGEN_BINDIR);
	return found;
}

/* The profile's template path is already absolute when it has a slash
 * (see profile.c); -T's is relative to the current directory. A name
 * without a slash is looked up in the template path. */
static char *
find_template(const struct profile *p, const char *exedir)
{
	struct strlist	 dirs;
	char		*path, *cause;

	strlist_init(&dirs);
	script_template_path(&dirs, NULL, exedir);
	path = script_find_template(p->template, &dirs, &cause);
	strlist_free(&dirs);
	if (path == NULL)
		die(XC_CONFIG, "%s", cause);
	return path;
}

/* The mode of a new script: executable, as far as the umask allows. */
static unsigned int
output_mode(void)
{
	mode_t	mask;

	mask = umask(0);
	umask(mask);
	return 0777 & ~(unsigned int)mask;
}

/* -o - and no -o both mean standard output. */
static void
emit(const char *output, const struct buf *b)
{
	char	*cause;

	if (output != NULL && strcmp(output, "-") != 0) {
		if (util_writeout(output, b->s, b->len, output_mode(),
		    &cause) == -1)
			die(XC_FAIL, "%s", cause);
		return;
	}
	fwrite(b->s, 1, b->len, stdout);
	if (stdout_done() != XC_OK)
		exit(XC_FAIL);
}

/* Setup lines are shell code: bash -n checks them as a block, and a
 * failure names the first line bash refuses on its own (or all of them,
 * when only together they fail, as an unclosed if). nprof of them come
 * from the profile, the rest from -S. */
static void
check_setup(const struct strlist *setup, size_t nprof)
{
	struct buf	 b;
	char		*cause, *why;
	size_t		 i;
	int		 rc;

	if (setup->n == 0)
		return;
	buf_init(&b);
	for (i = 0; i < setup->n; i++)
		buf_addf(&b, "%s\n", setup->v[i]);
	rc = script_check_syntax(b.s, 0, &cause);
	buf_free(&b);
	if (rc != -1)
		return;
	for (i = 0; i < setup->n; i++) {
		if (script_check_syntax(setup->v[i], 1, &why) != -1)
			continue;
		free(cause);
		if (i < nprof)
			die(XC_CONFIG, "setup: '%s' is not valid shell: %s",
			    setup->v[i], why);
		die(XC_USAGE, "--setup: '%s' is not valid shell: %s",
		    setup->v[i], why);
	}
	die(nprof == setup->n ? XC_CONFIG : XC_USAGE, "setup lines are not "
	    "valid shell together: %s", cause);
}

/* A shell script that bash refuses is never written. */
static void
check_script(const char *tpath, const struct buf *b)
{
	const char	*dot = strrchr(tpath, '.');
	char		*cause;

	if (dot == NULL || strcmp(dot, ".sh") != 0)
		return;
	if (script_check_syntax(b->s, 0, &cause) == -1)
		die(XC_CONFIG, "%s: the generated script is not valid shell: "
		    "%s", tpath, cause);
}

typedef int	quote_fn(struct buf *, const char *, char **);

/* The quoting an HPC Pack format's template applies to env values, by
 * the template's extension; NULL for a shell script, where every value
 * can be written. */
static quote_fn *
format_quote(const char *template)
{
	const char	*dot = strrchr(template, '.');

	if (dot == NULL || strchr(dot, '/') != NULL)
		return NULL;
	if (strcmp(dot, ".cmd") == 0)
		return quote_cmd;
	if (strcmp(dot, ".ps1") == 0)
		return quote_ps;
	if (strcmp(dot, ".xml") == 0)
		return quote_xml;
	return NULL;
}

/* An -e value the format cannot carry is a usage error, before the
 * template would report it as its own (a profile error). */
static void
check_env_values(const struct opts *o, const struct profile *p)
{
	quote_fn	*fn = format_quote(p->template);
	struct buf	 b;
	char		*cause;
	size_t		 i;

	for (i = 0; fn != NULL && i < o->env.n; i++) {
		if (strchr(o->env.v[i], '=') == NULL)
			continue;	/* passed at run time */
		buf_init(&b);
		if (fn(&b, strchr(o->env.v[i], '=') + 1, &cause) == -1)
			die(XC_USAGE, "--env: '%s': %s", o->env.v[i], cause);
		buf_free(&b);
	}
}

static int
generate(const struct opts *o, struct profile *p, int argc, char **argv,
    const char *exedir)
{
	struct job	 job;
	struct strlist	 pass, cmd;
	struct buf	 b;
	char		*cause, *tpath, *ddprank;
	size_t		 nprof = p->setup.n;

	apply_opts(p, o);
	short_job(p, o);
	strlist_init(&pass);
	apply_env(p, o, &pass);
	if (profile_validate(p, &cause) == -1)
		die(XC_USAGE, "%s", cause);
	check_setup(&p->setup, nprof);
	check_env_values(o, p);
	memset(&job, 0, sizeof job);
	job.prof = p;
	job.site = o->site;
	job.nodes = o->nodes;
	job.script = argv[optind];
	job.args = argv + optind + 1;
	job.nargs = (size_t)(argc - optind - 1);
	strlist_init(&cmd);
	redact_argv(&cmd, o, argc, argv);
	job.argc = cmd.n;
	job.argv = cmd.v;
	job.env_pass = &pass;
	ddprank = find_ddprank(p->ddprank, exedir);
	job.ddprank = ddprank;
	tpath = find_template(p, exedir);
	if (script_check_hpcpack(&job, tpath, &cause) == -1)
		die(XC_USAGE, "%s", cause);
	buf_init(&b);
	if (script_render(&job, tpath, &b, &cause) == -1)
		die(XC_CONFIG, "%s", cause);
	check_script(tpath, &b);
	if (script_check_output(tpath, &b, &cause) == -1)
		die(XC_USAGE, "%s", cause);
	if (p->rdzv == PROFILE_C10D)
		util_warn("warning: rdzv c10d: torch's store has no "
		    "authentication and c10d unpickles what it holds: anyone "
		    "who reaches its port can run code in the job; use c10d only "
		    "on a network other users cannot reach, else static");
	emit(o->output, &b);
	buf_free(&b);
	strlist_free(&cmd);
	strlist_free(&pass);
	free(tpath);
	free(ddprank);
	return XC_OK;
}

/* --list-sites and --show-site take no operand and no option of a job:
 * nothing given is silently ignored. */
static int
dispatch_sites(const struct opts *o, const struct strlist *dirs, int argc,
    char **argv)
{
	const char	*mode = o->list_sites ? "list-sites" : "show-site";

	if (o->list_sites && o->show_site != NULL)
		die(XC_USAGE, "--list-sites: --show-site does not apply");
	if (o->job_opt != 0)
		die(XC_USAGE, "--%s: --%s does not apply", mode,
		    optname(o->job_opt));
	if (optind < argc)
		die(XC_USAGE, "--%s: unexpected argument '%s'", mode,
		    argv[optind]);
	if (o->list_sites)
		return list_sites(dirs);
	return show_site(o->show_site, dirs);
}

/* Runs what the options ask for; everything it is given, the caller frees. */
static int
dispatch(struct opts *o, const struct strlist *dirs, int argc, char **argv,
    const char *exedir)
{
	struct profile	*p;
	int		 rc;

	if (o->list_sites || o->show_site != NULL)
		return dispatch_sites(o, dirs, argc, argv);
	if (optind >= argc) {
		fprintf(stderr, "%s: no training script given\n",
		    util_progname);
		usage(stderr);
		return XC_USAGE;
	}
	if (o->site == NULL)
		o->site = "slurm";
	p = load_site(o->site, dirs);
	argv[0] = (char *)"ddpgen";
	rc = generate(o, p, argc, argv, exedir);
	profile_free(p);
	return rc;
}

int
main(int argc, char **argv)
{
	struct opts	 o;
	struct strlist	 dirs;
	char		*exedir;
	int		 rc;

	util_progname = "ddpgen";
	parse_opts(&o, argc, argv);
	exedir = exe_dir();
	strlist_init(&dirs);
	profile_searchpath(&dirs, NULL, exedir);
	rc = dispatch(&o, &dirs, argc, argv, exedir);
	strlist_free(&dirs);
	strlist_free(&o.env);
	free(o.env_at);
	strlist_free(&o.setup);
	free(exedir);
	return rc;
}
