/* gather.c: node 0's gather over TCP (gather.h), the seal every message
 * carries, and whose messages a gather takes. Node 0 listens on the
 * master address and a port of the gather's own (never the training's,
 * which a listener would show every user of the node), and every other
 * node connects there once. Every wait is bounded, and so is what
 * another user's connections can cost: a node that never reports is
 * named by the caller, not waited for. */
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
#include "exchange.h"
#include "gather.h"
#include "mac.h"
#include "nodes.h"
#include "resolve.h"
#include "util.h"
#include "xmalloc.h"

/* --- the seal -------------------------------------------------------------- */

static int
gather_sealed(const struct gather_scope *sc)
{
	return sc != NULL && sc->auth != NULL && sc->auth->len > 0;
}

/* Lengths first: no job or run name can pass for another pair. */
void
gather_mac_input(struct buf *b, const struct gather_scope *sc,
    const char *msg, size_t len)
{
	const char	*job = sc->job != NULL ? sc->job : "";
	const char	*run = sc->run != NULL ? sc->run : "";

	buf_addf(b, "job %zu:%s\nrun %zu:%s\n", strlen(job), job, strlen(run),
	    run);
	buf_addn(b, msg, len);
}

/* -1 when the HMAC fails: then hex holds nothing to send. */
static int
gather_mac(const char *label, const struct gather_scope *sc, const char *msg,
    size_t len, char hex[AUTH_HEX_LEN + 1])
{
	struct mac_part	parts[2];
	struct buf	head;
	int		rc;

	/* The scope, then the message itself, not a copy of it. */
	buf_init(&head);
	gather_mac_input(&head, sc, "", 0);
	parts[0].p = head.s;
	parts[0].len = head.len;
	parts[1].p = msg;
	parts[1].len = len;
	rc = auth_mac_hex_parts(sc->auth, label, parts, 2, hex);
	buf_free(&head);
	return rc;
}

static int
gather_mac_ok(const char *label, const struct gather_scope *sc,
    const char *msg, size_t len, const char *hex)
{
	char	want[AUTH_HEX_LEN + 1];

	return gather_mac(label, sc, msg, len, want) == 0 &&
	    mac_equal(want, hex, AUTH_HEX_LEN);
}

int
gather_seal(struct buf *b, size_t start, const char *label,
    const struct gather_scope *sc)
{
	char	hex[AUTH_HEX_LEN + 1];

	if (!gather_sealed(sc))
		return 0;
	b->len -= strlen("end\n");
	b->s[b->len] = '\0';
	if (gather_mac(label, sc, b->s + start, b->len - start, hex) == -1) {
		b->len = start;
		b->s[b->len] = '\0';
		return -1;
	}
	buf_addf(b, "mac %s\nend\n", hex);
	return 0;
}

/* Where the "mac" line of buf starts, or NULL. */
static const char *
gather_mac_line(const char *buf, size_t len)
{
	const char	*tail = "\nend\n";
	size_t		 need = 1 + 4 + AUTH_HEX_LEN + strlen(tail);

	if (len < need || memcmp(buf + len - strlen(tail), tail,
	    strlen(tail)) != 0 || memcmp(buf + len - need, "\nmac ", 5) != 0)
		return NULL;
	return buf + len - need + 1;
}

int
gather_open(const char *buf, size_t len, const char *label,
    const struct gather_scope *sc, struct buf *body, char **cause)
{
	const char	*mac = gather_mac_line(buf, len);

	buf_init(body);
	if (mac == NULL) {
		if (gather_sealed(sc))
			return util_fail(cause, "not sealed with the job's "
			    "secret");
		buf_addn(body, buf, len);
		return 0;
	}
	if (gather_sealed(sc) && !gather_mac_ok(label, sc, buf,
	    (size_t)(mac - buf), mac + 4))
		return util_fail(cause, "sealed with another secret, or for "
		    "another job or run");
	buf_addn(body, buf, (size_t)(mac - buf));
	buf_adds(body, "end\n");
	return 0;
}

