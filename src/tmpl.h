/* tmpl.h: the template engine that turns variables into job scripts.
 *
 * Syntax (documented in ddpgen-profile(5), TEMPLATES):
 *   {{name}}            the variable, escaped for the template's context
 *   {{name|f1|f2}}      filters applied left to right, then the context
 *                       escape; filters: sh (one shell word; a list becomes
 *                       its words joined by spaces), shvars (as sh, but
 *                       $NAME and ${NAME} expand: quote_sh_vars), cmd and
 *                       ps (likewise, with quote_cmd and quote_ps), xml,
 *                       those the caller adds (struct tmpl_opts: a
 *                       back-end's directive quoting, gen.h), and raw (no
 *                       context escape at the end: must be asked for
 *                       explicitly)
 *   {{#list}}..{{/list}} repeated per item; {{.}} is a string item, the
 *                       fields of a record item are visible by name
 *   {{?name}}..{{/name}} rendered when name is a non-empty string or list
 *   {{^name}}..{{/name}} rendered when name is empty or an empty list
 *   {{! comment }}
 *   {{>name}}           the partial name: the template file that the
 *                       caller's finder gives for name and the including
 *                       template's extension (struct tmpl_opts), read and
 *                       parsed in its place, with the same context; its
 *                       sections close in it, it may include others
 *                       (TMPL_MAXINCLUDE deep, never itself) and its
 *                       errors name it
 * A line holding only a section, comment or partial tag is dropped whole
 * (a partial's own text takes its place).
 * A list in {{name}} renders as its items, each escaped, joined by one
 * space (so in a shell template each item is one word).
 * The context comes from the template file's extension: .sh (shell,
 * quote_sh), .xml (XML, quote_xml), .cmd (a cmd.exe batch file, quote_cmd:
 * one argument of an external program), .ps1 (PowerShell, quote_ps: one
 * single-quoted string); others are an error naming the file. The
 * escapes are described in quote.h.
 * Errors (unknown variable, unknown filter, unclosed or mismatched
 * section, bad tag, a partial not found, a value the escape refuses)
 * name the template file (or partial) and line: "FILE:LINE: msg".
 *
 * Details:
 * - Names are [A-Za-z_][A-Za-z0-9_-]*; blanks inside the braces and
 *   around the bars are ignored. There is no way to write a literal
 *   "{{" (no template has needed one).
 * - The context escape comes after any filter, so {{x|sh}} in a shell
 *   template is a word quoted twice (for bash -c), {{x|xml}} in an
 *   XML template is escaped twice, and {{x|sh}} in a .cmd or .ps1
 *   template is a shell word passed as one argument or one string.
 * - In a .cmd template a value must sit outside "..." and outside the
 *   body of a for loop, in a file that runs with delayed expansion off
 *   (quote.h says why); in a .ps1 template each value is a complete
 *   string expression, so join values with + rather than inside quotes.
 * - Names resolve in the innermost {{#list}} record first, then outward
 *   to the top variables; {{.}} is the innermost item and an error when
 *   that is a record (or, at parse time, outside any {{#list}}).
 * - An unknown name is an error in {{?name}} and {{^name}} too, and in
 *   a section that does not render: set it to "" or declare an empty
 *   list (with its records' fields: tmpl_set_fields). {{#name}} on a
 *   string is an error, and so is {{name}} on a list of records.
 * - Sections nest at most 64 deep, which bounds rendering's recursion. */
#ifndef DDPGEN_TMPL_H
#define DDPGEN_TMPL_H

#include "util.h"

enum tmpl_ctx {
	TMPL_SH,
	TMPL_XML,
	TMPL_CMD,
	TMPL_PS
};

/* How deep partials may include partials. */
#define TMPL_MAXINCLUDE	8

struct tmpl;
struct tmpl_vars;

