/* doctor-dir.c: ddprank doctor under HPC Pack (--exchange dir:PATH):
 * the nodes cannot count on a node list, so each one writes its findings
 * into a directory of the shared one, named after the run, and node 0
 * (task 1) reads them, through gather-dir.c; every wait is bounded, as
 * over TCP. */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "doctor.h"
#include "exchange.h"
#include "fault.h"
#include "gather.h"
#include "hostlist.h"
#include "netif.h"
#include "nodes.h"
#include "port.h"
#include "rank.h"
#include "sdir.h"
#include "util.h"
#include "xmalloc.h"

/* The run directory's name: its prefix, and the label of its MAC, which
 * the exchange's ("ddprank run") is not. */
#define DOCTOR_DIR_PREFIX	"doctor-"
#define DOCTOR_DIR_LABEL	"ddprank doctor run"

/* The shared directory of one run: the base, and the run's directory,
 * name, in it; the MAC's scope is the job id and that name. */
struct doctor_dir {
	struct gather_dir	 g;
	char			*name, *id;
	struct gather_scope	 sc;
};

/* The scheduler whose tasks number themselves: the gather's job id,
 * retry count and task numbers are its (sched_numbered). */
static enum sched_id
doctor_dir_sched(const struct doctor_opts *o, const struct doctor_sys *sys)
{
	return sched_numbered(nodes_sched_resolve(sys->env, o->ro->sched,
	    o->ro->hostfile));
}

/* The run's directory name, doctor-JOBID-rRETRY, and with a secret a
 * MAC under a label of its own: nothing in it tells another user the
 * exchange's run directory name, which the exchange makes later in the
 * same base. The job id goes to *idp. Caller frees both. */
static char *
doctor_dir_name(const struct doctor_opts *o, const struct doctor_sys *sys,
    char **idp, char **cause)
{
	enum sched_id		 sid = doctor_dir_sched(o, sys);
	const struct sched	*s = sched_get(sid);
	struct nodes_job	 job;
	int64_t			 retry = 0;
	char			*id, *name;

	if (nodes_job(&job, sys->env, sid, cause) == -1 ||
	    nodes_var_num(&retry, sys->env, s->retry_var, 0, cause) == -1)
		return NULL;
	if (!job.set) {
		util_fail(cause, "no job id (%s) to name the directory",
		    s->job_var);
		return NULL;
	}
	id = nodes_job_string(&job);
	name = exchange_dir_name(o->ro->auth, DOCTOR_DIR_LABEL,
	    DOCTOR_DIR_PREFIX, id, retry);
	if (name == NULL) {
		free(id);
		util_fail(cause, "cannot compute the directory's name: "
		    "HMAC-SHA256 failed");
		return NULL;
	}
	*idp = id;
	return name;
}

/* Who this node is: task task_number_base + N of the job is node N. */
static int
doctor_dir_self(struct doctor_node *self, const struct doctor_opts *o,
    const struct doctor_sys *sys, char **cause)
{
	const struct sched	*s = sched_get(doctor_dir_sched(o, sys));
	const char		*var = s->task_number_var;
	int64_t			 task = -1, base = s->task_number_base;
	int			 port;

	if (nodes_var_num(&task, sys->env, var, base, cause) == -1)
		return -1;
	if (task < base || (uint64_t)(task - base) >= o->ro->nnodes)
		return util_fail(cause, "%s %lld is not a task from %lld "
		    "to %llu (--nnodes %llu)", var, (long long)task,
		    (long long)base, (unsigned long long)(o->ro->nnodes +
		    (uint64_t)base - 1), (unsigned long long)o->ro->nnodes);
	if (rank_port(&port, o->ro, sys->env, cause) != FAULT_NONE)
		return -1;
	self->rank = (uint64_t)(task - base);
	self->nnodes = o->ro->nnodes;
	self->port = port;
	/* The master address is learnt later, in the exchange. */
	self->addr = xstrdup("exchange");
	return 0;
}

