/* bindrun.c: the binding at run time (bindrun.h): the plan from this
 * node, handed to the workers, applied and read back. */
#include "config.h"

#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bind.h"
#include "bindrun.h"
#include "cpuset.h"
#include "fault.h"
#include "topo.h"
#include "util.h"
#include "vocab.h"
#include "xmalloc.h"

/* The largest device list a visible-devices variable may hold. */
#define BINDRUN_MAXDEV	1024

/* Sets *cause; returns FAULT_BIND, the status of every binding failure. */
static enum fault __attribute__((format(printf, 2, 3)))
bindrun_fail(char **cause, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	xvasprintf(cause, fmt, ap);
	va_end(ap);
	return FAULT_BIND;
}

/* The variable that lists the devices the job sees for t's GPUs:
 * NVIDIA's, or AMD's (ROCR_VISIBLE_DEVICES first, as ROCm reads it
 * first); NULL when the job sets none. */
static const char *
bindrun_visible_var(const struct topo *t)
{
	static const char *const nvidia[] = { "CUDA_VISIBLE_DEVICES", NULL };
	static const char *const amd[] = { "ROCR_VISIBLE_DEVICES",
	    "HIP_VISIBLE_DEVICES", NULL };
	const char *const *v = t->ngpus > 0 && t->gpus[0].vendor == 0x1002 ?
	    amd : nvidia;

	for (; *v != NULL; v++)
		if (getenv(*v) != NULL)
			return *v;
	return NULL;
}

/* The device numbers the visible-devices variable lists, into *vis
 * (caller frees; NULL when the variable is unset). */
static enum fault
bindrun_visible(const struct topo *t, int **vis, size_t *n, char **cause)
{
	const char	*var = bindrun_visible_var(t), *s, *e;
	char		*item;
	long long	 v;
	enum fault	 xc;

	*vis = NULL;
	*n = 0;
	if (var == NULL)
		return FAULT_NONE;
	s = getenv(var);
	*vis = xreallocarray(NULL, BINDRUN_MAXDEV, sizeof **vis);
	for (; *s != '\0' && *n < BINDRUN_MAXDEV; s = *e == ',' ? e + 1 : e) {
		e = s + strcspn(s, ",");
		item = xstrndup(s, (size_t)(e - s));
		if (util_strtonum(item, 0, BINDRUN_MAXDEV - 1, &v) == -1) {
			xc = bindrun_fail(cause, "%s: '%s' is not a device "
			    "number: bind = gpu maps numbers to the node's "
			    "GPUs in PCI bus order", var, item);
			free(item);
			return xc;
		}
		free(item);
		(*vis)[(*n)++] = (int)v;
	}
	return FAULT_NONE;
}

/* A positive number of local ranks from variable name, or 0 unset. */
static enum fault
bindrun_var_count(const char *name, size_t *n, char **cause)
{
	const char	*s = getenv(name);
	long long	 v;

	*n = 0;
	if (s == NULL)
		return FAULT_NONE;
	if (util_strtonum(s, 1, BIND_MAXRANKS, &v) == -1)
		return bindrun_fail(cause, "%s: '%s' is not a number from 1 "
		    "to %d", name, s, BIND_MAXRANKS);
	*n = (size_t)v;
	return FAULT_NONE;
}

enum fault
bindrun_plan(struct bind_plan *p, struct topo *t,
    const struct bindrun_opts *o, char **cause)
{
	struct bind_opts	 bo;
	int			*vis = NULL;
	size_t			 nvis = 0;
	enum fault		 xc;

	memset(p, 0, sizeof *p);
	memset(&bo, 0, sizeof bo);
	if (topo_load(t, o->topology, cause) == -1)
		return FAULT_BIND;
	bo.policy = o->policy;
	bo.reserve = o->reserve;
	bo.nranks = (size_t)o->nranks;
	if (bo.nranks == 0 && (xc = bindrun_var_count("LOCAL_WORLD_SIZE",
	    &bo.nranks, cause)) != FAULT_NONE)
		return xc;
	/* One per GPU, or per NUMA domain; one on a node without (where
	 * bind = gpu then says there is no GPU). */
	if (bo.nranks == 0)
		bo.nranks = o->policy == BIND_GPU ? t->ngpus : t->nnuma;
	if (bo.nranks == 0)
		bo.nranks = 1;
	if (o->policy == BIND_GPU &&
	    (xc = bindrun_visible(t, &vis, &nvis, cause)) != FAULT_NONE)
		return xc;
	bo.visible = vis;
	bo.nvisible = nvis;
	xc = bind_make(p, t, &bo, cause) == -1 ? FAULT_BIND : FAULT_NONE;
	free(vis);
	return xc;
}

