/* check_exchange.c: unit tests for the shared directory and MPI exchanges. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "auth.h"
#include "exchange.h"
#include "fault.h"
#include "netif.h"
#include "nodes.h"
#include "rank.h"
#include "rx.h"
#include "testlib.h"
#include "util.h"
#include "xmalloc.h"

#define ENTRY(task, host, addr) \
	"ddprank-exchange 1\ntask " task "\nhost " host "\naddr " addr "\n"
#define ENTRY_NOTASK(host, addr) \
	"ddprank-exchange 1\nhost " host "\naddr " addr "\n"

/* --- entry parsing ------------------------------------------------------ */

static void
parse_ok(const char *text, int64_t task, const char *host, const char *addr)
{
	struct exchange_entry	 e;
	char			*cause = NULL;

	if (exchange_parse_entry(text, strlen(text), &e, &cause) != 0)
		ck_abort_msg("'%s': %s", text, cause);
	ck_assert_int_eq(e.task, task);
	ck_assert_str_eq(e.host, host);
	ck_assert_str_eq(e.addr, addr);
}

static void
parse_bad_len(const char *text, size_t len, const char *want)
{
	struct exchange_entry	 e;
	char			*cause = NULL;

	ck_assert_int_eq(exchange_parse_entry(text, len, &e, &cause), -1);
	ck_assert_str_eq(cause, want);
	free(cause);
}

static void
parse_bad(const char *text, const char *want)
{
	parse_bad_len(text, strlen(text), want);
}

START_TEST(test_parse_valid)
{
	parse_ok(ENTRY("2", "node2", "10.0.0.2"), 2, "node2", "10.0.0.2");
	parse_ok(ENTRY_NOTASK("NODE-2_b", "10.0.0.2"), -1, "NODE-2_b",
	    "10.0.0.2");
	/* Addresses come out in their canonical form. */
	parse_ok(ENTRY("9223372036854775807", "n", "FD00:0:0::1"),
	    INT64_MAX, "n", "fd00::1");
	/* Any order; keys of later versions are skipped. */
	parse_ok("ddprank-exchange 1\naddr 10.0.0.3\nport 29500\nhost n3\n"
	    "task 3\n", 3, "n3", "10.0.0.3");
}
END_TEST

START_TEST(test_parse_truncated)
{
	const char	*full = ENTRY("2", "node2", "10.0.0.2");
	size_t		 n;

	parse_bad_len(full, 0, "empty");
	parse_bad_len(full, strlen(full) - 1, "truncated: no newline at the end");
	parse_bad_len(full, 19, "no host");
	parse_bad(ENTRY_NOTASK("n", "10.0.0.1") "addr 10.0.0.2\n",
	    "line 4: addr given twice");
	parse_bad("ddprank-exchange 1\nhost n\n", "no addr");
	/* Every prefix of a valid entry is rejected, never misread. */
	for (n = 0; n < strlen(full); n++) {
		struct exchange_entry	 e;
		char			*cause = NULL;

		ck_assert_int_eq(exchange_parse_entry(full, n, &e, &cause), -1);
		free(cause);
	}
}
END_TEST

START_TEST(test_parse_garbage)
{
	static const char	bin[] = "\x7f" "ELF\x02\x01\x01\0\0\0\n";

	parse_bad("hello\n", "line 1: not a ddprank exchange entry");
	parse_bad("ddprank-exchange 2\nhost n\naddr 10.0.0.1\n",
	    "line 1: unsupported version");
	parse_bad_len(bin, sizeof bin - 1, "holds a NUL byte");
	parse_bad("ddprank-exchange 1\n\nhost n\n", "line 2: expected KEY VALUE");
	parse_bad("ddprank-exchange 1\nhost\n", "line 2: expected KEY VALUE");
	parse_bad("ddprank-exchange 1\nhost  n\n", "line 2: expected KEY VALUE");
	parse_bad("ddprank-exchange 1\nhost n \n", "line 2: expected KEY VALUE");
	parse_bad("ddprank-exchange 1\nHost n\n", "line 2: expected KEY VALUE");
	parse_bad("ddprank-exchange 1\r\nhost n\n",
	    "line 1: unsupported version");
	parse_bad("ddprank-exchange 1\nhost n\t\n", "line 2: expected KEY VALUE");
	parse_bad("ddprank-exchange 1\nhost caf\xc3\xa9\n",
	    "line 2: expected KEY VALUE");
	parse_bad(ENTRY("0", "n", "10.0.0.1"), "line 2: bad task id '0'");
	parse_bad(ENTRY("-1", "n", "10.0.0.1"), "line 2: bad task id '-1'");
	parse_bad(ENTRY("1x", "n", "10.0.0.1"), "line 2: bad task id '1x'");
	parse_bad(ENTRY("9223372036854775808", "n", "10.0.0.1"),
	    "line 2: bad task id '9223372036854775808'");
	parse_bad(ENTRY("1", "n.example.com", "10.0.0.1"),
	    "line 3: bad host name 'n.example.com'");
	parse_bad(ENTRY("1", "../x", "10.0.0.1"),
	    "line 3: bad host name '../x'");
	parse_bad(ENTRY("1", "n", "10.0.0.256"),
	    "line 4: bad address '10.0.0.256'");
	parse_bad(ENTRY("1", "n", "fe80::1%eth0"),
	    "line 4: bad address 'fe80::1%eth0'");
	parse_bad(ENTRY("1", "n", "node1"), "line 4: bad address 'node1'");
}
END_TEST

START_TEST(test_parse_huge)
{
	struct buf	 b;
	char		*host, *want;
	size_t		 i;

	buf_init(&b);
	buf_adds(&b, "ddprank-exchange 1\nhost n\naddr 10.0.0.1\n");
	while (b.len <= EXCHANGE_ENTRY_MAX)
		buf_adds(&b, "later_key value\n");
	xasprintf(&want, "too large: %zu bytes, at most 1024", b.len);
	parse_bad_len(b.s, b.len, want);
	free(want);
	buf_free(&b);
	/* 64 characters are a host name, 65 are not. */
	host = xmalloc(EXCHANGE_HOST_MAX + 2);
	memset(host, 'h', EXCHANGE_HOST_MAX + 1);
	host[EXCHANGE_HOST_MAX + 1] = '\0';
	buf_init(&b);
	buf_addf(&b, "ddprank-exchange 1\nhost %s\naddr 10.0.0.1\n", host);
	xasprintf(&want, "line 2: bad host name '%s'", host);
	parse_bad(b.s, want);
	free(want);
	buf_free(&b);
	host[EXCHANGE_HOST_MAX] = '\0';
	buf_init(&b);
	buf_addf(&b, "ddprank-exchange 1\nhost %s\naddr 10.0.0.1\n", host);
	parse_ok(b.s, -1, host, "10.0.0.1");
	buf_free(&b);
	free(host);
	/* Random bytes around a valid header never crash the parser. */
	t_rng_seed(7);
	for (i = 0; i < 20000; i++) {
		struct exchange_entry	 e;
		char			 junk[96], *cause = NULL;
		size_t			 j, n = t_rng_below(sizeof junk);

		memcpy(junk, "ddprank-exchange 1\n", 19);
		for (j = 19; j < n; j++)
			junk[j] = "host addr task 10.0.0.1 n\n:\xff"[t_rng_below(29)];
		if (exchange_parse_entry(junk, n, &e, &cause) == -1)
			free(cause);
	}
}
END_TEST

START_TEST(test_format_roundtrip)
{
	struct exchange_entry	 e = { 7, "node7", "fd00::7" }, back;
	struct buf		 b;
	char			*cause = NULL;

	buf_init(&b);
	exchange_format_entry(&b, &e);
	ck_assert_str_eq(b.s, ENTRY("7", "node7", "fd00::7"));
	ck_assert_int_eq(exchange_parse_entry(b.s, b.len, &back, &cause), 0);
	ck_assert_int_eq(memcmp(&e, &back, sizeof e), 0);
	buf_free(&b);
	e.task = -1;
	buf_init(&b);
	exchange_format_entry(&b, &e);
	ck_assert_str_eq(b.s, ENTRY_NOTASK("node7", "fd00::7"));
	buf_free(&b);
}
END_TEST

/* --- order and numbering -------------------------------------------------- */

static char *
order_str(struct exchange_entry *v, size_t n)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < n; i++)
		buf_addf(&b, "%s%s", i > 0 ? " " : "", v[i].host);
	return b.s;
}

