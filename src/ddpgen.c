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
#include <time.h>
#include <unistd.h>

#include "badnodes.h"
#include "exitcode.h"
#include "fault.h"
#include "hang.h"
#include "job.h"
#include "jobcheck.h"
#include "launcher.h"
#include "profile.h"
#include "util.h"
#include "vocab.h"
#include "xmalloc.h"

/* The command line: the job's options and operands, and the rest. */
struct opts {
	struct job_opts	 j;
	const char	*output;
	const char	*show_site;
	const char	*check;		/* --check FILE */
	int		 list_sites;
	int		 list_bad;	/* --list-bad-nodes */
	int		 forget_bad;	/* --forget-bad-nodes */
	int		 job_opt;	/* the first option of a job, or 0 */
	const char	*operand;	/* the first operand, or NULL */
};

enum {
	OPT_DDPRANK = 256,
	OPT_LIST_SITES,
	OPT_SHOW_SITE,
	OPT_PREFLIGHT,
	OPT_NO_PREFLIGHT,
	OPT_REQUEUE,
	OPT_NO_REQUEUE,
	OPT_SIGNAL_LEAD,
	OPT_CONTAINER,
	OPT_IMAGE,
	OPT_BIND,
	OPT_LOCAL,
	OPT_CHECK,
	OPT_HANG_TIMEOUT,
	OPT_LIST_BAD,
	OPT_FORGET_BAD
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
	{ "launcher",		required_argument,	NULL, 'L' },
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
	{ "container",		required_argument,	NULL, OPT_CONTAINER },
	{ "image",		required_argument,	NULL, OPT_IMAGE },
	{ "bind",		required_argument,	NULL, OPT_BIND },
	{ "local",		no_argument,		NULL, OPT_LOCAL },
	{ "check",		required_argument,	NULL, OPT_CHECK },
	{ "hang-timeout",	required_argument,	NULL, OPT_HANG_TIMEOUT },
	{ "list-bad-nodes",	no_argument,		NULL, OPT_LIST_BAD },
	{ "forget-bad-nodes",	no_argument,		NULL, OPT_FORGET_BAD },
	{ "help",		no_argument,		NULL, 'h' },
	{ "version",		no_argument,		NULL, 'V' },
	{ NULL,			0,			NULL, 0 }
};

/* The words of a table, as usage's "a|b|c". */
static void
usage_words(FILE *f, const char *const *v)
{
	for (; *v != NULL; v++)
		fprintf(f, "%s%s", *v, v[1] != NULL ? "|" : "");
}

/* The choices of -r, -L and --bind come from their tables. */
static void
usage(FILE *f)
{
	fprintf(f,
"usage: ddpgen [-s site] [-N nodes] [-G gpus-per-node] [-n nproc-per-node]\n"
"              [-t time] [-p partition] [-A account] [-q qos]\n"
"              [-C constraint] [-J job-name] [-o file] [-f format]\n"
"              [-e name[=value]] [-S command] [-P port|auto]\n"
"              [-r ");
	usage_words(f, rdzv_names);
	fprintf(f, "] [-L ");
	usage_words(f, launcher_names());
	fprintf(f, "]\n"
"              [-i regex] [-T template] [--ddprank path]\n"
"              [--preflight | --no-preflight]\n"
"              [--requeue | --no-requeue] [--signal-lead seconds]\n"
"              [--container runtime] [--image image] [--local]\n"
"              [--bind ");
	usage_words(f, bind_names);
	fprintf(f, "] [--hang-timeout seconds]\n"
"              script [argument ...]\n"
"       ddpgen --check file\n"
"       ddpgen --list-sites\n"
"       ddpgen --show-site site\n"
"       ddpgen --list-bad-nodes\n"
"       ddpgen --forget-bad-nodes [node ...]\n"
"       ddpgen -h | -V\n");
}

/* The exit status of each fault a lower layer returns, the one place
 * where ddpgen turns one into its status: ddpgen(1), EXIT STATUS. Its
 * layers return none, usage, config and system faults (--check's 8 is
 * decided here); the others are ddprank's, and would be a system error. */