enum fault
bindrun_allowed(struct cpuset *s, char **cause)
{
	cpu_set_t	*set = CPU_ALLOC(CPUSET_MAX);
	size_t		 size = CPU_ALLOC_SIZE(CPUSET_MAX);
	int		 cpu;

	cpuset_zero(s);
	if (set == NULL)
		return bindrun_fail(cause, "CPU_ALLOC: %s", strerror(errno));
	if (sched_getaffinity(0, size, set) == -1) {
		CPU_FREE(set);
		return bindrun_fail(cause, "sched_getaffinity: %s",
		    strerror(errno));
	}
	for (cpu = 0; cpu < CPUSET_MAX; cpu++)
		if (CPU_ISSET_S((size_t)cpu, size, set))
			cpuset_set(s, cpu);
	CPU_FREE(set);
	return FAULT_NONE;
}

enum fault
bindrun_affinity(int pid, const struct cpuset *cpus, size_t rank,
    char **warning, char **cause)
{
	cpu_set_t	*set = CPU_ALLOC(CPUSET_MAX);
	size_t		 size = CPU_ALLOC_SIZE(CPUSET_MAX);
	struct cpuset	 got;
	struct buf	 a, b;
	enum fault	 xc = FAULT_NONE;
	int		 cpu;

	if (set == NULL)
		return bindrun_fail(cause, "CPU_ALLOC: %s", strerror(errno));
	CPU_ZERO_S(size, set);
	for (cpu = cpuset_next(cpus, -1); cpu != -1;
	    cpu = cpuset_next(cpus, cpu))
		CPU_SET_S((size_t)cpu, size, set);
	buf_init(&a);
	cpuset_format(&a, cpus);
	if (sched_setaffinity(pid, size, set) == -1)
		xc = bindrun_fail(cause, "local rank %zu: sched_setaffinity "
		    "to CPUs %s: %s", rank, a.s, strerror(errno));
	else if (sched_getaffinity(pid, size, set) == -1)
		xc = bindrun_fail(cause, "local rank %zu: sched_getaffinity: "
		    "%s", rank, strerror(errno));
	if (xc == FAULT_NONE) {
		cpuset_zero(&got);
		for (cpu = 0; cpu < CPUSET_MAX; cpu++)
			if (CPU_ISSET_S((size_t)cpu, size, set))
				cpuset_set(&got, cpu);
		if (!cpuset_equal(&got, cpus)) {
			buf_init(&b);
			cpuset_format(&b, &got);
			xasprintf(warning, "local rank %zu: the kernel runs it "
			    "on CPUs %s, not the plan's %s", rank, b.s, a.s);
			buf_free(&b);
		}
	}
	buf_free(&a);
	CPU_FREE(set);
	return xc;
}

/* What a bound worker's program reads: its thread count, CUDA's device
 * order (that of hwloc, by PCI bus id, so that device LOCAL_RANK is the
 * plan's GPU), and the site's NIC variable. */
static enum fault
bindrun_setenv(int ncores, int gpu, const char *nic_var, const char *nic,
    char **cause)
{
	char	num[32];

	snprintf(num, sizeof num, "%d", ncores);
	if (setenv("OMP_NUM_THREADS", num, 1) == -1 ||
	    (gpu && setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1) == -1) ||
	    (nic_var != NULL && *nic_var != '\0' && *nic != '\0' &&
	    setenv(nic_var, nic, 1) == -1)) {
		util_fail(cause, "setenv: %s", strerror(errno));
		return FAULT_SYS;
	}
	return FAULT_NONE;
}

