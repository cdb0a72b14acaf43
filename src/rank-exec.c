/* rank-exec.c: ddprank exec once its options are parsed (rank-exec.h):
 * the rank comes from rank_compute, as for ddprank env; the rest is
 * here. Part of ddprank's main: it prints its one line and returns the
 * category of failure (fault.h); ddprank.c decides the exit status. */
#include "config.h"

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "bindrun.h"
#include "exchange.h"
#include "fault.h"
#include "launcher.h"
#include "nodes.h"
#include "rank.h"
#include "rank-exec.h"
#include "restart.h"
#include "util.h"
#include "watch-run.h"
#include "xmalloc.h"

/* What the training learns of the runs before it; the launcher starts
 * with the checkpoint signal ignored, so that the signal, sent to every
 * process of the step, stops the workers (which install a handler) and
 * not the agent. */
static enum fault
restart_setenv(int *signo)
{
	struct restart	 r;
	char		 num[32], *cause;

	if (restart_read(&r, util_getenv, &cause) == -1)
		return util_report_cause(FAULT_USAGE, cause);
	snprintf(num, sizeof num, "%lld", r.count);
	if (setenv("DDPGEN_RESTART_COUNT", num, 1) == -1 ||
	    setenv("DDPGEN_LAST_STOP", r.last_stop, 1) == -1)
		return util_report(FAULT_SYS, "setenv: %s", strerror(errno));
	if (r.signo != 0 && signal(r.signo, SIG_IGN) == SIG_ERR)
		return util_report(FAULT_SYS, "signal: %s", strerror(errno));
	*signo = r.signo;
	return FAULT_NONE;
}

/* Every python of the job runs the hook: like OpenSSH's StrictModes,
 * only a file and directory that no other user can write count (owned
 * by root or this user, not writable by group or others). */
