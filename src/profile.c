/* profile.c: site profiles: the schema and its checks, the extends chain,
 * the merge, validation and dump. libconfuse is profile-cfg.c's. */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <confuse.h>

#include "gen.h"
#include "launcher.h"
#include "profile.h"
#include "profile-int.h"
#include "rx.h"
#include "util.h"
#include "xmalloc.h"

/* Files in one extends chain, the named file included. */
#define PROFILE_MAXDEPTH	16

static int	check_iface(const char *, char **);
static int	check_time(const char *, char **);
static int	check_sbatch(const char *, char **);
static int	check_image(const char *, char **);
static int	check_module(const char *, char **);
static int	check_filesystems(const char *, char **);
static int	check_pbs_select(const char *, char **);

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

#define OFF(f)	offsetof(struct profile, f)

/* In struct profile order, which is also the order of the dump. */
static const struct key keys[] = {
	{ .name = "extends", .type = K_EXTENDS, .flags = KF_LINE },
	{ .name = "description", .type = K_STR, .off = OFF(description),
	  .flags = KF_LINE | KF_REQUIRED },
	{ .name = "scheduler", .type = K_ENUM, .off = OFF(scheduler),
	  .flags = KF_REQUIRED, .names = gen_names,
	  .base = SCHED_GEN_FIRST },
	{ .name = "discovery", .type = K_ENUM, .off = OFF(discovery),
	  .names = profile_disc_names },
	{ .name = "iface", .type = K_STR, .off = OFF(iface),
	  .flags = KF_LINE, .check = check_iface },
	{ .name = "comm_iface", .type = K_STR, .off = OFF(comm_iface),
	  .flags = KF_LINE, .check = check_iface },
	{ .name = "gpus_per_node", .type = K_INT, .off = OFF(gpus_per_node),
	  .min = 0, .max = 1024 },
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
	  .flags = KF_LINE },
	{ .name = "ddprank", .type = K_STR, .off = OFF(ddprank),
	  .flags = KF_LINE },
	{ .name = "preflight", .type = K_BOOL, .off = OFF(preflight) },
	{ .name = "preflight_torch", .type = K_BOOL,
	  .off = OFF(preflight_torch) },
	{ .name = "container", .type = K_ENUM, .off = OFF(container),
	  .names = runtime_names },
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

/* Where each key of a resolved profile got its value. */
struct origin {
	const char	*file;
	int		 line;
	size_t		 layer;		/* base first */
};

struct load {
	struct origin	 org[NKEYS];
	struct foundlist found;
};

