/* topo.h: the node's topology as the binding plan (bind.h) needs it:
 * cores, NUMA domains, GPUs and network adapters with their locality.
 * topo.c reads it with hwloc, the one file that includes <hwloc.h>;
 * topo-none.c stands in for it where ddprank is built without hwloc
 * (ddprank-static). Tests build a struct topo by hand, or load an hwloc
 * XML file of another machine (test/topo/). */
#ifndef DDPGEN_TOPO_H
#define DDPGEN_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "cpuset.h"

/* The tree's levels from the machine down to a device, at most. */
#define TOPO_DEPTH	32

struct topo_core {
	struct cpuset	 pus;	/* its hardware threads */
	int		 numa;	/* index in numa[], -1 when none */
	int		 l3;	/* index of its L3 cache region, -1 */
};

/* A GPU or a network adapter: a PCI device. */
struct topo_dev {
	char		 busid[16];	/* "0000:c1:00.0" */
	unsigned	 vendor;	/* PCI vendor id, 0x10de NVIDIA */
	/* A NIC's interface ("hsn0", "ib0") and its fabric device
	 * ("cxi0", "mlx5_0"), either "" when hwloc shows none; a GPU's
	 * are "". */
	char		 iface[32];
	char		 fabric[32];
	/* The CPUs it is attached to: its first ancestor that is not an
	 * I/O object (a NUMA domain, a package, the machine). */
	struct cpuset	 near;
	/* Its ancestors, the machine first, as ids unique in the tree:
	 * two devices' paths share a longer prefix the closer they are
	 * (the same PCI switch, the same host bridge, the same NUMA
	 * domain). */
	uint32_t	 path[TOPO_DEPTH];
	size_t		 depth;
};

struct topo {
	struct topo_core *cores;	/* by first hardware thread */
	size_t		  ncores;
	struct cpuset	 *numa;		/* by OS index */
	size_t		  nnuma;
	struct topo_dev	 *gpus;		/* by PCI bus id */
	size_t		  ngpus;
	struct topo_dev	 *nics;		/* by PCI bus id */
	size_t		  nnics;
};

/* Reads this machine's topology, or the hwloc XML file xml when not
 * NULL. -1 and *cause ("hwloc cannot read ...") when hwloc fails or
 * finds no core. Free t with topo_free whatever this returns. */
int	topo_load(struct topo *t, const char *xml, char **cause);
void	topo_free(struct topo *t);

#endif
