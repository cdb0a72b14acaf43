/* profile.c: site profiles: schema, search path, extends, checks, dump. */
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

#include "profile.h"
#include "rx.h"
#include "util.h"
#include "xmalloc.h"

/* Files in one extends chain, the named file included. */
#define PROFILE_MAXDEPTH	16

/*
 * Every key is declared to libconfuse as a list of strings and typed
 * here: a parse callback checks each value as it is read, so a bad value
 * costs one message and the parse goes on (libconfuse stops at the
 * first error a callback returns). A list where one value is expected
 * is then a type error of ours too, not a syntax error of libconfuse.
 */
enum ktype {
	K_EXTENDS,	/* string, resolved by the chain, not stored */
	K_STR,
	K_LIST,
	K_INT,
	K_BOOL,
	K_ENUM,
	K_PORT,		/* "auto" (stored 0) or 1-65535 */
	K_RANGE		/* port_range: two ints into port_min, port_max */
};

#define KF_LINE		0x1	/* one line: no control characters */
#define KF_REQUIRED	0x2	/* set somewhere in the chain, non-empty */

struct key {
	const char		 *name;
	enum ktype		  type;
	size_t			  off;
	int			  flags;
	int			  min, max;	/* K_INT, K_RANGE */
	const char *const	 *names;	/* K_ENUM, in enum order */
	int			(*check)(const char *, char **);
};

static int	check_iface(const char *, char **);
static int	check_time(const char *, char **);
static int	check_sbatch(const char *, char **);

