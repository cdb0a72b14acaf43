/* fuzz_exchange.c: libFuzzer target for exchange_parse_entry, the parser
 * of the entry files nodes write into the shared directory, and for
 * exchange_verify_entry, which checks the MAC line of an authenticated
 * entry: any bytes, read only within their length; an entry that parses
 * formats and parses back to itself, and once signed verifies, to the
 * same length, and not under another run's name. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "exchange.h"
#include "util.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define RUN	"77-r0-0123456789abcdef0123456789abcdef"

static struct auth	key;

static void
check_signed(const struct buf *plain)
{
	struct buf	 b;
	size_t		 n;
	char		*cause = NULL;

	buf_init(&b);
	buf_addn(&b, plain->s, plain->len);
	if (exchange_sign_entry(&b, &key, RUN, &cause) == -1)
		abort();
	n = b.len;
	if (exchange_verify_entry(b.s, &n, &key, RUN, &cause) == -1 ||
	    n != plain->len)
		abort();
	n = b.len;
	if (exchange_verify_entry(b.s, &n, &key, "77-r1", &cause) != -1 ||
	    cause == NULL)
		abort();
	free(cause);
	buf_free(&b);
}

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
	check_signed(&b);
	buf_free(&b);
}

/* Whatever verifies leaves a length within the input, which then
 * parses like any entry. */
static void
check_verify(const char *copy, size_t size)
{
	struct exchange_entry	 e;
	size_t			 n = size;
	char			*cause = NULL;

	if (exchange_verify_entry(copy, &n, &key, RUN, &cause) == -1) {
		if (cause == NULL || *cause == '\0')
			abort();
		free(cause);
		return;
	}
	if (n > size)
		abort();
	if (exchange_parse_entry(copy, n, &e, &cause) == -1)
		free(cause);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct exchange_entry	 e;
	char			*copy, *cause = NULL;

	/* An exact-size copy without a terminator: reading past the end
	 * is an ASan report. */
	if (key.len == 0 && auth_parse(&key, "000102030405060708090a0b0c0d0e0f",
	    "fuzz", &cause) == -1)
		abort();
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
	check_verify(copy, size);
	free(copy);
	return 0;
}
