/* profile-lex.c: the scan of a profile's text before libconfuse's
 * lexer sees it. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile-int.h"
#include "util.h"
#include "xmalloc.h"

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
	struct buf	 b;

	buf_init(&b);
	util_addvis(&b, word, strlen(word));
	v = buf_take(&b);
	snprintf(x->msg, sizeof x->msg, "unquoted '%.60s%s': quote it "
	    "(profiles expand no variables when they load)", v,
	    strlen(v) > 60 ? "..." : "");
	free(v);
	free(word);
	lexscan_fail(x, x->msg, x->line);
}

char *
profile_lex(const char *text, char **out, int *line)
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
