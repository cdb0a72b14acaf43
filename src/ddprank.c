/* ddprank.c: ddprank's options and subcommands; the work is in rank.c. */
#include "config.h"

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "bindrun.h"
#include "cpuset.h"
#include "doctor.h"
#include "exchange.h"
#include "exitcode.h"
#include "hostlist.h"
#include "launcher.h"
#include "netif.h"
#include "nodes.h"
#include "port.h"
#include "rank.h"
#include "resolve.h"
#include "restart.h"
#include "rx.h"
#include "timeline-run.h"
#include "util.h"
#include "watch.h"
#include "xmalloc.h"

/* How long, at most, an error line may wait in the stderr pipe at exit. */
#define DRAIN_MS	2000

enum cmd {
	CMD_BIND,
	CMD_DOCTOR,
	CMD_ENV,
	CMD_EXEC,
	CMD_HOSTS,
	CMD_IP,
	CMD_KEY,
	CMD_PORT
};

/* Each subcommand and the short options it takes. */
static const struct cmdinfo {
	const char	*name;
	const char	*opts;
} cmds[] = {
	{ "bind", "bRXEnyl" },
	{ "doctor", "sfiCpPrNxT46FGLWDbRXn" },
	{ "env", "sfiCpPrFxTN" },
	{ "exec", "sfiCpPrxTNLnabRH" },
	{ "hosts", "sf" },
	{ "ip", "i46m" },
	{ "key", "" },
	{ "port", "pP" }
};

struct options {
	enum cmd		 cmd;
	struct rank_opts	 ro;
	struct rx		 rx;
	struct rx		 comm_rx;
	struct exchange_opts	 xo;
	struct auth		 auth;
	int			 nokey;	/* -x dir: no secret at all */
	char			*key_home; /* where the key was looked for */
	struct doctor_opts	 doc;
	int			 timeout_set;
	int			 family;
	enum rdzv		 rdzv;
	int			 json;
	/* exec: the launcher (--launcher), its processes per node. */
	const struct launcher	*launcher;
	int			 nproc;
	int			 launcher_at;	/* --launcher-at */
	int			 first_node;	/* ip --first-node */
	struct bindrun_opts	 bind;		/* --bind and its options */
	int			 explain;	/* bind --explain */
	int			 bind_set;	/* --bind given */
	/* exec: the launch timeline, this node's record and the job. */
	struct tl_node		 tl;
	struct tl_run		 tlr;
	int			 argc;	/* operands */
	char			**argv;
};

static const char optstr[] = "+:46C:Df:F:G:hi:L:n:N:p:P:r:s:T:VW:x:";
static const struct option longopts[] = {
	{ "comm-iface",	required_argument,	NULL, 'C' },
	{ "deep",	no_argument,		NULL, 'D' },
	{ "hostfile",	required_argument,	NULL, 'f' },
	{ "format",	required_argument,	NULL, 'F' },
	{ "gpus",	required_argument,	NULL, 'G' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "iface",	required_argument,	NULL, 'i' },
	{ "launcher",	required_argument,	NULL, 'L' },
	{ "launcher-at", required_argument,	NULL, 'a' },
	{ "nnodes",	required_argument,	NULL, 'N' },
	{ "nproc-per-node", required_argument,	NULL, 'n' },
	{ "port",	required_argument,	NULL, 'p' },
	{ "port-range",	required_argument,	NULL, 'P' },
	{ "rdzv",	required_argument,	NULL, 'r' },
	{ "scheduler",	required_argument,	NULL, 's' },
	{ "exchange-timeout", required_argument, NULL, 'T' },
	{ "version",	no_argument,		NULL, 'V' },
	{ "wait",	required_argument,	NULL, 'W' },
	{ "exchange",	required_argument,	NULL, 'x' },
	{ "first-node",	no_argument,		NULL, 'm' },
	{ "bind",	required_argument,	NULL, 'b' },
	{ "bind-reserve", required_argument,	NULL, 'R' },
	{ "bind-nic-var", required_argument,	NULL, 'H' },
	{ "topology",	required_argument,	NULL, 'X' },
	{ "explain",	no_argument,		NULL, 'E' },
	{ "python",	no_argument,		NULL, 'y' },
	{ "local-rank-arg", no_argument,	NULL, 'l' },
	{ NULL,		0,			NULL, 0 }
};