START_TEST(test_order)
{
	struct exchange_entry	 tasks[] = {
		{ 10, "a", "10.0.0.1" }, { 2, "c", "10.0.0.3" },
		{ 9, "b", "10.0.0.2" }
	}, hosts[] = {
		{ -1, "node10", "10.0.0.1" }, { -1, "NODE1", "10.0.0.3" },
		{ -1, "node2", "10.0.0.2" }
	}, mixed[] = {
		{ 1, "zeta", "10.0.0.1" }, { -1, "alpha", "10.0.0.2" }
	};
	char	*s, *cause = NULL;

	ck_assert_int_eq(exchange_order(tasks, 3, &cause), 0);
	s = order_str(tasks, 3);
	ck_assert_str_eq(s, "c b a");
	free(s);
	/* Without task ids: host names, case aside, as strings. */
	ck_assert_int_eq(exchange_order(hosts, 3, &cause), 0);
	s = order_str(hosts, 3);
	ck_assert_str_eq(s, "NODE1 node10 node2");
	free(s);
	/* One entry without a task id: by host name. */
	ck_assert_int_eq(exchange_order(mixed, 2, &cause), 0);
	s = order_str(mixed, 2);
	ck_assert_str_eq(s, "alpha zeta");
	free(s);
	ck_assert_int_eq(exchange_order(tasks, 0, &cause), 0);
}
END_TEST

START_TEST(test_order_duplicates)
{
	struct exchange_entry	 tasks[] = {
		{ 2, "a", "10.0.0.1" }, { 2, "b", "10.0.0.2" }
	}, hosts[] = {
		{ -1, "Node1", "10.0.0.1" }, { -1, "node1", "10.0.0.2" }
	};
	char	*cause = NULL;

	ck_assert_int_eq(exchange_order(tasks, 2, &cause), -1);
	ck_assert_str_eq(cause, "task 2 registered twice: by a (10.0.0.1) "
	    "and b (10.0.0.2)");
	free(cause);
	ck_assert_int_eq(exchange_order(hosts, 2, &cause), -1);
	ck_assert_str_eq(cause, "host node1 registered twice, without task "
	    "ids: 10.0.0.1 and 10.0.0.2");
	free(cause);
}
END_TEST

/* Entries for the MPI numbering: "host=addr" each. */
static struct exchange_entry *
entries(const char *const *spec, size_t n)
{
	struct exchange_entry	*v = xcalloc(n, sizeof *v);
	const char		*eq;
	size_t			 i;

	for (i = 0; i < n; i++) {
		eq = strchr(spec[i], '=');
		v[i].task = -1;
		snprintf(v[i].host, sizeof v[i].host, "%.*s",
		    (int)(eq - spec[i]), spec[i]);
		snprintf(v[i].addr, sizeof v[i].addr, "%s", eq + 1);
	}
	return v;
}

static void
expect_number(const char *const *spec, size_t n, size_t me,
    uint64_t node_rank, uint64_t nnodes, int duplicate)
{
	struct exchange_entry	*v = entries(spec, n);
	struct exchange_result	 r;
	char			*cause = NULL;

	ck_assert_int_eq(exchange_number(&r, v, n, me, &cause), 0);
	ck_assert_uint_eq(r.node_rank, node_rank);
	ck_assert_uint_eq(r.nnodes, nnodes);
	ck_assert_int_eq(r.duplicate, duplicate);
	ck_assert_str_eq(r.master_addr, v[0].addr);
	exchange_result_free(&r);
	free(v);
}

START_TEST(test_number)
{
	/* Ranks 0 and 2 on node A, rank 1 on B, rank 3 on C: node ranks
	 * follow the first appearance of each address in rank order, not
	 * the order of the addresses. */
	static const char *const four[] = {
		"a=10.0.0.9", "b=10.0.0.1", "a=10.0.0.9", "c=10.0.0.5"
	};
	static const char *const one[] = {
		"n=10.0.0.1", "n=10.0.0.1", "N=10.0.0.1"
	};
	char	(*spec)[40];
	const char **many;
	size_t	  i;

	expect_number(four, 4, 0, 0, 3, 0);
	expect_number(four, 4, 1, 1, 3, 0);
	expect_number(four, 4, 2, 0, 3, 1);
	expect_number(four, 4, 3, 2, 3, 0);
	expect_number(one, 3, 0, 0, 1, 0);
	expect_number(one, 3, 2, 0, 1, 1);
	expect_number(one, 1, 0, 0, 1, 0);
	/* 4096 ranks, 8 per node, nodes interleaved. */
	spec = xcalloc(4096, sizeof *spec);
	many = xcalloc(4096, sizeof *many);
	for (i = 0; i < 4096; i++) {
		snprintf(spec[i], sizeof spec[i], "n%zu=10.1.%zu.%zu", i % 512,
		    (i % 512) / 256, i % 256);
		many[i] = spec[i];
	}
	expect_number(many, 4096, 511, 511, 512, 0);
	expect_number(many, 4096, 512 + 7, 7, 512, 1);
	free(many);
	free(spec);
}
END_TEST

/* Every node's name resolving to 127.0.1.1: one address, several hosts. */
START_TEST(test_number_conflict)
{
	static const char *const spec[] = {
		"node1=127.0.1.1", "node1=127.0.1.1", "node2=127.0.1.1"
	};
	struct exchange_entry	*v = entries(spec, 3);
	struct exchange_result	 r;
	char			*cause = NULL;

	ck_assert_int_eq(exchange_number(&r, v, 3, 1, &cause), -1);
	ck_assert_str_eq(cause, "MPI ranks 0 (node1) and 2 (node2) both have "
	    "the address 127.0.1.1: use --iface REGEX");
	free(cause);
	exchange_result_free(&r);
	free(v);
}
END_TEST

START_TEST(test_parse_spec)
{
	struct exchange_opts	 o;
	char			*cause = NULL;

	memset(&o, 0, sizeof o);
	ck_assert_int_eq(exchange_parse(&o, "dir:/app/.ddprank//", 0, &cause),
	    0);
	ck_assert_int_eq(o.method, EXCHANGE_DIR);
	ck_assert_str_eq(o.dir, "/app/.ddprank");
	ck_assert_int_eq(exchange_parse(&o, "dir:/", 1, &cause), 0);
	ck_assert_str_eq(o.dir, "/");
	ck_assert_int_eq(exchange_parse(&o, "dir:app", 0, &cause), -1);
	ck_assert_str_eq(cause, "bad exchange 'dir:app': PATH must be absolute");
	free(cause);
	ck_assert_int_eq(exchange_parse(&o, "dir:", 0, &cause), -1);
	free(cause);
	ck_assert_int_eq(exchange_parse(&o, "file:/x", 0, &cause), -1);
	ck_assert_str_eq(cause, "bad exchange 'file:/x': expected dir:PATH or "
	    "mpi");
	free(cause);
	/* Both builds' answers, whichever this one is. */
	ck_assert_int_eq(exchange_parse(&o, "mpi", 1, &cause), 0);
	ck_assert_int_eq(o.method, EXCHANGE_MPI);
	ck_assert_int_eq(exchange_parse(&o, "mpi", 0, &cause), -1);
	ck_assert_str_eq(cause, "ddprank was built without MPI support "
	    "(./configure --with-mpi)");
	free(cause);
	exchange_opts_free(&o);
}
END_TEST

/* --- the directory exchange, with a fake clock ----------------------------- */

/* Something another node does at a time of the fake clock: write a file
 * under the base directory (content NULL: an empty marker). */
struct event {
	double		 at;
	const char	*path;
	const char	*content;
	int		 done;
};

struct fake_clock {
	double		 t;
	struct event	*ev;
	size_t		 sleeps;
};

static char		*base;		/* a fresh directory per test */
static struct fake_clock fc;
static struct exchange_clock clk;

/* base/REL holding content, or empty when content is NULL. */
static void
write_file(const char *rel, const char *content)
{
	char	path[512];

	if (content == NULL)
		content = "";
	snprintf(path, sizeof path, "%s/%s", base, rel);
	t_write(path, content, strlen(content));
}

static void
make_dir(const char *rel)
{
	char	path[512];

	snprintf(path, sizeof path, "%s/%s", base, rel);
	ck_assert_int_eq(mkdir(path, 0755), 0);
}

static int
exists(const char *rel)
{
	struct stat	st;
	char		path[512];

	snprintf(path, sizeof path, "%s/%s", base, rel);
	return lstat(path, &st) == 0;
}

