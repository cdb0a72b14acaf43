/* check_profile.c: Check tests of profiles, their errors and extends. */
#include "config.h"

#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "gen.h"
#include "profile.h"
#include "profile-int.h"
#include "runtime.h"
#include "scheduler.h"
#include "testlib.h"
#include "util.h"
#include "xmalloc.h"

/* Two lines every valid test profile starts with. */
#define BASE	"description = \"d\"\nscheduler = slurm\n"

static char	*tmp;

static void
tmp_setup(void)
{
	tmp = t_tmpdir("check_profile");
}

static void
tmp_teardown(void)
{
	t_rmtree(tmp);
	tmp = NULL;
}

/* tmp/REL, the caller frees it. */
static char *
tpath(const char *rel)
{
	char	*s;

	xasprintf(&s, "%s/%s", tmp, rel);
	return s;
}

/* Writes tmp/REL, making its directory. */
static void
put(const char *rel, const char *text)
{
	const char	*slash = strrchr(rel, '/');
	char		*path = tpath(rel), *dir;

	if (slash != NULL) {
		xasprintf(&dir, "%s/%.*s", tmp, (int)(slash - rel), rel);
		mkdir(dir, 0755);
		free(dir);
	}
	t_write(path, text, strlen(text));
	free(path);
}

/* Errors joined by newlines; the caller frees it. */
static char *
joined(const struct strlist *l)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < l->n; i++)
		buf_addf(&b, "%s%s", i == 0 ? "" : "\n", l->v[i]);
	return b.s;
}

static struct profile *
parse(const char *text, struct strlist *errors)
{
	struct strlist	dirs;
	struct profile	*p;

	strlist_init(&dirs);
	strlist_init(errors);
	p = profile_parse_buf("t.conf", text, &dirs, errors);
	strlist_free(&dirs);
	return p;
}

/* Parses text, which must fail with exactly want. */
static void
parse_fails(const char *text, const char *want)
{
	struct strlist	 errors;
	struct profile	*p;
	char		*got;

	p = parse(text, &errors);
	got = joined(&errors);
	ck_assert_msg(p == NULL, "parsed: %s", text);
	ck_assert_str_eq(got, want);
	free(got);
	strlist_free(&errors);
}

/* Parses text, which must succeed. */
static struct profile *
parse_ok(const char *text)
{
	struct strlist	 errors;
	struct profile	*p;
	char		*got;

	p = parse(text, &errors);
	got = joined(&errors);
	ck_assert_msg(p != NULL, "errors: %s", got);
	ck_assert_str_eq(got, "");
	free(got);
	strlist_free(&errors);
	return p;
}

static void
list_eq(const struct strlist *l, const char *const *want, size_t n)
{
	size_t	i;

	ck_assert_uint_eq(l->n, n);
	for (i = 0; i < n; i++)
		ck_assert_str_eq(l->v[i], want[i]);
}

/* ---- Keys and defaults ---- */

START_TEST(test_defaults)
{
	struct profile		*p = parse_ok(BASE);
	const char *const	 torchrun[] = { "torchrun" };
	const char *const	 chain[] = { "t.conf" };

	ck_assert_str_eq(p->name, "t.conf");
	ck_assert_str_eq(p->path, "t.conf");
	list_eq(&p->chain, chain, 1);
	ck_assert_str_eq(p->description, "d");
	ck_assert_int_eq(p->scheduler, SCHED_SLURM);
	ck_assert_int_eq(p->discovery, PROFILE_HOSTNAME);
	ck_assert_str_eq(p->iface, "");
	ck_assert_int_eq(p->gpus_per_node, 0);
	ck_assert_int_eq(p->nproc_per_node, 0);
	ck_assert_int_eq(profile_nproc(p), 1);
	ck_assert_str_eq(p->job_name, "ddp");
	ck_assert_str_eq(p->job_output, "ddp-%j.out");
	ck_assert_str_eq(p->partition, "");
	ck_assert_str_eq(p->account, "");
	ck_assert_str_eq(p->qos, "");
	ck_assert_str_eq(p->constraint, "");
	ck_assert_str_eq(p->time, "");
	ck_assert_int_eq(p->cpus_per_task, 0);
	ck_assert_uint_eq(p->sbatch_extra.n, 0);
	ck_assert_uint_eq(p->env.n, 0);
	ck_assert_uint_eq(p->setup.n, 0);
	list_eq(&p->launcher, torchrun, 1);
	ck_assert_uint_eq(p->launcher_args.n, 0);
	ck_assert_int_eq(p->port, 0);
	ck_assert_int_eq(p->port_min, 20000);
	ck_assert_int_eq(p->port_max, 29999);
	ck_assert_int_eq(p->rdzv, RDZV_STATIC);
	ck_assert_str_eq(p->template, "slurm.sh");
	ck_assert_str_eq(p->ddprank, "");
	ck_assert_str_eq(p->node_group, "");
	ck_assert_str_eq(p->shared_dir, "/app");
	ck_assert_int_eq(p->task_shell, PROFILE_SHELL_LOGIN_INTERACTIVE);
	ck_assert_str_eq(p->path_env, "");
	ck_assert_int_eq(p->exclusive, 1);
	ck_assert_int_eq(p->fail_on_task_failure, 1);
	ck_assert_int_eq(p->exchange_timeout, 300);
	ck_assert_int_eq(profile_validate(p, NULL), 0);
	profile_free(p);
}
END_TEST

START_TEST(test_defaults_depend)
{
	struct profile	*p;

	p = parse_ok("description = d\nscheduler = hpcpack\n");
	ck_assert_str_eq(p->template, "hpcpack.xml");
	profile_free(p);
	p = parse_ok(BASE "gpus_per_node = 4\n");
	ck_assert_int_eq(profile_nproc(p), 4);
	profile_free(p);
	p = parse_ok(BASE "gpus_per_node = 4\nnproc_per_node = 2\n");
	ck_assert_int_eq(profile_nproc(p), 2);
	profile_free(p);
	p = parse_ok(BASE "nproc_per_node = 3\n");
	ck_assert_int_eq(profile_nproc(p), 3);
	profile_free(p);
	/* An explicit template wins over the scheduler's. */
	p = parse_ok("description = d\nscheduler = hpcpack\n"
	    "template = \"my.xml\"\n");
	ck_assert_str_eq(p->template, "my.xml");
	profile_free(p);
}
END_TEST

/* The binding's keys: a policy word, a CPU list, a variable name; and
 * what the binding needs of the launcher and the request. */
START_TEST(test_bind_keys)
{
	struct profile	*p;

	p = parse_ok(BASE "gpus_per_node = 4\nbind = gpu\n"
	    "bind_reserve = \"0,8,16-17\"\nbind_nic_var = NCCL_IB_HCA\n");
	ck_assert_int_eq(p->bind, BIND_GPU);
	ck_assert_str_eq(p->bind_reserve, "0,8,16-17");
	ck_assert_str_eq(p->bind_nic_var, "NCCL_IB_HCA");
	profile_free(p);
	p = parse_ok(BASE "bind = numa\n");
	ck_assert_int_eq(p->bind, BIND_NUMA);
	profile_free(p);
	parse_fails(BASE "bind = cores\n",
	    "t.conf:3: bind: bad value 'cores' (none, numa or gpu)");
	parse_fails(BASE "bind_reserve = \"0-\"\n",
	    "t.conf:3: bind_reserve: '0-' is not a CPU list (N or N-M items "
	    "joined by ',', each below 4096)");
	parse_fails(BASE "bind_nic_var = \"1X\"\n",
	    "t.conf:3: bind_nic_var: '1X' is not a variable name (letters, "
	    "digits, '_', not a digit first)");
	parse_fails(BASE "bind = gpu\n",
	    "t.conf:3: bind: gpu for a job that asks for no GPU "
	    "(gpus_per_node = 0): use numa, or none");
	/* python's -m is not torchrun's. */
	p = parse_ok(BASE "bind = numa\nlauncher = {python3, \"-m\", "
	    "torch.distributed.run}\n");
	profile_free(p);
	parse_fails(BASE "bind = numa\nlauncher = {torchrun, \"--module\"}\n",
	    "t.conf:3: bind: launcher torchrun runs a module (-m), and the "
	    "binding step runs a script");
	parse_fails(BASE "bind = numa\nlauncher_args = {\"-m\"}\n",
	    "t.conf:3: bind: launcher torchrun runs a module (-m), and the "
	    "binding step runs a script");
}
END_TEST

START_TEST(test_every_key)
{
	struct profile		*p;
	const char *const	 extra[] = { "--mail-type=END", "--exclusive" };
	const char *const	 env[] = { "A=1", "_b2=x=y" };
	const char *const	 setup[] = { "module load a", "cd /w" };
	const char *const	 launcher[] = { "python3", "-m", "torch.run" };
	const char *const	 largs[] = { "--redirects", "2" };

	p = parse_ok(
	    "description = \"all keys\"\n"
	    "scheduler = slurm\n"
	    "discovery = iface\n"
	    "iface = \"^(eth|ib)[0-9]$\"\n"
	    "gpus_per_node = 8\n"
	    "nproc_per_node = 8\n"
	    "job_name = train\n"
	    "job_output = \"out-%j.log\"\n"
	    "partition = gpu\n"
	    "account = m1234\n"
	    "qos = regular\n"
	    "constraint = \"a100&hbm80g\"\n"
	    "time = \"1-02:03:04\"\n"
	    "cpus_per_task = 32\n"
	    "sbatch_extra = {\"--mail-type=END\", \"--exclusive\"}\n"
	    "env = {\"A=1\", \"_b2=x=y\"}\n"
	    "setup = {\"module load a\", \"cd /w\"}\n"
	    "launcher = {python3, \"-m\", torch.run}\n"
	    "launcher_args = {\"--redirects\", \"2\"}\n"
	    "port = 29500\n"
	    "port_range = {1024, 65535}\n"
	    "rdzv = c10d\n"
	    "template = \"/opt/t.xml\"\n"
	    "ddprank = \"/opt/bin/ddprank\"\n"
	    "exclusive = false\n"
	    "c10d_shared = true\n");
	ck_assert_str_eq(p->description, "all keys");
	ck_assert_int_eq(p->scheduler, SCHED_SLURM);
	ck_assert_int_eq(p->discovery, PROFILE_IFACE);
	ck_assert_str_eq(p->iface, "^(eth|ib)[0-9]$");
	ck_assert_int_eq(p->gpus_per_node, 8);
	ck_assert_int_eq(p->nproc_per_node, 8);
	ck_assert_str_eq(p->job_name, "train");
	ck_assert_str_eq(p->job_output, "out-%j.log");
	ck_assert_str_eq(p->partition, "gpu");
	ck_assert_str_eq(p->account, "m1234");
	ck_assert_str_eq(p->qos, "regular");
	ck_assert_str_eq(p->constraint, "a100&hbm80g");
	ck_assert_str_eq(p->time, "1-02:03:04");
	ck_assert_int_eq(p->cpus_per_task, 32);
	list_eq(&p->sbatch_extra, extra, 2);
	list_eq(&p->env, env, 2);
	list_eq(&p->setup, setup, 2);
	list_eq(&p->launcher, launcher, 3);
	list_eq(&p->launcher_args, largs, 2);
	ck_assert_int_eq(p->port, 29500);
	ck_assert_int_eq(p->port_min, 1024);
	ck_assert_int_eq(p->port_max, 65535);
	ck_assert_int_eq(p->rdzv, RDZV_C10D);
	ck_assert_str_eq(p->template, "/opt/t.xml");
	ck_assert_str_eq(p->ddprank, "/opt/bin/ddprank");
	ck_assert_int_eq(p->exclusive, 0);
	ck_assert_int_eq(profile_validate(p, NULL), 0);
	profile_free(p);
	/* HPC Pack's own keys; Slurm's are refused there, and they on
	 * Slurm (test_requests). */
	p = parse_ok("description = d\nscheduler = hpcpack\n"
	    "node_group = \"GPUNodes\"\n"
	    "shared_dir = \"/shared\"\n"
	    "task_shell = plain\n"
	    "path = \"/usr/local/cuda/bin:/usr/bin:/bin\"\n"
	    "fail_on_task_failure = no\n"
	    "exchange_timeout = 60\n");
	ck_assert_str_eq(p->node_group, "GPUNodes");
	ck_assert_str_eq(p->shared_dir, "/shared");
	ck_assert_int_eq(p->task_shell, PROFILE_SHELL_PLAIN);
	ck_assert_str_eq(p->path_env, "/usr/local/cuda/bin:/usr/bin:/bin");
	ck_assert_int_eq(p->fail_on_task_failure, 0);
	ck_assert_int_eq(p->exchange_timeout, 60);
	ck_assert_int_eq(profile_validate(p, NULL), 0);
	profile_free(p);
}
END_TEST

