/* check_hang.c: unit tests for the heartbeat's judgement, faulthandler's
 * stacks, the records and the verdict (hang.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "hang.h"
#include "testlib.h"
#include "util.h"
#include "xmalloc.h"

START_TEST(test_judge)
{
	double	age = -7;

	/* No beat, or a beat of an earlier worker of the same rank. */
	ck_assert_int_eq(hang_judge(100, 50, 0, 10, &age), HANG_UNSIGNED);
	ck_assert_int_eq(hang_judge(100, 50, 40, 10, &age), HANG_UNSIGNED);
	ck_assert(age == -7);
	/* A beat in the worker's first clock tick counts. */
	ck_assert_int_eq(hang_judge(100, 50, 49.99, 60, &age), HANG_BEATING);
	ck_assert_int_eq(hang_judge(100, 50, 95, 10, &age), HANG_BEATING);
	ck_assert(age == 5);
	/* Exactly the limit is still in time; past it, a stall. */
	ck_assert_int_eq(hang_judge(100, 50, 90, 10, &age), HANG_BEATING);
	ck_assert_int_eq(hang_judge(100, 50, 89.5, 10, &age), HANG_STALLED);
	ck_assert(age == 10.5);
}
END_TEST

/* Python 3.11's faulthandler.register(all_threads=True), as written by
 * a worker of torch 1.13 stuck in all_reduce (seen here). */
static const char py311[] =
    "Thread 0x00007f4decc686c0 (most recent call first):\n"
    "  File \"/tmp/t.py\", line 6 in bg\n"
    "  File \"/usr/lib/python3.11/threading.py\", line 975 in run\n"
    "\n"
    "Current thread 0x00007f4e0f09b040 (most recent call first):\n"
    "  File \"/usr/lib/python3/dist-packages/torch/distributed/"
    "distributed_c10d.py\", line 1541 in all_reduce\n"
    "  File \"/work/my, \\\"odd\\\" dir/train.py\", line 12 in step\n"
    "  File \"/work/my, \\\"odd\\\" dir/train.py\", line 40 in <module>\n";

