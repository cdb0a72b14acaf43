/* topo.c: the node's topology from hwloc (topo.h), the one file that
 * includes <hwloc.h>: hwloc's tree becomes the small struct the plan
 * reads, so that nothing else depends on hwloc's types. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "cpuset.h"
#include "topo.h"
#include "util.h"
#include "xmalloc.h"

/* A GPU: a PCI device of a display class (0x03xx) from NVIDIA or AMD. */
static int
topo_is_gpu(unsigned pci_class, unsigned vendor)
{
	return pci_class >> 8 == 0x03 && (vendor == 0x10de || vendor == 0x1002);
}

/* hwloc's bitmap as a struct cpuset; CPUs past CPUSET_MAX are left out
 * (topo_load refuses a machine that has any). */
static void
topo_set(struct cpuset *dst, hwloc_const_bitmap_t src)
{
	int	i;

	cpuset_zero(dst);
	if (src == NULL)
		return;
	hwloc_bitmap_foreach_begin(i, src)
		cpuset_set(dst, i);
	hwloc_bitmap_foreach_end();
}

static int
topo_numa_of(const struct topo *t, const struct cpuset *pus)
{
	size_t	i;

	for (i = 0; i < t->nnuma; i++)
		if (cpuset_intersects(&t->numa[i], pus))
			return (int)i;
	return -1;
}

/* NUMA domains that hold CPUs (a GPU's memory shown as a NUMA domain
 * has none), in OS index order, which hwloc's logical order is. */
static void
topo_numas(struct topo *t, hwloc_topology_t h)
{
	hwloc_obj_t	o = NULL;
	int		n = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);

	t->numa = xreallocarray(NULL, n > 0 ? (size_t)n : 1, sizeof *t->numa);
	while ((o = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_NUMANODE,
	    o)) != NULL) {
		if (o->cpuset == NULL || hwloc_bitmap_iszero(o->cpuset))
			continue;
		topo_set(&t->numa[t->nnuma++], o->cpuset);
	}
}

/* Cores (or hardware threads, where hwloc shows no core), each with its
 * NUMA domain and L3 region. */
static void
topo_cores(struct topo *t, hwloc_topology_t h)
{
	hwloc_obj_type_t type = HWLOC_OBJ_CORE;
	hwloc_obj_t	 o = NULL, l3;
	struct topo_core *c;
	int		 n = hwloc_get_nbobjs_by_type(h, type);

	if (n <= 0) {
		type = HWLOC_OBJ_PU;
		n = hwloc_get_nbobjs_by_type(h, type);
	}
	t->cores = xreallocarray(NULL, n > 0 ? (size_t)n : 1,
	    sizeof *t->cores);
	while ((o = hwloc_get_next_obj_by_type(h, type, o)) != NULL) {
		c = &t->cores[t->ncores++];
		topo_set(&c->pus, o->cpuset);
		c->numa = topo_numa_of(t, &c->pus);
		l3 = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_L3CACHE, o);
		c->l3 = l3 != NULL ? (int)l3->logical_index : -1;
	}
}

static int
topo_cmp_core(const void *a, const void *b)
{
	const struct topo_core	*x = a, *y = b;
	int			 i = cpuset_next(&x->pus, -1);
	int			 j = cpuset_next(&y->pus, -1);

	return (i > j) - (i < j);
}

static int
topo_cmp_dev(const void *a, const void *b)
{
	const struct topo_dev	*x = a, *y = b;

	return strcmp(x->busid, y->busid);
}

/* The interface and fabric names among a NIC's OS devices. */
static int
topo_nic_names(hwloc_obj_t pci, struct topo_dev *d)
{
	hwloc_obj_t	c;
	int		found = 0;

	for (c = pci->io_first_child; c != NULL; c = c->next_sibling) {
		if (c->type != HWLOC_OBJ_OS_DEVICE || c->name == NULL)
			continue;
		if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK &&
		    d->iface[0] == '\0') {
			snprintf(d->iface, sizeof d->iface, "%s", c->name);
			found = 1;
		} else if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS &&
		    d->fabric[0] == '\0') {
			snprintf(d->fabric, sizeof d->fabric, "%s", c->name);
			found = 1;
		}
	}
	return found;
}

