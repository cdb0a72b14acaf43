/* profile-key.c: the profile's schema: every key, its type, its value's
 * checks and the words of its enums; a value parsed and spelt back. The
 * lowest part of the profile module: profile-cfg.c and profile.c call
 * it, it calls neither. */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "badnodes.h"
#include "cpuset.h"
#include "gen.h"
#include "hang.h"
#include "profile.h"
#include "profile-int.h"
#include "rx.h"
#include "util.h"
#include "xmalloc.h"

static int	check_iface(const char *, char **);
static int	check_time(const char *, char **);
static int	check_sbatch(const char *, char **);
static int	check_image(const char *, char **);
static int	check_module(const char *, char **);
static int	check_filesystems(const char *, char **);
static int	check_pbs_select(const char *, char **);
static int	check_cpus(const char *, char **);
static int	check_var(const char *, char **);

const char *const profile_disc_names[] = {
	[PROFILE_HOSTNAME] = "hostname", [PROFILE_IFACE] = "iface", NULL
};
const char *const profile_shell_names[] = {
	[PROFILE_SHELL_LOGIN] = "login",
	[PROFILE_SHELL_INTERACTIVE] = "interactive",
	[PROFILE_SHELL_PLAIN] = "plain",
	[PROFILE_SHELL_LOGIN_INTERACTIVE] = "login-interactive", NULL
};
const char *const profile_signal_names[] = {
	[PROFILE_SIG_USR2] = "USR2", [PROFILE_SIG_USR1] = "USR1", NULL
};
const char *const profile_pbs_launch_names[] = {
	[PROFILE_PBS_MPIEXEC] = "mpiexec", [PROFILE_PBS_PBSDSH] = "pbsdsh",
	NULL
};

const char *const profile_lsf_launch_names[] = {
	[PROFILE_LSF_BLAUNCH] = "blaunch", [PROFILE_LSF_JSRUN] = "jsrun", NULL
};

/* Enums are stored through int pointers by the generic code below. */
_Static_assert(sizeof(enum sched_id) == sizeof(int), "enum size");
_Static_assert(sizeof(enum profile_disc) == sizeof(int), "enum size");
_Static_assert(sizeof(enum rdzv) == sizeof(int), "enum size");
_Static_assert(sizeof(enum profile_shell) == sizeof(int), "enum size");
_Static_assert(sizeof(enum profile_signal) == sizeof(int), "enum size");
_Static_assert(sizeof(enum runtime_id) == sizeof(int), "enum size");
_Static_assert(sizeof(enum profile_pbs_launch) == sizeof(int), "enum size");
_Static_assert(sizeof(enum profile_lsf_launch) == sizeof(int), "enum size");
_Static_assert(sizeof(enum bind_policy) == sizeof(int), "enum size");

#define OFF(f)	offsetof(struct profile, f)

