/* check_doctor.c: unit tests for ddprank doctor: each check with fakes,
 * the wire format, the report, and two nodes over loopback. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <limits.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "auth.h"
#include "doctor.h"
#include "scheduler.h"
#include "netif.h"
#include "nodes.h"
#include "port.h"
#include "rank.h"
#include "rx.h"
#include "testlib.h"
#include "util.h"
#include "xmalloc.h"

/* One node: what its interfaces, name, resolver, /dev, PATH and
 * shared directory look like. */
struct fake {
	const char		*hostname;
	const struct t_if	*ifs;
	const char		*self_addr;	/* what hostname resolves to */
	const char *const	*devs;		/* entries of /dev */
	const char *const	*dri;		/* entries of /dev/dri */
	const char *const	*exes;		/* executable paths */
	const char *const	*env;
	int			 shared_ok;
	const char		*shebang;	/* first line of any file */
	int			 run_rc;	/* what run returns */
	const char		*run_err;
	char			*ran;		/* argv[0] it was given */
};

static struct fake	f;

/* The node's interfaces: eth3 up, eth3 down, or eth9 instead. */
static const struct t_if eth3_up[] = {
	{ "lo", 1, "127.0.0.1", 8 },
	{ "eth3", 1, "10.3.0.2", 16 },
	{ NULL, 0, NULL, 0 }
};
static const struct t_if eth3_down[] = {
	{ "lo", 1, "127.0.0.1", 8 },
	{ "eth3", 0, "10.3.0.2", 16 },
	{ NULL, 0, NULL, 0 }
};
static const struct t_if no_eth3[] = {
	{ "lo", 1, "127.0.0.1", 8 },
	{ "eth9", 1, "10.3.0.2", 16 },
	{ NULL, 0, NULL, 0 }
};

static int
fake_ifaddrs(void *arg, struct netif_list *l, char **cause)
{
	struct fake	*x = arg;

	(void)cause;
	t_net_ifs(l, x->ifs);
	return 0;
}

static int
fake_hostname(void *arg, char *buf, size_t len, char **cause)
{
	struct fake	*x = arg;

	(void)cause;
	snprintf(buf, len, "%s", x->hostname);
	return 0;
}

static int
fake_resolve(void *arg, const char *host, struct netif_addrs *addrs,
    char **cause)
{
	struct fake		*x = arg;
	struct netif_addr	 a;

	if (x->self_addr == NULL)
		return util_fail(cause, "cannot resolve '%s'", host);
	ck_assert_int_eq(netif_addr_parse(&a, x->self_addr), 0);
	netif_addrs_add(addrs, &a);
	return 0;
}

static int
fake_list(void *arg, const char *dir, struct strlist *names)
{
	struct fake		*x = arg;
	const char *const	*v;

	v = strcmp(dir, "/dev") == 0 ? x->devs : x->dri;
	for (; v != NULL && *v != NULL; v++)
		strlist_add(names, *v);
	return 0;
}

static int
fake_executable(void *arg, const char *path)
{
	struct fake		*x = arg;
	const char *const	*v;

	for (v = x->exes; v != NULL && *v != NULL; v++) {
		if (strcmp(*v, path) == 0)
			return 1;
	}
	return 0;
}

static int
fake_writable(void *arg, const char *dir, char **cause)
{
	struct fake	*x = arg;

	if (x->shared_ok)
		return 0;
	return util_fail(cause, "%s: cannot create a file: Permission "
	    "denied", dir);
}

static int
fake_run(void *arg, char *const *argv, int ms, int *took_ms, char **err)
{
	struct fake	*x = arg;

	ck_assert_int_eq(ms, 1000);
	ck_assert_str_eq(argv[1], "-c");
	ck_assert_ptr_nonnull(strstr(argv[2], "import torch\n"));
	x->ran = xstrdup(argv[0]);
	*took_ms = 2345;
	*err = x->run_err != NULL ? xstrdup(x->run_err) : NULL;
	return x->run_rc;
}

static int
fake_firstline(void *arg, const char *path, char *buf, size_t len)
{
	struct fake	*x = arg;

	(void)path;
	if (x->shebang == NULL)
		return -1;
	snprintf(buf, len, "%s", x->shebang);
	return 0;
}

static char *const *
fake_environ(void *arg)
{
	struct fake	*x = arg;

	return (char *const *)(uintptr_t)x->env;
}

static struct nodes_env		env;
static struct netif_sys		net;
static struct doctor_sys	sys;
static struct rank_opts		ro;
static struct doctor_opts	o;
static struct rx		rx;
static struct doctor_node	n;

static const char *const path_only[] = { "PATH=/usr/bin", NULL };

static void
setup(void)
{
	memset(&f, 0, sizeof f);
	f.hostname = "nid02";
	f.ifs = eth3_up;
	f.self_addr = "10.3.0.2";
	f.env = path_only;
	f.shared_ok = 1;
	env = t_env(f.env);
	net = (struct netif_sys){ fake_ifaddrs, fake_hostname, fake_resolve,
	    &f };
	sys = (struct doctor_sys){ &env, &net, fake_list, fake_executable,
	    fake_writable, fake_environ, fake_run, fake_firstline, NULL, &f };
	memset(&ro, 0, sizeof ro);
	ro.lo = 20000;
	ro.hi = 29999;
	memset(&o, 0, sizeof o);
	o.ro = &ro;
	o.wait = 1;
	doctor_node_init(&n);
}

static void
teardown(void)
{
	if (ro.rx != NULL)
		rx_free(&rx);
	doctor_node_free(&n);
}

static void
set_env(const char *const *vars)
{
	f.env = vars;
	env = t_env(vars);
}

static void
use_iface(const char *pattern)
{
	char	*cause = NULL;

	ck_assert_int_eq(rx_compile(&rx, pattern, &cause), 0);
	ro.rx = &rx;
	ro.iface = pattern;
}

static void
expect(enum doctor_check c, enum doctor_level l, const char *detail)
{
	ck_assert_ptr_nonnull(n.f[c].detail);
	ck_assert_int_eq(n.f[c].level, l);
	ck_assert_str_eq(n.f[c].detail, detail);
}

/* --- the checks ---------------------------------------------------------- */

START_TEST(test_iface)
{
	doctor_check_iface(&n, &o, &sys);
	ck_assert_ptr_null(n.f[DOCTOR_IFACE].detail);	/* no --iface */
	use_iface("^eth3$");
	doctor_check_iface(&n, &o, &sys);
	expect(DOCTOR_IFACE, DOCTOR_PASS, "eth3 is up with 10.3.0.2");
	ck_assert_str_eq(n.src, "10.3.0.2");
	f.ifs = eth3_down;
	doctor_check_iface(&n, &o, &sys);
	expect(DOCTOR_IFACE, DOCTOR_FAIL, "no interface matching '^eth3$' "
	    "is up with an IP address; interfaces: lo 127.0.0.1, eth3 "
	    "10.3.0.2 (down)");
	f.ifs = no_eth3;
	doctor_check_iface(&n, &o, &sys);
	expect(DOCTOR_IFACE, DOCTOR_FAIL, "no interface matches '^eth3$'; "
	    "interfaces: lo 127.0.0.1, eth9 10.3.0.2");
}
END_TEST

