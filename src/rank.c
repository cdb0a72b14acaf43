/* rank.c: node rank, node count, master address and port for torchrun. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "exchange.h"
#include "fault.h"
#include "hostlist.h"
#include "netif.h"
#include "nodes.h"
#include "port.h"
#include "quote.h"
#include "rank.h"
#include "rx.h"
#include "util.h"
#include "xmalloc.h"

/* What rank_compute works with; interfaces are listed on first use. */
struct rank_ctx {
	const struct rank_opts	*o;
	const struct nodes_env	*env;
	const struct netif_sys	*sys;
	struct nodes		 nodes;
	struct netif_list	 ifs;
	int			 listed;
	const struct netif	*iface;		/* matched, or NULL */
};

static int
rank_ifs(struct rank_ctx *c, char **cause)
{
	if (c->listed)
		return 0;
	if (c->sys->ifaddrs(c->sys->arg, &c->ifs, cause) == -1)
		return -1;
	c->listed = 1;
	return 0;
}

static enum fault
rank_port_of(int *port, const struct rank_opts *o, enum sched_id s,
    const struct nodes_job *job, char **cause)
{
	char	*vars;

	if (o->port != 0) {
		*port = o->port;
		return FAULT_NONE;
	}
	if (!job->set) {
		vars = sched_job_vars_text(s, SCHED_AUTO);
		util_fail(cause, "--port auto needs a job id (%s) and none is "
		    "set; choose a port with --port N", vars);
		free(vars);
		return FAULT_PORT;
	}
	if (o->auth != NULL && o->auth->len > 0 &&
	    (*port = port_auto_secret(o->auth, job->port_id, job->task,
	    job->step, o->lo, o->hi)) == -1) {
		util_fail(cause, "--port auto: HMAC-SHA256 of the job's secret "
		    "failed; choose a port with --port N");
		return FAULT_PORT;
	}
	if (o->auth == NULL || o->auth->len == 0)
		*port = port_auto(job->port_id, job->task, job->step, o->lo,
		    o->hi);
	return FAULT_NONE;
}

/* The job id, as the rendezvous id, and the port of scheduler s, which
 * nodes_sched_resolve gave: env and exec with or without a node list. */
static enum fault
rank_job_port(struct rank *r, const struct rank_opts *o,
    const struct nodes_env *env, enum sched_id s, char **cause)
{
	struct nodes_job	job;

	if (nodes_job(&job, env, s, cause) == -1)
		return FAULT_NODES;
	r->jobid = nodes_job_string(&job);
	return rank_port_of(&r->master_port, o, s, &job, cause);
}

/* The scheduler is resolved as for env and exec, which print this port. */
enum fault
rank_port(int *port, const struct rank_opts *o, const struct nodes_env *env,
    char **cause)
{
	struct nodes_job	job;
	enum sched_id	s;

	s = nodes_sched_resolve(env, o->sched, o->hostfile);
	if (o->port == 0 && nodes_job(&job, env, s, cause) == -1)
		return FAULT_NODES;
	return rank_port_of(port, o, s, &job, cause);
}

static char *
rank_nth(const struct nodes *n, uint64_t i)
{
	char	name[HOSTLIST_NAME_MAX + 1];

	if (hostlist_nth(n->list, i, name, sizeof name) == -1)
		return xstrdup("?");
	return xstrdup(name);
}

/* The first listed host that resolves to an address of this node. */
static int64_t
rank_find_by_addr(struct rank_ctx *c, char **cause)
{
	struct netif_addrs	 addrs;
	uint64_t		 i, count = hostlist_count(c->nodes.list);
	char			*name, *why;
	int			 owns;

	if (count > RANK_RESOLVE_MAX)
		return -1;
	if (rank_ifs(c, cause) == -1)
		return -2;
	for (i = 0; i < count; i++) {
		name = rank_nth(&c->nodes, i);
		netif_addrs_init(&addrs);
		owns = 0;
		/* A name that does not resolve is simply not this node. */
		if (c->sys->resolve(c->sys->arg, name, &addrs, &why) == -1)
			free(why);
		else
			owns = netif_owns(&c->ifs, &addrs);
		netif_addrs_free(&addrs);
		free(name);
		if (owns)
			return (int64_t)i;
	}
	return -1;
}

static enum fault
rank_not_listed(struct rank_ctx *c, const char *host, char **cause)
{
	char	*list = nodes_describe(&c->nodes);

	util_fail(cause, "host '%s' is not in the node list %s", host, list);
	free(list);
	return FAULT_NODES;
}

/* The scheduler says which node this is (the row's nodeid_var): a
 * disagreement means the list and the host names do not describe the
 * same nodes, and ranks would collide. */
static enum fault
rank_crosscheck(struct rank_ctx *c, const char *host, int64_t i,
    char **cause)
{
	char	*list;

	if (c->nodes.nodeid < 0 || c->nodes.nodeid == i)
		return FAULT_NONE;
	list = nodes_describe(&c->nodes);
	util_fail(cause, "%s is %lld but host '%s' is node %lld of "
	    "the node list %s", sched_get(c->nodes.sched)->nodeid_var,
	    (long long)c->nodes.nodeid, host,
	    (long long)i, list);
	free(list);
	return FAULT_NODES;
}

/* A scheduler may show a task only its own node (the row's
 * partial_list): --nnodes catches it. */