/* In struct profile order, which is also the order of the dump. */
static const struct key keys[] = {
	{ .name = "extends", .type = K_EXTENDS, .flags = KF_LINE },
	{ .name = "description", .type = K_STR, .off = OFF(description),
	  .flags = KF_LINE | KF_REQUIRED | KF_WHERE },
	{ .name = "scheduler", .type = K_ENUM, .off = OFF(scheduler),
	  .flags = KF_REQUIRED | KF_WHERE, .rows = gen_names,
	  .base = SCHED_GEN_FIRST },
	{ .name = "discovery", .type = K_ENUM, .off = OFF(discovery),
	  .flags = KF_WHERE, .names = profile_disc_names },
	{ .name = "iface", .type = K_STR, .off = OFF(iface),
	  .flags = KF_LINE | KF_WHERE, .check = check_iface },
	{ .name = "comm_iface", .type = K_STR, .off = OFF(comm_iface),
	  .flags = KF_LINE | KF_WHERE, .check = check_iface },
	{ .name = "gpus_per_node", .type = K_INT, .off = OFF(gpus_per_node),
	  .flags = KF_WHERE, .min = 0, .max = 1024 },
	{ .name = "nproc_per_node", .type = K_INT,
	  .off = OFF(nproc_per_node), .min = 0, .max = 1024 },
	{ .name = "job_name", .type = K_STR, .off = OFF(job_name),
	  .flags = KF_LINE },
	{ .name = "job_output", .type = K_STR, .off = OFF(job_output),
	  .flags = KF_LINE | KF_SCHED },
	{ .name = "partition", .type = K_STR, .off = OFF(partition),
	  .flags = KF_LINE | KF_SCHED },
	{ .name = "account", .type = K_STR, .off = OFF(account),
	  .flags = KF_LINE | KF_SCHED },
	{ .name = "qos", .type = K_STR, .off = OFF(qos),
	  .flags = KF_LINE | KF_SCHED },
	{ .name = "constraint", .type = K_STR, .off = OFF(constraint),
	  .flags = KF_LINE | KF_SCHED },
	{ .name = "time", .type = K_STR, .off = OFF(time), .flags = KF_LINE,
	  .check = check_time },
	{ .name = "cpus_per_task", .type = K_INT, .off = OFF(cpus_per_task),
	  .flags = KF_SCHED, .min = 0, .max = 16384 },
	{ .name = "label_output", .type = K_BOOL, .off = OFF(label_output),
	  .flags = KF_SCHED },
	{ .name = "sbatch_extra", .type = K_LIST, .off = OFF(sbatch_extra),
	  .flags = KF_LINE | KF_SCHED, .check = check_sbatch },
	{ .name = "env", .type = K_LIST, .off = OFF(env), .check = profile_check_env },
	{ .name = "env_default", .type = K_LIST, .off = OFF(env_default),
	  .check = profile_check_env },
	{ .name = "setup", .type = K_LIST, .off = OFF(setup) },
	{ .name = "launcher", .type = K_LIST, .off = OFF(launcher) },
	{ .name = "launcher_args", .type = K_LIST, .off = OFF(launcher_args) },
	{ .name = "port", .type = K_PORT, .off = OFF(port) },
	{ .name = "port_range", .type = K_RANGE, .off = OFF(port_min),
	  .min = 1024, .max = 65535 },
	{ .name = "rdzv", .type = K_ENUM, .off = OFF(rdzv),
	  .names = rdzv_names },
	{ .name = "template", .type = K_STR, .off = OFF(template),
	  .flags = KF_LINE | KF_WHERE },
	{ .name = "ddprank", .type = K_STR, .off = OFF(ddprank),
	  .flags = KF_LINE | KF_WHERE },
	{ .name = "preflight", .type = K_BOOL, .off = OFF(preflight),
	  .flags = KF_WHERE },
	{ .name = "preflight_torch", .type = K_BOOL,
	  .off = OFF(preflight_torch), .flags = KF_WHERE },
	{ .name = "bind", .type = K_ENUM, .off = OFF(bind),
	  .flags = KF_WHERE, .names = bind_names },
	{ .name = "bind_reserve", .type = K_STR, .off = OFF(bind_reserve),
	  .flags = KF_LINE | KF_WHERE, .check = check_cpus },
	{ .name = "bind_nic_var", .type = K_STR, .off = OFF(bind_nic_var),
	  .flags = KF_LINE | KF_WHERE, .check = check_var },
	{ .name = "container", .type = K_ENUM, .off = OFF(container),
	  .rows = runtime_names },
	{ .name = "image", .type = K_STR, .off = OFF(image),
	  .flags = KF_LINE, .check = check_image },
	{ .name = "container_mounts", .type = K_LIST,
	  .off = OFF(container_mounts), .flags = KF_LINE,
	  .check = runtime_check_mount },
	{ .name = "container_args", .type = K_LIST,
	  .off = OFF(container_args), .flags = KF_LINE },
	{ .name = "container_modules", .type = K_LIST,
	  .off = OFF(container_modules), .flags = KF_LINE,
	  .check = check_module },
	{ .name = "node_group", .type = K_STR, .off = OFF(node_group),
	  .flags = KF_LINE | KF_SCHED },
	{ .name = "shared_dir", .type = K_STR, .off = OFF(shared_dir),
	  .flags = KF_LINE | KF_SCHED },
	{ .name = "task_shell", .type = K_ENUM, .off = OFF(task_shell),
	  .flags = KF_SCHED, .names = profile_shell_names },
	{ .name = "path", .type = K_STR, .off = OFF(path_env),
	  .flags = KF_LINE | KF_SCHED },
	{ .name = "exclusive", .type = K_BOOL, .off = OFF(exclusive) },
	{ .name = "c10d_shared", .type = K_BOOL, .off = OFF(c10d_shared) },
	{ .name = "fail_on_task_failure", .type = K_BOOL,
	  .off = OFF(fail_on_task_failure), .flags = KF_SCHED },
	{ .name = "exchange_timeout", .type = K_INT,
	  .off = OFF(exchange_timeout), .flags = KF_SCHED, .min = 1,
	  .max = EXCHANGE_TIMEOUT_MAX },
	{ .name = "requeue", .type = K_BOOL, .off = OFF(requeue),
	  .flags = KF_SCHED },
	{ .name = "signal_lead", .type = K_INT, .off = OFF(signal_lead),
	  .flags = KF_SCHED, .min = 1, .max = 65535 },
	{ .name = "checkpoint_signal", .type = K_ENUM,
	  .off = OFF(checkpoint_signal), .flags = KF_SCHED,
	  .names = profile_signal_names },
	{ .name = "max_requeues", .type = K_INT, .off = OFF(max_requeues),
	  .flags = KF_SCHED, .min = 0, .max = 1000 },
	{ .name = "max_restarts", .type = K_INT, .off = OFF(max_restarts),
	  .min = 0, .max = 1000 },
	{ .name = "hang_timeout", .type = K_INT, .off = OFF(hang_timeout),
	  .flags = KF_SCHED, .min = 0, .max = HANG_TIMEOUT_MAX },
	{ .name = "hang_dir", .type = K_STR, .off = OFF(hang_dir),
	  .flags = KF_LINE | KF_SCHED },
	{ .name = "max_failures", .type = K_INT, .off = OFF(max_failures),
	  .flags = KF_SCHED, .min = 0, .max = 1000 },
	{ .name = "bad_node_hours", .type = K_INT, .off = OFF(bad_node_hours),
	  .flags = KF_SCHED, .min = 0, .max = BADNODES_HOURS_MAX },
	{ .name = "filesystems", .type = K_STR, .off = OFF(filesystems),
	  .flags = KF_LINE | KF_SCHED, .check = check_filesystems },
	{ .name = "pbs_select", .type = K_STR, .off = OFF(pbs_select),
	  .flags = KF_LINE | KF_SCHED, .check = check_pbs_select },
	{ .name = "pbs_launcher", .type = K_ENUM, .off = OFF(pbs_launcher),
	  .flags = KF_SCHED, .names = profile_pbs_launch_names },
	{ .name = "lsf_launcher", .type = K_ENUM, .off = OFF(lsf_launcher),
	  .flags = KF_SCHED, .names = profile_lsf_launch_names },
};
#define NKEYS	(sizeof keys / sizeof keys[0])
const struct key *const profile_keys = keys;
const size_t profile_nkeys = NKEYS;


