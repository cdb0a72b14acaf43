/* doctor_net.c: ddprank doctor across nodes: node 0 listens on the
 * master address and the doctor's own port (port_doctor: never the
 * training's, which a listener would show every user of the node) for a
 * short while and every other node sends its findings there, which also
 * proves it can reach a port of the range. Every wait is bounded, and
 * so is what another user's connections can cost: a node that never
 * reports is named, not waited for. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
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
#include "resolve.h"
#include "util.h"
#include "xmalloc.h"

/* A report larger than this is not a doctor's. */
#define DOCTOR_MSG_MAX		65536
/* Connections node 0 reads at once; the backlog holds the rest. */
#define DOCTOR_CONNS_MAX	512
/* Nodes try this much longer than node 0 waits, so that node 0 has
 * written its report when a node gives up. */
#define DOCTOR_FOLLOW_EXTRA	2
#define DOCTOR_RETRY_MS		200

static long long
doctor_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
doctor_left(long long deadline)
{
	long long	left = deadline - doctor_now_ms();

	return left < 0 ? 0 : (int)left;
}

static int
doctor_addrinfo(const char *addr, int port, int passive,
    struct addrinfo **res, char **cause)
{
	struct addrinfo	hints;
	char		serv[8];
	int		rc;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
	snprintf(serv, sizeof serv, "%d", port);
	if ((rc = resolve_addrinfo(addr, serv, &hints, res)) != 0)
		return util_fail(cause, "%s: %s", addr, gai_strerror(rc));
	return 0;
}

/* --- node 0 ---------------------------------------------------------------- */

static int
doctor_listen(const char *addr, int port, char **cause)
{
	struct addrinfo	*ai;
	int		 fd, one = 1;

	if (doctor_addrinfo(addr, port, 1, &ai, cause) == -1)
		return -1;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd == -1 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
	    sizeof one) == -1 || bind(fd, ai->ai_addr, ai->ai_addrlen) == -1 ||
	    listen(fd, DOCTOR_CONNS_MAX) == -1) {
		util_fail(cause, "cannot listen on %s port %d: %s", addr, port,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		fd = -1;
	}
	resolve_free(ai);
	return fd;
}

/* A connection that has not brought its findings this soon after it
 * was accepted is dropped: a node writes them as soon as it connects. */
#define DOCTOR_SILENT_MS	2000
/* Connections held at once from one address: a node needs one. */
#define DOCTOR_PEER_MAX		4

struct doctor_conn {
	int			 fd;
	struct buf		 in;
	long long		 since;
	struct sockaddr_storage	 peer;
};

struct doctor_gather {
	struct doctor_report	*r;
	const struct doctor_scope *sc;
	struct doctor_conn	*v;
	size_t			 n;
	size_t			 got;
};

/* Files what one node sent; a second claim on a rank is named. Returns
 * 1 when it is the first report of its rank. */
static int
doctor_file(struct doctor_report *r, struct doctor_node *n)
{
	struct doctor_node	*slot;

	if (n->rank >= r->n) {
		doctor_node_free(n);
		return 0;
	}
	slot = &r->v[n->rank];
	/* Two nodes with one rank collide in the rendezvous; a second
	 * node 0 would even host it. */
	if (slot->reported) {
		doctor_set(slot, DOCTOR_NODES, DOCTOR_FAIL, "%s also claims "
		    "node rank %llu", n->host, (unsigned long long)n->rank);
		doctor_node_free(n);
		return 0;
	}
	doctor_node_free(slot);
	*slot = *n;
	slot->reported = 1;
	return 1;
}

/* Reads what c holds: 0 while it may bring more, 1 when it is done
 * (filed, or refused for what it sent), -1 when it is to be dropped
 * having brought nothing (closed, or too large). */