static enum fault
rank_count_differs(struct rank_ctx *c, struct rank *r, char **cause)
{
	char	*list = nodes_describe(&c->nodes);

	util_fail(cause, "the node list %s names %llu node%s, not --nnodes "
	    "%llu%s", list, (unsigned long long)r->nnodes,
	    r->nnodes == 1 ? "" : "s",
	    (unsigned long long)c->o->nnodes, sched_get(c->nodes.sched)->partial_list ?
	    "; use --exchange when tasks see only part of the job" : "");
	free(list);
	return FAULT_NODES;
}

/* Virtual nodes (the row's virtual_nodes) all have this host's name:
 * the scheduler's index alone says which one this is. */
static int64_t
rank_virtual_node(struct rank_ctx *c, char **cause)
{
	const struct sched	*s = sched_get(c->nodes.sched);
	uint64_t		 count = hostlist_count(c->nodes.list);
	char			*list;

	if (c->nodes.nodeid >= 0 && (uint64_t)c->nodes.nodeid < count)
		return c->nodes.nodeid;
	list = nodes_describe(&c->nodes);
	if (c->nodes.nodeid < 0)
		util_fail(cause, "%s is not set: every node of %s is this "
		    "machine, and only it says which one this is",
		    s->nodeid_var, list);
	else
		util_fail(cause, "%s is %lld, past the last node of %s",
		    s->nodeid_var, (long long)c->nodes.nodeid, list);
	free(list);
	return -1;
}

/* This node's index in the list: by its name, the scheduler's name for
 * it, or its addresses; -1 after *cause, or -2 on a system error. */
static int64_t
rank_find_self(struct rank_ctx *c, const char *host, char **cause)
{
	int64_t	i;

	if (sched_get(c->nodes.sched)->virtual_nodes)
		return rank_virtual_node(c, cause);
	i = nodes_find(&c->nodes, host);
	if (i < 0 && c->nodes.selfname != NULL)
		i = nodes_find(&c->nodes, c->nodes.selfname);
	if (i < 0 && (i = rank_find_by_addr(c, cause)) == -2)
		return -2;
	if (i < 0) {
		rank_not_listed(c, host, cause);
		return -1;
	}
	return i;
}

static enum fault
rank_identify(struct rank_ctx *c, struct rank *r, char **cause)
{
	char	host[HOSTLIST_NAME_MAX + 1];
	int64_t	i;

	if (c->sys->hostname(c->sys->arg, host, sizeof host, cause) == -1)
		return FAULT_SYS;
	host[strcspn(host, ".")] = '\0';
	if ((i = rank_find_self(c, host, cause)) < 0)
		return i == -2 ? FAULT_SYS : FAULT_NODES;
	r->node_rank = (uint64_t)i;
	r->nnodes = hostlist_count(c->nodes.list);
	r->host = rank_nth(&c->nodes, r->node_rank);
	if (c->o->nnodes != 0 && c->o->nnodes != r->nnodes)
		return rank_count_differs(c, r, cause);
	return rank_crosscheck(c, host, i, cause);
}

/* The order every node sorts the first node's addresses in, so that the
 * choice does not follow the resolver's order, which differs between
 * nodes (RFC 6724 sorts by this node's own addresses; DNS rotates its
 * answers): loopback last, IPv4 before IPv6, then lowest first. */
static int
rank_addr_cmp(const void *pa, const void *pb)
{
	const struct netif_addr	*a = pa, *b = pb;
	int			 la = netif_addr_is_loopback(a);
	int			 lb = netif_addr_is_loopback(b);

	if (la != lb)
		return la - lb;
	if (a->family != b->family)
		return a->family == AF_INET ? -1 : 1;
	return memcmp(a->addr, b->addr, a->family == AF_INET ? 4 : 16);
}

/* 1 if a lies in a subnet of this node's matched interface. */
static int
rank_in_iface_subnet(struct rank_ctx *c, const struct netif_addr *a)
{
	const struct netif	*e;
	size_t			 j;

	for (j = 0; c->iface != NULL && j < c->ifs.n; j++) {
		e = &c->ifs.v[j];
		if (strcmp(e->name, c->iface->name) == 0 &&
		    netif_addr_in_subnet(a, &e->a))
			return 1;
	}
	return 0;
}

/* The one rule every node applies alike, node 0 included: of the
 * addresses the first node's name resolves to, in rank_addr_cmp's
 * order, the first inside a subnet of this node's matched interface,
 * else the first. A node cannot learn node 0's other addresses; the
 * nodes agree as long as they resolve the name alike and their
 * interfaces share the network's subnet. Sorts addrs. */
static const struct netif_addr *
rank_choose(struct rank_ctx *c, struct netif_addrs *addrs)
{
	size_t	i;

	qsort(addrs->v, addrs->n, sizeof *addrs->v, rank_addr_cmp);
	for (i = 0; i < addrs->n; i++) {
		if (rank_in_iface_subnet(c, &addrs->v[i]))
			return &addrs->v[i];
	}
	return &addrs->v[0];
}

