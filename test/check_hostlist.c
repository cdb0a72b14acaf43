/* check_hostlist.c: unit tests for hostlist.c, Slurm hostlist expressions
 * (expected expansions are what scontrol show hostnames prints, 22.05). */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <check.h>

#include "hostlist.h"
#include "testlib.h"
#include "util.h"
#include "xmalloc.h"

#define nitems(a)	(sizeof (a) / sizeof (a)[0])

/* All hosts of expr joined by spaces, or "error: CAUSE". Caller frees. */
static char *
expand(const char *expr)
{
	struct hostlist	*hl;
	struct buf	 b;
	char		*cause = NULL, *s, name[HOSTLIST_NAME_MAX + 1];
	uint64_t	 i;

	if ((hl = hostlist_parse(expr, &cause)) == NULL) {
		ck_assert_ptr_nonnull(cause);
		xasprintf(&s, "error: %s", cause);
		free(cause);
		return s;
	}
	buf_init(&b);
	for (i = 0; i < hostlist_count(hl); i++) {
		ck_assert_int_ge(hostlist_nth(hl, i, name, sizeof name), 0);
		buf_addf(&b, "%s%s", i > 0 ? " " : "", name);
	}
	hostlist_free(hl);
	return b.s;
}

#define EXPANDS(expr, want) do {					\
	char	*got_ = expand(expr);					\
	ck_assert_msg(strcmp(got_, (want)) == 0,			\
	    "[%s] gives [%s], want [%s]", (expr), got_, (want));	\
	free(got_);							\
} while (0)

static struct hostlist *
parse_ok(const char *expr)
{
	struct hostlist	*hl;
	char		*cause = NULL;

	hl = hostlist_parse(expr, &cause);
	ck_assert_msg(hl != NULL, "[%s]: %s", expr, cause);
	return hl;
}

/* The oracle for hostlist_find: walk the whole expansion. */
static int
same_host(const char *a, const char *b, int flags)
{
	size_t	la = strlen(a), lb = strlen(b), i;

	if (flags & HOSTLIST_SHORT) {
		la = strcspn(a, ".");
		lb = strcspn(b, ".");
	}
	if (la != lb)
		return 0;
	for (i = 0; i < la; i++) {
		if (a[i] == b[i])
			continue;
		if (!(flags & HOSTLIST_ICASE) ||
		    tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
			return 0;
	}
	return 1;
}

static void
expand_list(const struct hostlist *hl, struct strlist *hosts)
{
	char		host[HOSTLIST_NAME_MAX + 1];
	uint64_t	i;

	strlist_init(hosts);
	for (i = 0; i < hostlist_count(hl); i++) {
		ck_assert_int_ge(hostlist_nth(hl, i, host, sizeof host), 0);
		strlist_add(hosts, host);
	}
}

static int64_t
brute_find(const struct strlist *hosts, const char *name, int flags)
{
	size_t	i;

	for (i = 0; i < hosts->n; i++) {
		if (same_host(hosts->v[i], name, flags))
			return (int64_t)i;
	}
	return -1;
}

/* hosts is the expansion of hl, made with hostlist_nth. */
static void
find_agrees(const struct hostlist *hl, const struct strlist *hosts,
    const char *expr, const char *name, int flags)
{
	int64_t	got = hostlist_find(hl, name, flags);
	int64_t	want = brute_find(hosts, name, flags);

	ck_assert_msg(got == want, "find [%s] flags %d in [%s]: %lld, "
	    "expansion says %lld", name, flags, expr, (long long)got,
	    (long long)want);
}

#define FINDS(hl, name, flags, want) do {				\
	int64_t	got_ = hostlist_find((hl), (name), (flags));		\
	ck_assert_msg(got_ == (want), "find [%s]: %lld, want %lld",	\
	    (name), (long long)got_, (long long)(want));		\
} while (0)

START_TEST(test_separators)
{
	EXPANDS("a b,c\td", "a b c d");
	EXPANDS(",a", "a");
	EXPANDS("a,", "a");
	EXPANDS(",,a,,b,,", "a b");
	EXPANDS(" a  b ", "a b");
	EXPANDS("\t,a, \tb", "a b");
	EXPANDS("n[1-3]\tm", "n1 n2 n3 m");
	EXPANDS("n[1-3],", "n1 n2 n3");
	/* separators inside brackets do not split */
	EXPANDS("n[1,3],m[4-5]", "n1 n3 m4 m5");
	/* anything else is part of a name */
	EXPANDS("a;b a/b a:b[1-2] a=b[1]", "a;b a/b a:b1 a:b2 a=b1");
}
END_TEST