static void
usage(FILE *f)
{
	fprintf(f,
"usage: ddprank [env]\n"
"               [--scheduler auto|slurm|hpcpack|flux|pbs|lsf|local|hostfile]\n"
"               [--hostfile FILE] [--iface REGEX] [--comm-iface REGEX]\n"
"               [--port N|auto]\n"
"               [--port-range LO-HI] [--rdzv static|c10d] [--nnodes N]\n"
"               [--exchange dir:PATH|mpi] [--exchange-timeout SECONDS]\n"
"               [--format sh|json]\n"
"       ddprank bind --explain [--bind none|numa|gpu] [--bind-reserve CPUS]\n"
"               [--nproc-per-node N] [--topology FILE]\n"
"       ddprank bind [--python] [--local-rank-arg] -- COMMAND [ARGS...]\n"
"       ddprank doctor [--scheduler S] [--hostfile FILE] [--iface REGEX]\n"
"               [--comm-iface REGEX] [--rdzv static|c10d]\n"
"               [-4|-6] [--port N|auto] [--port-range LO-HI] [--nnodes N]\n"
"               [--exchange dir:PATH] [--exchange-timeout SECONDS]\n"
"               [--launcher NAME] [--deep] [--gpus N] [--wait SECONDS]\n"
"               [--bind none|numa|gpu] [--bind-reserve CPUS]\n"
"               [--nproc-per-node N] [--topology FILE]\n"
"               [--format text|json]\n"
"       ddprank exec [--scheduler S] [--hostfile FILE] [--iface REGEX]\n"
"               [--comm-iface REGEX]\n"
"               [--port N|auto] [--port-range LO-HI] [--rdzv static|c10d]\n"
"               [--nnodes N] [--exchange dir:PATH|mpi]\n"
"               [--exchange-timeout SECONDS] [--launcher NAME]\n"
"               [--launcher-at N] [--nproc-per-node N]\n"
"               [--bind none|numa|gpu] [--bind-reserve CPUS]\n"
"               [--bind-nic-var NAME] -- COMMAND [ARGS...]\n"
"       ddprank hosts [--scheduler S] [--hostfile FILE] [HOSTLIST]\n"
"       ddprank ip --iface REGEX [-4|-6] [--first-node]\n"
"       ddprank key\n"
"       ddprank port [--port N|auto] [--port-range LO-HI]\n"
"       ddprank --help | --version\n");
}

/* Prints "ddprank: message" and returns xc. */
static int __attribute__((format(printf, 2, 3)))
report(int xc, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	util_vwarn(fmt, ap);
	va_end(ap);
	return xc;
}

/* Prints and frees cause; returns xc. */
static int
report_cause(int xc, char *cause)
{
	report(xc, "%s", cause);
	free(cause);
	return xc;
}

/* Everything printed reached standard output: XC_OK, or one line on
 * standard error and XC_FAIL (a full disk, /dev/full, a closed pipe). */
static int
flush_stdout(void)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		return report(XC_FAIL, "standard output: %s", errno != 0 ?
		    strerror(errno) : "write error");
	return XC_OK;
}

/* Prints "ddprank: message" and the usage; exits 2. */
static void __attribute__((noreturn, format(printf, 1, 2)))
misuse(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	util_vwarn(fmt, ap);
	va_end(ap);
	usage(stderr);
	exit(XC_USAGE);
}

/* At exit, after an error line: let slurmstepd (or any reader of a pipe)
 * take it before this task's exit status reaches srun, which stops
 * forwarding output once one task has failed. */
static void
drain_stderr(void)
{
	if (util_warned)
		(void)util_drain(STDERR_FILENO, DRAIN_MS);
}

/* "--iface" for 'i', "-4" for an option without a long name. */
static const char *
optname(int c)
{
	static char	s[32];
	size_t		i;

	for (i = 0; longopts[i].name != NULL; i++) {
		if (longopts[i].val == c) {
			snprintf(s, sizeof s, "--%s", longopts[i].name);
			return s;
		}
	}
	snprintf(s, sizeof s, "-%c", c);
	return s;
}

static void
parse_number(struct options *o, int c, const char *arg)
{
	long long	v;

	if (c == 'W') {
		if (util_strtonum(arg, 1, DOCTOR_WAIT_MAX, &v) == -1)
			exit(report(XC_USAGE, "--wait: '%s' is not a number "
			    "of seconds from 1 to %d", arg, DOCTOR_WAIT_MAX));
		o->doc.wait = (int)v;
		return;
	}
	if (c == 'a') {
		if (util_strtonum(arg, 0, 1024, &v) == -1)
			exit(report(XC_USAGE, "--launcher-at: '%s' is not a "
			    "number from 0 to 1024", arg));
		o->launcher_at = (int)v;
		return;
	}
	if (c == 'n') {
		if (util_strtonum(arg, 1, 1024, &v) == -1)
			exit(report(XC_USAGE, "--nproc-per-node: '%s' is not a "
			    "number from 1 to 1024", arg));
		o->nproc = o->bind.nranks = (int)v;
		return;
	}
	if (c == 'G') {
		if (util_strtonum(arg, 0, 1024, &v) == -1)
			exit(report(XC_USAGE, "--gpus: '%s' is not a number "
			    "from 0 to 1024", arg));
		o->doc.gpus = (uint64_t)v;
		return;
	}
	if (c == 'T') {
		if (util_strtonum(arg, 1, EXCHANGE_TIMEOUT_MAX, &v) == -1)
			exit(report(XC_USAGE, "--exchange-timeout: '%s' is not "
			    "a number of seconds from 1 to %d", arg,
			    EXCHANGE_TIMEOUT_MAX));
		o->xo.timeout = (int)v;
		o->timeout_set = 1;
		return;
	}
	if (util_strtonum(arg, 1, (long long)HOSTLIST_MAX_HOSTS, &v) == -1)
		exit(report(XC_USAGE, "--nnodes: '%s' is not a number from 1 "
		    "to %llu", arg, HOSTLIST_MAX_HOSTS));
	o->ro.nnodes = (uint64_t)v;
}

/* env writes sh or json, doctor text or json. */
static void
parse_format(struct options *o, const char *arg)
{
	const char	*text = o->cmd == CMD_DOCTOR ? "text" : "sh";

	if (strcmp(arg, text) != 0 && strcmp(arg, "json") != 0)
		exit(report(XC_USAGE, "--format: '%s' is not %s or json", arg,
		    text));
	o->json = strcmp(arg, "json") == 0;
}

