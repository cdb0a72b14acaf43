/* check_rank.c: unit tests for rank, master address, port and the output. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "fault.h"
#include "netif.h"
#include "nodes.h"
#include "rank.h"
#include "vocab.h"
#include "rx.h"
#include "testlib.h"
#include "util.h"
#include "xmalloc.h"

/* One node: loopback, a management network (eth0) and a high-speed
 * one (eth3), listed as getifaddrs would. */
static const struct t_if node_ifs[] = {
	{ "lo", 1, NULL, 0 },
	{ "eth0", 1, NULL, 0 },
	{ "eth3", 1, NULL, 0 },
	{ "lo", 1, "127.0.0.1", 8 },
	{ "eth0", 1, "10.0.0.2", 24 },
	{ "eth3", 1, "10.3.0.2", 16 },
	{ "lo", 1, "::1", 128 },
	{ "eth3", 1, "fe80::3:2", 64 },
	{ NULL, 0, NULL, 0 }
};

/* What names resolve to, as "name=addr addr ...". */
static const char *const dns[] = {
	"nid01=fd00::1 10.0.0.1 10.3.0.1",
	"nid02=10.0.0.2 10.3.0.2",
	"nid03=fd00::3",
	"far=192.168.1.1 10.0.0.1",
	"loopy=127.0.1.1",
	"NID01=10.0.0.1",
	"localhost=::1 127.0.0.1",
	NULL
};

static struct t_net	 fake;
static struct rx	 rx;
static struct rank_opts	 opts;

static void
setup(void)
{
	memset(&fake, 0, sizeof fake);
	fake.hostname = "nid02";
	fake.ifs = node_ifs;
	fake.dns = dns;
	memset(&opts, 0, sizeof opts);
	opts.port = 29500;
	opts.lo = 20000;
	opts.hi = 29999;
}

static void
teardown(void)
{
	if (opts.rx != NULL)
		rx_free(&rx);
}

static void
use_iface(const char *pattern)
{
	char	*cause = NULL;

	ck_assert_int_eq(rx_compile(&rx, pattern, &cause), 0);
	opts.rx = &rx;
	opts.iface = pattern;
}

static enum fault
compute(struct rank *r, const char *const *vars, char **cause)
{
	struct nodes_env	env = t_env(vars);
	struct netif_sys	sys = t_net_sys(&fake);

	*cause = NULL;
	return rank_compute(r, &opts, &env, &sys, cause);
}

/* Compares the "export" lines of ddprank env (exec 0) or of the
 * variables exec sets (exec 1) for r. */
static void
expect_vars(const struct rank *r, int exec, enum rdzv rdzv,
    const char *want)
{
	struct rank_vars	vs;
	struct buf		b;

	rank_vars(&vs, r, exec, rdzv);
	buf_init(&b);
	rank_format_sh(&b, &vs);
	ck_assert_str_eq(b.s, want);
	buf_free(&b);
	rank_vars_free(&vs);
}

/* Computes and compares the "export" lines of ddprank env with static
 * rendezvous. */
static void
expect_sh(const char *const *vars, const char *want)
{
	struct rank	 r;
	char		*cause;
	enum fault	 xc;

	if ((xc = compute(&r, vars, &cause)) != FAULT_NONE)
		ck_abort_msg("fault %d: %s", xc, cause);
	expect_vars(&r, 0, RDZV_STATIC, want);
	rank_free(&r);
}

static void
expect_error(const char *const *vars, enum fault want_xc, const char *want)
{
	struct rank	 r;
	char		*cause;

	ck_assert_int_eq(compute(&r, vars, &cause), want_xc);
	ck_assert_str_eq(cause, want);
	free(cause);
	rank_free(&r);
}

START_TEST(test_by_hostname)
{
	expect_sh(ENV("SLURM_JOB_NODELIST=nid[01-03]"),
	    "export NODE_RANK=1\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.0.0.1\n"
	    "export MASTER_PORT=29500\n");
	/* Only the short host name counts. */
	fake.hostname = "nid03.cluster.example";
	expect_sh(ENV("SLURM_JOB_NODELIST=nid[01-03]"),
	    "export NODE_RANK=2\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.0.0.1\n"
	    "export MASTER_PORT=29500\n");
	ck_assert_int_eq(fake.resolved, 2);
}
END_TEST

START_TEST(test_hpcpack_case)
{
	expect_sh(ENV("CCP_NODES=2 NID01 8 NID02 8"),
	    "export NODE_RANK=1\n"
	    "export NNODES=2\n"
	    "export MASTER_ADDR=10.0.0.1\n"
	    "export MASTER_PORT=29500\n");
}
END_TEST

START_TEST(test_master_iface)
{
	use_iface("^eth[0-9]+$|^ib");
	/* Node 1: the master's address in the subnet of this node's eth0,
	 * the first interface that matched. */
	expect_sh(ENV("SLURM_JOB_NODELIST=nid[01-03]"),
	    "export NODE_RANK=1\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.0.0.1\n"
	    "export MASTER_PORT=29500\n"
	    "export GLOO_SOCKET_IFNAME=eth0\n"
	    "export NCCL_SOCKET_IFNAME='=eth0'\n");
	rx_free(&rx);
	use_iface("^eth3$");
	expect_sh(ENV("SLURM_JOB_NODELIST=nid[01-03]"),
	    "export NODE_RANK=1\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.3.0.1\n"
	    "export MASTER_PORT=29500\n"
	    "export GLOO_SOCKET_IFNAME=eth3\n"
	    "export NCCL_SOCKET_IFNAME='=eth3'\n");
	/* Node 0 applies the same rule to its own name, and agrees: not
	 * the address of its own interface, which no other node knows. */
	fake.hostname = "nid01";
	expect_sh(ENV("SLURM_JOB_NODELIST=nid[01-03]"),
	    "export NODE_RANK=0\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.3.0.1\n"
	    "export MASTER_PORT=29500\n"
	    "export GLOO_SOCKET_IFNAME=eth3\n"
	    "export NCCL_SOCKET_IFNAME='=eth3'\n");
}
END_TEST

/* Field report 3: names resolve to the management network (eth3 here)
 * and --iface picks another (nmn0). Node 0 used to give its nmn0
 * address and the others its name's: every node must give the same. */
