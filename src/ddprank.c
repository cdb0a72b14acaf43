/* ddprank.c: ddprank's options and subcommands, dispatched by the rows of
 * cmds[]; the work is in rank.c, and exec's around it in rank-exec.c. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <stddef.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "badnodes.h"
#include "bindrun.h"
#include "cpuset.h"
#include "doctor.h"
#include "exchange.h"
#include "exitcode.h"
#include "fault.h"
#include "hang.h"
#include "hostlist.h"
#include "launcher.h"
#include "netif.h"
#include "nodes.h"
#include "port.h"
#include "rank.h"
#include "rank-exec.h"
#include "resolve.h"
#include "rx.h"
#include "util.h"
#include "verdict.h"
#include "xmalloc.h"

/* In the order of cmds[]. */
enum cmd {
	CMD_ENV,
	CMD_BIND,
	CMD_DOCTOR,
	CMD_EXEC,
	CMD_HOSTS,
	CMD_IP,
	CMD_KEY,
	CMD_PORT,
	CMD_VERDICT
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
	/* exec: the launcher (--launcher), its processes per node, its
	 * timeline (rank-exec.c). */
	struct rank_exec	 ex;
	int			 first_node;	/* ip --first-node */
	struct bindrun_opts	 bind;		/* --bind and its options */
	int			 explain;	/* bind --explain */
	int			 bind_set;	/* --bind given */
	/* doctor --record and --hang-dir; verdict's options. */
	int			 record;
	struct verdict_opts	 vo;
	int			 argc;	/* operands */
	char			**argv;
};

static enum fault	cmd_bind(struct options *);
static enum fault	cmd_doctor(struct options *);
static enum fault	cmd_env(struct options *);
static enum fault	cmd_exec(struct options *);
static enum fault	cmd_hosts(struct options *);
static enum fault	cmd_ip(struct options *);
static enum fault	cmd_key(struct options *);
static enum fault	cmd_port(struct options *);
static enum fault	cmd_verdict(struct options *);

/* Each subcommand (tmux's cmd_entry is the model): its name, the short
 * options it takes, what runs it, and its usage: the forms, one a line
 * after "ddprank ", a line that starts with a tab continuing the form
 * above it. ddprank with no subcommand is env, the first row. */
