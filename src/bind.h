/* bind.h: the binding plan: for each local rank of a node, the cores it
 * runs on, its GPU and its NIC, made from the node's topology (topo.h)
 * by a policy (vocab.h's enum bind_policy). Pure: no system calls, so
 * Check tests feed it hand-built topologies and hwloc XML files. The
 * plan, its checks and the variable that carries it to the workers are
 * documented in ddprank(1), BINDING. */
#ifndef DDPGEN_BIND_H
#define DDPGEN_BIND_H

#include <stddef.h>

#include "cpuset.h"
#include "topo.h"
#include "util.h"
#include "vocab.h"

/* Local ranks a plan has at most (ddprank --nproc-per-node's bound). */
#define BIND_MAXRANKS	1024

struct bind_rank {
	struct cpuset	 cpus;		/* the hardware threads of its cores */
	int		 ncores;
	int		 numa;		/* its first core's NUMA domain, -1 */
	int		 gpu;		/* index in topo's gpus, -1: none */
	int		 nic;		/* index in topo's nics, -1: none */
};

struct bind_plan {
	enum bind_policy  policy;
	size_t		  n;
	struct bind_rank *r;
};

struct bind_opts {
	enum bind_policy  policy;
	size_t		  nranks;
	/* The site's reserved CPUs: a core with any of its threads here is
	 * never planned (profile bind_reserve). */
	struct cpuset	  reserve;
	/* The GPU each device index names, as CUDA_VISIBLE_DEVICES or
	 * ROCR_VISIBLE_DEVICES list them (device d is topo GPU visible[d]);
	 * NULL: device d is GPU d. Local rank r uses device r. */
	const int	 *visible;
	size_t		  nvisible;
};

/* Makes the plan (free it with bind_plan_free whatever this returns).
 * BIND_GPU: local rank r gets device r, the cores near it (those of its
 * NUMA domain or package, shared out in order among the ranks whose GPUs
 * are near the same cores) and the NIC closest to it in the PCI tree.
 * BIND_NUMA: the ranks spread over the NUMA domains, each with an equal
 * share of its domain's cores, and a NIC near them. -1 and *cause when
 * the node cannot hold the plan: no GPU, fewer GPUs than ranks, a
 * visible-devices list that does not name every GPU once, fewer cores
 * than ranks. */
int	bind_make(struct bind_plan *, const struct topo *,
	    const struct bind_opts *, char **cause);
void	bind_plan_free(struct bind_plan *);

/* Every core of every rank has a thread among allowed (what this task
 * may run on): then each rank's CPUs are narrowed to allowed ones (a
 * core's second thread the job was not given goes, the core stays);
 * else -1 and *cause naming the first rank that does not fit. */
int	bind_fit(struct bind_plan *, const struct topo *,
	    const struct cpuset *allowed, char **cause);

/* The plan for the workers, in BIND_PLAN_VAR (one line of text):
 * "1;POLICY;NICVAR;" then one "CPUS/CORES/GPU/NIC" per rank, joined by
 * ';', where GPU is the PCI bus id and NIC the name nic_var is given
 * (the fabric device, else the interface), "-" for none; NICVAR is
 * nic_var or "-". */
void	bind_encode(struct buf *, const struct bind_plan *,
	    const struct topo *, const char *nic_var);

/* One rank's part of an encoded plan. */
struct bind_wire {
	enum bind_policy policy;
	size_t		 n;		/* ranks in the plan */
	struct cpuset	 cpus;
	int		 ncores;
	char		 gpu[32];	/* "" when none */
	char		 nic[32];
	char		 nic_var[64];	/* "" when none */
};

/* Decodes rank's part of s: -1 and *cause when s is not a plan of this
 * grammar or has no such rank. */
int	bind_decode(struct bind_wire *, const char *s, size_t rank,
	    char **cause);

/* One line per local rank: "HOST rank R: cpus LIST (N cores, NUMA D),
 * GPU BUSID, NIC IFACE (FABRIC)", "none" where it has none. */
void	bind_explain(struct buf *, const struct bind_plan *,
	    const struct topo *, const char *host);

#endif