/* This worker's local rank, LOCAL_RANK. */
static enum fault
bindrun_local_rank(size_t *rank, char **cause)
{
	const char	*s = getenv("LOCAL_RANK");
	long long	 v;

	if (s == NULL)
		return bindrun_fail(cause, "LOCAL_RANK is not set: the "
		    "binding needs each worker's local rank, which its "
		    "launcher gives it");
	if (util_strtonum(s, 0, BIND_MAXRANKS - 1, &v) == -1)
		return bindrun_fail(cause, "LOCAL_RANK: '%s' is not a number "
		    "from 0 to %d", s, BIND_MAXRANKS - 1);
	*rank = (size_t)v;
	return FAULT_NONE;
}

/* The name of a NIC in the plan, as bind_encode gives it. */
static const char *
bindrun_nic(const struct topo *t, int nic)
{
	if (nic < 0)
		return "";
	return t->nics[nic].fabric[0] != '\0' ? t->nics[nic].fabric :
	    t->nics[nic].iface;
}

enum fault
bindrun_exec(const struct bindrun_opts *o, int per_process, char **warning,
    char **cause)
{
	struct bind_plan	 p;
	struct topo		 t;
	struct cpuset		 allowed;
	struct bind_plan	 one;
	struct buf		 b;
	size_t			 rank = 0;
	enum fault		 xc;

	if (o->policy == BIND_NONE)
		return FAULT_NONE;
	if ((xc = bindrun_plan(&p, &t, o, cause)) == FAULT_NONE &&
	    (xc = bindrun_allowed(&allowed, cause)) == FAULT_NONE &&
	    per_process && (xc = bindrun_local_rank(&rank, cause)) ==
	    FAULT_NONE && rank >= p.n)
		xc = bindrun_fail(cause, "local rank %zu, and the plan has "
		    "%zu ranks (--nproc-per-node)", rank, p.n);
	if (xc == FAULT_NONE) {
		/* srun-direct's task checks its own rank only. */
		one = p;
		if (per_process) {
			one.r = &p.r[rank];
			one.n = 1;
		}
		if (bind_fit(&one, &t, &allowed, cause) == -1)
			xc = FAULT_BIND;
	}
	if (xc == FAULT_NONE && per_process &&
	    (xc = bindrun_affinity(0, &p.r[rank].cpus, rank, warning,
	    cause)) == FAULT_NONE)
		xc = bindrun_setenv(p.r[rank].ncores, p.r[rank].gpu >= 0,
		    o->nic_var, bindrun_nic(&t, p.r[rank].nic), cause);
	/* Also for srun-direct, whose task is the worker: the doctor finds
	 * bound processes by it. */
	if (xc == FAULT_NONE) {
		buf_init(&b);
		bind_encode(&b, &p, &t, o->nic_var);
		if (setenv(BIND_PLAN_VAR, b.s, 1) == -1) {
			util_fail(cause, "setenv " BIND_PLAN_VAR ": %s",
			    strerror(errno));
			xc = FAULT_SYS;
		}
		buf_free(&b);
	}
	bind_plan_free(&p);
	topo_free(&t);
	return xc;
}

/* The launcher's python: the first word of its parent's (the launcher's
 * agent's) command line, which is the interpreter its script's #! line
 * names, or the python that runs "python -m torch.distributed.run".
 * Caller frees. */