static int
hook_trusted(const char *path)
{
	struct stat	st;

	return stat(path, &st) == 0 &&
	    (st.st_uid == 0 || st.st_uid == getuid()) &&
	    (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* The directory of the legacy-store hook (python/sitecustomize.py;
 * ddprank(1), LIBUV): beside this program in a build tree, else where
 * it is installed; NULL if neither has it. Caller frees. */
static char *
hook_dir(void)
{
	char	 exe[PATH_MAX], *dir, *file;
	ssize_t	 n;
	int	 i;

	for (i = 0; i < 2; i++) {
		if (i == 0) {
			if ((n = readlink("/proc/self/exe", exe,
			    sizeof exe - 1)) <= 0)
				continue;
			exe[n] = '\0';
			*strrchr(exe, '/') = '\0';
			xasprintf(&dir, "%s/python", exe);
		} else
			dir = xstrdup(DDPGEN_DATADIR "/python");
		xasprintf(&file, "%s/sitecustomize.py", dir);
		n = access(file, R_OK) == 0 && hook_trusted(file) &&
		    hook_trusted(dir);
		free(file);
		if (n)
			return dir;
		free(dir);
	}
	return NULL;
}

/* Puts the hook first on PYTHONPATH, for every python the launcher
 * starts: a torch built without libuv then gets its legacy store. */
static enum fault
hook_setenv(void)
{
	const char	*old = getenv("PYTHONPATH");
	char		*dir, *path;
	int		 rc;

	if ((dir = hook_dir()) == NULL)
		return FAULT_NONE;
	if (old != NULL && *old != '\0')
		xasprintf(&path, "%s:%s", dir, old);
	else
		path = xstrdup(dir);
	rc = setenv("PYTHONPATH", path, 1);
	free(path);
	free(dir);
	if (rc == -1)
		return util_report(FAULT_SYS, "setenv PYTHONPATH: %s",
		    strerror(errno));
	return FAULT_NONE;
}

/* DeepSpeed's hostfile, "HOST slots=1" a node, in an anonymous file
 * the command inherits: path is its /dev/fd name. No shared directory
 * is written, so no other user can plant or race one. */
static enum fault
exec_hostfile(const struct rank *r, char *path, size_t len)
{
	struct buf	 b;
	uint64_t	 i;
	int		 fd, bad;
	ssize_t		 n;

	if ((fd = memfd_create("ddprank-hostfile", 0)) == -1)
		return util_report(FAULT_SYS, "hostfile: memfd_create: %s",
		    strerror(errno));
	buf_init(&b);
	for (i = 0; i < r->nnodes; i++) {
		if (r->hosts.n == r->nnodes)
			buf_addf(&b, "%s slots=1\n", r->hosts.v[i]);
		else
			buf_addf(&b, "node%llu slots=1\n",
			    (unsigned long long)i);
	}
	n = write(fd, b.s, b.len);
	bad = n == -1 || (size_t)n != b.len;
	buf_free(&b);
	if (bad)
		return util_report(FAULT_SYS, "hostfile: write: %s", n == -1 ?
		    strerror(errno) : "short write");
	snprintf(path, len, "/dev/fd/%d", fd);
	return FAULT_NONE;
}

/* The command with the launcher's run-time flags (deepspeed's and
 * accelerate's; none for torchrun and srun). */
static enum fault
exec_argv(const struct rank_exec *x, const struct rank *r,
    struct strlist *argv)
{
	struct launcher_run	 run;
	char			 path[64], *cause;
	enum fault		 xc;

	memset(&run, 0, sizeof run);
	run.node_rank = r->node_rank;
	run.nnodes = r->nnodes;
	run.nproc = (unsigned long long)x->nproc;
	run.addr = r->master_addr;
	run.port = r->master_port;
	run.hostfile = path;
	if (x->ro->want_hosts &&
	    (xc = exec_hostfile(r, path, sizeof path)) != FAULT_NONE)
		return xc;
	if (launcher_argv(argv, x->launcher, x->argv, (size_t)x->argc,
	    (size_t)x->launcher_at, &run, &cause) == -1)
		return util_report_cause(FAULT_USAGE, cause);
	return FAULT_NONE;
}

/* The launch timeline's marks (rank_opts' mark). */
static void
exec_mark(void *arg, enum rank_mark m)
{
	timeline_mark(arg, m == RANK_MARK_RANK ? TL_RANK : TL_EXCHANGE);
}

/* What the timeline's reporter needs of r; a task other than its node's
 * first (srun-direct) has none. */
static void
exec_timeline(struct rank_exec *x, const struct rank *r)
{
	struct tl_run	*t = &x->tlr;

	x->tl.rank = r->node_rank;
	x->tl.host = xstrdup(r->host != NULL ? r->host : "?");
	t->per_process = x->ro->per_process;
	if (r->local_rank != 0)
		t->wait = 0;
	t->nnodes = r->nnodes;
	t->addr = xstrdup(r->master_addr);
	t->port = r->master_port;
	t->lo = x->ro->lo;
	t->hi = x->ro->hi;
	t->auth = x->auth;
	t->env = &nodes_env_real;
	t->sched = x->ro->sched;
	t->hostfile = x->ro->hostfile;
	t->dir = x->xo->method == EXCHANGE_DIR ? x->xo->dir : NULL;
	t->job_start = timeline_job_start(util_getenv);
}

/* The launcher's variables and command: torchrun's PET_*, a worker's
 * RANK and the rest (srun-direct), or flags. */
static enum fault
exec_prepare(struct rank_exec *x, const struct rank *r,
    struct rank_vars *vs, struct strlist *argv)
{
	int	pet = x->launcher->vars == LAUNCHER_VARS_PET;

	exec_timeline(x, r);
	hangwatch_target(&x->hw, r->host, r->master_addr, r->master_port);
	rank_vars(vs, r, pet, x->rdzv);
	if (x->launcher->vars == LAUNCHER_VARS_WORKER)
		rank_vars_worker(vs, r);
	return r->duplicate ? FAULT_NONE : exec_argv(x, r, argv);
}

/* The binding (bindrun.c): after the worker's variables, LOCAL_RANK
 * among them, are set. */
static enum fault
exec_bind(const struct rank_exec *x)
{
	char	*warning = NULL, *cause = NULL;
	enum fault	 xc;

	xc = bindrun_exec(x->bind, x->launcher->per_process, &warning,
	    &cause);
	if (warning != NULL)
		util_warn("warning: %s", warning);
	free(warning);
	if (xc != FAULT_NONE)
		return util_report_cause(xc, cause);
	return FAULT_NONE;
}

/* The heartbeat contract (ddprank(1), HANGS), with --hang-timeout. */
static enum fault
hang_setenv(struct rank_exec *x)
{
	char	*warning, *cause;

	if (x->hw.timeout == 0)
		return FAULT_NONE;
	x->hw.run = hangwatch_run_name(&nodes_env_real, x->ro->sched,
	    x->ro->hostfile, &cause);
	if (x->hw.run == NULL) {
		util_report(FAULT_NONE, "warning: --hang-timeout: %s: no "
		    "record of a stall and no flight recorder dump will be "
		    "kept", cause);
		free(cause);
	}
	if (hangwatch_setup(&x->hw, &warning, &cause) == -1)
		return util_report_cause(FAULT_SYS, cause);
	if (warning != NULL)
		util_report_cause(FAULT_NONE, warning);
	return FAULT_NONE;
}

/* The checkpoint signal, for the watcher to pass on: where the
 * scheduler sends it to the launcher's process group only. */
static int
exec_forward(const struct rank_exec *x, int signo)
{
	return signo != 0 && sched_get(nodes_sched_resolve(&nodes_env_real,
	    x->ro->sched, x->ro->hostfile))->signals_group ? signo : 0;
}

enum fault
rank_exec_begin(struct rank_exec *x, struct rank_opts *ro)
{
	char	*cause;

	timeline_begin(&x->tl);
	if (timeline_wait(util_getenv(TL_WAIT_ENV), &x->tlr.wait, &cause) == -1)
		return util_report_cause(FAULT_USAGE, cause);
	ro->mark = exec_mark;
	ro->mark_arg = &x->tl;
	return FAULT_NONE;
}

enum fault
rank_exec(struct rank_exec *x, const struct rank *r)
{
	struct rank_vars	vs;
	struct strlist		argv;
	size_t			i;
	char			*cause;
	enum fault		xc;
	int			saved, signo = 0;

	strlist_init(&argv);
	if ((xc = exec_prepare(x, r, &vs, &argv)) != FAULT_NONE ||
	    r->duplicate) {
		rank_vars_free(&vs);
		strlist_free(&argv);
		if (!r->duplicate)
			return xc;
		/* One torchrun per node, however many MPI processes. */
		util_warn("a lower MPI rank on this node (same address) runs "
		    "the command; this process exits");
		return FAULT_NONE;
	}
	for (i = 0; i < vs.n && xc == FAULT_NONE; i++) {
		if (setenv(vs.v[i].name, vs.v[i].value, 1) == -1)
			xc = util_report(FAULT_SYS, "setenv %s: %s",
			    vs.v[i].name, strerror(errno));
	}
	rank_vars_free(&vs);
	if (xc == FAULT_NONE)
		xc = exec_bind(x);
	if (xc == FAULT_NONE && (xc = restart_setenv(&signo)) == FAULT_NONE &&
	    (xc = hook_setenv()) == FAULT_NONE &&
	    (xc = hang_setenv(x)) == FAULT_NONE) {
		/* The command has no use for the secret: one copy fewer to
		 * leak. */
		(void)unsetenv(AUTH_ENV);
		if (timeline_launch(&x->tl, &x->tlr, &cause) == -1)
			util_report_cause(FAULT_NONE, cause);
		watch_start(argv.v, exec_forward(x, signo), &x->hw);
		execvp(argv.v[0], argv.v);
		saved = errno;
		xc = saved == ENOENT || saved == ENOTDIR ? FAULT_NOTFOUND :
		    FAULT_NOEXEC;
		util_warn("cannot execute '%s': %s", argv.v[0],
		    strerror(saved));
	}
	strlist_free(&argv);
	return xc;
}

void
rank_exec_free(struct rank_exec *x)
{
	timeline_node_free(&x->tl);
	free((char *)x->tlr.addr);
	hangwatch_free(&x->hw);
}