static int
doctor_read(struct doctor_gather *g, struct doctor_conn *c)
{
	struct doctor_node	 n;
	char			 tmp[4096], *cause;
	ssize_t			 len;

	len = read(c->fd, tmp, sizeof tmp);
	if (len == -1 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (len <= 0 || c->in.len + (size_t)len > DOCTOR_MSG_MAX)
		return -1;
	buf_addn(&c->in, tmp, (size_t)len);
	if (c->in.len < 5 || strcmp(c->in.s + c->in.len - 5, "\nend\n") != 0)
		return 0;
	if (doctor_open(&n, c->in.s, c->in.len, g->sc, &cause) == -1) {
		free(cause);
		return 1;
	}
	(void)write(c->fd, "ok\n", 3);
	g->got += (size_t)doctor_file(g->r, &n);
	return 1;
}

/* Closes connection i; dropped: it brought no findings. */
static void
doctor_close(struct doctor_gather *g, size_t i, int dropped)
{
	close(g->v[i].fd);
	buf_free(&g->v[i].in);
	g->v[i] = g->v[--g->n];
	g->r->dropped += (size_t)(dropped != 0);
}

static int
doctor_same_peer(const struct sockaddr_storage *a,
    const struct sockaddr_storage *b)
{
	const struct sockaddr_in	*a4 = (const void *)a, *b4 = (const void *)b;
	const struct sockaddr_in6	*a6 = (const void *)a, *b6 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return memcmp(&a6->sin6_addr, &b6->sin6_addr,
		    sizeof a6->sin6_addr) == 0;
	return 1;
}

/* Room for a connection from peer: the oldest of that peer's goes when
 * it holds DOCTOR_PEER_MAX, else the oldest of all when the table is
 * full; neither ever brought findings (those are closed when read). */
static void
doctor_make_room(struct doctor_gather *g, const struct sockaddr_storage *peer)
{
	size_t	i, same = 0, old = (size_t)-1, oldall = 0;

	for (i = 0; i < g->n; i++) {
		if (g->v[i].since < g->v[oldall].since)
			oldall = i;
		if (!doctor_same_peer(&g->v[i].peer, peer))
			continue;
		same++;
		if (old == (size_t)-1 || g->v[i].since < g->v[old].since)
			old = i;
	}
	if (same >= DOCTOR_PEER_MAX)
		doctor_close(g, old, 1);
	else if (g->n == DOCTOR_CONNS_MAX)
		doctor_close(g, oldall, 1);
}

/* At most a table's worth at a time, so that reading goes on; each new
 * one is read at once, before newer ones can crowd it out. */
static void
doctor_accept(struct doctor_gather *g, int lfd)
{
	struct sockaddr_storage	 peer;
	socklen_t		 len;
	size_t			 k;
	int			 fd, rc;

	for (k = 0; k < DOCTOR_CONNS_MAX; k++) {
		len = sizeof peer;
		memset(&peer, 0, sizeof peer);
		if ((fd = accept4(lfd, (struct sockaddr *)&peer, &len,
		    SOCK_NONBLOCK | SOCK_CLOEXEC)) == -1)
			return;
		doctor_make_room(g, &peer);
		g->v[g->n].fd = fd;
		g->v[g->n].since = doctor_now_ms();
		g->v[g->n].peer = peer;
		buf_init(&g->v[g->n].in);
		g->n++;
		if ((rc = doctor_read(g, &g->v[g->n - 1])) != 0)
			doctor_close(g, g->n - 1, rc == -1);
	}
}

/* Drops the connections silent for too long; returns the milliseconds
 * until the next one is, at most left. */
static int
doctor_expire(struct doctor_gather *g, int left)
{
	long long	now = doctor_now_ms(), due;
	size_t		i;

	for (i = g->n; i > 0; i--) {
		due = g->v[i - 1].since + DOCTOR_SILENT_MS - now;
		if (due <= 0)
			doctor_close(g, i - 1, 1);
		else if (due < left)
			left = (int)due;
	}
	return left;
}

/* Until every other node has reported or the wait is over. Whatever
 * others send, each connection costs node 0 at most DOCTOR_SILENT_MS
 * and a slot, and no peer holds more than DOCTOR_PEER_MAX. */
static void
doctor_gather(struct doctor_report *r, int lfd, int wait,
    const struct doctor_scope *sc)
{
	struct doctor_gather	 g;
	struct pollfd		*p;
	long long		 deadline = doctor_now_ms() + wait * 1000LL;
	size_t			 i;
	int			 rc, ms;

	memset(&g, 0, sizeof g);
	g.r = r;
	g.sc = sc;
	g.v = xreallocarray(NULL, DOCTOR_CONNS_MAX, sizeof *g.v);
	p = xreallocarray(NULL, DOCTOR_CONNS_MAX + 1, sizeof *p);
	while (g.got < r->n - 1 && doctor_left(deadline) > 0) {
		ms = doctor_expire(&g, doctor_left(deadline));
		p[0].fd = lfd;
		p[0].events = POLLIN;
		for (i = 0; i < g.n; i++) {
			p[i + 1].fd = g.v[i].fd;
			p[i + 1].events = POLLIN;
		}
		if (poll(p, g.n + 1, ms) <= 0)
			continue;
		for (i = g.n; i > 0; i--) {
			if (p[i].revents != 0 &&
			    (rc = doctor_read(&g, &g.v[i - 1])) != 0)
				doctor_close(&g, i - 1, rc == -1);
		}
		if (p[0].revents & POLLIN)
			doctor_accept(&g, lfd);
	}
	while (g.n > 0)
		doctor_close(&g, g.n - 1, 0);
	free(p);
	free(g.v);
}

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
	struct doctor_scope	 sc;
	char			*job;
	char			*run;
	int			 gport;
	int			 hide;
};