static const struct cmd_entry {
	const char	*name;
	const char	*opts;
	enum fault	(*exec)(struct options *);
	const char	*usage;
} cmds[] = {
	{ "env", "sfiCpPrFxTN", cmd_env,
	  "[env]\n"
	  "\t[--scheduler auto|slurm|hpcpack|flux|pbs|lsf|local|hostfile]\n"
	  "\t[--hostfile FILE] [--iface REGEX] [--comm-iface REGEX]\n"
	  "\t[--port N|auto]\n"
	  "\t[--port-range LO-HI] [--rdzv static|c10d] [--nnodes N]\n"
	  "\t[--exchange dir:PATH|mpi] [--exchange-timeout SECONDS]\n"
	  "\t[--format sh|json]" },
	{ "bind", "bRXEnyl", cmd_bind,
	  "bind --explain [--bind none|numa|gpu] [--bind-reserve CPUS]\n"
	  "\t[--nproc-per-node N] [--topology FILE]\n"
	  "bind [--python] [--local-rank-arg] -- COMMAND [ARGS...]" },
	{ "doctor", "sfiCpPrNxT46FGLWDbRXncd", cmd_doctor,
	  "doctor [--scheduler S] [--hostfile FILE] [--iface REGEX]\n"
	  "\t[--comm-iface REGEX] [--rdzv static|c10d]\n"
	  "\t[-4|-6] [--port N|auto] [--port-range LO-HI] [--nnodes N]\n"
	  "\t[--exchange dir:PATH] [--exchange-timeout SECONDS]\n"
	  "\t[--launcher NAME] [--deep] [--gpus N] [--wait SECONDS]\n"
	  "\t[--bind none|numa|gpu] [--bind-reserve CPUS]\n"
	  "\t[--nproc-per-node N] [--topology FILE]\n"
	  "\t[--format text|json] [--record] [--hang-dir DIR]" },
	{ "exec", "sfiCpPrxTNLnabRHkd", cmd_exec,
	  "exec [--scheduler S] [--hostfile FILE] [--iface REGEX]\n"
	  "\t[--comm-iface REGEX]\n"
	  "\t[--port N|auto] [--port-range LO-HI] [--rdzv static|c10d]\n"
	  "\t[--nnodes N] [--exchange dir:PATH|mpi]\n"
	  "\t[--exchange-timeout SECONDS] [--launcher NAME]\n"
	  "\t[--launcher-at N] [--nproc-per-node N]\n"
	  "\t[--bind none|numa|gpu] [--bind-reserve CPUS]\n"
	  "\t[--bind-nic-var NAME] [--hang-timeout SECONDS] [--hang-dir DIR]\n"
	  "\t-- COMMAND [ARGS...]" },
	{ "hosts", "sf", cmd_hosts,
	  "hosts [--scheduler S] [--hostfile FILE] [HOSTLIST]" },
	{ "ip", "i46m", cmd_ip,
	  "ip --iface REGEX [-4|-6] [--first-node]" },
	{ "key", "", cmd_key,
	  "key" },
	{ "port", "pP", cmd_port,
	  "port [--port N|auto] [--port-range LO-HI]" },
	{ "verdict", "sfdMS", cmd_verdict,
	  "verdict [--scheduler S] [--hostfile FILE] [--hang-dir DIR]\n"
	  "\t[--site NAME --remember SECONDS]" }
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
	{ "hang-timeout", required_argument,	NULL, 'k' },
	{ "hang-dir",	required_argument,	NULL, 'd' },
	{ "record",	no_argument,		NULL, 'c' },
	{ "remember",	required_argument,	NULL, 'M' },
	{ "site",	required_argument,	NULL, 'S' },
	{ NULL,		0,			NULL, 0 }
};

/* The forms of cmds[], then --help and --version; in one write, as the
 * usage follows a message on standard error. */
static void
usage(FILE *f)
{
	struct buf	 b;
	const char	*lead = "usage: ", *p, *end;
	size_t		 i;

	buf_init(&b);
	for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		for (p = cmds[i].usage; *p != '\0'; p = end + (*end != '\0')) {
			end = p + strcspn(p, "\n");
			if (*p == '\t')
				buf_addf(&b, "%15s%.*s\n", "",
				    (int)(end - p - 1), p + 1);
			else
				buf_addf(&b, "%sddprank %.*s\n", lead,
				    (int)(end - p), p);
			lead = "       ";
		}
	}
	buf_adds(&b, "       ddprank --help | --version\n");
	fwrite(b.s, 1, b.len, f);
	buf_free(&b);
}

/* The exit status of each fault, the one place where ddprank turns
 * what a lower layer returned into its status: ddprank(1), EXIT STATUS.
 * Its own usage errors exit XC_USAGE directly. */
static const int exit_of[] = {
	[FAULT_NONE] = XC_OK,
	[FAULT_USAGE] = XC_USAGE,
	[FAULT_SYS] = XC_FAIL,
	[FAULT_NODES] = XC_NODES,
	[FAULT_CONFIG] = XC_CONFIG,
	[FAULT_PORT] = XC_PORT,
	[FAULT_IFACE] = XC_IFACE,
	[FAULT_CHECK] = XC_DOCTOR,
	[FAULT_EXCHANGE] = XC_EXCHANGE,
	[FAULT_NOEXEC] = XC_NOEXEC,
	[FAULT_BIND] = XC_BIND,
	[FAULT_NOTFOUND] = XC_NOTFOUND
};
_Static_assert(sizeof exit_of / sizeof exit_of[0] == FAULT_NOTFOUND + 1,
    "exit_of has a status for every fault");

