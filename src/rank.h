/* rank.h: this node's rank, the node count, the master address and port,
 * combined from the node list, the interfaces and the job id. Functions
 * returning enum fault give FAULT_NONE on success, and otherwise a
 * category (fault.h) and set *cause (caller frees). */
#ifndef DDPGEN_RANK_H
#define DDPGEN_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "fault.h"
#include "nodes.h"
#include "util.h"
#include "vocab.h"

struct auth;
struct exchange_opts;
struct netif_sys;
struct rx;

/* Node lists longer than this are not searched by resolving every name
 * when this host's name is not in them. */
#define RANK_RESOLVE_MAX	4096

/* What rank_compute has done, for the launch timeline's marks. */
enum rank_mark {
	RANK_MARK_RANK,		/* the rank, from the node list */
	RANK_MARK_EXCHANGE	/* the rank, from the exchange */
};

struct rank_opts {
	enum sched_id	 sched;
	const char		*hostfile;	/* --hostfile, or NULL */
	struct rx		*rx;		/* --iface compiled, or NULL */
	const char		*iface;		/* its pattern, for messages */
	/* --comm-iface: Gloo's and NCCL's interfaces, when not --iface's;
	 * compiled, and its pattern; or NULL. */
	struct rx		*comm_rx;
	const char		*comm_iface;
	int			 port;		/* --port; 0 for auto */
	int			 lo, hi;	/* --port-range */
	int			 check_port;	/* bind it on node 0 */
	uint64_t		 nnodes;	/* --nnodes, or 0 */
	/* exec's --rdzv; env leaves it RDZV_STATIC: with c10d and --iface
	 * this node's host name must lead to the interface. */
	enum rdzv		 rdzv;
	/* --exchange: the nodes learn each other from the exchange, not
	 * from a node list; NULL or EXCHANGE_NONE for none. */
	const struct exchange_opts *exchange;
	/* The job's secret: the automatic port derives from it when it has
	 * one (len > 0). NULL for none. */
	const struct auth	*auth;
	/* One task per process (ddprank exec --launcher srun), not one per
	 * node: the scheduler's task variables give the local rank. */
	int			 per_process;
	/* Keep every node's name in rank's hosts (deepspeed's hostfile). */
	int			 want_hosts;
	/* With c10d and --iface, when this node's host name does not lead
	 * to the interface: 1 if the launcher's torchrun takes
	 * --local-addr (PET_LOCAL_ADDR; torch 2.3 and later), so that the
	 * host name does not matter; else 0, with *why (caller frees, or
	 * NULL) saying what is known. NULL: never. */
	int			(*local_addr_ok)(void *arg, char **why);
	void			*local_addr_arg;
	/* Called once the rank is known, before the checks that follow
	 * (c10d, the port); NULL: not called. */
	void			(*mark)(void *arg, enum rank_mark);
	void			*mark_arg;
};

struct rank {
	uint64_t	 node_rank;
	uint64_t	 nnodes;
	char		*host;		/* this node's name in the list */
	char		*master_addr;
	int		 master_port;
	char		*ifname;	/* interface matched, or NULL */
	/* With --comm-iface: every interface it matches, "a,b", for NCCL
	 * (ifname is the first, for Gloo); else NULL. */
	char		*nccl_ifnames;
	char		*jobid;		/* rendezvous id, or NULL */
	/* What an exchange says besides: another process of this node runs
	 * the command (--exchange mpi), and something to print (or NULL),
	 * set even when rank_compute fails. */
	int		 duplicate;
	char		*warning;
	/* GLOO_SOCKET_IFNAME and NCCL_SOCKET_IFNAME are already set: they
	 * are kept, not exported; note says so (node 0), or is NULL. */
	int		 keep_gloo, keep_nccl;
	char		*note;
	/* With c10d and --iface: this node's address on the interface,
	 * for torchrun's --local-addr (PET_LOCAL_ADDR); else NULL. */
	char		*local_addr;
	/* With per_process: this task's index on its node, and the tasks
	 * of every node; else 0 and 1. */
	uint64_t	 local_rank;
	uint64_t	 local_size;
	/* With want_hosts and a node list: every node's name, in order. */
	struct strlist	 hosts;
};

/* One variable to export; number says JSON should not quote it. */
struct rank_var {
	const char	*name;
	char		*value;
	int		 number;
};

#define RANK_VARS_MAX	24
struct rank_vars {
	struct rank_var	 v[RANK_VARS_MAX];
	size_t		 n;
};

/* Fills r; free it with rank_free whatever this returns. */
enum fault rank_compute(struct rank *r, const struct rank_opts *,
	    const struct nodes_env *, const struct netif_sys *, char **cause);
void	rank_free(struct rank *);

/* MASTER_PORT alone (ddprank port): --port, or derived from the job id. */
enum fault rank_port(int *port, const struct rank_opts *,
	    const struct nodes_env *, char **cause);

/* FAULT_NONE when this host is node 0 of the job's node list (ddprank ip
 * --first-node, in the batch shell that computes MASTER_ADDR); else
 * says where this runs instead, and why that cannot be. */
enum fault rank_first_node(const struct rank_opts *,
	    const struct nodes_env *, const struct netif_sys *, char **cause);

/* --rdzv c10d with --iface (o->rx): FAULT_NONE when this host's name
 * resolves to an address of the interface o->rx matches, as exec
 * requires; the doctor checks it first. */
enum fault rank_c10d_check(const struct rank_opts *, int family,
	    const struct netif_sys *, char **cause);

/* The address of the first interface matching o->rx (ddprank ip);
 * family is AF_INET, AF_INET6 or AF_UNSPEC. Caller frees *addr. */
enum fault rank_ip(char **addr, const struct rank_opts *, int family,
	    const struct netif_sys *, char **cause);

/* The variables for ddprank env (exec 0) or exec (exec 1, which adds
 * the PET_* ones torchrun reads, and the c10d ones for RDZV_C10D). */
void	rank_vars(struct rank_vars *, const struct rank *, int exec,
	    enum rdzv);
/* What torchrun gives a worker, for a task that is one (srun-direct):
 * RANK (node rank times local size plus local rank), LOCAL_RANK,
 * WORLD_SIZE, LOCAL_WORLD_SIZE and GROUP_RANK, appended to vs. */
void	rank_vars_worker(struct rank_vars *, const struct rank *);
void	rank_vars_free(struct rank_vars *);

/* "export NAME=WORD" lines safe to eval, or one JSON object. */
void	rank_format_sh(struct buf *, const struct rank_vars *);
void	rank_format_json(struct buf *, const struct rank_vars *);

#endif