/* Makes a file look older than the timeout by seconds. */
static void
age(const char *rel, int seconds)
{
	struct timespec	ts[2];
	char		path[512];

	snprintf(path, sizeof path, "%s/%s", base, rel);
	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= seconds;
	ts[1] = ts[0];
	ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static double
fake_now(void *arg)
{
	return ((struct fake_clock *)arg)->t;
}

static void
fake_sleep(void *arg, double seconds)
{
	struct fake_clock	*f = arg;
	struct event		*e;

	f->t += seconds;
	f->sleeps++;
	for (e = f->ev; e != NULL && e->path != NULL; e++) {
		if (!e->done && e->at <= f->t) {
			write_file(e->path, e->content);
			e->done = 1;
		}
	}
}

static void
dir_setup(void)
{
	base = t_tmpdir("check_exchange");
	memset(&fc, 0, sizeof fc);
	clk.now = fake_now;
	clk.sleep = fake_sleep;
	clk.arg = &fc;
}

static void
dir_teardown(void)
{
	t_rmtree(base);
	base = NULL;
}

/* Options for an exchange in base/x, this node being task (or host
 * when task is -1) with address 10.0.0.TASK. */
struct run {
	struct exchange_opts	o;
	struct exchange_node	x;
	struct exchange_result	r;
	char			dir[300];
	char			*cause;
	enum fault		xc;
};

static void
run_init(struct run *w, int64_t task, const char *host, uint64_t nnodes)
{
	memset(w, 0, sizeof *w);
	snprintf(w->dir, sizeof w->dir, "%s/x", base);
	w->o.method = EXCHANGE_DIR;
	w->o.dir = w->dir;
	w->o.timeout = 5;
	w->o.clock = &clk;
	w->x.self.task = task;
	snprintf(w->x.self.host, sizeof w->x.self.host, "%s", host);
	snprintf(w->x.self.addr, sizeof w->x.self.addr, "10.0.0.%lld",
	    (long long)(task < 0 ? 99 : task));
	w->x.jobid = "77";
	w->x.task_base = 1;
	w->x.nnodes = nnodes;
}

static void
run_go(struct run *w)
{
	w->xc = exchange_dir(&w->r, &w->o, &w->x, &w->cause);
}

static void
run_done(struct run *w)
{
	exchange_result_free(&w->r);
	if (w->xc != FAULT_NONE)
		free(w->cause);
}

static void
expect_ok(struct run *w, uint64_t node_rank, uint64_t nnodes,
    const char *master)
{
	ck_assert_msg(w->xc == FAULT_NONE, "fault %d: %s", w->xc,
	    w->xc == FAULT_NONE ? "" : w->cause);
	ck_assert_uint_eq(w->r.node_rank, node_rank);
	ck_assert_uint_eq(w->r.nnodes, nnodes);
	ck_assert_str_eq(w->r.master_addr, master);
}

/* Expects the exchange to fail with want, where "@" stands for base. */
static void
expect_dir_error(struct run *w, const char *want)
{
	struct buf	 b;
	const char	*at;

	buf_init(&b);
	for (; (at = strchr(want, '@')) != NULL; want = at + 1) {
		buf_addn(&b, want, (size_t)(at - want));
		buf_adds(&b, base);
	}
	buf_adds(&b, want);
	run_go(w);
	ck_assert_int_eq(w->xc, FAULT_EXCHANGE);
	ck_assert_str_eq(w->cause, b.s);
	buf_free(&b);
	run_done(w);
}

#define E3_TABLE "ddprank-table 1\n" \
	"entry 51\n" ENTRY("1", "node1", "10.0.0.1") \
	"entry 51\n" ENTRY("2", "node2", "10.0.0.2") \
	"entry 51\n" ENTRY("3", "node3", "10.0.0.3")

/* Task 1's node collects: task 2's waits for the table alone, and has
 * it once the collector wrote it. */
START_TEST(test_dir_not_first)
{
	struct event	ev[] = {
		{ 0.1, "x/77-r0/collector", "", 0 },
		{ 0.1, "x/77-r0/entry.t1", ENTRY("1", "node1", "10.0.0.1"), 0 },
		{ 2.0, "x/77-r0/entry.t3", ENTRY("3", "node3", "10.0.0.3"), 0 },
		{ 2.2, "x/77-r0/table", E3_TABLE, 0 },
		{ 0, NULL, NULL, 0 }
	};
	struct stat	st;
	struct run	w;
	char		path[512];

	ck_assert_uint_eq(strlen(ENTRY("1", "node1", "10.0.0.1")), 51);
	fc.ev = ev;
	run_init(&w, 2, "node2", 3);
	run_go(&w);
	expect_ok(&w, 1, 3, "10.0.0.1");
	ck_assert_ptr_null(w.r.warning);
	ck_assert(fc.t >= 2.2 && fc.t < 2.5);
	/* A base ddprank makes is private: a base that users share is made
	 * by root, mode 1777. */
	snprintf(path, sizeof path, "%s/x", base);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	/* Not node 0: the entries stay, with this node's read marker. */
	ck_assert(exists("x/77-r0/entry.t2"));
	ck_assert(exists("x/77-r0/read.t2"));
	ck_assert(exists("x/77-r0/entry.t1"));
	run_done(&w);
}
END_TEST

/* No node became the collector (the job has no task 1): after
 * EXCHANGE_TABLE_WAIT, task 2's node lists and collects itself. */
START_TEST(test_dir_no_collector)
{
	struct event	ev[] = {
		{ 0.1, "x/77-r0/entry.t3", ENTRY("3", "node3", "10.0.0.3"), 0 },
		{ 2.0, "x/77-r0/entry.t4", ENTRY("4", "node4", "10.0.0.4"), 0 },
		{ 0, NULL, NULL, 0 }
	};
	struct run	w;

	fc.ev = ev;
	run_init(&w, 2, "node2", 3);
	w.o.timeout = 60;
	run_go(&w);
	expect_ok(&w, 0, 3, "10.0.0.2");
	/* Not before the wait (then node 0 waited for read markers). */
	ck_assert(fc.t >= 5.0);
	ck_assert(exists("x/77-r0/collector"));
	ck_assert(exists("x/77-r0/table"));
	run_done(&w);
}
END_TEST

START_TEST(test_dir_first_cleans_up)
{
	struct event	ev[] = {
		{ 0.5, "x/77-r0/entry.t2", ENTRY("2", "node2", "10.0.0.2"), 0 },
		{ 0.6, "x/77-r0/read.t2", NULL, 0 },
		{ 0, NULL, NULL, 0 }
	};
	struct run	w;

	fc.ev = ev;
	run_init(&w, 1, "node1", 2);
	run_go(&w);
	expect_ok(&w, 0, 2, "10.0.0.1");
	ck_assert_ptr_null(w.r.warning);
	ck_assert(!exists("x/77-r0"));
	ck_assert(exists("x"));
	run_done(&w);
}
END_TEST

START_TEST(test_dir_one_node)
{
	struct run	w;

	run_init(&w, 1, "node1", 1);
	run_go(&w);
	expect_ok(&w, 0, 1, "10.0.0.1");
	ck_assert_uint_eq(fc.sleeps, 0);
	ck_assert(!exists("x/77-r0"));
	run_done(&w);
}
END_TEST

START_TEST(test_dir_by_host)
{
	struct event	ev[] = {
		{ 0.1, "x/77-r0/entry.hgamma", ENTRY_NOTASK("gamma", "10.0.0.3"), 0 },
		{ 0.2, "x/77-r0/entry.halpha", ENTRY_NOTASK("Alpha", "10.0.0.1"), 0 },
		{ 0, NULL, NULL, 0 }
	};
	struct run	w;

	fc.ev = ev;
	run_init(&w, -1, "Beta", 3);
	run_go(&w);
	expect_ok(&w, 1, 3, "10.0.0.1");
	ck_assert(exists("x/77-r0/entry.hbeta"));
	ck_assert(exists("x/77-r0/read.hbeta"));
	run_done(&w);
}
END_TEST

START_TEST(test_dir_timeout)
{
	struct event	ev[] = {
		{ 1.0, "x/77-r0/entry.t4", ENTRY("4", "node4", "10.0.0.4"), 0 },
		{ 0, NULL, NULL, 0 }
	};
	struct run	w;

	fc.ev = ev;
	run_init(&w, 1, "node1", 4);
	expect_dir_error(&w, "exchange in @/x/77-r0 timed out after 5 s: 2 of "
	    "4 nodes arrived; missing task ids 2, 3; arrived: task 1 node1 "
	    "(10.0.0.1), task 4 node4 (10.0.0.4)");
	/* No busy loop, no long oversleep: the collector lists at most
	 * ten times a second. */
	ck_assert(fc.t >= 5.0 && fc.t < 6.0);
	ck_assert_uint_lt(fc.sleeps, 55);
}
END_TEST

START_TEST(test_dir_timeout_by_host)
{
	struct run	w;

	run_init(&w, -1, "node1", 2);
	w.o.timeout = 1;
	expect_dir_error(&w, "exchange in @/x/77-r0 timed out after 1 s: 1 of "
	    "2 nodes arrived; 1 missing (no task ids to name them); arrived: "
	    "node1 (10.0.0.99)");
}
END_TEST

/* The missing task ids are the first few of 1 to nnodes, however large
 * nnodes is; a task id outside that range is said to be one. */
START_TEST(test_dir_timeout_missing)
{
	static const struct {
		uint64_t	 nnodes;
		const char	*more;
	} tc[] = {
		{ 40, "22 more (task ids are not 1 to 40)" },
		{ 100000000, "99999981 more" }
	};
	struct event	 ev[] = {
		{ 0.1, "x/77-r0/entry.t5", ENTRY("5", "node5", "10.0.0.5"), 0 },
		{ 0.1, "x/77-r0/entry.t50", ENTRY("50", "node50", "10.0.0.50"),
		    0 },
		{ 0, NULL, NULL, 0 }
	};
	struct run	 w;
	char		*want;
	size_t		 i;

	fc.ev = ev;
	for (i = 0; i < sizeof tc / sizeof tc[0]; i++) {
		run_init(&w, 1, "node1", tc[i].nnodes);
		w.o.timeout = 1;
		xasprintf(&want, "exchange in @/x/77-r0 timed out after 1 s: 3 "
		    "of %llu nodes arrived; missing task ids 2, 3, 4, 6, 7, 8, "
		    "9, 10, 11, 12, 13, 14, 15, 16, 17, 18 and %s; arrived: "
		    "task 1 node1 (10.0.0.1), task 5 node5 (10.0.0.5), task 50 "
		    "node50 (10.0.0.50)", (unsigned long long)tc[i].nnodes,
		    tc[i].more);
		expect_dir_error(&w, want);
		free(want);
	}
	/* ev goes with this function: the clock must not keep it */
	fc.ev = NULL;
}
END_TEST

/* A scheduler that numbers its tasks from 0: the missing ids, and the
 * range they are said to be outside of, count from there. */
START_TEST(test_dir_timeout_base)
{
	struct event	 ev[] = {
		{ 0.1, "x/77-r0/entry.t2", ENTRY("2", "node2", "10.0.0.2"), 0 },
		{ 0.1, "x/77-r0/entry.t9", ENTRY("9", "node9", "10.0.0.9"), 0 },
		{ 0, NULL, NULL, 0 }
	};
	struct run	 w;

	fc.ev = ev;
	run_init(&w, 1, "node1", 4);
	w.x.task_base = 0;
	w.o.timeout = 1;
	expect_dir_error(&w, "exchange in @/x/77-r0 timed out after 1 s: 3 "
	    "of 4 nodes arrived; missing task ids 0, 3 (task ids are not 0 to "
	    "3); arrived: task 1 node1 (10.0.0.1), task 2 node2 (10.0.0.2), "
	    "task 9 node9 (10.0.0.9)");
	fc.ev = NULL;
}
END_TEST

/* A rerun of the job (CCP_RETRY_COUNT 1) next to a full directory left
 * by the first run: the runs do not mix, and node 0 of the rerun removes
 * what the first one left. */
START_TEST(test_dir_retry)
{
	struct event	ev[] = {
		{ 0.3, "x/77-r1/entry.t2", ENTRY("2", "node2", "10.0.0.22"), 0 },
		{ 0.4, "x/77-r1/read.t2", NULL, 0 },
		{ 0, NULL, NULL, 0 }
	};
	struct run	w;

	make_dir("x");
	make_dir("x/77-r0");
	write_file("x/77-r0/entry.t1", ENTRY("1", "old1", "10.9.0.1"));
	write_file("x/77-r0/entry.t2", ENTRY("2", "old2", "10.9.0.2"));
	write_file("x/77-r0/read.t2", NULL);
	make_dir("x/770-r0");
	make_dir("x/77-r5");
	fc.ev = ev;
	run_init(&w, 1, "node1", 2);
	w.x.retry = 1;
	run_go(&w);
	expect_ok(&w, 0, 2, "10.0.0.1");
	ck_assert_uint_gt(fc.sleeps, 0);
	ck_assert(!exists("x/77-r1"));
	ck_assert(!exists("x/77-r0"));
	/* Another job's directory, and a later run's, are not touched. */
	ck_assert(exists("x/770-r0"));
	ck_assert(exists("x/77-r5"));
	run_done(&w);

	/* The same for a node other than 0, whose master is the rerun's. */
	make_dir("x/77-r0");
	write_file("x/77-r0/entry.t1", ENTRY("1", "old1", "10.9.0.1"));
	write_file("x/77-r0/entry.t2", ENTRY("2", "old2", "10.9.0.2"));
	ev[0].path = "x/77-r1/entry.t1";
	ev[0].content = ENTRY("1", "node1", "10.0.0.11");
	ev[0].done = 0;
	ev[1].path = NULL;
	run_init(&w, 2, "node2", 2);
	w.x.retry = 1;
	run_go(&w);
	expect_ok(&w, 1, 2, "10.0.0.11");
	ck_assert(exists("x/77-r0/entry.t1"));
	run_done(&w);
}
END_TEST

/* A file older than this node's entry by more than the timeout cannot be
 * from this run: it is not counted, and a node that comes replaces it. */
START_TEST(test_dir_stale)
{
	struct event	ev[] = {
		{ 1.0, "x/77-r0/entry.t2", ENTRY("2", "node2", "10.0.0.2"), 0 },
		{ 0, NULL, NULL, 0 }
	};
	struct run	w;

	make_dir("x");
	make_dir("x/77-r0");
	write_file("x/77-r0/entry.t2", ENTRY("2", "old2", "10.9.0.2"));
	age("x/77-r0/entry.t2", 60);
	run_init(&w, 1, "node1", 2);
	w.o.timeout = 2;
	expect_dir_error(&w, "exchange in @/x/77-r0 timed out after 2 s: 1 of "
	    "2 nodes arrived; missing task ids 2; arrived: task 1 node1 "
	    "(10.0.0.1); ignored 1 stale entry");

	age("x/77-r0/entry.t2", 60);
	fc.ev = ev;
	fc.t = 0;
	run_init(&w, 1, "node1", 2);
	w.o.timeout = 5;
	run_go(&w);
	expect_ok(&w, 0, 2, "10.0.0.1");
	run_done(&w);
}
END_TEST

/* A node that registers and crashes before reading: node 0 gives up on
 * its confirmation, keeps the directory and says so. */
START_TEST(test_dir_crashed_reader)
{
	struct event	ev[] = {
		{ 0.2, "x/77-r0/entry.t2", ENTRY("2", "node2", "10.0.0.2"), 0 },
		{ 0, NULL, NULL, 0 }
	};
	struct run	w;
	char		*want;

	fc.ev = ev;
	run_init(&w, 1, "node1", 2);
	w.o.timeout = 100;
	run_go(&w);
	expect_ok(&w, 0, 2, "10.0.0.1");
	xasprintf(&want, "exchange: leaving %s/x/77-r0 in place: no "
	    "confirmation after %d s that task 2 node2 (10.0.0.2) read it",
	    base, EXCHANGE_CLEANUP_WAIT);
	ck_assert_str_eq(w.r.warning, want);
	free(want);
	ck_assert(fc.t >= EXCHANGE_CLEANUP_WAIT &&
	    fc.t < EXCHANGE_CLEANUP_WAIT + 2);
	ck_assert(exists("x/77-r0/entry.t2"));
	run_done(&w);
}
END_TEST

/* Node 0 removes the earlier runs' directories before it waits for the
 * read markers, so also when a reader of this run never confirms. */
START_TEST(test_dir_retry_crashed_reader)
{
	struct run	w;

	make_dir("x");
	make_dir("x/77-r0");
	make_dir("x/77-r1");
	write_file("x/77-r0/entry.t1", ENTRY("1", "old1", "10.9.0.1"));
	write_file("x/77-r1/entry.t2", ENTRY("2", "node2", "10.0.0.2"));
	run_init(&w, 1, "node1", 2);
	w.x.retry = 1;
	run_go(&w);
	ck_assert(!exists("x/77-r0"));
	ck_assert(exists("x/77-r1/entry.t2"));
	expect_ok(&w, 0, 2, "10.0.0.1");
	ck_assert_ptr_nonnull(w.r.warning);
	run_done(&w);
}
END_TEST

/* Files nobody should have put there are ignored with a warning, not an
 * error: one planted file must not stop the job. */
START_TEST(test_dir_bad_entries)
{
	static const char *const why[] = {
		"entry.t3 (line 1: not a ddprank exchange entry)",
		"entry.t4 (larger than 1024 bytes)",
		"entry.t5 (not a regular file)",
		"entry.t6 (a symbolic link)",
		"entry.t7 (its name does not match its contents (t3))",
		"entry.t8 (owned by uid 12345, not by you)"
	};
	struct run	 w;
	struct buf	 b;
	char		 path[512];
	size_t		 i, n = sizeof why / sizeof why[0];

	make_dir("x");
	make_dir("x/77-r0");
	write_file("x/77-r0/entry.t3", "GET / HTTP/1.0\r\n");
	buf_init(&b);
	while (b.len < 100000)
		buf_adds(&b, "0123456789abcdef");
	write_file("x/77-r0/entry.t4", b.s);
	buf_free(&b);
	snprintf(path, sizeof path, "%s/x/77-r0/entry.t5", base);
	ck_assert_int_eq(mkfifo(path, 0644), 0);
	snprintf(path, sizeof path, "%s/x/77-r0/entry.t6", base);
	ck_assert_int_eq(symlink("/dev/zero", path), 0);
	write_file("x/77-r0/entry.t7", ENTRY("3", "node3", "10.0.0.3"));
	write_file("x/77-r0/entry.t8", ENTRY("8", "node8", "10.6.6.6"));
	snprintf(path, sizeof path, "%s/x/77-r0/entry.t8", base);
	if (geteuid() != 0 || chown(path, 12345, 12345) == -1)
		n--;
	/* Temporary files of a writer and foreign names are not entries. */
	write_file("x/77-r0/entry.t3.Xy12Ab", "partial");
	write_file("x/77-r0/notes.txt", "hello");
	write_file("x/77-r0/entry.t2", ENTRY("2", "node2", "10.0.0.2"));
	write_file("x/77-r0/read.t2", NULL);
	run_init(&w, 1, "node1", 2);
	run_go(&w);
	expect_ok(&w, 0, 2, "10.0.0.1");
	ck_assert_ptr_nonnull(w.r.warning);
	ck_assert_msg(strstr(w.r.warning, "ignored") != NULL, "%s",
	    w.r.warning);
	for (i = 0; i < n; i++)
		ck_assert_msg(strstr(w.r.warning, why[i]) != NULL,
		    "no '%s' in '%s'", why[i], w.r.warning);
	/* Only what ddprank writes, and owns, is removed. */
	ck_assert(!exists("x/77-r0/entry.t2"));
	ck_assert(!exists("x/77-r0/read.t1"));
	ck_assert(exists("x/77-r0/notes.txt"));
	if (n == sizeof why / sizeof why[0])
		ck_assert(exists("x/77-r0/entry.t8"));
	ck_assert_msg(strstr(w.r.warning, "cannot remove") != NULL, "%s",
	    w.r.warning);
	run_done(&w);

	/* Not enough entries that count: the timeout says what was
	 * ignored. */
	write_file("x/77-r0/entry.t2", "junk\n");
	run_init(&w, 1, "node1", 2);
	w.o.timeout = 1;
	run_go(&w);
	ck_assert_int_eq(w.xc, FAULT_EXCHANGE);
	ck_assert_msg(strstr(w.cause, "entry.t2 (line 1: not a ddprank "
	    "exchange entry)") != NULL, "%s", w.cause);
	run_done(&w);
}
END_TEST

START_TEST(test_dir_too_many)
{
	struct run	w;

	make_dir("x");
	make_dir("x/77-r0");
	write_file("x/77-r0/entry.t2", ENTRY("2", "node2", "10.0.0.2"));
	write_file("x/77-r0/entry.t3", ENTRY("3", "node3", "10.0.0.3"));
	run_init(&w, 1, "node1", 2);
	expect_dir_error(&w, "exchange in @/x/77-r0: 3 nodes registered, "
	    "more than --nnodes 2; arrived: task 1 node1 (10.0.0.1), task 2 "
	    "node2 (10.0.0.2), task 3 node3 (10.0.0.3)");
}
END_TEST

START_TEST(test_dir_setup_errors)
{
	struct run	w;

	run_init(&w, 1, "node1", 2);
	snprintf(w.dir, sizeof w.dir, "%s/missing/x", base);
	expect_dir_error(&w, "exchange directory @/missing/x: No such file "
	    "or directory");

	run_init(&w, 1, "node1", 2);
	w.x.jobid = NULL;
	expect_dir_error(&w, "--exchange dir: needs a job id to name its "
	    "directory, and none is set (CCP_JOBID, SLURM_JOB_ID, FLUX_JOB_ID, "
	    "PBS_JOBID, LSB_JOBID or DDPGEN_LOCAL_JOB)");

	run_init(&w, 1, "node1", 0);
	run_go(&w);
	ck_assert_int_eq(w.xc, FAULT_USAGE);
	ck_assert_str_eq(w.cause, "--exchange dir: needs --nnodes N, the "
	    "number of nodes to wait for");
	run_done(&w);
}
END_TEST

/* --- StrictModes and the authenticated exchange ------------------------- */

#define KEY1	"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define KEY2	"ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"

static struct auth	key1, key2;

static void
keys_init(void)
{
	char	*cause = NULL;

	ck_assert_int_eq(auth_parse(&key1, KEY1, "key1", &cause), 0);
	ck_assert_int_eq(auth_parse(&key2, KEY2, "key2", &cause), 0);
}

/* An entry of task in run, signed with a. Caller frees. */
static char *
signed_entry(const struct auth *a, const char *run, int64_t task,
    const char *addr)
{
	struct exchange_entry	e;
	struct buf		b;

	memset(&e, 0, sizeof e);
	e.task = task;
	snprintf(e.host, sizeof e.host, "node%lld", (long long)task);
	snprintf(e.addr, sizeof e.addr, "%s", addr);
	buf_init(&b);
	exchange_format_entry(&b, &e);
	ck_assert_int_eq(exchange_sign_entry(&b, a, run, NULL), 0);
	return b.s;
}

/* The read marker of key in run, as node 1's own writer makes it. */
static char *
read_marker(const char *run, const char *key)
{
	char	*msg, *s, hex[AUTH_HEX_LEN + 1];

	xasprintf(&msg, "%s\n%s", run, key);
	ck_assert_int_eq(auth_mac_hex(&key1, "ddprank read", msg, strlen(msg),
	    hex), 0);
	free(msg);
	xasprintf(&s, "mac %s\n", hex);
	return s;
}

START_TEST(test_sign_verify)
{
	struct buf	 b;
	size_t		 n;
	char		*cause = NULL, *e;

	keys_init();
	e = signed_entry(&key1, "77-r0-x", 2, "10.0.0.2");
	n = strlen(e);
	ck_assert_int_eq(exchange_verify_entry(e, &n, &key1, "77-r0-x",
	    &cause), 0);
	ck_assert_uint_eq(n, strlen(ENTRY("2", "node2", "10.0.0.2")));
	ck_assert_int_eq(memcmp(e, ENTRY("2", "node2", "10.0.0.2"), n), 0);
	/* Another key, another run, one byte changed, no mac line. */
	n = strlen(e);
	ck_assert_int_eq(exchange_verify_entry(e, &n, &key2, "77-r0-x",
	    &cause), -1);
	ck_assert_str_eq(cause, "does not authenticate: written without "
	    "this job's secret");
	free(cause);
	ck_assert_int_eq(exchange_verify_entry(e, &n, &key1, "77-r1-x",
	    &cause), -1);
	free(cause);
	e[strlen("ddprank-exchange 1\ntask ")] = '3';
	ck_assert_int_eq(exchange_verify_entry(e, &n, &key1, "77-r0-x",
	    &cause), -1);
	free(cause);
	free(e);
	buf_init(&b);
	buf_adds(&b, ENTRY("2", "node2", "10.0.0.2"));
	n = b.len;
	ck_assert_int_eq(exchange_verify_entry(b.s, &n, &key1, "77-r0-x",
	    &cause), -1);
	ck_assert_str_eq(cause, "not authenticated: no mac line");
	free(cause);
	buf_free(&b);
	/* The run directory's name: unknown without the key. */
	e = exchange_run_name(&key1, "77", 0);
	ck_assert_uint_eq(strlen(e), strlen("77-r0-") + 32);
	ck_assert_int_eq(strncmp(e, "77-r0-", 6), 0);
	free(e);
	e = exchange_run_name(NULL, "77", 0);
	ck_assert_str_eq(e, "77-r0");
	free(e);
}
END_TEST

/* A MAC that cannot be computed is an error everywhere, never a fixed
 * MAC anyone could forge. libcrypto's HMAC (mac-openssl.c, which this
 * suite links) is made to fail with a key length it cannot take. */
START_TEST(test_mac_fails_closed)
{
	struct auth	 a;
	struct buf	 b;
	unsigned char	 mac[AUTH_MAC_LEN];
	char		 hex[AUTH_HEX_LEN + 1], zeros[AUTH_HEX_LEN + 1];
	char		*cause = NULL;
	size_t		 n;

	keys_init();
	a = key1;
	a.len = (size_t)INT_MAX + 1;
	memset(zeros, '0', AUTH_HEX_LEN);
	zeros[AUTH_HEX_LEN] = '\0';
	ck_assert_int_eq(auth_mac(&a, "l", "x", 1, mac), -1);
	ck_assert_int_eq(auth_mac_hex(&a, "l", "x", 1, hex), -1);
	ck_assert_int_eq(auth_check_hex(&a, "l", "x", 1, zeros, AUTH_HEX_LEN),
	    0);
	ck_assert_ptr_null(exchange_run_name(&a, "77", 0));
	buf_init(&b);
	buf_adds(&b, ENTRY("1", "node1", "10.0.0.1"));
	ck_assert_int_eq(exchange_sign_entry(&b, &a, "77-r0", &cause), -1);
	ck_assert_str_eq(cause, "ddprank entry: HMAC-SHA256 failed: not "
	    "written unsigned");
	free(cause);
	ck_assert_ptr_null(strstr(b.s, "mac "));
	buf_addf(&b, "mac %s\n", zeros);
	n = b.len;
	ck_assert_int_eq(exchange_verify_entry(b.s, &n, &a, "77-r0", &cause),
	    -1);
	ck_assert_str_eq(cause, "cannot be checked: HMAC-SHA256 failed");
	free(cause);
	buf_free(&b);
}
END_TEST

/* Two nodes sharing a secret: the attacker's predictable directory is
 * not even looked at; an entry the attacker signs with another key, or
 * not at all, is ignored, and a genuine one counts. */
START_TEST(test_dir_auth)
{
	struct event	 ev[4];
	struct run	 w;
	char		*name, *rel[3], *content[3];

	keys_init();
	name = exchange_run_name(&key1, "77", 0);
	make_dir("x");
	make_dir("x/77-r0");
	write_file("x/77-r0/entry.t2", ENTRY("2", "evil", "10.6.6.6"));
	xasprintf(&rel[0], "x/%s/entry.t2", name);
	xasprintf(&rel[1], "x/%s/read.t2", name);
	content[0] = signed_entry(&key2, name, 2, "10.6.6.6");
	run_init(&w, 1, "node1", 2);
	w.o.auth = &key1;
	w.o.timeout = 1;
	memset(ev, 0, sizeof ev);
	ev[0].at = 0.1;
	ev[0].path = rel[0];
	ev[0].content = content[0];
	fc.ev = ev;
	run_go(&w);
	ck_assert_int_eq(w.xc, FAULT_EXCHANGE);
	ck_assert_msg(strstr(w.cause, "ignored 1 file: entry.t2 (does not "
	    "authenticate: written without this job's secret)") != NULL, "%s",
	    w.cause);
	run_done(&w);

	/* The genuine entry, and its read marker. */
	content[1] = signed_entry(&key1, name, 2, "10.0.0.2");
	content[2] = read_marker(name, "t2");
	ev[0].content = content[1];
	ev[0].done = 0;
	ev[1].at = 0.2;
	ev[1].path = rel[1];
	ev[1].content = content[2];
	fc.t = 0;
	run_init(&w, 1, "node1", 2);
	w.o.auth = &key1;
	run_go(&w);
	expect_ok(&w, 0, 2, "10.0.0.1");
	ck_assert_ptr_null(w.r.warning);
	xasprintf(&rel[2], "x/%s", name);
	ck_assert(!exists(rel[2]));
	ck_assert(exists("x/77-r0/entry.t2"));
	run_done(&w);
	free(rel[0]);
	free(rel[1]);
	free(rel[2]);
	free(content[0]);
	free(content[1]);
	free(content[2]);
	free(name);
}
END_TEST

/* --- the table ------------------------------------------------------------ */

#define E1	ENTRY("1", "node1", "10.0.0.1")
#define E2	ENTRY("2", "node2", "10.0.0.2")

/* A table without a secret, as ddprank(1) describes it: its ignored
 * line (NULL: none), then each entry after an "entry LEN" line.
 * Caller frees. */
static char *
table_of(const char *ignored, const char *e1, const char *e2)
{
	struct buf	b;

	buf_init(&b);
	buf_adds(&b, "ddprank-table 1\n");
	if (ignored != NULL)
		buf_addf(&b, "ignored %s\n", ignored);
	buf_addf(&b, "entry %zu\n%s", strlen(e1), e1);
	buf_addf(&b, "entry %zu\n%s", strlen(e2), e2);
	return b.s;
}

/* base/REL's contents; caller frees. */
static char *
read_rel(const char *rel)
{
	char	 path[512], *s;
	size_t	 n;
	FILE	*f;

	snprintf(path, sizeof path, "%s/%s", base, rel);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	s = xcalloc(1, 4096);
	n = fread(s, 1, 4095, f);
	s[n] = '\0';
	fclose(f);
	return s;
}

/* A node that is not the collector reads the table, and not the
 * entries: entry.t1 here is junk it would ignore, and wait in vain. */
START_TEST(test_dir_table)
{
	struct run	 w;
	char		*t;

	make_dir("x");
	make_dir("x/77-r0");
	write_file("x/77-r0/entry.t1", "junk\n");
	write_file("x/77-r0/collector", NULL);
	t = table_of("1 entry.t9 (a symbolic link)", E1, E2);
	write_file("x/77-r0/table", t);
	free(t);
	run_init(&w, 2, "node2", 2);
	run_go(&w);
	expect_ok(&w, 1, 2, "10.0.0.1");
	ck_assert_ptr_nonnull(w.r.warning);
	ck_assert_msg(strstr(w.r.warning, "ignored 1 file: entry.t9 (a "
	    "symbolic link)") != NULL, "%s", w.r.warning);
	ck_assert(exists("x/77-r0/read.t2"));
	run_done(&w);

	/* Out of node order (another collector's): taken all the same. */
	t = table_of(NULL, E2, E1);
	write_file("x/77-r0/table", t);
	free(t);
	fc.t = 0;
	run_init(&w, 2, "node2", 2);
	run_go(&w);
	expect_ok(&w, 1, 2, "10.0.0.1");
	run_done(&w);
}
END_TEST

/* A table that does not hold this node's entry as it wrote it is not
 * used: the node reads the entries itself, and says why. */
START_TEST(test_dir_table_bad)
{
	struct run	 w;
	char		 path[512], *t;

	make_dir("x");
	make_dir("x/77-r0");
	write_file("x/77-r0/entry.t1", E1);
	write_file("x/77-r0/collector", NULL);
	t = table_of(NULL, E1, ENTRY("2", "node2", "10.6.6.6"));
	write_file("x/77-r0/table", t);
	free(t);
	run_init(&w, 2, "node2", 2);
	w.o.timeout = 60;
	run_go(&w);
	expect_ok(&w, 1, 2, "10.0.0.1");
	ck_assert_ptr_nonnull(w.r.warning);
	ck_assert_msg(strstr(w.r.warning, "table (this node's entry "
	    "differs)") != NULL, "%s", w.r.warning);
	run_done(&w);

	/* Nor is a table that is not a regular file of this user's. */
	snprintf(path, sizeof path, "%s/x/77-r0/table", base);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink("/dev/zero", path), 0);
	fc.t = 0;
	run_init(&w, 2, "node2", 2);
	w.o.timeout = 60;
	run_go(&w);
	expect_ok(&w, 1, 2, "10.0.0.1");
	ck_assert_msg(strstr(w.r.warning, "table (a symbolic link)") != NULL,
	    "%s", w.r.warning);
	run_done(&w);
}
END_TEST