static void
topo_dev_fill(struct topo_dev *d, hwloc_topology_t h, hwloc_obj_t pci)
{
	hwloc_obj_t	o, a = hwloc_get_non_io_ancestor_obj(h, pci);
	uint32_t	rev[TOPO_DEPTH];
	size_t		n = 0;

	snprintf(d->busid, sizeof d->busid, "%04x:%02x:%02x.%01x",
	    pci->attr->pcidev.domain, pci->attr->pcidev.bus,
	    pci->attr->pcidev.dev, pci->attr->pcidev.func);
	d->vendor = pci->attr->pcidev.vendor_id;
	topo_set(&d->near, a != NULL ? a->cpuset : NULL);
	for (o = pci->parent; o != NULL && n < TOPO_DEPTH; o = o->parent)
		rev[n++] = (uint32_t)o->gp_index;
	for (d->depth = 0; d->depth < n; d->depth++)
		d->path[d->depth] = rev[n - 1 - d->depth];
}

/* GPUs and NICs: the PCI devices hwloc keeps (display and network
 * classes, the "important" ones). */
static void
topo_devs(struct topo *t, hwloc_topology_t h)
{
	hwloc_obj_t	 o = NULL;
	struct topo_dev	 d;
	int		 n = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PCI_DEVICE);

	n = n > 0 ? n : 1;
	t->gpus = xreallocarray(NULL, (size_t)n, sizeof *t->gpus);
	t->nics = xreallocarray(NULL, (size_t)n, sizeof *t->nics);
	while ((o = hwloc_get_next_pcidev(h, o)) != NULL) {
		memset(&d, 0, sizeof d);
		if (topo_is_gpu(o->attr->pcidev.class_id,
		    o->attr->pcidev.vendor_id)) {
			topo_dev_fill(&d, h, o);
			t->gpus[t->ngpus++] = d;
		} else if (topo_nic_names(o, &d)) {
			topo_dev_fill(&d, h, o);
			t->nics[t->nnics++] = d;
		}
	}
	qsort(t->gpus, t->ngpus, sizeof *t->gpus, topo_cmp_dev);
	qsort(t->nics, t->nnics, sizeof *t->nics, topo_cmp_dev);
}

/* Loads h, which the caller destroys once hwloc_topology_init has
 * succeeded (*inited). */
static int
topo_open(hwloc_topology_t *h, int *inited, const char *xml, char **cause)
{
	const char	*what = xml != NULL ? xml : "this machine";

	if (hwloc_topology_init(h) == -1)
		return util_fail(cause, "hwloc cannot start: %s",
		    strerror(errno));
	*inited = 1;
	/* Every core, those of other jobs' cgroups included: the plan is
	 * the node's, and ddprank checks it against what this task may
	 * use. GPUs and NICs are PCI devices of the classes hwloc calls
	 * important. */
	(void)hwloc_topology_set_flags(*h,
	    HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	(void)hwloc_topology_set_io_types_filter(*h,
	    HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	/* PCI devices from Linux's sysfs, as hwloc's own Linux backend
	 * reads them, not through the libpciaccess plugin, which finds the
	 * same devices and leaks what it allocates (LeakSanitizer). */
	(void)hwloc_topology_set_components(*h,
	    HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
	if (xml != NULL && hwloc_topology_set_xml(*h, xml) == -1)
		return util_fail(cause, "hwloc cannot read the topology of "
		    "%s: %s", what, strerror(errno));
	if (hwloc_topology_load(*h) == -1)
		return util_fail(cause, "hwloc cannot read the topology of "
		    "%s: %s", what, strerror(errno));
	return 0;
}

int
topo_load(struct topo *t, const char *xml, char **cause)
{
	hwloc_topology_t	h;
	hwloc_const_bitmap_t	all;
	int			rc, inited = 0;

	memset(t, 0, sizeof *t);
	if ((rc = topo_open(&h, &inited, xml, cause)) == 0) {
		all = hwloc_topology_get_complete_cpuset(h);
		if (all == NULL || hwloc_bitmap_iszero(all))
			rc = util_fail(cause, "hwloc found no CPU in the "
			    "topology of %s", xml != NULL ? xml :
			    "this machine");
		else if (hwloc_bitmap_last(all) >= CPUSET_MAX ||
		    hwloc_bitmap_last(all) < 0)
			rc = util_fail(cause, "the topology of %s has CPUs "
			    "from %d on, which ddprank cannot bind",
			    xml != NULL ? xml : "this machine", CPUSET_MAX);
	}
	if (rc == 0) {
		topo_numas(t, h);
		topo_cores(t, h);
		qsort(t->cores, t->ncores, sizeof *t->cores, topo_cmp_core);
		topo_devs(t, h);
	}
	if (inited)
		hwloc_topology_destroy(h);
	return rc;
}

void
topo_free(struct topo *t)
{
	free(t->cores);
	free(t->numa);
	free(t->gpus);
	free(t->nics);
	memset(t, 0, sizeof *t);
}