static void
parse_value(struct options *o, int c, const char *arg)
{
	enum sched_id	 s;
	char			*cause, *names;
	int			 i, rc = 0;

	switch (c) {
	case 'x':
		rc = exchange_parse(&o->xo, arg, &cause);
		break;
	case 'a':
	case 'G':
	case 'n':
	case 'N':
	case 'T':
	case 'W':
		parse_number(o, c, arg);
		break;
	case 'p':
		rc = vocab_port_parse(arg, &o->ro.port, &cause);
		break;
	case 'P':
		rc = vocab_port_range(arg, &o->ro.lo, &o->ro.hi, &cause);
		break;
	case 's':
		if (sched_parse(arg, &s) == -1) {
			util_fail(&cause, "'%s' is not %s", arg,
			    (names = sched_names_text()));
			free(names);
			rc = -1;
			break;
		}
		o->ro.sched = s;
		break;
	case 'r':
		if ((i = vocab_word(rdzv_names, arg)) == -1)
			exit(report(XC_USAGE, "--rdzv: '%s' is not static or "
			    "c10d", arg));
		o->rdzv = (enum rdzv)i;
		break;
	case 'F':
		parse_format(o, arg);
		break;
	case 'b':
		if ((i = vocab_word(bind_names, arg)) == -1)
			exit(report(XC_USAGE, "--bind: '%s' is not none, numa "
			    "or gpu", arg));
		o->bind.policy = (enum bind_policy)i;
		o->bind_set = 1;
		break;
	case 'R':
		rc = cpuset_parse(&o->bind.reserve, arg, &cause);
		break;
	case 'H':
		if (*arg == '\0' || strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(arg) ||
		    (*arg >= '0' && *arg <= '9'))
			exit(report(XC_USAGE, "--bind-nic-var: '%s' is not a "
			    "variable name", arg));
		o->bind.nic_var = arg;
		break;
	}
	if (rc == -1) {
		report(XC_USAGE, "%s: %s", optname(c), cause);
		free(cause);
		exit(XC_USAGE);
	}
}

static void
parse_option(struct options *o, int c, const char *arg)
{
	switch (c) {
	case '4':
		o->family = AF_INET;
		break;
	case '6':
		o->family = AF_INET6;
		break;
	case 'f':
		o->ro.hostfile = arg;
		break;
	case 'i':
		o->ro.iface = arg;
		break;
	case 'C':
		o->ro.comm_iface = arg;
		break;
	case 'L':
		o->doc.launcher = launcher_doctor_program(arg);
		o->launcher = launcher_get(launcher_find(arg));
		break;
	case 'D':
		o->doc.deep = 1;
		break;
	case 'm':
		o->first_node = 1;
		break;
	case 'X':
		o->bind.topology = arg;
		break;
	case 'E':
		o->explain = 1;
		break;
	case 'y':
		o->bind.python = 1;
		break;
	case 'l':
		o->bind.local_rank_arg = 1;
		break;
	case 'h':
		usage(stdout);
		exit(flush_stdout());
	case 'V':
		printf("ddprank %s\n", DDPGEN_VERSION);
		exit(flush_stdout());
	default:
		parse_value(o, c, arg);
		break;
	}
}

static enum cmd
parse_cmd(int *argc, char ***argv)
{
	size_t	i;

	if (*argc < 2)
		return CMD_ENV;
	for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		if (strcmp((*argv)[1], cmds[i].name) == 0) {
			(*argc)--;
			(*argv)++;
			return (enum cmd)i;
		}
	}
	return CMD_ENV;
}

/* exec's launcher: torchrun unless --launcher names another row. */
static void
parse_launcher(struct options *o)
{
	const struct launcher_flag	*f;
	const char			*name = cmds[o->cmd].name;

	if (o->launcher == NULL)
		o->launcher = launcher_get(LAUNCHER_TORCHRUN);
	if (o->cmd != CMD_EXEC)
		return;
	if (!o->launcher->rdzv && o->rdzv != RDZV_STATIC)
		misuse("%s: --rdzv %s is torchrun's; --launcher %s has none",
		    name, rdzv_names[o->rdzv], o->launcher->name);
	for (f = o->launcher->flags; f->flag != NULL; f++)
		if (f->val == LAUNCHER_VAL_PROCS && o->nproc == 0)
			misuse("%s: --launcher %s needs --nproc-per-node N",
			    name, o->launcher->name);
	if (o->launcher->per_process && o->xo.method != EXCHANGE_NONE)
		misuse("%s: --launcher %s does not take --exchange", name,
		    o->launcher->name);
	o->ro.per_process = o->launcher->per_process;
	for (f = o->launcher->flags; f->flag != NULL; f++)
		if (f->val == LAUNCHER_VAL_HOSTFILE)
			o->ro.want_hosts = 1;
}

static void
parse_operands(struct options *o)
{
	const char	*name = cmds[o->cmd].name;

	if (o->cmd == CMD_EXEC && o->argc == 0)
		misuse("%s: no command given", name);
	if (o->cmd == CMD_BIND && o->explain && o->argc > 0)
		misuse("unexpected argument '%s'", o->argv[0]);
	if (o->cmd == CMD_BIND && !o->explain && o->argc == 0)
		misuse("%s: no command given (or --explain)", name);
	if (o->cmd == CMD_HOSTS && o->argc > 1)
		misuse("unexpected argument '%s'", o->argv[1]);
	if (o->cmd != CMD_EXEC && o->cmd != CMD_HOSTS && o->cmd != CMD_BIND &&
	    o->argc > 0)
		misuse("unexpected argument '%s'", o->argv[0]);
	if (o->cmd == CMD_IP && o->ro.iface == NULL)
		misuse("%s: --iface REGEX is required", name);
	if (o->timeout_set && o->xo.method == EXCHANGE_NONE)
		misuse("%s: --exchange-timeout needs --exchange", name);
	if (o->cmd == CMD_DOCTOR && o->xo.method == EXCHANGE_MPI)
		misuse("%s: --exchange mpi does not apply", name);
	if (o->xo.method == EXCHANGE_DIR && o->ro.nnodes == 0)
		misuse("%s: --exchange dir: needs --nnodes N", name);
	if (o->xo.method != EXCHANGE_NONE)
		o->ro.exchange = &o->xo;
	parse_launcher(o);
}