static const struct t_if mgmt_ifs1[] = {
	{ "lo", 1, "127.0.0.1", 8 },
	{ "eth3", 1, "10.70.0.11", 24 },
	{ "nmn0", 1, "10.71.0.11", 24 },
	{ NULL, 0, NULL, 0 }
};
static const struct t_if mgmt_ifs2[] = {
	{ "lo", 1, "127.0.0.1", 8 },
	{ "eth3", 1, "10.70.0.12", 24 },
	{ "nmn0", 1, "10.71.0.12", 24 },
	{ NULL, 0, NULL, 0 }
};
static const char *const mgmt_dns[] = {
	"node1=10.70.0.11",
	"node2=10.70.0.12",
	/* Two answers, in another order on the other node. */
	"multi=10.71.0.11 10.70.0.11",
	NULL
};
static const char *const mgmt_dns2[] = {
	"node1=10.70.0.11",
	"node2=10.70.0.12",
	"multi=10.70.0.11 10.71.0.11",
	NULL
};

static char *
master_on(const char *host, const struct t_if *ifs,
    const char *const *names, const char *list)
{
	const char	*vars[] = { list, NULL };
	struct rank	 r;
	char		*cause, *addr;
	enum fault	 xc;

	fake.hostname = host;
	fake.ifs = ifs;
	fake.dns = names;
	if ((xc = compute(&r, vars, &cause)) != FAULT_NONE)
		ck_abort_msg("%s: fault %d: %s", host, xc, cause);
	addr = xstrdup(r.master_addr);
	rank_free(&r);
	return addr;
}

static const struct t_if login_ifs[] = {
	{ "lo", 1, "127.0.0.1", 8 },
	{ "eth0", 1, "192.168.5.5", 24 },
	{ NULL, 0, NULL, 0 }
};

/* ddprank ip --first-node: under salloc the batch shell is the login
 * host, whose interface is no node's. */
START_TEST(test_first_node)
{
	struct nodes_env	 env;
	struct netif_sys	 sys = t_net_sys(&fake);
	char			*cause = NULL;

	env = t_env(ENV("SLURM_JOB_NODELIST=nid[02-03]"));
	ck_assert_int_eq(rank_first_node(&opts, &env, &sys, &cause),
	    FAULT_NONE);
	env = t_env(ENV("SLURM_JOB_NODELIST=nid[01-03]"));
	ck_assert_int_eq(rank_first_node(&opts, &env, &sys, &cause),
	    FAULT_NODES);
	ck_assert_str_eq(cause, "--first-node: this runs on 'nid02', another "
	    "node of the job, not on node 0 'nid01' of the node list "
	    "'nid[01-03]' (from SLURM_JOB_NODELIST), whose address the master "
	    "address must be: sbatch runs a script there, salloc on the host "
	    "it was started on; submit with sbatch, or run this on 'nid01' "
	    "(srun --nodes=1 --ntasks=1 --nodelist=nid01)");
	free(cause);
	/* A login host, none of whose addresses is a node's. */
	fake.hostname = "login1";
	fake.ifs = login_ifs;
	ck_assert_int_eq(rank_first_node(&opts, &env, &sys, &cause),
	    FAULT_NODES);
	ck_assert_ptr_nonnull(strstr(cause, "this runs on 'login1', no node "
	    "of the job, not on node 0 'nid01'"));
	free(cause);
	/* A scheduler whose row has no batch-host note or one-task command
	 * (LSF's): only where to run it. */
	env = t_env(ENV("LSB_MCPU_HOSTS=nid01 4 login1 4"));
	ck_assert_int_eq(rank_first_node(&opts, &env, &sys, &cause),
	    FAULT_NODES);
	ck_assert_str_eq(cause, "--first-node: this runs on 'login1', another "
	    "node of the job, not on node 0 'nid01' of the node list "
	    "'nid01 4 login1 4' (from LSB_MCPU_HOSTS), whose address the "
	    "master address must be: run this on 'nid01'");
	free(cause);
	env = t_env(ENV("PATH=/bin"));
	ck_assert_int_eq(rank_first_node(&opts, &env, &sys, &cause),
	    FAULT_NODES);
	ck_assert_ptr_nonnull(strstr(cause, "--first-node: no node list: "));
	free(cause);
}
END_TEST

START_TEST(test_master_agrees)
{
	char	*a, *b;

	use_iface("^nmn0$");
	/* No address of node1's name on nmn0: both give its eth3 one. */
	a = master_on("node1", mgmt_ifs1, mgmt_dns, "SLURM_JOB_NODELIST="
	    "node[1-2]");
	b = master_on("node2", mgmt_ifs2, mgmt_dns, "SLURM_JOB_NODELIST="
	    "node[1-2]");
	ck_assert_str_eq(a, "10.70.0.11");
	ck_assert_str_eq(b, a);
	free(a);
	free(b);
	/* A name with an address on nmn0: that one, whatever order each
	 * node's resolver gives. */
	a = master_on("node1", mgmt_ifs1, mgmt_dns, "SLURM_JOB_NODELIST="
	    "multi,node1");
	b = master_on("node2", mgmt_ifs2, mgmt_dns2, "SLURM_JOB_NODELIST="
	    "multi,node2");
	ck_assert_str_eq(a, "10.71.0.11");
	ck_assert_str_eq(b, a);
	free(a);
	free(b);
	/* Without --iface, the lowest IPv4 address, in either order. */
	rx_free(&rx);
	opts.rx = NULL;
	opts.iface = NULL;
	a = master_on("node1", mgmt_ifs1, mgmt_dns, "SLURM_JOB_NODELIST="
	    "multi,node1");
	b = master_on("node2", mgmt_ifs2, mgmt_dns2, "SLURM_JOB_NODELIST="
	    "multi,node2");
	ck_assert_str_eq(a, "10.70.0.11");
	ck_assert_str_eq(b, a);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_master_fallbacks)
{
	use_iface("^eth3$");
	/* No address of 'far' in eth3's subnet: its lowest IPv4 one, not
	 * the resolver's first. */
	expect_sh(ENV("SLURM_JOB_NODELIST=far,nid02"),
	    "export NODE_RANK=1\n"
	    "export NNODES=2\n"
	    "export MASTER_ADDR=10.0.0.1\n"
	    "export MASTER_PORT=29500\n"
	    "export GLOO_SOCKET_IFNAME=eth3\n"
	    "export NCCL_SOCKET_IFNAME='=eth3'\n");
	/* No IPv4 address at all: the first. */
	expect_sh(ENV("SLURM_JOB_NODELIST=nid03,nid02"),
	    "export NODE_RANK=1\n"
	    "export NNODES=2\n"
	    "export MASTER_ADDR=fd00::3\n"
	    "export MASTER_PORT=29500\n"
	    "export GLOO_SOCKET_IFNAME=eth3\n"
	    "export NCCL_SOCKET_IFNAME='=eth3'\n");
}
END_TEST