const struct key *
profile_key_find(const char *name)
{
	size_t	i;

	for (i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}


/* Appends s with control characters made visible, for messages. */
void
profile_addvis(struct buf *b, const char *s)
{
	util_addvis(b, s, strlen(s));
}

/* s made visible; the caller frees it. */
char *
profile_vis(const char *s)
{
	struct buf	b;

	buf_init(&b);
	profile_addvis(&b, s);
	return b.s;
}

/* Sets *cause to pre, value made visible, post; returns -1. */
static int
fail_vis(char **cause, const char *pre, const char *value, const char *post)
{
	char	*v = profile_vis(value);

	util_fail(cause, "%s%s%s", pre, v, post);
	free(v);
	return -1;
}

/* Appends s as a libconfuse double-quoted string. "${" is escaped too,
 * which profile_load reads the same either way, so that a ddpgen from
 * before it stopped libconfuse expanding ${NAME} reads the dump back. */
void
profile_addquoted(struct buf *b, const char *s)
{
	unsigned char	c;

	buf_addc(b, '"');
	/* Control bytes take util_addvis's escapes, which libconfuse reads. */
	for (; (c = (unsigned char)*s) != '\0'; s++) {
		if (c == '"' || c == '\\' || (c == '$' && s[1] == '{'))
			buf_addf(b, "\\%c", c);
		else
			util_addvis(b, s, 1);
	}
	buf_addc(b, '"');
}

static int
check_iface(const char *s, char **cause)
{
	struct rx	rx;
	char		*why;

	if (rx_compile(&rx, s, &why) == -1) {
		util_fail(cause, "%s", why);
		free(why);
		return -1;
	}
	rx_free(&rx);
	return 0;
}

static int
check_time(const char *s, char **cause)
{
	if (profile_parse_time(s, NULL) == 0)
		return 0;
	return fail_vis(cause, "bad time '", s, "' (want M, M:S, H:M:S, "
	    "D-H, D-H:M, D-H:M:S or UNLIMITED)");
}

int
profile_check_env(const char *s, char **cause)
{
	const char	*alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "abcdefghijklmnopqrstuvwxyz_";
	size_t		 len = strcspn(s, "=");

	if (s[len] != '=')
		return fail_vis(cause, "'", s, "' is not NAME=VALUE");
	if (len == 0 || strchr(alpha, s[0]) == NULL ||
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "_0123456789") != len)
		return fail_vis(cause, "bad variable name in '", s,
		    "' (want [A-Za-z_][A-Za-z0-9_]*)");
	return 0;
}

