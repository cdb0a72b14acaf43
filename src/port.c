/* port.c: choosing MASTER_PORT and checking that it can be bound. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "port.h"
#include "util.h"

/* Keeps consecutive job ids and steps apart in the range: prime, and
 * larger than the number of steps or array tasks a job usually has. */
#define PORT_MIX	1009

int
port_parse(const char *s, int *port, char **cause)
{
	long long	v;

	if (strcmp(s, "auto") == 0) {
		*port = 0;
		return 0;
	}
	if (util_strtonum(s, 1, 65535, &v) == -1)
		return util_fail(cause, "bad port '%s': expected auto or "
		    "1-65535", s);
	*port = (int)v;
	return 0;
}

int
port_parse_range(const char *s, int *lo, int *hi, char **cause)
{
	const char	*dash;
	char		 low[8];
	long long	 a, b;
	size_t		 n;

	if ((dash = strchr(s, '-')) == NULL || (n = (size_t)(dash - s)) == 0 ||
	    n >= sizeof low)
		goto bad;
	memcpy(low, s, n);
	low[n] = '\0';
	if (util_strtonum(low, 1, 65535, &a) == -1 ||
	    util_strtonum(dash + 1, 1, 65535, &b) == -1 || a > b)
		goto bad;
	*lo = (int)a;
	*hi = (int)b;
	return 0;
bad:
	return util_fail(cause, "bad port range '%s': expected LO-HI with "
	    "1 <= LO <= HI <= 65535", s);
}

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

static int
port_bind(const struct addrinfo *ai, char **cause, const char *addr,
    int port)
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
			return util_fail(cause, "port %d is already in use on "
			    "%s; choose another with --port N", port, addr);
		if (saved == EADDRNOTAVAIL)
			return util_fail(cause, "cannot bind port %d: %s is "
			    "not an address of this host", port, addr);
		return util_fail(cause, "cannot bind port %d on %s: %s; "
		    "choose another with --port N", port, addr,
		    strerror(saved));
	}
	close(fd);
	return 0;
}

int
port_check(const char *addr, int port, char **cause)
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
	 * one torchrun will listen on, so check the wildcard instead. */
	if (addr == NULL || getaddrinfo(addr, serv, &hints, &res) != 0) {
		hints.ai_family = AF_INET;
		if ((rc = getaddrinfo(NULL, serv, &hints, &res)) != 0)
			return util_fail(cause, "getaddrinfo: %s",
			    gai_strerror(rc));
		addr = "0.0.0.0";
	}
	rc = port_bind(res, cause, addr, port);
	freeaddrinfo(res);
	return rc;
}
