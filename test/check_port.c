/* check_port.c: unit tests for --port, --port-range, the formula and the bind check. */
#include "config.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "auth.h"
#include "port.h"
#include "testlib.h"
#include "util.h"

static void
expect_parse_error(const char *s, const char *want)
{
	char	*cause = NULL;
	int	 port;

	ck_assert_int_eq(vocab_port_parse(s, &port, &cause), -1);
	ck_assert_str_eq(cause, want);
	free(cause);
}

static void
expect_range_error(const char *s)
{
	char	*cause = NULL, want[128];
	int	 lo, hi;

	ck_assert_int_eq(vocab_port_range(s, &lo, &hi, &cause), -1);
	snprintf(want, sizeof want, "bad port range '%s': expected LO-HI "
	    "with 1 <= LO <= HI <= 65535", s);
	ck_assert_str_eq(cause, want);
	free(cause);
}

START_TEST(test_parse)
{
	int	port = -1;

	ck_assert_int_eq(vocab_port_parse("auto", &port, NULL), 0);
	ck_assert_int_eq(port, 0);
	ck_assert_int_eq(vocab_port_parse("29500", &port, NULL), 0);
	ck_assert_int_eq(port, 29500);
	ck_assert_int_eq(vocab_port_parse("1", &port, NULL), 0);
	ck_assert_int_eq(port, 1);
	ck_assert_int_eq(vocab_port_parse("65535", &port, NULL), 0);
	ck_assert_int_eq(port, 65535);
	expect_parse_error("0", "'0' is not auto or a number from 1 to 65535");
	expect_parse_error("65536", "'65536' is not auto or a number "
	    "from 1 to 65535");
	expect_parse_error("", "'' is not auto or a number from 1 to 65535");
	expect_parse_error("AUTO", "'AUTO' is not auto or a number from 1 to 65535");
	expect_parse_error("80x", "'80x' is not auto or a number from 1 to 65535");
	expect_parse_error(" 80", "' 80' is not auto or a number from 1 to 65535");
}
END_TEST

START_TEST(test_parse_range)
{
	int	lo = 0, hi = 0;

	ck_assert_int_eq(vocab_port_range("20000-29999", &lo, &hi, NULL), 0);
	ck_assert_int_eq(lo, 20000);
	ck_assert_int_eq(hi, 29999);
	ck_assert_int_eq(vocab_port_range("5000-5000", &lo, &hi, NULL), 0);
	ck_assert_int_eq(lo, 5000);
	ck_assert_int_eq(hi, 5000);
	expect_range_error("5000");
	expect_range_error("5000-");
	expect_range_error("-5000");
	expect_range_error("6000-5000");
	expect_range_error("0-10");
	expect_range_error("1-65536");
	expect_range_error("a-b");
	expect_range_error("1000000-2");
	expect_range_error("1-2-3");
	expect_range_error("");
}
END_TEST

START_TEST(test_auto)
{
	uint64_t	id;
	int		p;

	/* The man page's example. */
	ck_assert_int_eq(port_auto(123456, -1, -1, 20000, 29999), 23456);
	/* n = JOBID, then n * 1009 + TASK, then n * 1009 + STEP. */
	ck_assert_int_eq(port_auto(123456, 3, -1, 20000, 29999),
	    20000 + (int)((123456ULL * 1009 + 3) % 10000));
	ck_assert_int_eq(port_auto(123456, 3, 0, 20000, 29999),
	    20000 + (int)(((123456ULL * 1009 + 3) * 1009) % 10000));
	ck_assert_int_eq(port_auto(123456, -1, 2, 20000, 29999),
	    20000 + (int)((123456ULL * 1009 + 2) % 10000));
	/* Steps of one job and neighbouring jobs get different ports. */
	ck_assert_int_ne(port_auto(5, -1, 1, 20000, 29999),
	    port_auto(6, -1, 0, 20000, 29999));
	ck_assert_int_ne(port_auto(5, -1, 0, 20000, 29999),
	    port_auto(5, -1, 1, 20000, 29999));
	ck_assert_int_eq(port_auto(UINT64_MAX, -1, -1, 1, 65535),
	    1 + (int)(UINT64_MAX % 65535));
	ck_assert_int_eq(port_auto(77, 4, 9, 40000, 40000), 40000);
	for (id = 0; id < 100000; id += 7) {
		p = port_auto(id * 104729, (int64_t)id % 3 - 1,
		    (int64_t)id % 5 - 1, 1024, 2047);
		ck_assert_int_ge(p, 1024);
		ck_assert_int_le(p, 2047);
	}
}
END_TEST