/* Everything printed reached standard output: FAULT_NONE, or one line on
 * standard error and FAULT_SYS (a full disk, /dev/full, a closed pipe). */
static enum fault
flush_stdout(void)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		return util_report(FAULT_SYS, "standard output: %s",
		    errno != 0 ? strerror(errno) : "write error");
	return FAULT_NONE;
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
		(void)util_drain(STDERR_FILENO, UTIL_DRAIN_MS);
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

/* The numeric options: the field each sets (an int, or a uint64_t),
 * its bounds, and what the message calls it. */
static const struct numopt {
	int		 c;
	size_t		 off;		/* in struct options */
	int		 u64;		/* the field is a uint64_t (1),
					   a long (2), else an int */
	long long	 min, max;
	const char	*what;
} numopts[] = {
	{ 'a', offsetof(struct options, ex.launcher_at), 0, 0, 1024,
	  "number" },
	{ 'G', offsetof(struct options, doc.gpus), 1, 0, 1024, "number" },
	{ 'n', offsetof(struct options, ex.nproc), 0, 1, 1024, "number" },
	{ 'N', offsetof(struct options, ro.nnodes), 1, 1,
	  (long long)HOSTLIST_MAX_HOSTS, "number" },
	{ 'T', offsetof(struct options, xo.timeout), 0, 1,
	  EXCHANGE_TIMEOUT_MAX, "number of seconds" },
	{ 'W', offsetof(struct options, doc.wait), 0, 1, DOCTOR_WAIT_MAX,
	  "number of seconds" },
	{ 'k', offsetof(struct options, ex.hw.timeout), 0, 1,
	  HANG_TIMEOUT_MAX, "number of seconds" },
	{ 'M', offsetof(struct options, vo.remember), 2, 1,
	  BADNODES_HOURS_MAX * 3600LL, "number of seconds" }
};

/* Sets c's field of numopts[] from arg; 0 if c is not a numeric
 * option. */
static int
parse_number(struct options *o, int c, const char *arg)
{
	const struct numopt	*n;
	long long		 v;
	char			*field;

	for (n = numopts; n < numopts + sizeof numopts / sizeof numopts[0];
	    n++) {
		if (n->c != c)
			continue;
		if (util_strtonum(arg, n->min, n->max, &v) == -1)
			exit(util_report(XC_USAGE, "%s: '%s' is not a %s from "
			    "%lld to %lld", optname(c), arg, n->what, n->min,
			    n->max));
		field = (char *)o + n->off;
		if (n->u64 == 1)
			*(uint64_t *)(void *)field = (uint64_t)v;
		else if (n->u64 == 2)
			*(long *)(void *)field = (long)v;
		else
			*(int *)(void *)field = (int)v;
		return 1;
	}
	return 0;
}

/* An option's value that is none of its words: usage, with the words
 * from the option's own vocabulary. */
static void __attribute__((noreturn))
not_a_word(const char *opt, const char *arg, const char *const *words)
{
	char	*w = words_join(words, " or ");

	exit(util_report(XC_USAGE, "%s: '%s' is not %s", opt, arg, w));
}

/* env writes sh or json, doctor text or json. */
static void
parse_format(struct options *o, const char *arg)
{
	const char	*text = o->cmd == CMD_DOCTOR ? "text" : "sh";

	if (strcmp(arg, text) != 0 && strcmp(arg, "json") != 0)
		exit(util_report(XC_USAGE, "--format: '%s' is not %s or json",
		    arg, text));
	o->json = strcmp(arg, "json") == 0;
}

