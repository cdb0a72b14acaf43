/* check_netif.c: unit tests for interface matching, addresses and messages. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "netif.h"
#include "rx.h"
#include "testlib.h"
#include "util.h"

static struct netif_list	ifs;

/* A machine with loopback, a management network, a down high-speed
 * interface, an IPv6-only one and one without addresses, in the order
 * getifaddrs gives them (links, then IPv4, then IPv6). */
static const struct t_if machine_ifs[] = {
	{ "lo", 1, NULL, 0 },
	{ "eth0", 1, NULL, 0 },
	{ "eth3", 0, NULL, 0 },
	{ "nmn0", 1, NULL, 0 },
	{ "hsn0", 1, NULL, 0 },
	{ "ib0", 1, NULL, 0 },
	{ "lo", 1, "127.0.0.1", 8 },
	{ "eth0", 1, "10.0.0.2", 24 },
	{ "eth3", 0, "10.3.0.2", 16 },
	{ "nmn0", 1, "10.100.0.7", 22 },
	{ "lo", 1, "::1", 128 },
	{ "eth0", 1, "fe80::2", 64 },
	{ "eth0", 1, "fd00::2", 64 },
	{ "hsn0", 1, "fe80::10", 64 },
	{ "nmn0", 1, "fd01::7", 64 },
	{ NULL, 0, NULL, 0 }
};

static void
setup(void)
{
	netif_list_init(&ifs);
	t_net_ifs(&ifs, machine_ifs);
}

static void
teardown(void)
{
	netif_list_free(&ifs);
}

static char *
find(const char *pattern, int family, const char **name)
{
	const struct netif	*e;
	struct rx		 rx;
	char			*cause = NULL, s[NETIF_ADDRSTRLEN];

	ck_assert_int_eq(rx_compile(&rx, pattern, &cause), 0);
	e = netif_find(&ifs, &rx, pattern, family, &cause);
	rx_free(&rx);
	if (e == NULL)
		return cause;
	*name = e->name;
	netif_addr_format(&e->a, e->name, s, sizeof s);
	return strdup(s);
}

static void
expect_find(const char *pattern, int family, const char *want_name,
    const char *want_addr)
{
	const char	*name = NULL;
	char		*got = find(pattern, family, &name);

	ck_assert_msg(name != NULL, "%s: %s", pattern, got);
	ck_assert_str_eq(name, want_name);
	ck_assert_str_eq(got, want_addr);
	free(got);
}

static void
expect_miss(const char *pattern, int family, const char *want)
{
	const char	*name = NULL;
	char		*got = find(pattern, family, &name);

	ck_assert_ptr_null(name);
	ck_assert_str_eq(got, want);
	free(got);
}

#define ALL	"lo 127.0.0.1 ::1, eth0 10.0.0.2 fe80::2 fd00::2, " \
		"eth3 10.3.0.2 (down), nmn0 10.100.0.7 fd01::7, " \
		"hsn0 fe80::10, ib0 (no address)"

START_TEST(test_find_first)
{
	expect_find("^eth0$", AF_INET, "eth0", "10.0.0.2");
	expect_find("^nmn0$", AF_UNSPEC, "nmn0", "10.100.0.7");
	/* Partial matches are PCRE2's: "eth" matches eth0 first. */
	expect_find("eth", AF_INET, "eth0", "10.0.0.2");
	expect_find("^(eth3|nmn0)$", AF_INET, "nmn0", "10.100.0.7");
	expect_find("^lo$", AF_INET, "lo", "127.0.0.1");
	expect_find("^lo$", AF_INET6, "lo", "::1");
}
END_TEST

START_TEST(test_find_family)
{
	/* Within eth0, a global IPv6 address beats a link-local one even
	 * when the link-local one comes first. */
	expect_find("^eth0$", AF_INET6, "eth0", "fd00::2");
	expect_find("^nmn0$", AF_INET6, "nmn0", "fd01::7");
	/* A link-local address only when there is nothing else; it needs
	 * the interface as its scope to be usable. */
	expect_find("^hsn", AF_INET6, "hsn0", "fe80::10%hsn0");
	expect_find("^hsn", AF_UNSPEC, "hsn0", "fe80::10%hsn0");
	/* The first interface with an address of the family wins. */
	expect_find("^(hsn0|eth0)$", AF_INET, "eth0", "10.0.0.2");
	expect_find("^(hsn0|nmn0)$", AF_UNSPEC, "nmn0", "10.100.0.7");
}
END_TEST

START_TEST(test_find_errors)
{
	expect_miss("^eth9$", AF_INET,
	    "no interface matches '^eth9$'; interfaces: " ALL);
	expect_miss("^eth3$", AF_INET,
	    "no interface matching '^eth3$' is up with an IPv4 address; "
	    "interfaces: " ALL);
	expect_miss("^hsn0$", AF_INET,
	    "no interface matching '^hsn0$' is up with an IPv4 address; "
	    "interfaces: " ALL);
	expect_miss("^ib0$", AF_UNSPEC,
	    "no interface matching '^ib0$' is up with an IP address; "
	    "interfaces: " ALL);
	expect_miss("^eth3$", AF_INET6,
	    "no interface matching '^eth3$' is up with an IPv6 address; "
	    "interfaces: " ALL);
}
END_TEST

START_TEST(test_describe)
{
	struct netif_list	 l;
	char			*s;

	s = netif_describe(&ifs);
	ck_assert_str_eq(s, ALL);
	free(s);
	netif_list_init(&l);
	s = netif_describe(&l);
	ck_assert_str_eq(s, "none");
	free(s);
}
END_TEST