/* Under a secret: the documented HMAC, checked against Python's hmac
 * module (test values computed once); another secret, another port. */
START_TEST(test_auto_secret)
{
	struct auth	 a, b;
	char		*cause = NULL;
	int		 p;

	ck_assert_int_eq(auth_parse(&a, "00112233445566778899aabbccddeeff\n",
	    "test", &cause), 0);
	ck_assert_int_eq(port_auto_secret(&a, 123456, -1, -1, 20000, 29999),
	    23726);
	ck_assert_int_eq(port_auto_secret(&a, 123456, 3, 0, 20000, 29999),
	    26254);
	ck_assert_int_eq(auth_parse(&b, "00112233445566778899aabbccddeefe",
	    "test", &cause), 0);
	ck_assert_int_ne(port_auto_secret(&b, 123456, -1, -1, 20000, 29999),
	    23726);
	p = port_auto_secret(&b, 7, 1, 2, 1024, 1030);
	ck_assert_int_ge(p, 1024);
	ck_assert_int_le(p, 1030);
}
END_TEST

/* The first 8 bytes of the MAC under label, big-endian, into the range:
 * the derivation computed here from auth_mac, not from port.c. */
static int
mac_port(const struct auth *a, const char *label, const char *msg, int lo,
    int hi)
{
	unsigned char	mac[AUTH_MAC_LEN];
	uint64_t	n = 0;
	int		i;

	auth_mac(a, label, msg, strlen(msg), mac);
	for (i = 0; i < 8; i++)
		n = n << 8 | mac[i];
	return lo + (int)(n % (uint64_t)(hi - lo + 1));
}

/* The labels: the training's port under "ddprank port", the doctor's
 * under "ddprank doctor port", of the same "JOBID TASK STEP"; the
 * doctor's is never the training's. */
START_TEST(test_doctor_port)
{
	struct auth	 a;
	char		*cause = NULL;
	int		 train, doc, i;

	ck_assert_int_eq(auth_parse(&a, "00112233445566778899aabbccddeeff",
	    "test", &cause), 0);
	ck_assert_int_eq(port_auto_secret(&a, 123456, 3, 0, 20000, 29999),
	    mac_port(&a, "ddprank port", "123456 3 0", 20000, 29999));
	train = port_auto_secret(&a, 123456, 3, 1, 20000, 29999);
	doc = port_doctor(&a, 1, 123456, 3, 0, train, 20000, 29999);
	ck_assert_int_eq(doc, mac_port(&a, "ddprank doctor port",
	    "123456 3 0", 20000, 29999));
	ck_assert_int_ne(doc, train);
	ck_assert_int_ne(doc, port_auto_secret(&a, 123456, 3, 0, 20000,
	    29999));
	/* A clash moves to the next port, the range wrapping. */
	for (i = 0; i < 2000; i++) {
		train = port_auto_secret(&a, (uint64_t)i, -1, 0, 20000, 20009);
		doc = port_doctor(&a, 1, (uint64_t)i, -1, -1, train, 20000,
		    20009);
		ck_assert_int_ne(doc, train);
		ck_assert_int_ge(doc, 20000);
		ck_assert_int_le(doc, 20009);
	}
	/* Without a secret or a job: half the range away. */
	ck_assert_int_eq(port_doctor(NULL, 1, 7, -1, -1, 20000, 20000, 29999),
	    25000);
	ck_assert_int_eq(port_doctor(&a, 0, 0, -1, -1, 29999, 20000, 29999),
	    24999);
	/* A --port below the range: (1000 - 20000) mod 10000 is 1000. */
	ck_assert_int_eq(port_doctor(NULL, 0, 0, -1, -1, 1000, 20000, 29999),
	    26000);
	/* A range of the training's port alone. */
	ck_assert_int_eq(port_doctor(&a, 1, 7, -1, -1, 29500, 29500, 29500),
	    29501);
	ck_assert_int_eq(port_doctor(&a, 1, 7, -1, -1, 65535, 65535, 65535),
	    65534);
}
END_TEST