static void
parse_value(struct options *o, int c, const char *arg)
{
	enum sched_id	 s;
	char			*cause, *names;
	int			 i, rc = 0;

	o->timeout_set |= c == 'T';
	if (parse_number(o, c, arg))
		return;
	switch (c) {
	case 'x':
		rc = exchange_parse(&o->xo, arg, exchange_have_mpi(), &cause);
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
			not_a_word("--rdzv", arg, rdzv_names);
		o->rdzv = (enum rdzv)i;
		break;
	case 'F':
		parse_format(o, arg);
		break;
	case 'b':
		if ((i = vocab_word(bind_names, arg)) == -1)
			not_a_word("--bind", arg, bind_names);
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
			exit(util_report(XC_USAGE, "--bind-nic-var: '%s' is "
			    "not a variable name", arg));
		o->bind.nic_var = arg;
		break;
	}
	if (rc == -1) {
		util_report(XC_USAGE, "%s: %s", optname(c), cause);
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
		o->ex.launcher = launcher_get(launcher_find(arg));
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
	case 'c':
		o->record = 1;
		break;
	case 'd':
		if (arg[0] != '/')
			exit(util_report(XC_USAGE, "--hang-dir: '%s' is not an "
			    "absolute path", arg));
		o->ex.hw.base = o->vo.base = arg;
		break;
	case 'S':
		if (*arg == '\0' || strpbrk(arg, " \t\n/") != NULL ||
		    util_has_cntrl(arg))
			exit(util_report(XC_USAGE, "--site: '%s' is not a "
			    "site's name", arg));
		o->vo.site = arg;
		break;
	case 'h':
		usage(stdout);
		exit(exit_of[flush_stdout()]);
	case 'V':
		printf("ddprank %s\n", DDPGEN_VERSION);
		exit(exit_of[flush_stdout()]);
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

	if (o->ex.launcher == NULL)
		o->ex.launcher = launcher_get(LAUNCHER_TORCHRUN);
	if (o->cmd != CMD_EXEC)
		return;
	if (!o->ex.launcher->rdzv && o->rdzv != RDZV_STATIC)
		misuse("%s: --rdzv %s is torchrun's; --launcher %s has none",
		    name, rdzv_names[o->rdzv], o->ex.launcher->name);
	for (f = o->ex.launcher->flags; f->flag != NULL; f++)
		if (f->val == LAUNCHER_VAL_PROCS && o->ex.nproc == 0)
			misuse("%s: --launcher %s needs --nproc-per-node N",
			    name, o->ex.launcher->name);
	if (o->ex.launcher->per_process && o->xo.method != EXCHANGE_NONE)
		misuse("%s: --launcher %s does not take --exchange", name,
		    o->ex.launcher->name);
	o->ro.per_process = o->ex.launcher->per_process;
	for (f = o->ex.launcher->flags; f->flag != NULL; f++)
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
	if ((o->vo.remember > 0) != (o->vo.site != NULL))
		misuse("%s: --remember and --site go together", name);
	if (o->ex.hw.base != NULL && o->cmd == CMD_EXEC &&
	    o->ex.hw.timeout == 0)
		misuse("%s: --hang-dir needs --hang-timeout", name);
	if (o->ex.hw.base != NULL && o->cmd == CMD_DOCTOR && !o->record)
		misuse("%s: --hang-dir needs --record", name);
	parse_launcher(o);
}

static void
parse_iface(struct options *o)
{
	char	*cause;

	if (o->ro.comm_iface != NULL) {
		if (rx_compile(&o->comm_rx, o->ro.comm_iface, &cause) == -1) {
			util_report(XC_USAGE, "--comm-iface: %s", cause);
			exit(XC_USAGE);
		}
		o->ro.comm_rx = &o->comm_rx;
	}
	if (o->ro.iface == NULL)
		return;
	if (rx_compile(&o->rx, o->ro.iface, &cause) == -1) {
		util_report(XC_USAGE, "--iface: %s", cause);
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
	o->bind.nranks = o->ex.nproc;
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
	util_report(FAULT_NONE, "no secret: %s is unset and there is no %s/"
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
static enum fault
load_secret(struct options *o)
{
	const char	*s;
	char		*cause, *home = NULL;

	if ((s = nodes_var(&nodes_env_real, AUTH_ENV)) != NULL) {
		if (auth_parse(&o->auth, s, AUTH_ENV, &cause) == -1)
			return util_report_cause(FAULT_USAGE, cause);
	} else if (o->xo.method == EXCHANGE_DIR) {
		home = key_home();
		if (home != NULL && auth_load_file(&o->auth, home, geteuid(),
		    &cause) == -1) {
			free(home);
			return util_report_cause(FAULT_EXCHANGE, cause);
		}
		o->nokey = o->auth.len == 0;
		o->key_home = home;
	}
	o->ro.auth = &o->auth;
	o->xo.auth = &o->auth;
	return FAULT_NONE;
}

/* rank_opts' local_addr_ok for exec: the launcher's torch is 2.3 or
 * later. Asked only when the host name would not do, so that other
 * jobs start no python for it. */
static int
local_addr_ok(void *arg, char **why)
{
	const struct options	*o = arg;

	return doctor_torch_local_addr(o->argv[o->ex.launcher_at],
	    &doctor_sys_real, why);
}

/* Fills r (free it with rank_free whatever this returns). */
static enum fault
cmd_rank(struct options *o, struct rank *r, int exec)
{
	char		*cause;
	enum fault	 xc;

	memset(r, 0, sizeof *r);
	o->ro.check_port = 1;
	/* env takes --rdzv and ignores it: it starts no torchrun. */
	o->ro.rdzv = exec ? o->rdzv : RDZV_STATIC;
	if (exec && o->argc > o->ex.launcher_at) {
		o->ro.local_addr_ok = local_addr_ok;
		o->ro.local_addr_arg = o;
	}
	if ((xc = load_secret(o)) != FAULT_NONE)
		return xc;
	xc = rank_compute(r, &o->ro, &nodes_env_real, &netif_sys_real,
	    &cause);
	if (r->warning != NULL)
		util_report(FAULT_NONE, "warning: %s", r->warning);
	if (r->note != NULL)
		util_report(FAULT_NONE, "%s", r->note);
	if (xc != FAULT_NONE)
		return util_report_cause(xc, cause);
	warn_no_key(o);
	return FAULT_NONE;
}

static enum fault
cmd_env(struct options *o)
{
	struct rank_vars	vs;
	struct rank		r;
	struct buf		b;
	enum fault		xc;

	xc = cmd_rank(o, &r, 0);
	if (xc == FAULT_NONE)
		rank_vars(&vs, &r, 0, o->rdzv);
	rank_free(&r);
	if (xc != FAULT_NONE)
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

/* The rank as env computes it (torchrun's PET_* variables for torchrun,
 * with its --rdzv), then the rest of exec (rank-exec.c). */
static enum fault
cmd_exec(struct options *o)
{
	struct rank	r;
	enum fault	xc;

	o->ex.rdzv = o->rdzv;
	o->ex.argv = o->argv;
	o->ex.argc = o->argc;
	o->ex.ro = &o->ro;
	o->ex.xo = &o->xo;
	o->ex.auth = &o->auth;
	o->ex.bind = &o->bind;
	if ((xc = rank_exec_begin(&o->ex, &o->ro)) != FAULT_NONE)
		return xc;
	if ((xc = cmd_rank(o, &r, o->ex.launcher->vars ==
	    LAUNCHER_VARS_PET)) == FAULT_NONE)
		xc = rank_exec(&o->ex, &r);
	rank_free(&r);
	return xc;
}

/* bind --explain prints the plan; bind -- COMMAND is a worker's binding
 * step, which runs COMMAND once bound. */
static enum fault
cmd_bind(struct options *o)
{
	struct strlist	 argv;
	struct buf	 b;
	char		*warning = NULL, *cause = NULL;
	enum fault	 xc;
	int		 saved;

	if (o->explain) {
		if (o->bind.policy == BIND_NONE && !o->bind_set)
			o->bind.policy = BIND_GPU;
		buf_init(&b);
		if ((xc = bindrun_explain(&o->bind, &b, &cause)) == FAULT_NONE)
			fwrite(b.s, 1, b.len, stdout);
		buf_free(&b);
		if (xc != FAULT_NONE)
			return util_report_cause(xc, cause);
		return flush_stdout();
	}
	strlist_init(&argv);
	xc = bindrun_worker(&o->bind, o->argv, o->argc, &argv, &warning,
	    &cause);
	if (warning != NULL)
		util_report(FAULT_NONE, "warning: %s", warning);
	free(warning);
	if (xc != FAULT_NONE) {
		strlist_free(&argv);
		return util_report_cause(xc, cause);
	}
	execvp(argv.v[0], argv.v);
	saved = errno;
	xc = saved == ENOENT || saved == ENOTDIR ? FAULT_NOTFOUND :
	    FAULT_NOEXEC;
	util_report(xc, "cannot execute '%s': %s", argv.v[0], strerror(saved));
	strlist_free(&argv);
	return xc;
}

/* --record: the nodes the report blames, into the job directory, where
 * the batch shell's ddprank verdict finds them (ddprank(1), HANGS). */
static void
doctor_record(const struct options *o, const struct doctor_report *r)
{
	struct strlist	 bad;
	char		*cause;

	strlist_init(&bad);
	doctor_blamed(r, &bad);
	if (bad.n > 0 && verdict_record_bad(&bad, o->vo.base, &nodes_env_real,
	    o->ro.sched, o->ro.hostfile, &cause) == -1) {
		util_report(FAULT_NONE, "warning: --record: %s", cause);
		free(cause);
	}
	strlist_free(&bad);
}

/* Node 0 prints the report; another node only when its findings did
 * not reach node 0. */
static enum fault
cmd_doctor(struct options *o)
{
	struct doctor_report	r;
	struct buf		b;
	enum fault		xc;
	int			sent;

	/* The port, as exec will derive it, may depend on the secret. */
	if ((xc = load_secret(o)) != FAULT_NONE)
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
		return FAULT_NONE;
	buf_init(&b);
	r.exclude_opt = sched_get(nodes_sched_resolve(&nodes_env_real,
	    o->ro.sched, o->ro.hostfile))->exclude_opt;
	if (o->json)
		doctor_format_json(&b, &r);
	else
		doctor_format_text(&b, &r);
	fwrite(b.s, 1, b.len, stdout);
	buf_free(&b);
	xc = doctor_failed(&r) ? FAULT_CHECK : FAULT_NONE;
	if (xc != FAULT_NONE && o->record)
		doctor_record(o, &r);
	doctor_report_free(&r);
	if (flush_stdout() != FAULT_NONE)
		return FAULT_SYS;
	/* srun stops forwarding output once a task fails: let it go. */
	if (xc != FAULT_NONE)
		(void)util_drain(STDOUT_FILENO, UTIL_DRAIN_MS);
	return xc;
}

static enum fault
print_hosts(const struct hostlist *hl)
{
	char		name[HOSTLIST_NAME_MAX + 1];
	uint64_t	i, n = hostlist_count(hl);

	for (i = 0; i < n && !ferror(stdout); i++) {
		if (hostlist_nth(hl, i, name, sizeof name) == -1)
			return util_report(FAULT_NODES, "host %llu: name too "
			    "long", (unsigned long long)i);
		puts(name);
	}
	return flush_stdout();
}

static enum fault
cmd_hosts(struct options *o)
{
	struct hostlist	*hl;
	struct nodes	 n;
	char		*cause;
	enum fault	 xc;

	/* A malformed operand is a bad operand, as for every subcommand;
	 * a malformed list from the environment is a node list error. */
	if (o->argc == 1) {
		if ((hl = hostlist_parse(o->argv[0], &cause)) == NULL)
			return util_report_cause(FAULT_USAGE, cause);
		xc = print_hosts(hl);
		hostlist_free(hl);
		return xc;
	}
	if (nodes_load(&n, &nodes_env_real, o->ro.sched, o->ro.hostfile,
	    &cause) == -1)
		return util_report_cause(FAULT_NODES, cause);
	xc = print_hosts(n.list);
	nodes_free(&n);
	return xc;
}

static enum fault
cmd_ip(struct options *o)
{
	char		*addr, *cause;
	enum fault	 xc;

	if (o->first_node && (xc = rank_first_node(&o->ro, &nodes_env_real,
	    &netif_sys_real, &cause)) != FAULT_NONE)
		return util_report_cause(xc, cause);
	xc = rank_ip(&addr, &o->ro, o->family, &netif_sys_real, &cause);
	if (xc != FAULT_NONE)
		return util_report_cause(xc, cause);
	printf("%s\n", addr);
	free(addr);
	return flush_stdout();
}

/* Makes the key file if there is none, and checks it either way: the
 * path on standard output. */
static enum fault
cmd_key(struct options *o)
{
	char	*home, *cause;
	int	 made;

	(void)o;
	if ((home = key_home()) == NULL)
		return util_report(FAULT_SYS, "key: no home directory (HOME is "
		    "unset, and the password database has none)");
	if (auth_make_file(home, geteuid(), &made, &cause) == -1) {
		free(home);
		return util_report_cause(FAULT_EXCHANGE, cause);
	}
	printf("%s/" AUTH_KEYDIR "/" AUTH_KEYFILE "\n", home);
	free(home);
	return flush_stdout();
}

static enum fault
cmd_port(struct options *o)
{
	char		*cause;
	enum fault	 xc;
	int		 port;

	if ((xc = load_secret(o)) != FAULT_NONE)
		return xc;
	if ((xc = rank_port(&port, &o->ro, &nodes_env_real, &cause)) !=
	    FAULT_NONE)
		return util_report_cause(xc, cause);
	printf("%d\n", port);
	return flush_stdout();
}

/* The kind and the nodes to leave out on standard output ("hang
 * node3,node7"), the summary line on standard error. */
static enum fault
cmd_verdict(struct options *o)
{
	struct hang_verdict	 v;
	struct strlist		 notes;
	char			*cause;
	size_t			 i;

	strlist_init(&notes);
	o->vo.sched = o->ro.sched;
	o->vo.hostfile = o->ro.hostfile;
	if (verdict_run(&v, &notes, &o->vo, &nodes_env_real, &cause) == -1) {
		strlist_free(&notes);
		return util_report_cause(FAULT_SYS, cause);
	}
	for (i = 0; i < notes.n; i++)
		util_report(FAULT_NONE, "warning: %s", notes.v[i]);
	if (v.summary != NULL)
		util_report(FAULT_NONE, "%s", v.summary);
	printf("%s", verdict_kinds[v.kind]);
	for (i = 0; i < v.culprits.n; i++)
		printf("%c%s", i == 0 ? ' ' : ',', v.culprits.v[i]);
	printf("\n");
	hang_verdict_free(&v);
	strlist_free(&notes);
	return flush_stdout();
}

int
main(int argc, char **argv)
{
	struct options	o;
	enum fault	f;

	util_progname = "ddprank";
	(void)atexit(drain_stderr);
	memset(&o, 0, sizeof o);
	o.family = AF_UNSPEC;
	o.ro.lo = PORT_LO_DEFAULT;
	o.ro.hi = PORT_HI_DEFAULT;
	o.xo.timeout = EXCHANGE_TIMEOUT_DEFAULT;
	o.doc.wait = DOCTOR_WAIT_DEFAULT;
	parse_args(&o, argc, argv);
	f = cmds[o.cmd].exec(&o);
	if (o.ro.rx != NULL)
		rx_free(&o.rx);
	if (o.ro.comm_rx != NULL || o.doc.comm_rx != NULL)
		rx_free(&o.comm_rx);
	exchange_opts_free(&o.xo);
	rank_exec_free(&o.ex);
	free(o.key_home);
	explicit_bzero(&o.auth, sizeof o.auth);
	return exit_of[f];
}