#define HPC_TAKE "(they take: node_group, shared_dir, task_shell, path, " \
	"fail_on_task_failure and exchange_timeout)"
#define SLURM_TAKE "(they take: partition, account, qos, constraint, " \
	"job_output, cpus_per_task, label_output, sbatch_extra, requeue, " \
	"signal_lead, checkpoint_signal, max_requeues, hang_timeout, " \
	"hang_dir, max_failures and bad_node_hours)"
#define PBS_TAKE "(they take: partition, account, job_output, " \
	"cpus_per_task, requeue, signal_lead, checkpoint_signal, " \
	"max_requeues, hang_timeout, hang_dir, max_failures, " \
	"bad_node_hours, filesystems, pbs_select and pbs_launcher)"
#define FLUX_TAKE "(they take: partition, account, constraint, " \
	"job_output, label_output, requeue, signal_lead, " \
	"checkpoint_signal, max_requeues, hang_timeout, hang_dir, " \
	"max_failures and bad_node_hours)"
#define LSF_TAKE "(they take: partition, account, job_output, " \
	"cpus_per_task, requeue, signal_lead, checkpoint_signal, " \
	"max_requeues, hang_timeout, hang_dir, max_failures, " \
	"bad_node_hours and lsf_launcher)"

/* A key that only some schedulers' jobs honour, set on a site whose jobs
 * do not to other than its default, is refused, one line each, in the
 * same words for every scheduler; its default passes anywhere. */
START_TEST(test_requests)
{
	struct profile	*p;

	parse_fails("description = d\nscheduler = hpcpack\n"
	    "partition = gpu\naccount = m1\nqos = q\nconstraint = c\n"
	    "sbatch_extra = {\"--mail-type=END\"}\nrequeue = true\n"
	    "job_output = o\ncpus_per_task = 2\nlabel_output = false\n"
	    "signal_lead = 60\ncheckpoint_signal = USR1\nmax_requeues = 1\n",
	    "t.conf:3: partition: a key HPC Pack jobs have no word for "
	    HPC_TAKE "\n"
	    "t.conf:4: account: a key HPC Pack jobs have no word for "
	    HPC_TAKE "\n"
	    "t.conf:5: qos: a key HPC Pack jobs have no word for "
	    HPC_TAKE "\n"
	    "t.conf:6: constraint: a key HPC Pack jobs have no word for "
	    HPC_TAKE "\n"
	    "t.conf:7: sbatch_extra: a key HPC Pack jobs have no word for "
	    HPC_TAKE "\n"
	    "t.conf:8: requeue: a key HPC Pack jobs have no word for "
	    HPC_TAKE "\n"
	    "t.conf:9: job_output: a key HPC Pack jobs have no word for "
	    HPC_TAKE "\n"
	    "t.conf:10: cpus_per_task: a key HPC Pack jobs have no word for "
	    HPC_TAKE "\n"
	    "t.conf:11: label_output: a key HPC Pack jobs have no word for "
	    HPC_TAKE "\n"
	    "t.conf:12: signal_lead: a key HPC Pack jobs have no word for "
	    HPC_TAKE "\n"
	    "t.conf:13: checkpoint_signal: a key HPC Pack jobs have no word "
	    "for " HPC_TAKE "\n"
	    "t.conf:14: max_requeues: a key HPC Pack jobs have no word for "
	    HPC_TAKE);
	parse_fails(BASE "node_group = g\nshared_dir = /s\n"
	    "task_shell = login\npath = /bin\nfail_on_task_failure = no\n"
	    "exchange_timeout = 9\npbs_select = \"a=b\"\n"
	    "filesystems = home\npbs_launcher = pbsdsh\n"
	    "lsf_launcher = jsrun\n",
	    "t.conf:3: node_group: a key Slurm jobs have no word for "
	    SLURM_TAKE "\n"
	    "t.conf:4: shared_dir: a key Slurm jobs have no word for "
	    SLURM_TAKE "\n"
	    "t.conf:5: task_shell: a key Slurm jobs have no word for "
	    SLURM_TAKE "\n"
	    "t.conf:6: path: a key Slurm jobs have no word for "
	    SLURM_TAKE "\n"
	    "t.conf:7: fail_on_task_failure: a key Slurm jobs have no word "
	    "for " SLURM_TAKE "\n"
	    "t.conf:8: exchange_timeout: a key Slurm jobs have no word for "
	    SLURM_TAKE "\n"
	    "t.conf:9: pbs_select: a key Slurm jobs have no word for "
	    SLURM_TAKE "\n"
	    "t.conf:10: filesystems: a key Slurm jobs have no word for "
	    SLURM_TAKE "\n"
	    "t.conf:11: pbs_launcher: a key Slurm jobs have no word for "
	    SLURM_TAKE "\n"
	    "t.conf:12: lsf_launcher: a key Slurm jobs have no word for "
	    SLURM_TAKE);
	parse_fails("description = d\nscheduler = pbs\nqos = q\n"
	    "constraint = c\npartition = p\nlabel_output = no\n",
	    "t.conf:3: qos: a key PBS jobs have no word for " PBS_TAKE "\n"
	    "t.conf:4: constraint: a key PBS jobs have no word for " PBS_TAKE
	    "\n"
	    "t.conf:6: label_output: a key PBS jobs have no word for "
	    PBS_TAKE);
	parse_fails("description = d\nscheduler = flux\nqos = q\n"
	    "constraint = c\ncpus_per_task = 4\n",
	    "t.conf:3: qos: a key Flux jobs have no word for " FLUX_TAKE "\n"
	    "t.conf:5: cpus_per_task: a key Flux jobs have no word for "
	    FLUX_TAKE);
	parse_fails("description = d\nscheduler = lsf\n"
	    "sbatch_extra = {\"--x\"}\n",
	    "t.conf:3: sbatch_extra: a key LSF jobs have no word for "
	    LSF_TAKE);
	/* blaunch starts a task with the CPUs LSF gives it. */
	parse_fails("description = d\nscheduler = lsf\n"
	    "cpus_per_task = 4\n",
	    "t.conf:3: cpus_per_task: lsf_launcher = blaunch has no word for "
	    "it (jsrun's --cpu_per_rs has)");
	/* A key set to its default asks for nothing. */
	p = parse_ok(BASE "shared_dir = \"/app\"\ntask_shell = "
	    "login-interactive\nexchange_timeout = 300\nsbatch_extra = {}\n"
	    "pbs_launcher = mpiexec\n");
	profile_free(p);
	p = parse_ok("description = d\nscheduler = hpcpack\n"
	    "label_output = true\nrequeue = false\nsignal_lead = 120\n"
	    "job_output = \"ddp-%j.out\"\n");
	profile_free(p);
}
END_TEST

/* The keys a back-end honours are the schema's some-schedulers-only
 * keys (KF_SCHED), and each of those is some back-end's. */
START_TEST(test_sched_keys)
{
	const struct key	*k;
	const char *const	*n;
	size_t			 i;
	int			 s, any;

	for (s = SCHED_GEN_FIRST; gen_get(s) != NULL; s++) {
		for (n = gen_get(s)->keys; *n != NULL; n++) {
			ck_assert_msg((k = profile_key_find(*n)) != NULL &&
			    (k->flags & KF_SCHED), "%s", *n);
		}
	}
	for (i = 0; i < profile_nkeys; i++) {
		if (!(profile_keys[i].flags & KF_SCHED))
			continue;
		any = 0;
		for (s = SCHED_GEN_FIRST; gen_get(s) != NULL; s++)
			any |= gen_honours(s, profile_keys[i].name);
		ck_assert_msg(any, "%s", profile_keys[i].name);
	}
}
END_TEST

static const struct {
	const char	*key;
	const char	*value;
	int		 want;
} enums[] = {
	{ "scheduler", "slurm", SCHED_SLURM },
	{ "scheduler", "hpcpack", SCHED_HPCPACK },
	{ "discovery", "hostname", PROFILE_HOSTNAME },
	{ "discovery", "iface", PROFILE_IFACE },
	{ "rdzv", "static", RDZV_STATIC },
	{ "rdzv", "c10d", RDZV_C10D },
	{ "task_shell", "login", PROFILE_SHELL_LOGIN },
	{ "task_shell", "interactive", PROFILE_SHELL_INTERACTIVE },
	{ "task_shell", "plain", PROFILE_SHELL_PLAIN },
	{ "task_shell", "login-interactive", PROFILE_SHELL_LOGIN_INTERACTIVE },
};