START_TEST(test_master_env_wins)
{
	use_iface("^eth3$");
	fake.hostname = "nid01";
	expect_sh(ENV("SLURM_JOB_NODELIST=nid[01-03]",
	    "MASTER_ADDR=10.9.9.9"),
	    "export NODE_RANK=0\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.9.9.9\n"
	    "export MASTER_PORT=29500\n"
	    "export GLOO_SOCKET_IFNAME=eth3\n"
	    "export NCCL_SOCKET_IFNAME='=eth3'\n");
	ck_assert_int_eq(fake.resolved, 0);
	/* An empty MASTER_ADDR is no MASTER_ADDR. */
	expect_sh(ENV("SLURM_JOB_NODELIST=nid[01-03]", "MASTER_ADDR="),
	    "export NODE_RANK=0\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.3.0.1\n"
	    "export MASTER_PORT=29500\n"
	    "export GLOO_SOCKET_IFNAME=eth3\n"
	    "export NCCL_SOCKET_IFNAME='=eth3'\n");
}
END_TEST

START_TEST(test_master_loopback)
{
	expect_error(ENV("SLURM_JOB_NODELIST=loopy,nid02"), FAULT_NODES,
	    "master address: 'loopy' resolves to the loopback address "
	    "127.0.1.1, which other nodes cannot reach; use --iface REGEX or "
	    "set MASTER_ADDR");
	/* --iface does not help: the others cannot learn node 0's address
	 * on it. */
	use_iface("^eth3$");
	expect_error(ENV("SLURM_JOB_NODELIST=loopy,nid02"), FAULT_NODES,
	    "master address: 'loopy' resolves to the loopback address "
	    "127.0.1.1, which other nodes cannot reach; set MASTER_ADDR on "
	    "node 0 (ddprank ip --first-node), or have the name resolve to a "
	    "reachable address on every node");
	rx_free(&rx);
	opts.rx = NULL;
	/* Alone, loopback is right. */
	fake.hostname = "loopy";
	expect_sh(ENV("SLURM_JOB_NODELIST=loopy"),
	    "export NODE_RANK=0\n"
	    "export NNODES=1\n"
	    "export MASTER_ADDR=127.0.1.1\n"
	    "export MASTER_PORT=29500\n");
}
END_TEST

/* A local job's virtual nodes are all this machine: DDPGEN_LOCAL_NODE
 * says which one this is, and their master is on loopback, which only
 * this row allows; a scheduler's list of the same names still fails. */
START_TEST(test_virtual_nodes)
{
	expect_sh(ENV("DDPGEN_LOCAL_NODES=localhost,localhost",
	    "DDPGEN_LOCAL_NODE=1"),
	    "export NODE_RANK=1\n"
	    "export NNODES=2\n"
	    "export MASTER_ADDR=127.0.0.1\n"
	    "export MASTER_PORT=29500\n");
	/* Inside an allocation, detection would take the scheduler's list
	 * first: local jobs name theirs (--scheduler local). */
	opts.sched = SCHED_LOCAL;
	expect_sh(ENV("DDPGEN_LOCAL_NODES=localhost,localhost",
	    "DDPGEN_LOCAL_NODE=0", "SLURM_JOB_NODELIST=nid[01-02]"),
	    "export NODE_RANK=0\n"
	    "export NNODES=2\n"
	    "export MASTER_ADDR=127.0.0.1\n"
	    "export MASTER_PORT=29500\n");
	expect_error(ENV("DDPGEN_LOCAL_NODES=localhost,localhost"), FAULT_NODES,
	    "DDPGEN_LOCAL_NODE is not set: every node of 'localhost,localhost' "
	    "(from DDPGEN_LOCAL_NODES) is this machine, and only it says which "
	    "one this is");
	expect_error(ENV("DDPGEN_LOCAL_NODES=localhost,localhost",
	    "DDPGEN_LOCAL_NODE=2"), FAULT_NODES,
	    "DDPGEN_LOCAL_NODE is 2, past the last node of 'localhost,localhost' "
	    "(from DDPGEN_LOCAL_NODES)");
	opts.sched = SCHED_SLURM;
	fake.hostname = "localhost";
	expect_error(ENV("SLURM_JOB_NODELIST=localhost,nid02"), FAULT_NODES,
	    "master address: 'localhost' resolves to the loopback address "
	    "127.0.0.1, which other nodes cannot reach; use --iface REGEX or "
	    "set MASTER_ADDR");
}
END_TEST

START_TEST(test_master_unresolved)
{
	expect_error(ENV("SLURM_JOB_NODELIST=ghost,nid02"), FAULT_NODES,
	    "master address: cannot resolve 'ghost': Name or service not "
	    "known; it is the first node of 'ghost,nid02' (from "
	    "SLURM_JOB_NODELIST): set MASTER_ADDR");
}
END_TEST

START_TEST(test_not_listed)
{
	fake.hostname = "login1.cluster";
	expect_error(ENV("SLURM_JOB_NODELIST=nid[05-08]"), FAULT_NODES,
	    "host 'login1' is not in the node list 'nid[05-08]' (from "
	    "SLURM_JOB_NODELIST)");
	ck_assert_int_eq(fake.resolved, 4);
	/* Too long a list to resolve name by name. */
	fake.resolved = 0;
	expect_error(ENV("SLURM_JOB_NODELIST=nid[0001-5000]"), FAULT_NODES,
	    "host 'login1' is not in the node list 'nid[0001-5000]' (from "
	    "SLURM_JOB_NODELIST)");
	ck_assert_int_eq(fake.resolved, 0);
}
END_TEST

START_TEST(test_by_address)
{
	/* The host name is not in the list, but nid02 resolves to one of
	 * this node's addresses (and 'loopy' to loopback, which is not). */
	fake.hostname = "login1";
	expect_sh(ENV("SLURM_JOB_NODELIST=loopy,nid01,nid02,nid03",
	    "MASTER_ADDR=10.0.0.1"),
	    "export NODE_RANK=2\n"
	    "export NNODES=4\n"
	    "export MASTER_ADDR=10.0.0.1\n"
	    "export MASTER_PORT=29500\n");
	ck_assert_int_eq(fake.resolved, 3);
}
END_TEST

START_TEST(test_by_nodename)
{
	/* SLURMD_NODENAME comes before the addresses (nid02 would match). */
	fake.hostname = "weird";
	expect_sh(ENV("SLURM_JOB_NODELIST=nid[01-03]", "SLURMD_NODENAME=nid03",
	    "MASTER_ADDR=10.0.0.1"),
	    "export NODE_RANK=2\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.0.0.1\n"
	    "export MASTER_PORT=29500\n");
	ck_assert_int_eq(fake.resolved, 0);
}
END_TEST

