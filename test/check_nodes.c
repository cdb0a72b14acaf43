/* check_nodes.c: unit tests for node lists and job ids from each scheduler. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "hostlist.h"
#include "nodes.h"
#include "testlib.h"
#include "util.h"
#include "xmalloc.h"

static char *
names(const struct nodes *n)
{
	struct buf	b;
	char		name[HOSTLIST_NAME_MAX + 1];
	uint64_t	i;

	buf_init(&b);
	for (i = 0; i < hostlist_count(n->list); i++) {
		ck_assert_int_ge(hostlist_nth(n->list, i, name, sizeof name), 0);
		buf_addf(&b, "%s%s", i > 0 ? " " : "", name);
	}
	return b.s;
}

/* Loads and expects success with the hosts in want (space-separated). */
static void
expect_hosts(struct nodes *n, const char *const *vars, enum sched_id s,
    const char *hostfile, const char *want)
{
	struct nodes_env	 env = t_env(vars);
	char			*cause = NULL, *got;

	if (nodes_load(n, &env, s, hostfile, &cause) == -1)
		ck_abort_msg("unexpected error: %s", cause);
	got = names(n);
	ck_assert_str_eq(got, want);
	free(got);
}

static void
expect_error(const char *const *vars, enum sched_id s,
    const char *hostfile, const char *want)
{
	struct nodes_env	 env = t_env(vars);
	struct nodes		 n;
	char			*cause = NULL;

	ck_assert_int_eq(nodes_load(&n, &env, s, hostfile, &cause), -1);
	ck_assert_str_eq(cause, want);
	free(cause);
}

START_TEST(test_sched_names)
{
	enum sched_id	s;

	ck_assert_int_eq(sched_parse("hpcpack", &s), 0);
	ck_assert_int_eq(s, SCHED_HPCPACK);
	ck_assert_int_eq(sched_parse("hostfile", &s), 0);
	ck_assert_int_eq(s, SCHED_HOSTFILE);
	ck_assert_int_eq(sched_parse("Slurm", &s), -1);
	ck_assert_int_eq(sched_parse("", &s), -1);
	ck_assert_str_eq(sched_name(SCHED_LSF), "lsf");
	ck_assert_int_eq(sched_parse("flux", &s), 0);
	ck_assert_int_eq(s, SCHED_FLUX);
	ck_assert_str_eq(sched_name(SCHED_AUTO), "auto");
}
END_TEST

START_TEST(test_slurm_step_list_first)
{
	struct nodes	n;

	expect_hosts(&n, ENV("SLURM_JOB_NODELIST=nid[01-04]",
	    "SLURM_STEP_NODELIST=nid[02-03]", "SLURM_NODEID=1",
	    "SLURMD_NODENAME=nid03", "SLURM_STEP_ID=0"), SCHED_AUTO, NULL,
	    "nid02 nid03");
	ck_assert_int_eq(n.sched, SCHED_SLURM);
	ck_assert_str_eq(n.source, "SLURM_STEP_NODELIST");
	ck_assert_str_eq(n.text, "nid[02-03]");
	ck_assert_int_eq(n.nodeid, 1);
	ck_assert_str_eq(n.selfname, "nid03");
	ck_assert_int_eq(nodes_find(&n, "nid03"), 1);
	ck_assert_int_eq(nodes_find(&n, "nid03.cluster"), 1);
	ck_assert_int_eq(nodes_find(&n, "NID03"), -1);
	ck_assert_int_eq(nodes_find(&n, "nid01"), -1);
	nodes_free(&n);
}
END_TEST

START_TEST(test_slurm_job_list)
{
	struct nodes	n;

	/* The batch shell: job-scoped list and job-scoped SLURM_NODEID. */
	expect_hosts(&n, ENV("SLURM_JOB_NODELIST=rack[1-2]-node[01-02]",
	    "SLURM_NODEID=0"), SCHED_SLURM, NULL,
	    "rack1-node01 rack1-node02 rack2-node01 rack2-node02");
	ck_assert_str_eq(n.source, "SLURM_JOB_NODELIST");
	ck_assert_int_eq(n.nodeid, 0);
	ck_assert_ptr_null(n.selfname);
	nodes_free(&n);
}
END_TEST