START_TEST(test_ranges)
{
	EXPANDS("nid[001-003,007]", "nid001 nid002 nid003 nid007");
	EXPANDS("linux[1,2]", "linux1 linux2");
	EXPANDS("n[7]", "n7");
	EXPANDS("n[1-1]", "n1");
	EXPANDS("n[1-3,5-6,02]", "n1 n2 n3 n5 n6 n02");
	EXPANDS("n1[1-2]", "n11 n12");
	EXPANDS("n0[01-02]", "n001 n002");
	EXPANDS("[1-3]", "1 2 3");
	EXPANDS("foo.bar[1-2]", "foo.bar1 foo.bar2");
	/* Slurm reads "7-" as "7" */
	EXPANDS("n[1-]", "n1");
	EXPANDS("n[01-]", "n01");
	EXPANDS("n[1-,4]", "n1 n4");
	/* 64-bit numbers */
	EXPANDS("n[4294967295-4294967296]", "n4294967295 n4294967296");
	EXPANDS("n[18446744073709551615]", "n18446744073709551615");
	/* scontrol 22.05 loops and crashes here; the arithmetic is fine */
	EXPANDS("n[18446744073709551614-18446744073709551615]",
	    "n18446744073709551614 n18446744073709551615");
}
END_TEST

START_TEST(test_padding)
{
	EXPANDS("n[001-3]", "n001 n002 n003");
	EXPANDS("node[8-10]", "node8 node9 node10");
	EXPANDS("n[1-0003]", "n1 n2 n3");
	EXPANDS("n[9-0011]", "n9 n10 n11");
	EXPANDS("n[098-0101]", "n098 n099 n100 n101");
	EXPANDS("n[0-0]", "n0");
	EXPANDS("n[00-0]", "n00");
	EXPANDS("n[000]", "n000");
	EXPANDS("n[01-2,3]", "n01 n02 n3");
	EXPANDS("n[98-101]", "n98 n99 n100 n101");
	EXPANDS("n[0998-1001]", "n0998 n0999 n1000 n1001");
	EXPANDS("n[000000000000000000000001-2]",
	    "n000000000000000000000001 n000000000000000000000002");
}
END_TEST

START_TEST(test_cartesian)
{
	EXPANDS("rack[1-2]-node[01-02]",
	    "rack1-node01 rack1-node02 rack2-node01 rack2-node02");
	EXPANDS("n[1-2][3-4]", "n13 n14 n23 n24");
	EXPANDS("[1-2][3-4]", "13 14 23 24");
	EXPANDS("n[1-2]-[3-4]", "n1-3 n1-4 n2-3 n2-4");
	EXPANDS("n[1-3]a[1-2]", "n1a1 n1a2 n2a1 n2a2 n3a1 n3a2");
	/* With three or more groups Slurm runs the last fastest, then the
	 * first, second...: the one before last is outermost. */
	EXPANDS("a[1-2][3-4][5-6]", "a135 a136 a235 a236 a145 a146 a245 a246");
	EXPANDS("a[1-3]_[4-5]_[6-7]", "a1_4_6 a1_4_7 a2_4_6 a2_4_7 a3_4_6 "
	    "a3_4_7 a1_5_6 a1_5_7 a2_5_6 a2_5_7 a3_5_6 a3_5_7");
	EXPANDS("a[1-2][3-4][5-6][7-8]", "a1357 a1358 a2357 a2358 a1457 a1458 "
	    "a2457 a2458 a1367 a1368 a2367 a2368 a1467 a1468 a2467 a2468");
}
END_TEST

/* Slurm 23.11's suffix after the last group, as 24.11 expands it. */
START_TEST(test_suffix)
{
	EXPANDS("nc[1-2]-ib", "nc1-ib nc2-ib");
	EXPANDS("node[0001-0003]-int", "node0001-int node0002-int "
	    "node0003-int");
	EXPANDS("lh-7t[1-2]:0", "lh-7t1:0 lh-7t2:0");
	EXPANDS("x[1-2]y[3-4]z", "x1y3z x1y4z x2y3z x2y4z");
	EXPANDS("ok,host[1-2]-ib,ok", "ok host1-ib host2-ib ok");
	EXPANDS("N[1-2].ib", "N1.ib N2.ib");
	EXPANDS("a[1-2]b]", "a1b] a2b]");
	EXPANDS("n[1-3]]", "n1] n2] n3]");
	EXPANDS("q[1-2]-[3]]x", "q1-3]x q2-3]x");
}
END_TEST

