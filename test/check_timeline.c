/* check_timeline.c: unit tests for the launch timeline: the training's
 * hook lines (hostile ones above all), the line each node sends, node
 * 0's report and whom it names, and the gather they share with the
 * doctor: seals of one kind refused as another, and a hostile peer on
 * node 0's port costing a bounded time. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "auth.h"
#include "doctor.h"
#include "gather.h"
#include "timeline.h"
#include "testlib.h"
#include "util.h"
#include "xmalloc.h"

/* The node's ddprank start and the time its hook is read. */
#define SINCE	1800000000.0
#define NOW	1800000010.0

static struct tl_node	n;
static struct tl_hook	h;

static void
setup(void)
{
	timeline_node_init(&n);
	timeline_hook_init(&h, 0);
}

static void
teardown(void)
{
	timeline_node_free(&n);
}

static void
feed(const char *s)
{
	timeline_hook_feed(&n, &h, s, strlen(s), SINCE, NOW);
}

START_TEST(test_phase_words)
{
	enum tl_phase	p;
	int		i;

	for (i = 0; i < TL_NPHASES; i++) {
		const char	*w = timeline_phase_word((enum tl_phase)i);

		ck_assert_int_eq(timeline_phase_parse(w, strlen(w), &p), 0);
		ck_assert_int_eq(p, i);
	}
	ck_assert_int_eq(timeline_phase_parse("impor", 5, &p), -1);
	ck_assert_int_eq(timeline_phase_parse("imports", 7, &p), -1);
	ck_assert_int_eq(timeline_phase_parse("", 0, &p), -1);
}
END_TEST

/* A phase alone takes the time it was read; with a time, that time;
 * the latest of several counts. */
START_TEST(test_hook_good)
{
	feed("import\n");
	ck_assert(n.t[TL_IMPORT] == NOW);
	feed("init 1800000003.25\ninit 1800000004.5\ninit 1800000003.0\n");
	ck_assert(fabs(n.t[TL_INIT] - 1800000004.5) < 1e-6);
	feed("python 1800000001,5 0 2\n");
	ck_assert(fabs(n.t[TL_PYTHON] - 1800000001.5) < 1e-6);
	ck_assert_uint_eq(n.bad, 0);
	ck_assert_uint_eq(h.lws, 2);
	/* Nothing of a line counts before its newline. */
	feed("collective 1800000005");
	ck_assert(n.t[TL_COLLECTIVE] == 0);
	feed(".5 1 2\n");
	ck_assert(fabs(n.t[TL_COLLECTIVE] - 1800000005.5) < 1e-6);
	ck_assert_uint_eq(n.bad, 0);
}
END_TEST

/* Whatever a training writes, a line that is not one is counted and
 * changes nothing. */
static const char *const bad_lines[] = {
	"",				/* empty */
	"imp0rt",			/* no phase */
	"IMPORT",
	"exec",				/* ddprank's own phases */
	"step 1800000001",
	"import  1800000001",		/* two spaces */
	" import",
	"import ",
	"import\t1800000001",
	"import 1800000001\r",
	"import 1800000001 0",		/* a rank without a size */
	"import 1800000001 0 2 x",	/* five words */
	"import -1800000001",
	"import +1800000001",
	"import 1.8e9",
	"import inf",
	"import nan",
	"import 0x6b49d200",
	"import 1800000001.",
	"import .5",
	"import 1800000001.1234567890",	/* ten decimals */
	"import 1234567890123",		/* thirteen digits */
	"import 1799999900",		/* long before ddprank */
	"import 1800000090",		/* in the future */
	"import 1800000001 2 2",	/* rank not below size */
	"import 1800000001 0 0",
	"import 1800000001 0 1025",
	"import 1800000001 -1 2",
	"import 1800000001 00000001 2",	/* eight digits */
	"import 1800000001 a 2",
	NULL
};

