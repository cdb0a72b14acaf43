/* quote.c: shell words and XML escapes for text put into generated jobs. */
#include "config.h"

#include <string.h>

#include "quote.h"
#include "util.h"

/* Bytes that need no quoting in any position bash or sbatch reads. */
#define QUOTE_SAFE	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" \
			"0123456789_@%+=:,./-"

static int
quote_is_ctrl(unsigned char c)
{
	return (c >= 1 && c <= 31) || c == 127;
}

static int
quote_has_ctrl(const char *s)
{
	for (; *s != '\0'; s++) {
		if (quote_is_ctrl((unsigned char)*s))
			return 1;
	}
	return 0;
}

/* bash's $'...': the only form that keeps a control byte on one line. */
static void
quote_sh_ansic(struct buf *b, const char *s)
{
	unsigned char	c;

	buf_adds(b, "$'");
	for (; (c = (unsigned char)*s) != '\0'; s++) {
		if (c == '\n')
			buf_adds(b, "\\n");
		else if (c == '\t')
			buf_adds(b, "\\t");
		else if (c == '\r')
			buf_adds(b, "\\r");
		else if (c == '\\' || c == '\'') {
			buf_addc(b, '\\');
			buf_addc(b, (char)c);
		} else if (quote_is_ctrl(c))
			buf_addf(b, "\\x%02x", c);
		else
			buf_addc(b, (char)c);
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
	if (*s == '\0')
		buf_adds(b, "''");
	else if (s[strspn(s, QUOTE_SAFE)] == '\0')
		buf_adds(b, s);
	else if (quote_has_ctrl(s))
		quote_sh_ansic(b, s);
	else
		quote_sh_single(b, s);
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

/* Checks the whole string first so nothing is appended on error. */
static int
quote_xml_check(const char *s, char **cause)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 len;

	while (*p != '\0') {
		if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
			return util_fail(cause, "control byte 0x%02x at offset "
			    "%zu cannot be written in XML", *p,
			    (size_t)(p - (const unsigned char *)s));
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

	if (quote_xml_check(s, cause) != 0)
		return -1;
	for (; *s != '\0'; s++) {
		if ((e = quote_xml_entity(*s)) != NULL)
			buf_adds(b, e);
		else
			buf_addc(b, *s);
	}
	return 0;
}
