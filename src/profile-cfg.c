/* profile-cfg.c: libconfuse, adapted: every key declared as a list of
 * strings and typed by a parse callback, the "+=" mark, messages with
 * file and line (libconfuse's rewritten, lines recovered), one file of
 * an extends chain parsed at a time (profile_cur). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <confuse.h>

#include "profile.h"
#include "profile-int.h"
#include "util.h"
#include "xmalloc.h"

/*
 * The default of every key is this one item: a key still starting with
 * it after the parse was appended to with "+=", so the inherited list is
 * kept and extended, or, for a key that takes one value, refused.
 * libconfuse reads the default through its lexer, hence the octal
 * escape.
 */
#define APPEND_MARK	"\001+="
static char append_default[] = "{\"\\001+=\"}";

/* The file being parsed: libconfuse callbacks carry no user data. */
static struct layer *profile_cur;

/* Takes msg. */
void
profile_found_add(struct foundlist *fl, size_t layer, int line, char *msg)
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
void
profile_found_flush(struct foundlist *fl, struct strlist *errors)
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
char *
profile_at(const char *file, int line, const char *msg)
{
	char	*s;

	if (line > 0)
		xasprintf(&s, "%s:%d: %s", file, line, msg);
	else
		xasprintf(&s, "%s: %s", file, msg);
	return s;
}

void
profile_layer_error(struct layer *l, int line, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	xvasprintf(&msg, fmt, ap);
	va_end(ap);
	profile_found_add(&l->errors, 0, line, profile_at(l->file, line, msg));
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
	v = profile_vis(msg);
	if (strncmp(v, unknown, strlen(unknown)) == 0)
		profile_layer_error(l, cfg->line, "unknown key %s",
		    v + strlen(unknown));
	else
		profile_layer_error(l, cfg->line, "%s", v);
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
	if (l == NULL || !l->parsing ||
	    (k = profile_key_find(opt->name)) == NULL)
		return 0;	/* a default, set by cfg_init */
	l->line[k - profile_keys] = cfg->line;
	if (profile_key_item(k, value, NULL, &cause) == -1) {
		profile_layer_error(l, cfg->line, "%s", cause);
		free(cause);
		l->bad[k - profile_keys] = 1;
	}
	return 0;	/* go on: every error of the file is wanted */
}