START_TEST(test_enums)
{
	struct profile	*p;
	char		*text;
	int		 got;

	/* iface and path keep every value valid across the keys (path and
	 * task_shell are HPC Pack's). */
	xasprintf(&text, "description = d\nscheduler = %s\niface = x\n%s"
	    "%s = \"%s\"\n", strcmp(enums[_i].key, "task_shell") == 0 ?
	    "hpcpack" : "slurm", strcmp(enums[_i].key, "task_shell") == 0 ?
	    "path = /bin\n" : "", enums[_i].key, enums[_i].value);
	p = parse_ok(text);
	if (strcmp(enums[_i].key, "scheduler") == 0)
		got = (int)p->scheduler;
	else if (strcmp(enums[_i].key, "discovery") == 0)
		got = (int)p->discovery;
	else if (strcmp(enums[_i].key, "rdzv") == 0)
		got = (int)p->rdzv;
	else
		got = (int)p->task_shell;
	ck_assert_int_eq(got, enums[_i].want);
	profile_free(p);
	free(text);
}
END_TEST

/* The keys whose words are a table's rows: each row's own name (the
 * back-end's scheduler row, the runtime row) is read as that row and
 * spelt back as that name. */
START_TEST(test_row_enums)
{
	const struct key	*ks = profile_key_find("scheduler");
	const struct key	*kc = profile_key_find("container");
	struct profile		*p = parse_ok(BASE);
	const char		*name;
	char			*s, *cause = NULL;
	int			 i, got;

	for (i = SCHED_GEN_FIRST; gen_get(i) != NULL; i++) {
		name = sched_get(gen_get(i)->sched)->name;
		ck_assert_int_eq(profile_key_item(ks, name, &got, &cause), 0);
		ck_assert_int_eq(got, i);
		p->scheduler = (enum sched_id)i;
		ck_assert_str_eq(s = profile_key_scalar(p, ks), name);
		free(s);
	}
	ck_assert_int_eq(i, SCHED_HOSTFILE);
	for (i = 0; i < RT_COUNT; i++) {
		name = runtime_get(i)->name;
		ck_assert_int_eq(profile_key_item(kc, name, &got, &cause), 0);
		ck_assert_int_eq(got, i);
		p->container = (enum runtime_id)i;
		ck_assert_str_eq(s = profile_key_scalar(p, kc), name);
		free(s);
	}
	profile_free(p);
}
END_TEST

START_TEST(test_bools)
{
	const char	*yes[] = { "true", "yes", "on", "TRUE" };
	const char	*no[] = { "false", "no", "off", "Off" };
	struct profile	*p;
	char		*text;
	size_t		 i;

	/* Both default to true: a yes spelling must undo an earlier false. */
	for (i = 0; i < 4; i++) {
		xasprintf(&text, BASE "exclusive = %s\n"
		    "fail_on_task_failure = false\n"
		    "fail_on_task_failure = %s\n", no[i], yes[i]);
		p = parse_ok(text);
		ck_assert_int_eq(p->exclusive, 0);
		ck_assert_int_eq(p->fail_on_task_failure, 1);
		profile_free(p);
		free(text);
	}
}
END_TEST

START_TEST(test_port_auto)
{
	struct profile	*p;

	p = parse_ok(BASE "port = 29500\nport = auto\n");
	ck_assert_int_eq(p->port, 0);
	profile_free(p);
	p = parse_ok(BASE "port = 1\n");
	ck_assert_int_eq(p->port, 1);
	profile_free(p);
}
END_TEST

/* ---- Errors: one line each, "FILE:LINE: message" ---- */

static const struct {
	const char	*text;	/* after BASE: starts on line 3 */
	const char	*want;
} errs[] = {
	{ "zz = 1\n", "t.conf:3: unknown key 'zz'" },
	{ "signal_lead = 0\n",
	    "t.conf:3: signal_lead: value out of range: 0 (1 to 65535)" },
	{ "checkpoint_signal = TERM\n",
	    "t.conf:3: checkpoint_signal: bad value 'TERM' (USR2 or USR1)" },
	{ "max_requeues = -1\n",
	    "t.conf:3: max_requeues: value out of range: -1 (0 to 1000)" },
	{ "requeue = maybe\n",
	    "t.conf:3: requeue: 'maybe' is not a boolean (true or false)" },
	{ "zz = {1}\n", "t.conf:3: unknown key 'zz'\n"
	    "t.conf:3: unexpected token '{'" },
	{ "gpus_per_node = four\n",
	    "t.conf:3: gpus_per_node: 'four' is not an integer" },
	{ "gpus_per_node = 1.5\n",
	    "t.conf:3: gpus_per_node: '1.5' is not an integer" },
	{ "gpus_per_node = 2000\n",
	    "t.conf:3: gpus_per_node: value out of range: 2000 (0 to 1024)" },
	{ "nproc_per_node = -1\n",
	    "t.conf:3: nproc_per_node: value out of range: -1 (0 to 1024)" },
	{ "cpus_per_task = 99999999999999999999\n",
	    "t.conf:3: cpus_per_task: value out of range: "
	    "99999999999999999999 (0 to 16384)" },
	{ "exchange_timeout = 0\n",
	    "t.conf:3: exchange_timeout: value out of range: 0 (1 to 86400)" },
	{ "exclusive = maybe\n",
	    "t.conf:3: exclusive: 'maybe' is not a boolean (true or false)" },
	{ "description = {\"a\", \"b\"}\n",
	    "t.conf:3: description: expected one value, got a list of 2" },
	{ "job_name = {}\n",
	    "t.conf:3: job_name: expected one value, got an empty list" },
	{ "scheduler = sge\n",
	    "t.conf:3: scheduler: bad value 'sge' (slurm, hpcpack, flux, pbs, lsf or local)" },
	{ "lsf_launcher = srun\n",
	    "t.conf:3: lsf_launcher: bad value 'srun' (blaunch or jsrun)" },
	{ "discovery = dns\n",
	    "t.conf:3: discovery: bad value 'dns' (hostname or iface)" },
	/* PBS resource values: ',' would start another resource. */
	{ "filesystems = \"home,eagle\"\n",
	    "t.conf:3: filesystems: 'home,eagle' is not a PBS filesystems "
	    "list (names of [A-Za-z0-9_.-] joined by ':', as home:eagle)" },
	{ "filesystems = \"home::eagle\"\n",
	    "t.conf:3: filesystems: 'home::eagle' is not a PBS filesystems "
	    "list (names of [A-Za-z0-9_.-] joined by ':', as home:eagle)" },
	{ "pbs_select = \"system\"\n",
	    "t.conf:3: pbs_select: 'system' is not a list of PBS resources "
	    "(NAME=VALUE of [A-Za-z0-9_.-] joined by ':', as system=polaris)" },
	{ "pbs_select = \"a=b:c='d'\"\n",
	    "t.conf:3: pbs_select: 'a=b:c='d'' is not a list of PBS resources "
	    "(NAME=VALUE of [A-Za-z0-9_.-] joined by ':', as system=polaris)" },
	{ "pbs_launcher = srun\n",
	    "t.conf:3: pbs_launcher: bad value 'srun' (mpiexec or pbsdsh)" },
	{ "rdzv = etcd\n",
	    "t.conf:3: rdzv: bad value 'etcd' (static or c10d)" },
	{ "task_shell = zsh\n", "t.conf:3: task_shell: bad value 'zsh' "
	    "(login, interactive, plain or login-interactive)" },
	{ "discovery = Iface\niface = e\n",
	    "t.conf:3: discovery: bad value 'Iface' (hostname or iface)" },
	{ "iface = \"^eth[\"\n", "t.conf:3: iface: bad pattern '^eth[': "
	    "missing terminating ] for character class at offset 5" },
	{ "\niface = \"(a\"\n", "t.conf:4: iface: bad pattern '(a': "
	    "missing closing parenthesis at offset 2" },
	{ "comm_iface = \"^hsn[\"\n", "t.conf:3: comm_iface: bad pattern "
	    "'^hsn[': missing terminating ] for character class at offset 5" },
	{ "port = 0\n",
	    "t.conf:3: port: '0' is not auto or a number from 1 to 65535" },
	{ "port = 70000\n",
	    "t.conf:3: port: '70000' is not auto or a number from 1 to 65535" },
	{ "port = any\n",
	    "t.conf:3: port: 'any' is not auto or a number from 1 to 65535" },
	{ "port_range = {80, 90}\n",
	    "t.conf:3: port_range: value out of range: 80 (1024 to 65535)\n"
	    "t.conf:3: port_range: value out of range: 90 (1024 to 65535)" },
	{ "port_range = {3000}\n", "t.conf:3: port_range: expected two "
	    "ports {LOW, HIGH}, got 1 value" },
	{ "port_range = {}\n", "t.conf:3: port_range: expected two "
	    "ports {LOW, HIGH}, got 0 values" },
	{ "port_range = {30000, 20000}\n",
	    "t.conf:3: port_range: low port 30000 above high port 20000" },
	{ "time = \"1:2:3:4\"\n", "t.conf:3: time: bad time '1:2:3:4' "
	    "(want M, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED)" },
	{ "env = {\"A=1\", \"1X=2\"}\n", "t.conf:3: env: bad variable "
	    "name in '1X=2' (want [A-Za-z_][A-Za-z0-9_]*)" },
	{ "env = {\"A-B=2\"}\n", "t.conf:3: env: bad variable "
	    "name in 'A-B=2' (want [A-Za-z_][A-Za-z0-9_]*)" },
	{ "env = {\n\"NOVALUE\"}\n",
	    "t.conf:4: env: 'NOVALUE' is not NAME=VALUE" },
	{ "partition = \"a\\nb\"\n",
	    "t.conf:3: partition: control character in 'a\\nb'" },
	{ "account = \"a\\rb\"\n",
	    "t.conf:3: account: control character in 'a\\rb'" },
	{ "sbatch_extra = {\"--x=1\", \"--mail\\tx\"}\n",
	    "t.conf:3: sbatch_extra: control character in '--mail\\tx'" },
	{ "sbatch_extra = {\"mail-type=END\"}\n", "t.conf:3: sbatch_extra: "
	    "'mail-type=END' is not an sbatch option (want --name, "
	    "--name=value, --name value, -x, -xvalue or -x value)" },
	{ "sbatch_extra = {\"-w \", \"--a_b\", \"---x\", \"- w\"}\n",
	    "t.conf:3: sbatch_extra: '-w ' is not an sbatch option (want "
	    "--name, --name=value, --name value, -x, -xvalue or -x value)\n"
	    "t.conf:3: sbatch_extra: '--a_b' is not an sbatch option (want "
	    "--name, --name=value, --name value, -x, -xvalue or -x value)\n"
	    "t.conf:3: sbatch_extra: '---x' is not an sbatch option (want "
	    "--name, --name=value, --name value, -x, -xvalue or -x value)\n"
	    "t.conf:3: sbatch_extra: '- w' is not an sbatch option (want "
	    "--name, --name=value, --name value, -x, -xvalue or -x value)" },
	{ "description = \"\"\n", "t.conf:3: description: empty value" },
	{ "discovery = iface\n",
	    "t.conf:3: discovery: 'iface' needs an iface pattern" },
	{ "scheduler = hpcpack\nshared_dir = \"app\"\n",
	    "t.conf:4: shared_dir: 'app' is not an absolute path "
	    "(hpcpack nodes exchange addresses there)" },
	{ "hang_dir = \"jobs\"\n",
	    "t.conf:3: hang_dir: 'jobs' is not an absolute path" },
	{ "hang_timeout = 30\ncontainer = podman-hpc\nimage = \"i\"\n",
	    "t.conf:3: hang_timeout: ddprank runs outside the podman-hpc "
	    "container and cannot see its workers' heartbeats; set "
	    "hang_timeout = 0" },
	{ "hang_timeout = 86401\n", "t.conf:3: hang_timeout: value out of "
	    "range: 86401 (0 to 86400)" },
	{ "bad_node_hours = -1\n", "t.conf:3: bad_node_hours: value out of "
	    "range: -1 (0 to 8760)" },
	{ "scheduler = hpcpack\ntask_shell = plain\n", "t.conf:4: "
	    "task_shell: 'plain' needs path (the node agent's PATH is "
	    "minimal)" },
	{ "gpus_per_node = 2\nnproc_per_node = 4\n", "t.conf:4: "
	    "nproc_per_node: 4 processes for 2 GPUs per node "
	    "(one GPU each at most)" },
	{ "launcher = {}\n", "t.conf:3: launcher: empty list" },
	{ "launcher = {\"\"}\n", "t.conf:3: launcher: word 1 is empty ('')" },
	{ "description \"x\"\n",
	    "t.conf:3: missing equal sign after option 'description'" },
	{ "account = \"open\n", "t.conf:3: unterminated string" },
	{ "account = 'it\\'s\n", "t.conf:3: unterminated string" },
	{ "account = a /* note\n\n", "t.conf:3: unterminated comment" },
	{ "qos += \"x\"\n",
	    "t.conf:3: qos: takes one value: use '=', not '+='" },
	{ "\nexclusive += {true}\n",
	    "t.conf:4: exclusive: takes one value: use '=', not '+='" },
	{ "port_range += {2000, 3000}\n",
	    "t.conf:3: port_range: takes two ports: use '=', not '+='" },
	{ "job_name = a\njob_name += b\n",
	    "t.conf:4: job_name: expected one value, got a list of 2" },
};