static enum fault
rank_resolve_master(struct rank_ctx *c, struct rank *r, char **cause)
{
	struct netif_addrs	 addrs;
	const struct netif_addr	*a;
	char			*first, *list, *why, s[NETIF_ADDRSTRLEN];
	enum fault		 xc = FAULT_NODES;

	first = rank_nth(&c->nodes, 0);
	list = nodes_describe(&c->nodes);
	netif_addrs_init(&addrs);
	if (c->sys->resolve(c->sys->arg, first, &addrs, &why) == -1) {
		util_fail(cause, "master address: %s; it is the first node of "
		    "%s: set MASTER_ADDR", why, list);
		free(why);
		goto out;
	}
	if (addrs.n == 0) {
		util_fail(cause, "master address: '%s' resolves to no "
		    "address; it is the first node of %s: set MASTER_ADDR",
		    first, list);
		goto out;
	}
	a = rank_choose(c, &addrs);
	netif_addr_format(a, NULL, s, sizeof s);
	/* The classic failure: the name resolves to 127.0.1.1 through
	 * /etc/hosts and the other nodes connect to themselves. Not for
	 * virtual nodes, which are all this machine. */
	if (r->nnodes > 1 && netif_addr_is_loopback(a) &&
	    !sched_get(c->nodes.sched)->virtual_nodes) {
		/* --iface does not help: the others cannot learn node 0's
		 * address on it but from the batch shell. */
		util_fail(cause, "master address: '%s' resolves to the "
		    "loopback address %s, which other nodes cannot reach; %s",
		    first, s, c->iface != NULL ? "set MASTER_ADDR on node 0 "
		    "(ddprank ip --first-node), or have the name resolve to a "
		    "reachable address on every node" :
		    "use --iface REGEX or set MASTER_ADDR");
		goto out;
	}
	r->master_addr = xstrdup(s);
	xc = FAULT_NONE;
out:
	netif_addrs_free(&addrs);
	free(list);
	free(first);
	return xc;
}

static enum fault
rank_master(struct rank_ctx *c, struct rank *r, char **cause)
{
	const char	*v;

	/* The batch shell computes it on the first node and srun passes it
	 * on: that beats anything each node could work out alone. Node 0
	 * does not take its own interface's address otherwise: the others
	 * cannot know it, and would connect elsewhere. */
	if ((v = nodes_var(c->env, "MASTER_ADDR")) != NULL) {
		r->master_addr = xstrdup(v);
		return FAULT_NONE;
	}
	return rank_resolve_master(c, r, cause);
}

static enum fault
rank_match_iface(struct rank_ctx *c, struct rank *r, char **cause)
{
	if (c->o->rx == NULL)
		return FAULT_NONE;
	if (rank_ifs(c, cause) == -1)
		return FAULT_SYS;
	c->iface = netif_find(&c->ifs, c->o->rx, c->o->iface, AF_UNSPEC,
	    cause);
	if (c->iface == NULL)
		return FAULT_IFACE;
	r->ifname = xstrdup(c->iface->name);
	return FAULT_NONE;
}

static enum fault
rank_check_port(struct rank_ctx *c, struct rank *r, char **cause)
{
	char	*why;

	/* Per process, the task with local rank 0 checks; the others
	 * could find its training already listening. */
	if (!c->o->check_port || r->node_rank != 0 || r->duplicate ||
	    r->local_rank != 0)
		return FAULT_NONE;
	if (port_check(r->master_addr, r->master_port, &why) == -1) {
		util_fail(cause, "node 0 cannot host the rendezvous: %s", why);
		free(why);
		return FAULT_PORT;
	}
	return FAULT_NONE;
}

/* One task per process (srun-direct): the step's tasks must fill
 * every node alike, as --ntasks-per-node has them, for the ranks to be
 * torchrun's (node rank times tasks per node plus local rank). */
static enum fault
rank_per_process(struct rank_ctx *c, struct rank *r, char **cause)
{
	const struct sched	*s = sched_get(c->nodes.sched);
	int64_t			 local = -1, tasks = 0, nodes = 0;

	if (s->local_task_var == NULL || s->step_tasks_var == NULL ||
	    s->step_nodes_var == NULL) {
		util_fail(cause, "one task per process needs a scheduler that "
		    "numbers a node's tasks; this is %s", s->title);
		return FAULT_NODES;
	}
	if (nodes_var_num(&local, c->env, s->local_task_var, 0,
	    cause) == -1 ||
	    nodes_var_num(&tasks, c->env, s->step_tasks_var, 1, cause) == -1 ||
	    nodes_var_num(&nodes, c->env, s->step_nodes_var, 1, cause) == -1)
		return FAULT_NODES;
	if (local < 0 || tasks < 1 || nodes < 1) {
		util_fail(cause, "one task per process needs %s, %s and %s "
		    "(start the step with srun)", s->local_task_var,
		    s->step_tasks_var, s->step_nodes_var);
		return FAULT_NODES;
	}
	if (tasks % nodes != 0 || local >= tasks / nodes) {
		util_fail(cause, "this job step runs %lld tasks on %lld nodes "
		    "(%s, %s) and this is task %lld of its node (%s): every "
		    "node must run as many; start the step with "
		    "--ntasks-per-node", (long long)tasks, (long long)nodes,
		    s->step_tasks_var, s->step_nodes_var, (long long)local,
		    s->local_task_var);
		return FAULT_NODES;
	}
	r->local_rank = (uint64_t)local;
	r->local_size = (uint64_t)(tasks / nodes);
	return FAULT_NONE;
}

/* One torchrun per node: a step of more tasks than nodes (Slurm's: an
 * inherited --ntasks-per-node, -n) would start two on a node, which then
 * collide on the port with a confusing error. Every task of such a step
 * refuses, so the whole step fails at once. The scheduler's row names
 * the variables (nodes_var_num leaves a count at 0 for a NULL name). */