START_TEST(test_slurm_nodeid_scope)
{
	struct nodes	n;

	/* Inside a step without a step list SLURM_NODEID is step-scoped and
	 * says nothing about the job list. */
	expect_hosts(&n, ENV("SLURM_JOB_NODELIST=a,b", "SLURM_NODEID=1",
	    "SLURM_STEP_ID=3"), SCHED_AUTO, NULL, "a b");
	ck_assert_int_eq(n.nodeid, -1);
	nodes_free(&n);
}
END_TEST

START_TEST(test_slurm_errors)
{
	struct nodes_env	 env = t_env(ENV("SLURM_JOB_NODELIST=n[3-1]"));
	struct nodes		 n;
	char			*cause = NULL;

	ck_assert_int_eq(nodes_load(&n, &env, SCHED_AUTO, NULL, &cause), -1);
	ck_assert_msg(strncmp(cause, "SLURM_JOB_NODELIST: ", 20) == 0,
	    "%s", cause);
	free(cause);
	expect_error(ENV("SLURM_JOB_NODELIST=a,b", "SLURM_NODEID=x1"),
	    SCHED_AUTO, NULL, "SLURM_NODEID is not a number: 'x1'");
	expect_error(ENV("SLURM_JOB_NODELIST=a,b", "SLURM_NODEID=-1"),
	    SCHED_AUTO, NULL, "SLURM_NODEID is not a number: '-1'");
	expect_error(ENV("CCP_NODES=1 a 1"), SCHED_SLURM, NULL,
	    "no node list: none of SLURM_STEP_NODELIST, SLURM_JOB_NODELIST, "
	    "SLURM_NODELIST is set");
	expect_error(ENV("SLURM_JOB_NODELIST=", "SLURM_STEP_NODELIST="),
	    SCHED_SLURM, NULL, "no node list: none of SLURM_STEP_NODELIST, "
	    "SLURM_JOB_NODELIST, SLURM_NODELIST is set");
}
END_TEST

START_TEST(test_slurm_old_nodelist)
{
	struct nodes	n;

	/* Older Slurm and some wrappers set only SLURM_NODELIST; the newer
	 * variables win when they are set. */
	expect_hosts(&n, ENV("SLURM_NODELIST=old[1-2]", "SLURM_NODEID=1"),
	    SCHED_AUTO, NULL, "old1 old2");
	ck_assert_int_eq(n.sched, SCHED_SLURM);
	ck_assert_str_eq(n.source, "SLURM_NODELIST");
	ck_assert_int_eq(n.nodeid, 1);
	nodes_free(&n);
	expect_hosts(&n, ENV("SLURM_NODELIST=old[1-2]",
	    "SLURM_JOB_NODELIST=job[1-3]"), SCHED_AUTO, NULL,
	    "job1 job2 job3");
	nodes_free(&n);
	expect_hosts(&n, ENV("SLURM_NODELIST=old[1-2]",
	    "SLURM_STEP_NODELIST=step1", "SLURM_JOB_NODELIST=job[1-3]"),
	    SCHED_AUTO, NULL, "step1");
	nodes_free(&n);
	/* It is the job's list inside a step too: no step-scoped check. */
	expect_hosts(&n, ENV("SLURM_NODELIST=old[1-2]", "SLURM_NODEID=5",
	    "SLURM_STEP_ID=0"), SCHED_AUTO, NULL, "old1 old2");
	ck_assert_int_eq(n.nodeid, -1);
	nodes_free(&n);
}
END_TEST

START_TEST(test_hpcpack)
{
	struct nodes	n;

	expect_hosts(&n, ENV("CCP_NODES=2 IAASCN116 4 IAASCN117 4"),
	    SCHED_AUTO, NULL, "IAASCN116 IAASCN117");
	ck_assert_int_eq(n.sched, SCHED_HPCPACK);
	ck_assert_str_eq(n.source, "CCP_NODES");
	/* NetBIOS upper case against a lower-case Linux host name. */
	ck_assert_int_eq(nodes_find(&n, "iaascn117"), 1);
	ck_assert_int_eq(nodes_find(&n, "iaascn116.corp.example"), 0);
	ck_assert_int_eq(nodes_find(&n, "iaascn11"), -1);
	nodes_free(&n);
	expect_hosts(&n, ENV("CCP_NODES=  1\tx'$(y)`z` 8\n"), SCHED_HPCPACK,
	    NULL, "x'$(y)`z`");
	nodes_free(&n);
}
END_TEST