void
profile_env_set(struct strlist *env, const char *item)
{
	size_t	i, len = strcspn(item, "=");

	for (i = 0; i < env->n; i++) {
		if (strncmp(env->v[i], item, len) == 0 &&
		    env->v[i][len] == '=') {
			free(env->v[i]);
			env->v[i] = xstrdup(item);
			return;
		}
	}
	strlist_add(env, item);
}

/*
 * An sbatch_extra item is one option as it would be typed after sbatch:
 * --name, --name=value, --name value, -x, -xvalue or -x value. Each is
 * written as one word on its #SBATCH line, so a value with blanks stays
 * one argument: a blank after the option becomes "=" (long) or nothing
 * (short), which is how getopt reads an option's value. Returns the
 * length of the option's name with its dashes, or 0 when s is not an
 * option.
 */
static size_t
sbatch_name(const char *s)
{
	const char	*alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t		 n;

	if (s[0] != '-')
		return 0;
	if (s[1] != '-')
		return strchr(alnum, s[1]) != NULL && s[1] != '\0' ? 2 : 0;
	if (s[2] == '\0' || strchr(alnum, s[2]) == NULL)
		return 0;
	n = 2 + strspn(s + 2, alnum);
	while (s[n] == '-' || (s[n] != '\0' && strchr(alnum, s[n]) != NULL))
		n++;
	return n;
}

/* An env entry while removing duplicate names. */
struct envent {
	const char	*s;
	size_t		 len;		/* of the name */
	size_t		 pos;
};

static int
envent_cmp(const void *a, const void *b)
{
	const struct envent	*x = a, *y = b;
	int			 c;

	c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);
	if (c == 0 && x->len != y->len)
		c = x->len < y->len ? -1 : 1;
	if (c == 0)
		c = x->pos < y->pos ? -1 : x->pos > y->pos;
	return c;
}

/* profile_env_set's rule over a whole list at once: each name keeps its
 * first place and takes its last value. Sorting keeps this fast for the
 * longest lists. */
void
profile_env_dedupe(struct strlist *env)
{
	struct envent	*e;
	size_t		 i, j, k, n = env->n;

	if (n < 2)
		return;
	e = xreallocarray(NULL, n, sizeof *e);
	for (i = 0; i < n; i++) {
		e[i].s = env->v[i];
		e[i].len = strcspn(env->v[i], "=");
		e[i].pos = i;
	}
	qsort(e, n, sizeof *e, envent_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && e[j].len == e[i].len &&
		    memcmp(e[j].s, e[i].s, e[i].len) == 0; j++)
			;
		if (j - i == 1)
			continue;
		free(env->v[e[i].pos]);
		env->v[e[i].pos] = env->v[e[j - 1].pos];
		for (k = i + 1; k < j; k++) {
			if (k < j - 1)
				free(env->v[e[k].pos]);
			env->v[e[k].pos] = NULL;
		}
	}
	free(e);
	for (i = j = 0; i < n; i++)
		if (env->v[i] != NULL)
			env->v[j++] = env->v[i];
	env->n = j;
	env->v[j] = NULL;
}