static int
doctor_dir_secret(const struct doctor_opts *o)
{
	return o->ro->auth != NULL && o->ro->auth->len > 0;
}

static int
doctor_dir_open(struct doctor_dir *d, const struct doctor_opts *o,
    char **cause)
{
	return gather_dir_open(&d->g, o->shared, "exchange directory",
	    "doctor directory", doctor_dir_secret(o), d->name, cause);
}

static int
doctor_dir_write(const struct doctor_node *self, struct doctor_dir *d,
    char **cause)
{
	struct buf	 b;
	int		 rc;

	buf_init(&b);
	if (doctor_seal(&b, self, &d->sc) == -1) {
		buf_free(&b);
		return util_fail(cause, "cannot seal the findings: "
		    "HMAC-SHA256 failed");
	}
	rc = gather_dir_write(&d->g, self->rank, b.s, b.len, cause);
	buf_free(&b);
	return rc;
}

/* Node 0 could not use the run's directory: the others' findings
 * cannot come. A directory refused as someone else's is no node's
 * fault. */
static void
doctor_dir_unusable(struct doctor_report *r, const struct doctor_dir *d,
    char *cause)
{
	uint64_t	i;

	doctor_set(&r->v[0], DOCTOR_SHARED, DOCTOR_FAIL, "%s", cause);
	r->v[0].f[DOCTOR_SHARED].nobody = gather_dir_refused(&d->g);
	free(cause);
	for (i = 1; i < r->n; i++)
		doctor_set(&r->v[i], DOCTOR_CONNECT, DOCTOR_WARN,
		    "not tested: node 0 cannot use the shared directory");
}

static void
doctor_dir_lead(struct doctor_report *r, struct doctor_node *self,
    struct doctor_dir *d, const struct doctor_opts *o)
{
	struct gather_sink	 sink;
	char			*cause = NULL;
	uint64_t		 i;

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
	if (r->n > 1 && doctor_dir_open(d, o, &cause) == -1)
		doctor_dir_unusable(r, d, cause);
	else if (r->n > 1) {
		doctor_sink(&sink, r, &d->sc);
		gather_dir_collect(&d->g, r->n, r->wait * 1000, &sink);
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
	doctor_alone(r, self);
}

/* A node other than node 0: its findings into the run's directory. */
static void
doctor_dir_send(struct doctor_report *r, int *sent, struct doctor_node *self,
    struct doctor_dir *d, const struct doctor_opts *o)
{
	char	*cause = NULL;

	if (self->f[DOCTOR_SHARED].level == DOCTOR_FAIL)
		doctor_dir_alone(r, self, DOCTOR_SHARED, NULL);
	else if (doctor_dir_open(d, o, &cause) == -1) {
		doctor_dir_alone(r, self, DOCTOR_SHARED, cause);
		r->v[0].f[DOCTOR_SHARED].nobody = gather_dir_refused(&d->g);
	} else if (doctor_dir_write(self, d, &cause) == -1)
		doctor_dir_alone(r, self, DOCTOR_SHARED, cause);
	else {
		*sent = 1;
		doctor_node_free(self);
	}
}

void
doctor_run_dir(struct doctor_report *r, int *sent, struct doctor_node *self,
    const struct doctor_opts *o, const struct doctor_sys *sys)
{
	struct doctor_dir	 d;
	char			*cause = NULL;

	memset(&d, 0, sizeof d);
	gather_dir_init(&d.g);
	if (doctor_dir_self(self, o, sys, &cause) == -1 ||
	    (d.name = doctor_dir_name(o, sys, &d.id, &cause)) == NULL) {
		doctor_dir_alone(r, self, DOCTOR_NODES, cause);
		return;
	}
	d.sc.auth = o->ro->auth;
	d.sc.job = d.id;
	d.sc.run = d.name;
	if (self->rank == 0)
		doctor_dir_lead(r, self, &d, o);
	else
		doctor_dir_send(r, sent, self, &d, o);
	gather_dir_close(&d.g);
	free(d.name);
	free(d.id);
}