START_TEST(test_hpcpack_errors)
{
	expect_error(ENV("CCP_NODES=3 A 4 B 4"), SCHED_AUTO, NULL,
	    "CCP_NODES: count 3 does not match the 4 words after it: "
	    "'3 A 4 B 4'");
	expect_error(ENV("CCP_NODES=2 A 4 B"), SCHED_AUTO, NULL,
	    "CCP_NODES: count 2 does not match the 3 words after it: "
	    "'2 A 4 B'");
	expect_error(ENV("CCP_NODES=two A 4"), SCHED_AUTO, NULL,
	    "CCP_NODES: bad node count in 'two A 4'");
	expect_error(ENV("CCP_NODES=0"), SCHED_AUTO, NULL,
	    "CCP_NODES: bad node count in '0'");
	expect_error(ENV("CCP_NODES=1 A four"), SCHED_AUTO, NULL,
	    "CCP_NODES: bad core count 'four'");
	expect_error(ENV("SLURM_JOB_ID=1"), SCHED_HPCPACK, NULL,
	    "no node list: CCP_NODES is not set");
}
END_TEST

START_TEST(test_pbs)
{
	struct nodes	 n;
	char		*path, *var, *src;

	path = t_tmpfile("check_nodes", "n2.cluster\nn2.cluster\nn1.cluster\n"
	    "\nn2.cluster\nn3.cluster\nn1.cluster\n");
	xasprintf(&var, "PBS_NODEFILE=%s", path);
	expect_hosts(&n, ENV(var), SCHED_AUTO, NULL,
	    "n2.cluster n1.cluster n3.cluster");
	xasprintf(&src, "PBS_NODEFILE %s", path);
	ck_assert_str_eq(n.source, src);
	ck_assert_str_eq(n.text, "n2.cluster,n1.cluster,n3.cluster");
	ck_assert_int_eq(nodes_find(&n, "n3"), 2);
	nodes_free(&n);
	unlink(path);
	free(src);
	free(var);
	free(path);
}
END_TEST

START_TEST(test_pbs_errors)
{
	char	*path, *var, *want;

	expect_error(ENV("PBS_NODEFILE=/nonexistent/nodes"), SCHED_AUTO, NULL,
	    "/nonexistent/nodes: No such file or directory");
	path = t_tmpfile("check_nodes", "\n\n");
	xasprintf(&var, "PBS_NODEFILE=%s", path);
	xasprintf(&want, "PBS_NODEFILE %s: no hosts", path);
	expect_error(ENV(var), SCHED_PBS, NULL, want);
	expect_error(ENV("LSB_MCPU_HOSTS=a 1"), SCHED_PBS, NULL,
	    "no node list: PBS_NODEFILE is not set");
	unlink(path);
	free(want);
	free(var);
	free(path);
}
END_TEST

START_TEST(test_lsf)
{
	struct nodes	n;

	expect_hosts(&n, ENV("LSB_MCPU_HOSTS=hostA 4 hostB 2 "), SCHED_AUTO,
	    NULL, "hostA hostB");
	ck_assert_int_eq(n.sched, SCHED_LSF);
	ck_assert_str_eq(n.source, "LSB_MCPU_HOSTS");
	nodes_free(&n);
	expect_error(ENV("LSB_MCPU_HOSTS=hostA 4 hostB"), SCHED_AUTO, NULL,
	    "LSB_MCPU_HOSTS: not host and count pairs: 'hostA 4 hostB'");
	expect_error(ENV("LSB_MCPU_HOSTS=hostA x"), SCHED_AUTO, NULL,
	    "LSB_MCPU_HOSTS: bad core count 'x'");
	expect_error(ENV("LSB_MCPU_HOSTS= "), SCHED_LSF, NULL,
	    "LSB_MCPU_HOSTS: no hosts");
	expect_error(ENV("PBS_JOBID=1"), SCHED_LSF, NULL,
	    "no node list: LSB_MCPU_HOSTS is not set");
}
END_TEST