START_TEST(test_nodeid_crosscheck)
{
	expect_error(ENV("SLURM_JOB_NODELIST=nid[01-04]",
	    "SLURM_STEP_NODELIST=nid[01-03]", "SLURM_NODEID=0"), FAULT_NODES,
	    "SLURM_NODEID is 0 but host 'nid02' is node 1 of the node list "
	    "'nid[01-03]' (from SLURM_STEP_NODELIST)");
	expect_sh(ENV("SLURM_STEP_NODELIST=nid[01-03]", "SLURM_NODEID=1",
	    "MASTER_ADDR=10.0.0.1"),
	    "export NODE_RANK=1\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.0.0.1\n"
	    "export MASTER_PORT=29500\n");
	/* A step-scoped SLURM_NODEID is not compared with the job list. */
	expect_sh(ENV("SLURM_JOB_NODELIST=nid[01-03]", "SLURM_NODEID=0",
	    "SLURM_STEP_ID=0", "MASTER_ADDR=10.0.0.1"),
	    "export NODE_RANK=1\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.0.0.1\n"
	    "export MASTER_PORT=29500\n");
}
END_TEST

START_TEST(test_errors)
{
	struct rank	 r;
	char		*cause;

	use_iface("^hsn[0-3]$");
	expect_error(ENV("SLURM_JOB_NODELIST=nid[01-03]"), FAULT_IFACE,
	    "no interface matches '^hsn[0-3]$'; interfaces: lo 127.0.0.1 ::1, "
	    "eth0 10.0.0.2, eth3 10.3.0.2 fe80::3:2");
	fake.ifs = NULL;
	expect_error(ENV("SLURM_JOB_NODELIST=nid[01-03]"), FAULT_SYS,
	    "getifaddrs: Too many open files");
	fake.hostname = NULL;
	expect_error(ENV("SLURM_JOB_NODELIST=nid[01-03]"), FAULT_SYS,
	    "gethostname: Bad address");
	/* The rest of the message is hostlist's. */
	ck_assert_int_eq(compute(&r, ENV("SLURM_JOB_NODELIST=nid[01-"),
	    &cause), FAULT_NODES);
	ck_assert_msg(strncmp(cause, "SLURM_JOB_NODELIST: ", 20) == 0, "%s",
	    cause);
	free(cause);
	rank_free(&r);
	expect_error(ENV("CCP_NODES="), FAULT_NODES,
	    "no node list: none of SLURM_STEP_NODELIST, SLURM_JOB_NODELIST, "
	    "SLURM_NODELIST, CCP_NODES, FLUX_JOB_ID, PBS_NODEFILE, "
	    "LSB_MCPU_HOSTS, DDPGEN_LOCAL_NODES is set and no --hostfile was "
	    "given");
}
END_TEST

START_TEST(test_port)
{
	struct nodes_env	 env;
	char			*cause = NULL;
	int			 port;

	opts.port = 0;
	expect_sh(ENV("SLURM_JOB_NODELIST=nid[01-03]", "SLURM_JOB_ID=123456",
	    "MASTER_PORT=1234"),
	    "export NODE_RANK=1\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.0.0.1\n"
	    "export MASTER_PORT=23456\n");
	expect_error(ENV("SLURM_JOB_NODELIST=nid[01-03]"), FAULT_PORT,
	    "--port auto needs a job id (SLURM_JOB_ID) and none is set; "
	    "choose a port with --port N");
	expect_error(ENV("CCP_NODES=1 nid02 4"), FAULT_PORT,
	    "--port auto needs a job id (CCP_JOBID) and none is set; "
	    "choose a port with --port N");

	env = t_env(ENV("SLURM_JOB_ID=123456", "SLURM_STEP_ID=0"));
	ck_assert_int_eq(rank_port(&port, &opts, &env, &cause), FAULT_NONE);
	ck_assert_int_eq(port, 20000 + 123456 * 1009 % 10000);
	env = t_env(ENV("PATH=/bin"));
	ck_assert_int_eq(rank_port(&port, &opts, &env, &cause), FAULT_PORT);
	ck_assert_str_eq(cause, "--port auto needs a job id (SLURM_JOB_ID, "
	    "CCP_JOBID, FLUX_JOB_ID, PBS_JOBID, LSB_JOBID or DDPGEN_LOCAL_JOB) "
	    "and none is set; "
	    "choose a "
	    "port with --port N");
	free(cause);
	env = t_env(ENV("LSB_JOBID=x"));
	ck_assert_int_eq(rank_port(&port, &opts, &env, &cause), FAULT_NODES);
	ck_assert_str_eq(cause, "LSB_JOBID is not a number: 'x'");
	free(cause);
	opts.port = 4242;
	ck_assert_int_eq(rank_port(&port, &opts, &env, &cause), FAULT_NONE);
	ck_assert_int_eq(port, 4242);
}
END_TEST

/* A mixed environment: the job id is the one of the scheduler whose node
 * list is set, for ddprank port as for env and exec. */
START_TEST(test_port_mixed_env)
{
	static const char *const vars[] = { "SLURM_JOB_ID=5", "CCP_JOBID=7",
	    "CCP_NODES=1 nid02 4", "MASTER_ADDR=10.0.0.1", NULL };
	struct nodes_env	 env = t_env(vars);
	struct rank		 r;
	char			*cause = NULL;
	int			 port;

	opts.port = 0;
	ck_assert_int_eq(rank_port(&port, &opts, &env, &cause), FAULT_NONE);
	ck_assert_int_eq(port, 20007);
	ck_assert_int_eq(compute(&r, vars, &cause), FAULT_NONE);
	ck_assert_int_eq(r.master_port, port);
	ck_assert_str_eq(r.jobid, "7");
	rank_free(&r);
}
END_TEST

/* nodes_load leaves the job id to env and exec, which still check it. */
START_TEST(test_job_error)
{
	expect_error(ENV("SLURM_JOB_NODELIST=nid[01-03]", "SLURM_JOB_ID=x"),
	    FAULT_NODES, "SLURM_JOB_ID is not a number: 'x'");
	expect_error(ENV("SLURM_JOB_NODELIST=nid[01-", "SLURM_JOB_ID=x"),
	    FAULT_NODES, "SLURM_JOB_NODELIST: unclosed bracket in \"nid[01-\"");
}
END_TEST