/* A filter, {{x|NAME}}: quote escapes a string (-1 + *cause when it
 * cannot); with words, a list becomes one string, its items escaped and
 * joined by spaces (so the next escape quotes it whole), else each item
 * is escaped alone. */
struct tmpl_filter {
	const char	*name;
	int		(*quote)(struct buf *, const char *, char **cause);
	int		 words;
};

/* What a template may use beside the engine's own: partials, whose path
 * find gives for a name with the template's extension ("run.sh") and the
 * file that includes it (NULL + *cause when there is none; NULL find: a
 * {{>name}} is an error), and more filters, a row without a name ending
 * them (NULL: none). */
struct tmpl_opts {
	char		*(*find)(void *arg, const char *from, const char *name,
			    char **cause);
	void		*arg;
	const struct tmpl_filter *filters;
};

struct tmpl_vars *tmpl_vars_new(void);
void		 tmpl_vars_free(struct tmpl_vars *);
/* Sets a string variable (copies; replaces an earlier value). */
void		 tmpl_set(struct tmpl_vars *, const char *name,
		    const char *value);
/* Sets name to the decimal n; tmpl_set_count the same, but "" for 0, so
 * that {{?name}} tests it. */
void		 tmpl_set_int(struct tmpl_vars *, const char *name, long long n);
void		 tmpl_set_count(struct tmpl_vars *, const char *name,
		    long long n);
/* Sets a list-of-strings variable (copies). */
void		 tmpl_set_list(struct tmpl_vars *, const char *name,
		    char *const *items, size_t n);
/* Appends a record to the list-of-records variable name (created empty
 * if missing) and returns it for the caller to fill with tmpl_set;
 * owned by the parent. */
struct tmpl_vars *tmpl_add_record(struct tmpl_vars *, const char *name);
/* Declares name as a list (possibly empty) so {{#name}} and {{^name}}
 * work before any record is added. */
void		 tmpl_set_empty_list(struct tmpl_vars *, const char *name);
/* Declares name as a list of records with these fields (a NULL-ended
 * array), so that the names of a {{#name}} section are checked even
 * when the list is empty. */
void		 tmpl_set_fields(struct tmpl_vars *, const char *name,
		    const char *const *fields);

/* The context of a template file, by its name's extension (.sh, .xml,
 * .cmd, .ps1); -1 for any other. */
int		 tmpl_ctx_of(const char *path, enum tmpl_ctx *);
/* The extension of ctx's files (".sh"). */
const char	*tmpl_ctx_ext(enum tmpl_ctx);
/* "a, b or c" of the extensions. Caller frees. */
char		*tmpl_exts_text(void);
/* Appends s escaped for ctx as {{name}} would write it; -1 + *cause
 * when the context cannot carry it. */
int		 tmpl_escape(enum tmpl_ctx, struct buf *, const char *s,
		    char **cause);

/* Parses template text; name is used in messages; opts may be NULL.
 * NULL + *cause on error. */
struct tmpl	*tmpl_parse(const char *name, const char *text,
		    enum tmpl_ctx, const struct tmpl_opts *, char **cause);
/* Reads and parses a file, the context chosen by its extension; a NUL
 * byte in the file (or a partial) is an error. */
struct tmpl	*tmpl_load(const char *path, const struct tmpl_opts *,
		    char **cause);
/* Checks that every name of the template resolves in vars, in sections
 * that would not render too: a name inside {{#list}} may be a field of
 * one of its records or a declared field (tmpl_set_fields). -1 +
 * *cause ("FILE:LINE: unknown variable 'x'") otherwise. */
int		 tmpl_check(const struct tmpl *, const struct tmpl_vars *,
		    char **cause);
/* Checks (tmpl_check), then renders into out (appending). -1 + *cause on
 * error; out may then hold a partial rendering, which the caller
 * discards. */
int		 tmpl_render(const struct tmpl *, const struct tmpl_vars *,
		    struct buf *out, char **cause);
void		 tmpl_free(struct tmpl *);

#endif