/* libconfuse's lexer stays inside an unterminated string, and the next
 * cfg_init in the process aborted: here the broken file's extends made
 * ddpgen go on to its parent. Each broken file is one error line, and
 * a good profile still loads afterwards. */
START_TEST(test_unterminated_then_more)
{
	static const char *const broken[] = {
		"extends=plmt\"", "extends=\"plmt\"\nqos = 'q",
		"extends = plmt\nx = a /* c", "extends = plmt\na = \"\\\"",
		"extends = plmt\nqos = \"${X=\"q\"}\nqos = \"${Y\"\n",
		"extends = plmt\nqos = \"\\8\"", "extends = plmt\nqos = \"\\400\"",
		"extends = plmt\nqos = \"\\0123\"",
		"extends=\"plmt\"${\"\"}\"", "extends = plmt\n${X \"}\"\n",
	};
	struct strlist	 dirs, errors;
	struct profile	*p;
	char		*bad;
	size_t		 i;

	put("d/plmt.conf", BASE);
	strlist_init(&dirs);
	strlist_addown(&dirs, tpath("d"));
	bad = tpath("bad.conf");
	for (i = 0; i < sizeof broken / sizeof broken[0]; i++) {
		put("bad.conf", broken[i]);
		strlist_init(&errors);
		ck_assert_ptr_null(profile_load(bad, &dirs, &errors));
		ck_assert_msg(errors.n == 1 &&
		    (strstr(errors.v[0], "unterminated") != NULL ||
		    strstr(errors.v[0], "bad escape") != NULL ||
		    strstr(errors.v[0], "unquoted") != NULL),
		    "[%s]: %s", broken[i], errors.n > 0 ? errors.v[0] : "?");
		strlist_free(&errors);
		strlist_init(&errors);
		p = profile_load("plmt", &dirs, &errors);
		ck_assert_msg(p != NULL, "after [%s]: %s", broken[i],
		    errors.n > 0 ? errors.v[0] : "?");
		profile_free(p);
		strlist_free(&errors);
	}
	free(bad);
	strlist_free(&dirs);
}
END_TEST

/* What the lexer reads as closed must not be flagged: escapes, comments
 * holding quotes, slashes inside words. */
START_TEST(test_lexer_accepts)
{
	struct strlist	 errors;
	struct profile	*p;

	p = parse(BASE "partition = \"a\\101\\x41\\\"\\\\\" # it's \"\n"
	    "// it's\nqos = 'it\\'s' /* it's\n \" */\n"
	    "account = a//b\nconstraint = \"${DDPGEN_NOPE:-x\\\"y}\"\n",
	    &errors);
	ck_assert_msg(p != NULL, "%s", errors.n > 0 ? errors.v[0] : "?");
	ck_assert_str_eq(p->partition, "aAA\"\\");
	ck_assert_str_eq(p->qos, "it's");
	ck_assert_str_eq(p->account, "a//b");
	ck_assert_str_eq(p->constraint, "${DDPGEN_NOPE:-x\"y}");
	profile_free(p);
	strlist_free(&errors);
}
END_TEST

/* libconfuse 3.3 counts two lines too many per # or // comment and one
 * per slash-star comment: errors must name the true line. */
START_TEST(test_comment_lines)
{
	parse_fails("# one\n#two\n  ## three\n" BASE "zz = 1\n",
	    "t.conf:6: unknown key 'zz'");
	parse_fails("// one\n//two\n" BASE "zz = 1\n",
	    "t.conf:5: unknown key 'zz'");
	parse_fails("/* one\n two */ /* three */\n/**/\n" BASE "zz = 1\n",
	    "t.conf:6: unknown key 'zz'");
	parse_fails(BASE "qos = q # trailing\naccount = a // too\n"
	    "partition = p /* and\n this */\n\ngpus_per_node = x\n",
	    "t.conf:8: gpus_per_node: 'x' is not an integer");
	parse_fails("# a\n// b\n/* c\n*/\n" BASE "time = \"1:2:3:4\"\n",
	    "t.conf:7: time: bad time '1:2:3:4' (want M, M:S, H:M:S, D-H, "
	    "D-H:M, D-H:M:S or UNLIMITED)");
}
END_TEST

START_TEST(test_error)
{
	char	*text;

	xasprintf(&text, BASE "%s", errs[_i].text);
	parse_fails(text, errs[_i].want);
	free(text);
}
END_TEST

START_TEST(test_missing_required)
{
	parse_fails("scheduler = slurm\n",
	    "t.conf: missing required key 'description'");
	parse_fails("description = d\n",
	    "t.conf: missing required key 'scheduler'");
	parse_fails("", "t.conf: missing required key 'description'\n"
	    "t.conf: missing required key 'scheduler'");
	parse_fails("# only a comment\n",
	    "t.conf: missing required key 'description'\n"
	    "t.conf: missing required key 'scheduler'");
}
END_TEST

/* Every value error of a file is reported, in line order, until a
 * syntax error ends the parse. */
/* LSF: what bsub cannot be told, and Slurm's own requests, are named
 * at their line; jsrun's launch node cannot be the master. */
START_TEST(test_lsf_errors)
{
	struct profile	*p;
	char		*cause = NULL;

	parse_fails("description = d\nscheduler = lsf\n"
	    "job_name = \"say \\\"hi\\\"\"\n"
	    "account = \"$HOME\"\n"
	    "partition = \"a b\"\n"
	    "qos = \"high\"\n"
	    "lsf_launcher = jsrun\n"
	    "discovery = iface\n"
	    "iface = \"^ib0$\"\n",
	    "t.conf:3: job_name: '\"' at offset 4 cannot be written on an "
	    "#BSUB line (LSF documents no quoting there)\n"
	    "t.conf:4: account: '$' at offset 0 cannot be written on an "
	    "#BSUB line (LSF documents no quoting there)\n"
	    "t.conf:6: qos: a key LSF jobs have no word for " LSF_TAKE "\n"
	    "t.conf:8: discovery: 'iface' reads the batch shell's node, "
	    "which lsf_launcher = jsrun leaves out (a launch node): use "
	    "hostname");
	/* The same values are fine for Slurm. */
	p = parse_ok(BASE "job_name = \"say \\\"hi\\\"\"\nqos = \"high\"\n");
	profile_free(p);
	/* Command-line values are checked again after the merge. */
	p = parse_ok("description = d\nscheduler = lsf\n");
	free(p->job_name);
	p->job_name = xstrdup("it's");
	ck_assert_int_eq(profile_validate(p, &cause), -1);
	ck_assert_str_eq(cause, "job_name: ''' at offset 2 cannot be "
	    "written on an #BSUB line (LSF documents no quoting there)");
	free(cause);
	profile_free(p);
}
END_TEST

START_TEST(test_many_errors)
{
	parse_fails(
	    "description = d\n"
	    "scheduler = sge\n"
	    "gpus = 4\n"
	    "gpus_per_node = many\n"
	    "iface = \"[\"\n"
	    "env = {\"OK=1\", \"=x\"}\n"
	    "time = \"25:00:00:00\"\n"
	    "exclusive = perhaps\n"
	    "port_range = {1, 2, 3}\n"
	    "job_name = \"a\\x01\"\n"
	    "qos = {a, b}\n"
	    "task_shell = \"fish\"\n"
	    "port = =\n"
	    "account = never-read\n",
	    "t.conf:2: scheduler: bad value 'sge' (slurm, hpcpack, flux, pbs, lsf or local)\n"
	    "t.conf:3: unknown key 'gpus'\n"
	    "t.conf:4: gpus_per_node: 'many' is not an integer\n"
	    "t.conf:5: iface: bad pattern '[': missing terminating ] for "
	    "character class at offset 1\n"
	    "t.conf:6: env: bad variable name in '=x' "
	    "(want [A-Za-z_][A-Za-z0-9_]*)\n"
	    "t.conf:7: time: bad time '25:00:00:00' (want M, M:S, H:M:S, "
	    "D-H, D-H:M, D-H:M:S or UNLIMITED)\n"
	    "t.conf:8: exclusive: 'perhaps' is not a boolean "
	    "(true or false)\n"
	    "t.conf:9: port_range: value out of range: 1 (1024 to 65535)\n"
	    "t.conf:9: port_range: value out of range: 2 (1024 to 65535)\n"
	    "t.conf:9: port_range: value out of range: 3 (1024 to 65535)\n"
	    "t.conf:10: job_name: control character in 'a\\x01'\n"
	    "t.conf:11: qos: expected one value, got a list of 2\n"
	    "t.conf:12: task_shell: bad value 'fish' "
	    "(login, interactive, plain or login-interactive)\n"
	    "t.conf:13: unexpected token '='");
}
END_TEST