START_TEST(test_duplicates)
{
	EXPANDS("n1,n1", "n1 n1");
	EXPANDS("n[1,1]", "n1 n1");
	EXPANDS("n[1-3,2-4]", "n1 n2 n3 n2 n3 n4");
	EXPANDS("n[1-2],n[2-3]", "n1 n2 n2 n3");
}
END_TEST

START_TEST(test_odd_names)
{
	EXPANDS("alpha,beta", "alpha beta");
	EXPANDS("jean-zay-ia[810-811]", "jean-zay-ia810 jean-zay-ia811");
	EXPANDS("a-[1-2]", "a-1 a-2");
	EXPANDS("A[1-2]", "A1 A2");
	EXPANDS("n1-3", "n1-3");
	EXPANDS("-", "-");
	EXPANDS("a..b", "a..b");
	/* a ']' in a name without brackets is an ordinary character */
	EXPANDS("x],y", "x] y");
	EXPANDS("]", "]");
	EXPANDS("n]1", "n]1");
	EXPANDS("\xc3\xa9[1-2]", "\xc3\xa9" "1 \xc3\xa9" "2");
}
END_TEST

/* Peers' known bugs: each of these was once read wrongly elsewhere. */
START_TEST(test_peer_regressions)
{
	EXPANDS("rack[1-2]-node[01-04]", "rack1-node01 rack1-node02 "
	    "rack1-node03 rack1-node04 rack2-node01 rack2-node02 rack2-node03 "
	    "rack2-node04");
	EXPANDS("linux[1,2]", "linux1 linux2");
	EXPANDS("jean-zay-ia[810-811]", "jean-zay-ia810 jean-zay-ia811");
	EXPANDS("alpha,beta", "alpha beta");
	EXPANDS("jean-zay-ia[810-811],alpha", "jean-zay-ia810 jean-zay-ia811 "
	    "alpha");
}
END_TEST

/* Rejections: the message must name the offending part. */
static const struct {
	const char	*expr;
	const char	*part;
} bad[] = {
	{ "n[3-1]", "decreasing range \"3-1\" in \"n[3-1]\"" },
	{ "n[]", "empty range in \"n[]\"" },
	{ "n[1-3,]", "empty range in \"n[1-3,]\"" },
	{ "n[,1]", "empty range in \"n[,1]\"" },
	{ "n[1,,2]", "empty range" },
	{ "[]", "empty range in \"[]\"" },
	{ "n[1-2/2]", "invalid range \"1-2/2\"" },
	{ "n[a-b]", "\"a-b\"" },
	{ "n[1x]", "\"1x\"" },
	{ "n[1-3x]", "\"1-3x\"" },
	{ "n[-3]", "\"-3\"" },
	{ "n[--]", "\"--\"" },
	{ "n[-]", "\"-\"" },
	{ "n[1-2-3]", "\"1-2-3\"" },
	{ "n[1..3]", "\"1..3\"" },
	{ "n[0x1-0x3]", "\"0x1-0x3\"" },
	{ "n[1-3", "unclosed bracket in \"n[1-3\"" },
	{ "a,n[1-3 m", "unclosed bracket in \"n[1-3 m\"" },
	{ "a[1", "unclosed bracket" },
	{ "[", "unclosed bracket" },
	{ "a[1-2]b[2", "unclosed bracket" },
	{ "n[1-3]x[", "unclosed bracket" },
	{ "n[[1-2]]", "nested brackets in \"n[[1-2]]\"" },
	{ "n[1-3,x[2]", "nested brackets" },
	{ "n[1-2]]x[3-4]", "stray \"]\" in \"n[1-2]]x[3-4]\"" },
	{ "a]b[1,2]", "stray \"]\" in \"a]b[1,2]\"" },
	{ "a]b[1-2]", "stray \"]\"" },
	{ "n[ 1-3]", "invalid range \" 1-3\"" },
	{ "n[1, 3]", "invalid range \" 3\"" },
	{ "n[1 -3]", "\"1 -3\"" },
	{ "n[1-3 ]", "\"1-3 \"" },
	{ "n[ ]", "\" \"" },
	{ "n[1-\t3]", "invalid range" },
	{ "n[+1-3]", "\"+1-3\"" },
	{ "n[1-+3]", "\"1-+3\"" },
	{ "n[99999999999999999999]", "number too large in "
	    "\"99999999999999999999\"" },
	{ "n[1-18446744073709551616]", "number too large" },
	{ "", "empty host list" },
	{ ",", "empty host list" },
	{ " \t, ,", "empty host list" },
	{ "a\nb", "control character 0x0a after \"a\"" },
	{ "a\rb[1-2]", "control character 0x0d" },
	{ "n[0-100000000]", "\"n[0-100000000]\" makes more than 100000000 "
	    "hosts" },
	{ "n[0-18446744073709551615]", "makes more than" },
	{ "a[1-10000]b[1-10001]", "makes more than" },
	{ "a[1-10001]b[1-10000]c[1]", "makes more than" },
	{ "n[1-50000000],m[1-50000001]", "\"m[1-50000001]\" makes more" },
	{ "n[1-60000000,1-40000001]", "makes more than" },
};