START_TEST(test_port_taken)
{
	struct rank	 r;
	char		*cause, want[200];
	int		 fd;

	fd = t_listener(&opts.port);
	opts.check_port = 1;
	fake.hostname = "nid01";
	ck_assert_int_eq(compute(&r, ENV("SLURM_JOB_NODELIST=nid[01-03]",
	    "MASTER_ADDR=127.0.0.1"), &cause), FAULT_PORT);
	snprintf(want, sizeof want, "node 0 cannot host the rendezvous: port "
	    "%d is already in use on 127.0.0.1; choose another with --port N",
	    opts.port);
	ck_assert_str_eq(cause, want);
	free(cause);
	rank_free(&r);
	/* Only node 0 hosts anything. */
	fake.hostname = "nid02";
	ck_assert_int_eq(compute(&r, ENV("SLURM_JOB_NODELIST=nid[01-03]",
	    "MASTER_ADDR=127.0.0.1"), &cause), FAULT_NONE);
	rank_free(&r);
	close(fd);
	fake.hostname = "nid01";
	ck_assert_int_eq(compute(&r, ENV("SLURM_JOB_NODELIST=nid[01-03]",
	    "MASTER_ADDR=127.0.0.1"), &cause), FAULT_NONE);
	rank_free(&r);
	/* Node 0 must own the master address. */
	ck_assert_int_eq(compute(&r, ENV("SLURM_JOB_NODELIST=nid[01-03]",
	    "MASTER_ADDR=192.0.2.9"), &cause), FAULT_PORT);
	snprintf(want, sizeof want, "node 0 cannot host the rendezvous: "
	    "cannot bind port %d: 192.0.2.9 is not an address of this host",
	    opts.port);
	ck_assert_str_eq(cause, want);
	free(cause);
	rank_free(&r);
}
END_TEST

/* A container that passes no environment is told every name ddprank exec
 * may set (vocab_exec_vars, podman-hpc -e): each rdzv, every optional
 * variable set. */
START_TEST(test_vars_crossing)
{
	struct rank		r = { .node_rank = 1, .nnodes = 2,
				    .master_port = 29500 };
	struct rank_vars	vs;
	size_t			i;
	int			rdzv;

	r.master_addr = xstrdup("10.3.0.1");
	r.ifname = xstrdup("eth3");
	r.jobid = xstrdup("42");
	r.local_addr = xstrdup("10.3.0.2");
	for (rdzv = RDZV_STATIC; rdzv <= RDZV_C10D; rdzv++) {
		rank_vars(&vs, &r, 1, rdzv);
		/* srun-direct's worker variables too (launcher.h). */
		rank_vars_worker(&vs, &r);
		for (i = 0; i < vs.n; i++)
			ck_assert_msg(vocab_word(vocab_exec_vars,
			    vs.v[i].name) >= 0, "%s is not in vocab_exec_vars",
			    vs.v[i].name);
		rank_vars_free(&vs);
	}
	ck_assert_int_ge(vocab_word(vocab_exec_vars, "DDPGEN_RESTART_COUNT"), 0);
	ck_assert_int_ge(vocab_word(vocab_exec_vars, "DDPGEN_LAST_STOP"), 0);
	free(r.master_addr);
	free(r.ifname);
	free(r.jobid);
	free(r.local_addr);
}
END_TEST

START_TEST(test_vars_exec)
{
	struct rank	r = { .node_rank = 0, .nnodes = 2, .master_port = 29500 };

	r.master_addr = xstrdup("10.3.0.1");
	expect_vars(&r, 1, RDZV_STATIC,
	    "export NODE_RANK=0\n"
	    "export NNODES=2\n"
	    "export MASTER_ADDR=10.3.0.1\n"
	    "export MASTER_PORT=29500\n"
	    "export PET_NNODES=2\n"
	    "export PET_NODE_RANK=0\n"
	    "export PET_MASTER_ADDR=10.3.0.1\n"
	    "export PET_MASTER_PORT=29500\n");
	r.jobid = xstrdup("123_4.0");
	r.ifname = xstrdup("eth3");
	expect_vars(&r, 1, RDZV_C10D,
	    "export NODE_RANK=0\n"
	    "export NNODES=2\n"
	    "export MASTER_ADDR=10.3.0.1\n"
	    "export MASTER_PORT=29500\n"
	    "export GLOO_SOCKET_IFNAME=eth3\n"
	    "export NCCL_SOCKET_IFNAME='=eth3'\n"
	    "export PET_NNODES=2\n"
	    "export PET_NODE_RANK=0\n"
	    "export PET_MASTER_ADDR=10.3.0.1\n"
	    "export PET_MASTER_PORT=29500\n"
	    "export PET_RDZV_BACKEND=c10d\n"
	    "export PET_RDZV_ENDPOINT=10.3.0.1:29500\n"
	    "export PET_RDZV_ID=123_4.0\n"
	    "export PET_RDZV_CONF=is_host=1\n");
	/* env shows no PET_* even for c10d. */
	expect_vars(&r, 0, RDZV_C10D,
	    "export NODE_RANK=0\n"
	    "export NNODES=2\n"
	    "export MASTER_ADDR=10.3.0.1\n"
	    "export MASTER_PORT=29500\n"
	    "export GLOO_SOCKET_IFNAME=eth3\n"
	    "export NCCL_SOCKET_IFNAME='=eth3'\n");
	r.node_rank = 1;
	free(r.master_addr);
	r.master_addr = xstrdup("fe80::1%eth3");
	free(r.jobid);
	r.jobid = NULL;
	free(r.ifname);
	r.ifname = NULL;
	expect_vars(&r, 1, RDZV_C10D,
	    "export NODE_RANK=1\n"
	    "export NNODES=2\n"
	    "export MASTER_ADDR=fe80::1%eth3\n"
	    "export MASTER_PORT=29500\n"
	    "export PET_NNODES=2\n"
	    "export PET_NODE_RANK=1\n"
	    "export PET_MASTER_ADDR=fe80::1%eth3\n"
	    "export PET_MASTER_PORT=29500\n"
	    "export PET_RDZV_BACKEND=c10d\n"
	    "export PET_RDZV_ENDPOINT='[fe80::1%eth3]:29500'\n"
	    "export PET_RDZV_CONF=is_host=0\n");
	rank_free(&r);
}
END_TEST

START_TEST(test_format_hostile)
{
	struct rank		r = { .node_rank = 3, .nnodes = 4,
				    .master_port = 1 };
	struct rank_vars	vs;
	struct buf		b;

	r.master_addr = xstrdup("a'b \"$(id)\" `x`\n\\\t\x01");
	r.ifname = xstrdup("e'1");
	expect_vars(&r, 0, RDZV_STATIC,
	    "export NODE_RANK=3\n"
	    "export NNODES=4\n"
	    "export MASTER_ADDR='a'\\''b \"$(id)\" `x`\n'\\\\'\t\x01'\n"
	    "export MASTER_PORT=1\n"
	    "export GLOO_SOCKET_IFNAME='e'\\''1'\n"
	    "export NCCL_SOCKET_IFNAME='=e'\\''1'\n");
	rank_vars(&vs, &r, 0, RDZV_STATIC);
	buf_init(&b);
	rank_format_json(&b, &vs);
	ck_assert_str_eq(b.s, "{\"NODE_RANK\":3,\"NNODES\":4,"
	    "\"MASTER_ADDR\":\"a'b \\\"$(id)\\\" `x`\\n\\\\\\t\\u0001\","
	    "\"MASTER_PORT\":1,\"GLOO_SOCKET_IFNAME\":\"e'1\","
	    "\"NCCL_SOCKET_IFNAME\":\"=e'1\"}\n");
	buf_free(&b);
	rank_vars_free(&vs);
	rank_free(&r);
}
END_TEST

