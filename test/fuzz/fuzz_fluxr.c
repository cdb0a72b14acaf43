/* fuzz_fluxr.c: libFuzzer target for Flux's resource set R as ddprank
 * reads it: the JSON reader must accept or refuse with a message, never
 * crash, leak or read past the input (which is not NUL-terminated); what
 * it accepts is a non-empty list of UTF-8 without control bytes, which
 * then goes to hostlist_parse. The input is also tried as a job id. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fluxr.h"
#include "hostlist.h"
#include "util.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_hosts(const struct buf *b)
{
	struct hostlist	*hl;
	char		*cause = NULL;
	size_t		 i;

	if (b->len == 0 || strlen(b->s) != b->len)
		abort();
	for (i = 0; i < b->len; i++)
		if (util_iscntrl((unsigned char)b->s[i]))
			abort();
	if ((hl = hostlist_parse(b->s, &cause)) != NULL)
		hostlist_free(hl);
	else if (cause == NULL)
		abort();
	free(cause);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf	 b;
	char		*cause = NULL, *s;
	uint64_t	 id;

	/* A copy of exactly size bytes, so ASan sees any read past it. */
	if ((s = malloc(size == 0 ? 1 : size)) == NULL)
		return 0;
	memcpy(s, data, size);
	buf_init(&b);
	if (fluxr_nodelist(s, size, &b, &cause) == 0)
		check_hosts(&b);
	else if (cause == NULL)
		abort();
	free(cause);
	buf_free(&b);
	free(s);
	if (size < 64 && (s = malloc(size + 1)) != NULL) {
		memcpy(s, data, size);
		s[size] = '\0';
		(void)fluxr_jobid(s, &id);
		free(s);
	}
	return 0;
}
