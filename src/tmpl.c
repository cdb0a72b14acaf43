/* tmpl.c: the template engine: parse once into a tree, render with escapes. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"
#include "tmpl.h"
#include "util.h"
#include "xmalloc.h"

/* Bounds the recursion of rendering and freeing, whatever the input. */
#define TMPL_MAXDEPTH	64
/* How much of a bad tag an error message quotes. */
#define TMPL_SHOWTAG	40

enum tmpl_type {
	TMPL_STRING,
	TMPL_LIST
};

struct tmpl_item {
	char			*s;	/* a string item, or */
	struct tmpl_vars	*rec;	/* a record */
};

struct tmpl_var {
	char			*name;
	enum tmpl_type		 type;
	char			*s;
	struct tmpl_item	*items;
	size_t			 n;
	size_t			 cap;
	struct strlist		 fields;	/* of its records, declared */
};

struct tmpl_vars {
	struct tmpl_var		*v;
	size_t			 n;
	size_t			 cap;
};

enum tmpl_kind {
	TMPL_TEXT,
	TMPL_VAR,
	TMPL_EACH,	/* {{#name}} */
	TMPL_IF,	/* {{?name}} */
	TMPL_UNLESS	/* {{^name}} */
};

/* The most filters one substitution may chain (raw is not one). */
#define TMPL_MAX_FILTERS	4

/* The escapes, all of one shape; quote_sh never fails. */
typedef int	(*tmpl_quote_fn)(struct buf *, const char *, char **);

static int
tmpl_quote_sh(struct buf *b, const char *s, char **cause)
{
	(void)cause;
	quote_sh(b, s);
	return 0;
}

static int
tmpl_quote_shvars(struct buf *b, const char *s, char **cause)
{
	(void)cause;
	quote_sh_vars(b, s);
	return 0;
}

/* The contexts, by file extension: the one place that knows them. */
static const struct tmpl_context {
	const char	*ext;
	enum tmpl_ctx	 ctx;
	tmpl_quote_fn	 quote;
} tmpl_contexts[] = {
	{ ".sh", TMPL_SH, tmpl_quote_sh },
	{ ".xml", TMPL_XML, quote_xml },
	{ ".cmd", TMPL_CMD, quote_cmd },
	{ ".ps1", TMPL_PS, quote_ps },
};
#define TMPL_NCONTEXTS	(sizeof tmpl_contexts / sizeof tmpl_contexts[0])

/* The engine's filters; a caller adds its own (struct tmpl_opts). */
static const struct tmpl_filter tmpl_filters[] = {
	{ "sh", tmpl_quote_sh, 1 },
	{ "shvars", tmpl_quote_shvars, 1 },
	{ "cmd", quote_cmd, 1 },
	{ "ps", quote_ps, 1 },
	{ "xml", quote_xml, 0 },
	{ NULL, NULL, 0 }
};

struct tmpl_node;

struct tmpl_nodes {
	struct tmpl_node	**v;
	size_t			  n;
	size_t			  cap;
};

struct tmpl_node {
	enum tmpl_kind		 kind;
	const char		*file;	/* the template or partial, in
					   struct tmpl's files */
	unsigned int		 line;
	char			*text;	/* the text, or the variable's name */
	size_t			 len;
	const struct tmpl_filter **filters;
	size_t			 nfilters;
	int			 raw;
	struct tmpl_nodes	 body;
};

struct tmpl {
	char			*name;
	enum tmpl_ctx		 ctx;
	struct tmpl_nodes	 body;
	struct strlist		 files;	/* the partials' names */
};

/* One file being parsed: the template, or a partial inside it. */
struct tmpl_parser {
	struct tmpl		*t;
	const char		*name;	/* this file's, for messages */
	const char		*text;
	const char		*p;	/* first byte not yet consumed */
	unsigned int		 line;	/* line of p */
	struct tmpl_nodes	*root;	/* where this file's nodes go */
	struct tmpl_node	*open[TMPL_MAXDEPTH];
	size_t			 depth;
	size_t			 base;	/* sections open in the includers */
	size_t			 include; /* partials between it and the
					   template */
	size_t			*total;	/* bytes read, all files */
	const struct tmpl_parser *up;	/* the includer, or NULL */
	const struct tmpl_opts	*opts;
	char			**cause;
};

/* One level of the name scope while rendering: the top variables, a
 * record of a {{#list}} or a string item of one. */
struct tmpl_scope {
	const struct tmpl_vars	*vars;
	const char		*item;
	const struct tmpl_scope	*up;
};

/* A variable's value as the filters see it: one string or a list. */
struct tmpl_value {
	const char		*s;
	const struct tmpl_item	*items;
	size_t			 n;
	int			 islist;
};

static void	tmpl_nodes_free(struct tmpl_nodes *);
static int	tmpl_render_nodes(const struct tmpl *,
		    const struct tmpl_nodes *, const struct tmpl_scope *,
		    struct buf *, char **);

