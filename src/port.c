/* port.c: choosing MASTER_PORT and checking that it can be bound. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <netdb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "port.h"
#include "resolve.h"
#include "util.h"

/* Keeps consecutive job ids and steps apart in the range: prime, and
 * larger than the number of steps or array tasks a job usually has. */
#define PORT_MIX	1009

int
port_auto(uint64_t jobid, int64_t task, int64_t step, int lo, int hi)
{
	uint64_t	n = jobid;

	if (task >= 0)
		n = n * PORT_MIX + (uint64_t)task;
	if (step >= 0)
		n = n * PORT_MIX + (uint64_t)step;
	return lo + (int)(n % (uint64_t)(hi - lo + 1));
}

/* The labels the ports derive under: the training's, and the doctor's
 * own, so that the doctor's port says nothing of the training's. */
#define PORT_LABEL_TRAIN	"ddprank port"
#define PORT_LABEL_DOCTOR	"ddprank doctor port"
#define PORT_LABEL_TIMELINE	"ddprank timeline port"

static int
port_mac(const struct auth *a, const char *label, uint64_t jobid,
    int64_t task, int64_t step, int lo, int hi)
{
	unsigned char	mac[AUTH_MAC_LEN];
	char		msg[80];
	uint64_t	n = 0;
	int		i, len;

	len = snprintf(msg, sizeof msg, "%llu %lld %lld",
	    (unsigned long long)jobid, (long long)task, (long long)step);
	if (auth_mac(a, label, msg, (size_t)len, mac) == -1)
		return -1;
	for (i = 0; i < 8; i++)
		n = n << 8 | mac[i];
	return lo + (int)(n % (uint64_t)(hi - lo + 1));
}

int
port_auto_secret(const struct auth *a, uint64_t jobid, int64_t task,
    int64_t step, int lo, int hi)
{
	return port_mac(a, PORT_LABEL_TRAIN, jobid, task, step, lo, hi);
}

/* A port of a gather's own, under label, or off the training's by
 * span / div where nothing is secret. */
static int
port_gather(const char *label, int div, const struct auth *a, int have_job,
    uint64_t jobid, int64_t task, int64_t step, int train, int lo, int hi)
{
	int	span = hi - lo + 1, p;

	if (span == 1 && train == lo)
		return train < 65535 ? train + 1 : train - 1;
	if (have_job && a != NULL && a->len > 0) {
		if ((p = port_mac(a, label, jobid, task, step, lo, hi)) == -1)
			return -1;
	} else	/* Nothing secret to hide: away from the training's. */
		p = lo + (((train - lo) % span + span) % span + span / div) %
		    span;
	if (p == train)
		p = p == hi ? lo : p + 1;
	return p;
}

int
port_doctor(const struct auth *a, int have_job, uint64_t jobid,
    int64_t task, int64_t step, int train, int lo, int hi)
{
	return port_gather(PORT_LABEL_DOCTOR, 2, a, have_job, jobid, task,
	    step, train, lo, hi);
}

int
port_timeline(const struct auth *a, int have_job, uint64_t jobid,
    int64_t task, int64_t step, int train, int lo, int hi)
{
	return port_gather(PORT_LABEL_TIMELINE, 4, a, have_job, jobid, task,
	    step, train, lo, hi);
}

/* Binds fd to port on the wildcard of its family, as torch's TCPStore
 * does: SO_REUSEADDR, and IPv6 dual-stack, so that a port taken on any
 * address, 127.0.0.1 included, is in use. */
static int
port_bind_wildcard(int fd, int family, int port)
{
	struct sockaddr_in6	sin6;
	struct sockaddr_in	sin;
	int			one = 1, zero = 0;

	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == -1)
		return -1;
	if (family == AF_INET) {
		memset(&sin, 0, sizeof sin);
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_ANY);
		sin.sin_port = htons((uint16_t)port);
		return bind(fd, (struct sockaddr *)&sin, sizeof sin);
	}
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) == -1)
		return -1;
	memset(&sin6, 0, sizeof sin6);
	sin6.sin6_family = AF_INET6;
	sin6.sin6_addr = in6addr_any;
	sin6.sin6_port = htons((uint16_t)port);
	return bind(fd, (struct sockaddr *)&sin6, sizeof sin6);
}

static int
port_check_wildcard(int port, const char *what, char **cause)
{
	const char	*where = "0.0.0.0";
	int		 fd, saved;

	/* Both of TCPStore's backends, the legacy one and libuv's (torch
	 * 2.4 and later), bind [::] dual-stack first and, when that fails
	 * for whatever reason, 0.0.0.0: so does the check. A port held on
	 * IPv6 alone thus passes, as torch would bind it on IPv4; the
	 * master address's own bind (port_check_addr) still fails then
	 * for an IPv6 master. */
	if ((fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0)) != -1) {
		if (port_bind_wildcard(fd, AF_INET6, port) == 0)
			goto ok;
		close(fd);
		where = "[::] (dual-stack), then on 0.0.0.0";
	} else if (errno != EAFNOSUPPORT)
		return util_fail(cause, "socket: %s", strerror(errno));
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return util_fail(cause, "socket: %s", strerror(errno));
	if (port_bind_wildcard(fd, AF_INET, port) == 0)
		goto ok;
	saved = errno;
	close(fd);
	if (saved == EADDRINUSE)
		return util_fail(cause, "%s is already in use on this "
		    "host (checked as torch's store binds it: on %s); choose "
		    "another with --port N", what, where);
	return util_fail(cause, "cannot bind %s on %s: %s; choose "
	    "another with --port N", what, where, strerror(saved));
ok:
	close(fd);
	return 0;
}

static int
port_bind(const struct addrinfo *ai, char **cause, const char *addr,
    const char *what)
{
	int	fd, one = 1, saved;

	if ((fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
	    ai->ai_protocol)) == -1)
		return util_fail(cause, "socket: %s", strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == -1 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) == -1) {
		saved = errno;
		close(fd);
		if (saved == EADDRINUSE)
			return util_fail(cause, "%s is already in use on "
			    "%s; choose another with --port N", what, addr);
		if (saved == EADDRNOTAVAIL)
			return util_fail(cause, "cannot bind %s: %s is "
			    "not an address of this host", what, addr);
		return util_fail(cause, "cannot bind %s on %s: %s; "
		    "choose another with --port N", what, addr,
		    strerror(saved));
	}
	close(fd);
	return 0;
}

static int
port_check_addr(const char *addr, int port, const char *what,
    char **cause)
{
	struct addrinfo	 hints, *res;
	char		 serv[8];
	int		 rc;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
	snprintf(serv, sizeof serv, "%d", port);
	/* A name is not resolved: it may name another interface than the
	 * one torchrun will listen on; the wildcard is checked anyway. */
	if (addr == NULL || resolve_addrinfo(addr, serv, &hints, &res) != 0)
		return 0;
	rc = port_bind(res, cause, addr, what);
	resolve_free(res);
	return rc;
}

int
port_check_as(const char *addr, int port, const char *what, char **cause)
{
	char	name[16];

	if (what == NULL) {
		snprintf(name, sizeof name, "port %d", port);
		what = name;
	}
	if (port_check_addr(addr, port, what, cause) == -1)
		return -1;
	return port_check_wildcard(port, what, cause);
}

int
port_check(const char *addr, int port, char **cause)
{
	return port_check_as(addr, port, NULL, cause);
}
