/* quote.c: shell words, XML, PowerShell and cmd.exe escapes for text put
 * into generated jobs. */
#include "config.h"

#include <string.h>

#include "quote.h"
#include "util.h"

/* Bytes that need no quoting in any position bash or sbatch reads. */
#define QUOTE_SAFE	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" \
			"0123456789_@%+=:,./-"

/* bash's $'...': the only form that keeps a control byte on one line. */
static void
quote_sh_ansic(struct buf *b, const char *s)
{
	unsigned char	c;

	buf_adds(b, "$'");
	/* Inside $'...', control bytes take the escapes of util_addvis. */
	for (; (c = (unsigned char)*s) != '\0'; s++) {
		if (c == '\\' || c == '\'') {
			buf_addc(b, '\\');
			buf_addc(b, (char)c);
		} else
			util_addvis(b, s, 1);
	}
	buf_addc(b, '\'');
}

/*
 * Single quotes, but with ' and \ written outside them as \' and \\:
 * sbatch honours backslash escapes even inside quotes on an #SBATCH line,
 * so a backslash left between single quotes would vanish there.
 */
static void
quote_sh_single(struct buf *b, const char *s)
{
	int	open = 0;

	for (; *s != '\0'; s++) {
		if (*s == '\'' || *s == '\\') {
			if (open)
				buf_addc(b, '\'');
			open = 0;
			buf_addc(b, '\\');
		} else if (!open) {
			buf_addc(b, '\'');
			open = 1;
		}
		buf_addc(b, *s);
	}
	if (open)
		buf_addc(b, '\'');
}

void
quote_sh(struct buf *b, const char *s)
{
	if (util_has_cntrl(s))
		quote_sh_ansic(b, s);
	else
		quote_sh_posix(b, s);
}

void
quote_sh_posix(struct buf *b, const char *s)
{
	if (*s == '\0')
		buf_adds(b, "''");
	else if (s[strspn(s, QUOTE_SAFE)] == '\0')
		buf_adds(b, s);
	else
		quote_sh_single(b, s);
}

/* One hex digit's value, or -1. */
static int
quote_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The inside of $'...' at *sp, up to its closing quote, into w. */
static int
quote_unquote_ansic(const char **sp, struct buf *w)
{
	const char	*s = *sp;
	int		 hi, lo;

	for (; *s != '\'' && *s != '\0'; s++) {
		if (*s != '\\') {
			if (util_iscntrl((unsigned char)*s))
				return -1;
			buf_addc(w, *s);
			continue;
		}
		switch (*++s) {
		case 'n': buf_addc(w, '\n'); break;
		case 't': buf_addc(w, '\t'); break;
		case 'r': buf_addc(w, '\r'); break;
		case '\\': case '\'': buf_addc(w, *s); break;
		case 'x':
			if ((hi = quote_hexval(s[1])) == -1 ||
			    (lo = quote_hexval(s[2])) == -1 ||
			    (hi == 0 && lo == 0))
				return -1;
			buf_addc(w, (char)(hi * 16 + lo));
			s += 2;
			break;
		default:
			return -1;
		}
	}
	if (*s != '\'')
		return -1;
	*sp = s + 1;
	return 0;
}

/* One word at *sp into w: bare bytes, '...', \' and \\, or $'...';
 * *sp is left where the word ends, or where it went wrong. */
static int
quote_unquote_word(const char **sp, struct buf *w)
{
	const char	*s = *sp, *end, *p;
	int		 rc = 0;

	while (*s != '\0' && *s != ' ' && rc == 0) {
		if (strchr(QUOTE_SAFE, *s) != NULL ||
		    (unsigned char)*s >= 0x80)
			buf_addc(w, *s++);
		else if (s[0] == '\\' && (s[1] == '\'' || s[1] == '\\')) {
			buf_addc(w, s[1]);
			s += 2;
		} else if (s[0] == '\'') {
			if ((end = strchr(s + 1, '\'')) == NULL)
				rc = -1;
			for (p = s + 1; rc == 0 && p < end; p++)
				if (util_iscntrl((unsigned char)*p))
					rc = -1;
			if (rc == 0) {
				buf_addn(w, s + 1, (size_t)(end - s - 1));
				s = end + 1;
			}
		} else if (s[0] == '$' && s[1] == '\'') {
			p = s + 2;
			if ((rc = quote_unquote_ansic(&p, w)) == 0)
				s = p;
		} else
			rc = -1;
	}
	*sp = s;
	return rc;
}

int
quote_sh_unquote(const char *line, struct strlist *words, char **cause)
{
	const char	*s = line;
	struct buf	 w;

	while (*s != '\0') {
		if (*s == ' ') {
			s++;
			continue;
		}
		buf_init(&w);
		if (quote_unquote_word(&s, &w) == -1) {
			buf_free(&w);
			return util_fail(cause, "byte %zu is not in a word "
			    "ddpgen quotes", (size_t)(s - line) + 1);
		}
		strlist_addown(words, buf_take(&w));
	}
	return 0;
}