/* Variables. */

struct tmpl_vars *
tmpl_vars_new(void)
{
	return xcalloc(1, sizeof (struct tmpl_vars));
}

static void
tmpl_var_clear(struct tmpl_var *v)
{
	size_t	i;

	for (i = 0; i < v->n; i++) {
		free(v->items[i].s);
		tmpl_vars_free(v->items[i].rec);
	}
	free(v->items);
	free(v->s);
	strlist_free(&v->fields);
	v->items = NULL;
	v->s = NULL;
	v->n = v->cap = 0;
}

void
tmpl_vars_free(struct tmpl_vars *vars)
{
	size_t	i;

	if (vars == NULL)
		return;
	for (i = 0; i < vars->n; i++) {
		tmpl_var_clear(&vars->v[i]);
		free(vars->v[i].name);
	}
	free(vars->v);
	free(vars);
}

static struct tmpl_var *
tmpl_vars_find(const struct tmpl_vars *vars, const char *name)
{
	size_t	i;

	for (i = 0; i < vars->n; i++) {
		if (strcmp(vars->v[i].name, name) == 0)
			return &vars->v[i];
	}
	return NULL;
}

/* Finds name or adds it as an empty list. */
static struct tmpl_var *
tmpl_vars_slot(struct tmpl_vars *vars, const char *name)
{
	struct tmpl_var	*v;

	if ((v = tmpl_vars_find(vars, name)) != NULL)
		return v;
	if (vars->n == vars->cap) {
		vars->cap = vars->cap == 0 ? 16 : vars->cap * 2;
		vars->v = xreallocarray(vars->v, vars->cap, sizeof *vars->v);
	}
	v = &vars->v[vars->n++];
	memset(v, 0, sizeof *v);
	v->name = xstrdup(name);
	v->type = TMPL_LIST;
	strlist_init(&v->fields);
	return v;
}

static struct tmpl_item *
tmpl_var_additem(struct tmpl_var *v)
{
	struct tmpl_item	*it;

	if (v->n == v->cap) {
		v->cap = v->cap == 0 ? 8 : v->cap * 2;
		v->items = xreallocarray(v->items, v->cap, sizeof *v->items);
	}
	it = &v->items[v->n++];
	it->s = NULL;
	it->rec = NULL;
	return it;
}

void
tmpl_set(struct tmpl_vars *vars, const char *name, const char *value)
{
	struct tmpl_var	*v = tmpl_vars_slot(vars, name);
	char		*copy = xstrdup(value);

	tmpl_var_clear(v);
	v->type = TMPL_STRING;
	v->s = copy;
}

void
tmpl_set_int(struct tmpl_vars *vars, const char *name, long long n)
{
	char	num[32];

	snprintf(num, sizeof num, "%lld", n);
	tmpl_set(vars, name, num);
}

void
tmpl_set_count(struct tmpl_vars *vars, const char *name, long long n)
{
	if (n == 0)
		tmpl_set(vars, name, "");
	else
		tmpl_set_int(vars, name, n);
}

void
tmpl_set_list(struct tmpl_vars *vars, const char *name, char *const *items,
    size_t n)
{
	struct tmpl_var	 new = { NULL, TMPL_LIST, NULL, NULL, 0, 0,
			    { NULL, 0, 0 } };
	struct tmpl_var	*v;
	size_t		 i;

	strlist_init(&new.fields);
	/* Copied before the old value goes, in case items points into it. */
	for (i = 0; i < n; i++)
		tmpl_var_additem(&new)->s = xstrdup(items[i]);
	v = tmpl_vars_slot(vars, name);
	tmpl_var_clear(v);
	new.name = v->name;
	*v = new;
}

/* The variable name, made a list (empty) unless it is one already. */
static struct tmpl_var *
tmpl_vars_list(struct tmpl_vars *vars, const char *name)
{
	struct tmpl_var	*v = tmpl_vars_slot(vars, name);

	if (v->type != TMPL_LIST) {
		tmpl_var_clear(v);
		v->type = TMPL_LIST;
	}
	return v;
}

struct tmpl_vars *
tmpl_add_record(struct tmpl_vars *vars, const char *name)
{
	struct tmpl_vars	*rec = tmpl_vars_new();

	tmpl_var_additem(tmpl_vars_list(vars, name))->rec = rec;
	return rec;
}

void
tmpl_set_empty_list(struct tmpl_vars *vars, const char *name)
{
	(void)tmpl_vars_list(vars, name);
}

void
tmpl_set_fields(struct tmpl_vars *vars, const char *name,
    const char *const *fields)
{
	struct tmpl_var	*v = tmpl_vars_list(vars, name);

	for (; *fields != NULL; fields++)
		strlist_add(&v->fields, *fields);
}

/* The tree. */