static void
doctor_lead(struct doctor_report *r, struct doctor_node *self,
    const struct doctor_ctx *ctx, const struct doctor_opts *o,
    const struct doctor_sys *sys)
{
	char		*cause;
	uint64_t	 i;
	int		 lfd = -1;

	r->n = self->nnodes;
	r->v = xcalloc(r->n, sizeof *r->v);
	r->v[0] = *self;
	r->v[0].reported = 1;
	r->gport = ctx->gport;
	doctor_names(r, o, sys);
	/* The training's port is only bound and closed; the findings come
	 * on the doctor's own. */
	doctor_check_port(&r->v[0], self->addr, ctx->hide);
	if (r->n > 1 && (lfd = doctor_listen(self->addr, ctx->gport,
	    &cause)) == -1) {
		doctor_set(&r->v[0], DOCTOR_CONNECT, DOCTOR_WARN, "node 0 "
		    "cannot gather the findings: %s", cause);
		free(cause);
	} else if (r->n > 1) {
		doctor_gather(r, lfd, r->wait, &ctx->sc);
		close(lfd);
	}
	for (i = 1; i < r->n && r->n > 1 && lfd == -1; i++) {
		if (!r->v[i].reported)
			doctor_set(&r->v[i], DOCTOR_CONNECT, DOCTOR_WARN,
			    "not tested: node 0 cannot listen");
	}
	doctor_compare(r);
}

/* --- the other nodes --------------------------------------------------------- */

static void
doctor_blocking(int fd, int on)
{
	int	fl = fcntl(fd, F_GETFL);

	if (fl != -1)
		(void)fcntl(fd, F_SETFL, on ? fl & ~O_NONBLOCK : fl | O_NONBLOCK);
}

/* One attempt: connect, send, wait for node 0's "ok". Returns 0, or -1
 * with errno-like text in why. The socket is not bound to the --iface
 * address: torch's store clients connect from whatever address the
 * routes choose, and so does this check, or a master address on another
 * network than the interface's would fail here (strict reverse-path
 * filtering drops such packets) where the training connects. */
static int
doctor_try(const struct addrinfo *ai, const struct buf *msg,
    long long deadline, const char **why)
{
	struct pollfd	p;
	char		ack[4];
	socklen_t	len = sizeof(int);
	int		fd, err = 0;
	ssize_t		n;

	*why = "timed out";
	if ((fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		*why = strerror(errno);
		return -1;
	}
	p.fd = fd;
	p.events = POLLOUT;
	doctor_blocking(fd, 0);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == -1 &&
	    errno != EINPROGRESS) {
		*why = strerror(errno);
		goto fail;
	}
	if (poll(&p, 1, doctor_left(deadline)) <= 0)
		goto fail;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1 ||
	    err != 0) {
		*why = strerror(err);
		goto fail;
	}
	doctor_blocking(fd, 1);
	if (write(fd, msg->s, msg->len) != (ssize_t)msg->len) {
		*why = "short write";
		goto fail;
	}
	p.events = POLLIN;
	*why = "no acknowledgement (is something else on the port?)";
	if (poll(&p, 1, doctor_left(deadline)) <= 0 ||
	    (n = read(fd, ack, 3)) != 3 || memcmp(ack, "ok\n", 3) != 0)
		goto fail;
	close(fd);
	return 0;
fail:
	close(fd);
	return -1;
}

static int
doctor_send(const struct doctor_node *self, int wait,
    const struct doctor_ctx *ctx, char **cause)
{
	struct addrinfo	*ai;
	struct buf	 msg;
	const char	*why = "timed out";
	long long	 deadline;
	int		 rc = -1;

	deadline = doctor_now_ms() + (wait + DOCTOR_FOLLOW_EXTRA) * 1000LL;
	if (doctor_addrinfo(self->addr, ctx->gport, 0, &ai, cause) == -1)
		return -1;
	buf_init(&msg);
	if (doctor_seal(&msg, self, &ctx->sc) == -1) {
		buf_free(&msg);
		resolve_free(ai);
		return util_fail(cause, "cannot seal the findings: "
		    "HMAC-SHA256 failed");
	}
	/* Node 0 may not listen yet: retry until the deadline. */
	while (rc == -1 && doctor_left(deadline) > 0) {
		if ((rc = doctor_try(ai, &msg, deadline, &why)) == -1)
			poll(NULL, 0, DOCTOR_RETRY_MS);
	}
	buf_free(&msg);
	resolve_free(ai);
	if (rc == -1)
		util_fail(cause, "cannot report to node 0 at %s port %d "
		    "within %d s: %s", self->addr, ctx->gport,
		    wait + DOCTOR_FOLLOW_EXTRA, why);
	return rc;
}