START_TEST(test_lsf_csm)
{
	struct nodes	n;

	/* LSF with IBM CSM lists the launch node first: not a compute
	 * host. Without CSM the first host is one. */
	expect_hosts(&n, ENV("LSB_MCPU_HOSTS=batch1 1 vm 32 nodeB 32",
	    "CSM_ALLOCATION_ID=4711"), SCHED_AUTO, NULL, "vm nodeB");
	ck_assert_str_eq(n.text, "batch1 1 vm 32 nodeB 32");
	nodes_free(&n);
	expect_hosts(&n, ENV("LSB_MCPU_HOSTS=batch1 1 vm 32 nodeB 32"),
	    SCHED_AUTO, NULL, "batch1 vm nodeB");
	nodes_free(&n);
	/* A launch node alone is all there is to use. */
	expect_hosts(&n, ENV("LSB_MCPU_HOSTS=only 4", "CSM_ALLOCATION_ID=1"),
	    SCHED_AUTO, NULL, "only");
	nodes_free(&n);
	expect_error(ENV("LSB_MCPU_HOSTS=batch1 x vm 32",
	    "CSM_ALLOCATION_ID=1"), SCHED_AUTO, NULL,
	    "LSB_MCPU_HOSTS: bad core count 'x'");
}
END_TEST

START_TEST(test_hostfile)
{
	struct nodes	 n;
	char		*path, *src;

	path = t_tmpfile("check_nodes", "# nodes of the job\n\n"
	    "node1 slots=4\n  node2\t# the second\nnode3 slots=1  \n#node4\n"
	    "node5:4\nnode6 8\nnode7:1 # MPICH\n");
	/* Scheduler variables do not override an explicit hostfile. */
	expect_hosts(&n, ENV("SLURM_JOB_NODELIST=x,y"), SCHED_AUTO, path,
	    "node1 node2 node3 node5 node6 node7");
	ck_assert_int_eq(n.sched, SCHED_HOSTFILE);
	xasprintf(&src, "hostfile %s", path);
	ck_assert_str_eq(n.source, src);
	ck_assert_str_eq(n.text, "node1,node2,node3,node5,node6,node7");
	nodes_free(&n);
	expect_hosts(&n, ENV(NULL), SCHED_HOSTFILE, path,
	    "node1 node2 node3 node5 node6 node7");
	nodes_free(&n);
	unlink(path);
	free(src);
	free(path);
}
END_TEST

/* want is the message after the file's path. */
static void
expect_hostfile_error(const char *data, const char *want)
{
	char	*path, *full;

	path = t_tmpfile("check_nodes", data);
	xasprintf(&full, "%s%s", path, want);
	expect_error(ENV(NULL), SCHED_AUTO, path, full);
	unlink(path);
	free(full);
	free(path);
}

START_TEST(test_hostfile_errors)
{
	expect_hostfile_error("a\nb slots=x\n", ":2: expected 'host', "
	    "'host slots=N', 'host:N' or 'host N', not 'slots=x'");
	expect_hostfile_error("a slots=0\n", ":1: expected 'host', "
	    "'host slots=N', 'host:N' or 'host N', not 'slots=0'");
	expect_hostfile_error("a b\n", ":1: expected 'host', "
	    "'host slots=N', 'host:N' or 'host N', not 'b'");
	expect_hostfile_error("a 0\n", ":1: expected 'host', "
	    "'host slots=N', 'host:N' or 'host N', not '0'");
	expect_hostfile_error("a 2 slots=2\n", ":1: expected 'host', "
	    "'host slots=N', 'host:N' or 'host N', not 'slots=2'");
	expect_hostfile_error("a:x\n", ":1: expected 'host', "
	    "'host slots=N', 'host:N' or 'host N', not 'a:x'");
	expect_hostfile_error(":4\n", ":1: expected 'host', "
	    "'host slots=N', 'host:N' or 'host N', not ':4'");
	expect_hostfile_error("a:1:2\n", ":1: expected 'host', "
	    "'host slots=N', 'host:N' or 'host N', not 'a:1:2'");
	expect_hostfile_error("a:4 slots=4\n", ":1: expected 'host', "
	    "'host slots=N', 'host:N' or 'host N', not 'slots=4'");
	expect_hostfile_error("a:4\nb\na 2\n",
	    ":3: host 'a' is listed twice");
	expect_hostfile_error("a\nb\n# c\na slots=2\n",
	    ":4: host 'a' is listed twice");
	expect_hostfile_error("# nothing\n\n", ": no hosts");
	expect_error(ENV(NULL), SCHED_AUTO, "/nonexistent/hosts",
	    "/nonexistent/hosts: No such file or directory");
	expect_error(ENV(NULL), SCHED_HOSTFILE, NULL,
	    "no node list: --scheduler hostfile needs --hostfile FILE");
	expect_error(ENV(NULL), SCHED_SLURM, "/nonexistent/hosts",
	    "--hostfile conflicts with --scheduler slurm");
}
END_TEST