START_TEST(test_reject)
{
	struct hostlist	*hl;
	char		*cause = NULL;

	hl = hostlist_parse(bad[_i].expr, &cause);
	ck_assert_msg(hl == NULL, "[%s] accepted", bad[_i].expr);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, bad[_i].part) != NULL,
	    "[%s]: message [%s] lacks [%s]", bad[_i].expr, cause,
	    bad[_i].part);
	free(cause);
	/* callers that do not want the message may pass NULL */
	ck_assert_ptr_null(hostlist_parse(bad[_i].expr, NULL));
}
END_TEST

START_TEST(test_name_length)
{
	char	 expr[600], *cause = NULL;

	memset(expr, 'a', 255);
	expr[255] = '\0';
	hostlist_free(parse_ok(expr));
	expr[255] = 'a';
	expr[256] = '\0';
	ck_assert_ptr_null(hostlist_parse(expr, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "longer than 255"));
	free(cause);
	/* a pattern counts its widest number */
	memset(expr, 'a', 252);
	strcpy(expr + 252, "[1-999]");
	hostlist_free(parse_ok(expr));
	strcpy(expr + 252, "[1-1000]");
	ck_assert_ptr_null(hostlist_parse(expr, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "longer than 255"));
	free(cause);
}
END_TEST

START_TEST(test_guard)
{
	struct hostlist	*hl;
	char		 name[32];

	/* no 65,536-per-range limit as in Slurm: only the total counts */
	hl = parse_ok("n[1-100000]");
	ck_assert_uint_eq(hostlist_count(hl), 100000);
	ck_assert_int_eq(hostlist_nth(hl, 99999, name, sizeof name), 7);
	ck_assert_str_eq(name, "n100000");
	hostlist_free(hl);
	hl = parse_ok("n[1-100000000]");
	ck_assert_uint_eq(hostlist_count(hl), HOSTLIST_MAX_HOSTS);
	hostlist_free(hl);
	hl = parse_ok("n[1-50000000],m[1-50000000]");
	ck_assert_uint_eq(hostlist_count(hl), HOSTLIST_MAX_HOSTS);
	ck_assert_int_ge(hostlist_nth(hl, 99999999, name, sizeof name), 0);
	ck_assert_str_eq(name, "m50000000");
	FINDS(hl, "m50000000", 0, 99999999);
	hostlist_free(hl);
	hl = parse_ok("a[1-10000]b[1-10000]");
	ck_assert_uint_eq(hostlist_count(hl), HOSTLIST_MAX_HOSTS);
	hostlist_free(hl);
}
END_TEST

START_TEST(test_nth_bounds)
{
	struct hostlist	*hl;
	char		 name[16];

	hl = parse_ok("nid[001-3],x");
	ck_assert_uint_eq(hostlist_count(hl), 4);
	ck_assert_int_eq(hostlist_nth(hl, 0, name, sizeof name), 6);
	ck_assert_str_eq(name, "nid001");
	ck_assert_int_eq(hostlist_nth(hl, 3, name, sizeof name), 1);
	ck_assert_str_eq(name, "x");
	ck_assert_int_eq(hostlist_nth(hl, 4, name, sizeof name), -1);
	ck_assert_int_eq(hostlist_nth(hl, UINT64_MAX, name, sizeof name), -1);
	/* the name and its NUL must fit */
	ck_assert_int_eq(hostlist_nth(hl, 0, name, 6), -1);
	ck_assert_int_eq(hostlist_nth(hl, 0, name, 7), 6);
	ck_assert_int_eq(hostlist_nth(hl, 0, name, 0), -1);
	hostlist_free(hl);
}
END_TEST