/* The message wanted is formatted from fmt and the arguments after it. */
static void __attribute__((format(printf, 3, 4)))
expect_check_error(const char *addr, int port, const char *fmt, ...)
{
	va_list	 ap;
	char	*cause = NULL, want[256];

	ck_assert_int_eq(port_check(addr, port, &cause), -1);
	va_start(ap, fmt);
	vsnprintf(want, sizeof want, fmt, ap);
	va_end(ap);
	ck_assert_str_eq(cause, want);
	free(cause);
}

static void
expect_in_use(const char *addr, int port)
{
	expect_check_error(addr, port, "port %d is already in use on this "
	    "host (checked as torch's store binds it: on [::] (dual-stack), "
	    "then on 0.0.0.0); choose another with --port N", port);
}

/* A listener on ::1, for the dual-stack check; -1 without IPv6. */
static int
listener6(int port)
{
	struct sockaddr_in6	sin6;
	int			fd;

	if ((fd = socket(AF_INET6, SOCK_STREAM, 0)) == -1)
		return -1;
	memset(&sin6, 0, sizeof sin6);
	sin6.sin6_family = AF_INET6;
	sin6.sin6_addr = in6addr_loopback;
	sin6.sin6_port = htons((uint16_t)port);
	if (bind(fd, (struct sockaddr *)&sin6, sizeof sin6) == -1 ||
	    listen(fd, 1) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* As torch's TCPStore binds: a port taken on 127.0.0.1 only (which
 * binding the node's own address would not see) is in use. */
START_TEST(test_check)
{
	char	*cause = NULL;
	int	 fd, port;

	fd = t_listener(&port);
	expect_check_error("127.0.0.1", port, "port %d is already in use on "
	    "127.0.0.1; choose another with --port N", port);
	/* Taken on 127.0.0.1 only: free on the node's other addresses
	 * (127.0.0.2 stands for one), but not where torch's TCPStore
	 * binds, the dual-stack wildcard. */
	expect_in_use("127.0.0.2", port);
	/* Names are not resolved: the wildcard is checked. */
	expect_in_use("localhost", port);
	expect_in_use(NULL, port);
	close(fd);
	/* SO_REUSEADDR: a port left in TIME_WAIT or just closed is fine. */
	ck_assert_int_eq(port_check("127.0.0.1", port, &cause), 0);
	ck_assert_int_eq(port_check(NULL, port, &cause), 0);
	ck_assert_int_eq(port_check("::1", port, &cause), 0);
	/* Taken on IPv6 alone: both of torch's backends (legacy, libuv)
	 * then bind 0.0.0.0, and so would the store; the IPv6 master's
	 * own address is in use. */
	if ((fd = listener6(port)) != -1) {
		ck_assert_int_eq(port_check(NULL, port, &cause), 0);
		ck_assert_int_eq(port_check("127.0.0.1", port, &cause), 0);
		expect_check_error("::1", port, "port %d is already in use on "
		    "::1; choose another with --port N", port);
		close(fd);
	}
	/* 192.0.2.0/24 is TEST-NET-1, never an address of this host. */
	expect_check_error("192.0.2.77", port, "cannot bind port %d: "
	    "192.0.2.77 is not an address of this host", port);
}
END_TEST

static Suite *
port_suite(void)
{
	Suite	*s = suite_create("port");
	TCase	*tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_parse_range);
	tcase_add_test(tc, test_auto);
	tcase_add_test(tc, test_auto_secret);
	tcase_add_test(tc, test_doctor_port);
	suite_add_tcase(s, tc);

	tc = tcase_create("check");
	tcase_add_test(tc, test_check);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(port_suite());
}