/* The collector, node 1 here, writes the table. */
START_TEST(test_dir_table_written)
{
	struct run	 w;
	char		*want, *got;

	make_dir("x");
	make_dir("x/77-r0");
	write_file("x/77-r0/entry.t2", E2);
	run_init(&w, 1, "node1", 2);
	w.o.timeout = 1;
	run_go(&w);
	/* Node 0 waited for task 2's read marker in vain, and left the
	 * directory: the table is there. */
	expect_ok(&w, 0, 2, "10.0.0.1");
	ck_assert(exists("x/77-r0/collector"));
	want = table_of(NULL, E1, E2);
	got = read_rel("x/77-r0/table");
	ck_assert_str_eq(got, want);
	free(want);
	free(got);
	run_done(&w);
}
END_TEST

/* A run directory someone else made, or that others may write to, is
 * not used: the exchange fails closed. */
START_TEST(test_dir_foreign_run)
{
	struct run	w;
	char		path[512];

	make_dir("x");
	make_dir("x/77-r0");
	snprintf(path, sizeof path, "%s/x/77-r0", base);
	ck_assert_int_eq(chmod(path, 0777), 0);
	run_init(&w, 1, "node1", 2);
	expect_dir_error(&w, "exchange directory @/x/77-r0: mode 0777: others "
	    "could write in it; not using it");
	if (geteuid() != 0)
		return;
	ck_assert_int_eq(chmod(path, 0755), 0);
	ck_assert_int_eq(chown(path, 12345, 12345), 0);
	run_init(&w, 1, "node1", 2);
	expect_dir_error(&w, "exchange directory @/x/77-r0 is owned by uid "
	    "12345, not by you: someone else made it; not using it");
}
END_TEST