static cfg_t *
layer_cfg(void)
{
	cfg_opt_t	*opts;
	cfg_t		*cfg;
	size_t		 i;

	opts = xcalloc(profile_nkeys + 1, sizeof *opts);
	for (i = 0; i < profile_nkeys; i++) {
		opts[i] = (cfg_opt_t)CFG_STR_LIST_CB(profile_keys[i].name, NULL,
		    CFGF_NONE, layer_item);
		/* Scalars too, so that "+=" on one is seen and refused. */
		opts[i].def.parsed = append_default;
	}
	opts[profile_nkeys] = (cfg_opt_t)CFG_END();
	/* Unknown keys become string options instead of ending the
	 * parse, after layer_cfgerror has reported them. cfg_init copies
	 * the options. */
	cfg = cfg_init(opts, CFGF_KEYSTRVAL);
	free(opts);
	return cfg;
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

int
profile_layer_line(const struct layer *l, size_t i)
{
	if (l->line[i] > 0)
		return l->line[i];
	return text_line(l->text, profile_keys[i].name);
}

static int
layer_range(struct layer *l, size_t i, cfg_opt_t *opt, unsigned int n)
{
	const struct key	*k = &profile_keys[i];
	int			 lo, hi;

	if (n != 2) {
		profile_layer_error(l, profile_layer_line(l, i), "%s: expected two ports "
		    "{LOW, HIGH}, got %u value%s", k->name, n,
		    n == 1 ? "" : "s");
		return -1;
	}
	if (profile_key_item(k, cfg_opt_getnstr(opt, 0), &lo, NULL) == 0 &&
	    profile_key_item(k, cfg_opt_getnstr(opt, 1), &hi, NULL) == 0 &&
	    lo > hi) {
		profile_layer_error(l, profile_layer_line(l, i), "%s: low port %d above "
		    "high port %d", k->name, lo, hi);
		return -1;
	}
	return 0;
}

/* Counts of values: one for a scalar, two ordered ports for a range. */
static int
layer_count(struct layer *l, size_t i, cfg_opt_t *opt, unsigned int n)
{
	const char	*name = profile_keys[i].name;

	if (profile_keys[i].type == K_LIST)
		return 0;
	/* After a syntax error, an empty key may be the one the parse
	 * stopped in: no second message for it. */
	if (n == 0 && l->failed)
		return -1;
	if (profile_keys[i].type == K_RANGE)
		return layer_range(l, i, opt, n);
	if (n == 1)
		return 0;
	if (n == 0)
		profile_layer_error(l, profile_layer_line(l, i), "%s: expected one value, "
		    "got an empty list", name);
	else
		profile_layer_error(l, profile_layer_line(l, i), "%s: expected one value, "
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

	for (i = 0; i < profile_nkeys; i++) {
		opt = cfg_getopt(l->cfg, profile_keys[i].name);
		if (opt == NULL || !(opt->flags & CFGF_MODIFIED))
			continue;
		n = cfg_opt_size(opt);
		if (n > 0 &&
		    strcmp(cfg_opt_getnstr(opt, 0), APPEND_MARK) == 0) {
			l->append[i] = 1;
			n--;
		}
		/* n is 0 where a syntax error stopped the parse. */
		if (l->append[i] && profile_keys[i].type != K_LIST && n > 0) {
			profile_layer_error(l, profile_layer_line(l, i), "%s: takes %s: use "
			    "'=', not '+='", profile_keys[i].name, profile_keys[i].type ==
			    K_RANGE ? "two ports" : "one value");
			continue;
		}
		if (l->bad[i] || layer_count(l, i, opt, n) == -1)
			continue;
		l->set[i] = 1;
		if (profile_keys[i].type == K_EXTENDS) {
			l->extends = xstrdup(cfg_opt_getnstr(opt, 0));
			l->extends_line = profile_layer_line(l, i);
		}
	}
}

static void
layer_parse(struct layer *l)
{
	FILE		*fp;
	char		*what, *text;
	size_t		 before = l->errors.n;
	int		 rc = CFG_SUCCESS, open;

	if ((l->cfg = layer_cfg()) == NULL) {
		profile_layer_error(l, 0, "out of memory");
		return;
	}
	cfg_set_error_function(l->cfg, layer_cfgerror);
	what = profile_lex(l->text, &text, &open);
	/* From here on, the text is what libconfuse reads. */
	free(l->text);
	l->text = text;
	profile_cur = l;
	l->parsing = 1;
	/* fmemopen refuses an empty buffer on some C libraries. */
	if (what != NULL) {
		profile_layer_error(l, open, "%s", what);
		free(what);
		rc = CFG_PARSE_ERROR;
	} else if (*l->text != '\0') {
		if ((fp = fmemopen(l->text, strlen(l->text), "r")) == NULL)
			profile_layer_error(l, 0, "%s", strerror(errno));
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
		profile_layer_error(l, l->cfg->line, "syntax error");
	layer_finish(l);
}

/* Takes text; file names the layer in messages. */
struct layer *
profile_layer_new(const char *file, char *text)
{
	struct layer	*l;

	l = xcalloc(1, sizeof *l);
	l->line = xcalloc(profile_nkeys, sizeof *l->line);
	l->set = xcalloc(profile_nkeys, 1);
	l->bad = xcalloc(profile_nkeys, 1);
	l->append = xcalloc(profile_nkeys, 1);
	l->file = xstrdup(file);
	if ((l->real = realpath(file, NULL)) == NULL)
		l->real = xstrdup(file);
	l->text = text;
	layer_parse(l);
	return l;
}

void
profile_layer_free(struct layer *l)
{
	if (l->cfg != NULL)
		cfg_free(l->cfg);
	free(l->file);
	free(l->real);
	free(l->text);
	free(l->extends);
	free(l->line);
	free(l->set);
	free(l->bad);
	free(l->append);
	profile_found_flush(&l->errors, NULL);
	free(l);
}