static const int exit_of[] = {
	[FAULT_NONE] = XC_OK,
	[FAULT_USAGE] = XC_USAGE,
	[FAULT_SYS] = XC_FAIL,
	[FAULT_CONFIG] = XC_CONFIG,
	[FAULT_CHECK] = XC_CHECK,
	[FAULT_NODES] = XC_FAIL,
	[FAULT_PORT] = XC_FAIL,
	[FAULT_IFACE] = XC_FAIL,
	[FAULT_EXCHANGE] = XC_FAIL,
	[FAULT_NOEXEC] = XC_FAIL,
	[FAULT_BIND] = XC_FAIL,
	[FAULT_NOTFOUND] = XC_FAIL
};
_Static_assert(sizeof exit_of / sizeof exit_of[0] == FAULT_NOTFOUND + 1,
    "exit_of has a status for every fault");

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

/* NAME=VALUE, or a bare NAME to pass from the submitting shell. */
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
add_env(struct job_opts *j, const char *arg)
{
	check_env_arg(arg);
	strlist_add(&j->env, arg);
	j->env_at = xreallocarray(j->env_at, j->env.n, sizeof *j->env_at);
	/* optarg ends argv[optind - 1]: "-e N=V", "-eN=V", "--env=N=V". */
	j->env_at[j->env.n - 1] = (size_t)optind - 1;
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
	struct job_opts	*j = &o->j;

	if (o->job_opt == 0 && strchr("hV", ch) == NULL &&
	    ch != OPT_LIST_SITES && ch != OPT_SHOW_SITE && ch != OPT_CHECK &&
	    ch != OPT_LIST_BAD && ch != OPT_FORGET_BAD)
		o->job_opt = ch;
	switch (ch) {
	case 's': j->site = optarg; break;
	case 'N': j->nodes = num_arg("nodes", optarg, 1, 1000000); break;
	case 'G': j->gpus = num_arg("gpus-per-node", optarg, 0, 1024); break;
	case 'n': j->nproc = num_arg("nproc-per-node", optarg, 1, 1024);
		break;
	case 't':
		if (profile_parse_time(optarg, NULL) == -1)
			die(XC_USAGE, "--time: '%s' is not a Slurm time "
			    "(minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S or "
			    "UNLIMITED)", optarg);
		j->time = optarg;
		break;
	case 'p': j->partition = optarg; break;
	case 'A': j->account = optarg; break;
	case 'q': j->qos = optarg; break;
	case 'C': j->constraint = optarg; break;
	case 'J': j->job_name = optarg; break;
	case 'o': o->output = optarg; break;
	case 'f': j->format = optarg; break;
	case 'e': add_env(j, optarg); break;
	case 'S': strlist_add(&j->setup, optarg); break;
	case 'P': j->port = optarg; break;
	case 'r': j->rdzv = optarg; break;
	case 'L': j->launcher = optarg; break;
	case 'i': j->iface = optarg; break;
	case 'T': j->template = optarg; break;
	case OPT_DDPRANK: j->ddprank = optarg; break;
	case OPT_PREFLIGHT: j->preflight = 1; break;
	case OPT_NO_PREFLIGHT: j->preflight = 0; break;
	case OPT_LIST_SITES: o->list_sites = 1; break;
	case OPT_SHOW_SITE: o->show_site = optarg; break;
	case OPT_REQUEUE: j->requeue = 1; break;
	case OPT_NO_REQUEUE: j->requeue = 0; break;
	case OPT_CONTAINER: j->container = optarg; break;
	case OPT_IMAGE: j->image = optarg; break;
	case OPT_BIND: j->bind = optarg; break;
	case OPT_LOCAL: j->local = 1; break;
	case OPT_CHECK: o->check = optarg; break;
	case OPT_LIST_BAD: o->list_bad = 1; break;
	case OPT_FORGET_BAD: o->forget_bad = 1; break;
	case OPT_HANG_TIMEOUT:
		j->hang_timeout = num_arg("hang-timeout", optarg, 0,
		    HANG_TIMEOUT_MAX);
		break;
	case OPT_SIGNAL_LEAD:
		j->signal_lead = num_arg("signal-lead", optarg, 1, 65535);
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
	o->j.nodes = 1;
	o->j.gpus = o->j.nproc = o->j.preflight = -1;
	o->j.requeue = o->j.signal_lead = o->j.hang_timeout = -1;
	strlist_init(&o->j.env);
	strlist_init(&o->j.setup);
	opterr = 0;
	while ((ch = getopt_long(argc, argv,
	    "+:s:N:G:n:t:p:A:q:C:J:o:f:e:S:P:r:L:i:T:hV", longopts,
	    NULL)) != -1) {
		if (ch == '?' || ch == ':')
			bad_opt(ch, argv);
		parse_opt(o, ch);
	}
	/* The operands: the training script and its arguments. */
	if (optind < argc) {
		o->operand = o->j.script = argv[optind];
		o->j.args = argv + optind + 1;
		o->j.nargs = (size_t)(argc - optind - 1);
	}
	o->j.argv = argv;
	o->j.argc = (size_t)argc;
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
		printf("%-12s %-8s %s (%s)\n", sites[i].name,
		    sites[i].scheduler, sites[i].description, sites[i].path);
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

static int
generate(const struct opts *o, struct profile *p, const char *exedir)
{
	struct job_resolved	 r;
	struct buf		 b;
	char			*cause;
	enum fault		 f;

	buf_init(&b);
	f = job_resolve(&r, p, &o->j, exedir, &cause);
	if (r.warning != NULL)
		util_warn("warning: %s", r.warning);
	if (r.note != NULL)
		util_warn("%s", r.note);
	if (f != FAULT_NONE || (f = job_render(&r, &b, &cause)) != FAULT_NONE)
		die(exit_of[f], "%s", cause);
	if (r.prof->rdzv == RDZV_C10D)
		util_warn("warning: rdzv c10d: torch's store has no "
		    "authentication and c10d unpickles what it holds: anyone "
		    "who reaches its port can run code in the job; use c10d only "
		    "on a network other users cannot reach, else static");
	emit(o->output, &b);
	buf_free(&b);
	job_free(&r);
	return XC_OK;
}

/* The site's profile; with --local, the local profile with the site's
 * laid over it (profile_localize). */
static struct profile *
load_job_profile(const struct job_opts *j, const struct strlist *dirs)
{
	struct profile	*site, *local;

	site = load_site(j->site, dirs);
	if (!j->local)
		return site;
	local = load_site("local", dirs);
	profile_localize(local, site);
	profile_free(site);
	return local;
}

/* The findings of --check, one line each: "LEVEL name: detail". */
static void
print_findings(const struct jobcheck *c)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < c->n; i++) {
		buf_addf(&b, "%s %s: ", jobcheck_level_name(c->v[i].level),
		    c->v[i].name);
		util_addvis(&b, c->v[i].detail, strlen(c->v[i].detail));
		buf_addc(&b, '\n');
	}
	if (b.len > 0)
		fwrite(b.s, 1, b.len, stdout);
	buf_free(&b);
}

