/* fluxjob.c: a generated Flux job checked as flux batch will read it
 * (flux-core's cli/batch.py and job/directives.py, flux-batch(1)). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fluxjob.h"
#include "util.h"

/* The sentinel of the template's directives. */
#define FLUXJOB_SENTINEL	"#flux:"

/* Length of the UTF-8 sequence at s (at most n bytes) as Python's strict
 * decoder takes it (no overlong forms, surrogates or values above
 * U+10FFFF), or 0. */
static size_t
fluxjob_utf8(const unsigned char *s, size_t n)
{
	size_t		len, i;
	uint32_t	c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return len;
}

/* The length of the sentinel line s (len bytes) starts with: its
 * non-word prefix and "flux:" or "FLUX:", or 0 when it has none. Bytes
 * of other characters count as non-word ones: Python's \w takes some of
 * them, and a false alarm costs less than a broken job. */
static size_t
fluxjob_sentinel(const char *s, size_t len)
{
	size_t	i = 0;

	while (i < len && !(s[i] >= 'a' && s[i] <= 'z') &&
	    !(s[i] >= 'A' && s[i] <= 'Z') && !(s[i] >= '0' && s[i] <= '9') &&
	    s[i] != '_')
		i++;
	if (len - i >= 5 && (memcmp(s + i, "flux:", 5) == 0 ||
	    memcmp(s + i, "FLUX:", 5) == 0))
		return i + 5;
	return 0;
}

static int
fluxjob_blank(const char *s, size_t len)
{
	return strspn(s, " \t\r\f\v") >= len;
}

static int
fluxjob_line(const char *s, size_t len, size_t lineno, int *body,
    char **cause)
{
	size_t	n = fluxjob_sentinel(s, len);
	int	theirs;

	if (n == 0) {
		if (s[0] != '#' && !fluxjob_blank(s, len))
			*body = 1;
		return 0;
	}
	theirs = n == strlen(FLUXJOB_SENTINEL) &&
	    memcmp(s, FLUXJOB_SENTINEL, n) == 0;
	if (theirs && !*body)
		return 0;
	return util_fail(cause, "line %zu of the Flux job would be read by "
	    "flux batch as a submission directive: '%.*s%s'", lineno,
	    len > 60 ? 60 : (int)len, s, len > 60 ? "..." : "");
}

int
fluxjob_check(const char *script, char **cause)
{
	const unsigned char	*u = (const unsigned char *)script;
	size_t			 len = strlen(script), i, n, lineno = 1;
	size_t			 start = 0;
	int			 body = 0;

	for (i = 0; i < len; i += n) {
		if ((n = fluxjob_utf8(u + i, len - i)) == 0)
			return util_fail(cause, "line %zu of the Flux job is "
			    "not valid UTF-8, which flux batch requires: a "
			    "value holds other bytes", lineno);
		if (u[i] != '\n')
			continue;
		if (fluxjob_line(script + start, i - start, lineno, &body,
		    cause) == -1)
			return -1;
		start = i + 1;
		lineno++;
	}
	return fluxjob_line(script + start, len - start, lineno, &body, cause);
}