static struct tmpl_node *
tmpl_node_add(struct tmpl_nodes *nodes, enum tmpl_kind kind,
    const char *file, unsigned int line)
{
	struct tmpl_node	*n;

	if (nodes->n == nodes->cap) {
		nodes->cap = nodes->cap == 0 ? 8 : nodes->cap * 2;
		nodes->v = xreallocarray(nodes->v, nodes->cap,
		    sizeof *nodes->v);
	}
	n = xcalloc(1, sizeof *n);
	n->kind = kind;
	n->file = file;
	n->line = line;
	nodes->v[nodes->n++] = n;
	return n;
}

static void
tmpl_nodes_free(struct tmpl_nodes *nodes)
{
	size_t	i;

	for (i = 0; i < nodes->n; i++) {
		tmpl_nodes_free(&nodes->v[i]->body);
		free(nodes->v[i]->text);
		free(nodes->v[i]->filters);
		free(nodes->v[i]);
	}
	free(nodes->v);
	nodes->v = NULL;
	nodes->n = nodes->cap = 0;
}

void
tmpl_free(struct tmpl *t)
{
	if (t == NULL)
		return;
	tmpl_nodes_free(&t->body);
	strlist_free(&t->files);
	free(t->name);
	free(t);
}

/* Parsing. */

