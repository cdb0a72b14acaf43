/* doctor_dir.c: ddprank doctor under HPC Pack (--exchange dir:PATH):
 * the nodes cannot count on a node list, so each one writes its findings
 * into a directory of the shared one, named after the run, and node 0
 * (task 1) reads them; every wait is bounded, as over TCP. */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "doctor.h"
#include "exchange.h"
#include "exitcode.h"
#include "hostlist.h"
#include "netif.h"
#include "nodes.h"
#include "port.h"
#include "rank.h"
#include "util.h"
#include "xmalloc.h"

#define DOCTOR_DIR_POLL_MS	100
#define DOCTOR_DIR_MSG_MAX	65536

/* The run's directory, PATH/doctor-JOBID-rRETRY; caller frees. The job
 * id and the run's name go to *idp and *runp (caller frees), for the
 * MAC's scope. */
static char *
doctor_dir_run(const struct doctor_opts *o, const struct doctor_sys *sys,
    char **idp, char **runp, char **cause)
{
	const struct sched	*s = sched_get(SCHED_HPCPACK);
	struct nodes_job	 job;
	int64_t			 retry = 0;
	char			*id, *run, *path;

	if (nodes_job(&job, sys->env, SCHED_HPCPACK, cause) == -1 ||
	    nodes_var_num(&retry, sys->env, s->retry_var, 0, cause) == -1)
		return NULL;
	if (!job.set) {
		util_fail(cause, "no job id (%s) to name the directory",
		    s->job_var);
		return NULL;
	}
	id = nodes_job_string(&job);
	run = exchange_run_name(o->ro->auth, id, retry);
	xasprintf(&path, "%s/doctor-%s", o->shared, run);
	*runp = run;
	*idp = id;
	return path;
}

/* Who this node is: task N of the job is node N - 1. */
static int
doctor_dir_self(struct doctor_node *self, const struct doctor_opts *o,
    const struct doctor_sys *sys, char **cause)
{
	const char	*var = sched_get(SCHED_HPCPACK)->task_number_var;
	int64_t		 task = -1;
	int		 port;

	if (nodes_var_num(&task, sys->env, var, 1, cause) == -1)
		return -1;
	if (task < 1 || (uint64_t)task > o->ro->nnodes)
		return util_fail(cause, "%s %lld is not a task from 1 "
		    "to --nnodes %llu", var, (long long)task,
		    (unsigned long long)o->ro->nnodes);
	if (rank_port(&port, o->ro, sys->env, cause) != XC_OK)
		return -1;
	self->rank = (uint64_t)task - 1;
	self->nnodes = o->ro->nnodes;
	self->port = port;
	/* The master address is learnt later, in the exchange. */
	self->addr = xstrdup("exchange");
	return 0;
}

/* The base directory as the exchange makes a missing one, private,
 * then the run's, this user's only. */
static int
doctor_dir_mkdir(const char *base, const char *run, char **cause)
{
	if (mkdir(base, 0700) == -1 && errno != EEXIST)
		return util_fail(cause, "%s: %s", base, strerror(errno));
	if (mkdir(run, 0700) == -1 && errno != EEXIST)
		return util_fail(cause, "%s: %s", run, strerror(errno));
	return 0;
}

static int
doctor_dir_write(const struct doctor_node *self, const char *base,
    const char *run, const struct doctor_scope *a, char **cause)
{
	struct buf	 b;
	char		*path;
	int		 rc;

	if (doctor_dir_mkdir(base, run, cause) == -1)
		return -1;
	buf_init(&b);
	doctor_seal(&b, self, a);
	xasprintf(&path, "%s/t%llu", run, (unsigned long long)self->rank + 1);
	rc = util_writefile(path, b.s, b.len, 0600, cause);
	free(path);
	buf_free(&b);
	return rc;
}