/* ddpgen --check FILE: the job its "Regenerate with" line gives, parsed
 * as this command line would be, resolved and rendered now, then
 * checked against the file and this machine (jobcheck.h). */
static int
check_job(const char *file, const struct strlist *dirs, const char *exedir)
{
	struct job_resolved	 r;
	struct jobcheck		 c;
	struct strlist		 argv;
	struct opts		 o;
	struct buf		 b;
	char			*text, *cause;
	enum fault		 f;
	int			 xc;

	if ((text = util_readfile_max(file, JOBCHECK_FILE_MAX, NULL,
	    &cause)) == NULL)
		die(XC_FAIL, "%s", cause);
	strlist_init(&argv);
	if (jobcheck_command(text, &argv, &cause) == -1)
		die(XC_USAGE, "%s: %s", file, cause);
	optind = 0;
	parse_opts(&o, (int)argv.n, argv.v);
	if (o.check != NULL || o.list_sites || o.show_site != NULL ||
	    o.operand == NULL)
		die(XC_USAGE, "%s: its 'Regenerate with' line generates no "
		    "job", file);
	if (o.j.site == NULL)
		o.j.site = "slurm";
	buf_init(&b);
	f = job_resolve(&r, load_job_profile(&o.j, dirs), &o.j, exedir,
	    &cause);
	if (f != FAULT_NONE || (f = job_render(&r, &b, &cause)) != FAULT_NONE)
		die(exit_of[f], "%s: its 'Regenerate with' line: %s", file,
		    cause);
	jobcheck_run(&c, &r, file, text, &b);
	print_findings(&c);
	xc = jobcheck_failed(&c) ? XC_CHECK : XC_OK;
	jobcheck_free(&c);
	buf_free(&b);
	job_free(&r);
	strlist_free(&o.j.env);
	free(o.j.env_at);
	strlist_free(&o.j.setup);
	strlist_free(&argv);
	free(text);
	return stdout_done() != XC_OK ? XC_FAIL : xc;
}

/* --list-sites, --show-site and --check take no option of a job, and
 * the first two no operand: nothing given is silently ignored. */
