/* exchange-mpi.c: the MPI exchange, MPI_Allgather of the entries; in
 * ddprank when configure was given --with-mpi, and in ddprank-mpi (the
 * test build). exchange-nompi.c stands in for it otherwise. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "exchange.h"
#include "fault.h"
#include "util.h"
#include "xmalloc.h"

int
exchange_have_mpi(void)
{
	return 1;
}

/* Each rank's entry travels as its formatted text in a fixed slot. */
static int
exchange_allgather(const struct exchange_entry *self,
    struct exchange_entry **v, int *size, int *rank, char **cause)
{
	struct buf	 b;
	char		*mine, *all, *why;
	size_t		 slot = EXCHANGE_ENTRY_MAX, i, len;
	int		 rc;

	MPI_Comm_size(MPI_COMM_WORLD, size);
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	buf_init(&b);
	exchange_format_entry(&b, self);
	mine = xcalloc(1, slot);
	memcpy(mine, b.s, b.len < slot ? b.len : slot - 1);
	buf_free(&b);
	all = xcalloc((size_t)*size, slot);
	rc = MPI_Allgather(mine, (int)slot, MPI_CHAR, all, (int)slot, MPI_CHAR,
	    MPI_COMM_WORLD);
	free(mine);
	if (rc != MPI_SUCCESS) {
		free(all);
		return util_fail(cause, "exchange: MPI_Allgather failed");
	}
	*v = xcalloc((size_t)*size, sizeof **v);
	for (i = 0; i < (size_t)*size && rc == 0; i++) {
		len = strnlen(all + i * slot, slot);
		if (exchange_parse_entry(all + i * slot, len, &(*v)[i],
		    &why) == -1) {
			rc = util_fail(cause, "exchange: MPI rank %zu: %s", i,
			    why);
			free(why);
		}
	}
	free(all);
	return rc == 0 ? 0 : -1;
}

enum fault
exchange_mpi(struct exchange_result *r, const struct exchange_opts *o,
    const struct exchange_node *x, char **cause)
{
	struct exchange_entry	*v = NULL;
	int			 size, rank, rc;

	(void)o;
	memset(r, 0, sizeof *r);
	if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
		util_fail(cause, "exchange: MPI_Init failed");
		return FAULT_EXCHANGE;
	}
	rc = exchange_allgather(&x->self, &v, &size, &rank, cause);
	/* Before the command is executed: torchrun must not inherit a live
	 * MPI process. */
	MPI_Finalize();
	if (rc == 0)
		rc = exchange_number(r, v, (size_t)size, (size_t)rank, cause);
	free(v);
	if (rc == -1)
		return FAULT_EXCHANGE;
	if (x->nnodes != 0 && r->nnodes != x->nnodes) {
		util_fail(cause, "exchange: the %d MPI processes are on %llu "
		    "nodes (distinct addresses), not --nnodes %llu", size,
		    (unsigned long long)r->nnodes,
		    (unsigned long long)x->nnodes);
		return FAULT_EXCHANGE;
	}
	return FAULT_NONE;
}