/* A Flux job: FLUX_JOB_ID names it, R (here from DDPRANK_FLUX_R, the
 * seam for `flux job info ID R`, which check_fluxr covers) lists it. */
START_TEST(test_flux)
{
	struct nodes	n;

	expect_hosts(&n, ENV("FLUX_JOB_ID=\xc6\x92" "2b", "FLUX_TASK_RANK=1",
	    "DDPRANK_FLUX_R={\"version\":1,\"execution\":{\"R_lite\":[],"
	    "\"nodelist\":[\"tuolumne[1001-1002]\",\"t7\"]}}"), SCHED_AUTO,
	    NULL, "tuolumne1001 tuolumne1002 t7");
	ck_assert_int_eq(n.sched, SCHED_FLUX);
	ck_assert_int_eq(n.nodeid, 1);
	ck_assert_str_eq(n.source, "DDPRANK_FLUX_R");
	ck_assert_str_eq(n.text, "tuolumne[1001-1002],t7");
	nodes_free(&n);
}
END_TEST

START_TEST(test_flux_errors)
{
	expect_error(ENV("DDPRANK_FLUX_R={}"), SCHED_FLUX, NULL,
	    "no node list: FLUX_JOB_ID is not set");
	expect_error(ENV("FLUX_JOB_ID=f2", "DDPRANK_FLUX_R={\"version\":1}"),
	    SCHED_AUTO, NULL, "DDPRANK_FLUX_R: R has no execution.nodelist");
	expect_error(ENV("FLUX_JOB_ID=f2", "DDPRANK_FLUX_R={\"version\":1,"
	    "\"execution\":{\"nodelist\":[\"a[2-1]\"]}}"), SCHED_AUTO, NULL,
	    "DDPRANK_FLUX_R: execution.nodelist: decreasing range \"2-1\" "
	    "in \"a[2-1]\"");
	expect_error(ENV("FLUX_JOB_ID=f2", "FLUX_TASK_RANK=x",
	    "DDPRANK_FLUX_R={\"version\":1,\"execution\":{\"nodelist\":"
	    "[\"a\"]}}"), SCHED_AUTO, NULL,
	    "FLUX_TASK_RANK is not a number: 'x'");
}
END_TEST

START_TEST(test_detect_order)
{
	struct nodes	 n;
	char		*path, *var;

	path = t_tmpfile("check_nodes", "p1\n");
	xasprintf(&var, "PBS_NODEFILE=%s", path);
	expect_hosts(&n, ENV("LSB_MCPU_HOSTS=l1 1", var, "CCP_NODES=1 c1 1",
	    "SLURM_JOB_NODELIST=s1"), SCHED_AUTO, NULL, "s1");
	nodes_free(&n);
	expect_hosts(&n, ENV("LSB_MCPU_HOSTS=l1 1", var, "CCP_NODES=1 c1 1",
	    "SLURM_JOB_NODELIST="), SCHED_AUTO, NULL, "c1");
	nodes_free(&n);
	expect_hosts(&n, ENV("LSB_MCPU_HOSTS=l1 1", var), SCHED_AUTO, NULL,
	    "p1");
	nodes_free(&n);
	expect_hosts(&n, ENV("LSB_MCPU_HOSTS=l1 1", var), SCHED_LSF, NULL,
	    "l1");
	nodes_free(&n);
	/* Flux, the innermost where it runs in a PBS or LSF job. */
	expect_hosts(&n, ENV("LSB_MCPU_HOSTS=l1 1", var, "FLUX_JOB_ID=f2",
	    "DDPRANK_FLUX_R={\"version\":1,\"execution\":{\"nodelist\":"
	    "[\"x1\"]}}"), SCHED_AUTO, NULL, "x1");
	nodes_free(&n);
	expect_error(ENV("SLURM_JOB_ID=7", "CCP_NODES="), SCHED_AUTO, NULL,
	    "no node list: none of SLURM_STEP_NODELIST, SLURM_JOB_NODELIST, "
	    "SLURM_NODELIST, CCP_NODES, FLUX_JOB_ID, PBS_NODEFILE, "
	    "LSB_MCPU_HOSTS, DDPGEN_LOCAL_NODES is set and no --hostfile was "
	    "given");
	unlink(path);
	free(var);
	free(path);
}
END_TEST