static int
dispatch_sites(const struct opts *o, const struct strlist *dirs,
    const char *exedir)
{
	const char	*mode = o->list_sites ? "list-sites" :
	    o->show_site != NULL ? "show-site" : "check";

	if (o->list_sites && o->show_site != NULL)
		die(XC_USAGE, "--list-sites: --show-site does not apply");
	if (o->check != NULL && (o->list_sites || o->show_site != NULL))
		die(XC_USAGE, "--check: --%s does not apply", o->list_sites ?
		    "list-sites" : "show-site");
	if (o->job_opt != 0)
		die(XC_USAGE, "--%s: --%s does not apply", mode,
		    optname(o->job_opt));
	if (o->operand != NULL)
		die(XC_USAGE, "--%s: unexpected argument '%s'", mode,
		    o->operand);
	if (o->check != NULL)
		return check_job(o->check, dirs, exedir);
	if (o->list_sites)
		return list_sites(dirs);
	return show_site(o->show_site, dirs);
}

/* --list-bad-nodes: "NODE SITE until DATE: WHY", one line each. */
static int
list_bad(void)
{
	struct badnodes	 b;
	struct tm	 tm;
	time_t		 t;
	char		 when[64], *cause;
	size_t		 i;

	if (badnodes_update(&b, (long long)time(NULL), NULL, NULL, util_getenv,
	    &cause) == -1)
		die(XC_FAIL, "%s", cause);
	for (i = 0; i < b.n; i++) {
		t = (time_t)b.v[i].until;
		if (localtime_r(&t, &tm) == NULL || strftime(when, sizeof when,
		    "%Y-%m-%d %H:%M:%S", &tm) == 0)
			snprintf(when, sizeof when, "%lld", b.v[i].until);
		printf("%s %s until %s: %s\n", b.v[i].node, b.v[i].site, when,
		    b.v[i].why);
	}
	badnodes_free(&b);
	return stdout_done();
}

static int
forget(struct badnodes *b, void *arg)
{
	return badnodes_forget(b, arg) > 0;
}

/* --forget-bad-nodes [NODE...]: those, or every one. */
static int
forget_bad(char *const *nodes, size_t n)
{
	struct badnodes	 b;
	char		*cause;

	if (badnodes_update(&b, (long long)time(NULL), forget,
	    n > 0 ? (void *)nodes : NULL, util_getenv, &cause) == -1)
		die(XC_FAIL, "%s", cause);
	badnodes_free(&b);
	return XC_OK;
}

/* --list-bad-nodes and --forget-bad-nodes take no option of a job. */
static int
dispatch_bad(const struct opts *o)
{
	const char	*mode = o->list_bad ? "list-bad-nodes" :
	    "forget-bad-nodes";

	if (o->list_bad && o->forget_bad)
		die(XC_USAGE, "--list-bad-nodes: --forget-bad-nodes does not "
		    "apply");
	if (o->list_sites || o->show_site != NULL || o->check != NULL)
		die(XC_USAGE, "--%s: --%s does not apply", mode, o->list_sites ?
		    "list-sites" : o->check != NULL ? "check" : "show-site");
	if (o->job_opt != 0)
		die(XC_USAGE, "--%s: --%s does not apply", mode,
		    optname(o->job_opt));
	if (o->list_bad && o->operand != NULL)
		die(XC_USAGE, "--%s: unexpected argument '%s'", mode,
		    o->operand);
	if (o->list_bad)
		return list_bad();
	return forget_bad(o->operand == NULL ? NULL : o->j.args - 1,
	    o->operand == NULL ? 0 : o->j.nargs + 1);
}

/* Runs what the options ask for; everything it is given, the caller frees. */
static int
dispatch(struct opts *o, const struct strlist *dirs, const char *exedir)
{
	if (o->list_bad || o->forget_bad)
		return dispatch_bad(o);
	if (o->list_sites || o->show_site != NULL || o->check != NULL)
		return dispatch_sites(o, dirs, exedir);
	if (o->operand == NULL) {
		fprintf(stderr, "%s: no training script given\n",
		    util_progname);
		usage(stderr);
		return XC_USAGE;
	}
	if (o->j.site == NULL)
		o->j.site = "slurm";
	return generate(o, load_job_profile(&o->j, dirs), exedir);
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
	rc = dispatch(&o, &dirs, exedir);
	strlist_free(&dirs);
	strlist_free(&o.j.env);
	free(o.j.env_at);
	strlist_free(&o.j.setup);
	free(exedir);
	return rc;
}