/* --- the whole run ------------------------------------------------------------- */

static void
doctor_alone(struct doctor_report *r, struct doctor_node *self)
{
	r->n = 1;
	r->v = xcalloc(1, sizeof *r->v);
	r->v[0] = *self;
	r->v[0].reported = 1;
	r->local = 1;
	doctor_compare(r);
}

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
 * the step before the training's: check the port that step will get.
 * (Flux's runs are jobs of their own, but the port derives from the
 * batch job's id, the same in both: nodes_job's port_id.) */
static void
doctor_next_port(struct rank_opts *ro, const struct nodes_job *job)
{
	if (ro->port != 0 || !job->set || job->step < 0)
		return;
	/* An HMAC that fails leaves the port to rank_compute, which
	 * then says so. */
	if (ro->auth != NULL && ro->auth->len > 0) {
		int	p = port_auto_secret(ro->auth, job->port_id,
		    job->task, job->step + 1, ro->lo, ro->hi);

		if (p != -1)
			ro->port = p;
	} else
		ro->port = port_auto(job->port_id, job->task, job->step + 1,
		    ro->lo, ro->hi);
}

/* The job as rank_compute reads it (errors are its to tell), the MAC's
 * scope: the job id with task and step, and the run's name, as the
 * exchange names runs. */
static void
doctor_ctx_init(struct doctor_ctx *ctx, struct nodes_job *job,
    const struct rank_opts *ro, const struct nodes_env *env)
{
	const struct sched	*s;
	enum sched_id		 id;
	int64_t			 retry = 0;
	char			*cause;

	memset(ctx, 0, sizeof *ctx);
	id = nodes_sched_resolve(env, ro->sched, ro->hostfile);
	if (nodes_job(job, env, id, &cause) == -1) {
		free(cause);
		memset(job, 0, sizeof *job);
		job->task = job->step = -1;
	}
	s = sched_get(id);
	if (s->retry_var != NULL && nodes_var_num(&retry, env, s->retry_var,
	    0, &cause) == -1)
		free(cause);
	ctx->job = job->set ? nodes_job_string(job) : xstrdup("");
	ctx->run = exchange_run_name(ro->auth, ctx->job, retry);
	ctx->sc.auth = ro->auth;
	ctx->sc.job = ctx->job;
	ctx->sc.run = ctx->run;
	ctx->hide = ro->port == 0 && ro->auth != NULL && ro->auth->len > 0;
}

static void
doctor_ctx_free(struct doctor_ctx *ctx)
{
	free(ctx->job);
	free(ctx->run);
}

void
doctor_run(struct doctor_report *r, int *sent, const struct doctor_opts *o,
    const struct doctor_sys *sys)
{
	struct doctor_node	 self;
	struct doctor_ctx	 ctx;
	struct nodes_job	 job;
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
	doctor_ctx_init(&ctx, &job, &ro, sys->env);
	doctor_next_port(&ro, &job);
	/* Without the interface the node can still say who it is. */
	if (self.f[DOCTOR_IFACE].level == DOCTOR_FAIL)
		ro.rx = NULL;
	ro.check_port = 0;
	if (rank_compute(&rk, &ro, sys->env, sys->net, &why) != XC_OK) {
		doctor_set(&self, DOCTOR_NODES, DOCTOR_FAIL, "%s", why);
		free(why);
		rank_free(&rk);
		doctor_hostname(&self, sys);
		doctor_alone(r, &self);
		doctor_ctx_free(&ctx);
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
	ctx.gport = port_doctor(ro.auth, job.set, job.port_id, job.task,
	    job.step, self.port, ro.lo, ro.hi);
	if (ctx.gport == -1) {
		doctor_set(&self, DOCTOR_PORT, DOCTOR_FAIL, "cannot derive "
		    "the doctor's port: HMAC-SHA256 failed");
		doctor_alone(r, &self);
		doctor_ctx_free(&ctx);
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
	doctor_ctx_free(&ctx);
}