START_TEST(test_stacks)
{
	struct hang_frame	*f;
	struct hang_rank	 k;
	size_t			 n;
	char			*place;

	ck_assert_int_eq(hang_stacks_parse(py311, sizeof py311 - 1, &f, &n),
	    0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(f[0].func, "all_reduce");
	ck_assert_int_eq(f[0].line, 1541);
	ck_assert_str_eq(f[1].file, "/work/my, \\\"odd\\\" dir/train.py");
	ck_assert_str_eq(f[2].func, "<module>");
	memset(&k, 0, sizeof k);
	k.frames = f;
	k.nframes = n;
	/* The innermost function; the training's own line. */
	ck_assert_ptr_nonnull(place = hang_place(&k));
	ck_assert_str_eq(place, "all_reduce (train.py:12)");
	free(place);
	hang_frames_free(f, n);
	/* No thread line: not a dump. A thread without Python frames. */
	ck_assert_int_eq(hang_stacks_parse("  File \"a\", line 1 in f\n", 24,
	    &f, &n), -1);
	ck_assert_int_eq(hang_stacks_parse("Current thread 0x1 (most recent "
	    "call first):\n  <no Python frame>\n", 60, &f, &n), 0);
	ck_assert_uint_eq(n, 0);
	k.frames = f;
	k.nframes = 0;
	ck_assert_ptr_null(hang_place(&k));
	free(f);
}
END_TEST

START_TEST(test_stacks_odd)
{
	static const char	 unknown[] = "Thread 0x2 (most recent call "
	    "first):\n  File \"x.py\", line ??? in h\n";
	struct buf		 b;
	struct hang_frame	*f;
	size_t			 n;
	int			 i;

	/* A dump written past a truncation, CRLF lines, a cut last line,
	 * and more frames than are kept. */
	buf_init(&b);
	buf_addn(&b, "\0\0\0", 3);
	buf_adds(&b, "Thread 0x2 (most recent call first):\r\n");
	for (i = 0; i < HANG_FRAMES_MAX + 10; i++)
		buf_addf(&b, "  File \"f%d.py\", line %d in g%d\r\n", i, i, i);
	buf_adds(&b, "  File \"cut.py\", li");
	ck_assert_int_eq(hang_stacks_parse(b.s, b.len, &f, &n), 0);
	ck_assert_uint_eq(n, HANG_FRAMES_MAX);
	ck_assert_str_eq(f[1].func, "g1");
	ck_assert_str_eq(f[1].file, "f1.py");
	hang_frames_free(f, n);
	buf_free(&b);
	/* A line number faulthandler could not tell. */
	ck_assert_int_eq(hang_stacks_parse(unknown, strlen(unknown), &f, &n),
	    0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(f[0].line, -1);
	hang_frames_free(f, n);
}
END_TEST

/* A rank: age (< 0: never beat), stalled, and the frames innermost
 * first as "FUNC FILE LINE" words. */
static void
add_rank(struct hang_record *r, long rank, double age, int stalled,
    const char *const *frames)
{
	struct hang_rank	k;
	char			func[64], file[128];
	long			line;

	memset(&k, 0, sizeof k);
	k.rank = rank;
	k.local_rank = rank % 2;
	k.age = age;
	k.stalled = stalled;
	for (; frames != NULL && *frames != NULL; frames++) {
		ck_assert_int_eq(sscanf(*frames, "%63s %127s %ld", func, file,
		    &line), 3);
		k.frames = xreallocarray(k.frames, k.nframes + 1,
		    sizeof *k.frames);
		k.frames[k.nframes].func = xstrdup(func);
		k.frames[k.nframes].file = xstrdup(file);
		k.frames[k.nframes++].line = line;
	}
	hang_record_add(r, &k);
}

static const char *const waiting[] = {
	"all_reduce /usr/lib/python3/dist-packages/torch/x.py 10",
	"main /job/train.py 95", NULL
};
static const char *const odd[] = {
	"all_reduce /usr/lib/python3/dist-packages/torch/x.py 10",
	"main /job/hang.py 40", NULL
};

static void
node(struct hang_record *r, const char *name)
{
	hang_record_init(r);
	r->node = xstrdup(name);
	r->limit = 30;
}

START_TEST(test_record)
{
	struct hang_record	r, back;
	struct buf		b, again;
	char			*cause;

	node(&r, "nid0042");
	r.unreachable = 1;
	r.reach = xstrdup("10.0.0.1 port 29500: Network is unreachable");
	add_rank(&r, 5, 31.25, 1, odd);
	add_rank(&r, 4, -1, 0, NULL);
	strlist_add(&r.bad, "nid0043 iface: no interface\tmatches");
	buf_init(&b);
	hang_record_format(&b, &r);
	ck_assert_int_eq(hang_record_parse(&back, b.s, b.len, &cause), 0);
	ck_assert_str_eq(back.node, "nid0042");
	ck_assert_int_eq(back.limit, 30);
	ck_assert_int_eq(back.unreachable, 1);
	ck_assert_str_eq(back.reach, r.reach);
	ck_assert_uint_eq(back.nranks, 2);
	ck_assert_int_eq(back.ranks[0].rank, 5);
	ck_assert(back.ranks[0].age > 31.1 && back.ranks[0].age < 31.4);
	ck_assert_int_eq(back.ranks[0].stalled, 1);
	ck_assert_uint_eq(back.ranks[0].nframes, 2);
	ck_assert_str_eq(back.ranks[0].frames[1].file, "/job/hang.py");
	ck_assert(back.ranks[1].age < 0);
	/* A control byte in a reason is not a second line. */
	ck_assert_str_eq(back.bad.v[0], "nid0043 iface: no interface?matches");
	buf_init(&again);
	hang_record_format(&again, &back);
	ck_assert_str_eq(again.s, b.s);
	buf_free(&again);
	buf_free(&b);
	hang_record_free(&back);
	hang_record_free(&r);
}
END_TEST

static void
refused(const char *text, const char *want)
{
	struct hang_record	r;
	char			*cause;

	ck_assert_int_eq(hang_record_parse(&r, text, strlen(text), &cause),
	    -1);
	ck_assert_str_eq(cause, want);
	free(cause);
}

START_TEST(test_record_bad)
{
	refused("", "not a record (no 'ddprank-hang 1' line)");
	refused("ddprank-hang 2\n", "not a record (no 'ddprank-hang 1' line)");
	refused("ddprank-hang 1\nnode a b\n", "line 2: not a record's line");
	refused("ddprank-hang 1\nnode a\nnode b\n",
	    "line 3: not a record's line");
	refused("ddprank-hang 1\nframe 1 2 f x.py\n",
	    "line 2: not a record's line");
	refused("ddprank-hang 1\nrank 1 0 -3 1\n",
	    "line 2: not a record's line");
	refused("ddprank-hang 1\nrank 1 0 2.0 2\n",
	    "line 2: not a record's line");
	refused("ddprank-hang 1\nrank 1 0 2.0 1", "line 2: no newline at the "
	    "end");
	refused("ddprank-hang 1\nlimit 0\n", "line 2: not a record's line");
	refused("ddprank-hang 1\nreach maybe\n", "line 2: not a record's line");
	refused("ddprank-hang 1\nbad \n", "line 2: not a record's line");
	refused("ddprank-hang 1\nrm -rf /\n", "line 2: not a record's line");
}
END_TEST

static struct strlist
list(const char *const *v)
{
	struct strlist	l;

	strlist_init(&l);
	for (; *v != NULL; v++)
		strlist_add(&l, *v);
	return l;
}

static void
judged(const struct hang_record *r, size_t n, const char *const *nodes,
    enum hang_kind kind, const char *culprits, const char *summary)
{
	struct hang_verdict	v;
	struct strlist		l = list(nodes);
	struct buf		b;
	size_t			i;

	hang_verdict(&v, r, n, &l);
	ck_assert_int_eq(v.kind, kind);
	buf_init(&b);
	for (i = 0; i < v.culprits.n; i++)
		buf_addf(&b, "%s%s", i > 0 ? "," : "", v.culprits.v[i]);
	ck_assert_str_eq(b.s, culprits);
	if (summary == NULL)
		ck_assert_ptr_null(v.summary);
	else
		ck_assert_str_eq(v.summary, summary);
	buf_free(&b);
	strlist_free(&l);
	hang_verdict_free(&v);
}

static void
free_all(struct hang_record *r, size_t n)
{
	while (n-- > 0)
		hang_record_free(&r[n]);
}

#define NODES(...)	((const char *const []){ __VA_ARGS__, NULL })

START_TEST(test_verdict_stack)
{
	struct hang_record	r[2];

	/* Rank 3 on n2 hangs in its own collective; the three others
	 * wait for it in the training's. */
	node(&r[0], "n1");
	add_rank(&r[0], 0, 31, 1, waiting);
	add_rank(&r[0], 1, 31, 1, waiting);
	node(&r[1], "n2");
	add_rank(&r[1], 2, 31, 1, waiting);
	add_rank(&r[1], 3, 32, 1, odd);
	judged(r, 2, NODES("n1", "n2"), HANG_STALL, "n2",
	    "rank 3 on n2 has not beaten for 32 s; it is in all_reduce "
	    "(hang.py:40); the other 3 ranks wait in all_reduce "
	    "(train.py:95)");
	free_all(r, 2);
}
END_TEST

START_TEST(test_verdict_tie)
{
	struct hang_record	r[2];

	/* One rank each way: no majority, no lead in the beats. */
	node(&r[0], "n1");
	add_rank(&r[0], 0, 31, 1, waiting);
	node(&r[1], "n2");
	add_rank(&r[1], 1, 31, 1, odd);
	judged(r, 2, NODES("n1", "n2"), HANG_STALL, "",
	    "2 ranks stopped beating together (the first 31 s ago); most "
	    "wait in all_reduce (train.py:95): no rank or node stands out");
	free_all(r, 2);
	/* The same, with rank 1's beat 6 s older: it stopped first. */
	node(&r[0], "n1");
	add_rank(&r[0], 0, 31, 1, waiting);
	node(&r[1], "n2");
	add_rank(&r[1], 1, 37, 1, odd);
	judged(r, 2, NODES("n1", "n2"), HANG_STALL, "n2",
	    "rank 1 on n2 stopped first and has not beaten for 37 s; it is "
	    "in all_reduce (hang.py:40); the other rank waits in all_reduce "
	    "(train.py:95)");
	free_all(r, 2);
}
END_TEST

START_TEST(test_verdict_reach)
{
	struct hang_record	r[3];

	/* n3 lost its links: it cannot reach node 0, every stack is the
	 * same. */
	node(&r[0], "n1");
	add_rank(&r[0], 0, 31, 1, waiting);
	node(&r[1], "n2");
	add_rank(&r[1], 1, 31, 1, waiting);
	node(&r[2], "n3");
	r[2].unreachable = 1;
	r[2].reach = xstrdup("10.1.0.1 port 29500: Network is unreachable");
	add_rank(&r[2], 2, 31, 1, waiting);
	add_rank(&r[2], 3, 30.5, 1, waiting);
	judged(r, 3, NODES("n1", "n2", "n3"), HANG_STALL, "n3",
	    "n3 cannot reach node 0, n1 (10.1.0.1 port 29500: Network is "
	    "unreachable): ranks 2 and 3 have not beaten for 31 s; they are "
	    "in all_reduce (train.py:95); the other 2 ranks wait in "
	    "all_reduce (train.py:95)");
	/* When neither other node reaches it, node 0 is the one cut off. */
	r[1].unreachable = 1;
	r[1].reach = xstrdup("no answer in 2 s");
	judged(r, 3, NODES("n1", "n2", "n3"), HANG_STALL, "n1",
	    "none of the other 2 nodes can reach n1 (n2: no answer in 2 s): "
	    "rank 0 has not beaten for 31 s; it is in all_reduce "
	    "(train.py:95); the other 3 ranks wait in all_reduce "
	    "(train.py:95)");
	free_all(r, 3);
}
END_TEST

START_TEST(test_verdict_missing)
{
	struct hang_record	r[2];

	node(&r[0], "n1");
	add_rank(&r[0], 0, 31, 1, waiting);
	node(&r[1], "n2");
	add_rank(&r[1], 1, 31, 1, waiting);
	judged(r, 2, NODES("n1", "n2", "n3"), HANG_STALL, "n3",
	    "n3 sent no evidence (it died, or lost the shared directory); "
	    "the other 2 ranks wait in all_reduce (train.py:95)");
	/* Half the nodes silent: a directory that is not shared. */
	judged(r, 1, NODES("n1", "n2"), HANG_STALL, "",
	    "the only rank stopped beating 31 s ago; all wait in all_reduce "
	    "(train.py:95): no rank or node stands out");
	free_all(r, 2);
}
END_TEST

START_TEST(test_verdict_progress)
{
	struct hang_record	r[2];

	/* Rank 1 stopped while rank 0 still beats: not waiting for it. */
	node(&r[0], "n1");
	add_rank(&r[0], 0, 0.5, 0, waiting);
	node(&r[1], "n2");
	add_rank(&r[1], 1, 31, 1, odd);
	judged(r, 2, NODES("n1", "n2"), HANG_STALL, "n2",
	    "rank 1 on n2 has not beaten for 31 s; it is in all_reduce "
	    "(hang.py:40); 1 other rank still beats");
	free_all(r, 2);
}
END_TEST

START_TEST(test_verdict_none)
{
	struct hang_record	r[2];

	/* A quiet node's record at the end, and no stall anywhere: the
	 * step failed some other way. */
	node(&r[0], "n1");
	add_rank(&r[0], 0, 6, 0, NULL);
	judged(r, 1, NODES("n1"), HANG_NONE, "", NULL);
	judged(r, 0, NODES("n1"), HANG_NONE, "", NULL);
	free_all(r, 1);
	/* The preflight's failures, whatever else the records hold. */
	hang_record_init(&r[0]);
	strlist_add(&r[0].bad, "n3 iface: no interface matches 'hsn'");
	strlist_add(&r[0].bad, "n2 gpus: 3 of 4 GPUs");
	strlist_add(&r[0].bad, "n3 port: again");
	judged(r, 1, NODES("n1", "n2", "n3"), HANG_PREFLIGHT, "n2,n3",
	    "n3 failed the preflight (iface: no interface matches 'hsn'); "
	    "n2 failed the preflight (gpus: 3 of 4 GPUs)");
	free_all(r, 1);
}
END_TEST

static Suite *
hang_suite(void)
{
	Suite	*s = suite_create("hang");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_judge);
	tcase_add_test(tc, test_stacks);
	tcase_add_test(tc, test_stacks_odd);
	tcase_add_test(tc, test_record);
	tcase_add_test(tc, test_record_bad);
	tcase_add_test(tc, test_verdict_stack);
	tcase_add_test(tc, test_verdict_tie);
	tcase_add_test(tc, test_verdict_reach);
	tcase_add_test(tc, test_verdict_missing);
	tcase_add_test(tc, test_verdict_progress);
	tcase_add_test(tc, test_verdict_none);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(hang_suite());
}