START_TEST(test_hook_bad)
{
	size_t	i;
	int	p;

	for (i = 0; bad_lines[i] != NULL; i++) {
		feed(bad_lines[i]);
		feed("\n");
		ck_assert_msg(n.bad == i + 1, "line '%s' taken", bad_lines[i]);
		for (p = 0; p < TL_NPHASES; p++)
			ck_assert_msg(n.t[p] == 0, "line '%s' set %s",
			    bad_lines[i], timeline_phase_word(p));
	}
	/* A NUL byte, and a line longer than TL_LINE_MAX, split over
	 * reads: one bad line each, and the next is read. */
	timeline_hook_feed(&n, &h, "import\0x\n", 9, SINCE, NOW);
	ck_assert_uint_eq(n.bad, i + 1);
	{
		char	big[3 * TL_LINE_MAX];

		memset(big, 'x', sizeof big);
		timeline_hook_feed(&n, &h, big, sizeof big, SINCE, NOW);
		timeline_hook_feed(&n, &h, big, sizeof big, SINCE, NOW);
		feed("\ninit\n");
	}
	ck_assert_uint_eq(n.bad, i + 2);
	ck_assert(n.t[TL_INIT] == NOW);
	ck_assert(!n.full);
}
END_TEST

/* The longest line taken is TL_LINE_MAX bytes with its newline. */
START_TEST(test_hook_line_max)
{
	char	line[TL_LINE_MAX + 2];

	memset(line, '0', sizeof line);
	memcpy(line, "import 1800000001", 17);
	line[TL_LINE_MAX - 1] = '\n';
	timeline_hook_feed(&n, &h, line, TL_LINE_MAX, SINCE, NOW);
	ck_assert_uint_eq(n.bad, 1);	/* too many decimals, but read */
	memset(line, ' ', sizeof line);
	line[TL_LINE_MAX] = '\n';
	timeline_hook_feed(&n, &h, line, TL_LINE_MAX + 1, SINCE, NOW);
	ck_assert_uint_eq(n.bad, 2);
}
END_TEST

/* Past TL_HOOK_MAX bytes, nothing more is read. */
START_TEST(test_hook_full)
{
	char	*junk = xmalloc(TL_HOOK_MAX);
	size_t	 i;

	for (i = 0; i < TL_HOOK_MAX; i++)
		junk[i] = i % 64 == 63 ? '\n' : 'j';
	timeline_hook_feed(&n, &h, junk, TL_HOOK_MAX, SINCE, NOW);
	ck_assert_uint_eq(n.bad, TL_HOOK_MAX / 64);
	ck_assert(!n.full);
	feed("import\n");
	ck_assert(n.full);
	ck_assert(n.t[TL_IMPORT] == 0);
	free(junk);
}
END_TEST

/* Done once every process said its first collective. */
START_TEST(test_hook_done)
{
	feed("import 1800000001 0 2\nimport 1800000001 1 2\n");
	ck_assert(!timeline_hook_done(&n, &h));
	feed("collective 1800000002 1 2\ncollective 1800000002 1 2\n");
	ck_assert(!timeline_hook_done(&n, &h));
	feed("collective 1800000003 0 2\n");
	ck_assert(timeline_hook_done(&n, &h));
	ck_assert(fabs(n.t[TL_COLLECTIVE] - 1800000003) < 1e-6);

	/* A line without ranks: the first such says it for the node. */
	timeline_node_free(&n);
	timeline_hook_init(&h, 0);
	feed("import 1800000001 0 4\ncollective\n");
	ck_assert(timeline_hook_done(&n, &h));

	/* One process a task: its own line is the node's. */
	timeline_node_free(&n);
	timeline_hook_init(&h, 1);
	feed("collective 1800000002 3 4\n");
	ck_assert(timeline_hook_done(&n, &h));
}
END_TEST

static void
fill(struct tl_node *x, uint64_t rank, const char *host, double t0,
    const double *d)
{
	int	p;

	timeline_node_init(x);
	x->rank = rank;
	x->host = xstrdup(host);
	x->reported = 1;
	for (p = 0; p < TL_NPHASES; p++) {
		if (d[p] < 0)
			continue;
		t0 += d[p];
		x->t[p] = t0;
	}
}