/* Field report 3, rough edge 5: what exec refuses with exit 5, the
 * doctor finds first: --comm-iface that matches nothing, and c10d with
 * a host name that does not lead to the --iface interface. */
START_TEST(test_iface_exec)
{
	struct rx	comm;
	char		*cause = NULL;

	ck_assert_int_eq(rx_compile(&comm, "^hsn[0-9]+$", &cause), 0);
	o.comm_rx = &comm;
	o.comm_iface = "^hsn[0-9]+$";
	doctor_check_iface(&n, &o, &sys);
	expect(DOCTOR_IFACE, DOCTOR_FAIL, "--comm-iface: no interface matches "
	    "'^hsn[0-9]+$'; interfaces: lo 127.0.0.1, eth3 10.3.0.2");
	use_iface("^eth3$");
	doctor_check_iface(&n, &o, &sys);
	expect(DOCTOR_IFACE, DOCTOR_FAIL, "--comm-iface: no interface matches "
	    "'^hsn[0-9]+$'; interfaces: lo 127.0.0.1, eth3 10.3.0.2");
	/* Both variables set: exec needs no match either. */
	set_env(ENV("GLOO_SOCKET_IFNAME=eth3", "NCCL_SOCKET_IFNAME=eth3"));
	doctor_check_iface(&n, &o, &sys);
	expect(DOCTOR_IFACE, DOCTOR_PASS, "eth3 is up with 10.3.0.2");
	rx_free(&comm);
	ck_assert_int_eq(rx_compile(&comm, "^(eth|lo)", &cause), 0);
	doctor_check_iface(&n, &o, &sys);
	expect(DOCTOR_IFACE, DOCTOR_PASS, "eth3 is up with 10.3.0.2");
	set_env(path_only);
	doctor_check_iface(&n, &o, &sys);
	expect(DOCTOR_IFACE, DOCTOR_PASS, "eth3 is up with 10.3.0.2; Gloo and "
	    "NCCL on lo,eth3");
	rx_free(&comm);
	o.comm_rx = NULL;
	/* c10d: the name resolves to eth3's address, then to another. */
	o.c10d = 1;
	doctor_check_iface(&n, &o, &sys);
	expect(DOCTOR_IFACE, DOCTOR_PASS, "eth3 is up with 10.3.0.2");
	f.self_addr = "10.9.0.2";
	doctor_check_iface(&n, &o, &sys);
	expect(DOCTOR_IFACE, DOCTOR_FAIL, "--rdzv c10d: torchrun gives the "
	    "workers this node's host name 'nid02' as MASTER_ADDR, which "
	    "resolves to 10.9.0.2, not to 10.3.0.2 of interface eth3; use "
	    "--rdzv static with --iface (cannot tell which python runs "
	    "'torchrun'; torchrun 2.3 and later take PET_LOCAL_ADDR "
	    "instead)");
	/* Both refused: both said. */
	ck_assert_int_eq(rx_compile(&comm, "^hsn[0-9]+$", &cause), 0);
	o.comm_rx = &comm;
	doctor_check_iface(&n, &o, &sys);
	expect(DOCTOR_IFACE, DOCTOR_FAIL, "--rdzv c10d: torchrun gives the "
	    "workers this node's host name 'nid02' as MASTER_ADDR, which "
	    "resolves to 10.9.0.2, not to 10.3.0.2 of interface eth3; use "
	    "--rdzv static with --iface (cannot tell which python runs "
	    "'torchrun'; torchrun 2.3 and later take PET_LOCAL_ADDR "
	    "instead); --comm-iface: no interface matches "
	    "'^hsn[0-9]+$'; interfaces: lo 127.0.0.1, eth3 10.3.0.2");
	rx_free(&comm);
	o.comm_rx = NULL;
}
END_TEST

START_TEST(test_iface_family)
{
	use_iface("^eth3$");
	o.family = AF_INET6;
	doctor_check_iface(&n, &o, &sys);
	ck_assert_int_eq(n.f[DOCTOR_IFACE].level, DOCTOR_FAIL);
	ck_assert_ptr_nonnull(strstr(n.f[DOCTOR_IFACE].detail, "IPv6"));
}
END_TEST

START_TEST(test_resolve)
{
	doctor_check_resolve(&n, &o, &sys);
	expect(DOCTOR_RESOLVE, DOCTOR_PASS, "'nid02' resolves to 10.3.0.2");
	f.self_addr = "127.0.1.1";
	doctor_check_resolve(&n, &o, &sys);
	expect(DOCTOR_RESOLVE, DOCTOR_FAIL, "'nid02' resolves to the "
	    "loopback address 127.0.1.1 (see /etc/hosts), which other nodes "
	    "cannot reach");
	/* With --iface the name is not how the nodes meet. */
	use_iface("^eth3$");
	doctor_check_resolve(&n, &o, &sys);
	ck_assert_int_eq(n.f[DOCTOR_RESOLVE].level, DOCTOR_WARN);
	f.self_addr = NULL;
	doctor_check_resolve(&n, &o, &sys);
	expect(DOCTOR_RESOLVE, DOCTOR_WARN, "cannot resolve 'nid02'");
}
END_TEST

START_TEST(test_launcher)
{
	set_env(ENV("PATH=/opt/venv/bin::/usr/bin"));
	f.exes = ENV("/usr/bin/torchrun", "./torchrun", "/usr/bin/python3");
	doctor_check_launcher(&n, &o, &sys);
	/* The empty entry is the current directory, before /usr/bin. */
	expect(DOCTOR_LAUNCHER, DOCTOR_PASS, "'torchrun' is ./torchrun "
	    "(PATH=/opt/venv/bin::/usr/bin)");
	f.exes = ENV("/usr/bin/python3");
	doctor_check_launcher(&n, &o, &sys);
	expect(DOCTOR_LAUNCHER, DOCTOR_FAIL, "'torchrun' not found on "
	    "PATH=/opt/venv/bin::/usr/bin");
	o.launcher = "python3";
	doctor_check_launcher(&n, &o, &sys);
	expect(DOCTOR_LAUNCHER, DOCTOR_PASS, "'python3' is /usr/bin/python3 "
	    "(PATH=/opt/venv/bin::/usr/bin)");
	o.launcher = "/opt/venv/bin/torchrun";
	doctor_check_launcher(&n, &o, &sys);
	expect(DOCTOR_LAUNCHER, DOCTOR_FAIL, "/opt/venv/bin/torchrun is not "
	    "an executable file");
	set_env(ENV("HOME=/"));
	o.launcher = NULL;
	doctor_check_launcher(&n, &o, &sys);
	expect(DOCTOR_LAUNCHER, DOCTOR_FAIL, "'torchrun' not found: PATH is "
	    "not set");
}
END_TEST