/* Sets *cause to "NAME:LINE: message"; returns -1. */
static int
tmpl_fail(char **cause, const char *name, unsigned int line,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int
tmpl_fail(char **cause, const char *name, unsigned int line,
    const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	xvasprintf(&msg, fmt, ap);
	va_end(ap);
	util_fail(cause, "%s:%u: %s", name, line, msg);
	free(msg);
	return -1;
}

/* A parse error at line. */
#define tmpl_perror(ps, line, ...) \
	tmpl_fail((ps)->cause, (ps)->name, (line), __VA_ARGS__)

static struct tmpl_nodes *
tmpl_current(struct tmpl_parser *ps)
{
	if (ps->depth == 0)
		return ps->root;
	return &ps->open[ps->depth - 1]->body;
}

static struct tmpl_node *
tmpl_add(struct tmpl_parser *ps, enum tmpl_kind kind, unsigned int line)
{
	return tmpl_node_add(tmpl_current(ps), kind, ps->name, line);
}

static unsigned int
tmpl_count_lines(const char *from, const char *to)
{
	unsigned int	n = 0;

	for (; from < to; from++) {
		if (*from == '\n')
			n++;
	}
	return n;
}

static void
tmpl_add_text(struct tmpl_parser *ps, const char *from, const char *to)
{
	struct tmpl_node	*n;

	if (to <= from)
		return;
	n = tmpl_add(ps, TMPL_TEXT, ps->line);
	n->text = xstrndup(from, (size_t)(to - from));
	n->len = (size_t)(to - from);
}

static int
tmpl_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * A section, comment or partial tag alone on its line takes the whole
 * line with it (leading blanks, trailing blanks and the newline), so sections can
 * sit on lines of their own without leaving blank lines behind. On
 * success *start and *end delimit the line; a tag earlier on the same
 * line (which ended at ps->p) rules it out.
 */
static int
tmpl_standalone(const struct tmpl_parser *ps, const char *open,
    const char *close, const char **start, const char **end)
{
	const char	*a = open, *b = close;

	while (a > ps->p && tmpl_blank(a[-1]))
		a--;
	if (a != ps->text && a[-1] != '\n')
		return 0;
	while (tmpl_blank(*b))
		b++;
	if (b[0] == '\r' && b[1] == '\n')
		b += 2;
	else if (*b == '\n')
		b++;
	else if (*b != '\0')
		return 0;
	*start = a;
	*end = b;
	return 1;
}

static int
tmpl_namechar(char c, int first)
{
	if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_')
		return 1;
	return !first && ((c >= '0' && c <= '9') || c == '-');
}

/* Names are [A-Za-z_][A-Za-z0-9_-]*, or "." for a string item. */
static int
tmpl_valid_name(const char *s, size_t len)
{
	size_t	i;

	if (len == 1 && s[0] == '.')
		return 1;
	if (len == 0)
		return 0;
	for (i = 0; i < len; i++) {
		if (!tmpl_namechar(s[i], i == 0))
			return 0;
	}
	return 1;
}

/* Inside a {{#list}}, in this file or around the {{>name}} that
 * includes it. */
static int
tmpl_in_each(const struct tmpl_parser *ps)
{
	size_t	i;

	for (; ps != NULL; ps = ps->up) {
		for (i = 0; i < ps->depth; i++) {
			if (ps->open[i]->kind == TMPL_EACH)
				return 1;
		}
	}
	return 0;
}

/* How much of a tag of len bytes a message shows. */
static int
tmpl_show(size_t len)
{
	return len > TMPL_SHOWTAG ? TMPL_SHOWTAG : (int)len;
}

/* Checks a name; "." only makes sense inside a {{#list}}. */
static int
tmpl_check_name(struct tmpl_parser *ps, unsigned int line, const char *s,
    size_t len)
{
	if (!tmpl_valid_name(s, len))
		return tmpl_perror(ps, line, "bad name '%.*s'",
		    tmpl_show(len), s);
	if (s[0] == '.' && !tmpl_in_each(ps))
		return tmpl_perror(ps, line, "'.' outside a {{#list}} section");
	return 0;
}

static const char *
tmpl_sigil(enum tmpl_kind kind)
{
	switch (kind) {
	case TMPL_EACH:
		return "#";
	case TMPL_IF:
		return "?";
	case TMPL_UNLESS:
		return "^";
	default:
		return "";
	}
}

static int
tmpl_open_section(struct tmpl_parser *ps, unsigned int line, char sigil,
    const char *name, size_t len)
{
	struct tmpl_node	*n;
	enum tmpl_kind		 kind;

	if (tmpl_check_name(ps, line, name, len) != 0)
		return -1;
	if (ps->base + ps->depth == TMPL_MAXDEPTH)
		return tmpl_perror(ps, line, "sections nested deeper than %d",
		    TMPL_MAXDEPTH);
	if (sigil == '#')
		kind = TMPL_EACH;
	else if (sigil == '?')
		kind = TMPL_IF;
	else
		kind = TMPL_UNLESS;
	n = tmpl_add(ps, kind, line);
	n->text = xstrndup(name, len);
	ps->open[ps->depth++] = n;
	return 0;
}

static int
tmpl_close_section(struct tmpl_parser *ps, unsigned int line,
    const char *name, size_t len)
{
	struct tmpl_node	*n;
	int			 show;

	show = tmpl_show(len);
	if (ps->depth == 0)
		return tmpl_perror(ps, line, "{{/%.*s}} closes no section",
		    show, name);
	n = ps->open[ps->depth - 1];
	if (strlen(n->text) != len || memcmp(n->text, name, len) != 0)
		return tmpl_perror(ps, line, "{{/%.*s}} does not match "
		    "{{%s%s}} opened at line %u", show, name,
		    tmpl_sigil(n->kind), n->text, n->line);
	ps->depth--;
	return 0;
}

/* The filter named [s, s + len) in rows, or NULL. */
static const struct tmpl_filter *
tmpl_filter_in(const struct tmpl_filter *rows, const char *s, size_t len)
{
	for (; rows != NULL && rows->name != NULL; rows++)
		if (strlen(rows->name) == len && memcmp(rows->name, s, len) == 0)
			return rows;
	return NULL;
}

static int
tmpl_add_filter(struct tmpl_parser *ps, struct tmpl_node *n,
    const char *s, size_t len)
{
	const struct tmpl_filter	*f;

	if (len == 3 && memcmp(s, "raw", 3) == 0) {
		/* Not a filter of the value: it only turns off the
		 * context's quoting at the end. */
		n->raw = 1;
		return 0;
	}
	if (len == 0)
		return tmpl_perror(ps, n->line, "empty filter after '%s'",
		    n->text);
	if ((f = tmpl_filter_in(tmpl_filters, s, len)) == NULL &&
	    (ps->opts == NULL ||
	    (f = tmpl_filter_in(ps->opts->filters, s, len)) == NULL))
		return tmpl_perror(ps, n->line, "unknown filter '%.*s'",
		    tmpl_show(len), s);
	/* Each escape can triple the length of what it escapes: a chain
	 * of them grows a value exponentially. */
	if (n->nfilters == TMPL_MAX_FILTERS)
		return tmpl_perror(ps, n->line, "'%s': more than %d filters",
		    n->text, TMPL_MAX_FILTERS);
	n->filters = xreallocarray(n->filters, n->nfilters + 1,
	    sizeof *n->filters);
	n->filters[n->nfilters++] = f;
	return 0;
}

/* Trims blanks around [*s, *s + *len). */
static void
tmpl_trim(const char **s, size_t *len)
{
	while (*len > 0 && tmpl_blank(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len > 0 && tmpl_blank((*s)[*len - 1]))
		(*len)--;
}

/* {{name|f1|f2}}: the name, then each filter between bars. */
static int
tmpl_variable(struct tmpl_parser *ps, unsigned int line, const char *s,
    size_t len)
{
	struct tmpl_node	*n;
	const char		*bar, *end = s + len;
	size_t			 part;

	bar = memchr(s, '|', len);
	part = (size_t)((bar != NULL ? bar : end) - s);
	tmpl_trim(&s, &part);
	if (tmpl_check_name(ps, line, s, part) != 0)
		return -1;
	n = tmpl_add(ps, TMPL_VAR, line);
	n->text = xstrndup(s, part);
	while (bar != NULL) {
		s = bar + 1;
		bar = memchr(s, '|', (size_t)(end - s));
		part = (size_t)((bar != NULL ? bar : end) - s);
		tmpl_trim(&s, &part);
		if (tmpl_add_filter(ps, n, s, part) != 0)
			return -1;
	}
	return 0;
}

static int	tmpl_parse_file(struct tmpl_parser *);

/* Whether path is the file of ps or of one of its includers. */
static int
tmpl_including(const struct tmpl_parser *ps, const char *path)
{
	for (; ps != NULL; ps = ps->up)
		if (strcmp(ps->name, path) == 0)
			return 1;
	return 0;
}

/* Reads the partial at path (taken) and parses it in the current place. */
static int
tmpl_read_partial(struct tmpl_parser *ps, unsigned int line, char *path,
    const char *name)
{
	struct tmpl_parser	 sub;
	char			*text, *why;
	size_t			 len;
	int			 r;

	if (tmpl_including(ps, path)) {
		r = tmpl_perror(ps, line, "partial '%s' (%s) includes itself",
		    name, path);
		free(path);
		return r;
	}
	strlist_addown(&ps->t->files, path);
	if ((text = util_readfile_max(path, UTIL_READ_TMPL_MAX, &len,
	    &why)) == NULL) {
		r = tmpl_perror(ps, line, "partial '%s': %s", name, why);
		free(why);
		return r;
	}
	if (strlen(text) != len || (*ps->total += len) > UTIL_READ_TMPL_MAX) {
		r = strlen(text) != len ? tmpl_fail(ps->cause, path,
		    1 + tmpl_count_lines(text, text + strlen(text)),
		    "NUL byte in template") : tmpl_perror(ps, line,
		    "partial '%s': the template and its partials exceed %u "
		    "bytes", name, UTIL_READ_TMPL_MAX);
		free(text);
		return r;
	}
	memset(&sub, 0, sizeof sub);
	sub.t = ps->t;
	sub.name = path;
	sub.text = sub.p = text;
	sub.line = 1;
	sub.root = tmpl_current(ps);
	sub.base = ps->base + ps->depth;
	sub.include = ps->include + 1;
	sub.total = ps->total;
	sub.up = ps;
	sub.opts = ps->opts;
	sub.cause = ps->cause;
	r = tmpl_parse_file(&sub);
	free(text);
	return r;
}

/* {{>name}}: the caller's finder names the file, which is parsed here. */
static int
tmpl_partial(struct tmpl_parser *ps, unsigned int line, const char *s,
    size_t len)
{
	char	*name, *file, *path, *why;
	int	 r;

	if (!tmpl_valid_name(s, len) || s[0] == '.')
		return tmpl_perror(ps, line, "bad partial name '%.*s'",
		    tmpl_show(len), s);
	name = xstrndup(s, len);
	if (ps->opts == NULL || ps->opts->find == NULL)
		r = tmpl_perror(ps, line, "partial '%s': this template cannot "
		    "include partials", name);
	else if (ps->include == TMPL_MAXINCLUDE)
		r = tmpl_perror(ps, line, "partial '%s': partials included "
		    "deeper than %d", name, TMPL_MAXINCLUDE);
	else {
		xasprintf(&file, "%s%s", name, tmpl_ctx_ext(ps->t->ctx));
		if ((path = ps->opts->find(ps->opts->arg, ps->name, file,
		    &why)) == NULL) {
			r = tmpl_perror(ps, line, "partial '%s': %s", name,
			    why);
			free(why);
		} else
			r = tmpl_read_partial(ps, line, path, name);
		free(file);
	}
	free(name);
	return r;
}

/* The text between {{ and }}, blanks trimmed. */
static int
tmpl_tag(struct tmpl_parser *ps, unsigned int line, const char *s,
    size_t len)
{
	char	sigil;

	tmpl_trim(&s, &len);
	if (len == 0)
		return tmpl_perror(ps, line, "empty tag {{}}");
	sigil = s[0];
	if (sigil == '!')
		return 0;
	if (strchr("#?^/>", sigil) == NULL)
		return tmpl_variable(ps, line, s, len);
	s++;
	len--;
	tmpl_trim(&s, &len);
	if (len == 0)
		return tmpl_perror(ps, line, "no name in {{%c}}", sigil);
	if (sigil == '>')
		return tmpl_partial(ps, line, s, len);
	if (sigil == '/')
		return tmpl_close_section(ps, line, s, len);
	return tmpl_open_section(ps, line, sigil, s, len);
}

static int
tmpl_is_block(const char *open, const char *close)
{
	const char	*s = open + 2;

	while (s < close && tmpl_blank(*s))
		s++;
	return s < close && strchr("!#?^/>", *s) != NULL;
}

/* Consumes the text before the next tag and the tag itself; 0 at the
 * end of the text, 1 after a tag, -1 on error. */
static int
tmpl_next(struct tmpl_parser *ps)
{
	const char	*open, *close, *start, *end;
	unsigned int	 line;

	if ((open = strstr(ps->p, "{{")) == NULL) {
		tmpl_add_text(ps, ps->p, ps->p + strlen(ps->p));
		return 0;
	}
	line = ps->line + tmpl_count_lines(ps->p, open);
	if ((close = strstr(open + 2, "}}")) == NULL)
		return tmpl_perror(ps, line, "{{ without }}");
	start = open;
	end = close + 2;
	if (tmpl_is_block(open, close))
		tmpl_standalone(ps, open, end, &start, &end);
	tmpl_add_text(ps, ps->p, start);
	if (tmpl_tag(ps, line, open + 2, (size_t)(close - open - 2)) != 0)
		return -1;
	ps->line = line + tmpl_count_lines(open, end);
	ps->p = end;
	return 1;
}

/* Parses one file's text to its end; its sections close in it. */
static int
tmpl_parse_file(struct tmpl_parser *ps)
{
	int	r;

	while ((r = tmpl_next(ps)) == 1)
		/* nothing */;
	if (r == 0 && ps->depth > 0)
		r = tmpl_perror(ps, ps->open[ps->depth - 1]->line,
		    "{{%s%s}} is never closed",
		    tmpl_sigil(ps->open[ps->depth - 1]->kind),
		    ps->open[ps->depth - 1]->text);
	return r;
}

struct tmpl *
tmpl_parse(const char *name, const char *text, enum tmpl_ctx ctx,
    const struct tmpl_opts *opts, char **cause)
{
	struct tmpl_parser	 ps;
	struct tmpl		*t;
	size_t			 total = strlen(text);

	t = xcalloc(1, sizeof *t);
	t->name = xstrdup(name);
	t->ctx = ctx;
	strlist_init(&t->files);
	memset(&ps, 0, sizeof ps);
	ps.t = t;
	ps.name = t->name;
	ps.text = ps.p = text;
	ps.line = 1;
	ps.root = &t->body;
	ps.total = &total;
	ps.opts = opts;
	ps.cause = cause;
	if (tmpl_parse_file(&ps) != 0) {
		tmpl_free(t);
		return NULL;
	}
	return t;
}

int
tmpl_ctx_of(const char *path, enum tmpl_ctx *ctx)
{
	const char	*base, *dot;
	size_t		 i;

	base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	if ((dot = strrchr(base, '.')) == NULL)
		return -1;
	for (i = 0; i < TMPL_NCONTEXTS; i++) {
		if (strcmp(dot, tmpl_contexts[i].ext) == 0) {
			*ctx = tmpl_contexts[i].ctx;
			return 0;
		}
	}
	return -1;
}

static const struct tmpl_context *
tmpl_context(enum tmpl_ctx ctx)
{
	size_t	i;

	for (i = 0; i < TMPL_NCONTEXTS - 1; i++)
		if (tmpl_contexts[i].ctx == ctx)
			break;
	return &tmpl_contexts[i];
}

const char *
tmpl_ctx_ext(enum tmpl_ctx ctx)
{
	return tmpl_context(ctx)->ext;
}

char *
tmpl_exts_text(void)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < TMPL_NCONTEXTS; i++)
		buf_add_item(&b, tmpl_contexts[i].ext, i + 1 == TMPL_NCONTEXTS,
		    " or ");
	return buf_take(&b);
}