START_TEST(test_find)
{
	struct hostlist	*hl;

	hl = parse_ok("n[01-100],m[9-0011],p[0001-3],q[1-3,2-4]");
	FINDS(hl, "n01", 0, 0);
	FINDS(hl, "n99", 0, 98);
	FINDS(hl, "n100", 0, 99);
	FINDS(hl, "n1", 0, -1);		/* printed n01 */
	FINDS(hl, "n099", 0, -1);	/* printed n99 */
	FINDS(hl, "n0100", 0, -1);
	FINDS(hl, "n101", 0, -1);
	FINDS(hl, "m9", 0, 100);
	FINDS(hl, "m10", 0, 101);
	FINDS(hl, "m0010", 0, -1);
	FINDS(hl, "m09", 0, -1);
	FINDS(hl, "p0001", 0, 103);
	FINDS(hl, "p1", 0, -1);
	FINDS(hl, "q2", 0, 107);	/* the first of the duplicates */
	FINDS(hl, "q4", 0, 111);
	FINDS(hl, "q", 0, -1);
	FINDS(hl, "", 0, -1);
	FINDS(hl, "n", 0, -1);
	FINDS(hl, "n1000000000000000000000000", 0, -1);
	FINDS(hl, "n99999999999999999999999999", 0, -1);
	hostlist_free(hl);

	/* adjacent groups: the digits can split several ways */
	hl = parse_ok("n[1-12][1-12]");
	FINDS(hl, "n111", 0, 10);	/* 1|11 comes before 11|1 */
	FINDS(hl, "n1212", 0, 143);
	FINDS(hl, "n1213", 0, -1);
	hostlist_free(hl);
	/* the shortest split is not always the first host */
	hl = parse_ok("n[11,1][1,11]");
	FINDS(hl, "n111", 0, 0);	/* 11|1 before 1|11 */
	FINDS(hl, "n11", 0, 2);
	hostlist_free(hl);
	hl = parse_ok("a[1-2][3-4][5-6]");
	FINDS(hl, "a135", 0, 0);
	FINDS(hl, "a235", 0, 2);
	FINDS(hl, "a145", 0, 4);
	FINDS(hl, "a246", 0, 7);
	hostlist_free(hl);
	hl = parse_ok("[00-99][00-99][00-99][00-99]");
	FINDS(hl, "00000000", 0, 0);
	FINDS(hl, "12345678", 0, 56 * 1000000 + 34 * 10000 + 12 * 100 + 78);
	FINDS(hl, "1234567", 0, -1);
	hostlist_free(hl);
}
END_TEST

START_TEST(test_flags)
{
	struct hostlist	*hl;
	char		 n0[] = "IAASCN116", n1[] = "IAASCN117.corp.example";
	char		 n2[] = "iaascn118";
	char		*names[] = { n0, n1, n2 };

	hl = parse_ok("nid[001-3],Login1.cluster,a[1-2].b[3-4],x.y[1-2]");
	FINDS(hl, "NID002", 0, -1);
	FINDS(hl, "NID002", HOSTLIST_ICASE, 1);
	FINDS(hl, "nid002.hsn", 0, -1);
	FINDS(hl, "nid002.hsn", HOSTLIST_SHORT, 1);
	FINDS(hl, "NID002.hsn", HOSTLIST_SHORT | HOSTLIST_ICASE, 1);
	FINDS(hl, "login1", HOSTLIST_SHORT, -1);
	FINDS(hl, "login1", HOSTLIST_SHORT | HOSTLIST_ICASE, 3);
	FINDS(hl, "Login1.other", HOSTLIST_SHORT, 3);
	FINDS(hl, "Login1.cluster", 0, 3);
	FINDS(hl, "Login1", 0, -1);
	/* a '.' inside a pattern: the rest of the name does not count */
	FINDS(hl, "a2", HOSTLIST_SHORT, 6);
	FINDS(hl, "a2.b4", 0, 7);
	FINDS(hl, "a2.zz", HOSTLIST_SHORT, 6);
	FINDS(hl, "a3", HOSTLIST_SHORT, -1);
	FINDS(hl, "x", HOSTLIST_SHORT, 8);
	FINDS(hl, "x.y2", 0, 9);
	FINDS(hl, "x.y3", 0, -1);
	hostlist_free(hl);

	/* the HPC Pack case: NetBIOS upper case, Linux lower case */
	hl = hostlist_from_names(names, nitems(names));
	FINDS(hl, "iaascn117", HOSTLIST_ICASE | HOSTLIST_SHORT, 1);
	FINDS(hl, "iaascn117", HOSTLIST_SHORT, -1);
	FINDS(hl, "IAASCN118.corp", HOSTLIST_ICASE | HOSTLIST_SHORT, 2);
	FINDS(hl, "iaascn116.corp", HOSTLIST_ICASE, -1);
	hostlist_free(hl);
}
END_TEST