static void
expect_job(const char *const *vars, enum sched_id s, const char *want,
    const char *var)
{
	struct nodes_env	 env = t_env(vars);
	struct nodes_job	 job;
	char			*cause = NULL, *got;

	if (nodes_job(&job, &env, s, &cause) == -1)
		ck_abort_msg("unexpected error: %s", cause);
	got = nodes_job_string(&job);
	if (want == NULL) {
		ck_assert_int_eq(job.set, 0);
		ck_assert_ptr_null(got);
		return;
	}
	ck_assert_int_eq(job.set, 1);
	ck_assert_str_eq(got, want);
	ck_assert_str_eq(job.var, var);
	free(got);
}

static void
expect_job_error(const char *const *vars, enum sched_id s,
    const char *want)
{
	struct nodes_env	 env = t_env(vars);
	struct nodes_job	 job;
	char			*cause = NULL;

	ck_assert_int_eq(nodes_job(&job, &env, s, &cause), -1);
	ck_assert_str_eq(cause, want);
	free(cause);
}

START_TEST(test_job_slurm)
{
	struct nodes_env	 env;
	struct nodes_job	 job;
	char			*cause = NULL;

	expect_job(ENV("SLURM_JOB_ID=123456"), SCHED_SLURM, "123456",
	    "SLURM_JOB_ID");
	expect_job(ENV("SLURM_JOB_ID=12", "SLURM_ARRAY_TASK_ID=3",
	    "SLURM_STEP_ID=0"), SCHED_AUTO, "12_3.0", "SLURM_JOB_ID");
	expect_job(ENV("SLURM_JOB_ID=12", "SLURM_STEPID=4"), SCHED_SLURM,
	    "12.4", "SLURM_JOB_ID");
	expect_job(ENV("SLURM_JOB_ID=12", "SLURM_STEPID=4", "SLURM_STEP_ID=5"),
	    SCHED_SLURM, "12.5", "SLURM_JOB_ID");
	env = t_env(ENV("SLURM_JOB_ID=18446744073709551615",
	    "SLURM_ARRAY_TASK_ID=7"));
	ck_assert_int_eq(nodes_job(&job, &env, SCHED_SLURM, &cause), 0);
	ck_assert(job.id == UINT64_MAX);
	ck_assert_int_eq(job.task, 7);
	ck_assert_int_eq(job.step, -1);
	expect_job_error(ENV("SLURM_JOB_ID=12a"), SCHED_SLURM,
	    "SLURM_JOB_ID is not a number: '12a'");
	expect_job_error(ENV("SLURM_JOB_ID=18446744073709551616"), SCHED_SLURM,
	    "SLURM_JOB_ID is too large: '18446744073709551616'");
	expect_job_error(ENV("SLURM_JOB_ID=1", "SLURM_STEP_ID=batch"),
	    SCHED_SLURM, "SLURM_STEP_ID is not a number: 'batch'");
	expect_job_error(ENV("SLURM_JOB_ID=1", "SLURM_ARRAY_TASK_ID=-2"),
	    SCHED_SLURM, "SLURM_ARRAY_TASK_ID is not a number: '-2'");
	expect_job(ENV("CCP_JOBID=5"), SCHED_SLURM, NULL, NULL);
}
END_TEST