/* Reads task file path into the report; 1 when it was filed. */
static int
doctor_dir_read(struct doctor_report *r, const char *path,
    const struct doctor_scope *a)
{
	struct doctor_node	 n;
	char			 buf[DOCTOR_DIR_MSG_MAX], *cause;
	ssize_t			 len;
	int			 fd;

	/* Not blocking and not following: the directory is shared. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK)) == -1)
		return 0;
	len = read(fd, buf, sizeof buf);
	close(fd);
	if (len <= 0 || (size_t)len == sizeof buf)
		return 0;
	if (doctor_open(&n, buf, (size_t)len, a, &cause) == -1) {
		free(cause);
		return 0;
	}
	if (n.rank == 0 || n.rank >= r->n || r->v[n.rank].reported) {
		doctor_node_free(&n);
		return 0;
	}
	doctor_node_free(&r->v[n.rank]);
	r->v[n.rank] = n;
	r->v[n.rank].reported = 1;
	return 1;
}

static long long
doctor_dir_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Node 0: until every task file is there or the wait is over. */
static void
doctor_dir_gather(struct doctor_report *r, const char *run, int wait,
    const struct doctor_scope *a)
{
	long long	 end = doctor_dir_ms() + wait * 1000LL;
	uint64_t	 i, got = 0;
	char		*path;

	for (;;) {
		for (i = 1; i < r->n; i++) {
			if (r->v[i].reported)
				continue;
			xasprintf(&path, "%s/t%llu", run,
			    (unsigned long long)i + 1);
			got += (uint64_t)doctor_dir_read(r, path, a);
			free(path);
		}
		if (got == r->n - 1 || doctor_dir_ms() >= end)
			break;
		poll(NULL, 0, DOCTOR_DIR_POLL_MS);
	}
}

/* Node 0 removes what the run left: its task files and the directory. */
static void
doctor_dir_clean(const struct doctor_report *r, const char *run)
{
	uint64_t	 i;
	char		*path;

	for (i = 1; i < r->n; i++) {
		xasprintf(&path, "%s/t%llu", run, (unsigned long long)i + 1);
		(void)unlink(path);
		free(path);
	}
	(void)rmdir(run);
}

static void
doctor_dir_lead(struct doctor_report *r, struct doctor_node *self,
    const char *run, const struct doctor_scope *sc,
    const struct doctor_opts *o)
{
	char		*cause;
	uint64_t	 i;

	r->n = self->nnodes;
	r->v = xcalloc(r->n, sizeof *r->v);
	r->v[0] = *self;
	r->v[0].reported = 1;
	r->dir = 1;
	/* Without a node list, a task is all there is to name a node by. */
	for (i = 1; i < r->n; i++) {
		r->v[i].rank = i;
		xasprintf(&r->v[i].host, "task%llu", (unsigned long long)i + 1);
	}
	doctor_check_port(&r->v[0], self->src, r->hide_port);
	if (r->n > 1 && doctor_dir_mkdir(o->shared, run, &cause) == -1) {
		doctor_set(&r->v[0], DOCTOR_SHARED, DOCTOR_FAIL, "%s", cause);
		free(cause);
	} else if (r->n > 1) {
		doctor_dir_gather(r, run, r->wait, sc);
		doctor_dir_clean(r, run);
	}
	doctor_compare(r);
}

/* The local findings alone, with what went wrong as check c. */
static void
doctor_dir_alone(struct doctor_report *r, struct doctor_node *self,
    enum doctor_check c, char *cause)
{
	if (cause != NULL) {
		doctor_set(self, c, DOCTOR_FAIL, "%s", cause);
		free(cause);
	}
	r->n = 1;
	r->v = xcalloc(1, sizeof *r->v);
	r->v[0] = *self;
	r->v[0].reported = 1;
	r->local = 1;
	doctor_compare(r);
}

void
doctor_run_dir(struct doctor_report *r, int *sent, struct doctor_node *self,
    const struct doctor_opts *o, const struct doctor_sys *sys)
{
	struct doctor_scope	 sc;
	char			*run, *id = NULL, *name = NULL, *cause = NULL;

	if (doctor_dir_self(self, o, sys, &cause) == -1) {
		doctor_dir_alone(r, self, DOCTOR_NODES, cause);
		return;
	}
	if ((run = doctor_dir_run(o, sys, &id, &name, &cause)) == NULL) {
		doctor_dir_alone(r, self, DOCTOR_NODES, cause);
		return;
	}
	sc.auth = o->ro->auth;
	sc.job = id;
	sc.run = name;
	if (self->rank == 0)
		doctor_dir_lead(r, self, run, &sc, o);
	else if (self->f[DOCTOR_SHARED].level == DOCTOR_FAIL)
		doctor_dir_alone(r, self, DOCTOR_SHARED, NULL);
	else if (doctor_dir_write(self, o->shared, run, &sc, &cause) == -1)
		doctor_dir_alone(r, self, DOCTOR_SHARED, cause);
	else {
		*sent = 1;
		doctor_node_free(self);
	}
	free(name);
	free(id);
	free(run);
}