static enum fault
bindrun_python(char **py, char **cause)
{
	char	 path[64], buf[PATH_MAX];
	const char *base;
	FILE	*f;
	size_t	 n;
	pid_t	 ppid = getppid();

	snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)ppid);
	if ((f = fopen(path, "r")) == NULL)
		return bindrun_fail(cause, "%s: %s: the binding step runs "
		    "the launcher's python, and cannot tell which it is",
		    path, strerror(errno));
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	base = strrchr(buf, '/') != NULL ? strrchr(buf, '/') + 1 : buf;
	if (strncmp(base, "python", 6) != 0)
		return bindrun_fail(cause, "the launcher's program '%s' (the "
		    "first word of process %ld's command line) is not a "
		    "python, and the binding step runs the training with the "
		    "launcher's python", buf, (long)ppid);
	*py = xstrdup(buf);
	return FAULT_NONE;
}

/* The worker's command: python -u first when asked, --local_rank=N
 * after the script when asked, then the rest. */
static enum fault
bindrun_command(const struct bindrun_opts *o, char *const *argv, int argc,
    size_t rank, struct strlist *out, char **cause)
{
	char		*py = NULL, *s;
	enum fault	 xc;
	int		 i;

	if (argc < 1)
		return bindrun_fail(cause, "bind: no command given");
	if (o->python) {
		if ((xc = bindrun_python(&py, cause)) != FAULT_NONE)
			return xc;
		strlist_addown(out, py);
		strlist_add(out, "-u");
	}
	strlist_add(out, argv[0]);
	if (o->local_rank_arg) {
		xasprintf(&s, "--local_rank=%zu", rank);
		strlist_addown(out, s);
	}
	for (i = 1; i < argc; i++)
		strlist_add(out, argv[i]);
	return FAULT_NONE;
}

enum fault
bindrun_worker(const struct bindrun_opts *o, char *const *argv, int argc,
    struct strlist *out, char **warning, char **cause)
{
	struct bind_wire	 w;
	const char		*plan = getenv(BIND_PLAN_VAR);
	size_t			 rank, lws;
	enum fault		 xc;

	if (plan == NULL)
		return bindrun_fail(cause, BIND_PLAN_VAR " is not set: ddprank "
		    "bind runs in a worker of a launcher that ddprank exec "
		    "started with --bind");
	if ((xc = bindrun_local_rank(&rank, cause)) != FAULT_NONE ||
	    (xc = bindrun_var_count("LOCAL_WORLD_SIZE", &lws, cause)) !=
	    FAULT_NONE)
		return xc;
	if (bind_decode(&w, plan, rank, cause) == -1)
		return FAULT_BIND;
	if (lws != 0 && lws != w.n)
		return bindrun_fail(cause, "the launcher started %zu workers "
		    "on this node and the plan has %zu ranks "
		    "(--nproc-per-node)", lws, w.n);
	if ((xc = bindrun_affinity(0, &w.cpus, rank, warning, cause)) !=
	    FAULT_NONE ||
	    (xc = bindrun_setenv(w.ncores, w.gpu[0] != '\0', w.nic_var,
	    w.nic, cause)) != FAULT_NONE)
		return xc;
	return bindrun_command(o, argv, argc, rank, out, cause);
}

enum fault
bindrun_explain(const struct bindrun_opts *o, struct buf *out, char **cause)
{
	struct bind_plan	 p;
	struct topo		 t;
	struct cpuset		 allowed;
	char			 host[256];
	enum fault		 xc;

	if (gethostname(host, sizeof host) == -1)
		snprintf(host, sizeof host, "this node");
	host[sizeof host - 1] = '\0';
	if (o->policy == BIND_NONE) {
		buf_addf(out, "%s: bind none: the workers run where their "
		    "launcher and the scheduler put them\n", host);
		return FAULT_NONE;
	}
	xc = bindrun_plan(&p, &t, o, cause);
	/* The plan of another machine's topology is not this task's. */
	if (xc == FAULT_NONE && o->topology == NULL &&
	    (xc = bindrun_allowed(&allowed, cause)) == FAULT_NONE &&
	    bind_fit(&p, &t, &allowed, cause) == -1)
		xc = FAULT_BIND;
	if (xc == FAULT_NONE)
		bind_explain(out, &p, &t, host);
	bind_plan_free(&p);
	topo_free(&t);
	return xc;
}