START_TEST(test_from_names)
{
	struct hostlist	*hl;
	char		 n0[] = "b", n1[] = "a[1-2]", n3[] = "c d", buf[16];
	char		*names[] = { n0, n1, n0, n3 };

	hl = hostlist_from_names(names, nitems(names));
	ck_assert_uint_eq(hostlist_count(hl), 4);
	ck_assert_int_eq(hostlist_nth(hl, 1, buf, sizeof buf), 6);
	ck_assert_str_eq(buf, "a[1-2]");	/* literal: no expansion */
	ck_assert_int_eq(hostlist_nth(hl, 3, buf, sizeof buf), 3);
	ck_assert_str_eq(buf, "c d");
	FINDS(hl, "b", 0, 0);
	FINDS(hl, "a[1-2]", 0, 1);
	FINDS(hl, "a1", 0, -1);
	FINDS(hl, "c d", 0, 3);
	hostlist_free(hl);

	hl = hostlist_from_names(NULL, 0);
	ck_assert_uint_eq(hostlist_count(hl), 0);
	ck_assert_int_eq(hostlist_nth(hl, 0, buf, sizeof buf), -1);
	FINDS(hl, "a", 0, -1);
	hostlist_free(hl);
}
END_TEST

static long
maxrss_kb(void)
{
	struct rusage	ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * The checks of test_big_range on nid[0000001-N], N of 7 digits at most;
 * returns how much the peak RSS grew, in KB.
 */
static long
range_work(unsigned long n)
{
	struct hostlist	*hl;
	char		 expr[64], mid[32], last[32], up[32], name[32];
	int64_t		 half = (int64_t)(n / 2), end = (int64_t)n - 1;
	long		 before;
	int		 i;

	before = maxrss_kb();
	snprintf(expr, sizeof expr, "nid[0000001-%07lu]", n);
	snprintf(mid, sizeof mid, "nid%07lu", n / 2 + 1);
	snprintf(last, sizeof last, "nid%07lu", n);
	snprintf(up, sizeof up, "NID%07lu.hsn", n / 2 + 1);
	hl = parse_ok(expr);
	ck_assert_uint_eq(hostlist_count(hl), n);
	ck_assert_int_eq(hostlist_nth(hl, n / 2, name, sizeof name), 10);
	ck_assert_str_eq(name, mid);
	ck_assert_int_eq(hostlist_nth(hl, n - 1, name, sizeof name), 10);
	ck_assert_str_eq(name, last);
	for (i = 0; i < 1000; i++) {
		FINDS(hl, mid, 0, half);
		FINDS(hl, last, 0, end);
	}
	FINDS(hl, "nid0000001", 0, 0);
	FINDS(hl, "nid0000000", 0, -1);
	FINDS(hl, "nid10000000", 0, -1);
	FINDS(hl, "nid000001", 0, -1);
	FINDS(hl, "nid00000001", 0, -1);
	FINDS(hl, up, HOSTLIST_ICASE | HOSTLIST_SHORT, half);
	hostlist_free(hl);
	return maxrss_kb() - before;
}

/*
 * Ten million hosts in constant memory: nothing is expanded. The same
 * checks on ten hosts go first: what the allocator takes once (ASan's
 * shadow and size-class regions, stdio's buffers) is then in the peak
 * before the big range's growth is measured, and what it takes per
 * call whatever the range (ASan's quarantine of freed blocks, unless
 * disabled) is in the small range's growth, which the bound allows
 * again. Expanding the big range would cost over 100 MB (ten million
 * names of 10 bytes), a hundred times the bound.
 */
START_TEST(test_big_range)
{
	long	small, big;

	small = range_work(10);
	big = range_work(9999999);
	ck_assert_msg(big < small + 1024, "10M hosts: peak RSS grew %ld KB, "
	    "over 1024 KB more than 10 hosts (%ld KB, first)", big, small);
}
END_TEST

/* Each of 24 groups can take one digit or two: 2^24 ways to split a
 * name, which only remembering partial matches keeps fast. */
START_TEST(test_find_splits)
{
	struct hostlist	*hl;
	struct buf	 b;
	clock_t		 start;
	int		 i;

	buf_init(&b);
	buf_adds(&b, "x");
	for (i = 0; i < 24; i++)
		buf_adds(&b, "[1,11]");
	hl = parse_ok(b.s);
	ck_assert_uint_eq(hostlist_count(hl), 1 << 24);
	buf_free(&b);
	buf_init(&b);
	buf_adds(&b, "x");
	for (i = 0; i < 36; i++)
		buf_adds(&b, "1");
	start = clock();
	/* "11" is index 0: it goes to the 12 most significant groups
	 * (the 12th to 23rd); the others, with strides 1 to 2^11, take 1 */
	FINDS(hl, b.s, 0, 4095);
	buf_adds(&b, "2");
	FINDS(hl, b.s, 0, -1);
	ck_assert_int_lt(clock() - start, CLOCKS_PER_SEC / 2);
	buf_free(&b);
	hostlist_free(hl);
}
END_TEST

static uint64_t
gen_group(struct buf *b)
{
	uint32_t	n = 1 + t_rng_below(3), i, lo, hi;
	uint64_t	count = 0;

	buf_addc(b, '[');
	for (i = 0; i < n; i++) {
		lo = t_rng_below(3) == 0 ? 95 + t_rng_below(10) : t_rng_below(30);
		hi = lo + t_rng_below(6);
		buf_addf(b, "%s%0*u", i > 0 ? "," : "", (int)t_rng_below(4), lo);
		if (t_rng_below(3) == 0) {
			count++;
			continue;
		}
		buf_addf(b, "-%0*u", (int)t_rng_below(4), hi);
		count += hi - lo + 1;
	}
	buf_addc(b, ']');
	return count;
}

static uint64_t
gen_item(struct buf *b)
{
	static const char *pre[] = { "n", "nid", "a-b-", "x.y", "", "N",
	    "gpu0", "Rack1-node" };
	static const char *mid[] = { "", "-", "x", ".", "0", "-n." };
	uint32_t	ng = t_rng_below(4), i;
	uint64_t	count = 1;

	buf_adds(b, pre[t_rng_below(nitems(pre))]);
	if (ng == 0) {
		buf_addf(b, "z%u", t_rng_below(200));
		return 1;
	}
	for (i = 0; i < ng; i++) {
		if (i > 0)
			buf_adds(b, mid[t_rng_below(nitems(mid))]);
		count *= gen_group(b);
	}
	return count;
}

static char *
gen_list(void)
{
	struct buf	b;
	uint32_t	n = 1 + t_rng_below(4), i;
	size_t		mark;
	uint64_t	count;

	buf_init(&b);
	for (i = 0; i < n; i++) {
		if (i > 0)
			buf_adds(&b, t_rng_below(2) ? "," : " ");
		mark = b.len;
		while ((count = gen_item(&b)) > 150) {
			b.len = mark;	/* too big: try another */
			b.s[mark] = '\0';
		}
	}
	return b.s;
}

/* Names near a host: case, domain, padding and digit changes. */
static void
variants(const char *host, struct strlist *out)
{
	char	*s;
	size_t	 i, d;

	strlist_add(out, host);
	s = xstrdup(host);
	for (i = 0; s[i] != '\0'; i++)
		s[i] = (char)toupper((unsigned char)s[i]);
	strlist_addown(out, s);
	xasprintf(&s, "%s.dom", host);
	strlist_addown(out, s);
	xasprintf(&s, "%s0", host);
	strlist_addown(out, s);
	strlist_addown(out, xstrndup(host, strlen(host) - 1));
	d = strcspn(host, "0123456789");
	if (host[d] == '\0')
		return;
	xasprintf(&s, "%.*s0%s", (int)d, host, host + d);	/* pad more */
	strlist_addown(out, s);
	if (host[d] == '0') {					/* pad less */
		xasprintf(&s, "%.*s%s", (int)d, host, host + d + 1);
		strlist_addown(out, s);
	}
	s = xstrdup(host);
	s[strlen(s) - 1] = s[strlen(s) - 1] == '9' ? '0' : '9';
	strlist_addown(out, s);
}

/* hostlist_find, working on the compressed form, against a walk of the
 * expansion, on many generated lists, names and flags. */
START_TEST(test_find_agrees)
{
	struct hostlist	*hl;
	struct strlist	 hosts, names;
	char		*expr;
	size_t		 n, k, j;
	int		 list, flags;

	t_rng_seed(20240611);	/* fixed, for the agreement test */
	for (list = 0; list < 300; list++) {
		expr = gen_list();
		hl = parse_ok(expr);
		expand_list(hl, &hosts);
		n = hosts.n;
		strlist_init(&names);
		for (k = 0; k < 12; k++) {
			j = k < 2 ? (k == 0 ? 0 : n - 1) : t_rng_below((uint32_t)n);
			variants(hosts.v[j], &names);
		}
		for (j = 0; j < names.n; j++) {
			for (flags = 0; flags < 4; flags++)
				find_agrees(hl, &hosts, expr, names.v[j],
				    flags);
		}
		strlist_free(&names);
		strlist_free(&hosts);
		hostlist_free(hl);
		free(expr);
	}
}
END_TEST

/* Every host is found at its first occurrence, on lists chosen for
 * their traps. */
START_TEST(test_find_every_host)
{
	static const char *lists[] = {
		"n[1-12][1-12]", "n[1-3,2-4],n2", "a[0-1][00-10][1]",
		"rack[1-2]-node[01-04]", "n[8-10],n[08-10],n[008-010]",
		"[1-3][1-3][1-3]", "a[1-2]x[1-2]y[1-2]z[1-2]", "n0[98-101]",
		"x.y[1-2],x.z[1-2]", "n[0-0],n[00-00],n0", "n[11,1][1,11]",
		"n[1,11,111][1,11][11,1]", "nc[1-12]-ib", "a[1-2]b[1-2]b",
		"n[1-2]1,n11", "x[1-3]-[1-3]-",
	};
	struct hostlist	*hl;
	struct strlist	 hosts;
	size_t		 l, i;
	int		 flags;

	for (l = 0; l < nitems(lists); l++) {
		hl = parse_ok(lists[l]);
		expand_list(hl, &hosts);
		for (i = 0; i < hosts.n; i++) {
			for (flags = 0; flags < 4; flags++)
				find_agrees(hl, &hosts, lists[l], hosts.v[i],
				    flags);
		}
		strlist_free(&hosts);
		hostlist_free(hl);
	}
}
END_TEST

/* Names in, one expression out; the expression expands back to the
 * same set of names (sorted, without duplicates). */
static void
expect_compress(const char *const *names, size_t n, const char *want)
{
	struct hostlist	*hl;
	char		*got, *cause, name[HOSTLIST_NAME_MAX + 1];
	size_t		 i, j;
	int		 found;

	got = hostlist_compress(names, n);
	ck_assert_str_eq(got, want);
	if (n == 0) {
		free(got);
		return;
	}
	hl = hostlist_parse(got, &cause);
	ck_assert_msg(hl != NULL, "%s does not parse", got);
	for (i = 0; i < hostlist_count(hl); i++) {
		ck_assert_int_ge(hostlist_nth(hl, i, name, sizeof name), 0);
		for (j = 0, found = 0; j < n && !found; j++)
			found = strcmp(names[j], name) == 0;
		ck_assert_msg(found, "%s gives %s, not given", got, name);
	}
	for (j = 0; j < n; j++)
		ck_assert_int_ge(hostlist_find(hl, names[j], 0), 0);
	hostlist_free(hl);
	free(got);
}

#define COMPRESS(want, ...) do {					\
	const char *const v_[] = { __VA_ARGS__ };			\
	expect_compress(v_, nitems(v_), want);				\
} while (0)