START_TEST(test_wire)
{
	static const double	d[TL_NPHASES] = { 0.3, 0.01, 0.001, -1, 0.002,
				    1.5, 3.25, 0.5, 0.125 };
	struct tl_node		x, back;
	struct buf		b;
	char			*cause = NULL;
	int			p;

	fill(&x, 7, "nid 0\0427", SINCE, d);
	x.bad = 3;
	x.full = 1;
	x.end = TL_END_WAITED;
	buf_init(&b);
	timeline_encode(&b, &x);
	ck_assert_msg(strncmp(b.s, "ddprank-timeline 1\nnode 7 nid?0\"7 "
	    "waited 3 1 step=1800000000.300000 ", 66) == 0, "%s", b.s);
	ck_assert_int_eq(timeline_decode(&back, b.s, b.len, &cause), 0);
	ck_assert_uint_eq(back.rank, 7);
	ck_assert_str_eq(back.host, "nid?0\"7");
	ck_assert_int_eq(back.end, TL_END_WAITED);
	ck_assert_uint_eq(back.bad, 3);
	ck_assert_int_eq(back.full, 1);
	for (p = 0; p < TL_NPHASES; p++)
		ck_assert(fabs(back.t[p] - x.t[p]) < 1e-5);
	timeline_node_free(&back);
	buf_free(&b);
	timeline_node_free(&x);
}
END_TEST

static const char *const bad_wire[] = {
	"",
	"ddprank-timeline 2\nnode 1 a done 0 0\nend\n",
	"ddprank-timeline 1\nend\n",
	"ddprank-timeline 1\nnode 1 a done 0 0\n",
	"ddprank-timeline 1\nnode 1 a done 0 0\nend\nmore\n",
	"ddprank-timeline 1\nnode 1 a done 0 0\nend",
	"ddprank-timeline 1\nnode 1 a gone 0 0\nend\n",
	"ddprank-timeline 1\nnode 1 a done 0 2\nend\n",
	"ddprank-timeline 1\nnode x a done 0 0\nend\n",
	"ddprank-timeline 1\nnode 1 a done 0 0 import=\nend\n",
	"ddprank-timeline 1\nnode 1 a done 0 0 import=nan\nend\n",
	"ddprank-timeline 1\nnode 1 a done 0 0 import=-5.0\nend\n",
	"ddprank-timeline 1\nnode 1 a done 0 0 bogus=5.0\nend\n",
	"ddprank-timeline 1\nnode 1 a done 0 0 import=5.0 import=6.0\nend\n",
	"ddprank-timeline 1\nnode 1 a done 0 0  import=5.0\nend\n",
	"ddprank-timeline 1\nnode 1 a done 0 0 import=5.0 \nend\n",
	"ddprank-timeline 1\nnode 1 a done 0 0import=5.0\nend\n",
	"ddprank-timeline 1\nnode 1 a\x01 done 0 0\nend\n",
	NULL
};

START_TEST(test_wire_bad)
{
	struct tl_node	back;
	char		*cause = NULL;
	size_t		 i;

	for (i = 0; bad_wire[i] != NULL; i++) {
		ck_assert_msg(timeline_decode(&back, bad_wire[i],
		    strlen(bad_wire[i]), &cause) == -1, "taken: %s",
		    bad_wire[i]);
		ck_assert_ptr_nonnull(cause);
		free(cause);
		cause = NULL;
	}
	ck_assert_int_eq(timeline_decode(&back, "ddprank-timeline 1\nnode 1 "
	    "a done 0 0\0 import=5.0\nend\n", 41, &cause), -1);
	free(cause);
}
END_TEST

/* Three nodes; node2's training takes 5 s longer to import, and the
 * others wait for it in init_process_group: node2's import is named. */