START_TEST(test_job_others)
{
	/* HPC Pack: the task id differs from node to node, so not used. */
	expect_job(ENV("CCP_JOBID=881", "CCP_TASKID=2"), SCHED_HPCPACK, "881",
	    "CCP_JOBID");
	expect_job(ENV("PBS_JOBID=4242.pbs01.example"), SCHED_PBS, "4242",
	    "PBS_JOBID");
	expect_job(ENV("PBS_JOBID=4242[3].pbs01", "PBS_ARRAY_INDEX=3"),
	    SCHED_PBS, "4242_3", "PBS_JOBID");
	expect_job(ENV("PBS_JOBID=4242-1.torque", "PBS_ARRAYID=1"), SCHED_PBS,
	    "4242_1", "PBS_JOBID");
	expect_job_error(ENV("PBS_JOBID=pbs.4242"), SCHED_PBS,
	    "PBS_JOBID is not a number: 'pbs.4242'");
	expect_job(ENV("LSB_JOBID=77", "LSB_JOBINDEX=0"), SCHED_LSF, "77",
	    "LSB_JOBID");
	expect_job(ENV("LSB_JOBID=77", "LSB_JOBINDEX=9"), SCHED_LSF, "77_9",
	    "LSB_JOBID");
	expect_job_error(ENV("CCP_JOBID=x"), SCHED_HPCPACK,
	    "CCP_JOBID is not a number: 'x'");
	expect_job(ENV("LSB_JOBID="), SCHED_LSF, NULL, NULL);
	expect_job(ENV("FLUX_JOB_ID=\xc6\x92" "uZZybuNNy"), SCHED_FLUX,
	    "6731191091817518", "FLUX_JOB_ID");
	expect_job(ENV("FLUX_JOB_ID=f21"), SCHED_AUTO, "58", "FLUX_JOB_ID");
	expect_job(ENV("FLUX_JOB_ID=77"), SCHED_FLUX, "77", "FLUX_JOB_ID");
	expect_job_error(ENV("FLUX_JOB_ID=fO"), SCHED_FLUX,
	    "FLUX_JOB_ID is not a Flux job id: 'fO'");
}
END_TEST

/* The port's id: the job's own, but on Flux the batch job's
 * (FLUX_ENCLOSING_ID), which the doctor's run and the training's share
 * where each has a FLUX_JOB_ID of its own. */
START_TEST(test_job_port_id)
{
	struct nodes_env	 env;
	struct nodes_job	 doc, train;
	char			*cause = NULL;

	env = t_env(ENV("FLUX_JOB_ID=f21", "FLUX_ENCLOSING_ID=f2"));
	ck_assert_int_eq(nodes_job(&doc, &env, SCHED_FLUX, &cause), 0);
	env = t_env(ENV("FLUX_JOB_ID=f22", "FLUX_ENCLOSING_ID=f2"));
	ck_assert_int_eq(nodes_job(&train, &env, SCHED_FLUX, &cause), 0);
	ck_assert(doc.id == 58 && train.id == 59);
	ck_assert(doc.port_id == 1 && train.port_id == 1);
	env = t_env(ENV("FLUX_JOB_ID=f21"));
	ck_assert_int_eq(nodes_job(&doc, &env, SCHED_FLUX, &cause), 0);
	ck_assert(doc.port_id == 58);
	env = t_env(ENV("SLURM_JOB_ID=12", "FLUX_ENCLOSING_ID=f2"));
	ck_assert_int_eq(nodes_job(&doc, &env, SCHED_SLURM, &cause), 0);
	ck_assert(doc.port_id == 12);
	expect_job_error(ENV("FLUX_JOB_ID=f21", "FLUX_ENCLOSING_ID=fO"),
	    SCHED_FLUX, "FLUX_ENCLOSING_ID is not a Flux job id: 'fO'");
	/* The batch script, which has no FLUX_JOB_ID (the broker unsets
	 * it), is the batch job: ddprank verdict there finds the records
	 * its runs' watchers wrote under that id. */
	expect_job(ENV("FLUX_ENCLOSING_ID=f2"), SCHED_FLUX, "1",
	    "FLUX_ENCLOSING_ID");
	expect_job(ENV("FLUX_ENCLOSING_ID=f2"), SCHED_AUTO, "1",
	    "FLUX_ENCLOSING_ID");
	env = t_env(ENV("FLUX_ENCLOSING_ID=f2"));
	ck_assert_int_eq(nodes_job(&doc, &env, SCHED_FLUX, &cause), 0);
	ck_assert(doc.id == 1 && doc.port_id == 1);
	expect_job_error(ENV("FLUX_ENCLOSING_ID=fO"), SCHED_FLUX,
	    "FLUX_ENCLOSING_ID is not a Flux job id: 'fO'");
}
END_TEST