START_TEST(test_one_task_per_node)
{
	struct rank	 r;
	char		*cause;

	/* sbatch --ntasks-per-node=2 leaking into the step: every task
	 * refuses, not only the second of each node. */
	expect_error(ENV("SLURM_STEP_NODELIST=nid[01-03]",
	    "SLURM_STEP_NUM_TASKS=6", "SLURM_STEP_NUM_NODES=3",
	    "SLURM_LOCALID=0", "SLURM_STEP_ID=0"), FAULT_NODES,
	    "this job step runs 6 tasks on 3 nodes (SLURM_STEP_NUM_TASKS, "
	    "SLURM_STEP_NUM_NODES): ddprank must run once per node; start "
	    "the step with srun -N N -n N");
	expect_error(ENV("SLURM_STEP_NODELIST=nid[01-03]", "SLURM_LOCALID=1"),
	    FAULT_NODES, "this is task 1 of its node (SLURM_LOCALID): ddprank "
	    "must run once per node; start the step with srun -N N -n N");
	expect_error(ENV("SLURM_JOB_NODELIST=nid[01-03]", "SLURM_LOCALID=x"),
	    FAULT_NODES, "SLURM_LOCALID is not a number: 'x'");
	/* One task per node, and the batch shell, are fine. */
	expect_sh(ENV("SLURM_STEP_NODELIST=nid[01-03]",
	    "SLURM_STEP_NUM_TASKS=3", "SLURM_STEP_NUM_NODES=3",
	    "SLURM_LOCALID=0"),
	    "export NODE_RANK=1\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.0.0.1\n"
	    "export MASTER_PORT=29500\n");
	/* Other schedulers' lists do not read Slurm's task variables. */
	ck_assert_int_eq(compute(&r, ENV("CCP_NODES=2 NID01 8 NID02 8",
	    "SLURM_LOCALID=1"), &cause), FAULT_NONE);
	rank_free(&r);
}
END_TEST

/* srun-direct: one task per process, each a worker of torchrun's
 * layout; an uneven step is refused, and only local rank 0 of node 0
 * would check the port. */
START_TEST(test_per_process)
{
	struct rank		 r;
	struct rank_vars	 vs;
	struct buf		 b;
	char			*cause;

	opts.per_process = 1;
	ck_assert_int_eq(compute(&r, ENV("SLURM_STEP_NODELIST=nid[01-03]",
	    "SLURM_STEP_NUM_TASKS=6", "SLURM_STEP_NUM_NODES=3",
	    "SLURM_LOCALID=1"), &cause), FAULT_NONE);
	rank_vars(&vs, &r, 0, RDZV_STATIC);
	rank_vars_worker(&vs, &r);
	buf_init(&b);
	rank_format_sh(&b, &vs);
	ck_assert_str_eq(b.s,
	    "export NODE_RANK=1\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.0.0.1\n"
	    "export MASTER_PORT=29500\n"
	    "export RANK=3\n"
	    "export LOCAL_RANK=1\n"
	    "export WORLD_SIZE=6\n"
	    "export LOCAL_WORLD_SIZE=2\n"
	    "export GROUP_RANK=1\n");
	buf_free(&b);
	rank_vars_free(&vs);
	rank_free(&r);
	expect_error(ENV("SLURM_STEP_NODELIST=nid[01-03]",
	    "SLURM_STEP_NUM_TASKS=5", "SLURM_STEP_NUM_NODES=3",
	    "SLURM_LOCALID=0"), FAULT_NODES,
	    "this job step runs 5 tasks on 3 nodes (SLURM_STEP_NUM_TASKS, "
	    "SLURM_STEP_NUM_NODES) and this is task 0 of its node "
	    "(SLURM_LOCALID): every node must run as many; start the step "
	    "with --ntasks-per-node");
	expect_error(ENV("SLURM_STEP_NODELIST=nid[01-03]",
	    "SLURM_STEP_NUM_TASKS=6", "SLURM_STEP_NUM_NODES=3",
	    "SLURM_LOCALID=2"), FAULT_NODES,
	    "this job step runs 6 tasks on 3 nodes (SLURM_STEP_NUM_TASKS, "
	    "SLURM_STEP_NUM_NODES) and this is task 2 of its node "
	    "(SLURM_LOCALID): every node must run as many; start the step "
	    "with --ntasks-per-node");
	expect_error(ENV("SLURM_STEP_NODELIST=nid[01-03]"), FAULT_NODES,
	    "one task per process needs SLURM_LOCALID, SLURM_STEP_NUM_TASKS "
	    "and SLURM_STEP_NUM_NODES (start the step with srun)");
	/* Node 0's second task does not bind the port its first task's
	 * training may hold already (10.0.0.1 is not this machine's). */
	fake.hostname = "nid01";
	opts.check_port = 1;
	ck_assert_int_eq(compute(&r, ENV("SLURM_STEP_NODELIST=nid[01-03]",
	    "SLURM_STEP_NUM_TASKS=6", "SLURM_STEP_NUM_NODES=3",
	    "SLURM_LOCALID=1", "MASTER_ADDR=10.0.0.1"), &cause), FAULT_NONE);
	rank_free(&r);
	ck_assert_int_eq(compute(&r, ENV("SLURM_STEP_NODELIST=nid[01-03]",
	    "SLURM_STEP_NUM_TASKS=6", "SLURM_STEP_NUM_NODES=3",
	    "SLURM_LOCALID=0", "MASTER_ADDR=10.0.0.1"), &cause), FAULT_PORT);
	free(cause);
	rank_free(&r);
}
END_TEST