START_TEST(test_torch)
{
	doctor_check_torch(&n, &o, &sys);
	ck_assert_ptr_null(n.f[DOCTOR_TORCH].detail);	/* no --deep */
	o.deep = 1;
	f.exes = ENV("/usr/bin/torchrun");
	f.shebang = "#!/usr/bin/python3.11";
	doctor_check_torch(&n, &o, &sys);
	expect(DOCTOR_TORCH, DOCTOR_PASS, "/usr/bin/python3.11 imports torch "
	    "in 2.3 s");
	free(f.ran);
	f.run_err = "torch 1.13.0a0";
	doctor_check_torch(&n, &o, &sys);
	expect(DOCTOR_TORCH, DOCTOR_PASS, "/usr/bin/python3.11 imports torch "
	    "1.13.0a0 in 2.3 s");
	free(f.ran);
	/* Debian 13's: no libuv, which torch 2.4 and later ask for. */
	f.run_err = "torch 2.6.0+debian without libuv";
	doctor_check_torch(&n, &o, &sys);
	expect(DOCTOR_TORCH, DOCTOR_WARN, "/usr/bin/python3.11 imports torch "
	    "2.6.0+debian in 2.3 s, built without libuv: torchrun's stores "
	    "fail unless given the legacy backend, which ddprank exec gives "
	    "them (ddprank(1), LIBUV); a torchrun started otherwise fails");
	free(f.ran);
	f.run_err = NULL;
	f.shebang = "#! /usr/bin/env  python3 -u";
	f.run_rc = 1;
	f.run_err = "ModuleNotFoundError: No module named 'torch'";
	doctor_check_torch(&n, &o, &sys);
	expect(DOCTOR_TORCH, DOCTOR_FAIL, "python3 cannot import torch (exit "
	    "1): ModuleNotFoundError: No module named 'torch'");
	free(f.ran);
	f.run_rc = -1;
	f.run_err = "did not finish within 1 s";
	o.launcher = "/opt/venv/bin/python";
	doctor_check_torch(&n, &o, &sys);
	expect(DOCTOR_TORCH, DOCTOR_FAIL, "/opt/venv/bin/python -c 'import "
	    "torch': did not finish within 1 s");
	free(f.ran);
	f.shebang = NULL;
	o.launcher = NULL;
	doctor_check_torch(&n, &o, &sys);
	expect(DOCTOR_TORCH, DOCTOR_WARN, "cannot tell which python runs "
	    "'torchrun'");
	f.exes = NULL;
	doctor_check_torch(&n, &o, &sys);
	expect(DOCTOR_TORCH, DOCTOR_FAIL, "cannot tell which python runs "
	    "'torchrun'");
}
END_TEST

/* The real runner: the last line of standard error, the exit status,
 * and a child that outlives its time killed. */
START_TEST(test_real_run)
{
	char *const	 fail[] = { (char *)"sh", (char *)"-c",
			    (char *)"echo one >&2; echo two >&2; exit 3", NULL };
	char *const	 slow[] = { (char *)"sh", (char *)"-c",
			    (char *)"exec 2>&-; sleep 30", NULL };
	char		*err;
	int		 ms;

	ck_assert_int_eq(doctor_sys_real.run(NULL, fail, 5000, &ms, &err), 3);
	ck_assert_str_eq(err, "two");
	free(err);
	ck_assert_int_eq(doctor_sys_real.run(NULL, slow, 300, &ms, &err), -1);
	ck_assert_str_eq(err, "did not finish within 0 s");
	free(err);
}
END_TEST

START_TEST(test_gpus_nvidia)
{
	doctor_check_gpus(&n, &o, &sys);
	ck_assert_ptr_null(n.f[DOCTOR_GPUS].detail);	/* none asked */
	f.devs = ENV("null", "nvidia0", "nvidiactl", "nvidia-uvm", "nvidia1");
	o.gpus = 4;
	doctor_check_gpus(&n, &o, &sys);
	expect(DOCTOR_GPUS, DOCTOR_FAIL, "2 GPU device nodes (/dev/nvidiaN) "
	    "for 4 GPUs requested");
	o.gpus = 2;
	doctor_check_gpus(&n, &o, &sys);
	expect(DOCTOR_GPUS, DOCTOR_PASS, "2 NVIDIA GPUs for 2 requested");
	set_env(ENV("CUDA_VISIBLE_DEVICES=1"));
	doctor_check_gpus(&n, &o, &sys);
	expect(DOCTOR_GPUS, DOCTOR_FAIL, "CUDA_VISIBLE_DEVICES=1 shows 1 of 2 "
	    "GPUs requested");
	set_env(ENV("CUDA_VISIBLE_DEVICES=0,1", "SLURM_GPUS_PER_TASK=1"));
	doctor_check_gpus(&n, &o, &sys);
	ck_assert_int_eq(n.f[DOCTOR_GPUS].level, DOCTOR_WARN);
	ck_assert_ptr_nonnull(strstr(n.f[DOCTOR_GPUS].detail,
	    "--gpus-per-task"));
}
END_TEST

START_TEST(test_gpus_rocm)
{
	f.devs = ENV("kfd", "dri", "null");
	f.dri = ENV("card0", "renderD128", "renderD129");
	/* The scheduler's count serves when --gpus is not given. */
	set_env(ENV("SLURM_GPUS_ON_NODE=2"));
	doctor_check_gpus(&n, &o, &sys);
	expect(DOCTOR_GPUS, DOCTOR_PASS, "2 ROCm GPUs for 2 requested");
	set_env(ENV("SLURM_GPUS_ON_NODE=2", "ROCR_VISIBLE_DEVICES=0"));
	doctor_check_gpus(&n, &o, &sys);
	expect(DOCTOR_GPUS, DOCTOR_FAIL, "ROCR_VISIBLE_DEVICES=0 shows 1 of 2 "
	    "GPUs requested");
	o.gpus = 3;
	doctor_check_gpus(&n, &o, &sys);
	expect(DOCTOR_GPUS, DOCTOR_FAIL, "2 GPU device nodes (/dev/dri/"
	    "renderDN beside /dev/kfd) for 3 GPUs requested");
}
END_TEST