START_TEST(test_dir_base_checks)
{
	struct run	w;
	char		path[512], target[512];

	make_dir("x");
	snprintf(path, sizeof path, "%s/x", base);
	ck_assert_int_eq(chmod(path, 0777), 0);
	run_init(&w, 1, "node1", 1);
	expect_dir_error(&w, "exchange directory @/x: mode 0777: writable by "
	    "others and not sticky, so they could swap your files; chmod +t");
	ck_assert_int_eq(chmod(path, 01777), 0);
	run_init(&w, 1, "node1", 1);
	run_go(&w);
	expect_ok(&w, 0, 1, "10.0.0.1");
	run_done(&w);
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(path, 12345, 12345), 0);
		run_init(&w, 1, "node1", 1);
		expect_dir_error(&w, "exchange directory @/x is owned by uid "
		    "12345, neither you nor root: its owner could swap your "
		    "files; use a base that root made, mode 1777");
	}
	/* A link to a directory is not followed. */
	make_dir("real");
	snprintf(target, sizeof target, "%s/real", base);
	snprintf(path, sizeof path, "%s/link", base);
	ck_assert_int_eq(symlink(target, path), 0);
	run_init(&w, 1, "node1", 1);
	snprintf(w.dir, sizeof w.dir, "%s/link", base);
	expect_dir_error(&w, "exchange directory @/link: a symbolic link");
	/* Without owners (cifs), only a secret can tell the job's files. */
	run_init(&w, 1, "node1", 1);
	w.o.noowners = 1;
	expect_dir_error(&w, "exchange directory @/x is on a file system that "
	    "does not keep owners (cifs, smb): anyone could write in it; give "
	    "the job a secret (DDPRANK_SECRET, or the key file "
	    "~/.ddprank/key, which 'ddprank key' makes)");
	keys_init();
	run_init(&w, 1, "node1", 1);
	w.o.noowners = 1;
	w.o.auth = &key1;
	run_go(&w);
	expect_ok(&w, 0, 1, "10.0.0.1");
	run_done(&w);
}
END_TEST