/* Cross-key problems come in file and line order. */
START_TEST(test_cross_order)
{
	parse_fails("description = d\nscheduler = hpcpack\n"
	    "task_shell = plain\nshared_dir = rel\ndiscovery = iface\n",
	    "t.conf:3: task_shell: 'plain' needs path (the node agent's "
	    "PATH is minimal)\n"
	    "t.conf:4: shared_dir: 'rel' is not an absolute path "
	    "(hpcpack nodes exchange addresses there)\n"
	    "t.conf:5: discovery: 'iface' needs an iface pattern");
}
END_TEST

START_TEST(test_syntax)
{
	struct profile	*p;

	/* Later values win; several settings may share a line. */
	p = parse_ok(BASE "job_name = a job_name = b\n"
	    "setup = {\"x\"}\nsetup = {\"y\",\n  \"z\"}\n");
	ck_assert_str_eq(p->job_name, "b");
	ck_assert_uint_eq(p->setup.n, 2);
	ck_assert_str_eq(p->setup.v[0], "y");
	profile_free(p);
	/* Scalars may be given as a one-item list; lists as a scalar. */
	p = parse_ok(BASE "account = {\"m1\"}\nsetup = \"one\"\n");
	ck_assert_str_eq(p->account, "m1");
	ck_assert_uint_eq(p->setup.n, 1);
	profile_free(p);
	/* Single quotes keep backslashes and ${...}. */
	p = parse_ok(BASE "setup = {'echo ${HOME}\\n'}\n");
	ck_assert_str_eq(p->setup.v[0], "echo ${HOME}\\n");
	profile_free(p);
}
END_TEST

/* Nothing is expanded when a profile loads: ${NAME} reaches the script
 * as written, set or not, and "\$" is still a "$". */
START_TEST(test_no_expansion)
{
	struct profile	*p;

	setenv("DDPGEN_TEST_ACCOUNT", "m777", 1);
	unsetenv("DDPGEN_TEST_UNSET");
	p = parse_ok(BASE "account = \"${DDPGEN_TEST_ACCOUNT}\"\n"
	    "setup = {\"echo \\${HOME}\", "
	    "\"export TMPDIR=/scratch/${SLURM_JOB_ID}\", "
	    "\"x=${DDPGEN_TEST_UNSET:-d} $${Y}\"}\n");
	ck_assert_str_eq(p->account, "${DDPGEN_TEST_ACCOUNT}");
	ck_assert_str_eq(p->setup.v[0], "echo ${HOME}");
	ck_assert_str_eq(p->setup.v[1], "export TMPDIR=/scratch/${SLURM_JOB_ID}");
	ck_assert_str_eq(p->setup.v[2], "x=${DDPGEN_TEST_UNSET:-d} $${Y}");
	profile_free(p);
	/* Unquoted, libconfuse would expand it: an error. */
	parse_fails(BASE "\n\nqos = ${DDPGEN_TEST_ACCOUNT}\n",
	    "t.conf:5: unquoted '${DDPGEN_TEST_ACCOUNT}': quote it "
	    "(profiles expand no variables when they load)");
}
END_TEST
/* An option and its value typed with a blank, as after sbatch, become
 * the one word getopt reads the same way: #SBATCH quotes each item as
 * one word, and sbatch took '-w node1' for -w with the value " node1". */
START_TEST(test_sbatch_words)
{
	struct profile		*p;
	const char *const	 want[] = { "-wnode1", "--nodelist=a b",
				    "--mail-type=END", "-x", "--exclusive",
				    "-wnode2", "--x=1 2" };

	p = parse_ok(BASE "sbatch_extra = {\"-w node1\", "
	    "\"--nodelist  a b\", \"--mail-type=END\", \"-x\", "
	    "\"--exclusive\", \"-wnode2\", \"--x=1 2\"}\n");
	list_eq(&p->sbatch_extra, want, 7);
	ck_assert_int_eq(profile_validate(p, NULL), 0);
	profile_free(p);
}
END_TEST

/* ---- extends ---- */

static void
dirs_of(struct strlist *dirs, const char *a, const char *b)
{
	strlist_init(dirs);
	if (a != NULL)
		strlist_addown(dirs, tpath(a));
	if (b != NULL)
		strlist_addown(dirs, tpath(b));
}

/* Loads site, which must succeed. */
static struct profile *
load_ok(const char *site, const struct strlist *dirs)
{
	struct strlist	 errors;
	struct profile	*p;
	char		*got;

	strlist_init(&errors);
	p = profile_load(site, dirs, &errors);
	got = joined(&errors);
	ck_assert_msg(p != NULL, "errors: %s", got);
	ck_assert_str_eq(got, "");
	free(got);
	strlist_free(&errors);
	return p;
}

/* Loads site, which must fail with want, where "@" stands for tmp. */
static void
load_fails(const char *site, const struct strlist *dirs, const char *want)
{
	struct strlist	 errors;
	struct profile	*p;
	struct buf	 w;
	char		*got;

	buf_init(&w);
	for (; *want != '\0'; want++) {
		if (*want == '@')
			buf_adds(&w, tmp);
		else
			buf_addc(&w, *want);
	}
	strlist_init(&errors);
	p = profile_load(site, dirs, &errors);
	got = joined(&errors);
	ck_assert_msg(p == NULL, "loaded %s", site);
	ck_assert_str_eq(got, w.s);
	free(got);
	buf_free(&w);
	strlist_free(&errors);
}

#define PARENT \
	"description = \"the parent\"\n" \
	"scheduler = slurm\n" \
	"account = parent\n" \
	"partition = p1\n" \
	"setup = {\"a\", \"b\"}\n" \
	"env = {\"X=1\"}\n"

START_TEST(test_extends_override)
{
	struct strlist		 dirs;
	struct profile		*p;
	const char *const	 setup[] = { "c" };
	const char *const	 env[] = { "X=1" };
	char			*base, *child;

	put("sys/base.conf", PARENT);
	put("user/child.conf", "extends = \"base\"\naccount = \"m1234\"\n"
	    "setup = {\"c\"}\n");
	dirs_of(&dirs, "user", "sys");
	p = load_ok("child", &dirs);
	ck_assert_str_eq(p->name, "child");
	base = tpath("sys/base.conf");
	child = tpath("user/child.conf");
	ck_assert_str_eq(p->path, child);
	ck_assert_uint_eq(p->chain.n, 2);
	ck_assert_str_eq(p->chain.v[0], base);
	ck_assert_str_eq(p->chain.v[1], child);
	ck_assert_str_eq(p->description, "the parent");
	ck_assert_str_eq(p->account, "m1234");
	ck_assert_str_eq(p->partition, "p1");
	list_eq(&p->setup, setup, 1);	/* replaced, not merged */
	list_eq(&p->env, env, 1);	/* inherited */
	profile_free(p);
	free(base);
	free(child);
	strlist_free(&dirs);
}
END_TEST

START_TEST(test_extends_append)
{
	struct strlist		 dirs;
	struct profile		*p;
	const char *const	 setup[] = { "a", "b", "c", "d" };
	const char *const	 launcher[] = { "torchrun", "--x" };
	const char *const	 env[] = { "Y=2" };

	put("sys/base.conf", PARENT);
	put("sys/child.conf", "extends = base\nsetup += {\"c\"}\n"
	    "setup += \"d\"\nlauncher += {\"--x\"}\n"
	    "env += {\"Z=3\"}\nenv = {\"Y=2\"}\n");
	dirs_of(&dirs, "sys", NULL);
	p = load_ok("child", &dirs);
	list_eq(&p->setup, setup, 4);
	list_eq(&p->launcher, launcher, 2);
	list_eq(&p->env, env, 1);	/* "=" after "+=" replaces */
	profile_free(p);
	/* An empty list replaces too. */
	put("sys/empty.conf", "extends = base\nsetup = {}\n");
	p = load_ok("empty", &dirs);
	ck_assert_uint_eq(p->setup.n, 0);
	profile_free(p);
	strlist_free(&dirs);
}
END_TEST

/* Env entries are keyed by name: a later layer's value replaces the
 * earlier one in its place, one entry per name; so does a later item of
 * one list, and so does profile_env_set (the -e option). */
START_TEST(test_extends_env_by_name)
{
	struct strlist		 dirs;
	struct profile		*p;
	const char *const	 env[] = { "X=1", "OMP_NUM_THREADS=8",
				    "A=3", "B=2" };
	const char *const	 cli[] = { "X=1", "OMP_NUM_THREADS=4",
				    "A=3", "B=2", "C=5" };

	put("sys/base.conf", PARENT "env += {\"OMP_NUM_THREADS=1\"}\n");
	put("sys/child.conf", "extends = base\n"
	    "env += {\"OMP_NUM_THREADS=8\", \"A=1\", \"B=2\", \"A=3\"}\n");
	dirs_of(&dirs, "sys", NULL);
	p = load_ok("child", &dirs);
	list_eq(&p->env, env, 4);
	profile_env_set(&p->env, "OMP_NUM_THREADS=4");
	profile_env_set(&p->env, "C=4");
	profile_env_set(&p->env, "C=5");
	list_eq(&p->env, cli, 5);
	profile_free(p);
	strlist_free(&dirs);
}
END_TEST

/* A template path with a slash is relative to the file that sets it,
 * made absolute; a name without one is left for the template path. */
START_TEST(test_template_relative)
{
	struct strlist	 dirs;
	struct profile	*p;
	char		*want, *real;

	put("sys/base.conf", BASE "template = \"t/c.sh\"\n");
	put("user/child.conf", "extends = \"../sys/base.conf\"\n");
	put("user/named.conf", "extends = \"../sys/base.conf\"\n"
	    "template = \"c.sh\"\n");
	dirs_of(&dirs, "user", NULL);
	p = load_ok("child", &dirs);
	real = realpath(tmp, NULL);
	xasprintf(&want, "%s/sys/t/c.sh", real);
	ck_assert_str_eq(p->template, want);
	profile_free(p);
	p = load_ok("named", &dirs);
	ck_assert_str_eq(p->template, "c.sh");
	profile_free(p);
	free(want);
	free(real);
	strlist_free(&dirs);
}
END_TEST