START_TEST(test_env)
{
	set_env(ENV("PATH=/bin", "NCCL_SOCKET_IFNAME=eth3", "FI_PROVIDER=cxi"));
	doctor_check_env(&n, &sys);
	expect(DOCTOR_ENV, DOCTOR_PASS, "2 variables of NCCL_, GLOO_, FI_, "
	    "TORCH_, TORCHELASTIC_, RCCL_, MIOPEN_, all known");
	set_env(ENV("NCCL_SOCKET_IFNAM=eth3", "NCCL_DEBUG=INFO"));
	doctor_check_env(&n, &sys);
	expect(DOCTOR_ENV, DOCTOR_FAIL, "NCCL_SOCKET_IFNAM is not a known "
	    "variable: did you mean NCCL_SOCKET_IFNAME?");
	/* Far from every known name: newer than the list, perhaps. */
	set_env(ENV("TORCH_SOMETHING_BRAND_NEW=1", "GLOO_SOCKET_IFNAM=x"));
	doctor_check_env(&n, &sys);
	expect(DOCTOR_ENV, DOCTOR_FAIL, "TORCH_SOMETHING_BRAND_NEW is not a "
	    "known variable (nearest: TORCHELASTIC_RUN_ID); "
	    "GLOO_SOCKET_IFNAM is not a known variable: did you mean "
	    "GLOO_SOCKET_IFNAME?");
	set_env(ENV("MIOPEN_BRAND_NEW_KNOB=1"));
	doctor_check_env(&n, &sys);
	ck_assert_int_eq(n.f[DOCTOR_ENV].level, DOCTOR_WARN);
	/* The names torch 2.2 renamed: the old alone warns, with both
	 * set (for torch before and after 2.2) all is well. */
	set_env(ENV("NCCL_BLOCKING_WAIT=1", "NCCL_DEBUG=WARN"));
	doctor_check_env(&n, &sys);
	expect(DOCTOR_ENV, DOCTOR_WARN, "NCCL_BLOCKING_WAIT is torch's name "
	    "before 2.2, which 2.2 and later read as TORCH_NCCL_BLOCKING_WAIT "
	    "with a deprecation warning: set TORCH_NCCL_BLOCKING_WAIT (and "
	    "keep NCCL_BLOCKING_WAIT for an older torch)");
	set_env(ENV("NCCL_ASYNC_ERROR_HANDLING=1", "NCCL_DESYNC_DEBUG=1",
	    "TORCH_NCCL_DESYNC_DEBUG=1"));
	doctor_check_env(&n, &sys);
	expect(DOCTOR_ENV, DOCTOR_WARN, "NCCL_ASYNC_ERROR_HANDLING is torch's "
	    "name before 2.2, which 2.2 and later read as "
	    "TORCH_NCCL_ASYNC_ERROR_HANDLING with a deprecation warning: set "
	    "TORCH_NCCL_ASYNC_ERROR_HANDLING (and keep "
	    "NCCL_ASYNC_ERROR_HANDLING for an older torch)");
	set_env(ENV("NCCL_BLOCKING_WAIT=1", "TORCH_NCCL_BLOCKING_WAIT=1"));
	doctor_check_env(&n, &sys);
	expect(DOCTOR_ENV, DOCTOR_PASS, "2 variables of NCCL_, GLOO_, FI_, "
	    "TORCH_, TORCHELASTIC_, RCCL_, MIOPEN_, all known");
}
END_TEST

START_TEST(test_known_list)
{
	size_t	i, j;

	/* Sorted within each prefix's block, no duplicates, every name
	 * under a checked prefix. */
	for (i = 0; doctor_known_vars[i] != NULL; i++) {
		for (j = 0; doctor_var_prefixes[j] != NULL; j++) {
			if (strncmp(doctor_known_vars[i],
			    doctor_var_prefixes[j],
			    strlen(doctor_var_prefixes[j])) == 0)
				break;
		}
		ck_assert_msg(doctor_var_prefixes[j] != NULL, "%s",
		    doctor_known_vars[i]);
		if (i > 0)
			ck_assert_msg(strcmp(doctor_known_vars[i - 1],
			    doctor_known_vars[i]) < 0, "%s before %s",
			    doctor_known_vars[i - 1], doctor_known_vars[i]);
	}
}
END_TEST

START_TEST(test_shared)
{
	doctor_check_shared(&n, &o, &sys);
	ck_assert_ptr_null(n.f[DOCTOR_SHARED].detail);
	o.shared = "/app/x";
	doctor_check_shared(&n, &o, &sys);
	expect(DOCTOR_SHARED, DOCTOR_PASS, "/app/x is writable");
	f.shared_ok = 0;
	doctor_check_shared(&n, &o, &sys);
	expect(DOCTOR_SHARED, DOCTOR_FAIL, "/app/x: cannot create a file: "
	    "Permission denied");
}
END_TEST

START_TEST(test_port)
{
	int	fd, port;

	fd = t_listener(&port);
	n.addr = xstrdup("127.0.0.1");
	n.port = port;
	doctor_check_port(&n, n.addr, 0);
	ck_assert_int_eq(n.f[DOCTOR_PORT].level, DOCTOR_FAIL);
	ck_assert_ptr_nonnull(strstr(n.f[DOCTOR_PORT].detail,
	    "already in use"));
	/* A secret port: the message says which, never its number. */
	doctor_check_port(&n, n.addr, 1);
	ck_assert_int_eq(n.f[DOCTOR_PORT].level, DOCTOR_FAIL);
	ck_assert_str_eq(n.f[DOCTOR_PORT].detail, "the training's port "
	    "(secret) is already in use on 127.0.0.1; choose another with "
	    "--port N");
	close(fd);
	doctor_check_port(&n, n.addr, 0);
	ck_assert_int_eq(n.f[DOCTOR_PORT].level, DOCTOR_PASS);
	doctor_check_port(&n, n.addr, 1);
	ck_assert_str_eq(n.f[DOCTOR_PORT].detail, "node 0 can bind 127.0.0.1 "
	    "the training's port (secret)");
	/* Bound and closed: nothing holds it afterwards. */
	fd = t_listener(&port);
	close(fd);
}
END_TEST

/* --- wire format ---------------------------------------------------------- */

static void
fill(struct doctor_node *x, uint64_t rank, const char *host)
{
	doctor_node_init(x);
	x->rank = rank;
	x->nnodes = 3;
	x->port = 29500;
	x->addr = xstrdup("10.3.0.1");
	x->host = xstrdup(host);
	x->reported = 1;
	doctor_set(x, DOCTOR_IFACE, DOCTOR_PASS, "eth3 is up");
}

START_TEST(test_wire)
{
	struct doctor_node	 back;
	struct buf		 b;
	char			*cause;

	fill(&n, 2, "nid 03");
	doctor_set(&n, DOCTOR_ENV, DOCTOR_FAIL, "two\nlines");
	buf_init(&b);
	doctor_encode(&b, &n);
	ck_assert_str_eq(b.s, "ddprank-doctor 1\n"
	    "node 2 3 29500 10.3.0.1 nid?03\n"
	    "iface PASS eth3 is up\n"
	    "env FAIL two\\nlines\n"
	    "end\n");
	ck_assert_int_eq(doctor_decode(&back, b.s, b.len, &cause), 0);
	ck_assert_int_eq(back.rank, 2);
	ck_assert_str_eq(back.host, "nid?03");
	ck_assert_int_eq(back.f[DOCTOR_ENV].level, DOCTOR_FAIL);
	ck_assert_str_eq(back.f[DOCTOR_ENV].detail, "two\\nlines");
	doctor_node_free(&back);
	buf_free(&b);
}
END_TEST

/* With the job's secret: sealed, opened; tampered, or sealed with
 * another secret, or not sealed, refused. Without one, both open. */
