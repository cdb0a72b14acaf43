/* exchange-nompi.c: ddprank without MPI: --exchange mpi says so. */
#include "config.h"

#include <string.h>

#include "exchange.h"
#include "fault.h"
#include "util.h"

int
exchange_have_mpi(void)
{
	return 0;
}

enum fault
exchange_mpi(struct exchange_result *r, const struct exchange_opts *o,
    const struct exchange_node *x, char **cause)
{
	(void)o;
	(void)x;
	memset(r, 0, sizeof *r);
	util_fail(cause, "ddprank was built without MPI support "
	    "(./configure --with-mpi)");
	return FAULT_USAGE;
}