#define QUOTE_NAME1	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
#define QUOTE_NAME	QUOTE_NAME1 "0123456789"

/* The length of the reference $NAME or ${NAME} at s, 0 if s starts
 * none; *name and *namelen get NAME. */
static size_t
quote_var_ref(const char *s, const char **name, size_t *namelen)
{
	const char	*p = s + 1;
	size_t		 brace = 0, n;

	if (s[0] != '$')
		return 0;
	if (*p == '{') {
		brace = 1;
		p++;
	}
	if (*p == '\0' || strchr(QUOTE_NAME1, *p) == NULL)
		return 0;
	n = 1 + strspn(p + 1, QUOTE_NAME);
	if (brace && p[n] != '}')
		return 0;
	*name = p;
	*namelen = n;
	return 1 + brace + n + brace;
}

/* Appends s by the job-time rule, its literal runs quoted by lit. */
static void
quote_vars(struct buf *b, const char *s,
    void (*lit_fn)(struct buf *, const char *))
{
	struct buf	 lit;
	const char	*name;
	size_t		 len, namelen;
	int		 refs = 0;

	buf_init(&lit);
	while (*s != '\0') {
		if (s[0] == '\\' && s[1] == '$') {
			buf_addc(&lit, '$');
			s += 2;
		} else if ((len = quote_var_ref(s, &name, &namelen)) > 0) {
			if (lit.len > 0)
				lit_fn(b, lit.s);
			lit.len = 0;
			lit.s[0] = '\0';
			buf_addf(b, "\"${%.*s-}\"", (int)namelen, name);
			refs = 1;
			s += len;
		} else
			buf_addc(&lit, *s++);
	}
	if (!refs || lit.len > 0)
		lit_fn(b, lit.s);
	buf_free(&lit);
}

void
quote_sh_vars(struct buf *b, const char *s)
{
	quote_vars(b, s, quote_sh);
}

void
quote_sh_vars_line(struct buf *b, const char *s)
{
	quote_vars(b, s, quote_sh_line);
}

int
quote_has_vars(const char *s)
{
	const char	*name;
	size_t		 namelen;

	for (; *s != '\0'; s++)
		if ((s[0] == '\\' && s[1] == '$') ||
		    quote_var_ref(s, &name, &namelen) > 0)
			return 1;
	return 0;
}

void
quote_sh_line(struct buf *b, const char *s)
{
	const char	*p;

	if (strchr(s, ';') == NULL) {
		quote_sh(b, s);
		return;
	}
	buf_adds(b, "$'");
	for (p = s; *p != '\0'; p++) {
		if (*p == ';')
			buf_adds(b, "\\x3b");
		else if (*p == '\\' || *p == '\'') {
			buf_addc(b, '\\');
			buf_addc(b, *p);
		} else
			util_addvis(b, p, 1);
	}
	buf_addc(b, '\'');
}

/* Length of the UTF-8 sequence at s if it encodes an XML 1.0 Char
 * (no overlong forms, surrogates, U+FFFE, U+FFFF or beyond U+10FFFF);
 * 0 otherwise. Only called for lead bytes >= 0x80. */
static size_t
quote_utf8_len(const unsigned char *s)
{
	unsigned int	cp, min;
	size_t		len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
		min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
		min = 0x10000;
	} else
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp == 0xfffe || cp == 0xffff)
		return 0;
	return len;
}

/* What a double-quoted #BSUB value cannot hold: quote_bsub. */
static int
quote_bsub_refuses(unsigned char c)
{
	return c < 0x20 || c == 0x7f || strchr("\"'\\`$#", c) != NULL;
}

int
quote_bsub(struct buf *b, const char *s, char **cause)
{
	const unsigned char	*u = (const unsigned char *)s;
	struct buf		 v;

	if (*s != '\0' && strspn(s, QUOTE_SAFE) == strlen(s)) {
		buf_adds(b, s);
		return 0;
	}
	for (; *u != '\0'; u++) {
		if (!quote_bsub_refuses(*u))
			continue;
		buf_init(&v);
		util_addvis(&v, (const char *)u, 1);
		util_fail(cause, "'%s' at offset %zu cannot be written on an "
		    "#BSUB line (LSF documents no quoting there)", v.s,
		    (size_t)(u - (const unsigned char *)s));
		buf_free(&v);
		return -1;
	}
	buf_addc(b, '"');
	buf_adds(b, s);
	buf_addc(b, '"');
	return 0;
}

/* The control bytes each format refuses. XML 1.0 has tab, newline and
 * CR, and DEL is an ordinary character there. */
static int
quote_xml_refuses(unsigned char c)
{
	return c < 0x20 && c != '\t' && c != '\n' && c != '\r';
}

static int
quote_ps_refuses(unsigned char c)
{
	return util_iscntrl(c) && c != '\t';
}

static int
quote_cmd_refuses(unsigned char c)
{
	return util_iscntrl(c);
}