START_TEST(test_seal)
{
	struct auth		 a, other;
	struct doctor_node	 back;
	struct buf		 b;
	char			*cause = NULL, *at;

	ck_assert_int_eq(auth_parse(&a, "00112233445566778899aabbccddeeff",
	    "test", &cause), 0);
	ck_assert_int_eq(auth_parse(&other, "ffeeddccbbaa99887766554433221100",
	    "test", &cause), 0);
	struct gather_scope	 sa = { &a, "7.0", "7.0-r0" }, so = sa, none;

	memset(&none, 0, sizeof none);
	so.auth = &other;
	fill(&n, 2, "nid003");
	buf_init(&b);
	doctor_seal(&b, &n, &sa);
	ck_assert_ptr_nonnull(strstr(b.s, "\nmac "));
	ck_assert_int_eq(doctor_open(&back, b.s, b.len, &sa, &cause), 0);
	ck_assert_str_eq(back.host, "nid003");
	doctor_node_free(&back);
	ck_assert_int_eq(doctor_open(&back, b.s, b.len, NULL, &cause), 0);
	doctor_node_free(&back);
	ck_assert_int_eq(doctor_open(&back, b.s, b.len, &so, &cause), -1);
	ck_assert_str_eq(cause, "sealed with another secret, or for another "
	    "job or run");
	free(cause);
	at = strstr(b.s, "nid003");
	at[5] = '4';
	ck_assert_int_eq(doctor_open(&back, b.s, b.len, &sa, &cause), -1);
	free(cause);
	buf_free(&b);
	buf_init(&b);
	doctor_seal(&b, &n, &none);
	ck_assert_ptr_null(strstr(b.s, "\nmac "));
	ck_assert_int_eq(doctor_open(&back, b.s, b.len, &sa, &cause), -1);
	ck_assert_str_eq(cause, "not sealed with the job's secret");
	free(cause);
	ck_assert_int_eq(doctor_open(&back, b.s, b.len, NULL, &cause), 0);
	doctor_node_free(&back);
	buf_free(&b);
	/* A seal that cannot be made (libcrypto's HMAC failing on a key
	 * length it cannot take) adds nothing; a zero MAC is no seal. */
	a.len = (size_t)INT_MAX + 1;
	buf_init(&b);
	ck_assert_int_eq(doctor_seal(&b, &n, &sa), -1);
	ck_assert_uint_eq(b.len, 0);
	doctor_seal(&b, &n, NULL);
	b.len -= strlen("end\n");
	buf_addf(&b, "mac %064d\nend\n", 0);
	ck_assert_int_eq(doctor_open(&back, b.s, b.len, &sa, &cause), -1);
	ck_assert_str_eq(cause, "sealed with another secret, or for another "
	    "job or run");
	free(cause);
	buf_free(&b);
}
END_TEST

/* What the MAC covers: the job and the run, lengths first, then the
 * message; a finding sealed for one job or run is refused in another. */
START_TEST(test_mac_scope)
{
	struct auth		 a;
	struct doctor_node	 back;
	struct gather_scope	 sc = { NULL, "7.0", "7.0-r0-ab" }, other;
	struct buf		 b, in;
	char			*cause = NULL, hex[AUTH_HEX_LEN + 1];
	const char		*mac;

	ck_assert_int_eq(auth_parse(&a, "00112233445566778899aabbccddeeff",
	    "test", &cause), 0);
	sc.auth = &a;
	buf_init(&in);
	gather_mac_input(&in, &sc, "msg\n", 4);
	ck_assert_str_eq(in.s, "job 3:7.0\nrun 9:7.0-r0-ab\nmsg\n");
	buf_free(&in);
	other = sc;
	other.job = NULL;
	other.run = NULL;
	buf_init(&in);
	gather_mac_input(&in, &other, "", 0);
	ck_assert_str_eq(in.s, "job 0:\nrun 0:\n");
	buf_free(&in);

	/* The seal is the HMAC of exactly that input. */
	fill(&n, 1, "nid017");
	buf_init(&b);
	doctor_seal(&b, &n, &sc);
	mac = strstr(b.s, "\nmac ") + 5;
	buf_init(&in);
	gather_mac_input(&in, &sc, b.s, (size_t)(mac - 4 - b.s));
	auth_mac_hex(&a, "ddprank doctor", in.s, in.len, hex);
	ck_assert_int_eq(strncmp(mac, hex, AUTH_HEX_LEN), 0);
	buf_free(&in);

	ck_assert_int_eq(doctor_open(&back, b.s, b.len, &sc, &cause), 0);
	doctor_node_free(&back);
	other = sc;
	other.job = "8.0";
	ck_assert_int_eq(doctor_open(&back, b.s, b.len, &other, &cause), -1);
	free(cause);
	other = sc;
	other.run = "7.0-r1-cd";
	ck_assert_int_eq(doctor_open(&back, b.s, b.len, &other, &cause), -1);
	free(cause);
	/* No pair of names passes for another. */
	other.job = "7.0\nrun 9:7.0-r0-ab";
	other.run = "";
	ck_assert_int_eq(doctor_open(&back, b.s, b.len, &other, &cause), -1);
	free(cause);
	buf_free(&b);
}
END_TEST

static const char *const bad_wire[] = {
	"",
	"ddprank-doctor 2\nnode 1 3 29500 a h\nend\n",
	"ddprank-doctor 1\nnode 3 3 29500 a h\nend\n",
	"ddprank-doctor 1\nnode 1 0 29500 a h\nend\n",
	"ddprank-doctor 1\nnode 1 3 0 a h\nend\n",
	"ddprank-doctor 1\nnode 1 3 29500 a h extra\nend\n",
	"ddprank-doctor 1\nnode 1 3 29500 a h\niface MAYBE x\nend\n",
	"ddprank-doctor 1\nnode 1 3 29500 a h\nbogus PASS x\nend\n",
	"ddprank-doctor 1\nnode 1 3 29500 a h\niface PASS\nend\n",
	"ddprank-doctor 1\nnode 1 3 29500 a h\n",
	"ddprank-doctor 1\nnode 1 3 29500 a h\nend\nmore\n",
	/* Found by fuzz_doctor: a control byte in a name. */
	"ddprank-doctor 1\nnode 1 3 29500 a no\0163\nend\n",
};

START_TEST(test_wire_bad)
{
	struct doctor_node	 back;
	char			*cause = NULL;
	const char		*s = bad_wire[_i];

	ck_assert_int_eq(doctor_decode(&back, s, strlen(s), &cause), -1);
	ck_assert_ptr_nonnull(cause);
	free(cause);
	ck_assert_int_eq(doctor_decode(&back, "ddprank-doctor 1\0", 17,
	    &cause), -1);
	free(cause);
}
END_TEST

/* --- the report ---------------------------------------------------------- */

static void
report3(struct doctor_report *r)
{
	memset(r, 0, sizeof *r);
	r->n = 3;
	r->wait = 5;
	r->v = xcalloc(3, sizeof *r->v);
	fill(&r->v[0], 0, "nid001");
	fill(&r->v[1], 1, "nid017");
	fill(&r->v[2], 2, "nid018");
}

/* The text report; the string lives until the next call. */
static const char *
format_text(const struct doctor_report *r)
{
	static struct buf	b;

	buf_free(&b);
	buf_init(&b);
	doctor_format_text(&b, r);
	return b.s;
}

static void
expect_text(const struct doctor_report *r, const char *want)
{
	struct buf	b;

	buf_init(&b);
	doctor_format_text(&b, r);
	ck_assert_str_eq(b.s, want);
	buf_free(&b);
}

START_TEST(test_report_pass)
{
	struct doctor_report	r;

	report3(&r);
	doctor_compare(&r);
	ck_assert_int_eq(doctor_failed(&r), 0);
	expect_text(&r, "ddprank doctor: 3 nodes, master 10.3.0.1 port 29500\n"
	    "PASS nodes: 3 nodes, master 10.3.0.1 port 29500\n"
	    "PASS iface: eth3 is up\n"
	    "PASS connect: reached node 0 at 10.3.0.1 port 29500\n"
	    "ddprank doctor: no check failed\n");
	doctor_report_free(&r);
}
END_TEST