/* Cleanup of an earlier run never follows a link nor removes what is
 * not ddprank's and this user's. */
START_TEST(test_dir_cleanup_links)
{
	struct run	w;
	char		path[512], target[512];

	make_dir("x");
	make_dir("victim");
	write_file("victim/entry.t1", "precious");
	write_file("victim/read.t1", "precious");
	snprintf(target, sizeof target, "%s/victim", base);
	snprintf(path, sizeof path, "%s/x/77-r0", base);
	ck_assert_int_eq(symlink(target, path), 0);
	make_dir("x/77-r1");
	write_file("x/77-r1/entry.t1", ENTRY("1", "old1", "10.9.0.1"));
	snprintf(path, sizeof path, "%s/x/77-r1/entry.t1", base);
	if (geteuid() == 0)
		ck_assert_int_eq(chown(path, 12345, 12345), 0);
	run_init(&w, 1, "node1", 1);
	w.x.retry = 2;
	run_go(&w);
	expect_ok(&w, 0, 1, "10.0.0.1");
	run_done(&w);
	ck_assert(exists("victim/entry.t1"));
	ck_assert(exists("victim/read.t1"));
	ck_assert(exists("x/77-r0"));
	ck_assert(exists("x/77-r2") == 0);
	if (geteuid() == 0)
		ck_assert(exists("x/77-r1/entry.t1"));
}
END_TEST