START_TEST(test_keep_ifnames)
{
	struct rank	 r;
	char		*cause;

	use_iface("^eth3$");
	/* Node 1 keeps the value quietly; node 0 says so for the job. */
	ck_assert_int_eq(compute(&r, ENV("SLURM_JOB_NODELIST=nid[01-03]",
	    "NCCL_SOCKET_IFNAME=^docker,lo"), &cause), FAULT_NONE);
	ck_assert_ptr_null(r.note);
	expect_vars(&r, 0, RDZV_STATIC,
	    "export NODE_RANK=1\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.3.0.1\n"
	    "export MASTER_PORT=29500\n"
	    "export GLOO_SOCKET_IFNAME=eth3\n");
	rank_free(&r);
	fake.hostname = "nid01";
	ck_assert_int_eq(compute(&r, ENV("SLURM_JOB_NODELIST=nid[01-03]",
	    "NCCL_SOCKET_IFNAME=ib", "GLOO_SOCKET_IFNAME=ib0"), &cause),
	    FAULT_NONE);
	ck_assert_str_eq(r.note, "keeping GLOO_SOCKET_IFNAME=ib0 and "
	    "NCCL_SOCKET_IFNAME=ib from the environment instead of interface "
	    "eth3");
	expect_vars(&r, 1, RDZV_STATIC,
	    "export NODE_RANK=0\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.3.0.1\n"
	    "export MASTER_PORT=29500\n"
	    "export PET_NNODES=3\n"
	    "export PET_NODE_RANK=0\n"
	    "export PET_MASTER_ADDR=10.3.0.1\n"
	    "export PET_MASTER_PORT=29500\n");
	rank_free(&r);
	ck_assert_int_eq(compute(&r, ENV("SLURM_JOB_NODELIST=nid[01-03]",
	    "GLOO_SOCKET_IFNAME=ib0"), &cause), FAULT_NONE);
	ck_assert_str_eq(r.note, "keeping GLOO_SOCKET_IFNAME=ib0 from the "
	    "environment instead of interface eth3");
	rank_free(&r);
}
END_TEST

static struct rx	comm_rx;

static void
use_comm_iface(const char *pattern)
{
	char	*cause = NULL;

	ck_assert_int_eq(rx_compile(&comm_rx, pattern, &cause), 0);
	opts.comm_rx = &comm_rx;
	opts.comm_iface = pattern;
}

/* --comm-iface: the master address still comes from --iface's eth3;
 * Gloo takes the first interface comm matches, NCCL every one (eth3
 * once, although it has two addresses); the user's own still win. */
START_TEST(test_comm_iface)
{
	struct rank	 r;
	char		*cause;

	use_iface("^eth3$");
	use_comm_iface("^(eth|lo)");
	expect_sh(ENV("SLURM_JOB_NODELIST=nid[01-03]"),
	    "export NODE_RANK=1\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.3.0.1\n"
	    "export MASTER_PORT=29500\n"
	    "export GLOO_SOCKET_IFNAME=lo\n"
	    "export NCCL_SOCKET_IFNAME='=lo,eth0,eth3'\n");
	ck_assert_int_eq(compute(&r, ENV("SLURM_JOB_NODELIST=nid[01-03]",
	    "NCCL_SOCKET_IFNAME=hsn"), &cause), FAULT_NONE);
	expect_vars(&r, 0, RDZV_STATIC,
	    "export NODE_RANK=1\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.3.0.1\n"
	    "export MASTER_PORT=29500\n"
	    "export GLOO_SOCKET_IFNAME=lo\n");
	rank_free(&r);
	/* Both set: the pattern need not match. */
	rx_free(&comm_rx);
	use_comm_iface("^hsn0$");
	ck_assert_int_eq(compute(&r, ENV("SLURM_JOB_NODELIST=nid[01-03]",
	    "NCCL_SOCKET_IFNAME=hsn", "GLOO_SOCKET_IFNAME=hsn0"), &cause),
	    FAULT_NONE);
	rank_free(&r);
	rx_free(&comm_rx);
	/* Without --iface (hostname discovery), and a pattern that
	 * matches nothing: FAULT_IFACE, naming what exists. */
	rx_free(&rx);
	opts.rx = NULL;
	use_comm_iface("^hsn0$");
	expect_error(ENV("SLURM_JOB_NODELIST=nid[01-03]"), FAULT_IFACE,
	    "no interface matches '^hsn0$'; interfaces: lo 127.0.0.1 ::1, "
	    "eth0 10.0.0.2, eth3 10.3.0.2 fe80::3:2");
	rx_free(&comm_rx);
	use_comm_iface("^eth3$");
	expect_sh(ENV("SLURM_JOB_NODELIST=nid[01-03]"),
	    "export NODE_RANK=1\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.0.0.1\n"
	    "export MASTER_PORT=29500\n"
	    "export GLOO_SOCKET_IFNAME=eth3\n"
	    "export NCCL_SOCKET_IFNAME='=eth3'\n");
	rx_free(&comm_rx);
	opts.comm_rx = NULL;
}
END_TEST

/* local_addr_ok's answers: a torch that takes PET_LOCAL_ADDR, one that
 * does not, and one nobody can tell. */
static int	fake_local_ok;
static int	fake_local_asked;

static int
fake_local_addr_ok(void *arg, char **why)
{
	(void)arg;
	fake_local_asked++;
	if (fake_local_ok < 0)
		return 0;
	if (!fake_local_ok)
		*why = xstrdup("'torchrun' runs torch 1.13");
	return fake_local_ok;
}

/* c10d with --iface on torch 2.3 and later: the host name does not
 * matter, since the workers get PET_LOCAL_ADDR's address; the version
 * is asked only when the host name would not do. */
START_TEST(test_c10d_local_addr)
{
	struct rank	 r;
	char		*cause;

	use_iface("^eth3$");
	opts.rdzv = RDZV_C10D;
	opts.local_addr_ok = fake_local_addr_ok;
	fake_local_asked = 0;
	fake_local_ok = 1;
	ck_assert_int_eq(compute(&r, ENV("SLURM_JOB_NODELIST=nid[01-03]"),
	    &cause), FAULT_NONE);
	rank_free(&r);
	ck_assert_int_eq(fake_local_asked, 0);
	fake.hostname = "far";
	ck_assert_int_eq(compute(&r, ENV("SLURM_JOB_NODELIST=far,nid02"),
	    &cause), FAULT_NONE);
	ck_assert_str_eq(r.local_addr, "10.3.0.2");
	rank_free(&r);
	ck_assert_int_eq(fake_local_asked, 1);
	fake_local_ok = 0;
	expect_error(ENV("SLURM_JOB_NODELIST=far,nid02"), FAULT_IFACE,
	    "--rdzv c10d: torchrun gives the workers this node's host name "
	    "'far' as MASTER_ADDR, which resolves to 192.168.1.1 10.0.0.1, "
	    "not to 10.3.0.2 of interface eth3; use --rdzv static with "
	    "--iface ('torchrun' runs torch 1.13; torchrun 2.3 and later "
	    "take PET_LOCAL_ADDR instead)");
	fake_local_ok = -1;
	expect_error(ENV("SLURM_JOB_NODELIST=far,nid02"), FAULT_IFACE,
	    "--rdzv c10d: torchrun gives the workers this node's host name "
	    "'far' as MASTER_ADDR, which resolves to 192.168.1.1 10.0.0.1, "
	    "not to 10.3.0.2 of interface eth3; use --rdzv static with "
	    "--iface");
	opts.local_addr_ok = NULL;
	opts.rdzv = RDZV_STATIC;
}
END_TEST