START_TEST(test_report_fail)
{
	struct doctor_report	r;
	struct buf		b;

	report3(&r);
	r.v[2].reported = 0;
	free(r.v[1].addr);
	r.v[1].addr = xstrdup("127.0.1.1");
	doctor_set(&r.v[0], DOCTOR_ENV, DOCTOR_FAIL, "NCCL_X typo");
	doctor_compare(&r);
	ck_assert_int_eq(doctor_failed(&r), 1);
	expect_text(&r, "ddprank doctor: 3 nodes, master 10.3.0.1 port 29500\n"
	    "FAIL nodes nid017: uses master address 127.0.1.1, node 0 "
	    "10.3.0.1\n"
	    "PASS iface: eth3 is up\n"
	    "FAIL connect nid018: no findings reached node 0 within 5 s\n"
	    "FAIL env nid001: NCCL_X typo\n"
	    "--exclude=nid[017-018]\n");
	buf_init(&b);
	doctor_format_json(&b, &r);
	ck_assert_ptr_nonnull(strstr(b.s, "{\"check\":\"connect\",\"level\":"
	    "\"FAIL\",\"nodes\":\"nid018\",\"detail\":\"no findings reached "
	    "node 0 within 5 s\"}"));
	ck_assert_ptr_nonnull(strstr(b.s, "\"exclude\":\"nid[017-018]\"}\n"));
	buf_free(&b);
	doctor_report_free(&r);
}
END_TEST

/* The training's port secret: neither the text nor the JSON has it;
 * the connect line names the doctor's own port. */
START_TEST(test_report_hidden)
{
	struct doctor_report	r;
	struct buf		b;

	report3(&r);
	r.hide_port = 1;
	r.gport = 24242;
	doctor_compare(&r);
	expect_text(&r, "ddprank doctor: 3 nodes, master 10.3.0.1, secret "
	    "port\n"
	    "PASS nodes: 3 nodes, master 10.3.0.1, secret port\n"
	    "PASS iface: eth3 is up\n"
	    "PASS connect: reached node 0 at 10.3.0.1 port 24242\n"
	    "ddprank doctor: no check failed\n");
	buf_init(&b);
	doctor_format_json(&b, &r);
	ck_assert_ptr_null(strstr(b.s, "29500"));
	ck_assert_ptr_nonnull(strstr(b.s, "\"master_port\":null"));
	buf_free(&b);
	doctor_report_free(&r);
	report3(&r);
	r.hide_port = 1;
	r.v[2].port = 29501;
	doctor_compare(&r);
	buf_init(&b);
	doctor_format_text(&b, &r);
	ck_assert_ptr_nonnull(strstr(b.s, "FAIL nodes nid018: uses another "
	    "port than node 0"));
	ck_assert_ptr_null(strstr(b.s, "2950"));
	buf_free(&b);
	doctor_report_free(&r);
}
END_TEST

/* Connections that bring nothing were dropped: a node that never
 * reported may have been crowded out, and is not blamed. */
START_TEST(test_report_dropped)
{
	struct doctor_report	r;
	struct buf		b;

	report3(&r);
	r.v[2].reported = 0;
	r.dropped = 600;
	doctor_compare(&r);
	ck_assert_int_eq(doctor_failed(&r), 0);
	buf_init(&b);
	doctor_format_text(&b, &r);
	ck_assert_ptr_nonnull(strstr(b.s, "WARN connect nid018: no findings "
	    "reached node 0 within 5 s, while it dropped 600 connections "
	    "that sent none (another user flooding its port?): not "
	    "blamed\n"));
	ck_assert_ptr_null(strstr(b.s, "--exclude"));
	buf_free(&b);
	doctor_report_free(&r);
}
END_TEST

START_TEST(test_report_no_blame)
{
	struct doctor_report	r;

	report3(&r);
	doctor_set(&r.v[1], DOCTOR_ENV, DOCTOR_FAIL, "typo");
	doctor_set(&r.v[2], DOCTOR_ENV, DOCTOR_FAIL, "typo");
	doctor_compare(&r);
	expect_text(&r, "ddprank doctor: 3 nodes, master 10.3.0.1 port 29500\n"
	    "PASS nodes: 3 nodes, master 10.3.0.1 port 29500\n"
	    "PASS iface: eth3 is up\n"
	    "PASS connect: reached node 0 at 10.3.0.1 port 29500\n"
	    "FAIL env nid[017-018]: first: typo\n"
	    "ddprank doctor: FAIL, but no node is to blame\n");
	doctor_report_free(&r);
}
END_TEST

/* Field report 3: a node is named in --exclude only for a fault of its
 * own. A port held on node 0 made the node that could not reach it
 * name itself; so did a master name that node could not resolve. */
START_TEST(test_report_blame)
{
	struct doctor_report	r;

	/* Node 0's port is taken: node 0 is to blame, not the others. */
	report3(&r);
	doctor_set(&r.v[0], DOCTOR_PORT, DOCTOR_FAIL, "port 29500 is in use");
	r.v[1].reported = r.v[2].reported = 0;
	doctor_set(&r.v[1], DOCTOR_CONNECT, DOCTOR_WARN, "not tested: node 0 "
	    "cannot listen");
	doctor_set(&r.v[2], DOCTOR_CONNECT, DOCTOR_WARN, "not tested: node 0 "
	    "cannot listen");
	doctor_compare(&r);
	expect_text(&r, "ddprank doctor: 3 nodes, master 10.3.0.1 port 29500\n"
	    "PASS nodes: 3 nodes, master 10.3.0.1 port 29500\n"
	    "PASS iface: eth3 is up\n"
	    "FAIL port nid001: port 29500 is in use\n"
	    "WARN connect nid[017-018]: first: not tested: node 0 cannot "
	    "listen\n"
	    "--exclude=nid001\n");
	doctor_report_free(&r);
	/* The node that could not reach it, alone: not itself. */
	memset(&r, 0, sizeof r);
	r.n = 1;
	r.local = 1;
	r.v = xcalloc(1, sizeof *r.v);
	fill(&r.v[0], 1, "nid017");
	doctor_set(&r.v[0], DOCTOR_CONNECT, DOCTOR_FAIL, "cannot report to "
	    "node 0 at 10.3.0.1 port 29500 within 7 s: Connection refused");
	doctor_compare(&r);
	expect_text(&r, "ddprank doctor: nid017 alone (its findings did not "
	    "reach node 0)\n"
	    "PASS iface: eth3 is up\n"
	    "FAIL connect nid017: cannot report to node 0 at 10.3.0.1 port "
	    "29500 within 7 s: Connection refused\n"
	    "ddprank doctor: FAIL, but this node alone cannot tell which node "
	    "is to blame: see node 0's report\n");
	/* Nor for a master name it cannot resolve... */
	doctor_set(&r.v[0], DOCTOR_NODES, DOCTOR_FAIL, "master address: "
	    "cannot resolve 'nid001'");
	ck_assert_ptr_null(strstr(format_text(&r), "--exclude"));
	/* ...but for what is wrong with itself. */
	doctor_set(&r.v[0], DOCTOR_LAUNCHER, DOCTOR_FAIL, "'torchrun' not "
	    "found on PATH=/usr/bin");
	ck_assert_ptr_nonnull(strstr(format_text(&r), "\n--exclude=nid017\n"));
	doctor_report_free(&r);
	/* A node that never reported while another did is to blame. */
	report3(&r);
	r.v[2].reported = 0;
	doctor_compare(&r);
	ck_assert_ptr_nonnull(strstr(format_text(&r), "\n--exclude=nid018\n"));
	doctor_report_free(&r);
}
END_TEST

