/* resolve-files.c: resolve.h from /etc/hosts and /etc/passwd alone, for
 * ddprank-static (resolve.h says why; hosts(5) and passwd(5) give the
 * formats). Pyxis's enroot binds the node's /etc/hosts into every
 * container (enroot's conf/mounts/20-config.fstab, read 2026-12), so the
 * nodes' names resolve there as on the node when /etc/hosts holds them;
 * names only DNS knows need discovery = iface (ddprank(1), CONTAINERS). */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "resolve.h"
#include "xmalloc.h"

/* One result: the addrinfo and its address in one block. */
struct resolve_ai {
	struct addrinfo		ai;
	struct sockaddr_storage	ss;
};

/* Appends addr (family's, in network order) with port to *tail. */
static void
resolve_add(struct addrinfo ***tail, const struct addrinfo *hints,
    int family, const void *addr, int port)
{
	struct resolve_ai	*r = xcalloc(1, sizeof *r);
	struct sockaddr_in	*sin = (struct sockaddr_in *)&r->ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&r->ss;

	r->ai.ai_family = family;
	r->ai.ai_socktype = hints != NULL ? hints->ai_socktype : 0;
	r->ai.ai_protocol = hints != NULL ? hints->ai_protocol : 0;
	r->ai.ai_addr = (struct sockaddr *)&r->ss;
	if (family == AF_INET) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		memcpy(&sin->sin_addr, addr, sizeof sin->sin_addr);
		r->ai.ai_addrlen = sizeof *sin;
	} else {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		memcpy(&sin6->sin6_addr, addr, sizeof sin6->sin6_addr);
		r->ai.ai_addrlen = sizeof *sin6;
	}
	**tail = &r->ai;
	*tail = &r->ai.ai_next;
}

/* A numeric address of a family hints allows: added, 1; else 0. */
static int
resolve_numeric(struct addrinfo ***tail, const struct addrinfo *hints,
    const char *s, int port)
{
	int		want = hints != NULL ? hints->ai_family : AF_UNSPEC;
	unsigned char	a[sizeof(struct in6_addr)];

	if (want != AF_INET6 && inet_pton(AF_INET, s, a) == 1) {
		resolve_add(tail, hints, AF_INET, a, port);
		return 1;
	}
	if (want != AF_INET && inet_pton(AF_INET6, s, a) == 1) {
		resolve_add(tail, hints, AF_INET6, a, port);
		return 1;
	}
	return 0;
}

/* Every address /etc/hosts gives host, in file order. */
static int
resolve_hosts(struct addrinfo ***tail, const struct addrinfo *hints,
    const char *host, int port)
{
	FILE	*f;
	char	 line[1024], *addr, *name, *save;
	int	 found = 0;

	if ((f = fopen("/etc/hosts", "re")) == NULL)
		return errno == ENOENT ? 0 : -1;
	while (fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "#\n")] = '\0';
		if ((addr = strtok_r(line, " \t", &save)) == NULL)
			continue;
		while ((name = strtok_r(NULL, " \t", &save)) != NULL) {
			if (strcasecmp(name, host) == 0) {
				found += resolve_numeric(tail, hints, addr,
				    port);
				break;
			}
		}
	}
	fclose(f);
	return found;
}

static int
resolve_port(const char *serv, int *port)
{
	char	*end;
	long	 v;

	*port = 0;
	if (serv == NULL)
		return 0;
	errno = 0;
	v = strtol(serv, &end, 10);
	if (*serv == '\0' || *end != '\0' || errno != 0 || v < 0 || v > 65535)
		return -1;
	*port = (int)v;
	return 0;
}

/* No name: the wildcard for AI_PASSIVE, else the loopback. */
static void
resolve_null(struct addrinfo ***tail, const struct addrinfo *hints, int port)
{
	int		passive = hints != NULL &&
			    (hints->ai_flags & AI_PASSIVE);
	struct in_addr	a4;

	a4.s_addr = htonl(passive ? INADDR_ANY : INADDR_LOOPBACK);
	if (hints == NULL || hints->ai_family != AF_INET)
		resolve_add(tail, hints, AF_INET6,
		    passive ? &in6addr_any : &in6addr_loopback, port);
	if (hints == NULL || hints->ai_family != AF_INET6)
		resolve_add(tail, hints, AF_INET, &a4, port);
}

int
resolve_addrinfo(const char *host, const char *serv,
    const struct addrinfo *hints, struct addrinfo **res)
{
	struct addrinfo	**tail = res;
	int		  port, n;

	*res = NULL;
	if (resolve_port(serv, &port) == -1)
		return EAI_SERVICE;
	if (host == NULL) {
		resolve_null(&tail, hints, port);
		return 0;
	}
	if (resolve_numeric(&tail, hints, host, port))
		return 0;
	if (hints != NULL && (hints->ai_flags & AI_NUMERICHOST))
		return EAI_NONAME;
	if ((n = resolve_hosts(&tail, hints, host, port)) == -1)
		return EAI_SYSTEM;
	return n > 0 ? 0 : EAI_NONAME;
}

void
resolve_free(struct addrinfo *ai)
{
	struct addrinfo	*next;

	for (; ai != NULL; ai = next) {
		next = ai->ai_next;
		free(ai);
	}
}

char *
resolve_home(uid_t uid)
{
	FILE		*f;
	char		 line[4096], *field[7], *p, *end, *home = NULL;
	int		 i;

	if ((f = fopen("/etc/passwd", "re")) == NULL)
		return NULL;
	while (home == NULL && fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		p = line;
		for (i = 0; i < 7 && p != NULL; i++)
			field[i] = strsep(&p, ":");
		if (i < 7 || *field[2] == '\0')
			continue;
		if (strtoul(field[2], &end, 10) == uid && *end == '\0')
			home = xstrdup(field[5]);
	}
	fclose(f);
	return home;
}
