/* testnet.c: a fake machine for the suites that test what reads the
 * network through struct netif_sys: its interfaces, host name and name
 * resolution, from tables. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "netif.h"
#include "testlib.h"
#include "util.h"
#include "xmalloc.h"

void
t_net_ifs(struct netif_list *l, const struct t_if *ifs)
{
	const struct t_if	*i;

	for (i = ifs; i->name != NULL; i++)
		ck_assert_int_eq(netif_list_add(l, i->name, i->up, i->addr,
		    i->prefix), 0);
}

static int
net_ifaddrs(void *arg, struct netif_list *l, char **cause)
{
	struct t_net	*net = arg;

	if (net->ifs == NULL)
		return util_fail(cause, "getifaddrs: Too many open files");
	t_net_ifs(l, net->ifs);
	return 0;
}

static int
net_hostname(void *arg, char *buf, size_t len, char **cause)
{
	struct t_net	*net = arg;

	if (net->hostname == NULL)
		return util_fail(cause, "gethostname: Bad address");
	snprintf(buf, len, "%s", net->hostname);
	return 0;
}

/* The line of dns for host: its own, else the "*" one, else NULL. */
static const char *
dns_line(const char *const *dns, const char *host)
{
	const char *const	*d;
	const char		*any = NULL;
	size_t			 n = strlen(host);

	for (d = dns; d != NULL && *d != NULL; d++) {
		if (strncmp(*d, host, n) == 0 && (*d)[n] == '=')
			return *d + n + 1;
		if (strncmp(*d, "*=", 2) == 0)
			any = *d + 2;
	}
	return any;
}

static int
net_resolve(void *arg, const char *host, struct netif_addrs *addrs,
    char **cause)
{
	struct t_net		*net = arg;
	struct netif_addr	 a;
	const char		*line;
	char			*copy, *w, *last;

	net->resolved++;
	if ((line = dns_line(net->dns, host)) == NULL)
		return util_fail(cause, "cannot resolve '%s': Name or service "
		    "not known", host);
	copy = xstrdup(line);
	for (w = strtok_r(copy, " ", &last); w != NULL;
	    w = strtok_r(NULL, " ", &last)) {
		ck_assert_int_eq(netif_addr_parse(&a, w), 0);
		netif_addrs_add(addrs, &a);
	}
	free(copy);
	return 0;
}

struct netif_sys
t_net_sys(struct t_net *net)
{
	struct netif_sys	sys = { net_ifaddrs, net_hostname, net_resolve,
				    net };

	return sys;
}