/* --- two nodes over loopback ------------------------------------------------ */

static const char *const two_nodes[] = { "PATH=/usr/bin",
	"SLURM_JOB_NODELIST=n[1-2]", "SLURM_JOB_ID=7", "MASTER_ADDR=127.0.0.1",
	NULL };
static const char *const three_nodes[] = { "PATH=/usr/bin",
	"SLURM_JOB_NODELIST=n[1-3]", "SLURM_JOB_ID=7", "MASTER_ADDR=127.0.0.1",
	NULL };
static int	nodes3;		/* run_as with three_nodes */

static void
run_as(const char *host, int port, struct doctor_report *r, int *sent)
{
	f.hostname = host;
	f.exes = ENV("/usr/bin/torchrun");
	ro.port = port;
	ro.sched = SCHED_SLURM;
	set_env(nodes3 ? three_nodes : two_nodes);
	doctor_run(r, sent, &o, &sys);
}

START_TEST(test_two_nodes)
{
	struct doctor_report	r;
	pid_t			pid;
	int			fd, port, sent, status;

	fd = t_listener(&port);
	close(fd);
	if ((pid = fork()) == 0) {
		run_as("n2", port, &r, &sent);
		_exit(sent ? 0 : 1);
	}
	run_as("n1", port, &r, &sent);
	ck_assert_int_eq(sent, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(r.n, 2);
	ck_assert_int_eq(r.v[1].reported, 1);
	ck_assert_str_eq(r.v[1].host, "n2");
	ck_assert_int_eq(r.v[1].f[DOCTOR_CONNECT].level, DOCTOR_PASS);
	ck_assert_int_eq(r.v[0].f[DOCTOR_PORT].level, DOCTOR_PASS);
	doctor_report_free(&r);
}
END_TEST

/* Findings sealed with another secret than node 0's are not the job's:
 * the node counts as never reported. */
START_TEST(test_other_secret)
{
	struct doctor_report	r;
	struct auth		a;
	pid_t			pid;
	int			fd, port, sent, status;
	char			*cause;

	fd = t_listener(&port);
	close(fd);
	if ((pid = fork()) == 0) {
		ck_assert_int_eq(auth_parse(&a, "ffeeddccbbaa99887766554433221100",
		    "test", &cause), 0);
		ro.auth = &a;
		run_as("n2", port, &r, &sent);
		_exit(sent ? 0 : 1);
	}
	ck_assert_int_eq(auth_parse(&a, "00112233445566778899aabbccddeeff",
	    "test", &cause), 0);
	ro.auth = &a;
	run_as("n1", port, &r, &sent);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(WEXITSTATUS(status), 1);
	ck_assert_int_eq(r.v[1].reported, 0);
	ck_assert_int_eq(r.v[1].f[DOCTOR_CONNECT].level, DOCTOR_FAIL);
	doctor_report_free(&r);
}
END_TEST

START_TEST(test_silent_node)
{
	struct doctor_report	r;
	struct buf		b;
	int			fd, port, sent;

	fd = t_listener(&port);
	close(fd);
	run_as("n1", port, &r, &sent);
	ck_assert_int_eq(r.v[1].reported, 0);
	buf_init(&b);
	doctor_format_text(&b, &r);
	ck_assert_ptr_nonnull(strstr(b.s, "FAIL connect n2: no findings "
	    "reached node 0 within 1 s\n"));
	/* No other node reached node 0 either: it may be node 0's port
	 * nobody could reach, so n2 is not blamed. */
	ck_assert_ptr_nonnull(strstr(b.s, "\nddprank doctor: FAIL, but no "
	    "node is to blame\n"));
	/* Flux's row: flux batch's option, not sbatch's. */
	doctor_set(&r.v[0], DOCTOR_LAUNCHER, DOCTOR_FAIL, "missing");
	r.exclude_opt = sched_get(SCHED_FLUX)->exclude_opt;
	buf_free(&b);
	buf_init(&b);
	doctor_format_text(&b, &r);
	ck_assert_ptr_nonnull(strstr(b.s, "\n--requires=-host:n1\n"));
	buf_free(&b);
	doctor_report_free(&r);
}
END_TEST

/* Two processes both computing node rank 1 (the unescaped $SLURM_NODEID
 * of the field notes makes every node compute one rank): named. */
START_TEST(test_rank_twice)
{
	struct doctor_report	r;
	pid_t			pid[2];
	int			fd, port, sent, status, i;

	/* n3 never reports, so node 0 waits long enough to read both. */
	nodes3 = 1;
	fd = t_listener(&port);
	close(fd);
	for (i = 0; i < 2; i++) {
		if ((pid[i] = fork()) == 0) {
			run_as("n2", port, &r, &sent);
			_exit(sent ? 0 : 1);
		}
	}
	run_as("n1", port, &r, &sent);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(waitpid(pid[i], &status, 0), pid[i]);
		ck_assert_int_eq(WEXITSTATUS(status), 0);
	}
	ck_assert_int_eq(r.v[1].f[DOCTOR_NODES].level, DOCTOR_FAIL);
	ck_assert_str_eq(r.v[1].f[DOCTOR_NODES].detail, "n2 also claims node "
	    "rank 1");
	ck_assert_int_eq(r.v[2].f[DOCTOR_CONNECT].level, DOCTOR_FAIL);
	doctor_report_free(&r);
	nodes3 = 0;
}
END_TEST

/* The flooder: connects to port on loopback until one is accepted,
 * then holds count idle connections (as many as it can make in 5 s),
 * says so on fd and waits to be killed. */
static void
flood(int port, int count, int fd)
{
	struct sockaddr_in	sin;
	int			s, made = 0, tries = 0;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)port);
	while (made < count && tries++ < 25 * count) {
		if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
			break;
		if (connect(s, (struct sockaddr *)&sin, sizeof sin) == 0)
			made++;
		else {
			close(s);
			poll(NULL, 0, made == 0 ? 20 : 1);
		}
	}
	(void)write(fd, "x", 1);
	for (;;)
		pause();
}

/* 600 idle connections to the doctor's port before the good node
 * reports (another user saw node 0's listener in /proc/net/tcp): the
 * good node's findings still come, and no one is blamed. */