START_TEST(test_report_slow_node)
{
	static const double	fast[TL_NPHASES] = { 0.3, 0.01, 0.001, -1,
				    0.002, 0.6, 3.0, 5.6, 0.1 };
	static const double	slow[TL_NPHASES] = { 0.35, 0.01, 0.001, -1,
				    0.002, 0.6, 8.0, 0.55, 0.1 };
	struct tl_report	r;
	struct buf		b;

	memset(&r, 0, sizeof r);
	r.n = 3;
	r.v = xcalloc(3, sizeof *r.v);
	r.job_start = SINCE;
	r.wait = 300;
	fill(&r.v[0], 0, "node1", SINCE, fast);
	fill(&r.v[1], 1, "node2", SINCE, slow);
	fill(&r.v[2], 2, "node3", SINCE, fast);
	buf_init(&b);
	timeline_format(&b, &r);
	ck_assert_msg(strstr(b.s, "ddprank timeline: 3 nodes, start-up "
	    "9.61 s from the job's start\n") == b.s, "%s", b.s);
	ck_assert_msg(strstr(b.s, "\nimport                  3.00 s    8.00 s"
	    "  node2\n") != NULL, "%s", b.s);
	ck_assert_msg(strstr(b.s, "\nprocess group           5.60 s    5.60 s"
	    "  node1\n") != NULL, "%s", b.s);
	ck_assert_msg(strstr(b.s, "exchange") == NULL, "%s", b.s);
	ck_assert_msg(strstr(b.s, "\nstart-up 9.6 s; slowest: node2 import "
	    "8.0 s (median 3.0 s)\n") != NULL, "%s", b.s);
	buf_free(&b);

	/* Two nodes: the lower median, so the slower one stands out. */
	r.n = 2;
	buf_init(&b);
	timeline_format(&b, &r);
	ck_assert_msg(strstr(b.s, "slowest: node2 import 8.0 s (median "
	    "3.0 s)\n") != NULL, "%s", b.s);
	buf_free(&b);
	r.n = 3;
	timeline_report_free(&r);
}
END_TEST

/* No node late: the phase where the time goes, and its slowest node;
 * the nodes missing and the hooks that said nonsense are named. */
START_TEST(test_report_missing)
{
	static const double	d1[TL_NPHASES] = { 0.3, 0.01, 0.001, -1,
				    0.002, 0.6, 3.0, 0.5, 0.1 };
	static const double	d2[TL_NPHASES] = { 0.3, 0.01, 0.001, -1,
				    0.002, 0.6, 3.1, 0.4, 0.1 };
	struct tl_report	r;
	struct buf		b;

	memset(&r, 0, sizeof r);
	r.n = 4;
	r.v = xcalloc(4, sizeof *r.v);
	r.wait = 300;
	r.dropped = 1;
	fill(&r.v[0], 0, "nid001", SINCE, d1);
	fill(&r.v[1], 1, "nid002", SINCE, d2);
	r.v[1].bad = 2;
	r.v[1].full = 1;
	r.v[3].host = xstrdup("nid004");
	buf_init(&b);
	timeline_format(&b, &r);
	ck_assert_msg(strstr(b.s, "from the first node's start") != NULL,
	    "%s", b.s);
	ck_assert_msg(strstr(b.s, "\nno timeline from node 2, nid004 (2 nodes); "
	    "some connections to node 0 were dropped\n") != NULL, "%s", b.s);
	ck_assert_msg(strstr(b.s, "\nnid002: 2 lines of the training's hook "
	    "ignored, and everything after its first 64 KiB\n") != NULL, "%s",
	    b.s);
	ck_assert_msg(strstr(b.s, "; slowest: nid002 import 3.1 s (median "
	    "3.0 s)\n") != NULL, "%s", b.s);
	buf_free(&b);

	/* Node 0 alone, that could not gather. */
	r.gather_why = xstrdup("cannot listen on 10.0.0.1 port 20000: "
	    "Address already in use");
	buf_init(&b);
	timeline_format(&b, &r);
	ck_assert_msg(strstr(b.s, "\nnode 0 could not gather the others' "
	    "times: cannot listen") != NULL, "%s", b.s);
	ck_assert_msg(strstr(b.s, "no timeline from") == NULL, "%s", b.s);
	buf_free(&b);
	timeline_report_free(&r);

	/* Nobody at all: a report still, and no slowest. */
	memset(&r, 0, sizeof r);
	r.n = 2;
	r.v = xcalloc(2, sizeof *r.v);
	buf_init(&b);
	timeline_format(&b, &r);
	ck_assert_msg(strstr(b.s, "\nstart-up 0.0 s\n") != NULL, "%s", b.s);
	buf_free(&b);
	timeline_report_free(&r);

	/* Out of time: one node's workers never reached a collective, the
	 * other's python never started; both said. */
	memset(&r, 0, sizeof r);
	r.n = 2;
	r.v = xcalloc(2, sizeof *r.v);
	r.wait = 7;
	fill(&r.v[0], 0, "nid001", SINCE, d1);
	fill(&r.v[1], 1, "nid002", SINCE, d2);
	r.v[0].end = r.v[1].end = TL_END_WAITED;
	r.v[1].t[TL_PYTHON] = r.v[1].t[TL_IMPORT] = r.v[1].t[TL_INIT] =
	    r.v[1].t[TL_COLLECTIVE] = 0;
	r.v[0].t[TL_COLLECTIVE] = 0;
	buf_init(&b);
	timeline_format(&b, &r);
	ck_assert_msg(strstr(b.s, "\nnid001: no first collective within 7 s\n"
	    "nid002: no worker's python within 7 s\n") != NULL, "%s", b.s);
	buf_free(&b);
	timeline_report_free(&r);
}
END_TEST