const char *const profile_sched_names[] = {
	[PROFILE_SLURM] = "slurm", [PROFILE_HPCPACK] = "hpcpack", NULL
};
const char *const profile_disc_names[] = {
	[PROFILE_HOSTNAME] = "hostname", [PROFILE_IFACE] = "iface", NULL
};
const char *const profile_rdzv_names[] = {
	[PROFILE_STATIC] = "static", [PROFILE_C10D] = "c10d", NULL
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

/* Enums are stored through int pointers by the generic code below. */
_Static_assert(sizeof(enum profile_sched) == sizeof(int), "enum size");
_Static_assert(sizeof(enum profile_disc) == sizeof(int), "enum size");
_Static_assert(sizeof(enum profile_rdzv) == sizeof(int), "enum size");
_Static_assert(sizeof(enum profile_shell) == sizeof(int), "enum size");
_Static_assert(sizeof(enum profile_signal) == sizeof(int), "enum size");

#define OFF(f)	offsetof(struct profile, f)

/* In struct profile order, which is also the order of the dump. */
static const struct key keys[] = {
	{ .name = "extends", .type = K_EXTENDS, .flags = KF_LINE },
	{ .name = "description", .type = K_STR, .off = OFF(description),
	  .flags = KF_LINE | KF_REQUIRED },
	{ .name = "scheduler", .type = K_ENUM, .off = OFF(scheduler),
	  .flags = KF_REQUIRED, .names = profile_sched_names },
	{ .name = "discovery", .type = K_ENUM, .off = OFF(discovery),
	  .names = profile_disc_names },
	{ .name = "iface", .type = K_STR, .off = OFF(iface),
	  .flags = KF_LINE, .check = check_iface },
	{ .name = "gpus_per_node", .type = K_INT, .off = OFF(gpus_per_node),
	  .min = 0, .max = 1024 },
	{ .name = "nproc_per_node", .type = K_INT,
	  .off = OFF(nproc_per_node), .min = 0, .max = 1024 },
	{ .name = "job_name", .type = K_STR, .off = OFF(job_name),
	  .flags = KF_LINE },
	{ .name = "job_output", .type = K_STR, .off = OFF(job_output),
	  .flags = KF_LINE },
	{ .name = "partition", .type = K_STR, .off = OFF(partition),
	  .flags = KF_LINE },
	{ .name = "account", .type = K_STR, .off = OFF(account),
	  .flags = KF_LINE },
	{ .name = "qos", .type = K_STR, .off = OFF(qos), .flags = KF_LINE },
	{ .name = "constraint", .type = K_STR, .off = OFF(constraint),
	  .flags = KF_LINE },
	{ .name = "time", .type = K_STR, .off = OFF(time), .flags = KF_LINE,
	  .check = check_time },
	{ .name = "cpus_per_task", .type = K_INT, .off = OFF(cpus_per_task),
	  .min = 0, .max = 16384 },
	{ .name = "label_output", .type = K_BOOL, .off = OFF(label_output) },
	{ .name = "sbatch_extra", .type = K_LIST, .off = OFF(sbatch_extra),
	  .flags = KF_LINE, .check = check_sbatch },
	{ .name = "env", .type = K_LIST, .off = OFF(env), .check = profile_check_env },
	{ .name = "setup", .type = K_LIST, .off = OFF(setup) },
	{ .name = "launcher", .type = K_LIST, .off = OFF(launcher) },
	{ .name = "launcher_args", .type = K_LIST, .off = OFF(launcher_args) },
	{ .name = "port", .type = K_PORT, .off = OFF(port) },
	{ .name = "port_range", .type = K_RANGE, .off = OFF(port_min),
	  .min = 1024, .max = 65535 },
	{ .name = "rdzv", .type = K_ENUM, .off = OFF(rdzv),
	  .names = profile_rdzv_names },
	{ .name = "template", .type = K_STR, .off = OFF(template),
	  .flags = KF_LINE },
	{ .name = "ddprank", .type = K_STR, .off = OFF(ddprank),
	  .flags = KF_LINE },
	{ .name = "preflight", .type = K_BOOL, .off = OFF(preflight) },
	{ .name = "node_group", .type = K_STR, .off = OFF(node_group),
	  .flags = KF_LINE },
	{ .name = "shared_dir", .type = K_STR, .off = OFF(shared_dir),
	  .flags = KF_LINE },
	{ .name = "task_shell", .type = K_ENUM, .off = OFF(task_shell),
	  .names = profile_shell_names },
	{ .name = "path", .type = K_STR, .off = OFF(path_env),
	  .flags = KF_LINE },
	{ .name = "exclusive", .type = K_BOOL, .off = OFF(exclusive) },
	{ .name = "fail_on_task_failure", .type = K_BOOL,
	  .off = OFF(fail_on_task_failure) },
	{ .name = "exchange_timeout", .type = K_INT,
	  .off = OFF(exchange_timeout), .min = 1, .max = 86400 },
	{ .name = "requeue", .type = K_BOOL, .off = OFF(requeue) },
	{ .name = "signal_lead", .type = K_INT, .off = OFF(signal_lead),
	  .min = 1, .max = 65535 },
	{ .name = "checkpoint_signal", .type = K_ENUM,
	  .off = OFF(checkpoint_signal), .names = profile_signal_names },
	{ .name = "max_requeues", .type = K_INT, .off = OFF(max_requeues),
	  .min = 0, .max = 1000 },
	{ .name = "max_restarts", .type = K_INT, .off = OFF(max_restarts),
	  .min = 0, .max = 1000 },
};
#define NKEYS	(sizeof keys / sizeof keys[0])

/*
 * The default of every key is this one item: a key still starting with
 * it after the parse was appended to with "+=", so the inherited list is
 * kept and extended, or, for a key that takes one value, refused.
 * libconfuse reads the default through its lexer, hence the octal
 * escape.
 */
#define APPEND_MARK	"\001+="
static char append_default[] = "{\"\\001+=\"}";

/* A problem, reported in file (chain order) and line order. */
struct found {
	size_t		 layer;
	int		 line;
	size_t		 seq;
	char		*msg;
};

struct foundlist {
	struct found	*v;
	size_t		 n;
};

/* One file of an extends chain, parsed. */
struct layer {
	char		*file;		/* name in messages */
	char		*real;		/* canonical path, to find cycles */
	char		*text;
	cfg_t		*cfg;
	struct foundlist errors;
	int		 parsing;
	int		 failed;	/* libconfuse stopped early */
	int		 line[NKEYS];	/* last line giving the key a value */
	char		 set[NKEYS];	/* set in this file, and valid */
	char		 bad[NKEYS];
	char		 append[NKEYS];	/* a list given with "+=" */
	char		*extends;
	int		 extends_line;
};

/* The file being parsed: libconfuse callbacks carry no user data. */
static struct layer *profile_cur;

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

static const struct key *
key_find(const char *name)
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
static char *
vis(const char *s)
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
	char	*v = vis(value);

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

int
profile_word(const char *const *names, const char *s)
{
	int	i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

static int
parse_enum(const char *const *names, const char *s, int *out,
    char **cause)
{
	struct buf	b;
	char		*v;
	int		 i;

	if ((i = profile_word(names, s)) != -1) {
		*out = i;
		return 0;
	}
	buf_init(&b);
	for (i = 0; names[i] != NULL; i++) {
		if (i > 0)
			buf_adds(&b, names[i + 1] == NULL ? " or " : ", ");
		buf_adds(&b, names[i]);
	}
	v = vis(s);
	util_fail(cause, "bad value '%s' (%s)", v, b.s);
	free(v);
	buf_free(&b);
	return -1;
}

int
profile_parse_port(const char *s, int *out, char **cause)
{
	long long	v;

	if (strcmp(s, "auto") == 0) {
		*out = 0;
		return 0;
	}
	if (strspn(s, "0123456789") != strlen(s) || *s == '\0')
		return fail_vis(cause, "bad value '", s,
		    "' (auto or 1 to 65535)");
	if (util_strtonum(s, 1, 65535, &v) == -1)
		return util_fail(cause, "value out of range: %s "
		    "(auto or 1 to 65535)", s);
	*out = (int)v;
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
static int
key_item(const struct key *k, const char *s, int *out, char **cause)
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
	if (k->type == K_ENUM && v >= 0 && v < enum_count(k->names))
		return xstrdup(k->names[v]);
	xasprintf(&s, "%d", v);
	return s;
}

/* ---- Parsing one file ---- */

/* Takes msg. */
static void
found_add(struct foundlist *fl, size_t layer, int line, char *msg)
{
	struct found	*f;

	fl->v = xreallocarray(fl->v, fl->n + 1, sizeof *fl->v);
	f = &fl->v[fl->n];
	f->layer = layer;
	f->line = line;
	f->seq = fl->n++;
	f->msg = msg;
}

static int
found_cmp(const void *a, const void *b)
{
	const struct found	*x = a, *y = b;

	if (x->layer != y->layer)
		return x->layer < y->layer ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Moves the problems to errors, sorted; errors NULL drops them. */
static void
found_flush(struct foundlist *fl, struct strlist *errors)
{
	size_t	i;

	if (fl->n > 0)
		qsort(fl->v, fl->n, sizeof *fl->v, found_cmp);
	for (i = 0; i < fl->n; i++) {
		if (errors != NULL)
			strlist_addown(errors, fl->v[i].msg);
		else
			free(fl->v[i].msg);
	}
	free(fl->v);
	fl->v = NULL;
	fl->n = 0;
}

/* "FILE:LINE: msg", or "FILE: msg" when no line applies (line 0). */
static char *
at(const char *file, int line, const char *msg)
{
	char	*s;

	if (line > 0)
		xasprintf(&s, "%s:%d: %s", file, line, msg);
	else
		xasprintf(&s, "%s: %s", file, msg);
	return s;
}

static void
layer_error(struct layer *l, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
layer_error(struct layer *l, int line, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	xvasprintf(&msg, fmt, ap);
	va_end(ap);
	found_add(&l->errors, 0, line, at(l->file, line, msg));
	free(msg);
}

/* libconfuse's messages: its own for syntax, ours for unknown keys. */
static void __attribute__((format(printf, 2, 0)))
layer_cfgerror(cfg_t *cfg, const char *fmt, va_list ap)
{
	struct layer	*l = profile_cur;
	const char	*unknown = "no such option ";
	char		*msg, *v;

	if (l == NULL)
		return;
	xvasprintf(&msg, fmt, ap);
	v = vis(msg);
	if (strncmp(v, unknown, strlen(unknown)) == 0)
		layer_error(l, cfg->line, "unknown key %s",
		    v + strlen(unknown));
	else
		layer_error(l, cfg->line, "%s", v);
	free(v);
	free(msg);
}

static int
layer_item(cfg_t *cfg, cfg_opt_t *opt, const char *value, void *result)
{
	struct layer		*l = profile_cur;
	const struct key	*k;
	char			*cause;

	*(const char **)result = value;
	if (l == NULL || !l->parsing || (k = key_find(opt->name)) == NULL)
		return 0;	/* a default, set by cfg_init */
	l->line[k - keys] = cfg->line;
	if (key_item(k, value, NULL, &cause) == -1) {
		layer_error(l, cfg->line, "%s", cause);
		free(cause);
		l->bad[k - keys] = 1;
	}
	return 0;	/* go on: every error of the file is wanted */
}

static cfg_t *
layer_cfg(void)
{
	cfg_opt_t	 opts[NKEYS + 1];
	size_t		 i;

	for (i = 0; i < NKEYS; i++) {
		opts[i] = (cfg_opt_t)CFG_STR_LIST_CB(keys[i].name, NULL,
		    CFGF_NONE, layer_item);
		/* Scalars too, so that "+=" on one is seen and refused. */
		opts[i].def.parsed = append_default;
	}
	opts[NKEYS] = (cfg_opt_t)CFG_END();
	/* Unknown keys become string options instead of ending the
	 * parse, after layer_cfgerror has reported them. */
	return cfg_init(opts, CFGF_KEYSTRVAL);
}

/* The line of the last "KEY =" or "KEY +=" in the text, for a key given
 * an empty list (no value, so no callback saw the line). 0 if none. */
static int
text_line(const char *text, const char *key)
{
	size_t		 len = strlen(key);
	int		 line = 1, found = 0;
	const char	*s = text;

	while (*s != '\0') {
		s += strspn(s, " \t");
		if (strncmp(s, key, len) == 0 &&
		    strchr(" \t=+", s[len]) != NULL && s[len] != '\0')
			found = line;
		s += strcspn(s, "\n");
		if (*s == '\n') {
			s++;
			line++;
		}
	}
	return found;
}

static int
layer_line(const struct layer *l, size_t i)
{
	if (l->line[i] > 0)
		return l->line[i];
	return text_line(l->text, keys[i].name);
}

static int
layer_range(struct layer *l, size_t i, cfg_opt_t *opt, unsigned int n)
{
	const struct key	*k = &keys[i];
	int			 lo, hi;

	if (n != 2) {
		layer_error(l, layer_line(l, i), "%s: expected two ports "
		    "{LOW, HIGH}, got %u value%s", k->name, n,
		    n == 1 ? "" : "s");
		return -1;
	}
	if (key_item(k, cfg_opt_getnstr(opt, 0), &lo, NULL) == 0 &&
	    key_item(k, cfg_opt_getnstr(opt, 1), &hi, NULL) == 0 &&
	    lo > hi) {
		layer_error(l, layer_line(l, i), "%s: low port %d above "
		    "high port %d", k->name, lo, hi);
		return -1;
	}
	return 0;
}

/* Counts of values: one for a scalar, two ordered ports for a range. */
static int
layer_count(struct layer *l, size_t i, cfg_opt_t *opt, unsigned int n)
{
	const char	*name = keys[i].name;

	if (keys[i].type == K_LIST)
		return 0;
	/* After a syntax error, an empty key may be the one the parse
	 * stopped in: no second message for it. */
	if (n == 0 && l->failed)
		return -1;
	if (keys[i].type == K_RANGE)
		return layer_range(l, i, opt, n);
	if (n == 1)
		return 0;
	if (n == 0)
		layer_error(l, layer_line(l, i), "%s: expected one value, "
		    "got an empty list", name);
	else
		layer_error(l, layer_line(l, i), "%s: expected one value, "
		    "got a list of %u", name, n);
	return -1;
}

/* After the parse: which keys this file set, and how. */
static void
layer_finish(struct layer *l)
{
	cfg_opt_t	*opt;
	unsigned int	 n;
	size_t		 i;

	for (i = 0; i < NKEYS; i++) {
		opt = cfg_getopt(l->cfg, keys[i].name);
		if (opt == NULL || !(opt->flags & CFGF_MODIFIED))
			continue;
		n = cfg_opt_size(opt);
		if (n > 0 &&
		    strcmp(cfg_opt_getnstr(opt, 0), APPEND_MARK) == 0) {
			l->append[i] = 1;
			n--;
		}
		/* n is 0 where a syntax error stopped the parse. */
		if (l->append[i] && keys[i].type != K_LIST && n > 0) {
			layer_error(l, layer_line(l, i), "%s: takes %s: use "
			    "'=', not '+='", keys[i].name, keys[i].type ==
			    K_RANGE ? "two ports" : "one value");
			continue;
		}
		if (l->bad[i] || layer_count(l, i, opt, n) == -1)
			continue;
		l->set[i] = 1;
		if (keys[i].type == K_EXTENDS) {
			l->extends = xstrdup(cfg_opt_getnstr(opt, 0));
			l->extends_line = layer_line(l, i);
		}
	}
}

/*
 * Before libconfuse sees a file, a scan that follows its lexer's rules
 * (lexer.l in libconfuse 3.3) rewrites three things:
 * - Comments become blanks, newlines kept. libconfuse 3.3 counts two
 *   lines too many for every # or // comment and one for every slash-star
 *   comment, so with comments left in, errors named the wrong line.
 * - In "...", a "${" becomes "\${": libconfuse would replace ${NAME}
 *   from ddpgen's own environment, an unset name silently by nothing.
 *   Profile values reach the script as written; "\$" stays "$", so
 *   profiles that escaped it still mean the same.
 * - An unquoted ${...} (expanded the same way) is an error.
 * It also finds a file that ends inside a quoted string or a comment, or
 * a backslash-digit escape the lexer rejects: libconfuse's lexer leaves
 * its state behind then, and the next cfg_init in the process (the next
 * file of an extends chain, the next site listed) aborts. So such a
 * file never reaches libconfuse.
 * The lexer's rules: # starts a comment anywhere; at the start of a
 * token two slashes start one (flex prefers the comment rule, which
 * matches to the end of the line), and slash-star opens a comment
 * closed by star-slash; inside a word, slashes are part of it; quotes
 * open strings; in "..." a backslash escapes the next byte and \DIGITS
 * must be an octal escape of at most three digits and value 255; in
 * '...' a backslash takes the next byte along; ${...} at the start of a
 * token runs to the first } whatever it holds.
 */
#define LEX_NONWORD	" #\"'\t\n\r={}()+,*"

struct lexscan {
	const char	*s;
	struct buf	 out;
	int		 line;
	const char	*what;		/* the problem, or NULL */
	int		 at;		/* its line */
	char		 msg[160];	/* what, when it is made up */
};

/* Copies n bytes along. */
static void
lexscan_copy(struct lexscan *x, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		x->line += x->s[i] == '\n';
	buf_addn(&x->out, x->s, n);
	x->s += n;
}

/* Blanks n bytes of a comment, keeping its newlines. */
static void
lexscan_blank(struct lexscan *x, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		x->line += x->s[i] == '\n';
		buf_addc(&x->out, x->s[i] == '\n' ? '\n' : ' ');
	}
	x->s += n;
}

static void
lexscan_fail(struct lexscan *x, const char *what, int line)
{
	x->what = what;
	x->at = line;
}

/* \DIGITS in a double-quoted string: the length the lexer accepts, or 0
 * when it rejects the escape. */
static size_t
lexscan_digits(const char *s)
{
	const char	*d = s + 1;
	size_t		 n = strspn(d, "0123456789");
	size_t		 o = strspn(d, "01234567");
	unsigned int	 v = 0;
	size_t		 i;

	if (o > 3)
		o = 3;
	for (i = 0; i < o; i++)
		v = v * 8 + (unsigned int)(d[i] - '0');
	return n > o || v > 0xff ? 0 : n + 1;
}

static void
lexscan_dq(struct lexscan *x)
{
	int	open = x->line;
	size_t	n;

	lexscan_copy(x, 1);
	while (*x->s != '\0' && *x->s != '"') {
		if (x->s[0] == '\\' && x->s[1] >= '0' && x->s[1] <= '9') {
			if ((n = lexscan_digits(x->s)) == 0) {
				lexscan_fail(x, "bad escape sequence", x->line);
				return;
			}
			lexscan_copy(x, n);
		} else if (x->s[0] == '\\' && x->s[1] != '\0')
			lexscan_copy(x, 2);
		else {
			if (x->s[0] == '$' && x->s[1] == '{')
				buf_addc(&x->out, '\\');
			lexscan_copy(x, 1);
		}
	}
	if (*x->s == '\0')
		lexscan_fail(x, "unterminated string", open);
	else
		lexscan_copy(x, 1);
}

static void
lexscan_sq(struct lexscan *x)
{
	int	open = x->line;

	lexscan_copy(x, 1);
	while (*x->s != '\0' && *x->s != '\'')
		lexscan_copy(x, x->s[0] == '\\' && x->s[1] != '\0' ? 2 : 1);
	if (*x->s == '\0')
		lexscan_fail(x, "unterminated string", open);
	else
		lexscan_copy(x, 1);
}

static void
lexscan_comment(struct lexscan *x)
{
	int		 open = x->line;
	const char	*end = strstr(x->s + 2, "*/");

	if (end == NULL) {
		lexscan_fail(x, "unterminated comment", open);
		return;
	}
	lexscan_blank(x, (size_t)(end + 2 - x->s));
}

/* An unquoted ${...}: the problem, with the text it names. */
static void
lexscan_unquoted(struct lexscan *x, const char *end)
{
	char		*v, *word = xstrndup(x->s, (size_t)(end + 1 - x->s));

	v = vis(word);
	snprintf(x->msg, sizeof x->msg, "unquoted '%.60s%s': quote it "
	    "(profiles expand no variables when they load)", v,
	    strlen(v) > 60 ? "..." : "");
	free(v);
	free(word);
	lexscan_fail(x, x->msg, x->line);
}

/* The text libconfuse is given, in *out; returns the problem (and its
 * line in *line), which the caller frees, or NULL. */
static char *
layer_lex(const char *text, char **out, int *line)
{
	struct lexscan	 x = { .s = text, .line = 1 };
	const char	*end;
	int		 word = 0;

	buf_init(&x.out);
	while (*x.s != '\0' && x.what == NULL) {
		if (*x.s == '#')
			lexscan_blank(&x, strcspn(x.s, "\n"));
		else if (!word && x.s[0] == '/' && x.s[1] == '/')
			lexscan_blank(&x, strcspn(x.s, "\n"));
		else if (!word && x.s[0] == '/' && x.s[1] == '*')
			lexscan_comment(&x);
		else if (!word && x.s[0] == '$' && x.s[1] == '{' &&
		    (end = strchr(x.s, '}')) != NULL)
			lexscan_unquoted(&x, end);
		else if (*x.s == '"')
			lexscan_dq(&x);
		else if (*x.s == '\'')
			lexscan_sq(&x);
		else {
			word = strchr(LEX_NONWORD, *x.s) == NULL;
			lexscan_copy(&x, 1);
			continue;
		}
		word = 0;
	}
	*out = buf_take(&x.out);
	*line = x.at;
	return x.what == NULL ? NULL : xstrdup(x.what);
}

static void
layer_parse(struct layer *l)
{
	FILE		*fp;
	char		*what, *text;
	size_t		 before = l->errors.n;
	int		 rc = CFG_SUCCESS, open;

	if ((l->cfg = layer_cfg()) == NULL) {
		layer_error(l, 0, "out of memory");
		return;
	}
	cfg_set_error_function(l->cfg, layer_cfgerror);
	what = layer_lex(l->text, &text, &open);
	/* From here on, the text is what libconfuse reads. */
	free(l->text);
	l->text = text;
	profile_cur = l;
	l->parsing = 1;
	/* fmemopen refuses an empty buffer on some C libraries. */
	if (what != NULL) {
		layer_error(l, open, "%s", what);
		free(what);
		rc = CFG_PARSE_ERROR;
	} else if (*l->text != '\0') {
		if ((fp = fmemopen(l->text, strlen(l->text), "r")) == NULL)
			layer_error(l, 0, "%s", strerror(errno));
		else {
			rc = cfg_parse_fp(l->cfg, fp);
			fclose(fp);
		}
	}
	l->parsing = 0;
	profile_cur = NULL;
	l->failed = rc != CFG_SUCCESS;
	/* The lexer ends some errors without a message. */
	if (l->failed && l->errors.n == before)
		layer_error(l, l->cfg->line, "syntax error");
	layer_finish(l);
}

/* Takes text; file names the layer in messages. */
static struct layer *
layer_new(const char *file, char *text)
{
	struct layer	*l;

	l = xcalloc(1, sizeof *l);
	l->file = xstrdup(file);
	if ((l->real = realpath(file, NULL)) == NULL)
		l->real = xstrdup(file);
	l->text = text;
	layer_parse(l);
	return l;
}

static void
layer_free(struct layer *l)
{
	if (l->cfg != NULL)
		cfg_free(l->cfg);
	free(l->file);
	free(l->real);
	free(l->text);
	free(l->extends);
	found_flush(&l->errors, NULL);
	free(l);
}

/* ---- Search path and sites ---- */

static int
is_file(const char *path)
{
	struct stat	st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

void
profile_searchpath(struct strlist *dirs,
    const char *(*getenv_fn)(const char *), const char *exedir)
{
	util_searchpath(dirs, "DDPGEN_PROFILE_PATH", "profiles", getenv_fn,
	    exedir);
}

/* A site is a path when it names a file rather than a profile. */
static int
site_is_path(const char *site)
{
	size_t	len = strlen(site);

	return strchr(site, '/') != NULL ||
	    (len >= 5 && strcmp(site + len - 5, ".conf") == 0);
}

/*
 * The first DIR/NAME.conf along dirs that is not already in the chain
 * ls[0..n-1]: a user's cori.conf can so extend the shipped cori. *hit
 * gets the index of a chain file that was skipped, or -1.
 */
static char *
site_find(const char *name, const struct strlist *dirs,
    struct layer **ls, size_t n, int *hit)
{
	char	*path, *real;
	size_t	 i, j;

	*hit = -1;
	for (i = 0; i < dirs->n; i++) {
		xasprintf(&path, "%s/%s.conf", dirs->v[i], name);
		if (!is_file(path) || (real = realpath(path, NULL)) == NULL) {
			free(path);
			continue;
		}
		for (j = 0; j < n; j++)
			if (strcmp(ls[j]->real, real) == 0)
				break;
		free(real);
		if (j == n)
			return path;
		if (*hit == -1)
			*hit = (int)j;
		free(path);
	}
	return NULL;
}

static int
site_cmp(const void *a, const void *b)
{
	const struct profile_site	*x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* Adds dir/file as a site unless its name is known already. */
static void
site_add(struct profile_site **v, size_t *n, const char *dir,
    const char *file)
{
	size_t	 i, len = strlen(file) - 5;	/* without ".conf" */
	char	*path;

	for (i = 0; i < *n; i++)
		if (strncmp((*v)[i].name, file, len) == 0 &&
		    (*v)[i].name[len] == '\0')
			return;
	xasprintf(&path, "%s/%s", dir, file);
	if (!is_file(path)) {
		free(path);
		return;
	}
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[*n].name = xstrndup(file, len);
	(*v)[*n].description = NULL;
	(*v)[(*n)++].path = path;
}

/* Every NAME.conf along dirs, first occurrence of a name, sorted; the
 * descriptions are left NULL. */
static size_t
site_scan(const struct strlist *dirs, struct profile_site **out)
{
	struct profile_site	*v = NULL;
	struct dirent		*de;
	DIR			*d;
	size_t			 i, n = 0, len;

	for (i = 0; i < dirs->n; i++) {
		if ((d = opendir(dirs->v[i])) == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			len = strlen(de->d_name);
			if (de->d_name[0] != '.' && len > 5 &&
			    strcmp(de->d_name + len - 5, ".conf") == 0)
				site_add(&v, &n, dirs->v[i], de->d_name);
		}
		closedir(d);
	}
	if (n > 0)
		qsort(v, n, sizeof *v, site_cmp);
	*out = v;
	return n;
}

static void
unknown_site(const char *site, const struct strlist *dirs,
    struct strlist *errors)
{
	struct profile_site	*v;
	struct buf		 b;
	size_t			 i, n;

	buf_init(&b);
	buf_adds(&b, "unknown site '");
	buf_addvis(&b, site);
	n = site_scan(dirs, &v);
	if (n == 0)
		buf_adds(&b, "' (no profiles along the search path)");
	else
		buf_adds(&b, "' (known:");
	for (i = 0; i < n; i++)
		buf_addf(&b, "%s %s", i == 0 ? "" : ",", v[i].name);
	if (n > 0)
		buf_addc(&b, ')');
	strlist_addown(errors, buf_take(&b));
	profile_sites_free(v, n);
}

/* ---- The extends chain ---- */

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
	layer_error(l, l->extends_line, "extends cycle: %s", b.s);
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

	if (!site_is_path(l->extends))
		path = site_find(l->extends, dirs, ls, n, &hit);
	else if ((real = realpath((path = chain_path(l)), NULL)) != NULL) {
		for (i = 0; i < n && hit == -1; i++)
			if (strcmp(ls[i]->real, real) == 0)
				hit = (int)i;
		free(real);
		if (hit != -1 || !is_file(path)) {
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
		v = vis(l->extends);
		layer_error(l, l->extends_line, "extends target '%s' not "
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

	ls[n++] = l = layer_new(file, text);
	while (l->extends != NULL) {
		if (n == PROFILE_MAXDEPTH) {
			layer_error(l, l->extends_line, "extends chain longer "
			    "than %d files", PROFILE_MAXDEPTH);
			break;
		}
		if ((path = chain_next(ls, n, dirs)) == NULL)
			break;
		if ((text = util_readfile(path, NULL, &cause)) == NULL) {
			layer_error(l, l->extends_line, "extends: %s", cause);
			free(cause);
			free(path);
			break;
		}
		ls[n++] = l = layer_new(path, text);
		free(path);
	}
	for (i = 0; i < n; i++)
		found_flush(&ls[i]->errors, errors);
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
	p->discovery = PROFILE_HOSTNAME;
	p->port_min = 20000;
	p->port_max = 29999;
	p->rdzv = PROFILE_STATIC;
	p->task_shell = PROFILE_SHELL_LOGIN_INTERACTIVE;
	p->label_output = 1;
	p->exclusive = 1;
	p->preflight = 1;
	p->fail_on_task_failure = 1;
	p->exchange_timeout = 300;
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
		if (k->off == OFF(env))
			env_dedupe(list);
		break;
	case K_RANGE:
		key_item(k, cfg_opt_getnstr(opt, 0), &p->port_min, NULL);
		key_item(k, cfg_opt_getnstr(opt, 1), &p->port_max, NULL);
		break;
	default:
		key_item(k, cfg_opt_getnstr(opt, 0), key_field(p, k), NULL);
		break;
	}
}

typedef void	problem_fn(void *, const struct key *, const char *);

static void
problems_item(const struct key *k, const char *s, problem_fn *fn, void *arg)
{
	char	*cause;

	if (key_item(k, s, NULL, &cause) == -1) {
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
	fn(arg, key_find(key), msg);
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

/* Rules between keys. */
static void
problems_cross(const struct profile *p, problem_fn *fn, void *arg)
{
	long long	 secs;
	char		*v;

	if (p->discovery == PROFILE_IFACE && p->iface[0] == '\0')
		problem(fn, arg, "discovery", "discovery: 'iface' needs an "
		    "iface pattern");
	if (p->gpus_per_node > 0 && p->nproc_per_node > p->gpus_per_node)
		problem(fn, arg, "nproc_per_node", "nproc_per_node: %d "
		    "processes for %d GPUs per node (one GPU each at most)",
		    p->nproc_per_node, p->gpus_per_node);
	if (p->launcher.n == 0)
		problem(fn, arg, "launcher", "launcher: empty list");
	if (p->template[0] == '\0')
		problem(fn, arg, "template", "template: empty value");
	/* The warning would come before the job starts. */
	if (p->scheduler == PROFILE_SLURM && p->requeue &&
	    profile_parse_time(p->time, &secs) == 0 && secs > 0 &&
	    p->signal_lead >= secs)
		problem(fn, arg, "signal_lead", "signal_lead: %d s is not "
		    "shorter than the time limit '%s'", p->signal_lead,
		    p->time);
	if (p->scheduler != PROFILE_HPCPACK)
		return;
	if (p->shared_dir[0] != '/') {
		v = vis(p->shared_dir);
		problem(fn, arg, "shared_dir", "shared_dir: '%s' is not an "
		    "absolute path (hpcpack nodes exchange addresses there)",
		    v);
		free(v);
	}
	if (p->task_shell == PROFILE_SHELL_PLAIN && p->path_env[0] == '\0')
		problem(fn, arg, "task_shell", "task_shell: 'plain' needs "
		    "path (the node agent's PATH is minimal)");
	/* HPC Pack's RuntimeSeconds, cmd's set /a and PowerShell's [int]
	 * are 32-bit. */
	if (profile_parse_time(p->time, &secs) == 0 && secs > INT_MAX)
		problem(fn, arg, "time", "time: '%s' is %lld seconds; HPC Pack "
		    "takes at most %d", p->time, secs, INT_MAX);
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

	found_add(&ld->found, o->layer, o->line, at(o->file, o->line, msg));
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
			ld.org[i].line = layer_line(ls[j], i);
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
		p->template = xstrdup(p->scheduler == PROFILE_HPCPACK ?
		    "hpcpack.xml" : "slurm.sh");
	}
	/* Each value and range was checked as its layer was parsed; what is
	 * left are the rules between keys, which only the merge can see. */
	if (errors->n == before) {
		ld.found.v = NULL;
		ld.found.n = 0;
		problems_cross(p, load_problem, &ld);
		found_flush(&ld.found, errors);
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
		layer_free(ls[i]);
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

	if (site_is_path(site))
		path = xstrdup(site);
	else if ((path = site_find(site, dirs, NULL, 0, &hit)) == NULL) {
		unknown_site(site, dirs, errors);
		return NULL;
	}
	if ((text = util_readfile(path, NULL, &cause)) == NULL) {
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

/* ---- Slurm time ---- */

/* Up to three ':'-separated fields of at most 8 digits each. Returns
 * the count, or -1. */
static int
time_fields(const char *s, long long *f)
{
	size_t		len;
	int		n = 0;

	for (;;) {
		len = strspn(s, "0123456789");
		if (len == 0 || len > 8 || n == 3)
			return -1;
		f[n++] = strtoll(s, NULL, 10);
		s += len;
		if (*s == '\0')
			return n;
		if (*s++ != ':')
			return -1;
	}
}

int
profile_parse_time(const char *s, long long *seconds)
{
	long long	 f[3], d = 0, h = 0, m = 0, sec = 0, total;
	const char	*dash;
	int		 n;

	if (strcasecmp(s, "UNLIMITED") == 0 || strcasecmp(s, "INFINITE") == 0) {
		if (seconds != NULL)
			*seconds = -1;
		return 0;
	}
	if ((dash = strchr(s, '-')) != NULL) {
		if (dash == s || dash - s > 8 ||
		    strspn(s, "0123456789") != (size_t)(dash - s))
			return -1;
		d = strtoll(s, NULL, 10);
		s = dash + 1;
	}
	if ((n = time_fields(s, f)) == -1)
		return -1;
	if (dash != NULL) {		/* D-H, D-H:M, D-H:M:S */
		h = f[0];
		m = n > 1 ? f[1] : 0;
		sec = n > 2 ? f[2] : 0;
		if (h > 23 || m > 59 || sec > 59)
			return -1;
	} else if (n == 3) {		/* H:M:S */
		h = f[0];
		m = f[1];
		sec = f[2];
		if (m > 59 || sec > 59)
			return -1;
	} else {			/* M, M:S */
		m = f[0];
		sec = n > 1 ? f[1] : 0;
		if (n > 1 && sec > 59)
			return -1;
	}
	total = ((d * 24 + h) * 60 + m) * 60 + sec;
	if (seconds != NULL)
		*seconds = total == 0 ? -1 : total;	/* as Slurm: 0 = none */
	return 0;
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

/* ---- Listing ---- */

size_t
profile_list(const struct strlist *dirs, struct profile_site **out)
{
	struct profile_site	*v;
	struct profile		*p;
	struct strlist		 errors;
	size_t			 i, n;

	n = site_scan(dirs, &v);
	for (i = 0; i < n; i++) {
		strlist_init(&errors);
		if ((p = profile_load(v[i].path, dirs, &errors)) != NULL) {
			v[i].description = xstrdup(p->description);
			profile_free(p);
		} else
			xasprintf(&v[i].description, "(error: %s)",
			    errors.n > 0 ? errors.v[0] : "unknown");
		strlist_free(&errors);
	}
	*out = v;
	return n;
}

void
profile_sites_free(struct profile_site *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].description);
		free(v[i].path);
	}
	free(v);
}

void
profile_free(struct profile *p)
{
	size_t	i;

	if (p == NULL)
		return;
	for (i = 0; i < NKEYS; i++) {
		if (keys[i].type == K_STR)
			free(*(char **)key_field(p, &keys[i]));
		else if (keys[i].type == K_LIST)
			strlist_free(key_field(p, &keys[i]));
	}
	free(p->name);
	free(p->path);
	strlist_free(&p->chain);
	free(p);
}