static void
parse_iface(struct options *o)
{
	char	*cause;

	if (o->ro.comm_iface != NULL) {
		if (rx_compile(&o->comm_rx, o->ro.comm_iface, &cause) == -1) {
			report(XC_USAGE, "--comm-iface: %s", cause);
			exit(XC_USAGE);
		}
		o->ro.comm_rx = &o->comm_rx;
	}
	if (o->ro.iface == NULL)
		return;
	if (rx_compile(&o->rx, o->ro.iface, &cause) == -1) {
		report(XC_USAGE, "--iface: %s", cause);
		exit(XC_USAGE);
	}
	o->ro.rx = &o->rx;
}

static void __attribute__((noreturn))
parse_bad(int c, char **argv)
{
	char	*msg = util_opterr(c, argv, longopts);

	util_warn("%s", msg);
	free(msg);
	usage(stderr);
	exit(XC_USAGE);
}

static void
parse_args(struct options *o, int argc, char **argv)
{
	int	c;

	o->cmd = parse_cmd(&argc, &argv);
	opterr = 0;
	while ((c = getopt_long(argc, argv, optstr, longopts, NULL)) != -1) {
		if (c == '?' || c == ':')
			parse_bad(c, argv);
		if (strchr("hV", c) == NULL && strchr(cmds[o->cmd].opts,
		    c) == NULL)
			misuse("%s: %s does not apply", cmds[o->cmd].name,
			    optname(c));
		parse_option(o, c, optarg);
	}
	o->argc = argc - optind;
	o->argv = argv + optind;
	parse_operands(o);
	parse_iface(o);
}

/* The home directory of the key file: HOME, else the password
 * database's; caller frees; NULL when neither says. */
static char *
key_home(void)
{
	const char	*s;

	if ((s = nodes_var(&nodes_env_real, "HOME")) != NULL)
		return xstrdup(s);
	return resolve_home(geteuid());
}

/* A directory exchange without a secret still runs where owners hold
 * (the exchange refuses where they do not), but never silently: its
 * names can be guessed and its files are not authenticated. Said once
 * the exchange has run, so that a failure stays one line. */
static void
warn_no_key(const struct options *o)
{
	if (!o->nokey)
		return;
	report(XC_OK, "no secret: %s is unset and there is no %s/"
	    AUTH_KEYDIR "/" AUTH_KEYFILE ", so another user can predict the "
	    "exchange directory's name and nothing in it is authenticated; "
	    "make the key with 'ddprank key' (ddprank(1), SECURITY)", AUTH_ENV,
	    o->key_home != NULL ? o->key_home : "~");
}

/* The job's secret: DDPRANK_SECRET, which the Slurm script sets and
 * srun carries to every task; else, for a directory exchange, the key
 * file under the home directory, which every node must hold alike. The
 * key file is not read otherwise: on nodes whose home directories
 * differ, the port would differ. */
static int
load_secret(struct options *o)
{
	const char	*s;
	char		*cause, *home = NULL;

	if ((s = nodes_var(&nodes_env_real, AUTH_ENV)) != NULL) {
		if (auth_parse(&o->auth, s, AUTH_ENV, &cause) == -1)
			return report_cause(XC_USAGE, cause);
	} else if (o->xo.method == EXCHANGE_DIR) {
		home = key_home();
		if (home != NULL && auth_load_file(&o->auth, home, geteuid(),
		    &cause) == -1) {
			free(home);
			return report_cause(XC_EXCHANGE, cause);
		}
		o->nokey = o->auth.len == 0;
		o->key_home = home;
	}
	o->ro.auth = &o->auth;
	o->xo.auth = &o->auth;
	return XC_OK;
}

/* Every python of the job runs the hook: like OpenSSH's StrictModes,
 * only a file and directory that no other user can write count (owned
 * by root or this user, not writable by group or others). */