static enum fault
rank_one_task(struct rank_ctx *c, struct rank *r, char **cause)
{
	const struct sched	*s = sched_get(c->nodes.sched);
	int64_t			 local = 0, tasks = 0, nodes = 0;

	r->local_size = 1;
	if (c->o->per_process)
		return rank_per_process(c, r, cause);
	if (s->one_per_node == NULL)
		return FAULT_NONE;
	if (nodes_var_num(&local, c->env, s->local_task_var, 0,
	    cause) == -1 ||
	    nodes_var_num(&tasks, c->env, s->step_tasks_var, 1, cause) == -1 ||
	    nodes_var_num(&nodes, c->env, s->step_nodes_var, 1, cause) == -1)
		return FAULT_NODES;
	if (nodes > 0 && tasks > nodes) {
		util_fail(cause, "this job step runs %lld tasks on %lld nodes "
		    "(%s, %s): ddprank must run once per node; %s",
		    (long long)tasks, (long long)nodes, s->step_tasks_var,
		    s->step_nodes_var, s->one_per_node);
		return FAULT_NODES;
	}
	if (local > 0) {
		util_fail(cause, "this is task %lld of its node (%s): ddprank "
		    "must run once per node; %s", (long long)local,
		    s->local_task_var, s->one_per_node);
		return FAULT_NODES;
	}
	return FAULT_NONE;
}

static void
rank_hosts(struct rank_ctx *c, struct rank *r)
{
	uint64_t	i;

	for (i = 0; i < r->nnodes; i++)
		strlist_addown(&r->hosts, rank_nth(&c->nodes, i));
}

/* With the node list: this node's place in it, the master's address. */
static enum fault
rank_from_list(struct rank_ctx *c, struct rank *r, char **cause)
{
	const struct rank_opts	*o = c->o;
	enum fault		 xc;

	if (nodes_load(&c->nodes, c->env, o->sched, o->hostfile, cause) == -1)
		return FAULT_NODES;
	if ((xc = rank_one_task(c, r, cause)) == FAULT_NONE &&
	    (xc = rank_job_port(r, o, c->env, c->nodes.sched,
	    cause)) == FAULT_NONE &&
	    (xc = rank_identify(c, r, cause)) == FAULT_NONE &&
	    (xc = rank_match_iface(c, r, cause)) == FAULT_NONE)
		xc = rank_master(c, r, cause);
	if (xc == FAULT_NONE && o->want_hosts)
		rank_hosts(c, r);
	return xc;
}

/* Of the addresses name resolves to, the first IPv4 one that is not
 * loopback, else the first that is not loopback, else the first. */
static const struct netif_addr *
rank_pick_addr(const struct netif_addrs *addrs)
{
	size_t	i;

	for (i = 0; i < addrs->n; i++) {
		if (addrs->v[i].family == AF_INET &&
		    !netif_addr_is_loopback(&addrs->v[i]))
			return &addrs->v[i];
	}
	for (i = 0; i < addrs->n; i++) {
		if (!netif_addr_is_loopback(&addrs->v[i]))
			return &addrs->v[i];
	}
	return addrs->n > 0 ? &addrs->v[0] : NULL;
}

/* Other nodes will connect to the address this node publishes, unless
 * the job has one node. MPI only learns the count from the addresses,
 * and rejects one address claimed by several hosts instead. */
static int
rank_needs_reach(struct rank_ctx *c)
{
	return c->o->exchange->method == EXCHANGE_DIR && c->o->nnodes != 1;
}

/* The address this node publishes: its interface's with --iface, else
 * what its host name resolves to. */
static enum fault
rank_self_addr(struct rank_ctx *c, const char *name, char *buf, size_t len,
    char **cause)
{
	struct netif_addrs	 addrs;
	const struct netif_addr	*a;
	char			*why;
	enum fault		 xc = FAULT_NODES;

	if (c->iface != NULL) {
		netif_addr_format(&c->iface->a, NULL, buf, len);
		if (!rank_needs_reach(c) ||
		    !netif_addr_is_loopback(&c->iface->a))
			return FAULT_NONE;
		util_fail(cause, "this node's address: %s of interface %s is "
		    "a loopback address, which other nodes cannot reach", buf,
		    c->iface->name);
		return FAULT_IFACE;
	}
	netif_addrs_init(&addrs);
	if (c->sys->resolve(c->sys->arg, name, &addrs, &why) == -1) {
		util_fail(cause, "this node's address: %s; use --iface REGEX",
		    why);
		free(why);
	} else if ((a = rank_pick_addr(&addrs)) == NULL)
		util_fail(cause, "this node's address: '%s' resolves to no "
		    "address; use --iface REGEX", name);
	else {
		netif_addr_format(a, NULL, buf, len);
		xc = FAULT_NONE;
		if (rank_needs_reach(c) && netif_addr_is_loopback(a)) {
			util_fail(cause, "this node's address: '%s' resolves "
			    "only to the loopback address %s, which other "
			    "nodes cannot reach; use --iface REGEX", name, buf);
			xc = FAULT_NODES;
		}
	}
	netif_addrs_free(&addrs);
	return xc;
}

static enum fault
rank_bad_host(const char *host, char **cause)
{
	util_fail(cause, "exchange: host name '%s' cannot be published: "
	    "letters, digits, '-' and '_' only, at most %d", host,
	    EXCHANGE_HOST_MAX);
	return FAULT_EXCHANGE;
}

/* What this node publishes; formatted and parsed back, so that it is
 * certain the others can read it. */