START_TEST(test_extends_chain3)
{
	struct strlist	 dirs;
	struct profile	*p;
	char		*a, *b, *c;

	put("d/c.conf", "description = c\nscheduler = slurm\n"
	    "job_name = c\nqos = c\naccount = c\n");
	put("d/b.conf", "extends = c\ndescription = b\nqos = b\n"
	    "account = b\n");
	put("d/a.conf", "extends = b\naccount = a\n");
	dirs_of(&dirs, "d", NULL);
	p = load_ok("a", &dirs);
	a = tpath("d/a.conf");
	b = tpath("d/b.conf");
	c = tpath("d/c.conf");
	ck_assert_uint_eq(p->chain.n, 3);
	ck_assert_str_eq(p->chain.v[0], c);
	ck_assert_str_eq(p->chain.v[1], b);
	ck_assert_str_eq(p->chain.v[2], a);
	ck_assert_str_eq(p->description, "b");
	ck_assert_str_eq(p->job_name, "c");
	ck_assert_str_eq(p->qos, "b");
	ck_assert_str_eq(p->account, "a");
	profile_free(p);
	free(a);
	free(b);
	free(c);
	strlist_free(&dirs);
}
END_TEST

START_TEST(test_extends_cycle)
{
	struct strlist	dirs;

	put("d/a.conf", "description = a\nscheduler = slurm\nextends = b\n");
	put("d/b.conf", "extends = a\n");
	put("d/self.conf", "\nextends = \"./self.conf\"\n");
	dirs_of(&dirs, "d", NULL);
	load_fails("a", &dirs, "@/d/b.conf:1: extends cycle: "
	    "@/d/a.conf -> @/d/b.conf -> @/d/a.conf");
	load_fails("self", &dirs, "@/d/self.conf:2: extends cycle: "
	    "@/d/self.conf -> @/d/self.conf");
	strlist_free(&dirs);
}
END_TEST

START_TEST(test_extends_missing)
{
	struct strlist	dirs;

	put("d/a.conf", BASE "extends = nosuch\n");
	put("d/b.conf", BASE "extends = \"sub/nosuch.conf\"\n");
	put("d/c.conf", "extends = \"bad\"\n");
	put("d/bad.conf", "description = x\nscheduler = sge\nextends = a\n");
	dirs_of(&dirs, "d", NULL);
	load_fails("a", &dirs, "@/d/a.conf:3: extends target 'nosuch' "
	    "not found");
	load_fails("b", &dirs, "@/d/b.conf:3: extends target "
	    "'sub/nosuch.conf' not found");
	/* A parent's errors name the parent, and the chain goes on. */
	load_fails("c", &dirs, "@/d/bad.conf:2: scheduler: bad value 'sge' "
	    "(slurm, hpcpack, flux, pbs, lsf or local)\n"
	    "@/d/a.conf:3: extends target 'nosuch' not found");
	strlist_free(&dirs);
}
END_TEST

START_TEST(test_extends_path)
{
	struct strlist	 dirs;
	struct profile	*p;
	char		*child, *abs;

	put("site/base.conf", PARENT);
	put("site/users/me.conf", "extends = \"../base.conf\"\n"
	    "account = mine\n");
	dirs_of(&dirs, NULL, NULL);
	child = tpath("site/users/me.conf");
	p = load_ok(child, &dirs);
	ck_assert_str_eq(p->name, child);
	ck_assert_str_eq(p->account, "mine");
	ck_assert_str_eq(p->partition, "p1");
	profile_free(p);
	/* An absolute path, and a buffer extending a file. */
	abs = tpath("site/base.conf");
	free(child);
	xasprintf(&child, "extends = \"%s\"\nqos = q\n", abs);
	{
		struct strlist	errors;

		strlist_init(&errors);
		p = profile_parse_buf("buf.conf", child, &dirs, &errors);
		ck_assert_ptr_nonnull(p);
		ck_assert_str_eq(p->qos, "q");
		ck_assert_str_eq(p->account, "parent");
		ck_assert_str_eq(p->chain.v[0], abs);
		ck_assert_str_eq(p->chain.v[1], "buf.conf");
		profile_free(p);
		strlist_free(&errors);
	}
	free(abs);
	free(child);
	strlist_free(&dirs);
}
END_TEST

/* A user's cori.conf can extend the shipped cori: a name never resolves
 * to a file already in the chain. */
START_TEST(test_extends_shadow)
{
	struct strlist	 dirs;
	struct profile	*p;

	put("sys/cori.conf", PARENT "qos = regular\n");
	put("user/cori.conf", "extends = cori\naccount = m1\n");
	dirs_of(&dirs, "user", "sys");
	p = load_ok("cori", &dirs);
	ck_assert_str_eq(p->account, "m1");
	ck_assert_str_eq(p->qos, "regular");
	ck_assert_uint_eq(p->chain.n, 2);
	profile_free(p);
	strlist_free(&dirs);
}
END_TEST

START_TEST(test_extends_depth)
{
	struct strlist	 dirs;
	char		 name[32], text[64];
	int		 i;

	put("d/p0.conf", BASE);
	for (i = 1; i <= 16; i++) {
		snprintf(name, sizeof name, "d/p%d.conf", i);
		snprintf(text, sizeof text, "extends = p%d\n", i - 1);
		put(name, text);
	}
	dirs_of(&dirs, "d", NULL);
	profile_free(load_ok("p15", &dirs));
	load_fails("p16", &dirs, "@/d/p1.conf:1: extends chain longer "
	    "than 16 files");
	strlist_free(&dirs);
}
END_TEST

/* ---- Search path and sites ---- */

static const char *const *fake_env;

static const char *
fake_getenv(const char *name)
{
	size_t	i;

	for (i = 0; fake_env[i] != NULL; i += 2)
		if (strcmp(fake_env[i], name) == 0)
			return fake_env[i + 1];
	return NULL;
}

static void
path_is(const char *const *env, const char *exedir,
    const char *const *want, size_t n)
{
	struct strlist	dirs;

	fake_env = env;
	strlist_init(&dirs);
	profile_searchpath(&dirs, fake_getenv, exedir);
	list_eq(&dirs, want, n);
	strlist_free(&dirs);
}

START_TEST(test_searchpath)
{
	const char *const env1[] = { "DDPGEN_PROFILE_PATH", "/a::/b",
	    "XDG_CONFIG_HOME", "/xdg", "HOME", "/home/u", NULL };
	const char *const want1[] = { "/a", "/b", "/xdg/ddpgen/profiles",
	    DDPGEN_SYSCONFDIR "/profiles", DDPGEN_DATADIR "/profiles" };
	const char *const env2[] = { "XDG_CONFIG_HOME", "", "HOME",
	    "/home/u", NULL };
	const char *const want2[] = { "/home/u/.config/ddpgen/profiles",
	    DDPGEN_SYSCONFDIR "/profiles", DDPGEN_DATADIR "/profiles" };
	const char *const env3[] = { "XDG_CONFIG_HOME", "rel", NULL };
	const char *const want3[] = { DDPGEN_SYSCONFDIR "/profiles",
	    DDPGEN_DATADIR "/profiles" };

	path_is(env1, NULL, want1, 5);
	path_is(env2, NULL, want2, 3);
	path_is(env3, NULL, want3, 2);
	/* An exedir without profiles/ changes nothing. */
	path_is(env3, tmp, want3, 2);
}
END_TEST

START_TEST(test_searchpath_exedir)
{
	const char *const	 env[] = { "HOME", "/h", NULL };
	const char		*want[3];
	char			*prof = tpath("profiles");

	mkdir(prof, 0755);
	want[0] = "/h/.config/ddpgen/profiles";
	want[1] = DDPGEN_SYSCONFDIR "/profiles";
	want[2] = prof;			/* instead of DATADIR's */
	path_is(env, tmp, want, 3);
	free(prof);
}
END_TEST

START_TEST(test_site_lookup)
{
	struct strlist	 dirs;
	struct profile	*p;

	put("one/x.conf", "description = first\nscheduler = slurm\n");
	put("two/x.conf", "description = second\nscheduler = slurm\n");
	put("two/y.conf", "description = why\nscheduler = slurm\n");
	dirs_of(&dirs, "one", "two");
	p = load_ok("x", &dirs);
	ck_assert_str_eq(p->description, "first");
	profile_free(p);
	p = load_ok("y", &dirs);
	ck_assert_str_eq(p->description, "why");
	profile_free(p);
	strlist_free(&dirs);
}
END_TEST

START_TEST(test_unknown_site)
{
	struct strlist	dirs;

	put("one/b.conf", "");
	put("one/.hidden.conf", "");
	put("one/notes.txt", "");
	put("two/a.conf", "");
	put("two/b.conf", "");
	dirs_of(&dirs, "one", "two");
	strlist_add(&dirs, "/nonexistent/dir");
	load_fails("zz", &dirs, "unknown site 'zz' (known: a, b)");
	strlist_free(&dirs);
	dirs_of(&dirs, "none", NULL);
	load_fails("zz", &dirs,
	    "unknown site 'zz' (no profiles along the search path)");
	load_fails("./missing.conf", &dirs,
	    "./missing.conf: No such file or directory");
	strlist_free(&dirs);
}
END_TEST

START_TEST(test_list)
{
	struct strlist		 dirs;
	struct profile_site	*v;
	size_t			 n;
	char			*b1, *want;

	put("one/b.conf", "description = \"b one\"\nscheduler = slurm\n");
	put("one/a.conf", "zz = 1\n");
	put("two/b.conf", "description = \"b two\"\nscheduler = slurm\n");
	put("two/c.conf", "extends = b\n");
	dirs_of(&dirs, "one", "two");
	n = profile_list(&dirs, &v);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(v[0].name, "a");
	xasprintf(&want, "(error: %s/one/a.conf:1: unknown key 'zz')", tmp);
	ck_assert_str_eq(v[0].description, want);
	ck_assert_str_eq(v[1].name, "b");
	ck_assert_str_eq(v[1].description, "b one");
	b1 = tpath("one/b.conf");
	ck_assert_str_eq(v[1].path, b1);
	ck_assert_str_eq(v[2].name, "c");
	ck_assert_str_eq(v[2].description, "b one");
	profile_sites_free(v, n);
	free(b1);
	free(want);
	strlist_free(&dirs);
}
END_TEST

/* ---- Dump ---- */

/* The dump without its comment lines (which name the files). */
static char *
dump_body(const struct profile *p)
{
	struct buf	 b;
	char		*s;

	buf_init(&b);
	profile_dump(p, &b);
	s = b.s;
	while (*s == '#')
		s = strchr(s, '\n') + 1;
	s = xstrdup(s);
	buf_free(&b);
	return s;
}

