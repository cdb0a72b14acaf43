/* fuzz_exchange.c: libFuzzer target for exchange_parse_entry, the parser
 * of the entry files nodes write into the shared directory: any bytes,
 * read only within their length; an entry that parses formats and parses
 * back to itself. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "util.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_entry(const struct exchange_entry *e)
{
	struct exchange_entry	 again;
	struct buf		 b;
	char			*cause = NULL;

	if (memchr(e->host, '\0', sizeof e->host) == NULL ||
	    memchr(e->addr, '\0', sizeof e->addr) == NULL ||
	    e->host[0] == '\0' || e->addr[0] == '\0' || e->task == 0 ||
	    e->task < -1)
		abort();
	buf_init(&b);
	exchange_format_entry(&b, e);
	if (exchange_parse_entry(b.s, b.len, &again, &cause) == -1)
		abort();
	if (again.task != e->task || strcmp(again.host, e->host) != 0 ||
	    strcmp(again.addr, e->addr) != 0)
		abort();
	buf_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct exchange_entry	 e;
	char			*copy, *cause = NULL;

	/* An exact-size copy without a terminator: reading past the end
	 * is an ASan report. */
	if ((copy = malloc(size > 0 ? size : 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	if (exchange_parse_entry(copy, size, &e, &cause) == 0)
		check_entry(&e);
	else {
		if (cause == NULL || *cause == '\0')
			abort();
		free(cause);
	}
	free(copy);
	return 0;
}