START_TEST(test_compress)
{
	expect_compress(NULL, 0, "");
	COMPRESS("nid[003,017-018]", "nid003", "nid018", "nid017");
	COMPRESS("node2", "node2");
	COMPRESS("node[1-3]", "node3", "node1", "node2", "node2");
	COMPRESS("node[8-10]", "node10", "node8", "node9");
	COMPRESS("alpha,beta", "beta", "alpha");
	COMPRESS("n[1-2],n[01-02]", "n1", "n01", "n2", "n02");
	COMPRESS("jean-zay-ia[810-811],login", "jean-zay-ia811", "login",
	    "jean-zay-ia810");
	COMPRESS("a[1,3,5-6]", "a6", "a5", "a3", "a1");
	COMPRESS("n0,n[00-01]", "n00", "n0", "n01");
}
END_TEST

static Suite *
hostlist_suite(void)
{
	Suite	*s = suite_create("hostlist");
	TCase	*tc;

	tc = tcase_create("expand");
	tcase_add_test(tc, test_separators);
	tcase_add_test(tc, test_ranges);
	tcase_add_test(tc, test_padding);
	tcase_add_test(tc, test_cartesian);
	tcase_add_test(tc, test_suffix);
	tcase_add_test(tc, test_duplicates);
	tcase_add_test(tc, test_odd_names);
	tcase_add_test(tc, test_peer_regressions);
	suite_add_tcase(s, tc);

	tc = tcase_create("reject");
	tcase_add_loop_test(tc, test_reject, 0, (int)nitems(bad));
	tcase_add_test(tc, test_name_length);
	tcase_add_test(tc, test_guard);
	suite_add_tcase(s, tc);

	tc = tcase_create("index");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_nth_bounds);
	tcase_add_test(tc, test_find);
	tcase_add_test(tc, test_flags);
	tcase_add_test(tc, test_from_names);
	tcase_add_test(tc, test_big_range);
	tcase_add_test(tc, test_find_agrees);
	tcase_add_test(tc, test_find_every_host);
	tcase_add_test(tc, test_find_splits);
	suite_add_tcase(s, tc);

	tc = tcase_create("compress");
	tcase_add_test(tc, test_compress);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(hostlist_suite());
}