START_TEST(test_c10d_iface)
{
	struct rank	 r;
	char		*cause;

	use_iface("^eth3$");
	opts.rdzv = RDZV_C10D;
	/* nid02 resolves to its own eth3 address: torchrun's host name
	 * leads the workers to the interface. */
	ck_assert_int_eq(compute(&r, ENV("SLURM_JOB_NODELIST=nid[01-03]"),
	    &cause), FAULT_NONE);
	ck_assert_str_eq(r.local_addr, "10.3.0.2");
	r.jobid = xstrdup("7");
	expect_vars(&r, 1, RDZV_C10D,
	    "export NODE_RANK=1\n"
	    "export NNODES=3\n"
	    "export MASTER_ADDR=10.3.0.1\n"
	    "export MASTER_PORT=29500\n"
	    "export GLOO_SOCKET_IFNAME=eth3\n"
	    "export NCCL_SOCKET_IFNAME='=eth3'\n"
	    "export PET_NNODES=3\n"
	    "export PET_NODE_RANK=1\n"
	    "export PET_MASTER_ADDR=10.3.0.1\n"
	    "export PET_MASTER_PORT=29500\n"
	    "export PET_RDZV_BACKEND=c10d\n"
	    "export PET_RDZV_ENDPOINT=10.3.0.1:29500\n"
	    "export PET_RDZV_ID=7\n"
	    "export PET_RDZV_CONF=is_host=0\n"
	    "export PET_LOCAL_ADDR=10.3.0.2\n");
	rank_free(&r);
	/* 'far' resolves to no address of eth3. */
	fake.hostname = "far";
	expect_error(ENV("SLURM_JOB_NODELIST=far,nid02"), FAULT_IFACE,
	    "--rdzv c10d: torchrun gives the workers this node's host name "
	    "'far' as MASTER_ADDR, which resolves to 192.168.1.1 10.0.0.1, "
	    "not to 10.3.0.2 of interface eth3; use --rdzv static with "
	    "--iface");
	fake.hostname = "nowhere";
	expect_error(ENV("MASTER_ADDR=10.3.0.9", "SLURM_JOB_NODELIST=nowhere"),
	    FAULT_IFACE, "--rdzv c10d: torchrun gives the workers this node's "
	    "host name as MASTER_ADDR, and cannot resolve 'nowhere': Name or "
	    "service not known; use --rdzv static with --iface");
	/* Static rendezvous gives the workers MASTER_ADDR itself. */
	opts.rdzv = RDZV_STATIC;
	fake.hostname = "far";
	ck_assert_int_eq(compute(&r, ENV("SLURM_JOB_NODELIST=far,nid02"),
	    &cause), FAULT_NONE);
	ck_assert_ptr_null(r.local_addr);
	rank_free(&r);
}
END_TEST

START_TEST(test_format_zsh)
{
	struct rank	r = { .node_rank = 0, .nnodes = 1, .master_port = 2 };

	/* zsh expands a word that begins with =, even after export X=. */
	r.master_addr = xstrdup("=x");
	r.ifname = xstrdup("=e");
	expect_vars(&r, 0, RDZV_STATIC,
	    "export NODE_RANK=0\n"
	    "export NNODES=1\n"
	    "export MASTER_ADDR='=x'\n"
	    "export MASTER_PORT=2\n"
	    "export GLOO_SOCKET_IFNAME='=e'\n"
	    "export NCCL_SOCKET_IFNAME='==e'\n");
	rank_free(&r);
}
END_TEST

START_TEST(test_ip)
{
	struct netif_sys	 sys = t_net_sys(&fake);
	char			*addr, *cause = NULL;

	use_iface("^eth3$");
	ck_assert_int_eq(rank_ip(&addr, &opts, AF_INET, &sys, &cause),
	    FAULT_NONE);
	ck_assert_str_eq(addr, "10.3.0.2");
	free(addr);
	ck_assert_int_eq(rank_ip(&addr, &opts, AF_INET6, &sys, &cause),
	    FAULT_NONE);
	ck_assert_str_eq(addr, "fe80::3:2%eth3");
	free(addr);
	rx_free(&rx);
	use_iface("^eth0$");
	ck_assert_int_eq(rank_ip(&addr, &opts, AF_INET6, &sys, &cause),
	    FAULT_IFACE);
	ck_assert_ptr_null(addr);
	ck_assert_str_eq(cause, "no interface matching '^eth0$' is up with "
	    "an IPv6 address; interfaces: lo 127.0.0.1 ::1, eth0 10.0.0.2, "
	    "eth3 10.3.0.2 fe80::3:2");
	free(cause);
	fake.ifs = NULL;
	ck_assert_int_eq(rank_ip(&addr, &opts, AF_INET, &sys, &cause),
	    FAULT_SYS);
	ck_assert_str_eq(cause, "getifaddrs: Too many open files");
	free(cause);
}
END_TEST

static Suite *
rank_suite(void)
{
	Suite	*s = suite_create("rank");
	TCase	*tc;

	tc = tcase_create("compute");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_by_hostname);
	tcase_add_test(tc, test_per_process);
	tcase_add_test(tc, test_hpcpack_case);
	tcase_add_test(tc, test_master_iface);
	tcase_add_test(tc, test_master_fallbacks);
	tcase_add_test(tc, test_master_agrees);
	tcase_add_test(tc, test_first_node);
	tcase_add_test(tc, test_master_env_wins);
	tcase_add_test(tc, test_master_loopback);
	tcase_add_test(tc, test_virtual_nodes);
	tcase_add_test(tc, test_master_unresolved);
	tcase_add_test(tc, test_not_listed);
	tcase_add_test(tc, test_by_address);
	tcase_add_test(tc, test_by_nodename);
	tcase_add_test(tc, test_nodeid_crosscheck);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_port);
	tcase_add_test(tc, test_port_taken);
	tcase_add_test(tc, test_port_mixed_env);
	tcase_add_test(tc, test_job_error);
	tcase_add_test(tc, test_ip);
	tcase_add_test(tc, test_one_task_per_node);
	tcase_add_test(tc, test_keep_ifnames);
	tcase_add_test(tc, test_comm_iface);
	tcase_add_test(tc, test_c10d_iface);
	tcase_add_test(tc, test_c10d_local_addr);
	suite_add_tcase(s, tc);

	tc = tcase_create("output");
	tcase_add_test(tc, test_vars_exec);
	tcase_add_test(tc, test_vars_crossing);
	tcase_add_test(tc, test_format_hostile);
	tcase_add_test(tc, test_format_zsh);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(rank_suite());
}