static enum fault
rank_self(struct rank_ctx *c, struct exchange_node *x, char **cause)
{
	struct exchange_entry	 e;
	const struct sched	*s;
	struct buf		 b;
	char			 host[HOSTLIST_NAME_MAX + 1], *why;
	enum fault		 xc;

	memset(x, 0, sizeof *x);
	x->self.task = -1;
	x->nnodes = c->o->nnodes;
	if (c->sys->hostname(c->sys->arg, host, sizeof host, cause) == -1)
		return FAULT_SYS;
	if ((xc = rank_self_addr(c, host, x->self.addr, sizeof x->self.addr,
	    cause)) != FAULT_NONE)
		return xc;
	/* The task number and retry count of the scheduler whose tasks
	 * number themselves (sched_numbered). */
	s = sched_get(sched_numbered(nodes_sched_resolve(c->env, c->o->sched,
	    c->o->hostfile)));
	if (nodes_var_num(&x->self.task, c->env, s->task_number_var,
	    s->task_number_base, cause) == -1 ||
	    nodes_var_num(&x->retry, c->env, s->retry_var, 0, cause) == -1)
		return FAULT_NODES;
	x->task_base = s->task_number_base;
	host[strcspn(host, ".")] = '\0';
	if (strlen(host) > EXCHANGE_HOST_MAX)
		return rank_bad_host(host, cause);
	memcpy(x->self.host, host, strlen(host) + 1);
	buf_init(&b);
	exchange_format_entry(&b, &x->self);
	if (exchange_parse_entry(b.s, b.len, &e, &why) == -1) {
		free(why);
		xc = rank_bad_host(host, cause);
	}
	buf_free(&b);
	return xc;
}

static enum fault
rank_take_exchange(struct rank_ctx *c, struct rank *r,
    const struct exchange_result *res, char **cause)
{
	struct netif_addr	a;
	char			s[NETIF_ADDRSTRLEN];

	r->node_rank = res->node_rank;
	r->nnodes = res->nnodes;
	r->duplicate = res->duplicate;
	if (res->warning != NULL)
		r->warning = xstrdup(res->warning);
	if (netif_addr_parse(&a, res->master_addr) == -1 ||
	    (r->nnodes > 1 && netif_addr_is_loopback(&a))) {
		util_fail(cause, "exchange: node 0 published the address "
		    "'%s', which this node cannot use", res->master_addr);
		return FAULT_EXCHANGE;
	}
	/* A link-local address is reached through this node's interface. */
	netif_addr_format(&a, c->iface != NULL ? c->iface->name : NULL, s,
	    sizeof s);
	r->master_addr = xstrdup(s);
	return FAULT_NONE;
}

/* With --exchange: no node list, the job id names the exchange. */
static enum fault
rank_from_exchange(struct rank_ctx *c, struct rank *r, char **cause)
{
	const struct rank_opts	*o = c->o;
	struct exchange_node	 x;
	struct exchange_result	 res;
	enum fault		 xc;

	if ((xc = rank_job_port(r, o, c->env, nodes_sched_resolve(c->env,
	    o->sched, o->hostfile), cause)) != FAULT_NONE ||
	    (xc = rank_match_iface(c, r, cause)) != FAULT_NONE ||
	    (xc = rank_self(c, &x, cause)) != FAULT_NONE)
		return xc;
	r->host = xstrdup(x.self.host);
	x.jobid = r->jobid;
	if (o->exchange->method == EXCHANGE_DIR)
		xc = exchange_dir(&res, o->exchange, &x, cause);
	else
		xc = exchange_mpi(&res, o->exchange, &x, cause);
	if (xc == FAULT_NONE)
		xc = rank_take_exchange(c, r, &res, cause);
	exchange_result_free(&res);
	return xc;
}

/* --comm-iface: Gloo's interface is the first that matches, as for
 * --iface; NCCL takes every one that matches (it spreads its sockets
 * over them, as NERSC's NCCL_SOCKET_IFNAME=hsn does over hsn0..hsn3).
 * With both variables set already, the pattern has nothing to give and
 * need not match. */
static enum fault
rank_comm_iface(struct rank_ctx *c, struct rank *r, char **cause)
{
	const struct netif	*first;
	struct buf		 b;

	if (c->o->comm_rx == NULL ||
	    (nodes_var(c->env, "GLOO_SOCKET_IFNAME") != NULL &&
	    nodes_var(c->env, "NCCL_SOCKET_IFNAME") != NULL))
		return FAULT_NONE;
	if (rank_ifs(c, cause) == -1)
		return FAULT_SYS;
	if ((first = netif_find(&c->ifs, c->o->comm_rx, c->o->comm_iface,
	    AF_UNSPEC, cause)) == NULL)
		return FAULT_IFACE;
	free(r->ifname);
	r->ifname = xstrdup(first->name);
	buf_init(&b);
	netif_names(&b, &c->ifs, c->o->comm_rx);
	r->nccl_ifnames = buf_take(&b);
	return FAULT_NONE;
}

/* A site or user that set GLOO_SOCKET_IFNAME or NCCL_SOCKET_IFNAME knows
 * its network better than one pattern: their value stays, and node 0
 * says so once for the job. */