/* --- time ------------------------------------------------------------------ */

static long long
gather_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
gather_left(long long deadline)
{
	long long	left = deadline - gather_now_ms();

	return left < 0 ? 0 : left > 1000000000 ? 1000000000 : (int)left;
}

static int
gather_addrinfo(const char *addr, int port, int passive,
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

int
gather_listen(const char *addr, int port, char **cause)
{
	struct addrinfo	*ai;
	int		 fd, one = 1;

	if (gather_addrinfo(addr, port, 1, &ai, cause) == -1)
		return -1;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd == -1 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
	    sizeof one) == -1 || bind(fd, ai->ai_addr, ai->ai_addrlen) == -1 ||
	    listen(fd, GATHER_CONNS_MAX) == -1) {
		util_fail(cause, "cannot listen on %s port %d: %s", addr, port,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		fd = -1;
	}
	resolve_free(ai);
	return fd;
}

struct gather_conn {
	int			 fd;
	struct buf		 in;
	long long		 since;
	struct sockaddr_storage	 peer;
};

struct gather_tcp {
	int			 lfd;
	struct gather_sink	*sink;
	struct gather_conn	*v;
	size_t			 n;
	struct pollfd		*p;
};

/* Opens and files a whole message; acknowledges one that opened. */
static void
gather_take(struct gather_tcp *g, struct gather_conn *c)
{
	struct gather_sink	*s = g->sink;
	struct buf		 body;
	char			*cause = NULL;
	uint64_t		 rank;

	if (gather_open(c->in.s, c->in.len, s->label, s->scope, &body,
	    &cause) == -1) {
		free(cause);
		buf_free(&body);
		return;
	}
	(void)write(c->fd, "ok\n", 3);
	s->got += (size_t)s->file(s->arg, body.s, body.len, &rank);
	buf_free(&body);
}

/* Reads what c holds: 0 while it may bring more, 1 when it is done
 * (filed, or refused for what it sent), -1 when it is to be dropped
 * having brought nothing (closed, or too large). */
