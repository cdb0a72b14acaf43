/* fuzz_hostlist.c: libFuzzer target for hostlist_parse; on a list that
 * parses, count, nth and find must agree with each other. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hostlist.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Short names compare up to the first '.'. */
static size_t
short_len(const char *s)
{
	return strcspn(s, ".");
}

/* The index of a host found by a name equal to its own is never later
 * than its own, and names a host equal to it under the same flags. */
static void
check_find(const struct hostlist *hl, uint64_t i, const char *name, int flags)
{
	char	found[HOSTLIST_NAME_MAX + 1];
	int64_t	j;

	j = hostlist_find(hl, name, flags);
	if (j < 0 || (uint64_t)j > i)
		abort();
	if (hostlist_nth(hl, (uint64_t)j, found, sizeof found) < 0)
		abort();
	if (flags == 0 && strcmp(found, name) != 0)
		abort();
	if (flags == (HOSTLIST_ICASE | HOSTLIST_SHORT) &&
	    (short_len(found) != short_len(name) ||
	    strncasecmp(found, name, short_len(name)) != 0))
		abort();
}

static void
check_nth(const struct hostlist *hl, uint64_t i)
{
	char	name[HOSTLIST_NAME_MAX + 1];
	int	len;

	len = hostlist_nth(hl, i, name, sizeof name);
	if (len < 0 || (size_t)len != strlen(name) || len == 0)
		abort();
	check_find(hl, i, name, 0);
	check_find(hl, i, name, HOSTLIST_ICASE | HOSTLIST_SHORT);
	/* Too small a buffer is refused, never overrun. */
	if (hostlist_nth(hl, i, name, (size_t)len) != -1)
		abort();
}

/* Indices sampled from the whole range: both ends and a spread between,
 * so huge ranges are checked without walking them. */
static void
check_list(const struct hostlist *hl, const uint8_t *data, size_t size)
{
	char		name[HOSTLIST_NAME_MAX + 1];
	uint64_t	n = hostlist_count(hl), i, h = 1469598103934665603ULL;
	size_t		k;

	if (n == 0 || n > HOSTLIST_MAX_HOSTS)
		abort();
	if (hostlist_nth(hl, n, name, sizeof name) != -1)
		abort();
	for (k = 0; k < size; k++)
		h = (h ^ data[k]) * 1099511628211ULL;
	if (n <= 64) {
		for (i = 0; i < n; i++)
			check_nth(hl, i);
		return;
	}
	check_nth(hl, 0);
	check_nth(hl, n - 1);
	for (k = 0; k < 32; k++) {
		h = h * 6364136223846793005ULL + 1442695040888963407ULL;
		check_nth(hl, (h >> 11) % n);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hostlist	*hl;
	char		*s, *cause = NULL;

	s = malloc(size + 1);
	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if ((hl = hostlist_parse(s, &cause)) == NULL) {
		if (cause == NULL || *cause == '\0')
			abort();
		free(cause);
	} else {
		check_list(hl, data, size);
		hostlist_free(hl);
	}
	free(s);
	return 0;
}