static void
rank_keep_ifnames(struct rank_ctx *c, struct rank *r)
{
	const char	*gloo, *nccl;
	struct buf	 b;

	if (r->ifname == NULL)
		return;
	gloo = nodes_var(c->env, "GLOO_SOCKET_IFNAME");
	nccl = nodes_var(c->env, "NCCL_SOCKET_IFNAME");
	r->keep_gloo = gloo != NULL;
	r->keep_nccl = nccl != NULL;
	if (r->node_rank != 0 || (gloo == NULL && nccl == NULL))
		return;
	buf_init(&b);
	buf_adds(&b, "keeping ");
	if (gloo != NULL)
		buf_addf(&b, "GLOO_SOCKET_IFNAME=%s%s", gloo,
		    nccl != NULL ? " and " : "");
	if (nccl != NULL)
		buf_addf(&b, "NCCL_SOCKET_IFNAME=%s", nccl);
	buf_addf(&b, " from the environment instead of interface %s",
	    r->ifname);
	r->note = b.s;
}

/* "10.0.0.1 fd00::1", for messages. Caller frees. */
static char *
rank_addr_list(const struct netif_addrs *addrs)
{
	struct buf	b;
	char		s[NETIF_ADDRSTRLEN];
	size_t		i;

	buf_init(&b);
	for (i = 0; i < addrs->n; i++) {
		netif_addr_format(&addrs->v[i], NULL, s, sizeof s);
		buf_addf(&b, "%s%s", i > 0 ? " " : "", s);
	}
	if (addrs->n == 0)
		buf_adds(&b, "no address");
	return b.s;
}

/* 1 if a is an address of interface iface of ifs. */
static int
rank_on_iface(const struct netif_list *ifs, const struct netif *iface,
    const struct netif_addr *a)
{
	size_t	i;

	for (i = 0; i < ifs->n; i++) {
		if (strcmp(ifs->v[i].name, iface->name) == 0 &&
		    netif_addr_equal(&ifs->v[i].a, a))
			return 1;
	}
	return 0;
}

/* When the host name does not do: torchrun 2.3 and later take
 * PET_LOCAL_ADDR instead (o->local_addr_ok asks), and the refusal in
 * *cause goes; else what is known of the torch goes into it. */
static enum fault
rank_c10d_version(const struct rank_opts *o, char **cause)
{
	char	*why = NULL, *s;
	int	 ok;

	if (o->local_addr_ok == NULL)
		return FAULT_IFACE;
	ok = o->local_addr_ok(o->local_addr_arg, &why);
	if (ok) {
		free(*cause);
		*cause = NULL;
	} else if (why != NULL) {
		xasprintf(&s, "%s (%s; torchrun 2.3 and later take "
		    "PET_LOCAL_ADDR instead)", *cause, why);
		free(*cause);
		*cause = s;
	}
	free(why);
	return ok ? FAULT_NONE : FAULT_IFACE;
}

/* torchrun's c10d agent that hosts the rendezvous gives the workers its
 * host name as MASTER_ADDR (socket.getfqdn) up to torch 2.2; 2.3 and
 * later take --local-addr (PET_LOCAL_ADDR) instead. Any node may host
 * it, so every node checks that its name leads to iface, of ifs, the
 * interface the pattern chose; where it does not, the callers ask which
 * torch runs (rank_c10d_version). */
static enum fault
rank_c10d_name(const struct netif_list *ifs, const struct netif *iface,
    const struct netif_sys *sys, char **cause)
{
	struct netif_addrs	 addrs;
	char			 host[HOSTLIST_NAME_MAX + 1], *why, *list;
	char			 s[NETIF_ADDRSTRLEN];
	size_t			 i;
	enum fault		 xc = FAULT_IFACE;

	netif_addr_format(&iface->a, iface->name, s, sizeof s);
	if (sys->hostname(sys->arg, host, sizeof host, cause) == -1)
		return FAULT_SYS;
	netif_addrs_init(&addrs);
	if (sys->resolve(sys->arg, host, &addrs, &why) == -1) {
		util_fail(cause, "--rdzv c10d: torchrun gives the workers this "
		    "node's host name as MASTER_ADDR, and %s; use --rdzv "
		    "static with --iface", why);
		free(why);
		goto out;
	}
	for (i = 0; i < addrs.n; i++) {
		if (rank_on_iface(ifs, iface, &addrs.v[i])) {
			xc = FAULT_NONE;
			goto out;
		}
	}
	list = rank_addr_list(&addrs);
	util_fail(cause, "--rdzv c10d: torchrun gives the workers this node's "
	    "host name '%s' as MASTER_ADDR, which resolves to %s, not to "
	    "%s of interface %s; use --rdzv static with --iface", host, list,
	    s, iface->name);
	free(list);
out:
	netif_addrs_free(&addrs);
	return xc;
}

static enum fault
rank_c10d_iface(struct rank_ctx *c, struct rank *r, char **cause)
{
	char	s[NETIF_ADDRSTRLEN];
	enum fault xc;

	if (c->o->rdzv != RDZV_C10D || c->iface == NULL)
		return FAULT_NONE;
	netif_addr_format(&c->iface->a, c->iface->name, s, sizeof s);
	r->local_addr = xstrdup(s);
	xc = rank_c10d_name(&c->ifs, c->iface, c->sys, cause);
	if (xc == FAULT_IFACE)
		xc = rank_c10d_version(c->o, cause);
	return xc;
}

enum fault
rank_c10d_check(const struct rank_opts *o, int family,
    const struct netif_sys *sys, char **cause)
{
	struct netif_list	 ifs;
	const struct netif	*e;
	enum fault		 xc;

	netif_list_init(&ifs);
	if (sys->ifaddrs(sys->arg, &ifs, cause) == -1)
		xc = FAULT_SYS;
	else if ((e = netif_find(&ifs, o->rx, o->iface, family,
	    cause)) == NULL)
		xc = FAULT_IFACE;
	else if ((xc = rank_c10d_name(&ifs, e, sys, cause)) == FAULT_IFACE)
		xc = rank_c10d_version(o, cause);
	netif_list_free(&ifs);
	return xc;
}