struct tmpl *
tmpl_load(const char *path, const struct tmpl_opts *opts, char **cause)
{
	struct tmpl	*t;
	enum tmpl_ctx	 ctx;
	char		*text, *exts;
	size_t		 len, nul;

	if (tmpl_ctx_of(path, &ctx) != 0) {
		exts = tmpl_exts_text();
		util_fail(cause, "%s: a template's name must end in %s", path,
		    exts);
		free(exts);
		return NULL;
	}
	if ((text = util_readfile_max(path, UTIL_READ_TMPL_MAX, &len,
	    cause)) == NULL)
		return NULL;
	if ((nul = strlen(text)) != len) {
		tmpl_fail(cause, path, 1 + tmpl_count_lines(text, text + nul),
		    "NUL byte in template");
		free(text);
		return NULL;
	}
	t = tmpl_parse(path, text, ctx, opts, cause);
	free(text);
	return t;
}

/* Rendering. */

/* A render error at node n, in the file it came from. */
#define tmpl_rerror(t, n, cause, ...) \
	((void)(t), tmpl_fail((cause), (n)->file, (n)->line, __VA_ARGS__))

/* Looks the node's name up, innermost scope first. */
static int
tmpl_resolve(const struct tmpl *t, const struct tmpl_node *n,
    const struct tmpl_scope *sc, struct tmpl_value *val, char **cause)
{
	const struct tmpl_var	*v = NULL;

	memset(val, 0, sizeof *val);
	if (strcmp(n->text, ".") == 0) {
		if (sc->item == NULL)
			return tmpl_rerror(t, n, cause, "'.' in a section over "
			    "records: name a field instead");
		val->s = sc->item;
		return 0;
	}
	for (; sc != NULL && v == NULL; sc = sc->up) {
		if (sc->vars != NULL)
			v = tmpl_vars_find(sc->vars, n->text);
	}
	if (v == NULL)
		return tmpl_rerror(t, n, cause, "unknown variable '%s'",
		    n->text);
	if (v->type == TMPL_STRING)
		val->s = v->s;
	else {
		val->islist = 1;
		val->items = v->items;
		val->n = v->n;
	}
	return 0;
}