START_TEST(test_addr)
{
	struct netif_addr	a, net;
	char			s[NETIF_ADDRSTRLEN];

	ck_assert_int_eq(netif_addr_parse(&a, "10.1.2.3"), 0);
	ck_assert_int_eq(a.family, AF_INET);
	ck_assert_int_eq(netif_addr_parse(&a, "fe80::1"), 0);
	ck_assert_int_eq(a.family, AF_INET6);
	ck_assert_int_eq(netif_addr_parse(&a, "nid01"), -1);
	ck_assert_int_eq(netif_addr_parse(&a, "10.1.2"), -1);
	ck_assert_int_eq(netif_addr_parse(&a, ""), -1);

	netif_addr_parse(&net, "10.1.0.1");
	netif_addr_prefix(&net, 20);
	ck_assert_int_eq(net.mask[0], 0xff);
	ck_assert_int_eq(net.mask[1], 0xff);
	ck_assert_int_eq(net.mask[2], 0xf0);
	ck_assert_int_eq(net.mask[3], 0);
	netif_addr_parse(&a, "10.1.15.200");
	ck_assert(netif_addr_in_subnet(&a, &net));
	netif_addr_parse(&a, "10.1.16.1");
	ck_assert(!netif_addr_in_subnet(&a, &net));
	netif_addr_parse(&a, "fd00::1");
	ck_assert(!netif_addr_in_subnet(&a, &net));

	netif_addr_parse(&net, "fd00:1:2:3::9");
	netif_addr_prefix(&net, 64);
	netif_addr_parse(&a, "fd00:1:2:3:ffff::1");
	ck_assert(netif_addr_in_subnet(&a, &net));
	netif_addr_parse(&a, "fd00:1:2:4::1");
	ck_assert(!netif_addr_in_subnet(&a, &net));

	netif_addr_parse(&a, "127.0.1.1");
	ck_assert(netif_addr_is_loopback(&a));
	netif_addr_parse(&a, "::1");
	ck_assert(netif_addr_is_loopback(&a));
	netif_addr_parse(&a, "10.0.0.1");
	ck_assert(!netif_addr_is_loopback(&a));
	netif_addr_parse(&net, "10.0.0.1");
	ck_assert(netif_addr_equal(&a, &net));
	netif_addr_parse(&net, "10.0.0.2");
	ck_assert(!netif_addr_equal(&a, &net));

	netif_addr_parse(&a, "fe80::1");
	netif_addr_format(&a, "eth3", s, sizeof s);
	ck_assert_str_eq(s, "fe80::1%eth3");
	netif_addr_format(&a, NULL, s, sizeof s);
	ck_assert_str_eq(s, "fe80::1");
	netif_addr_parse(&a, "fd00::1");
	netif_addr_format(&a, "eth3", s, sizeof s);
	ck_assert_str_eq(s, "fd00::1");
	ck_assert_int_eq(netif_list_add(&ifs, "x", 1, "10.0.0.300", 24), -1);
}
END_TEST

START_TEST(test_owns)
{
	struct netif_addrs	addrs;
	struct netif_addr	a;

	netif_addrs_init(&addrs);
	ck_assert(!netif_owns(&ifs, &addrs));
	/* Loopback says nothing about which node this is. */
	netif_addr_parse(&a, "127.0.0.1");
	netif_addrs_add(&addrs, &a);
	ck_assert(!netif_owns(&ifs, &addrs));
	netif_addr_parse(&a, "10.9.9.9");
	netif_addrs_add(&addrs, &a);
	ck_assert(!netif_owns(&ifs, &addrs));
	netif_addr_parse(&a, "fd01::7");
	netif_addrs_add(&addrs, &a);
	ck_assert(netif_owns(&ifs, &addrs));
	netif_addrs_free(&addrs);
}
END_TEST

/* The real seam: this machine has a loopback interface, a host name,
 * and resolves numeric addresses without DNS. */
START_TEST(test_real)
{
	struct netif_list	 l;
	struct netif_addrs	 addrs;
	struct netif_addr	 a;
	char			 host[256], *cause = NULL;
	size_t			 i;
	int			 lo = 0;

	netif_list_init(&l);
	ck_assert_int_eq(netif_sys_real.ifaddrs(NULL, &l, &cause), 0);
	for (i = 0; i < l.n; i++)
		lo |= strcmp(l.v[i].name, "lo") == 0;
	ck_assert(lo);
	netif_list_free(&l);

	ck_assert_int_eq(netif_sys_real.hostname(NULL, host, sizeof host,
	    &cause), 0);
	ck_assert_int_gt(strlen(host), 0);

	netif_addrs_init(&addrs);
	ck_assert_int_eq(netif_sys_real.resolve(NULL, "192.0.2.7", &addrs,
	    &cause), 0);
	ck_assert_uint_eq(addrs.n, 1);
	netif_addr_parse(&a, "192.0.2.7");
	ck_assert(netif_addr_equal(&addrs.v[0], &a));
	netif_addrs_free(&addrs);
	ck_assert_int_eq(netif_sys_real.resolve(NULL, "no-such-host.invalid",
	    &addrs, &cause), -1);
	ck_assert_msg(strncmp(cause, "cannot resolve 'no-such-host.invalid': ",
	    39) == 0, "%s", cause);
	free(cause);
}
END_TEST

static Suite *
netif_suite(void)
{
	Suite	*s = suite_create("netif");
	TCase	*tc;

	tc = tcase_create("find");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_find_first);
	tcase_add_test(tc, test_find_family);
	tcase_add_test(tc, test_find_errors);
	tcase_add_test(tc, test_describe);
	tcase_add_test(tc, test_addr);
	tcase_add_test(tc, test_owns);
	suite_add_tcase(s, tc);

	tc = tcase_create("real");
	tcase_add_test(tc, test_real);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(netif_suite());
}
