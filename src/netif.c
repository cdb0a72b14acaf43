/* netif.c: interfaces and addresses, matched by name with PCRE2. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netif.h"
#include "resolve.h"
#include "rx.h"
#include "util.h"
#include "xmalloc.h"

void
netif_list_init(struct netif_list *l)
{
	l->v = NULL;
	l->n = l->cap = 0;
}

void
netif_list_free(struct netif_list *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	netif_list_init(l);
}

static struct netif *
netif_list_push(struct netif_list *l, const char *name, int up)
{
	struct netif	*e;

	if (l->n == l->cap) {
		l->cap = l->cap == 0 ? 16 : l->cap * 2;
		l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
	}
	e = &l->v[l->n++];
	memset(e, 0, sizeof *e);
	e->name = xstrdup(name);
	e->up = up;
	return e;
}

int
netif_list_add(struct netif_list *l, const char *name, int up,
    const char *addr, int prefix)
{
	struct netif_addr	a;

	memset(&a, 0, sizeof a);
	if (addr != NULL) {
		if (netif_addr_parse(&a, addr) == -1)
			return -1;
		netif_addr_prefix(&a, prefix);
	}
	netif_list_push(l, name, up)->a = a;
	return 0;
}

void
netif_addrs_init(struct netif_addrs *l)
{
	l->v = NULL;
	l->n = l->cap = 0;
}

void
netif_addrs_free(struct netif_addrs *l)
{
	free(l->v);
	netif_addrs_init(l);
}

void
netif_addrs_add(struct netif_addrs *l, const struct netif_addr *a)
{
	if (l->n == l->cap) {
		l->cap = l->cap == 0 ? 8 : l->cap * 2;
		l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
	}
	l->v[l->n++] = *a;
}

static size_t
netif_addr_len(const struct netif_addr *a)
{
	return a->family == AF_INET ? 4 : a->family == AF_INET6 ? 16 : 0;
}

int
netif_addr_parse(struct netif_addr *a, const char *s)
{
	memset(a, 0, sizeof *a);
	if (inet_pton(AF_INET, s, a->addr) == 1)
		a->family = AF_INET;
	else if (inet_pton(AF_INET6, s, a->addr) == 1)
		a->family = AF_INET6;
	else
		return -1;
	return 0;
}

void
netif_addr_prefix(struct netif_addr *a, int prefix)
{
	size_t	i;
	int	bits;

	memset(a->mask, 0, sizeof a->mask);
	for (i = 0; i < netif_addr_len(a) && prefix > 0; i++) {
		bits = prefix < 8 ? prefix : 8;
		a->mask[i] = (unsigned char)(0xff00 >> bits);
		prefix -= bits;
	}
}

static int
netif_addr_is_linklocal(const struct netif_addr *a)
{
	return a->family == AF_INET6 && a->addr[0] == 0xfe &&
	    (a->addr[1] & 0xc0) == 0x80;
}

void
netif_addr_format(const struct netif_addr *a, const char *ifname,
    char *buf, size_t len)
{
	size_t	n;

	if (a->family == 0 || inet_ntop(a->family, a->addr, buf,
	    (socklen_t)len) == NULL) {
		snprintf(buf, len, "?");
		return;
	}
	n = strlen(buf);
	if (ifname != NULL && netif_addr_is_linklocal(a) && n < len)
		snprintf(buf + n, len - n, "%%%s", ifname);
}

int
netif_addr_equal(const struct netif_addr *a, const struct netif_addr *b)
{
	return a->family != 0 && a->family == b->family &&
	    memcmp(a->addr, b->addr, netif_addr_len(a)) == 0;
}

int
netif_addr_in_subnet(const struct netif_addr *a, const struct netif_addr *net)
{
	size_t	i;

	if (a->family == 0 || a->family != net->family)
		return 0;
	for (i = 0; i < netif_addr_len(a); i++) {
		if ((a->addr[i] & net->mask[i]) != (net->addr[i] & net->mask[i]))
			return 0;
	}
	return 1;
}

int
netif_addr_is_loopback(const struct netif_addr *a)
{
	static const unsigned char	v6[16] = { [15] = 1 };

	if (a->family == AF_INET)
		return a->addr[0] == 127;
	return a->family == AF_INET6 && memcmp(a->addr, v6, 16) == 0;
}

/* How much an address is preferred within one interface: lower first. */
static int
netif_pref(const struct netif_addr *a)
{
	if (a->family == AF_INET)
		return 0;
	return netif_addr_is_linklocal(a) ? 2 : 1;
}