enum fault
rank_compute(struct rank *r, const struct rank_opts *o,
    const struct nodes_env *env, const struct netif_sys *sys, char **cause)
{
	struct rank_ctx	c;
	enum fault	xc;

	memset(r, 0, sizeof *r);
	strlist_init(&r->hosts);
	r->local_size = 1;
	memset(&c, 0, sizeof c);
	c.o = o;
	c.env = env;
	c.sys = sys;
	netif_list_init(&c.ifs);
	if (o->exchange != NULL && o->exchange->method != EXCHANGE_NONE) {
		xc = rank_from_exchange(&c, r, cause);
		if (xc == FAULT_NONE && o->mark != NULL)
			o->mark(o->mark_arg, RANK_MARK_EXCHANGE);
	} else {
		xc = rank_from_list(&c, r, cause);
		if (xc == FAULT_NONE && o->mark != NULL)
			o->mark(o->mark_arg, RANK_MARK_RANK);
	}
	if (xc == FAULT_NONE)
		xc = rank_c10d_iface(&c, r, cause);
	if (xc == FAULT_NONE)
		xc = rank_check_port(&c, r, cause);
	if (xc == FAULT_NONE)
		xc = rank_comm_iface(&c, r, cause);
	if (xc == FAULT_NONE)
		rank_keep_ifnames(&c, r);
	netif_list_free(&c.ifs);
	nodes_free(&c.nodes);
	return xc;
}

void
rank_free(struct rank *r)
{
	free(r->host);
	free(r->master_addr);
	free(r->ifname);
	free(r->nccl_ifnames);
	free(r->jobid);
	free(r->warning);
	free(r->note);
	free(r->local_addr);
	strlist_free(&r->hosts);
	memset(r, 0, sizeof *r);
}

/* A scheduler may run a batch script on node 0 and an interactive one
 * on the host it was started on (Slurm's sbatch and salloc: the row's
 * batch_host_note): there, an interface's address is no node's, or no
 * interface matches at all. */
static enum fault
rank_not_first(struct rank_ctx *c, const char *host, int listed,
    char **cause)
{
	const struct sched	*s = sched_get(c->nodes.sched);
	char			*list = nodes_describe(&c->nodes);
	char			*first = rank_nth(&c->nodes, 0);
	struct buf		 b;

	buf_init(&b);
	buf_addf(&b, "--first-node: this runs on '%s', %s, not on node 0 "
	    "'%s' of the node list %s, whose address the master address must "
	    "be:", host, listed ? "another node of the job" :
	    "no node of the job", first, list);
	if (s->batch_host_note != NULL)
		buf_addf(&b, " %s, or", s->batch_host_note);
	buf_addf(&b, " run this on '%s'", first);
	if (s->one_task_cmd != NULL)
		buf_addf(&b, " (%s%s)", s->one_task_cmd, first);
	util_fail(cause, "%s", b.s);
	buf_free(&b);
	free(first);
	free(list);
	return FAULT_NODES;
}

enum fault
rank_first_node(const struct rank_opts *o, const struct nodes_env *env,
    const struct netif_sys *sys, char **cause)
{
	struct rank_ctx	 c;
	struct rank	 r;
	char		 host[HOSTLIST_NAME_MAX + 1], *why = NULL;
	enum fault	 xc;

	memset(&c, 0, sizeof c);
	memset(&r, 0, sizeof r);
	strlist_init(&r.hosts);
	c.o = o;
	c.env = env;
	c.sys = sys;
	netif_list_init(&c.ifs);
	if (nodes_load(&c.nodes, env, o->sched, o->hostfile, &why) == -1) {
		util_fail(cause, "--first-node: %s", why);
		xc = FAULT_NODES;
	} else if (sys->hostname(sys->arg, host, sizeof host, cause) == -1)
		xc = FAULT_SYS;
	else {
		host[strcspn(host, ".")] = '\0';
		xc = rank_identify(&c, &r, &why);
		if (xc == FAULT_NONE && r.node_rank == 0)
			;
		else if (xc == FAULT_NONE || xc == FAULT_NODES)
			xc = rank_not_first(&c, host, xc == FAULT_NONE, cause);
		else
			util_fail(cause, "--first-node: %s", why);
	}
	free(why);
	rank_free(&r);
	netif_list_free(&c.ifs);
	nodes_free(&c.nodes);
	return xc;
}

enum fault
rank_ip(char **addr, const struct rank_opts *o, int family,
    const struct netif_sys *sys, char **cause)
{
	struct netif_list	 ifs;
	const struct netif	*e;
	char			 s[NETIF_ADDRSTRLEN];
	enum fault		 xc;

	*addr = NULL;
	netif_list_init(&ifs);
	if (sys->ifaddrs(sys->arg, &ifs, cause) == -1)
		xc = FAULT_SYS;
	else if ((e = netif_find(&ifs, o->rx, o->iface, family,
	    cause)) == NULL)
		xc = FAULT_IFACE;
	else {
		netif_addr_format(&e->a, e->name, s, sizeof s);
		*addr = xstrdup(s);
		xc = FAULT_NONE;
	}
	netif_list_free(&ifs);
	return xc;
}