START_TEST(test_job_detect)
{
	/* A hostfile has no job id of its own: the first scheduler's. */
	expect_job(ENV("LSB_JOBID=4", "PBS_JOBID=3.x", "CCP_JOBID=2",
	    "SLURM_JOB_ID=1"), SCHED_HOSTFILE, "1", "SLURM_JOB_ID");
	expect_job(ENV("LSB_JOBID=4", "PBS_JOBID=3.x", "CCP_JOBID=2"),
	    SCHED_AUTO, "2", "CCP_JOBID");
	expect_job(ENV("LSB_JOBID=4", "PBS_JOBID=3.x"), SCHED_HOSTFILE, "3",
	    "PBS_JOBID");
	expect_job(ENV("LSB_JOBID=4"), SCHED_AUTO, "4", "LSB_JOBID");
	expect_job(ENV("SLURM_STEP_ID=4"), SCHED_AUTO, NULL, NULL);
}
END_TEST

/* The node list alone, as ddprank hosts wants it: a job id it would not
 * use cannot make it fail. */
START_TEST(test_load_ignores_job)
{
	struct nodes	n;

	expect_hosts(&n, ENV("SLURM_JOB_NODELIST=a[1-2]", "SLURM_JOB_ID=x",
	    "SLURM_STEP_ID=batch"), SCHED_AUTO, NULL, "a1 a2");
	nodes_free(&n);
	expect_hosts(&n, ENV("CCP_NODES=1 A 4", "CCP_JOBID=y"), SCHED_AUTO,
	    NULL, "A");
	nodes_free(&n);
}
END_TEST

START_TEST(test_describe)
{
	struct nodes	 n;
	char		*s, *want, longlist[200];

	expect_hosts(&n, ENV("SLURM_JOB_NODELIST=nid[01-04]"), SCHED_AUTO,
	    NULL, "nid01 nid02 nid03 nid04");
	s = nodes_describe(&n);
	ck_assert_str_eq(s, "'nid[01-04]' (from SLURM_JOB_NODELIST)");
	free(s);
	nodes_free(&n);

	memset(longlist, 'a', sizeof longlist - 1);
	longlist[sizeof longlist - 1] = '\0';
	xasprintf(&s, "CCP_NODES=1 %s 1", longlist);
	expect_hosts(&n, ENV(s), SCHED_AUTO, NULL, longlist);
	free(s);
	s = nodes_describe(&n);
	xasprintf(&want, "'1 %.98s...' (from CCP_NODES)", longlist);
	ck_assert_str_eq(s, want);
	free(want);
	free(s);
	nodes_free(&n);
}
END_TEST

START_TEST(test_long_name)
{
	char	*s, *want, name[300];

	memset(name, 'b', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	xasprintf(&s, "LSB_MCPU_HOSTS=%s 1", name);
	xasprintf(&want, "LSB_MCPU_HOSTS: host name too long: '%.40s...'",
	    name);
	expect_error(ENV(s), SCHED_AUTO, NULL, want);
	free(want);
	free(s);
}
END_TEST

static Suite *
nodes_suite(void)
{
	Suite	*s = suite_create("nodes");
	TCase	*tc;

	tc = tcase_create("slurm");
	tcase_add_test(tc, test_sched_names);
	tcase_add_test(tc, test_slurm_step_list_first);
	tcase_add_test(tc, test_slurm_job_list);
	tcase_add_test(tc, test_slurm_nodeid_scope);
	tcase_add_test(tc, test_slurm_errors);
	tcase_add_test(tc, test_slurm_old_nodelist);
	suite_add_tcase(s, tc);

	tc = tcase_create("others");
	tcase_add_test(tc, test_hpcpack);
	tcase_add_test(tc, test_hpcpack_errors);
	tcase_add_test(tc, test_pbs);
	tcase_add_test(tc, test_pbs_errors);
	tcase_add_test(tc, test_lsf);
	tcase_add_test(tc, test_lsf_csm);
	tcase_add_test(tc, test_hostfile);
	tcase_add_test(tc, test_hostfile_errors);
	tcase_add_test(tc, test_flux);
	tcase_add_test(tc, test_flux_errors);
	tcase_add_test(tc, test_detect_order);
	tcase_add_test(tc, test_describe);
	tcase_add_test(tc, test_long_name);
	suite_add_tcase(s, tc);

	tc = tcase_create("job");
	tcase_add_test(tc, test_job_slurm);
	tcase_add_test(tc, test_job_others);
	tcase_add_test(tc, test_job_port_id);
	tcase_add_test(tc, test_job_detect);
	tcase_add_test(tc, test_load_ignores_job);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(nodes_suite());
}