static int
netif_usable(const struct netif *e, int family)
{
	if (!e->up || e->a.family == 0)
		return 0;
	return family == AF_UNSPEC || e->a.family == family;
}

/* The preferred usable address of the interface named like list->v[i]. */
static const struct netif *
netif_best(const struct netif_list *l, size_t i, int family)
{
	const struct netif	*best = &l->v[i];
	size_t			 j;

	for (j = i + 1; j < l->n; j++) {
		if (strcmp(l->v[j].name, best->name) == 0 &&
		    netif_usable(&l->v[j], family) &&
		    netif_pref(&l->v[j].a) < netif_pref(&best->a))
			best = &l->v[j];
	}
	return best;
}

static const char *
netif_family_name(int family)
{
	if (family == AF_INET)
		return "an IPv4";
	if (family == AF_INET6)
		return "an IPv6";
	return "an IP";
}

const struct netif *
netif_find(const struct netif_list *l, struct rx *rx, const char *pattern,
    int family, char **cause)
{
	char	*all;
	size_t	 i;
	int	 named = 0;

	for (i = 0; i < l->n; i++) {
		if (!rx_match(rx, l->v[i].name))
			continue;
		named = 1;
		if (netif_usable(&l->v[i], family))
			return netif_best(l, i, family);
	}
	all = netif_describe(l);
	if (named)
		util_fail(cause, "no interface matching '%s' is up with %s "
		    "address; interfaces: %s", pattern,
		    netif_family_name(family), all);
	else
		util_fail(cause, "no interface matches '%s'; interfaces: %s",
		    pattern, all);
	free(all);
	return NULL;
}

void
netif_names(struct buf *b, const struct netif_list *l, struct rx *rx)
{
	size_t	i, j;

	for (i = 0; i < l->n; i++) {
		if (!netif_usable(&l->v[i], AF_UNSPEC) ||
		    !rx_match(rx, l->v[i].name))
			continue;
		for (j = 0; j < i; j++)
			if (netif_usable(&l->v[j], AF_UNSPEC) &&
			    strcmp(l->v[j].name, l->v[i].name) == 0)
				break;
		if (j == i)
			buf_addf(b, "%s%s", b->len > 0 ? "," : "",
			    l->v[i].name);
	}
}

int
netif_owns(const struct netif_list *l, const struct netif_addrs *addrs)
{
	size_t	i, j;

	for (i = 0; i < addrs->n; i++) {
		if (netif_addr_is_loopback(&addrs->v[i]))
			continue;
		for (j = 0; j < l->n; j++) {
			if (netif_addr_equal(&l->v[j].a, &addrs->v[i]))
				return 1;
		}
	}
	return 0;
}

/* Appends " ADDR..." for every address of the interface named name,
 * and " (down)" once when it is down. */
static void
netif_describe_one(struct buf *b, const struct netif_list *l, size_t first)
{
	const char	*name = l->v[first].name;
	char		 s[NETIF_ADDRSTRLEN];
	size_t		 i;
	int		 addrs = 0, down = 0;

	buf_adds(b, name);
	for (i = first; i < l->n; i++) {
		if (strcmp(l->v[i].name, name) != 0)
			continue;
		down |= !l->v[i].up;
		if (l->v[i].a.family == 0)
			continue;
		netif_addr_format(&l->v[i].a, NULL, s, sizeof s);
		buf_addf(b, " %s", s);
		addrs++;
	}
	if (addrs == 0)
		buf_adds(b, " (no address)");
	if (down)
		buf_adds(b, " (down)");
}