static int
gather_read(struct gather_tcp *g, struct gather_conn *c)
{
	char	tmp[4096];
	ssize_t	len;

	len = read(c->fd, tmp, sizeof tmp);
	if (len == -1 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (len <= 0 || c->in.len + (size_t)len > GATHER_MSG_MAX)
		return -1;
	buf_addn(&c->in, tmp, (size_t)len);
	if (c->in.len < 5 || strcmp(c->in.s + c->in.len - 5, "\nend\n") != 0)
		return 0;
	if (memchr(c->in.s, '\0', c->in.len) != NULL)
		return 1;
	gather_take(g, c);
	return 1;
}

/* Closes connection i; dropped: it brought no message. */
static void
gather_close(struct gather_tcp *g, size_t i, int dropped)
{
	close(g->v[i].fd);
	buf_free(&g->v[i].in);
	g->v[i] = g->v[--g->n];
	g->sink->dropped += (size_t)(dropped != 0);
}

static int
gather_same_peer(const struct sockaddr_storage *a,
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
 * it holds GATHER_PEER_MAX, else the oldest of all when the table is
 * full; neither ever brought a message (those are closed when read). */
static void
gather_make_room(struct gather_tcp *g, const struct sockaddr_storage *peer)
{
	size_t	i, same = 0, old = (size_t)-1, oldall = 0;

	for (i = 0; i < g->n; i++) {
		if (g->v[i].since < g->v[oldall].since)
			oldall = i;
		if (!gather_same_peer(&g->v[i].peer, peer))
			continue;
		same++;
		if (old == (size_t)-1 || g->v[i].since < g->v[old].since)
			old = i;
	}
	if (same >= GATHER_PEER_MAX)
		gather_close(g, old, 1);
	else if (g->n == GATHER_CONNS_MAX)
		gather_close(g, oldall, 1);
}

/* At most a table's worth at a time, so that reading goes on; each new
 * one is read at once, before newer ones can crowd it out. */
static void
gather_accept(struct gather_tcp *g)
{
	struct sockaddr_storage	 peer;
	socklen_t		 len;
	size_t			 k;
	int			 fd, rc;

	for (k = 0; k < GATHER_CONNS_MAX; k++) {
		len = sizeof peer;
		memset(&peer, 0, sizeof peer);
		if ((fd = accept4(g->lfd, (struct sockaddr *)&peer, &len,
		    SOCK_NONBLOCK | SOCK_CLOEXEC)) == -1)
			return;
		gather_make_room(g, &peer);
		g->v[g->n].fd = fd;
		g->v[g->n].since = gather_now_ms();
		g->v[g->n].peer = peer;
		buf_init(&g->v[g->n].in);
		g->n++;
		if ((rc = gather_read(g, &g->v[g->n - 1])) != 0)
			gather_close(g, g->n - 1, rc == -1);
	}
}

/* Drops the connections silent for too long; returns the milliseconds
 * until the next one is, at most left. */
static int
gather_expire(struct gather_tcp *g, int left)
{
	long long	now = gather_now_ms(), due;
	size_t		i;

	for (i = g->n; i > 0; i--) {
		due = g->v[i - 1].since + GATHER_SILENT_MS - now;
		if (due <= 0)
			gather_close(g, i - 1, 1);
		else if (due < left)
			left = (int)due;
	}
	return left;
}

struct gather_tcp *
gather_tcp_new(int lfd, struct gather_sink *sink)
{
	struct gather_tcp	*g = xcalloc(1, sizeof *g);

	g->lfd = lfd;
	g->sink = sink;
	g->v = xreallocarray(NULL, GATHER_CONNS_MAX, sizeof *g->v);
	g->p = xreallocarray(NULL, GATHER_CONNS_MAX + 1, sizeof *g->p);
	return g;
}

/* Whatever others send, each connection costs node 0 at most
 * GATHER_SILENT_MS and a slot, and no peer holds more than
 * GATHER_PEER_MAX. */
void
gather_tcp_poll(struct gather_tcp *g, int ms)
{
	size_t	i;
	int	rc;

	ms = gather_expire(g, ms);
	g->p[0].fd = g->lfd;
	g->p[0].events = POLLIN;
	for (i = 0; i < g->n; i++) {
		g->p[i + 1].fd = g->v[i].fd;
		g->p[i + 1].events = POLLIN;
	}
	if (poll(g->p, g->n + 1, ms) <= 0)
		return;
	for (i = g->n; i > 0; i--) {
		if (g->p[i].revents != 0 &&
		    (rc = gather_read(g, &g->v[i - 1])) != 0)
			gather_close(g, i - 1, rc == -1);
	}
	if (g->p[0].revents & POLLIN)
		gather_accept(g);
}

void
gather_tcp_free(struct gather_tcp *g)
{
	if (g == NULL)
		return;
	while (g->n > 0)
		gather_close(g, g->n - 1, 0);
	free(g->p);
	free(g->v);
	free(g);
}

void
gather_tcp(int lfd, int ms, struct gather_sink *sink)
{
	struct gather_tcp	*g = gather_tcp_new(lfd, sink);
	long long		 deadline = gather_now_ms() + ms;

	while (sink->got < sink->want && gather_left(deadline) > 0)
		gather_tcp_poll(g, gather_left(deadline));
	gather_tcp_free(g);
}

/* --- the other nodes ---------------------------------------------------------- */

static void
gather_blocking(int fd, int on)
{
	int	fl = fcntl(fd, F_GETFL);

	if (fl != -1)
		(void)fcntl(fd, F_SETFL, on ? fl & ~O_NONBLOCK : fl | O_NONBLOCK);
}

/* One attempt: connect, send, wait for node 0's "ok". Returns 0, or -1
 * with errno-like text in why. The socket is not bound to an interface
 * address: torch's store clients connect from whatever address the
 * routes choose, and so does a gather, or a master address on another
 * network than the interface's would fail here (strict reverse-path
 * filtering drops such packets) where the training connects. */
static int
gather_try(const struct addrinfo *ai, const char *msg, size_t len,
    long long deadline, const char **why)
{
	struct pollfd	p;
	char		ack[4];
	socklen_t	optlen = sizeof(int);
	int		fd, err = 0;
	ssize_t		n;

	*why = "timed out";
	if ((fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		*why = strerror(errno);
		return -1;
	}
	p.fd = fd;
	p.events = POLLOUT;
	gather_blocking(fd, 0);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == -1 &&
	    errno != EINPROGRESS) {
		*why = strerror(errno);
		goto fail;
	}
	if (poll(&p, 1, gather_left(deadline)) <= 0)
		goto fail;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &optlen) == -1 ||
	    err != 0) {
		*why = strerror(err);
		goto fail;
	}
	gather_blocking(fd, 1);
	if (send(fd, msg, len, MSG_NOSIGNAL) != (ssize_t)len) {
		*why = "short write";
		goto fail;
	}
	p.events = POLLIN;
	*why = "no acknowledgement (is something else on the port?)";
	if (poll(&p, 1, gather_left(deadline)) <= 0 ||
	    (n = read(fd, ack, 3)) != 3 || memcmp(ack, "ok\n", 3) != 0)
		goto fail;
	close(fd);
	return 0;
fail:
	close(fd);
	return -1;
}