static const char *const	*env_vars;

static const char *
env_get(const char *name)
{
	size_t	len = strlen(name), i;

	for (i = 0; env_vars[i] != NULL; i++)
		if (strncmp(env_vars[i], name, len) == 0 &&
		    env_vars[i][len] == '=')
			return env_vars[i] + len + 1;
	return NULL;
}

START_TEST(test_job_start)
{
	env_vars = ENV("DDPGEN_JOB_START=1800000000.5",
	    "SLURM_JOB_START_TIME=1700000000");
	ck_assert(fabs(timeline_job_start(env_get) - 1800000000.5) < 1e-6);
	env_vars = ENV("DDPGEN_JOB_START=1800000000,25");
	ck_assert(fabs(timeline_job_start(env_get) - 1800000000.25) < 1e-6);
	env_vars = ENV("DDPGEN_JOB_START=soon", "SLURM_JOB_START_TIME=17");
	ck_assert(timeline_job_start(env_get) == 17);
	env_vars = ENV("DDPGEN_JOB_START=", "SLURM_JOB_START_TIME=-1");
	ck_assert(timeline_job_start(env_get) == 0);
	env_vars = ENV("X=1");
	ck_assert(timeline_job_start(env_get) == 0);
}
END_TEST

/* One seal per kind: a timeline line does not open as the doctor's,
 * nor under another job. */
START_TEST(test_seal_kinds)
{
	struct auth		 a;
	struct gather_scope	 sc, other;
	struct buf		 b, body;
	char			*cause = NULL;

	ck_assert_int_eq(auth_parse(&a, "00112233445566778899aabbccddeeff",
	    "test", &cause), 0);
	sc.auth = &a;
	sc.job = "7.1";
	sc.run = "7-r0";
	buf_init(&b);
	buf_adds(&b, "ddprank-timeline 1\nnode 1 a done 0 0\nend\n");
	ck_assert_int_eq(gather_seal(&b, 0, "ddprank timeline", &sc), 0);
	ck_assert_int_eq(gather_open(b.s, b.len, "ddprank timeline", &sc,
	    &body, &cause), 0);
	ck_assert_str_eq(body.s, "ddprank-timeline 1\nnode 1 a done 0 0\nend\n");
	buf_free(&body);
	ck_assert_int_eq(gather_open(b.s, b.len, DOCTOR_MAC_LABEL, &sc, &body,
	    &cause), -1);
	buf_free(&body);
	free(cause);
	other = sc;
	other.job = "7.2";
	ck_assert_int_eq(gather_open(b.s, b.len, "ddprank timeline", &other,
	    &body, &cause), -1);
	buf_free(&body);
	free(cause);
	buf_free(&b);
}
END_TEST

struct filed {
	int	n;
	char	last[128];
};

static int
file_one(void *arg, const char *msg, size_t len, uint64_t *rank)
{
	struct filed	*f = arg;

	snprintf(f->last, sizeof f->last, "%.*s", (int)len, msg);
	*rank = 1;
	return ++f->n == 1;
}

