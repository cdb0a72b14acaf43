/* doctor_net.c: ddprank doctor across nodes: node 0 listens on the
 * master address and port for a short while and every other node sends
 * its findings there, which also proves it can reach that port. Every
 * wait is bounded: a node that never reports is named, not waited for. */
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

struct doctor_conn {
	int		fd;
	struct buf	in;
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

/* Reads what c holds; 1 when it is done (filed or dropped). */
static int
doctor_read(struct doctor_report *r, struct doctor_conn *c, size_t *got,
    const struct auth *auth)
{
	struct doctor_node	 n;
	char			 tmp[4096], *cause;
	ssize_t			 len;

	len = read(c->fd, tmp, sizeof tmp);
	if (len == -1 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (len <= 0 || c->in.len + (size_t)len > DOCTOR_MSG_MAX)
		return 1;
	buf_addn(&c->in, tmp, (size_t)len);
	if (c->in.len < 5 || strcmp(c->in.s + c->in.len - 5, "\nend\n") != 0)
		return 0;
	if (doctor_open(&n, c->in.s, c->in.len, auth, &cause) == -1) {
		free(cause);
		return 1;
	}
	(void)write(c->fd, "ok\n", 3);
	*got += (size_t)doctor_file(r, &n);
	return 1;
}

static void
doctor_close(struct doctor_conn *v, size_t *n, size_t i)
{
	close(v[i].fd);
	buf_free(&v[i].in);
	v[i] = v[--*n];
}

static void
doctor_accept(int lfd, struct doctor_conn *v, size_t *n)
{
	int	fd;

	while (*n < DOCTOR_CONNS_MAX && (fd = accept4(lfd, NULL, NULL,
	    SOCK_NONBLOCK | SOCK_CLOEXEC)) != -1) {
		v[*n].fd = fd;
		buf_init(&v[*n].in);
		(*n)++;
	}
}

/* Until every other node has reported or the wait is over. */
static void
doctor_gather(struct doctor_report *r, int lfd, int wait,
    const struct auth *auth)
{
	struct doctor_conn	*v;
	struct pollfd		*p;
	long long		 deadline = doctor_now_ms() + wait * 1000LL;
	size_t			 n = 0, i, got = 0;

	v = xreallocarray(NULL, DOCTOR_CONNS_MAX, sizeof *v);
	p = xreallocarray(NULL, DOCTOR_CONNS_MAX + 1, sizeof *p);
	while (got < r->n - 1 && doctor_left(deadline) > 0) {
		p[0].fd = lfd;
		p[0].events = POLLIN;
		for (i = 0; i < n; i++) {
			p[i + 1].fd = v[i].fd;
			p[i + 1].events = POLLIN;
		}
		if (poll(p, n + 1, doctor_left(deadline)) <= 0)
			continue;
		for (i = n; i > 0; i--) {
			if (p[i].revents != 0 &&
			    doctor_read(r, &v[i - 1], &got, auth))
				doctor_close(v, &n, i - 1);
		}
		if (p[0].revents & POLLIN)
			doctor_accept(lfd, v, &n);
	}
	while (n > 0)
		doctor_close(v, &n, n - 1);
	free(p);
	free(v);
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

static void
doctor_lead(struct doctor_report *r, struct doctor_node *self,
    const struct doctor_opts *o, const struct doctor_sys *sys)
{
	char		*cause;
	uint64_t	 i;
	int		 lfd;

	r->n = self->nnodes;
	r->v = xcalloc(r->n, sizeof *r->v);
	r->v[0] = *self;
	r->v[0].reported = 1;
	doctor_names(r, o, sys);
	doctor_check_port(&r->v[0]);
	if (r->n > 1 && r->v[0].f[DOCTOR_PORT].level != DOCTOR_FAIL) {
		if ((lfd = doctor_listen(self->addr, self->port,
		    &cause)) == -1) {
			doctor_set(&r->v[0], DOCTOR_PORT, DOCTOR_FAIL, "%s",
			    cause);
			free(cause);
		} else {
			doctor_gather(r, lfd, r->wait, o->ro->auth);
			close(lfd);
		}
	}
	for (i = 1; i < r->n && r->v[0].f[DOCTOR_PORT].level == DOCTOR_FAIL;
	    i++) {
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
doctor_send(const struct doctor_node *self, int wait, const struct auth *a,
    char **cause)
{
	struct addrinfo	*ai;
	struct buf	 msg;
	const char	*why = "timed out";
	long long	 deadline;
	int		 rc = -1;

	deadline = doctor_now_ms() + (wait + DOCTOR_FOLLOW_EXTRA) * 1000LL;
	if (doctor_addrinfo(self->addr, self->port, 0, &ai, cause) == -1)
		return -1;
	buf_init(&msg);
	doctor_seal(&msg, self, a);
	/* Node 0 may not listen yet: retry until the deadline. */
	while (rc == -1 && doctor_left(deadline) > 0) {
		if ((rc = doctor_try(ai, &msg, deadline, &why)) == -1)
			poll(NULL, 0, DOCTOR_RETRY_MS);
	}
	buf_free(&msg);
	resolve_free(ai);
	if (rc == -1)
		util_fail(cause, "cannot report to node 0 at %s port %d "
		    "within %d s: %s", self->addr, self->port,
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
 * the step before the training's: check the port that step will get. */
static void
doctor_next_port(struct rank_opts *ro, const struct nodes_env *env)
{
	struct nodes_job	 job;
	char			*cause;

	if (ro->port != 0)
		return;
	if (nodes_job(&job, env, nodes_sched_resolve(env, ro->sched,
	    ro->hostfile), &cause) == -1) {
		free(cause);	/* rank_compute says it again */
		return;
	}
	if (!job.set || job.step < 0)
		return;
	if (ro->auth != NULL && ro->auth->len > 0)
		ro->port = port_auto_secret(ro->auth, job.id, job.task,
		    job.step + 1, ro->lo, ro->hi);
	else
		ro->port = port_auto(job.id, job.task, job.step + 1, ro->lo,
		    ro->hi);
}

void
doctor_run(struct doctor_report *r, int *sent, const struct doctor_opts *o,
    const struct doctor_sys *sys)
{
	struct doctor_node	 self;
	struct rank_opts	 ro = *o->ro;
	struct rank		 rk;
	char			*why;

	memset(r, 0, sizeof *r);
	/* --deep: the others may first spend up to o->wait importing. */
	r->wait = o->deep ? 2 * o->wait : o->wait;
	*sent = 0;
	doctor_node_init(&self);
	doctor_local(&self, o, sys);
	if (o->shared != NULL) {
		doctor_hostname(&self, sys);
		doctor_run_dir(r, sent, &self, o, sys);
		return;
	}
	doctor_next_port(&ro, sys->env);
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
		return;
	}
	self.rank = rk.node_rank;
	self.nnodes = rk.nnodes;
	self.port = rk.master_port;
	self.addr = xstrdup(rk.master_addr);
	self.host = xstrdup(rk.host);
	rank_free(&rk);
	/* One node talks to nobody: its name may well be loopback. */
	if (self.nnodes == 1 && self.f[DOCTOR_RESOLVE].level == DOCTOR_FAIL)
		self.f[DOCTOR_RESOLVE].level = DOCTOR_WARN;
	if (self.rank == 0) {
		doctor_lead(r, &self, o, sys);
		return;
	}
	if (doctor_send(&self, r->wait, o->ro->auth, &why) == 0) {
		*sent = 1;
		doctor_node_free(&self);
		return;
	}
	doctor_set(&self, DOCTOR_CONNECT, DOCTOR_FAIL, "%s", why);
	free(why);
	doctor_alone(r, &self);
}