/* The value's strings, for the filters to work on. */
static int
tmpl_strings(const struct tmpl *t, const struct tmpl_node *n,
    const struct tmpl_value *val, struct strlist *l, char **cause)
{
	size_t	i;

	strlist_init(l);
	if (!val->islist) {
		strlist_add(l, val->s);
		return 0;
	}
	for (i = 0; i < val->n; i++) {
		if (val->items[i].s == NULL) {
			strlist_free(l);
			return tmpl_rerror(t, n, cause, "'%s' is a list of "
			    "records: use {{#%s}}", n->text, n->text);
		}
		strlist_add(l, val->items[i].s);
	}
	return 0;
}

static tmpl_quote_fn
tmpl_ctx_quote(enum tmpl_ctx ctx)
{
	return tmpl_context(ctx)->quote;
}

int
tmpl_escape(enum tmpl_ctx ctx, struct buf *b, const char *s, char **cause)
{
	return tmpl_ctx_quote(ctx)(b, s, cause);
}

/* Escapes each string in place; a refusal names the variable. */
static int
tmpl_quote(const struct tmpl *t, const struct tmpl_node *n,
    struct strlist *l, tmpl_quote_fn quote, char **cause)
{
	struct buf	 b;
	char		*why;
	size_t		 i;

	for (i = 0; i < l->n; i++) {
		buf_init(&b);
		if (quote(&b, l->v[i], &why) != 0) {
			buf_free(&b);
			tmpl_rerror(t, n, cause, "variable '%s': %s", n->text,
			    why);
			free(why);
			return -1;
		}
		free(l->v[i]);
		l->v[i] = b.s;
	}
	return 0;
}

