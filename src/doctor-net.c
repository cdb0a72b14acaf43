/* doctor-net.c: ddprank doctor across nodes: node 0 gathers the
 * findings on the master address and the doctor's own port (port_doctor:
 * never the training's, which a listener would show every user of the
 * node) through gather.c, and every other node sends its findings there,
 * which also proves it can reach a port of the range. Every wait is
 * bounded, and so is what another user's connections can cost: a node
 * that never reports is named, not waited for. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "doctor.h"
#include "fault.h"
#include "gather.h"
#include "hostlist.h"
#include "netif.h"
#include "nodes.h"
#include "port.h"
#include "rank.h"
#include "util.h"
#include "xmalloc.h"

/* Nodes try this much longer than node 0 waits, so that node 0 has
 * written its report when a node gives up. */
#define DOCTOR_FOLLOW_EXTRA	2

/* Names for the nodes that may never report, from the node list. */
static void
doctor_names(struct doctor_report *r, const struct doctor_opts *o,
    const struct doctor_sys *sys)
{
	struct nodes	 nl;
	char		 name[HOSTLIST_NAME_MAX + 1], *cause;
	uint64_t	 i;

	if (nodes_load(&nl, sys->env, o->ro->sched, o->ro->hostfile,
	    &cause) == -1) {
		free(cause);
		return;
	}
	for (i = 1; i < r->n && i < hostlist_count(nl.list); i++) {
		r->v[i].rank = i;
		if (hostlist_nth(nl.list, i, name, sizeof name) != -1)
			r->v[i].host = xstrdup(name);
	}
	nodes_free(&nl);
}

/* What one run of the doctor is: whose findings it takes (the MAC's
 * scope), the port they are gathered on and whether the training's is
 * secret. */
struct doctor_ctx {
	struct gather_job	 job;
	int			 gport;
	int			 hide;
};

static void
doctor_lead(struct doctor_report *r, struct doctor_node *self,
    const struct doctor_ctx *ctx, const struct doctor_opts *o,
    const struct doctor_sys *sys)
{
	struct gather_sink	 sink;
	char			*cause;
	uint64_t		 i;
	int			 lfd = -1;

	r->n = self->nnodes;
	r->v = xcalloc(r->n, sizeof *r->v);
	r->v[0] = *self;
	r->v[0].reported = 1;
	r->gport = ctx->gport;
	doctor_names(r, o, sys);
	/* The training's port is only bound and closed; the findings come
	 * on the doctor's own. */
	doctor_check_port(&r->v[0], self->addr, ctx->hide);
	if (r->n > 1 && (lfd = gather_listen(self->addr, ctx->gport,
	    &cause)) == -1) {
		doctor_set(&r->v[0], DOCTOR_CONNECT, DOCTOR_WARN, "node 0 "
		    "cannot gather the findings: %s", cause);
		free(cause);
	} else if (r->n > 1) {
		doctor_sink(&sink, r, &ctx->job.sc);
		gather_tcp(lfd, r->wait * 1000, &sink);
		r->dropped += sink.dropped;
		close(lfd);
	}
	for (i = 1; i < r->n && r->n > 1 && lfd == -1; i++) {
		if (!r->v[i].reported)
			doctor_set(&r->v[i], DOCTOR_CONNECT, DOCTOR_WARN,
			    "not tested: node 0 cannot listen");
	}
	doctor_compare(r);
}

/* A node other than node 0: its findings, sealed, to node 0. */
static int
doctor_send(const struct doctor_node *self, int wait,
    const struct doctor_ctx *ctx, char **cause)
{
	struct buf	msg;
	int		rc;

	buf_init(&msg);
	if (doctor_seal(&msg, self, &ctx->job.sc) == -1) {
		buf_free(&msg);
		return util_fail(cause, "cannot seal the findings: "
		    "HMAC-SHA256 failed");
	}
	rc = gather_send(self->addr, ctx->gport, msg.s, msg.len,
	    (wait + DOCTOR_FOLLOW_EXTRA) * 1000, cause);
	buf_free(&msg);
	return rc;
}

/* --- the whole run ------------------------------------------------------------- */

static void
doctor_local(struct doctor_node *self, const struct doctor_opts *o,
    const struct doctor_sys *sys)
{
	doctor_check_iface(self, o, sys);
	doctor_check_resolve(self, o, sys);
	doctor_check_launcher(self, o, sys);
	doctor_check_torch(self, o, sys);
	doctor_check_gpus(self, o, sys);
	doctor_check_bind(self, o, sys);
	doctor_check_env(self, sys);
	doctor_check_shared(self, o, sys);
}

