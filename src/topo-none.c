/* topo-none.c: topo.h for a ddprank built without hwloc (ddprank-static,
 * whose static link cannot take Debian's libhwloc.a: it needs libudev
 * and loads plugins with dlopen). Reading the topology is an error. */
#include "config.h"

#include <string.h>

#include "topo.h"
#include "util.h"

int
topo_load(struct topo *t, const char *xml, char **cause)
{
	(void)xml;
	memset(t, 0, sizeof *t);
	return util_fail(cause, "this ddprank was built without hwloc "
	    "(ddprank-static) and cannot read the node's topology: run a "
	    "ddprank linked with hwloc, or set bind = none");
}

void
topo_free(struct topo *t)
{
	memset(t, 0, sizeof *t);
}