const struct key *
profile_key_find(const char *name)
{
	size_t	i;

	for (i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

static void *
key_field(const struct profile *p, const struct key *k)
{
	return (char *)p + k->off;
}

/* Appends s with control characters made visible, for messages. */
static void
buf_addvis(struct buf *b, const char *s)
{
	util_addvis(b, s, strlen(s));
}

/* s made visible; the caller frees it. */
char *
profile_vis(const char *s)
{
	struct buf	b;

	buf_init(&b);
	buf_addvis(&b, s);
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
static void
buf_addquoted(struct buf *b, const char *s)
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
static void
env_dedupe(struct strlist *env)
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
static char *
sbatch_word(const char *s)
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

static int
parse_enum(const char *const *names, const char *s, int *out,
    char **cause)
{
	struct buf	b;
	char		*v;
	int		 i;

	if ((i = vocab_word(names, s)) != -1) {
		*out = i;
		return 0;
	}
	buf_init(&b);
	for (i = 0; names[i] != NULL; i++)
		buf_add_item(&b, names[i], names[i + 1] == NULL, " or ");
	v = profile_vis(s);
	util_fail(cause, "bad value '%s' (%s)", v, b.s);
	free(v);
	buf_free(&b);
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
		rc = parse_enum(k->names, s, &n, &why);
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
static char *
key_scalar(const struct profile *p, const struct key *k)
{
	int	 v;
	char	*s;

	if (k->type == K_STR)
		return xstrdup(*(char **)key_field(p, k));
	v = *(int *)key_field(p, k);
	if (k->type == K_BOOL && (v == 0 || v == 1))
		return xstrdup(v ? "true" : "false");
	if (k->type == K_PORT && v == 0)
		return xstrdup("auto");
	if (k->type == K_ENUM && v - k->base >= 0 &&
	    v - k->base < enum_count(k->names))
		return xstrdup(k->names[v - k->base]);
	xasprintf(&s, "%d", v);
	return s;
}

/* ---- The extends chain ---- */

/* profile_site_find, skipping the files of the chain ls[0..n-1]. */
static char *
chain_find(const char *name, const struct strlist *dirs, struct layer **ls,
    size_t n, int *hit)
{
	const char	**skip;
	char		 *path;
	size_t		  i;

	skip = xcalloc(n, sizeof *skip);
	for (i = 0; i < n; i++)
		skip[i] = ls[i]->real;
	path = profile_site_find(name, dirs, skip, n, hit);
	free(skip);
	return path;
}

static void
chain_cycle(struct layer *l, struct layer **ls, size_t n, int hit)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < n; i++) {
		buf_addvis(&b, ls[i]->file);
		buf_adds(&b, " -> ");
	}
	buf_addvis(&b, ls[hit]->file);
	profile_layer_error(l, l->extends_line, "extends cycle: %s", b.s);
	buf_free(&b);
}

static char *
chain_path(const struct layer *l)
{
	const char	*slash;
	char		*path;

	if (l->extends[0] == '/')
		return xstrdup(l->extends);
	if ((slash = strrchr(l->file, '/')) == NULL)
		return xstrdup(l->extends);
	xasprintf(&path, "%.*s/%s", (int)(slash - l->file), l->file,
	    l->extends);
	return path;
}

/* The file the last layer extends; NULL after reporting why not. A name
 * is looked up along dirs, a path is relative to the extending file. */
static char *
chain_next(struct layer **ls, size_t n, const struct strlist *dirs)
{
	struct layer	*l = ls[n - 1];
	char		*path, *real, *v;
	int		 hit = -1;
	size_t		 i;

	if (!profile_site_is_path(l->extends))
		path = chain_find(l->extends, dirs, ls, n, &hit);
	else if ((real = realpath((path = chain_path(l)), NULL)) != NULL) {
		for (i = 0; i < n && hit == -1; i++)
			if (strcmp(ls[i]->real, real) == 0)
				hit = (int)i;
		free(real);
		if (hit != -1 || !profile_is_file(path)) {
			free(path);
			path = NULL;
		}
	} else {
		free(path);
		path = NULL;
	}
	if (path != NULL)
		return path;
	if (hit != -1)
		chain_cycle(l, ls, n, hit);
	else {
		v = profile_vis(l->extends);
		profile_layer_error(l, l->extends_line, "extends target '%s' not "
		    "found", v);
		free(v);
	}
	return NULL;
}

/* Parses the chain from the named file up; ls[0] is that file. */
static size_t
chain_load(struct layer **ls, const char *file, char *text,
    const struct strlist *dirs, struct strlist *errors)
{
	struct layer	*l;
	char		*path, *cause;
	size_t		 i, n = 0;

	ls[n++] = l = profile_layer_new(file, text);
	while (l->extends != NULL) {
		if (n == PROFILE_MAXDEPTH) {
			profile_layer_error(l, l->extends_line, "extends chain longer "
			    "than %d files", PROFILE_MAXDEPTH);
			break;
		}
		if ((path = chain_next(ls, n, dirs)) == NULL)
			break;
		if ((text = util_readfile_max(path, UTIL_READ_PROFILE_MAX, NULL,
		    &cause)) == NULL) {
			profile_layer_error(l, l->extends_line, "extends: %s", cause);
			free(cause);
			free(path);
			break;
		}
		ls[n++] = l = profile_layer_new(path, text);
		free(path);
	}
	for (i = 0; i < n; i++)
		profile_found_flush(&ls[i]->errors, errors);
	return n;
}

/* ---- Resolving ---- */

static void
profile_defaults(struct profile *p)
{
	size_t	i;

	memset(p, 0, sizeof *p);
	p->name = xstrdup("");
	p->path = xstrdup("");
	p->setup_at = xstrdup("");
	strlist_init(&p->chain);
	for (i = 0; i < NKEYS; i++) {
		if (keys[i].type == K_STR)
			*(char **)key_field(p, &keys[i]) = xstrdup("");
		else if (keys[i].type == K_LIST)
			strlist_init(key_field(p, &keys[i]));
	}
	free(p->job_name);
	p->job_name = xstrdup("ddp");
	free(p->job_output);
	p->job_output = xstrdup("ddp-%j.out");
	free(p->shared_dir);
	p->shared_dir = xstrdup("/app");
	strlist_add(&p->launcher, "torchrun");
	/* Required: this only keeps the template default defined while the
	 * missing key is being reported. */
	p->scheduler = SCHED_GEN_FIRST;
	p->discovery = PROFILE_HOSTNAME;
	p->port_min = PORT_LO_DEFAULT;
	p->port_max = PORT_HI_DEFAULT;
	p->rdzv = RDZV_STATIC;
	p->task_shell = PROFILE_SHELL_LOGIN_INTERACTIVE;
	p->label_output = 1;
	p->exclusive = 1;
	p->preflight = 1;
	p->fail_on_task_failure = 1;
	p->exchange_timeout = EXCHANGE_TIMEOUT_DEFAULT;
	p->signal_lead = 120;
	p->checkpoint_signal = PROFILE_SIG_USR2;
	p->max_requeues = 3;
}

/*
 * A template path with a slash is relative to the directory of the file
 * that sets it, so a centre can ship a template beside its profile and
 * users extend that profile from anywhere. It is made absolute, which
 * also lets the --show-site dump load back from another directory. A
 * name without a slash is looked up along the template path. The
 * caller frees the result.
 */
static char *
layer_template(const struct layer *l, const char *t)
{
	const char	*slash = strrchr(l->file, '/');
	char		*dir, *real, *path;

	if (strchr(t, '/') == NULL || t[0] == '/')
		return xstrdup(t);
	if (slash == NULL)
		dir = xstrdup(".");
	else if (slash == l->file)
		dir = xstrdup("/");
	else
		dir = xstrndup(l->file, (size_t)(slash - l->file));
	if ((real = realpath(dir, NULL)) != NULL) {
		free(dir);
		dir = real;
	}
	xasprintf(&path, "%s%s%s", dir,
	    dir[strlen(dir) - 1] == '/' ? "" : "/", t);
	free(dir);
	return path;
}

/* Frees what profile_defaults and the merge allocate in p. */
static void
profile_strings_free(struct profile *p)
{
	size_t	i;

	for (i = 0; i < NKEYS; i++) {
		if (keys[i].type == K_STR)
			free(*(char **)key_field(p, &keys[i]));
		else if (keys[i].type == K_LIST)
			strlist_free(key_field(p, &keys[i]));
	}
	free(p->name);
	free(p->path);
	free(p->setup_at);
	strlist_free(&p->chain);
}

/* Applies key i as layer l set it (its values were checked). */
static void
profile_apply(struct profile *p, const struct layer *l, size_t i)
{
	const struct key	*k = &keys[i];
	cfg_opt_t		*opt = cfg_getopt(l->cfg, k->name);
	struct strlist		*list;
	char			**s;
	unsigned int		 j, n = cfg_opt_size(opt);

	switch (k->type) {
	case K_EXTENDS:
		break;
	case K_STR:
		s = key_field(p, k);
		free(*s);
		if (k->off == OFF(template))
			*s = layer_template(l, cfg_opt_getnstr(opt, 0));
		else
			*s = xstrdup(cfg_opt_getnstr(opt, 0));
		break;
	case K_LIST:
		list = key_field(p, k);
		if (!l->append[i]) {
			strlist_free(list);
			strlist_init(list);
		}
		for (j = l->append[i]; j < n; j++) {
			if (k->off == OFF(sbatch_extra))
				strlist_addown(list,
				    sbatch_word(cfg_opt_getnstr(opt, j)));
			else
				strlist_add(list, cfg_opt_getnstr(opt, j));
		}
		if (k->off == OFF(env) || k->off == OFF(env_default))
			env_dedupe(list);
		break;
	case K_RANGE:
		profile_key_item(k, cfg_opt_getnstr(opt, 0), &p->port_min, NULL);
		profile_key_item(k, cfg_opt_getnstr(opt, 1), &p->port_max, NULL);
		break;
	default:
		profile_key_item(k, cfg_opt_getnstr(opt, 0), key_field(p, k), NULL);
		break;
	}
}

typedef void	problem_fn(void *, const struct key *, const char *);

static void
problems_item(const struct key *k, const char *s, problem_fn *fn, void *arg)
{
	char	*cause;

	if (profile_key_item(k, s, NULL, &cause) == -1) {
		fn(arg, k, cause);
		free(cause);
	}
}

/* Each value on its own, as the parse checks it. */
static void
problems_values(const struct profile *p, problem_fn *fn, void *arg)
{
	const struct key	*k;
	const struct strlist	*list;
	char			*s;
	size_t			 i, j;

	for (i = 0; i < NKEYS; i++) {
		k = &keys[i];
		if (k->type == K_EXTENDS || k->type == K_RANGE)
			continue;
		if (k->type == K_LIST) {
			list = key_field(p, k);
			for (j = 0; j < list->n; j++)
				problems_item(k, list->v[j], fn, arg);
			continue;
		}
		s = key_scalar(p, k);
		problems_item(k, s, fn, arg);
		free(s);
	}
}

static void
problem(problem_fn *fn, void *arg, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
problem(problem_fn *fn, void *arg, const char *key, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	xvasprintf(&msg, fmt, ap);
	va_end(ap);
	fn(arg, profile_key_find(key), msg);
	free(msg);
}

static void
problems_ports(const struct profile *p, problem_fn *fn, void *arg)
{
	if (p->port_min < 1024 || p->port_max > 65535)
		problem(fn, arg, "port_range", "port_range: value out of "
		    "range: {%d, %d} (1024 to 65535)", p->port_min,
		    p->port_max);
	else if (p->port_min > p->port_max)
		problem(fn, arg, "port_range", "port_range: low port %d above "
		    "high port %d", p->port_min, p->port_max);
}

/*
 * A key that only some schedulers' jobs honour (KF_SCHED), set on a site
 * whose back-end does not honour it (gen_honours) to other than its
 * default, is refused, one policy for every scheduler, rather than
 * dropped from the job unseen.
 */
static void
problems_sched(const struct profile *p, problem_fn *fn, void *arg)
{
	struct profile	 def;
	char		*a, *b, *takes;
	size_t		 i;
	int		 same;

	profile_defaults(&def);
	for (i = 0; i < NKEYS; i++) {
		if (!(keys[i].flags & KF_SCHED) ||
		    gen_honours(p->scheduler, keys[i].name))
			continue;
		if (keys[i].type == K_LIST)
			same = ((const struct strlist *)key_field(p,
			    &keys[i]))->n == 0;
		else {
			a = key_scalar(p, &keys[i]);
			b = key_scalar(&def, &keys[i]);
			same = strcmp(a, b) == 0;
			free(a);
			free(b);
		}
		if (same)
			continue;
		takes = gen_keys_text(p->scheduler);
		problem(fn, arg, keys[i].name, "%s: a key %s jobs have no word "
		    "for (they take: %s)", keys[i].name,
		    sched_get(p->scheduler)->title, takes);
		free(takes);
	}
	profile_strings_free(&def);
}

/* What the back-end's rules say (gen.h's check hook): each problem is
 * reported at its key. */
struct sched_problem {
	problem_fn	*fn;
	void		*arg;
};

static void
sched_problem(void *arg, const char *key, const char *msg)
{
	struct sched_problem	*sp = arg;

	sp->fn(sp->arg, profile_key_find(key), msg);
}

static void
problems_backend(const struct profile *p, problem_fn *fn, void *arg)
{
	const struct gen	*g = gen_get(p->scheduler);
	struct sched_problem	 sp = { fn, arg };

	if (g->check != NULL)
		g->check(p, sched_problem, &sp);
}

static void
problems_container(const struct profile *p, problem_fn *fn, void *arg)
{
	const struct runtime	*rt = runtime_get(p->container);
	char			*where;

	if (p->container == RT_NONE)
		return;
	if (p->image[0] == '\0')
		problem(fn, arg, "container", "container: '%s' needs an image",
		    rt->name);
	if (!(gen_get(p->scheduler)->images & 1 << rt->image)) {
		where = gen_images_text(rt->image);
		problem(fn, arg, "container", "container: '%s' runs under "
		    "%s only, not %s", rt->name, where,
		    sched_get(p->scheduler)->name);
		free(where);
	}
	if (p->container_modules.n > 0 && rt->module_opt == NULL)
		problem(fn, arg, "container_modules", "container_modules: "
		    "'%s' has no modules", rt->name);
	/* DeepSpeed's hostfile is a file descriptor ddprank leaves open,
	 * which podman does not pass into its container. */
	if (rt->env_opt != NULL && p->launcher.n > 0 &&
	    launcher_find(p->launcher.v[0]) == LAUNCHER_DEEPSPEED)
		problem(fn, arg, "container", "container: launcher deepspeed "
		    "reads its hostfile from a descriptor '%s' does not pass",
		    rt->name);
}

/* What the launcher the first word names can do. */
static void
problems_launcher(const struct profile *p, problem_fn *fn, void *arg)
{
	const struct launcher	*l;

	l = launcher_get(launcher_find(p->launcher.v[0]));
	if (l->sched != SCHED_AUTO && l->sched != p->scheduler)
		problem(fn, arg, "launcher", "launcher: %s starts one %s task "
		    "per process and runs only on %s sites, not %s", l->name,
		    sched_get(l->sched)->title, sched_get(l->sched)->title,
		    sched_get(p->scheduler)->title);
	/* ddprank exec puts its flags after the program's first words. */
	if (l->words > 1 && p->launcher.n > 1 &&
	    strcmp(p->launcher.v[1], l->program[1]) != 0)
		problem(fn, arg, "launcher", "launcher: '%s' is not '%s': %s "
		    "runs as '%s %s'", p->launcher.v[1], l->program[1], l->name,
		    l->program[0], l->program[1]);
	if (!l->rdzv && p->rdzv != RDZV_STATIC)
		problem(fn, arg, "rdzv", "rdzv: %s is torchrun's rendezvous; "
		    "launcher %s has none", rdzv_names[p->rdzv], l->name);
	if (l->restarts_flag == NULL && p->max_restarts > 0)
		problem(fn, arg, "max_restarts", "max_restarts: launcher %s "
		    "does not restart workers", l->name);
}

/* The first empty word of l, counted from 1; 0 when there is none. */
static size_t
empty_word(const struct strlist *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		if (l->v[i][0] == '\0')
			return i + 1;
	return 0;
}

/* Rules between keys. */
static void
problems_cross(const struct profile *p, problem_fn *fn, void *arg)
{
	long long	 secs;
	size_t		 w;

	if (p->discovery == PROFILE_IFACE && p->iface[0] == '\0')
		problem(fn, arg, "discovery", "discovery: 'iface' needs an "
		    "iface pattern");
	if (p->gpus_per_node > 0 && p->nproc_per_node > p->gpus_per_node)
		problem(fn, arg, "nproc_per_node", "nproc_per_node: %d "
		    "processes for %d GPUs per node (one GPU each at most)",
		    p->nproc_per_node, p->gpus_per_node);
	if (p->launcher.n == 0)
		problem(fn, arg, "launcher", "launcher: empty list");
	else if ((w = empty_word(&p->launcher)) != 0)
		problem(fn, arg, "launcher", "launcher: word %zu is empty "
		    "('')", w);
	else
		problems_launcher(p, fn, arg);
	if (p->template[0] == '\0')
		problem(fn, arg, "template", "template: empty value");
	if (p->rdzv == RDZV_C10D && !p->exclusive && !p->c10d_shared)
		problem(fn, arg, "rdzv", "rdzv: c10d on nodes that are not "
		    "exclusive: " PROFILE_C10D_RISK "; set exclusive = true, "
		    "or " PROFILE_C10D_KEY);
	/* The warning would come before the job starts. */
	if ((gen_get(p->scheduler)->flags & GEN_WARN_SIGNAL) && p->requeue &&
	    profile_parse_time(p->time, &secs) == 0 && secs > 0 &&
	    p->signal_lead >= secs)
		problem(fn, arg, "signal_lead", "signal_lead: %d s is not "
		    "shorter than the time limit '%s'", p->signal_lead,
		    p->time);
	problems_container(p, fn, arg);
	problems_sched(p, fn, arg);
	problems_backend(p, fn, arg);
}

static void
profile_problems(const struct profile *p, problem_fn *fn, void *arg)
{
	problems_values(p, fn, arg);
	problems_ports(p, fn, arg);
	problems_cross(p, fn, arg);
}

static void
first_problem(void *arg, const struct key *k, const char *msg)
{
	char	**first = arg;

	(void)k;
	if (*first == NULL)
		*first = xstrdup(msg);
}

int
profile_validate(const struct profile *p, char **cause)
{
	char	*first = NULL;

	profile_problems(p, first_problem, &first);
	if (first == NULL)
		return 0;
	if (cause != NULL)
		*cause = first;
	else
		free(first);
	return -1;
}

static void
load_problem(void *arg, const struct key *k, const char *msg)
{
	struct load	*ld = arg;
	struct origin	*o = &ld->org[k - keys];

	profile_found_add(&ld->found, o->layer, o->line,
	    profile_at(o->file, o->line, msg));
}

static char *
missing(const struct layer *l, const struct key *k)
{
	char	*s;

	xasprintf(&s, "%s: missing required key '%s'", l->file, k->name);
	return s;
}

/* Applies the layers base first; NULL after reporting problems. */
static struct profile *
profile_merge(struct layer **ls, size_t n, struct strlist *errors)
{
	struct profile	*p;
	struct load	 ld;
	size_t		 i, j, before = errors->n;

	p = xmalloc(sizeof *p);
	profile_defaults(p);
	for (i = 0; i < NKEYS; i++) {
		ld.org[i].file = ls[0]->file;
		ld.org[i].line = 0;
		ld.org[i].layer = n - 1;
	}
	for (j = n; j-- > 0;) {
		strlist_add(&p->chain, ls[j]->file);
		for (i = 0; i < NKEYS; i++) {
			if (!ls[j]->set[i])
				continue;
			profile_apply(p, ls[j], i);
			ld.org[i].file = ls[j]->file;
			ld.org[i].line = profile_layer_line(ls[j], i);
			ld.org[i].layer = n - 1 - j;
		}
	}
	for (i = 0; i < NKEYS; i++) {
		if (!(keys[i].flags & KF_REQUIRED))
			continue;
		for (j = 0; j < n && !ls[j]->set[i]; j++)
			;
		if (j == n)
			strlist_addown(errors, missing(ls[0], &keys[i]));
	}
	if (p->template[0] == '\0') {
		free(p->template);
		p->template = xstrdup(gen_get(p->scheduler)->tmpl);
	}
	/* ddpgen checks setup lines as shell once the options are laid
	 * over them: where they came from, for its message. */
	i = (size_t)(profile_key_find("setup") - keys);
	if (ld.org[i].line > 0) {
		free(p->setup_at);
		p->setup_at = profile_at(ld.org[i].file, ld.org[i].line, "");
	}
	/* Each value and range was checked as its layer was parsed; what is
	 * left are the rules between keys, which only the merge can see. */
	if (errors->n == before) {
		ld.found.v = NULL;
		ld.found.n = 0;
		problems_cross(p, load_problem, &ld);
		profile_found_flush(&ld.found, errors);
	}
	if (errors->n == before)
		return p;
	profile_free(p);
	return NULL;
}

/* Loads the chain from file (text is taken) and resolves it. */
static struct profile *
profile_build(const char *name, const char *file, char *text,
    const struct strlist *dirs, struct strlist *errors)
{
	struct layer	*ls[PROFILE_MAXDEPTH];
	struct profile	*p = NULL;
	size_t		 i, n, before = errors->n;

	n = chain_load(ls, file, text, dirs, errors);
	if (errors->n == before)
		p = profile_merge(ls, n, errors);
	for (i = 0; i < n; i++)
		profile_layer_free(ls[i]);
	if (p == NULL)
		return NULL;
	free(p->name);
	p->name = xstrdup(name);
	free(p->path);
	p->path = xstrdup(file);
	return p;
}

struct profile *
profile_load(const char *site, const struct strlist *dirs,
    struct strlist *errors)
{
	struct profile	*p;
	char		*path, *text, *cause;
	int		 hit;

	if (profile_site_is_path(site))
		path = xstrdup(site);
	else if ((path = profile_site_find(site, dirs, NULL, 0, &hit)) ==
	    NULL) {
		profile_unknown_site(site, dirs, errors);
		return NULL;
	}
	if ((text = util_readfile_max(path, UTIL_READ_PROFILE_MAX, NULL,
	    &cause)) == NULL) {
		strlist_addown(errors, cause);
		free(path);
		return NULL;
	}
	p = profile_build(site, path, text, dirs, errors);
	free(path);
	return p;
}

struct profile *
profile_parse_buf(const char *name, const char *text,
    const struct strlist *dirs, struct strlist *errors)
{
	return profile_build(name, name, xstrdup(text), dirs, errors);
}

int
profile_nproc(const struct profile *p)
{
	if (p->nproc_per_node > 0)
		return p->nproc_per_node;
	return p->gpus_per_node > 0 ? p->gpus_per_node : 1;
}

/* ---- Dump ---- */

static void
dump_value(const struct profile *p, const struct key *k, struct buf *b)
{
	const struct strlist	*list;
	char			*s;
	size_t			 i;

	switch (k->type) {
	case K_LIST:
		list = key_field(p, k);
		buf_addc(b, '{');
		for (i = 0; i < list->n; i++) {
			buf_adds(b, i == 0 ? "" : ", ");
			buf_addquoted(b, list->v[i]);
		}
		buf_addc(b, '}');
		break;
	case K_RANGE:
		buf_addf(b, "{%d, %d}", p->port_min, p->port_max);
		break;
	case K_INT:
	case K_BOOL:
		s = key_scalar(p, k);
		buf_adds(b, s);
		free(s);
		break;
	default:
		s = key_scalar(p, k);
		if (k->type == K_PORT && p->port != 0)
			buf_adds(b, s);
		else
			buf_addquoted(b, s);
		free(s);
		break;
	}
}

void
profile_dump(const struct profile *p, struct buf *b)
{
	size_t	i;

	buf_adds(b, "# resolved profile ");
	buf_addvis(b, p->name);
	buf_addc(b, '\n');
	for (i = 0; i < p->chain.n; i++) {
		buf_adds(b, "# from ");
		buf_addvis(b, p->chain.v[i]);
		buf_addc(b, '\n');
	}
	for (i = 0; i < NKEYS; i++) {
		if (keys[i].type == K_EXTENDS)
			continue;
		buf_addf(b, "%s = ", keys[i].name);
		dump_value(p, &keys[i], b);
		buf_addc(b, '\n');
	}
}

void
profile_free(struct profile *p)
{
	if (p == NULL)
		return;
	profile_strings_free(p);
	free(p);
}