static int
hook_trusted(const char *path)
{
	struct stat	st;

	return stat(path, &st) == 0 &&
	    (st.st_uid == 0 || st.st_uid == getuid()) &&
	    (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* The directory of the legacy-store hook (python/sitecustomize.py;
 * ddprank(1), LIBUV): beside this program in a build tree, else where
 * it is installed; NULL if neither has it. Caller frees. */
static char *
hook_dir(void)
{
	char	 exe[PATH_MAX], *dir, *file;
	ssize_t	 n;
	int	 i;

	for (i = 0; i < 2; i++) {
		if (i == 0) {
			if ((n = readlink("/proc/self/exe", exe,
			    sizeof exe - 1)) <= 0)
				continue;
			exe[n] = '\0';
			*strrchr(exe, '/') = '\0';
			xasprintf(&dir, "%s/python", exe);
		} else
			dir = xstrdup(DDPGEN_DATADIR "/python");
		xasprintf(&file, "%s/sitecustomize.py", dir);
		n = access(file, R_OK) == 0 && hook_trusted(file) &&
		    hook_trusted(dir);
		free(file);
		if (n)
			return dir;
		free(dir);
	}
	return NULL;
}

/* Puts the hook first on PYTHONPATH, for every python the launcher
 * starts: a torch built without libuv then gets its legacy store. */
static int
hook_setenv(void)
{
	const char	*old = getenv("PYTHONPATH");
	char		*dir, *path;
	int		 rc;

	if ((dir = hook_dir()) == NULL)
		return XC_OK;
	if (old != NULL && *old != '\0')
		xasprintf(&path, "%s:%s", dir, old);
	else
		path = xstrdup(dir);
	rc = setenv("PYTHONPATH", path, 1);
	free(path);
	free(dir);
	if (rc == -1)
		return report(XC_FAIL, "setenv PYTHONPATH: %s",
		    strerror(errno));
	return XC_OK;
}

/* rank_opts' local_addr_ok for exec: the launcher's torch is 2.3 or
 * later. Asked only when the host name would not do, so that other
 * jobs start no python for it. */
static int
local_addr_ok(void *arg, char **why)
{
	const struct options	*o = arg;

	return doctor_torch_local_addr(o->argv[o->launcher_at],
	    &doctor_sys_real, why);
}

/* Fills r (free it with rank_free whatever this returns). */
static int
cmd_rank(struct options *o, struct rank *r, int exec)
{
	char		*cause;
	int		 xc;

	memset(r, 0, sizeof *r);
	o->ro.check_port = 1;
	/* env takes --rdzv and ignores it: it starts no torchrun. */
	o->ro.rdzv = exec ? o->rdzv : RDZV_STATIC;
	if (exec && o->argc > o->launcher_at) {
		o->ro.local_addr_ok = local_addr_ok;
		o->ro.local_addr_arg = o;
	}
	if ((xc = load_secret(o)) != XC_OK)
		return xc;
	xc = rank_compute(r, &o->ro, &nodes_env_real, &netif_sys_real,
	    &cause);
	if (r->warning != NULL)
		report(XC_OK, "warning: %s", r->warning);
	if (r->note != NULL)
		report(XC_OK, "%s", r->note);
	if (xc != XC_OK)
		return report_cause(xc, cause);
	warn_no_key(o);
	return XC_OK;
}


static int
cmd_env(struct options *o)
{
	struct rank_vars	vs;
	struct rank		r;
	struct buf		b;
	int			xc;

	xc = cmd_rank(o, &r, 0);
	if (xc == XC_OK)
		rank_vars(&vs, &r, 0, o->rdzv);
	rank_free(&r);
	if (xc != XC_OK)
		return xc;
	buf_init(&b);
	if (o->json)
		rank_format_json(&b, &vs);
	else
		rank_format_sh(&b, &vs);
	fwrite(b.s, 1, b.len, stdout);
	buf_free(&b);
	rank_vars_free(&vs);
	return flush_stdout();
}

static const char *
env_get(const char *name)
{
	return getenv(name);
}

/* What the training learns of the runs before it; the launcher starts
 * with the checkpoint signal ignored, so that the signal, sent to every
 * process of the step, stops the workers (which install a handler) and
 * not the agent. */
static int
restart_setenv(int *signo)
{
	struct restart	 r;
	char		 num[32], *cause;

	if (restart_read(&r, env_get, &cause) == -1)
		return report_cause(XC_USAGE, cause);
	snprintf(num, sizeof num, "%lld", r.count);
	if (setenv("DDPGEN_RESTART_COUNT", num, 1) == -1 ||
	    setenv("DDPGEN_LAST_STOP", r.last_stop, 1) == -1)
		return report(XC_FAIL, "setenv: %s", strerror(errno));
	if (r.signo != 0 && signal(r.signo, SIG_IGN) == SIG_ERR)
		return report(XC_FAIL, "signal: %s", strerror(errno));
	*signo = r.signo;
	return XC_OK;
}

static double
now_seconds(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits up to ms for the launcher to end. */
static int
launcher_gone(const struct watch *w, int ms)
{
	struct timespec	tick = { 0, WATCH_TICK_MS * 1000000L };

	for (; ms > 0; ms -= WATCH_TICK_MS) {
		if (!watch_alive(w))
			return 1;
		nanosleep(&tick, NULL);
	}
	return !watch_alive(w);
}

static volatile sig_atomic_t	watch_signalled;

static void
watch_note_signal(int signo)
{
	(void)signo;
	watch_signalled = 1;
}

/* The checkpoint signal came to the launcher's process group: on to
 * the workers outside it (watch_outside), once each. */
static void
watch_forward(const struct watch *w, int signo)
{
	pid_t	pids[WATCH_MAX];
	size_t	i, n;

	watch_signalled = 0;
	n = watch_outside(w, getpgrp(), pids, WATCH_MAX);
	for (i = 0; i < n; i++)
		(void)kill(pids[i], signo);
}

/* The watcher's life (watch.h): it ends with the launcher, or ends it
 * after saying why, and passes the checkpoint signal (forward, or 0)
 * on; it never returns. */
static void __attribute__((noreturn))
watch_child(struct watch *w, int forward)
{
	struct sigaction	sa;
	char			node[256], *msg;

	(void)freopen("/dev/null", "r", stdin);
	(void)freopen("/dev/null", "w", stdout);
	if (gethostname(node, sizeof node) == -1)
		snprintf(node, sizeof node, "this node");
	node[sizeof node - 1] = '\0';
	w->self = getpid();
	if (forward != 0) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = watch_note_signal;
		sigemptyset(&sa.sa_mask);
		(void)sigaction(forward, &sa, NULL);
	}
	while (!launcher_gone(w, WATCH_TICK_MS)) {
		if (watch_signalled)
			watch_forward(w, forward);
		if (!w->is_torchrun || watch_tick(w, now_seconds()) !=
		    WATCH_END)
			continue;
		msg = watch_message(w, node);
		util_warn("%s", msg);
		free(msg);
		(void)util_drain(STDERR_FILENO, DRAIN_MS);
		(void)kill(w->launcher, SIGTERM);
		if (!launcher_gone(w, WATCH_KILL_WAIT * 1000))
			(void)kill(w->launcher, SIGKILL);
		break;
	}
	_exit(0);
}

/* Forks the watcher, a grandchild that init (or the step's subreaper)
 * adopts: not torchrun's child, so that no wait(2) of torchrun's, or
 * of a wrapper script's "wait", waits for it. The launcher keeps this
 * process's id, signals, exit status and argv as without a watcher.
 * It watches torchrun, and any launcher's workers where the scheduler
 * signals process groups and the job has a checkpoint signal. */
static void
watch_start(struct options *o, char **argv, int signo)
{
	static struct watch	w;
	pid_t			pid;
	int			forward;

	forward = signo != 0 && sched_get(nodes_sched_resolve(&nodes_env_real,
	    o->ro.sched, o->ro.hostfile))->signals_group ? signo : 0;
	if (!watch_is_torchrun((const char *const *)argv) && forward == 0)
		return;
	watch_init(&w, "/proc", getpid(), 0, (const char *const *)argv);
	switch ((pid = fork())) {
	case -1:
		report(XC_OK, "warning: fork: %s: a worker that fails may "
		    "hold torchrun for its exit barrier", strerror(errno));
		return;
	case 0:
		if (fork() == 0)
			watch_child(&w, forward);
		_exit(0);
	default:
		(void)waitpid(pid, NULL, 0);
	}
}

/* DeepSpeed's hostfile, "HOST slots=1" a node, in an anonymous file
 * the command inherits: path is its /dev/fd name. No shared directory
 * is written, so no other user can plant or race one. */
static int
exec_hostfile(const struct rank *r, char *path, size_t len)
{
	struct buf	 b;
	uint64_t	 i;
	int		 fd, bad;
	ssize_t		 n;

	if ((fd = memfd_create("ddprank-hostfile", 0)) == -1)
		return report(XC_FAIL, "hostfile: memfd_create: %s",
		    strerror(errno));
	buf_init(&b);
	for (i = 0; i < r->nnodes; i++) {
		if (r->hosts.n == r->nnodes)
			buf_addf(&b, "%s slots=1\n", r->hosts.v[i]);
		else
			buf_addf(&b, "node%llu slots=1\n",
			    (unsigned long long)i);
	}
	n = write(fd, b.s, b.len);
	bad = n == -1 || (size_t)n != b.len;
	buf_free(&b);
	if (bad)
		return report(XC_FAIL, "hostfile: write: %s", n == -1 ?
		    strerror(errno) : "short write");
	snprintf(path, len, "/dev/fd/%d", fd);
	return XC_OK;
}

/* The command with the launcher's run-time flags (deepspeed's and
 * accelerate's; none for torchrun and srun). */
static int
exec_argv(struct options *o, const struct rank *r, struct strlist *argv)
{
	struct launcher_run	 run;
	char			 path[64], *cause;
	int			 xc;

	memset(&run, 0, sizeof run);
	run.node_rank = r->node_rank;
	run.nnodes = r->nnodes;
	run.nproc = (unsigned long long)o->nproc;
	run.addr = r->master_addr;
	run.port = r->master_port;
	run.hostfile = path;
	if (o->ro.want_hosts &&
	    (xc = exec_hostfile(r, path, sizeof path)) != XC_OK)
		return xc;
	if (launcher_argv(argv, o->launcher, o->argv, (size_t)o->argc,
	    (size_t)o->launcher_at, &run, &cause) == -1)
		return report_cause(XC_USAGE, cause);
	return XC_OK;
}

/* The launch timeline's marks (rank_opts' mark). */
static void
exec_mark(void *arg, enum rank_mark m)
{
	timeline_mark(arg, m == RANK_MARK_RANK ? TL_RANK : TL_EXCHANGE);
}

/* What the timeline's reporter needs of r; a task other than its node's
 * first (srun-direct) has none. */
static void
exec_timeline(struct options *o, const struct rank *r)
{
	struct tl_run	*t = &o->tlr;

	o->tl.rank = r->node_rank;
	o->tl.host = xstrdup(r->host != NULL ? r->host : "?");
	t->per_process = o->ro.per_process;
	if (r->local_rank != 0)
		t->wait = 0;
	t->nnodes = r->nnodes;
	t->addr = xstrdup(r->master_addr);
	t->port = r->master_port;
	t->lo = o->ro.lo;
	t->hi = o->ro.hi;
	t->auth = &o->auth;
	t->env = &nodes_env_real;
	t->sched = o->ro.sched;
	t->hostfile = o->ro.hostfile;
	t->dir = o->xo.method == EXCHANGE_DIR ? o->xo.dir : NULL;
	t->job_start = timeline_job_start(env_get);
}

/* The launcher's variables and command: torchrun's PET_*, a worker's
 * RANK and the rest (srun-direct), or flags. */
static int
exec_prepare(struct options *o, struct rank_vars *vs, struct strlist *argv,
    int *duplicate)
{
	struct rank	r;
	int		xc, pet = o->launcher->vars == LAUNCHER_VARS_PET;

	vs->n = 0;
	if ((xc = cmd_rank(o, &r, pet)) == XC_OK) {
		*duplicate = r.duplicate;
		exec_timeline(o, &r);
		rank_vars(vs, &r, pet, o->rdzv);
		if (o->launcher->vars == LAUNCHER_VARS_WORKER)
			rank_vars_worker(vs, &r);
		if (!r.duplicate)
			xc = exec_argv(o, &r, argv);
	}
	rank_free(&r);
	return xc;
}

/* The binding (bindrun.c): after the worker's variables, LOCAL_RANK
 * among them, are set. */
static int
exec_bind(struct options *o)
{
	char	*warning = NULL, *cause = NULL;
	int	 xc;

	xc = bindrun_exec(&o->bind, o->launcher->per_process, &warning,
	    &cause);
	if (warning != NULL)
		report(XC_OK, "warning: %s", warning);
	free(warning);
	return xc == XC_OK ? xc : report_cause(xc, cause);
}

static int
cmd_exec(struct options *o)
{
	struct rank_vars	vs;
	struct strlist		argv;
	size_t			i;
	char			*cause;
	int			xc, saved, duplicate = 0, signo = 0;

	timeline_begin(&o->tl);
	if (timeline_wait(env_get(TL_WAIT_ENV), &o->tlr.wait, &cause) == -1)
		return report_cause(XC_USAGE, cause);
	o->ro.mark = exec_mark;
	o->ro.mark_arg = &o->tl;
	strlist_init(&argv);
	if ((xc = exec_prepare(o, &vs, &argv, &duplicate)) != XC_OK ||
	    duplicate) {
		rank_vars_free(&vs);
		strlist_free(&argv);
		/* One torchrun per node, however many MPI processes. */
		return duplicate ? report(XC_OK, "a lower MPI rank on this "
		    "node (same address) runs the command; this process "
		    "exits") : xc;
	}
	for (i = 0; i < vs.n && xc == XC_OK; i++) {
		if (setenv(vs.v[i].name, vs.v[i].value, 1) == -1)
			xc = report(XC_FAIL, "setenv %s: %s", vs.v[i].name,
			    strerror(errno));
	}
	rank_vars_free(&vs);
	if (xc == XC_OK)
		xc = exec_bind(o);
	if (xc == XC_OK && (xc = restart_setenv(&signo)) == XC_OK &&
	    (xc = hook_setenv()) == XC_OK) {
		/* The command has no use for the secret: one copy fewer to
		 * leak. */
		(void)unsetenv(AUTH_ENV);
		if (timeline_launch(&o->tl, &o->tlr, &cause) == -1)
			report_cause(XC_OK, cause);
		watch_start(o, argv.v, signo);
		execvp(argv.v[0], argv.v);
		saved = errno;
		xc = saved == ENOENT || saved == ENOTDIR ? XC_NOTFOUND :
		    XC_NOEXEC;
		report(xc, "cannot execute '%s': %s", argv.v[0],
		    strerror(saved));
	}
	strlist_free(&argv);
	return xc;
}

/* bind --explain prints the plan; bind -- COMMAND is a worker's binding
 * step, which runs COMMAND once bound. */
static int
cmd_bind(struct options *o)
{
	struct strlist	 argv;
	struct buf	 b;
	char		*warning = NULL, *cause = NULL;
	int		 xc, saved;

	if (o->explain) {
		if (o->bind.policy == BIND_NONE && !o->bind_set)
			o->bind.policy = BIND_GPU;
		buf_init(&b);
		if ((xc = bindrun_explain(&o->bind, &b, &cause)) == XC_OK)
			fwrite(b.s, 1, b.len, stdout);
		buf_free(&b);
		return xc == XC_OK ? flush_stdout() : report_cause(xc, cause);
	}
	strlist_init(&argv);
	xc = bindrun_worker(&o->bind, o->argv, o->argc, &argv, &warning,
	    &cause);
	if (warning != NULL)
		report(XC_OK, "warning: %s", warning);
	free(warning);
	if (xc != XC_OK) {
		strlist_free(&argv);
		return report_cause(xc, cause);
	}
	execvp(argv.v[0], argv.v);
	saved = errno;
	xc = saved == ENOENT || saved == ENOTDIR ? XC_NOTFOUND : XC_NOEXEC;
	report(xc, "cannot execute '%s': %s", argv.v[0], strerror(saved));
	strlist_free(&argv);
	return xc;
}

/* Node 0 prints the report; another node only when its findings did
 * not reach node 0. */
static int
cmd_doctor(struct options *o)
{
	struct doctor_report	r;
	struct buf		b;
	int			sent, xc;

	/* The port, as exec will derive it, may depend on the secret. */
	if ((xc = load_secret(o)) != XC_OK)
		return xc;
	/* What exec would refuse, the doctor checks itself: its own
	 * rank_compute takes neither. */
	o->doc.comm_rx = o->ro.comm_rx;
	o->doc.comm_iface = o->ro.comm_iface;
	o->doc.c10d = o->rdzv == RDZV_C10D;
	o->ro.comm_rx = NULL;
	o->doc.ro = &o->ro;
	o->doc.family = o->family;
	o->doc.bind = &o->bind;
	if (o->xo.method == EXCHANGE_DIR)
		o->doc.shared = o->xo.dir;
	doctor_run(&r, &sent, &o->doc, &doctor_sys_real);
	warn_no_key(o);
	if (sent)
		return XC_OK;
	buf_init(&b);
	r.exclude_opt = sched_get(nodes_sched_resolve(&nodes_env_real,
	    o->ro.sched, o->ro.hostfile))->exclude_opt;
	if (o->json)
		doctor_format_json(&b, &r);
	else
		doctor_format_text(&b, &r);
	fwrite(b.s, 1, b.len, stdout);
	buf_free(&b);
	xc = doctor_failed(&r) ? XC_DOCTOR : XC_OK;
	doctor_report_free(&r);
	if (flush_stdout() != XC_OK)
		return XC_FAIL;
	/* srun stops forwarding output once a task fails: let it go. */
	if (xc != XC_OK)
		(void)util_drain(STDOUT_FILENO, DRAIN_MS);
	return xc;
}

static int
print_hosts(const struct hostlist *hl)
{
	char		name[HOSTLIST_NAME_MAX + 1];
	uint64_t	i, n = hostlist_count(hl);

	for (i = 0; i < n && !ferror(stdout); i++) {
		if (hostlist_nth(hl, i, name, sizeof name) == -1)
			return report(XC_NODES, "host %llu: name too long",
			    (unsigned long long)i);
		puts(name);
	}
	return flush_stdout();
}

static int
cmd_hosts(struct options *o)
{
	struct hostlist	*hl;
	struct nodes	 n;
	char		*cause;
	int		 xc;

	/* A malformed operand is a bad operand, as for every subcommand;
	 * a malformed list from the environment is a node list error. */
	if (o->argc == 1) {
		if ((hl = hostlist_parse(o->argv[0], &cause)) == NULL)
			return report_cause(XC_USAGE, cause);
		xc = print_hosts(hl);
		hostlist_free(hl);
		return xc;
	}
	if (nodes_load(&n, &nodes_env_real, o->ro.sched, o->ro.hostfile,
	    &cause) == -1)
		return report_cause(XC_NODES, cause);
	xc = print_hosts(n.list);
	nodes_free(&n);
	return xc;
}

static int
cmd_ip(struct options *o)
{
	char	*addr, *cause;
	int	 xc;

	if (o->first_node && (xc = rank_first_node(&o->ro, &nodes_env_real,
	    &netif_sys_real, &cause)) != XC_OK)
		return report_cause(xc, cause);
	xc = rank_ip(&addr, &o->ro, o->family, &netif_sys_real, &cause);
	if (xc != XC_OK)
		return report_cause(xc, cause);
	printf("%s\n", addr);
	free(addr);
	return flush_stdout();
}

/* Makes the key file if there is none, and checks it either way: the
 * path on standard output. */
static int
cmd_key(void)
{
	char	*home, *cause;
	int	 made;

	if ((home = key_home()) == NULL)
		return report(XC_FAIL, "key: no home directory (HOME is "
		    "unset, and the password database has none)");
	if (auth_make_file(home, geteuid(), &made, &cause) == -1) {
		free(home);
		return report_cause(XC_EXCHANGE, cause);
	}
	printf("%s/" AUTH_KEYDIR "/" AUTH_KEYFILE "\n", home);
	free(home);
	return flush_stdout();
}

static int
cmd_port(struct options *o)
{
	char	*cause;
	int	 port, xc;

	if ((xc = load_secret(o)) != XC_OK)
		return xc;
	if ((xc = rank_port(&port, &o->ro, &nodes_env_real, &cause)) != XC_OK)
		return report_cause(xc, cause);
	printf("%d\n", port);
	return flush_stdout();
}

int
main(int argc, char **argv)
{
	struct options	o;
	int		xc = XC_FAIL;

	util_progname = "ddprank";
	(void)atexit(drain_stderr);
	memset(&o, 0, sizeof o);
	o.family = AF_UNSPEC;
	o.ro.lo = PORT_LO_DEFAULT;
	o.ro.hi = PORT_HI_DEFAULT;
	o.xo.timeout = EXCHANGE_TIMEOUT_DEFAULT;
	o.doc.wait = DOCTOR_WAIT_DEFAULT;
	parse_args(&o, argc, argv);
	switch (o.cmd) {
	case CMD_BIND:
		xc = cmd_bind(&o);
		break;
	case CMD_DOCTOR:
		xc = cmd_doctor(&o);
		break;
	case CMD_ENV:
		xc = cmd_env(&o);
		break;
	case CMD_EXEC:
		xc = cmd_exec(&o);
		break;
	case CMD_HOSTS:
		xc = cmd_hosts(&o);
		break;
	case CMD_IP:
		xc = cmd_ip(&o);
		break;
	case CMD_KEY:
		xc = cmd_key();
		break;
	case CMD_PORT:
		xc = cmd_port(&o);
		break;
	}
	if (o.ro.rx != NULL)
		rx_free(&o.rx);
	if (o.ro.comm_rx != NULL || o.doc.comm_rx != NULL)
		rx_free(&o.comm_rx);
	exchange_opts_free(&o.xo);
	timeline_node_free(&o.tl);
	free((char *)o.tlr.addr);
	free(o.key_home);
	explicit_bzero(&o.auth, sizeof o.auth);
	return xc;
}