/* Checks the whole string first so nothing is appended on error; where
 * names the format in the message. */
static int
quote_check(const char *s, int (*refuses)(unsigned char), const char *where,
    char **cause)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 len;

	while (*p != '\0') {
		if (refuses(*p))
			return util_fail(cause, "control byte 0x%02x at offset "
			    "%zu cannot be written in %s", *p,
			    (size_t)(p - (const unsigned char *)s), where);
		if (*p < 0x80) {
			p++;
			continue;
		}
		if ((len = quote_utf8_len(p)) == 0)
			return util_fail(cause, "byte 0x%02x at offset %zu is "
			    "not valid UTF-8 or not an XML character", *p,
			    (size_t)(p - (const unsigned char *)s));
		p += len;
	}
	return 0;
}

static const char *
quote_xml_entity(char c)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return "&apos;";
	case '\t':
		return "&#9;";
	case '\n':
		return "&#10;";
	case '\r':
		return "&#13;";
	}
	return NULL;
}

int
quote_xml(struct buf *b, const char *s, char **cause)
{
	const char	*e;

	if (quote_check(s, quote_xml_refuses, "XML", cause) != 0)
		return -1;
	for (; *s != '\0'; s++) {
		if ((e = quote_xml_entity(*s)) != NULL)
			buf_adds(b, e);
		else
			buf_addc(b, *s);
	}
	return 0;
}

/* U+2018 to U+201B, the quotes PowerShell reads as ' : E2 80 98-9B. */
static int
quote_is_ps_quote(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;

	return p[0] == 0xe2 && p[1] == 0x80 && p[2] >= 0x98 && p[2] <= 0x9b;
}

int
quote_ps(struct buf *b, const char *s, char **cause)
{
	if (quote_check(s, quote_ps_refuses, "a PowerShell string",
	    cause) != 0)
		return -1;
	buf_addc(b, '\'');
	while (*s != '\0') {
		if (*s == '\'') {
			buf_adds(b, "''");
			s++;
		} else if (quote_is_ps_quote(s)) {
			buf_addn(b, s, 3);
			buf_addn(b, s, 3);
			s += 3;
		} else
			buf_addc(b, *s++);
	}
	buf_addc(b, '\'');
	return 0;
}

/* Bytes that need no quoting in a program's argument on a batch line. */
#define QUOTE_CMD_SAFE	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" \
			"0123456789_@+=:,./-"

static void
quote_backslashes(struct buf *b, size_t n)
{
	while (n-- > 0)
		buf_addc(b, '\\');
}

/* One argument as the MS C runtime and CommandLineToArgvW read it back:
 * backslashes are literal unless a " follows, so only a run before a "
 * (or before the closing quote) is doubled. */
static void
quote_argv(struct buf *b, const char *s)
{
	size_t	n;

	buf_addc(b, '"');
	for (;;) {
		for (n = 0; *s == '\\'; s++)
			n++;
		if (*s == '\0') {
			quote_backslashes(b, 2 * n);
			break;
		}
		if (*s == '"')
			quote_backslashes(b, 2 * n + 1);
		else
			quote_backslashes(b, n);
		buf_addc(b, *s++);
	}
	buf_addc(b, '"');
}

/* A batch line goes through % expansion, then the caret and operator
 * pass: %% survives the first as %, ^c the second as c. */
static void
quote_cmd_meta(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '%')
			buf_addc(b, '%');
		else if (strchr("()!^\"<>&|", *s) != NULL)
			buf_addc(b, '^');
		buf_addc(b, *s);
	}
}

int
quote_cmd(struct buf *b, const char *s, char **cause)
{
	struct buf	arg;

	if (quote_check(s, quote_cmd_refuses, "a cmd.exe batch file",
	    cause) != 0)
		return -1;
	if (*s != '\0' && s[strspn(s, QUOTE_CMD_SAFE)] == '\0') {
		buf_adds(b, s);
		return 0;
	}
	buf_init(&arg);
	quote_argv(&arg, s);
	quote_cmd_meta(b, arg.s);
	buf_free(&arg);
	return 0;
}

void
quote_sh_eval(struct buf *b, const char *s)
{
	if (*s == '=')
		quote_sh_single(b, s);
	else
		quote_sh_posix(b, s);
}

int
quote_pbs(struct buf *b, const char *s, char **cause)
{
	const unsigned char	*p;

	for (p = (const unsigned char *)s; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			return util_fail(cause, "control byte 0x%02x at offset "
			    "%zu cannot be written on a #PBS line", *p,
			    (size_t)(p - (const unsigned char *)s));
	if (*s != '\0' && s[strspn(s, QUOTE_SAFE)] == '\0') {
		buf_adds(b, s);
		return 0;
	}
	/* qsub takes no escape between quotes, and a line ending in a
	 * backslash goes on on the next: a ' is written as "'". */
	buf_addc(b, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			buf_adds(b, "'\"'\"'");
		else
			buf_addc(b, *s);
	}
	buf_addc(b, '\'');
	return 0;
}