static int
check_sbatch(const char *s, char **cause)
{
	size_t	n = sbatch_name(s);

	if (n > 0 && s[n] == ' ') {
		if (s[n + strspn(s + n, " ")] != '\0')
			return 0;
	} else if (n > 0 && (n == 2 || s[n] == '\0' || s[n] == '='))
		return 0;
	return fail_vis(cause, "'", s, "' is not an sbatch option (want "
	    "--name, --name=value, --name value, -x, -xvalue or -x value)");
}

/* An image becomes a word of the runtime's command or of an option:
 * one that begins with '-' would be read as an option. */
static int
check_image(const char *s, char **cause)
{
	if (*s == '-')
		return fail_vis(cause, "'", s, "' begins with '-'");
	return 0;
}

/* A module becomes an option (podman-hpc --NAME) or an item of a comma
 * list (Shifter --module=A,B). */
static int
check_module(const char *s, char **cause)
{
	if (*s == '\0' || *s == '-' || s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_.-")] != '\0')
		return fail_vis(cause, "'", s, "' is not a module name "
		    "(letters, digits, '_', '.', '-')");
	return 0;
}

/* A CPU list (bind_reserve), as ddprank --bind-reserve takes it. */
static int
check_cpus(const char *s, char **cause)
{
	struct cpuset	set;

	return cpuset_parse(&set, s, cause);
}

/* A variable name (bind_nic_var), as a shell would take it. */
static int
check_var(const char *s, char **cause)
{
	if ((*s >= '0' && *s <= '9') || s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_")] != '\0')
		return fail_vis(cause, "'", s, "' is not a variable name "
		    "(letters, digits, '_', not a digit first)");
	return 0;
}

/*
 * PBS resource values go on "#PBS -l NAME=VALUE" lines, where qsub
 * separates resources with ',' and a select chunk's with ':'. A
 * filesystems value is names joined by ':' (ALCF: "home:eagle");
 * pbs_select holds NAME=VALUE resources joined by ':' ("system=polaris").
 */
static int
check_pbs_words(const char *s, int pairs, const char *what, char **cause)
{
	const char	*word = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_.-", *all = s;
	size_t		 n;

	for (;;) {
		n = strspn(s, word);
		if (n > 0 && pairs) {
			if (s[n] != '=' || strspn(s + n + 1, word) == 0)
				break;
			n += 1 + strspn(s + n + 1, word);
		}
		if (n == 0)
			break;
		if (s[n] == '\0')
			return 0;
		if (s[n] != ':')
			break;
		s += n + 1;
	}
	return fail_vis(cause, "'", all, what);
}

static int
check_filesystems(const char *s, char **cause)
{
	if (*s == '\0')
		return 0;
	return check_pbs_words(s, 0, "' is not a PBS filesystems list "
	    "(names of [A-Za-z0-9_.-] joined by ':', as home:eagle)", cause);
}

static int
check_pbs_select(const char *s, char **cause)
{
	if (*s == '\0')
		return 0;
	return check_pbs_words(s, 1, "' is not a list of PBS resources "
	    "(NAME=VALUE of [A-Za-z0-9_.-] joined by ':', as system=polaris)",
	    cause);
}

/* A checked item as one word; the caller frees it. */
char *
profile_sbatch_word(const char *s)
{
	size_t	 n = sbatch_name(s);
	char	*w;

	if (s[n] != ' ')
		return xstrdup(s);
	xasprintf(&w, "%.*s%s%s", (int)n, s, n == 2 ? "" : "=",
	    s + n + strspn(s + n, " "));
	return w;
}

static int
parse_int(const char *s, int min, int max, int *out, char **cause)
{
	long long	 v;
	const char	*digits = s + (s[0] == '-');

	if (util_strtonum(s, LLONG_MIN, LLONG_MAX, &v) == 0) {
		if (v >= min && v <= max) {
			*out = (int)v;
			return 0;
		}
	} else if (*digits == '\0' ||
	    strspn(digits, "0123456789") != strlen(digits))
		return fail_vis(cause, "'", s, "' is not an integer");
	return util_fail(cause, "value out of range: %s (%d to %d)", s,
	    min, max);
}

static int
parse_bool(const char *s, int *out, char **cause)
{
	int	b = cfg_parse_boolean(s);

	if (b == -1)
		return fail_vis(cause, "'", s,
		    "' is not a boolean (true or false)");
	*out = b;
	return 0;
}

/* The words of enum key k, in enum order. */
static const char *const *
key_names(const struct key *k)
{
	return k->rows != NULL ? k->rows() : k->names;
}

static int
parse_enum(const char *const *names, const char *s, int *out,
    char **cause)
{
	char	*v, *w;
	int	 i;

	if ((i = vocab_word(names, s)) != -1) {
		*out = i;
		return 0;
	}
	w = words_join(names, " or ");
	v = profile_vis(s);
	util_fail(cause, "bad value '%s' (%s)", v, w);
	free(v);
	free(w);
	return -1;
}

/* The port key: vocab_port, with the options' message (control bytes
 * shown escaped, as in every profile message). */
static int
profile_parse_port(const char *s, int *out, char **cause)
{
	if (vocab_port(s, out) != 0)
		return fail_vis(cause, "'", s, "' " VOCAB_PORT_WANT);
	return 0;
}

static int
check_str(const struct key *k, const char *s, char **cause)
{
	if ((k->flags & KF_REQUIRED) && *s == '\0')
		return util_fail(cause, "empty value");
	if ((k->flags & KF_LINE) && util_has_cntrl(s))
		return fail_vis(cause, "control character in '", s, "'");
	if (k->check != NULL && *s != '\0')
		return k->check(s, cause);
	return 0;
}

/* Checks one value of key k; the integer-like types store it in *out
 * (may be NULL). -1 and *cause "KEY: message" if it is not valid. */
int
profile_key_item(const struct key *k, const char *s, int *out, char **cause)
{
	char	*why = NULL;
	int	 n = 0, rc;

	switch (k->type) {
	case K_INT:
	case K_RANGE:
		rc = parse_int(s, k->min, k->max, &n, &why);
		break;
	case K_BOOL:
		rc = parse_bool(s, &n, &why);
		break;
	case K_ENUM:
		rc = parse_enum(key_names(k), s, &n, &why);
		n += k->base;
		break;
	case K_PORT:
		rc = profile_parse_port(s, &n, &why);
		break;
	default:
		rc = check_str(k, s, &why);
		break;
	}
	if (rc == -1) {
		util_fail(cause, "%s: %s", k->name, why);
		free(why);
		return -1;
	}
	if (out != NULL)
		*out = n;
	return 0;
}

static int
enum_count(const char *const *names)
{
	int	n = 0;

	while (names[n] != NULL)
		n++;
	return n;
}

/* The value of a scalar key as the profile would spell it; the caller
 * frees it. Out-of-range numbers are spelt as numbers so that checking
 * the spelling reports them. */
char *
profile_key_scalar(const struct profile *p, const struct key *k)
{
	int	 v;
	char	*s;

	if (k->type == K_STR)
		return xstrdup(*(char **)profile_key_field(p, k));
	v = *(int *)profile_key_field(p, k);
	if (k->type == K_BOOL && (v == 0 || v == 1))
		return xstrdup(v ? "true" : "false");
	if (k->type == K_PORT && v == 0)
		return xstrdup("auto");
	if (k->type == K_ENUM && v - k->base >= 0 &&
	    v - k->base < enum_count(key_names(k)))
		return xstrdup(key_names(k)[v - k->base]);
	xasprintf(&s, "%d", v);
	return s;
}