static void
doctor_hostname(struct doctor_node *self, const struct doctor_sys *sys)
{
	char	host[HOSTLIST_NAME_MAX + 1], *cause;

	if (sys->net->hostname(sys->net->arg, host, sizeof host,
	    &cause) == -1) {
		free(cause);
		snprintf(host, sizeof host, "?");
	}
	host[strcspn(host, ".")] = '\0';
	self->host = xstrdup(host);
}

/* An automatic port mixes in the Slurm step, and the doctor runs in
 * the step before the training's, unless o->same_step: check the port
 * that step will get. (Flux's runs are jobs of their own, but the port
 * derives from the batch job's id, the same in both: nodes_job's
 * port_id.) */
static void
doctor_next_port(struct rank_opts *ro, const struct gather_job *job,
    const struct doctor_opts *o)
{
	int64_t	step;

	if (ro->port != 0 || !job->set || job->step < 0)
		return;
	step = o->same_step ? job->step : job->step + 1;
	/* An HMAC that fails leaves the port to rank_compute, which
	 * then says so. */
	if (ro->auth != NULL && ro->auth->len > 0) {
		int	p = port_auto_secret(ro->auth, job->port_id,
		    job->task, step, ro->lo, ro->hi);

		if (p != -1)
			ro->port = p;
	} else
		ro->port = port_auto(job->port_id, job->task, step, ro->lo,
		    ro->hi);
}

static void
doctor_ctx_init(struct doctor_ctx *ctx, const struct rank_opts *ro,
    const struct nodes_env *env)
{
	memset(ctx, 0, sizeof *ctx);
	gather_job_init(&ctx->job, env, ro->sched, ro->hostfile, ro->auth);
	ctx->hide = ro->port == 0 && ro->auth != NULL && ro->auth->len > 0;
}

void
doctor_run(struct doctor_report *r, int *sent, const struct doctor_opts *o,
    const struct doctor_sys *sys)
{
	struct doctor_node	 self;
	struct doctor_ctx	 ctx;
	struct rank_opts	 ro = *o->ro;
	struct rank		 rk;
	char			*why;

	memset(r, 0, sizeof *r);
	/* --deep: the others may first spend up to o->wait importing. */
	r->wait = o->deep ? 2 * o->wait : o->wait;
	r->hide_port = ro.port == 0 && ro.auth != NULL && ro.auth->len > 0;
	*sent = 0;
	doctor_node_init(&self);
	doctor_local(&self, o, sys);
	if (o->shared != NULL) {
		doctor_hostname(&self, sys);
		doctor_run_dir(r, sent, &self, o, sys);
		return;
	}
	doctor_ctx_init(&ctx, &ro, sys->env);
	doctor_next_port(&ro, &ctx.job, o);
	/* Without the interface the node can still say who it is. */
	if (self.f[DOCTOR_IFACE].level == DOCTOR_FAIL)
		ro.rx = NULL;
	ro.check_port = 0;
	ro.mark = NULL;
	if (rank_compute(&rk, &ro, sys->env, sys->net, &why) != FAULT_NONE) {
		doctor_set(&self, DOCTOR_NODES, DOCTOR_FAIL, "%s", why);
		free(why);
		rank_free(&rk);
		doctor_hostname(&self, sys);
		doctor_alone(r, &self);
		gather_job_free(&ctx.job);
		return;
	}
	self.rank = rk.node_rank;
	self.nnodes = rk.nnodes;
	self.port = rk.master_port;
	self.addr = xstrdup(rk.master_addr);
	self.host = xstrdup(rk.host);
	rank_free(&rk);
	/* The doctor's own port, in the doctor's own step: never the
	 * training's, and telling nothing of it. */
	ctx.gport = port_doctor(ro.auth, ctx.job.set, ctx.job.port_id,
	    ctx.job.task, ctx.job.step, self.port, ro.lo, ro.hi);
	if (ctx.gport == -1) {
		doctor_set(&self, DOCTOR_PORT, DOCTOR_FAIL, "cannot derive "
		    "the doctor's port: HMAC-SHA256 failed");
		doctor_alone(r, &self);
		gather_job_free(&ctx.job);
		return;
	}
	/* One node talks to nobody: its name may well be loopback. */
	if (self.nnodes == 1 && self.f[DOCTOR_RESOLVE].level == DOCTOR_FAIL)
		self.f[DOCTOR_RESOLVE].level = DOCTOR_WARN;
	if (self.rank == 0)
		doctor_lead(r, &self, &ctx, o, sys);
	else if (doctor_send(&self, r->wait, &ctx, &why) == 0) {
		*sent = 1;
		doctor_node_free(&self);
	} else {
		doctor_set(&self, DOCTOR_CONNECT, DOCTOR_FAIL, "%s", why);
		free(why);
		doctor_alone(r, &self);
	}
	gather_job_free(&ctx.job);
}