char *
netif_describe(const struct netif_list *l)
{
	struct buf	b;
	size_t		i, j;

	buf_init(&b);
	for (i = 0; i < l->n; i++) {
		for (j = 0; j < i; j++) {
			if (strcmp(l->v[j].name, l->v[i].name) == 0)
				break;
		}
		if (j < i)
			continue;
		if (b.len > 0)
			buf_adds(&b, ", ");
		netif_describe_one(&b, l, i);
	}
	if (b.len == 0)
		buf_adds(&b, "none");
	return b.s;
}

/* Converts a sockaddr; 0 in a->family for anything not IPv4 or IPv6. */
static void
netif_from_sockaddr(struct netif_addr *a, const struct sockaddr *sa,
    const struct sockaddr *mask)
{
	memset(a, 0, sizeof *a);
	if (sa == NULL)
		return;
	if (sa->sa_family == AF_INET) {
		a->family = AF_INET;
		memcpy(a->addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		if (mask != NULL)
			memcpy(a->mask,
			    &((const struct sockaddr_in *)mask)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		a->family = AF_INET6;
		memcpy(a->addr, &((const struct sockaddr_in6 *)sa)->sin6_addr,
		    16);
		if (mask != NULL)
			memcpy(a->mask,
			    &((const struct sockaddr_in6 *)mask)->sin6_addr, 16);
	}
}

static int
netif_real_ifaddrs(void *arg, struct netif_list *l, char **cause)
{
	struct ifaddrs		*ifa, *p;
	struct netif_addr	 a;
	int			 inet;

	(void)arg;
	if (getifaddrs(&ifa) == -1)
		return util_fail(cause, "getifaddrs: %s", strerror(errno));
	for (p = ifa; p != NULL; p = p->ifa_next) {
		netif_from_sockaddr(&a, p->ifa_addr, p->ifa_netmask);
		inet = p->ifa_addr != NULL && (p->ifa_addr->sa_family ==
		    AF_INET || p->ifa_addr->sa_family == AF_INET6);
		/* Keep link entries (AF_PACKET) too, with no address, so
		 * interfaces without one still show up in messages. */
		if (inet || a.family == 0)
			netif_list_push(l, p->ifa_name,
			    (p->ifa_flags & IFF_UP) != 0)->a = a;
	}
	freeifaddrs(ifa);
	return 0;
}

static int
netif_real_hostname(void *arg, char *buf, size_t len, char **cause)
{
	(void)arg;
	if (gethostname(buf, len) == -1)
		return util_fail(cause, "gethostname: %s", strerror(errno));
	buf[len - 1] = '\0';
	return 0;
}

static int
netif_real_resolve(void *arg, const char *host, struct netif_addrs *addrs,
    char **cause)
{
	struct addrinfo		 hints, *res, *p;
	struct netif_addr	 a;
	size_t			 i;
	int			 error;

	(void)arg;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if ((error = resolve_addrinfo(host, NULL, &hints, &res)) != 0)
		return util_fail(cause, "cannot resolve '%s': %s", host,
		    error == EAI_SYSTEM ? strerror(errno) :
		    gai_strerror(error));
	for (p = res; p != NULL; p = p->ai_next) {
		netif_from_sockaddr(&a, p->ai_addr, NULL);
		for (i = 0; i < addrs->n; i++) {
			if (netif_addr_equal(&addrs->v[i], &a))
				break;
		}
		if (a.family != 0 && i == addrs->n)
			netif_addrs_add(addrs, &a);
	}
	resolve_free(res);
	return 0;
}

const struct netif_sys netif_sys_real = {
	netif_real_ifaddrs, netif_real_hostname, netif_real_resolve, NULL
};