static void __attribute__((format(printf, 4, 5)))
rank_var(struct rank_vars *vs, const char *name, int number,
    const char *fmt, ...)
{
	struct rank_var	*v;
	va_list		 ap;

	/* Every variable of every launcher fits (RANK_VARS_MAX). */
	if (vs->n >= RANK_VARS_MAX)
		abort();
	v = &vs->v[vs->n++];

	v->name = name;
	v->number = number;
	va_start(ap, fmt);
	xvasprintf(&v->value, fmt, ap);
	va_end(ap);
}

/* torchrun's c10d rendezvous: node 0 hosts the store, said explicitly
 * because torchrun would compare the endpoint with its host name. */
static void
rank_vars_c10d(struct rank_vars *vs, const struct rank *r)
{
	int	v6 = strchr(r->master_addr, ':') != NULL;

	rank_var(vs, "PET_RDZV_BACKEND", 0, "c10d");
	rank_var(vs, "PET_RDZV_ENDPOINT", 0, "%s%s%s:%d", v6 ? "[" : "",
	    r->master_addr, v6 ? "]" : "", r->master_port);
	if (r->jobid != NULL)
		rank_var(vs, "PET_RDZV_ID", 0, "%s", r->jobid);
	rank_var(vs, "PET_RDZV_CONF", 0, "is_host=%d", r->node_rank == 0);
	if (r->local_addr != NULL)
		rank_var(vs, "PET_LOCAL_ADDR", 0, "%s", r->local_addr);
}

void
rank_vars(struct rank_vars *vs, const struct rank *r, int exec,
    enum rdzv rdzv)
{
	vs->n = 0;
	rank_var(vs, "NODE_RANK", 1, "%llu", (unsigned long long)r->node_rank);
	rank_var(vs, "NNODES", 1, "%llu", (unsigned long long)r->nnodes);
	rank_var(vs, "MASTER_ADDR", 0, "%s", r->master_addr);
	rank_var(vs, "MASTER_PORT", 1, "%d", r->master_port);
	if (r->ifname != NULL && !r->keep_gloo)
		rank_var(vs, "GLOO_SOCKET_IFNAME", 0, "%s", r->ifname);
	/* NCCL takes prefixes: "=" asks for this name exactly. */
	if (r->ifname != NULL && !r->keep_nccl)
		rank_var(vs, "NCCL_SOCKET_IFNAME", 0, "=%s",
		    r->nccl_ifnames != NULL ? r->nccl_ifnames : r->ifname);
	if (!exec)
		return;
	rank_var(vs, "PET_NNODES", 0, "%llu", (unsigned long long)r->nnodes);
	rank_var(vs, "PET_NODE_RANK", 0, "%llu",
	    (unsigned long long)r->node_rank);
	rank_var(vs, "PET_MASTER_ADDR", 0, "%s", r->master_addr);
	rank_var(vs, "PET_MASTER_PORT", 0, "%d", r->master_port);
	if (rdzv == RDZV_C10D)
		rank_vars_c10d(vs, r);
}

void
rank_vars_worker(struct rank_vars *vs, const struct rank *r)
{
	rank_var(vs, "RANK", 1, "%llu", (unsigned long long)(r->node_rank *
	    r->local_size + r->local_rank));
	rank_var(vs, "LOCAL_RANK", 1, "%llu",
	    (unsigned long long)r->local_rank);
	rank_var(vs, "WORLD_SIZE", 1, "%llu",
	    (unsigned long long)(r->nnodes * r->local_size));
	rank_var(vs, "LOCAL_WORLD_SIZE", 1, "%llu",
	    (unsigned long long)r->local_size);
	rank_var(vs, "GROUP_RANK", 1, "%llu",
	    (unsigned long long)r->node_rank);
}

void
rank_vars_free(struct rank_vars *vs)
{
	size_t	i;

	for (i = 0; i < vs->n; i++)
		free(vs->v[i].value);
	vs->n = 0;
}

/* Users eval this in whatever shell they have, dash and zsh included, so
 * the words are POSIX (a value with a newline spans two lines) and a
 * value that begins with = is quoted for zsh, which would expand it. */
void
rank_format_sh(struct buf *b, const struct rank_vars *vs)
{
	size_t	i;

	for (i = 0; i < vs->n; i++) {
		buf_addf(b, "export %s=", vs->v[i].name);
		quote_sh_eval(b, vs->v[i].value);
		buf_addc(b, '\n');
	}
}

static void
rank_json_string(struct buf *b, const char *s)
{
	unsigned char	c;

	buf_addc(b, '"');
	for (; (c = (unsigned char)*s) != '\0'; s++) {
		if (c == '"' || c == '\\')
			buf_addf(b, "\\%c", c);
		else if (c == '\n')
			buf_adds(b, "\\n");
		else if (c == '\t')
			buf_adds(b, "\\t");
		else if (util_iscntrl(c))
			buf_addf(b, "\\u%04x", c);
		else
			buf_addc(b, (char)c);
	}
	buf_addc(b, '"');
}

void
rank_format_json(struct buf *b, const struct rank_vars *vs)
{
	size_t	i;

	buf_addc(b, '{');
	for (i = 0; i < vs->n; i++) {
		if (i > 0)
			buf_addc(b, ',');
		rank_json_string(b, vs->v[i].name);
		buf_addc(b, ':');
		if (vs->v[i].number)
			buf_adds(b, vs->v[i].value);
		else
			rank_json_string(b, vs->v[i].value);
	}
	buf_adds(b, "}\n");
}