START_TEST(test_flood)
{
	struct doctor_report	r;
	pid_t			flooder, good;
	char			c;
	int			fd, port, gport, sent, status, p[2];

	fd = t_listener(&port);
	close(fd);
	/* Job 7, no secret: the doctor's port is that of port_doctor. */
	gport = port_doctor(NULL, 1, 7, -1, -1, port, 20000, 29999);
	ck_assert_int_ne(gport, port);
	o.wait = 8;
	ck_assert_int_eq(pipe(p), 0);
	if ((flooder = fork()) == 0)
		flood(gport, 600, p[1]);
	if ((good = fork()) == 0) {
		ck_assert_int_eq(read(p[0], &c, 1), 1);
		run_as("n2", port, &r, &sent);
		_exit(sent ? 0 : 1);
	}
	run_as("n1", port, &r, &sent);
	kill(flooder, SIGKILL);
	ck_assert_int_eq(waitpid(flooder, &status, 0), flooder);
	ck_assert_int_eq(waitpid(good, &status, 0), good);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(r.v[1].reported, 1);
	ck_assert_int_eq(r.v[1].f[DOCTOR_CONNECT].level, DOCTOR_PASS);
	ck_assert_int_eq(doctor_failed(&r), 0);
	ck_assert_uint_gt(r.dropped, 500);
	doctor_report_free(&r);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* Node 0 is absent: node 2 gives up after a bounded wait and keeps
 * its findings for its own report. */
START_TEST(test_no_node0)
{
	struct doctor_report	r;
	int			fd, port, sent;

	fd = t_listener(&port);
	close(fd);
	run_as("n2", port, &r, &sent);
	ck_assert_int_eq(sent, 0);
	ck_assert_int_eq(r.local, 1);
	ck_assert_int_eq(r.v[0].f[DOCTOR_CONNECT].level, DOCTOR_FAIL);
	ck_assert_ptr_nonnull(strstr(r.v[0].f[DOCTOR_CONNECT].detail,
	    "cannot report to node 0 at 127.0.0.1 port"));
	doctor_report_free(&r);
}
END_TEST

/* --- HPC Pack: through the shared directory ----------------------------------- */

static char	*share;
static const char *const task1_env[] = { "PATH=/usr/bin", "CCP_JOBID=77",
	"CCP_TASKID=1", NULL };
static const char *const task2_env[] = { "PATH=/usr/bin", "CCP_JOBID=77",
	"CCP_TASKID=2", NULL };

static void
run_task(int task, struct doctor_report *r, int *sent)
{
	static char	base[4096];

	f.hostname = task == 1 ? "IAASCN116" : "IAASCN117";
	f.exes = ENV("/usr/bin/torchrun");
	snprintf(base, sizeof base, "%s/.ddprank", share);
	o.shared = base;
	ro.port = 29500;
	ro.nnodes = 2;
	set_env(task == 1 ? task1_env : task2_env);
	doctor_run(r, sent, &o, &sys);
}

START_TEST(test_dir_two_tasks)
{
	struct doctor_report	r;
	struct buf		b;
	pid_t			pid;
	int			sent, status;

	share = t_tmpdir("doctor");
	if ((pid = fork()) == 0) {
		run_task(2, &r, &sent);
		_exit(sent ? 0 : 1);
	}
	run_task(1, &r, &sent);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(sent, 0);
	ck_assert_int_eq(r.v[1].reported, 1);
	ck_assert_str_eq(r.v[1].host, "IAASCN117");
	buf_init(&b);
	doctor_format_text(&b, &r);
	ck_assert_ptr_nonnull(strstr(b.s, "ddprank doctor: 2 nodes, port 29500 "
	    "(the master address comes from the exchange)\n"));
	ck_assert_ptr_nonnull(strstr(b.s, "PASS connect: reached node 0 "
	    "through the shared directory\n"));
	ck_assert_ptr_nonnull(strstr(b.s, "PASS shared: "));
	buf_free(&b);
	doctor_report_free(&r);
	t_rmtree(share);
}
END_TEST

/* A task that cannot write the shared directory says so itself, and
 * node 0 names it when its findings never come. */
START_TEST(test_dir_unwritable)
{
	struct doctor_report	r;
	struct buf		b;
	int			sent;

	share = t_tmpdir("doctor");
	f.shared_ok = 0;
	run_task(2, &r, &sent);
	ck_assert_int_eq(sent, 0);
	ck_assert_int_eq(r.local, 1);
	ck_assert_int_eq(r.v[0].f[DOCTOR_SHARED].level, DOCTOR_FAIL);
	doctor_report_free(&r);
	f.shared_ok = 1;
	run_task(1, &r, &sent);
	buf_init(&b);
	doctor_format_text(&b, &r);
	ck_assert_ptr_nonnull(strstr(b.s, "FAIL connect task2: no findings "
	    "reached node 0 through the shared directory within 1 s\n"));
	buf_free(&b);
	doctor_report_free(&r);
	t_rmtree(share);
}
END_TEST

START_TEST(test_dir_no_task)
{
	struct doctor_report	r;
	int			sent;

	share = t_tmpdir("doctor");
	o.shared = share;
	ro.nnodes = 2;
	set_env(ENV("PATH=/usr/bin", "CCP_JOBID=77", "CCP_TASKID=3"));
	doctor_run(&r, &sent, &o, &sys);
	ck_assert_int_eq(r.local, 1);
	ck_assert_str_eq(r.v[0].f[DOCTOR_NODES].detail, "CCP_TASKID 3 is not "
	    "a task from 1 to 2 (--nnodes 2)");
	doctor_report_free(&r);
	t_rmtree(share);
}
END_TEST

static Suite *
doctor_suite(void)
{
	Suite	*s = suite_create("doctor");
	TCase	*tc;

	tc = tcase_create("checks");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_iface);
	tcase_add_test(tc, test_iface_family);
	tcase_add_test(tc, test_iface_exec);
	tcase_add_test(tc, test_resolve);
	tcase_add_test(tc, test_launcher);
	tcase_add_test(tc, test_torch);
	tcase_add_test(tc, test_real_run);
	tcase_add_test(tc, test_gpus_nvidia);
	tcase_add_test(tc, test_gpus_rocm);
	tcase_add_test(tc, test_env);
	tcase_add_test(tc, test_known_list);
	tcase_add_test(tc, test_shared);
	tcase_add_test(tc, test_port);
	suite_add_tcase(s, tc);

	tc = tcase_create("wire");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_wire);
	tcase_add_test(tc, test_seal);
	tcase_add_test(tc, test_mac_scope);
	tcase_add_loop_test(tc, test_wire_bad, 0,
	    (int)(sizeof bad_wire / sizeof bad_wire[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("report");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_report_pass);
	tcase_add_test(tc, test_report_fail);
	tcase_add_test(tc, test_report_no_blame);
	tcase_add_test(tc, test_report_hidden);
	tcase_add_test(tc, test_report_dropped);
	tcase_add_test(tc, test_report_blame);
	suite_add_tcase(s, tc);

	tc = tcase_create("net");
	tcase_set_timeout(tc, 20);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_two_nodes);
	tcase_add_test(tc, test_silent_node);
	tcase_add_test(tc, test_other_secret);
	tcase_add_test(tc, test_rank_twice);
	tcase_add_test(tc, test_no_node0);
	tcase_add_test(tc, test_flood);
	suite_add_tcase(s, tc);

	tc = tcase_create("dir");
	tcase_set_timeout(tc, 20);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_dir_two_tasks);
	tcase_add_test(tc, test_dir_unwritable);
	tcase_add_test(tc, test_dir_no_task);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(doctor_suite());
}
