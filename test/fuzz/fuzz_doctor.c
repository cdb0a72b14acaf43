/* fuzz_doctor.c: libFuzzer target for doctor_decode, the parser of what
 * any process that reaches node 0's port (or writes into the shared
 * directory) sends as a node's findings: any bytes, read only within
 * their length; a report that decodes encodes and decodes back to
 * itself. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"
#include "util.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
same(const char *a, const char *b)
{
	return (a == NULL && b == NULL) ||
	    (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static void
check_node(const struct doctor_node *n)
{
	struct doctor_node	 again;
	struct buf		 b;
	char			*cause = NULL;
	int			 c;

	if (n->rank >= n->nnodes || n->port < 1 || n->port > 65535)
		abort();
	buf_init(&b);
	doctor_encode(&b, n);
	if (doctor_decode(&again, b.s, b.len, &cause) == -1)
		abort();
	if (again.rank != n->rank || again.nnodes != n->nnodes ||
	    again.port != n->port || !same(again.addr, n->addr) ||
	    !same(again.host, n->host))
		abort();
	for (c = 0; c < DOCTOR_NCHECKS; c++) {
		if (again.f[c].level != n->f[c].level)
			abort();
	}
	doctor_node_free(&again);
	buf_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct doctor_node	 n;
	char			*copy, *cause = NULL;

	/* An exact-size copy without a terminator: reading past the end
	 * is an ASan report. */
	if ((copy = malloc(size > 0 ? size : 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	if (doctor_decode(&n, copy, size, &cause) == 0) {
		check_node(&n);
		doctor_node_free(&n);
	} else
		free(cause);
	free(copy);
	return 0;
}