int
gather_send(const char *addr, int port, const char *msg, size_t len, int ms,
    char **cause)
{
	struct addrinfo	*ai;
	const char	*why = "timed out";
	long long	 deadline = gather_now_ms() + ms;
	int		 rc = -1;

	if (gather_addrinfo(addr, port, 0, &ai, cause) == -1)
		return -1;
	/* Node 0 may not listen yet: retry until the deadline. */
	while (rc == -1 && gather_left(deadline) > 0) {
		if ((rc = gather_try(ai, msg, len, deadline, &why)) == -1)
			poll(NULL, 0, GATHER_RETRY_MS);
	}
	resolve_free(ai);
	if (rc == -1)
		util_fail(cause, "cannot report to node 0 at %s port %d "
		    "within %d s: %s", addr, port, (ms + 999) / 1000, why);
	return rc;
}

/* --- whose messages ------------------------------------------------------------ */

/* The job as rank_compute reads it (errors are its to tell), the MAC's
 * scope: the job id with task and step, and the run's name, as the
 * exchange names runs. */
void
gather_job_init(struct gather_job *g, const struct nodes_env *env,
    enum sched_id sched, const char *hostfile, const struct auth *auth)
{
	const struct sched	*s;
	struct nodes_job	 job;
	enum sched_id		 id;
	int64_t			 retry = 0;
	char			*cause;

	memset(g, 0, sizeof *g);
	id = nodes_sched_resolve(env, sched, hostfile);
	if (nodes_job(&job, env, id, &cause) == -1) {
		free(cause);
		memset(&job, 0, sizeof job);
		job.task = job.step = -1;
	}
	s = sched_get(id);
	if (s->retry_var != NULL && nodes_var_num(&retry, env, s->retry_var,
	    0, &cause) == -1)
		free(cause);
	g->set = job.set;
	g->port_id = job.port_id;
	g->task = job.task;
	g->step = job.step;
	g->retry = retry;
	g->job = job.set ? nodes_job_string(&job) : xstrdup("");
	g->run = exchange_run_name(auth, g->job, retry);
	g->sc.auth = auth;
	g->sc.job = g->job;
	g->sc.run = g->run;
}

void
gather_job_free(struct gather_job *g)
{
	free(g->job);
	free(g->run);
	memset(g, 0, sizeof *g);
}