/* Joins the strings with single spaces into out. */
static void
tmpl_join(const struct strlist *l, struct buf *out)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		if (i > 0)
			buf_addc(out, ' ');
		buf_adds(out, l->v[i]);
	}
}

/* sh, cmd and ps: a string becomes one word, a list its words joined
 * by spaces -- one string, so what comes after quotes it whole. */
static int
tmpl_filter_words(const struct tmpl *t, const struct tmpl_node *n,
    struct strlist *l, tmpl_quote_fn quote, char **cause)
{
	struct buf	b;

	if (tmpl_quote(t, n, l, quote, cause) != 0)
		return -1;
	buf_init(&b);
	tmpl_join(l, &b);
	strlist_free(l);
	strlist_addown(l, b.s);
	return 0;
}

static int
tmpl_filter(const struct tmpl *t, const struct tmpl_node *n,
    const struct tmpl_filter *f, struct strlist *l, char **cause)
{
	if (f->words)
		return tmpl_filter_words(t, n, l, f->quote, cause);
	return tmpl_quote(t, n, l, f->quote, cause);
}

static int
tmpl_apply(const struct tmpl *t, const struct tmpl_node *n,
    struct strlist *l, char **cause)
{
	size_t	i;

	for (i = 0; i < n->nfilters; i++) {
		if (tmpl_filter(t, n, n->filters[i], l, cause) != 0)
			return -1;
	}
	if (n->raw)
		return 0;
	return tmpl_quote(t, n, l, tmpl_ctx_quote(t->ctx), cause);
}

static int
tmpl_render_var(const struct tmpl *t, const struct tmpl_node *n,
    const struct tmpl_scope *sc, struct buf *out, char **cause)
{
	struct tmpl_value	val;
	struct strlist		l;

	if (tmpl_resolve(t, n, sc, &val, cause) != 0 ||
	    tmpl_strings(t, n, &val, &l, cause) != 0)
		return -1;
	if (tmpl_apply(t, n, &l, cause) != 0) {
		strlist_free(&l);
		return -1;
	}
	tmpl_join(&l, out);
	strlist_free(&l);
	return 0;
}