/* The key file, checked as StrictModes checks: only a file no one else
 * can read or replace is used. */
static void
expect_key_error(const char *want)
{
	struct auth	 a;
	struct buf	 b;
	const char	*at;
	char		*cause = NULL;

	buf_init(&b);
	for (; (at = strchr(want, '@')) != NULL; want = at + 1) {
		buf_addn(&b, want, (size_t)(at - want));
		buf_adds(&b, base);
	}
	buf_adds(&b, want);
	ck_assert_int_eq(auth_load_file(&a, base, geteuid(), &cause), -1);
	ck_assert_str_eq(cause, b.s);
	ck_assert_uint_eq(a.len, 0);
	free(cause);
	buf_free(&b);
}

START_TEST(test_key_file)
{
	struct auth	 a;
	char		*cause = NULL, path[600], dir[512];

	ck_assert_int_eq(chmod(base, 0755), 0);
	ck_assert_int_eq(auth_load_file(&a, base, geteuid(), &cause), 0);
	ck_assert_uint_eq(a.len, 0);
	snprintf(dir, sizeof dir, "%s/.ddprank", base);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	ck_assert_int_eq(auth_load_file(&a, base, geteuid(), &cause), 0);
	ck_assert_uint_eq(a.len, 0);
	snprintf(path, sizeof path, "%s/key", dir);
	write_file(".ddprank/key", KEY1 "\n");
	ck_assert_int_eq(chmod(path, 0600), 0);
	ck_assert_int_eq(auth_load_file(&a, base, geteuid(), &cause), 0);
	ck_assert_uint_eq(a.len, 32);
	ck_assert_int_eq(chmod(path, 0640), 0);
	expect_key_error("@/.ddprank/key: mode 0640: readable or writable by "
	    "others; chmod go=");
	ck_assert_int_eq(chmod(path, 0600), 0);
	ck_assert_int_eq(chmod(dir, 0777), 0);
	expect_key_error("@/.ddprank: mode 0777: writable by others; chmod "
	    "go-w");
	ck_assert_int_eq(chmod(dir, 0700), 0);
	write_file(".ddprank/key", "not hex at all, not hex at all, 0123\n");
	expect_key_error("@/.ddprank/key: not hex digits");
	write_file(".ddprank/key", "0123\n");
	expect_key_error("@/.ddprank/key: expected 32 to 128 hex digits, an "
	    "even number");
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	expect_key_error("@/.ddprank/key: a symbolic link");
	if (geteuid() != 0)
		return;
	ck_assert_int_eq(unlink(path), 0);
	write_file(".ddprank/key", KEY1 "\n");
	ck_assert_int_eq(chmod(path, 0600), 0);
	ck_assert_int_eq(chown(path, 12345, 12345), 0);
	expect_key_error("@/.ddprank/key: owned by uid 12345, not by you (uid "
	    "0)");
}
END_TEST

/* --- through rank_compute ------------------------------------------------- */

struct fake_node {
	const char		*hostname;
	const char		*ifaddr;	/* eth0's, or NULL */
	const char *const	*env;
};

/* Every name resolves to 10.5.0.1, except "loopy" to 127.0.1.1. */
static const char *const node_dns[] = {
	"loopy=127.0.1.1",
	"*=10.5.0.1",
	NULL
};

/* The machine of node, in ifs and net: loopback, and eth0 when the node
 * has an address there. */
static struct netif_sys
node_sys(const struct fake_node *node, struct t_if ifs[3], struct t_net *net)
{
	const struct t_if	lo = { "lo", 1, "127.0.0.1", 8 };
	const struct t_if	eth0 = { "eth0", 1, node->ifaddr, 64 };
	const struct t_if	end = { NULL, 0, NULL, 0 };

	ifs[0] = lo;
	ifs[1] = node->ifaddr != NULL ? eth0 : end;
	ifs[2] = end;
	memset(net, 0, sizeof *net);
	net->hostname = node->hostname;
	net->ifs = ifs;
	net->dns = node_dns;
	return t_net_sys(net);
}

static int
rank_exchange(struct fake_node *node, const char *iface, uint64_t nnodes,
    struct rank *r, char **cause)
{
	struct t_if		 ifs[3];
	struct t_net		 net;
	struct netif_sys	 sys = node_sys(node, ifs, &net);
	struct nodes_env	 env = t_env(node->env);
	struct exchange_opts	 xo;
	struct rank_opts	 ro;
	struct rx		 rx;
	enum fault		 xc;

	memset(&xo, 0, sizeof xo);
	xo.method = EXCHANGE_DIR;
	xasprintf(&xo.dir, "%s/x", base);
	xo.timeout = 5;
	xo.clock = &clk;
	memset(&ro, 0, sizeof ro);
	ro.lo = 20000;
	ro.hi = 29999;
	ro.nnodes = nnodes;
	ro.exchange = &xo;
	if (iface != NULL) {
		ck_assert_int_eq(rx_compile(&rx, iface, cause), 0);
		ro.rx = &rx;
		ro.iface = iface;
	}
	xc = rank_compute(r, &ro, &env, &sys, cause);
	if (iface != NULL)
		rx_free(&rx);
	exchange_opts_free(&xo);
	return xc;
}

START_TEST(test_rank_exchange)
{
	static const char *const env[] = {
		"CCP_JOBID=4242", "CCP_TASKID=2", "CCP_RETRY_COUNT=3",
		"CCP_NODES=1 NODE2 4", "MASTER_ADDR=192.0.2.1", NULL
	};
	struct event		 ev[] = {
		{ 0.1, "x/4242-r3/entry.t1", ENTRY("1", "node1", "fe80::1"), 0 },
		{ 0, NULL, NULL, 0 }
	};
	struct fake_node	 node = { "node2.cluster", "fe80::2", env };
	struct rank		 r;
	char			*cause = NULL;

	/* CCP_NODES, which names only this node, and MASTER_ADDR are not
	 * used: the exchange says there are 2 nodes and which is first. */
	fc.ev = ev;
	ck_assert_int_eq(rank_exchange(&node, "^eth0$", 2, &r, &cause),
	    FAULT_NONE);
	ck_assert_uint_eq(r.node_rank, 1);
	ck_assert_uint_eq(r.nnodes, 2);
	ck_assert_str_eq(r.host, "node2");
	ck_assert_str_eq(r.ifname, "eth0");
	/* node 0's link-local address, reached through this node's eth0 */
	ck_assert_str_eq(r.master_addr, "fe80::1%eth0");
	ck_assert_str_eq(r.jobid, "4242");
	ck_assert_int_eq(r.master_port, 24242);
	rank_free(&r);
	ck_assert(exists("x/4242-r3/entry.t2"));
}
END_TEST