static int
connect_to(int port)
{
	struct sockaddr_in	sin;
	int			fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin, sizeof sin), 0);
	return fd;
}

static double
mono(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Node 0 on loopback: a silent connection, garbage, an unsealed
 * message and a NUL byte are dropped or refused; the sealed message is
 * filed and acknowledged; the gather ends when it has it. */
START_TEST(test_gather_hostile)
{
	struct auth		 a;
	struct gather_scope	 sc;
	struct gather_sink	 sink;
	struct filed		 f;
	struct buf		 b;
	char			*cause = NULL, ack[4];
	double			 t0;
	int			 lfd, port, silent, junk, unsealed, good;

	ck_assert_int_eq(auth_parse(&a, "00112233445566778899aabbccddeeff",
	    "test", &cause), 0);
	sc.auth = &a;
	sc.job = "7";
	sc.run = "r";
	lfd = gather_listen("127.0.0.1", 0, &cause);
	ck_assert_int_ge(lfd, 0);
	{
		struct sockaddr_in	sin;
		socklen_t		len = sizeof sin;

		getsockname(lfd, (struct sockaddr *)&sin, &len);
		port = ntohs(sin.sin_port);
	}
	silent = connect_to(port);
	junk = connect_to(port);
	ck_assert_int_eq(write(junk, "\x01\x02garbage\nend\n", 14), 14);
	unsealed = connect_to(port);
	ck_assert_int_eq(write(unsealed, "x\nend\n", 6), 6);
	good = connect_to(port);
	buf_init(&b);
	buf_adds(&b, "hello\nend\n");
	ck_assert_int_eq(gather_seal(&b, 0, "ddprank timeline", &sc), 0);
	ck_assert_int_eq(write(good, b.s, b.len), (ssize_t)b.len);
	memset(&f, 0, sizeof f);
	memset(&sink, 0, sizeof sink);
	sink.file = file_one;
	sink.arg = &f;
	sink.label = "ddprank timeline";
	sink.scope = &sc;
	sink.want = 1;
	t0 = mono();
	gather_tcp(lfd, 5000, &sink);
	ck_assert(mono() - t0 < 4);
	ck_assert_int_eq(f.n, 1);
	ck_assert_str_eq(f.last, "hello\nend\n");
	ck_assert_int_eq(read(good, ack, 3), 3);
	ck_assert_int_eq(memcmp(ack, "ok\n", 3), 0);
	/* Waiting for a second that never comes: bounded. */
	sink.want = 2;
	t0 = mono();
	gather_tcp(lfd, 300, &sink);
	ck_assert(mono() - t0 < 2);
	close(silent);
	close(junk);
	close(unsealed);
	close(good);
	close(lfd);
	buf_free(&b);
	/* Nobody listening: the sender gives up in its time. */
	t0 = mono();
	ck_assert_int_eq(gather_send("127.0.0.1", port, "x\nend\n", 6, 500,
	    &cause), -1);
	ck_assert(mono() - t0 < 2);
	ck_assert_ptr_nonnull(strstr(cause, "cannot report to node 0 at "
	    "127.0.0.1 port"));
	free(cause);
}
END_TEST

static Suite *
timeline_suite(void)
{
	Suite	*s = suite_create("timeline");
	TCase	*tc;

	tc = tcase_create("hook");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_phase_words);
	tcase_add_test(tc, test_hook_good);
	tcase_add_test(tc, test_hook_bad);
	tcase_add_test(tc, test_hook_line_max);
	tcase_add_test(tc, test_hook_full);
	tcase_add_test(tc, test_hook_done);
	suite_add_tcase(s, tc);
	tc = tcase_create("wire");
	tcase_add_test(tc, test_wire);
	tcase_add_test(tc, test_wire_bad);
	suite_add_tcase(s, tc);
	tc = tcase_create("report");
	tcase_add_test(tc, test_report_slow_node);
	tcase_add_test(tc, test_report_missing);
	tcase_add_test(tc, test_job_start);
	suite_add_tcase(s, tc);
	tc = tcase_create("gather");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_seal_kinds);
	tcase_add_test(tc, test_gather_hostile);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(timeline_suite());
}