static void	dump_again(const struct profile *);

static void
roundtrip(const char *text)
{
	struct profile	*p = parse_ok(text);

	dump_again(p);
	profile_free(p);
}

START_TEST(test_dump_format)
{
	struct profile	*p;
	char		*d;

	p = parse_ok(BASE "setup = {\"say \\\"hi\\\"\", \"a\\\\b\"}\n"
	    "iface = \"^eth3$\"\ndiscovery = iface\nport = 29500\n");
	d = dump_body(p);
	ck_assert_str_eq(d,
	    "description = \"d\"\n"
	    "scheduler = \"slurm\"\n"
	    "discovery = \"iface\"\n"
	    "iface = \"^eth3$\"\n"
	    "comm_iface = \"\"\n"
	    "gpus_per_node = 0\n"
	    "nproc_per_node = 0\n"
	    "job_name = \"ddp\"\n"
	    "job_output = \"ddp-%j.out\"\n"
	    "partition = \"\"\n"
	    "account = \"\"\n"
	    "qos = \"\"\n"
	    "constraint = \"\"\n"
	    "time = \"\"\n"
	    "cpus_per_task = 0\n"
	    "label_output = true\n"
	    "sbatch_extra = {}\n"
	    "env = {}\n"
	    "env_default = {}\n"
	    "setup = {\"say \\\"hi\\\"\", \"a\\\\b\"}\n"
	    "launcher = {\"torchrun\"}\n"
	    "launcher_args = {}\n"
	    "port = 29500\n"
	    "port_range = {20000, 29999}\n"
	    "rdzv = \"static\"\n"
	    "template = \"slurm.sh\"\n"
	    "ddprank = \"\"\n"
	    "preflight = true\n"
	    "preflight_torch = false\n"
	    "bind = \"none\"\n"
	    "bind_reserve = \"\"\n"
	    "bind_nic_var = \"\"\n"
	    "container = \"none\"\n"
	    "image = \"\"\n"
	    "container_mounts = {}\n"
	    "container_args = {}\n"
	    "container_modules = {}\n"
	    "node_group = \"\"\n"
	    "shared_dir = \"/app\"\n"
	    "task_shell = \"login-interactive\"\n"
	    "path = \"\"\n"
	    "exclusive = true\n"
	    "c10d_shared = false\n"
	    "fail_on_task_failure = true\n"
	    "exchange_timeout = 300\n"
	    "requeue = false\n"
	    "signal_lead = 120\n"
	    "checkpoint_signal = \"USR2\"\n"
	    "max_requeues = 3\n"
	    "max_restarts = 0\n"
	    "hang_timeout = 0\n"
	    "hang_dir = \"\"\n"
	    "max_failures = 3\n"
	    "bad_node_hours = 24\n"
	    "filesystems = \"\"\n"
	    "pbs_select = \"\"\n"
	    "pbs_launcher = \"mpiexec\"\n"
	    "lsf_launcher = \"blaunch\"\n");
	free(d);
	profile_free(p);
}
END_TEST

START_TEST(test_dump_header)
{
	struct profile	*p;
	struct buf	 b;

	p = parse_ok(BASE);
	buf_init(&b);
	profile_dump(p, &b);
	ck_assert_int_eq(strncmp(b.s, "# resolved profile t.conf\n"
	    "# from t.conf\ndescription = \"d\"\n", 58), 0);
	buf_free(&b);
	profile_free(p);
}
END_TEST

START_TEST(test_dump_roundtrip)
{
	roundtrip(BASE);
	roundtrip("description = \"quotes \\\" and \\\\ and 'single' # not "
	    "a comment\"\nscheduler = hpcpack\nrdzv = c10d\n"
	    "task_shell = interactive\nport = 1\n"
	    "port_range = {1024, 1024}\nexclusive = off\nc10d_shared = on\n"
	    "setup = {\"line one\\nline two\", \"tab\\there\", "
	    "\"echo \\${HOME} $PATH \\${ $\", \"bell\\a\", \"\", "
	    "\"utf-8: \xc3\xa9\"}\n"
	    "env = {\"A=${}\", \"B=\\${X}\"}\n"
	    "launcher = {\"a b\", \"{}\", \"=\", \"+=\", \",\"}\n"
	    "iface = \"^(eth|ib)\\\\d+$\"\ndiscovery = iface\n"
	    "time = UNLIMITED\npath = \"/opt/x y/bin\"\n");
}
END_TEST

/* ---- Shipped profiles ---- */

/* profiles/ of the source tree: $srcdir, else beside the test
 * binary's directory, else the current directory. */
static char *
shipped_dir(void)
{
	const char	*src = getenv("srcdir");
	char		 exe[PATH_MAX], *slash, *s;
	ssize_t		 n;

	if (src != NULL && *src != '\0') {
		xasprintf(&s, "%s/profiles", src);
		return s;
	}
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL) {
			*slash = '\0';
			xasprintf(&s, "%s/../profiles", exe);
			if (access(s, F_OK) == 0)
				return s;
			free(s);
		}
	}
	return xstrdup("./profiles");
}

/* The dump of p parses back to the same dump. */
static void
dump_again(const struct profile *p)
{
	struct strlist	 errors, dirs;
	struct profile	*q;
	struct buf	 b;
	char		*d1, *d2;

	buf_init(&b);
	profile_dump(p, &b);
	strlist_init(&dirs);
	strlist_init(&errors);
	q = profile_parse_buf("dump.conf", b.s, &dirs, &errors);
	ck_assert_msg(q != NULL, "dump does not parse: %s\n%s",
	    errors.n > 0 ? errors.v[0] : "", b.s);
	d1 = dump_body(p);
	d2 = dump_body(q);
	ck_assert_str_eq(d1, d2);
	free(d1);
	free(d2);
	buf_free(&b);
	profile_free(q);
	strlist_free(&errors);
	strlist_free(&dirs);
}

static const char *const shipped[] = { "cori", "frontier", "hpcpack",
    "local", "lsf", "lsf-csm", "plmt", "polaris", "slurm", "tuolumne" };

START_TEST(test_shipped_valid)
{
	struct strlist	 dirs;
	struct profile	*p;
	char		*cause = NULL;

	strlist_init(&dirs);
	strlist_addown(&dirs, shipped_dir());
	p = load_ok(shipped[_i], &dirs);
	ck_assert_msg(profile_validate(p, &cause) == 0, "%s: %s",
	    shipped[_i], cause);
	ck_assert_str_ne(p->description, "");
	ck_assert_uint_eq(p->chain.n, 1);
	dump_again(p);
	profile_free(p);
	strlist_free(&dirs);
}
END_TEST

/* --local: a site's job on this machine: what it runs from the site, where
 * it runs from local.conf, and no request local jobs have no word for. */
START_TEST(test_localize)
{
	struct strlist	 dirs;
	struct profile	*site, *p;
	char		*cause = NULL;

	strlist_init(&dirs);
	strlist_addown(&dirs, shipped_dir());
	site = load_ok("plmt", &dirs);
	p = load_ok("local", &dirs);
	ck_assert_int_eq(p->scheduler, SCHED_LOCAL);
	ck_assert_int_eq(p->preflight, 0);
	profile_localize(p, site);
	ck_assert_int_eq(p->scheduler, SCHED_LOCAL);
	ck_assert_str_eq(p->template, "local.sh");
	ck_assert_int_eq(p->discovery, PROFILE_HOSTNAME);
	ck_assert_str_eq(p->iface, "");
	ck_assert_str_eq(p->comm_iface, "^lo$");
	ck_assert_int_eq(p->gpus_per_node, 0);
	ck_assert_int_eq(p->preflight, 0);
	ck_assert_int_ne(site->bind, BIND_NONE);
	ck_assert_int_eq(p->bind, BIND_NONE);
	ck_assert_str_eq(p->constraint, "");
	ck_assert_str_eq(p->setup.v[0], "module load pytorch");
	ck_assert_uint_eq(p->env.n, site->env.n);
	ck_assert_uint_eq(p->env_default.n, site->env_default.n);
	ck_assert_int_eq(p->requeue, site->requeue);
	ck_assert_str_eq(p->setup_at, site->setup_at);
	ck_assert_uint_eq(p->chain.n, 2);
	ck_assert_msg(profile_validate(p, &cause) == 0, "%s", cause);
	profile_free(site);
	profile_free(p);
	strlist_free(&dirs);
}
END_TEST

START_TEST(test_shipped_facts)
{
	struct strlist		 dirs;
	struct profile		*p;
	struct profile_site	*v;
	size_t			 i, n;

	strlist_init(&dirs);
	strlist_addown(&dirs, shipped_dir());
	p = load_ok("cori", &dirs);
	ck_assert_int_eq(p->discovery, PROFILE_IFACE);
	ck_assert_str_eq(p->iface, "^eth3$");
	ck_assert_str_eq(p->constraint, "haswell");
	ck_assert_str_eq(p->account, "");
	ck_assert_str_eq(p->setup.v[0], "module load pytorch");
	profile_free(p);
	p = load_ok("plmt", &dirs);
	ck_assert_str_eq(p->iface, "^nmn0$");
	ck_assert_int_eq(p->gpus_per_node, 4);
	ck_assert_int_eq(profile_nproc(p), 4);
	ck_assert_str_eq(p->constraint, "gpu");
	ck_assert_str_eq(p->setup.v[0], "module load pytorch");
	profile_free(p);
	p = load_ok("hpcpack", &dirs);
	ck_assert_int_eq(p->scheduler, SCHED_HPCPACK);
	ck_assert_int_eq(p->rdzv, RDZV_STATIC);
	ck_assert_str_eq(p->shared_dir, "/app");
	ck_assert_int_eq(p->task_shell, PROFILE_SHELL_LOGIN_INTERACTIVE);
	ck_assert_str_eq(p->template, "hpcpack.xml");
	profile_free(p);
	p = load_ok("slurm", &dirs);
	ck_assert_int_eq(p->discovery, PROFILE_HOSTNAME);
	ck_assert_str_eq(p->partition, "");
	/* Long trainings are carried on by the shipped Slurm profiles. */
	ck_assert_int_eq(p->requeue, 1);
	ck_assert_int_eq(p->max_requeues, 3);
	ck_assert_int_eq(p->checkpoint_signal, PROFILE_SIG_USR2);
	profile_free(p);
	/* Flux's: its queue, one process per APU, the continuation. */
	p = load_ok("tuolumne", &dirs);
	ck_assert_int_eq(p->scheduler, SCHED_FLUX);
	ck_assert_str_eq(p->iface, "^hsi0$");
	ck_assert_int_eq(profile_nproc(p), 4);
	ck_assert_str_eq(p->partition, "pbatch");
	ck_assert_int_eq(p->requeue, 1);
	profile_free(p);
	/* ALCF's settings, and the launcher Polaris documents. */
	p = load_ok("polaris", &dirs);
	ck_assert_int_eq(p->scheduler, SCHED_PBS);
	ck_assert_str_eq(p->template, "pbs.sh");
	ck_assert_str_eq(p->iface, "^hsn0$");
	ck_assert_int_eq(p->gpus_per_node, 4);
	ck_assert_str_eq(p->filesystems, "home:eagle");
	ck_assert_str_eq(p->pbs_select, "system=polaris");
	ck_assert_int_eq(p->pbs_launcher, PROFILE_PBS_MPIEXEC);
	ck_assert_str_eq(p->env.v[3], "NCCL_NET=AWS Libfabric");
	ck_assert_int_eq(p->requeue, 1);
	profile_free(p);
	p = load_ok("lsf", &dirs);
	ck_assert_int_eq(p->scheduler, SCHED_LSF);
	ck_assert_int_eq(p->lsf_launcher, PROFILE_LSF_BLAUNCH);
	ck_assert_str_eq(p->template, "lsf.sh");
	ck_assert_str_eq(p->job_output, "ddp-%J.out");
	ck_assert_int_eq(p->requeue, 1);
	profile_free(p);
	p = load_ok("lsf-csm", &dirs);
	ck_assert_int_eq(p->lsf_launcher, PROFILE_LSF_JSRUN);
	ck_assert_int_eq(p->discovery, PROFILE_HOSTNAME);
	profile_free(p);
	n = profile_list(&dirs, &v);
	ck_assert_uint_eq(n, 10);
	for (i = 0; i < n; i++) {
		ck_assert_str_eq(v[i].name, shipped[i]);
		ck_assert_msg(strncmp(v[i].description, "(error", 6) != 0,
		    "%s", v[i].description);
	}
	profile_sites_free(v, n);
	strlist_free(&dirs);
}
END_TEST