START_TEST(test_rank_exchange_hostname)
{
	static const char *const env[] = { "CCP_JOBID=5", NULL };
	static const char *const bad[] = { "CCP_JOBID=5", "CCP_TASKID=x",
	    NULL };
	struct fake_node	 node = { "solo", NULL, env };
	struct rank		 r;
	char			*cause = NULL;

	/* Without --iface, the address the host name resolves to. */
	ck_assert_int_eq(rank_exchange(&node, NULL, 1, &r, &cause), FAULT_NONE);
	ck_assert_str_eq(r.master_addr, "10.5.0.1");
	ck_assert_ptr_null(r.ifname);
	rank_free(&r);

	node.hostname = "loopy";
	ck_assert_int_eq(rank_exchange(&node, NULL, 2, &r, &cause),
	    FAULT_NODES);
	ck_assert_str_eq(cause, "this node's address: 'loopy' resolves only "
	    "to the loopback address 127.0.1.1, which other nodes cannot "
	    "reach; use --iface REGEX");
	free(cause);
	rank_free(&r);

	node.hostname = "bad.name";
	node.env = bad;
	ck_assert_int_eq(rank_exchange(&node, NULL, 2, &r, &cause),
	    FAULT_NODES);
	ck_assert_str_eq(cause, "CCP_TASKID is not a number: 'x'");
	free(cause);
	rank_free(&r);

	node.hostname = "bad:name";
	node.env = env;
	ck_assert_int_eq(rank_exchange(&node, NULL, 2, &r, &cause),
	    FAULT_EXCHANGE);
	ck_assert_str_eq(cause, "exchange: host name 'bad:name' cannot be "
	    "published: letters, digits, '-' and '_' only, at most 64");
	free(cause);
	rank_free(&r);

	node.hostname = "n1";
	ck_assert_int_eq(rank_exchange(&node, "^lo$", 2, &r, &cause),
	    FAULT_IFACE);
	ck_assert_str_eq(cause, "this node's address: 127.0.0.1 of interface "
	    "lo is a loopback address, which other nodes cannot reach");
	free(cause);
	rank_free(&r);
}
END_TEST

/* A mixed environment: the exchange is named after the job id of the
 * scheduler whose node list is set, and ddprank port agrees. */
START_TEST(test_rank_exchange_mixed_env)
{
	static const char *const env[] = { "SLURM_JOB_ID=5", "CCP_JOBID=7",
	    "CCP_NODES=1 NODE1 4", NULL };
	struct fake_node	 node = { "node1", NULL, env };
	struct nodes_env	 e = t_env(env);
	struct rank_opts	 ro;
	struct rank		 r;
	char			*cause = NULL;
	int			 port;

	ck_assert_int_eq(rank_exchange(&node, NULL, 1, &r, &cause), FAULT_NONE);
	ck_assert_str_eq(r.jobid, "7");
	memset(&ro, 0, sizeof ro);
	ro.lo = 20000;
	ro.hi = 29999;
	ck_assert_int_eq(rank_port(&port, &ro, &e, &cause), FAULT_NONE);
	ck_assert_int_eq(port, 20007);
	ck_assert_int_eq(r.master_port, port);
	rank_free(&r);
}
END_TEST

/* Without --exchange, --nnodes checks the node list. */
START_TEST(test_rank_nnodes_list)
{
	static const char *const env[] = {
		"CCP_JOBID=5", "CCP_TASKID=2", "CCP_NODES=1 NODE2 4", NULL
	};
	struct fake_node	 node = { "node2", "10.5.0.2", env };
	struct t_if		 ifs[3];
	struct t_net		 net;
	struct netif_sys	 sys = node_sys(&node, ifs, &net);
	struct nodes_env	 e = t_env(env);
	struct rank_opts	 ro;
	struct rank		 r;
	char			*cause = NULL;

	memset(&ro, 0, sizeof ro);
	ro.port = 29500;
	ro.nnodes = 2;
	ck_assert_int_eq(rank_compute(&r, &ro, &e, &sys, &cause), FAULT_NODES);
	ck_assert_str_eq(cause, "the node list '1 NODE2 4' (from CCP_NODES) "
	    "names 1 node, not --nnodes 2; use --exchange when tasks see only "
	    "part of the job");
	free(cause);
	rank_free(&r);
	ro.nnodes = 1;
	ck_assert_int_eq(rank_compute(&r, &ro, &e, &sys, &cause), FAULT_NONE);
	ck_assert_uint_eq(r.nnodes, 1);
	rank_free(&r);
}
END_TEST

/* The MACs the nodes check each other's files with are RFC 2104's
 * HMAC-SHA256 of the label, a NUL and the parts, as libcrypto's
 * one-shot HMAC makes it (and mac-own.c, ddprank-static's, does:
 * check_mac), however the parts are cut. */
START_TEST(test_mac_parts)
{
	struct auth	 a;
	struct mac_part	 v[3];
	unsigned char	 got[AUTH_MAC_LEN], want[AUTH_MAC_LEN], msg[300];
	unsigned int	 n;
	char		*cause = NULL;
	size_t		 i, j;

	ck_assert_int_eq(auth_parse(&a, "00112233445566778899aabbccddeeff",
	    "test", &cause), 0);
	memcpy(msg, "lbl", 4);
	for (i = 4; i < sizeof msg; i++)
		msg[i] = (unsigned char)(i * 7);
	n = AUTH_MAC_LEN;
	ck_assert_ptr_nonnull(HMAC(EVP_sha256(), a.key, (int)a.len, msg,
	    sizeof msg, want, &n));
	for (i = 4; i <= sizeof msg; i += 37) {
		for (j = i; j <= sizeof msg; j += 53) {
			v[0].p = msg + 4;
			v[0].len = i - 4;
			v[1].p = msg + i;
			v[1].len = j - i;
			v[2].p = msg + j;
			v[2].len = sizeof msg - j;
			ck_assert_int_eq(auth_mac_parts(&a, "lbl", v, 3, got), 0);
			ck_assert_msg(memcmp(got, want, AUTH_MAC_LEN) == 0,
			    "cut at %zu and %zu", i, j);
		}
	}
}
END_TEST

static Suite *
exchange_suite(void)
{
	Suite	*s = suite_create("exchange");
	TCase	*tc;

	tc = tcase_create("entries");
	tcase_add_test(tc, test_parse_valid);
	tcase_add_test(tc, test_parse_truncated);
	tcase_add_test(tc, test_parse_garbage);
	tcase_add_test(tc, test_parse_huge);
	tcase_add_test(tc, test_format_roundtrip);
	tcase_add_test(tc, test_order);
	tcase_add_test(tc, test_order_duplicates);
	tcase_add_test(tc, test_number);
	tcase_add_test(tc, test_number_conflict);
	tcase_add_test(tc, test_parse_spec);
	tcase_add_test(tc, test_mac_parts);
	suite_add_tcase(s, tc);

	tc = tcase_create("dir");
	tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
	tcase_add_test(tc, test_dir_not_first);
	tcase_add_test(tc, test_dir_no_collector);
	tcase_add_test(tc, test_dir_first_cleans_up);
	tcase_add_test(tc, test_dir_one_node);
	tcase_add_test(tc, test_dir_by_host);
	tcase_add_test(tc, test_dir_timeout);
	tcase_add_test(tc, test_dir_timeout_by_host);
	tcase_add_test(tc, test_dir_timeout_missing);
	tcase_add_test(tc, test_dir_timeout_base);
	tcase_add_test(tc, test_dir_retry);
	tcase_add_test(tc, test_dir_stale);
	tcase_add_test(tc, test_dir_crashed_reader);
	tcase_add_test(tc, test_dir_retry_crashed_reader);
	tcase_add_test(tc, test_dir_bad_entries);
	tcase_add_test(tc, test_dir_too_many);
	tcase_add_test(tc, test_dir_setup_errors);
	tcase_add_test(tc, test_sign_verify);
	tcase_add_test(tc, test_mac_fails_closed);
	tcase_add_test(tc, test_dir_auth);
	tcase_add_test(tc, test_dir_table);
	tcase_add_test(tc, test_dir_table_bad);
	tcase_add_test(tc, test_dir_table_written);
	tcase_add_test(tc, test_dir_foreign_run);
	tcase_add_test(tc, test_dir_base_checks);
	tcase_add_test(tc, test_dir_cleanup_links);
	tcase_add_test(tc, test_key_file);
	tcase_add_test(tc, test_rank_exchange);
	tcase_add_test(tc, test_rank_exchange_hostname);
	tcase_add_test(tc, test_rank_nnodes_list);
	tcase_add_test(tc, test_rank_exchange_mixed_env);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(exchange_suite());
}