static int
tmpl_render_each(const struct tmpl *t, const struct tmpl_node *n,
    const struct tmpl_scope *sc, struct buf *out, char **cause)
{
	struct tmpl_value	val;
	struct tmpl_scope	inner;
	size_t			i;

	if (tmpl_resolve(t, n, sc, &val, cause) != 0)
		return -1;
	if (!val.islist)
		return tmpl_rerror(t, n, cause, "{{#%s}} needs a list, '%s' "
		    "is a string", n->text, n->text);
	for (i = 0; i < val.n; i++) {
		inner.vars = val.items[i].rec;
		inner.item = val.items[i].s;
		inner.up = sc;
		if (tmpl_render_nodes(t, &n->body, &inner, out, cause) != 0)
			return -1;
	}
	return 0;
}

static int
tmpl_render_cond(const struct tmpl *t, const struct tmpl_node *n,
    const struct tmpl_scope *sc, struct buf *out, char **cause)
{
	struct tmpl_value	val;
	int			empty;

	if (tmpl_resolve(t, n, sc, &val, cause) != 0)
		return -1;
	empty = val.islist ? val.n == 0 : val.s[0] == '\0';
	if (empty == (n->kind == TMPL_UNLESS))
		return tmpl_render_nodes(t, &n->body, sc, out, cause);
	return 0;
}

static int
tmpl_render_nodes(const struct tmpl *t, const struct tmpl_nodes *nodes,
    const struct tmpl_scope *sc, struct buf *out, char **cause)
{
	const struct tmpl_node	*n;
	size_t			 i;
	int			 r = 0;

	for (i = 0; i < nodes->n && r == 0; i++) {
		n = nodes->v[i];
		switch (n->kind) {
		case TMPL_TEXT:
			buf_addn(out, n->text, n->len);
			break;
		case TMPL_VAR:
			r = tmpl_render_var(t, n, sc, out, cause);
			break;
		case TMPL_EACH:
			r = tmpl_render_each(t, n, sc, out, cause);
			break;
		case TMPL_IF:
		case TMPL_UNLESS:
			r = tmpl_render_cond(t, n, sc, out, cause);
			break;
		}
	}
	return r;
}

/* Checking: every name of the template, rendered or not. */

/* One level of names: the top variables, or the list a {{#list}} walks
 * (its records' fields, declared or present), or a list of unknown
 * shape, where any name may be a field. */
struct tmpl_cscope {
	const struct tmpl_vars		*vars;
	const struct tmpl_var		*list;
	int				 any;
	const struct tmpl_cscope	*up;
};

/* 1 when name is found at this level, with *v its variable (NULL when
 * it is a declared field only). */
static int
tmpl_cscope_find(const struct tmpl_cscope *sc, const char *name,
    const struct tmpl_var **v)
{
	const struct tmpl_var	*l = sc->list;
	size_t			 i;

	*v = NULL;
	if (sc->any)
		return 1;
	if (sc->vars != NULL)
		return (*v = tmpl_vars_find(sc->vars, name)) != NULL;
	for (i = 0; i < l->n; i++) {
		if (l->items[i].rec != NULL &&
		    (*v = tmpl_vars_find(l->items[i].rec, name)) != NULL)
			return 1;
	}
	for (i = 0; i < l->fields.n; i++) {
		if (strcmp(l->fields.v[i], name) == 0)
			return 1;
	}
	return 0;
}

static int
tmpl_check_nodes(const struct tmpl *t, const struct tmpl_nodes *nodes,
    const struct tmpl_cscope *sc, char **cause)
{
	const struct tmpl_node		*n;
	const struct tmpl_cscope	*s;
	const struct tmpl_var		*v = NULL;
	struct tmpl_cscope		 inner;
	size_t				 i;

	for (i = 0; i < nodes->n; i++) {
		n = nodes->v[i];
		if (n->kind == TMPL_TEXT || strcmp(n->text, ".") == 0)
			v = NULL;
		else {
			for (s = sc; s != NULL; s = s->up)
				if (tmpl_cscope_find(s, n->text, &v))
					break;
			if (s == NULL)
				return tmpl_rerror(t, n, cause, "unknown "
				    "variable '%s'", n->text);
		}
		inner = *sc;
		if (n->kind == TMPL_EACH) {
			inner.vars = NULL;
			inner.list = v;
			inner.any = v == NULL || v->type != TMPL_LIST;
			inner.up = sc;
		}
		if (tmpl_check_nodes(t, &n->body, &inner, cause) != 0)
			return -1;
	}
	return 0;
}

int
tmpl_check(const struct tmpl *t, const struct tmpl_vars *vars,
    char **cause)
{
	struct tmpl_cscope	top = { vars, NULL, 0, NULL };

	return tmpl_check_nodes(t, &t->body, &top, cause);
}

int
tmpl_render(const struct tmpl *t, const struct tmpl_vars *vars,
    struct buf *out, char **cause)
{
	struct tmpl_scope	top = { vars, NULL, NULL };

	if (tmpl_check(t, vars, cause) != 0)
		return -1;
	return tmpl_render_nodes(t, &t->body, &top, out, cause);
}