/* The example of ddpgen-profile(5): cori, but my account. */
START_TEST(test_shipped_extend)
{
	struct strlist	 dirs;
	struct profile	*p;
	char		*text;

	put("mysite.conf", "extends = \"cori\"\naccount = \"m1234\"\n");
	strlist_init(&dirs);
	strlist_addown(&dirs, shipped_dir());
	text = tpath("mysite.conf");
	p = load_ok(text, &dirs);
	ck_assert_str_eq(p->account, "m1234");
	ck_assert_str_eq(p->iface, "^eth3$");
	ck_assert_uint_eq(p->chain.n, 2);
	ck_assert_int_eq(profile_validate(p, NULL), 0);
	profile_free(p);
	free(text);
	strlist_free(&dirs);
}
END_TEST

/* ---- Time and validation ---- */

START_TEST(test_time)
{
	static const struct {
		const char	*s;
		long long	 secs;
	} good[] = {
		{ "30", 1800 }, { "30:15", 1815 }, { "90:00", 5400 },
		{ "1:00:00", 3600 }, { "100:00:00", 360000 },
		{ "2-0", 172800 }, { "2-3:04", 183840 },
		{ "1-2:03:04", 93784 }, { "0-0:0:1", 1 },
		{ "UNLIMITED", -1 }, { "infinite", -1 }, { "0", -1 },
	};
	static const char *bad[] = {
		"", "1:2:3:4", "a", "1:60", "0:0:60", "1:60:00", "-1", "1-",
		"1-24", "1-2:60", "1:", ":1", "1::2", " 1", "1 ", "1-2-3",
		"123456789", "+5", "1h", "-", "1-2:3:4:5", "unlimited2",
	};
	long long	secs;
	size_t		i;

	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		secs = -2;
		ck_assert_msg(profile_parse_time(good[i].s, &secs) == 0,
		    "rejected %s", good[i].s);
		ck_assert_msg(secs == good[i].secs, "%s: %lld", good[i].s,
		    secs);
		ck_assert_int_eq(profile_parse_time(good[i].s, NULL), 0);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(profile_parse_time(bad[i], &secs) == -1,
		    "accepted '%s'", bad[i]);
}
END_TEST

static void
set(char **field, const char *value)
{
	free(*field);
	*field = xstrdup(value);
}

static void
invalid(struct profile *p, const char *want)
{
	char	*cause = NULL;

	ck_assert_int_eq(profile_validate(p, &cause), -1);
	ck_assert_str_eq(cause, want);
	free(cause);
}

START_TEST(test_validate)
{
	struct profile	*p;
	char		*cause = NULL;

	p = parse_ok(BASE);
	ck_assert_int_eq(profile_validate(p, &cause), 0);
	ck_assert_ptr_null(cause);
	/* --iface sets the pattern and the discovery. */
	p->discovery = PROFILE_IFACE;
	invalid(p, "discovery: 'iface' needs an iface pattern");
	set(&p->iface, "^eth[");
	invalid(p, "iface: bad pattern '^eth[': missing terminating ] for "
	    "character class at offset 5");
	set(&p->iface, "^eth3$");
	ck_assert_int_eq(profile_validate(p, NULL), 0);
	p->port = 70000;
	invalid(p, "port: '70000' is not auto or a number from 1 to 65535");
	p->port = 29500;
	ck_assert_int_eq(profile_validate(p, NULL), 0);
	p->port_min = 30000;
	invalid(p, "port_range: low port 30000 above high port 29999");
	p->port_min = 80;
	invalid(p, "port_range: value out of range: {80, 29999} "
	    "(1024 to 65535)");
	p->port_min = 20000;
	set(&p->time, "2:99");
	invalid(p, "time: bad time '2:99' (want M, M:S, H:M:S, D-H, D-H:M, "
	    "D-H:M:S or UNLIMITED)");
	/* The warning must come after the start. */
	set(&p->time, "2");
	p->requeue = 1;
	invalid(p, "signal_lead: 120 s is not shorter than the time limit "
	    "'2'");
	p->signal_lead = 60;
	ck_assert_int_eq(profile_validate(p, NULL), 0);
	p->requeue = 0;
	p->signal_lead = 120;
	set(&p->time, "2:00:00");
	strlist_add(&p->env, "BAD NAME=1");
	invalid(p, "env: bad variable name in 'BAD NAME=1' "
	    "(want [A-Za-z_][A-Za-z0-9_]*)");
	strlist_free(&p->env);
	strlist_init(&p->env);
	set(&p->partition, "gpu\n#SBATCH --x");
	invalid(p, "partition: control character in 'gpu\\n#SBATCH --x'");
	set(&p->partition, "gpu");
	set(&p->job_name, "a\tb");
	invalid(p, "job_name: control character in 'a\\tb'");
	set(&p->job_name, "ddp");
	strlist_add(&p->sbatch_extra, "--comment=x\ny");
	invalid(p, "sbatch_extra: control character in '--comment=x\\ny'");
	strlist_free(&p->sbatch_extra);
	strlist_init(&p->sbatch_extra);
	p->gpus_per_node = 5000;
	invalid(p, "gpus_per_node: value out of range: 5000 (0 to 1024)");
	p->gpus_per_node = 2;
	p->nproc_per_node = 3;
	invalid(p, "nproc_per_node: 3 processes for 2 GPUs per node "
	    "(one GPU each at most)");
	p->nproc_per_node = 0;
	p->scheduler = SCHED_HPCPACK;
	invalid(p, "partition: a key HPC Pack jobs have no word for "
	    HPC_TAKE);
	set(&p->partition, "");
	set(&p->shared_dir, "");
	invalid(p, "shared_dir: '' is not an absolute path (hpcpack nodes "
	    "exchange addresses there)");
	set(&p->shared_dir, "/app");
	ck_assert_int_eq(profile_validate(p, NULL), 0);
	profile_free(p);
}
END_TEST

static Suite *
profile_suite(void)
{
	Suite	*s = suite_create("profile");
	TCase	*tc;

	tc = tcase_create("keys");
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_defaults_depend);
	tcase_add_test(tc, test_every_key);
	tcase_add_test(tc, test_bind_keys);
	tcase_add_test(tc, test_requests);
	tcase_add_test(tc, test_sched_keys);
	tcase_add_loop_test(tc, test_enums, 0,
	    sizeof enums / sizeof enums[0]);
	tcase_add_test(tc, test_row_enums);
	tcase_add_test(tc, test_bools);
	tcase_add_test(tc, test_port_auto);
	tcase_add_test(tc, test_syntax);
	tcase_add_test(tc, test_no_expansion);
	tcase_add_test(tc, test_sbatch_words);
	tcase_add_test(tc, test_comment_lines);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_lexer_accepts);
	tcase_add_loop_test(tc, test_error, 0, sizeof errs / sizeof errs[0]);
	tcase_add_test(tc, test_missing_required);
	tcase_add_test(tc, test_many_errors);
	tcase_add_test(tc, test_lsf_errors);
	tcase_add_test(tc, test_cross_order);
	suite_add_tcase(s, tc);

	tc = tcase_create("extends");
	tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_add_test(tc, test_unterminated_then_more);
	tcase_add_test(tc, test_extends_override);
	tcase_add_test(tc, test_extends_append);
	tcase_add_test(tc, test_extends_env_by_name);
	tcase_add_test(tc, test_template_relative);
	tcase_add_test(tc, test_extends_chain3);
	tcase_add_test(tc, test_extends_cycle);
	tcase_add_test(tc, test_extends_missing);
	tcase_add_test(tc, test_extends_path);
	tcase_add_test(tc, test_extends_shadow);
	tcase_add_test(tc, test_extends_depth);
	suite_add_tcase(s, tc);

	tc = tcase_create("search");
	tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_add_test(tc, test_searchpath);
	tcase_add_test(tc, test_searchpath_exedir);
	tcase_add_test(tc, test_site_lookup);
	tcase_add_test(tc, test_unknown_site);
	tcase_add_test(tc, test_list);
	suite_add_tcase(s, tc);

	tc = tcase_create("dump");
	tcase_add_test(tc, test_dump_format);
	tcase_add_test(tc, test_dump_header);
	tcase_add_test(tc, test_dump_roundtrip);
	suite_add_tcase(s, tc);

	tc = tcase_create("shipped");
	tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_add_loop_test(tc, test_shipped_valid, 0,
	    sizeof shipped / sizeof shipped[0]);
	tcase_add_test(tc, test_shipped_facts);
	tcase_add_test(tc, test_localize);
	tcase_add_test(tc, test_shipped_extend);
	suite_add_tcase(s, tc);

	tc = tcase_create("validate");
	tcase_add_test(tc, test_time);
	tcase_add_test(tc, test_validate);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(profile_suite());
}
