/* hang.c: the heartbeat judged, stacks read, records and the verdict
 * (hang.h). */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hang.h"
#include "util.h"
#include "xmalloc.h"

#define RECORD_MAGIC	"ddprank-hang 1"

enum hang_state
hang_judge(double now, double start, double beat, int timeout, double *age)
{
	/* A file's time is kept to the nanosecond and a process's start
	 * to the clock tick: a beat in the worker's first tick counts. */
	if (beat <= 0 || beat + 0.02 < start)
		return HANG_UNSIGNED;
	*age = now - beat;
	return *age > timeout ? HANG_STALLED : HANG_BEATING;
}

void
hang_frames_free(struct hang_frame *f, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(f[i].func);
		free(f[i].file);
	}
	free(f);
}

/* '  File "PATH", line N in FUNC'; -1 for another line. */
static int
frame_parse(const char *s, size_t len, struct hang_frame *f)
{
	static const char	pre[] = "  File \"", mid[] = "\", line ";
	const char		*end = s + len, *m = NULL, *p, *in;
	char			*num;
	long long		 v;

	if (len < sizeof pre || memcmp(s, pre, sizeof pre - 1) != 0)
		return -1;
	for (p = s; (p = memmem(p, (size_t)(end - p), mid,
	    sizeof mid - 1)) != NULL; p++)
		m = p;
	if (m == NULL || (in = memmem(m, (size_t)(end - m), " in ", 4)) ==
	    NULL)
		return -1;
	p = m + sizeof mid - 1;
	num = xstrndup(p, (size_t)(in - p));
	f->line = util_strtonum(num, 0, LONG_MAX, &v) == 0 ? (long)v : -1;
	free(num);
	f->file = xstrndup(s + sizeof pre - 1, (size_t)(m - s) -
	    (sizeof pre - 1));
	f->func = xstrndup(in + 4, (size_t)(end - in - 4));
	return 0;
}

static int
thread_line(const char *s, size_t len)
{
	static const char	tail[] = "(most recent call first):";

	return len >= sizeof tail - 1 &&
	    memcmp(s + len - (sizeof tail - 1), tail, sizeof tail - 1) == 0;
}

int
hang_stacks_parse(const char *text, size_t len, struct hang_frame **frames,
    size_t *n)
{
	struct hang_frame	 f, *v = NULL;
	const char		*p = text, *end = text + len, *nl;
	size_t			 ln, nv = 0;
	int			 blocks = 0;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		ln = (size_t)(nl - p);
		/* A dump written at an offset past a truncation. */
		while (ln > 0 && *p == '\0') {
			p++;
			ln--;
		}
		if (ln > 0 && p[ln - 1] == '\r')
			ln--;
		if (thread_line(p, ln)) {
			hang_frames_free(v, nv);
			v = NULL;
			nv = 0;
			blocks++;
			continue;
		}
		if (blocks == 0 || nv == HANG_FRAMES_MAX ||
		    frame_parse(p, ln, &f) == -1)
			continue;
		v = xreallocarray(v, nv + 1, sizeof *v);
		v[nv++] = f;
	}
	if (blocks == 0) {
		hang_frames_free(v, nv);
		return -1;
	}
	*frames = v;
	*n = nv;
	return 0;
}

void
hang_record_init(struct hang_record *r)
{
	memset(r, 0, sizeof *r);
	strlist_init(&r->bad);
}

void
hang_record_free(struct hang_record *r)
{
	size_t	i;

	for (i = 0; i < r->nranks; i++)
		hang_frames_free(r->ranks[i].frames, r->ranks[i].nframes);
	free(r->ranks);
	free(r->node);
	free(r->reach);
	strlist_free(&r->bad);
	memset(r, 0, sizeof *r);
}

void
hang_record_add(struct hang_record *r, const struct hang_rank *k)
{
	r->ranks = xreallocarray(r->ranks, r->nranks + 1, sizeof *r->ranks);
	r->ranks[r->nranks++] = *k;
}

/* A word of a record: no space, no control byte; '?' for each. */
static void
add_word(struct buf *b, const char *s)
{
	if (*s == '\0')
		buf_addc(b, '?');
	for (; *s != '\0'; s++)
		buf_addc(b, (unsigned char)*s <= ' ' ? '?' : *s);
}

/* The rest of a line: no control byte. */
static void
add_text(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++)
		buf_addc(b, util_iscntrl((unsigned char)*s) ? '?' : *s);
}

void
hang_record_format(struct buf *b, const struct hang_record *r)
{
	const struct hang_rank	*k;
	size_t			 i, j;

	buf_adds(b, RECORD_MAGIC "\n");
	if (r->node != NULL) {
		buf_adds(b, "node ");
		add_word(b, r->node);
		if (r->limit > 0)
			buf_addf(b, "\nlimit %d", r->limit);
		buf_adds(b, r->unreachable ? "\nreach no " : "\nreach ok");
		if (r->unreachable)
			add_text(b, r->reach != NULL ? r->reach : "?");
		buf_addc(b, '\n');
	}
	for (i = 0; i < r->nranks; i++) {
		k = &r->ranks[i];
		buf_addf(b, "rank %ld %ld ", k->rank, k->local_rank);
		if (k->age < 0)
			buf_adds(b, "-");
		else
			buf_addf(b, "%.1f", k->age);
		buf_addf(b, " %d\n", k->stalled != 0);
		for (j = 0; j < k->nframes; j++) {
			buf_addf(b, "frame %ld %ld ", k->rank,
			    k->frames[j].line);
			add_word(b, k->frames[j].func);
			buf_addc(b, ' ');
			add_text(b, k->frames[j].file);
			buf_addc(b, '\n');
		}
	}
	for (i = 0; i < r->bad.n; i++) {
		buf_adds(b, "bad ");
		add_text(b, r->bad.v[i]);
		buf_addc(b, '\n');
	}
}

/* The next word of *p (up to a space or the end of line), or NULL. */
static char *
next_word(const char **p, const char *end)
{
	const char	*s = *p, *e;

	if (s >= end || *s == ' ')
		return NULL;
	for (e = s; e < end && *e != ' '; e++)
		;
	*p = e < end ? e + 1 : e;
	return xstrndup(s, (size_t)(e - s));
}

static int
word_num(const char **p, const char *end, long long min, long long max,
    long long *v)
{
	char	*w = next_word(p, end);
	int	 rc;

	rc = w == NULL ? -1 : util_strtonum(w, min, max, v);
	free(w);
	return rc;
}

static struct hang_rank *
find_rank(struct hang_record *r, long rank)
{
	size_t	i;

	for (i = r->nranks; i-- > 0;)
		if (r->ranks[i].rank == rank)
			return &r->ranks[i];
	return NULL;
}

static int
parse_rank(struct hang_record *r, const char *p, const char *end)
{
	struct hang_rank	 k;
	long long		 rank, local, st;
	char			*age, *e;

	memset(&k, 0, sizeof k);
	if (r->nranks == HANG_RANKS_MAX ||
	    word_num(&p, end, 0, INT_MAX, &rank) == -1 ||
	    word_num(&p, end, -1, INT_MAX, &local) == -1 ||
	    (age = next_word(&p, end)) == NULL)
		return -1;
	k.rank = (long)rank;
	k.local_rank = (long)local;
	k.age = -1;
	if (strcmp(age, "-") != 0) {
		k.age = strtod(age, &e);
		if (e == age || *e != '\0' || k.age < 0 || k.age > 1e9) {
			free(age);
			return -1;
		}
	}
	free(age);
	if (word_num(&p, end, 0, 1, &st) == -1 || p != end)
		return -1;
	k.stalled = (int)st;
	hang_record_add(r, &k);
	return 0;
}

static int
parse_frame(struct hang_record *r, const char *p, const char *end)
{
	struct hang_rank	*k;
	struct hang_frame	*f;
	long long		 rank, line;
	char			*func;

	if (word_num(&p, end, 0, INT_MAX, &rank) == -1 ||
	    (k = find_rank(r, (long)rank)) == NULL ||
	    k->nframes == HANG_FRAMES_MAX ||
	    word_num(&p, end, -1, LONG_MAX, &line) == -1 ||
	    (func = next_word(&p, end)) == NULL)
		return -1;
	k->frames = xreallocarray(k->frames, k->nframes + 1,
	    sizeof *k->frames);
	f = &k->frames[k->nframes++];
	f->line = (long)line;
	f->func = func;
	f->file = xstrndup(p, (size_t)(end - p));
	return 0;
}

static int
parse_line(struct hang_record *r, const char *p, const char *end)
{
	const char	*sp = memchr(p, ' ', (size_t)(end - p));
	size_t		 kw = sp == NULL ? (size_t)(end - p) : (size_t)(sp - p);
	const char	*rest = sp == NULL ? end : sp + 1;
	long long	 v;

	if (kw == 4 && memcmp(p, "node", 4) == 0 && r->node == NULL) {
		r->node = next_word(&rest, end);
		return r->node == NULL || rest != end ? -1 : 0;
	}
	if (kw == 5 && memcmp(p, "limit", 5) == 0) {
		if (word_num(&rest, end, 1, HANG_TIMEOUT_MAX, &v) == -1 ||
		    rest != end)
			return -1;
		r->limit = (int)v;
		return 0;
	}
	if (kw == 5 && memcmp(p, "reach", 5) == 0) {
		if ((size_t)(end - rest) == 2 && memcmp(rest, "ok", 2) == 0)
			return 0;
		if ((size_t)(end - rest) < 3 || memcmp(rest, "no ", 3) != 0)
			return -1;
		r->unreachable = 1;
		free(r->reach);
		r->reach = xstrndup(rest + 3, (size_t)(end - rest - 3));
		return 0;
	}
	if (kw == 4 && memcmp(p, "rank", 4) == 0)
		return parse_rank(r, rest, end);
	if (kw == 5 && memcmp(p, "frame", 5) == 0)
		return parse_frame(r, rest, end);
	if (kw == 3 && memcmp(p, "bad", 3) == 0 && rest < end &&
	    *rest != ' ') {
		strlist_addown(&r->bad, xstrndup(rest, (size_t)(end - rest)));
		return 0;
	}
	return -1;
}

int
hang_record_parse(struct hang_record *r, const char *text, size_t len,
    char **cause)
{
	const char	*p = text, *end = text + len, *nl;
	int		 line = 1;

	hang_record_init(r);
	for (; p < end; p = nl + 1, line++) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;
		if (memchr(p, '\0', (size_t)(nl - p)) != NULL)
			break;
		if (line == 1) {
			if ((size_t)(nl - p) != sizeof RECORD_MAGIC - 1 ||
			    memcmp(p, RECORD_MAGIC, (size_t)(nl - p)) != 0)
				break;
			continue;
		}
		if (parse_line(r, p, nl) == -1)
			break;
	}
	if (p == end && line > 1)
		return 0;
	hang_record_free(r);
	if (line == 1)
		return util_fail(cause, "not a record (no '" RECORD_MAGIC
		    "' line)");
	return util_fail(cause, "line %d: %s", line, p < end && memchr(p,
	    '\n', (size_t)(end - p)) == NULL ? "no newline at the end" :
	    "not a record's line");
}

static const char *
base_name(const char *path)
{
	const char	*b = strrchr(path, '/');

	return b == NULL ? path : b + 1;
}

/* A frame of Python's own or of an installed package: not the
 * training's code. */
static int
library_frame(const char *file)
{
	return file[0] == '<' || strstr(file, "/site-packages/") != NULL ||
	    strstr(file, "/dist-packages/") != NULL ||
	    strstr(file, "/lib/python") != NULL;
}

char *
hang_place(const struct hang_rank *k)
{
	const struct hang_frame	*in, *own = NULL;
	char			*s;
	size_t			 i;

	if (k->nframes == 0)
		return NULL;
	in = &k->frames[0];
	for (i = 0; i < k->nframes && own == NULL; i++)
		if (!library_frame(k->frames[i].file))
			own = &k->frames[i];
	if (own == NULL)
		own = in;
	xasprintf(&s, "%s (%s:%ld)", in->func, base_name(own->file),
	    own->line);
	return s;
}

void
hang_verdict_free(struct hang_verdict *v)
{
	strlist_free(&v->culprits);
	free(v->summary);
	memset(v, 0, sizeof *v);
}

/* --- the verdict ------------------------------------------------------- */

/* Every rank of the records, with its node and place. */
struct vrank {
	const struct hang_rank	*k;
	const char		*node;
	int			 limit;
	char			*place;		/* NULL: no stack */
	int			 culprit;
};

struct vctx {
	const struct hang_record *recs;
	size_t			 nrecs;
	const struct strlist	*nodes;
	struct vrank		*r;
	size_t			 nr;
	struct hang_verdict	*v;
};

static int
in_list(const struct strlist *l, const char *s)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return 1;
	return 0;
}

static void
add_culprit(struct vctx *c, const char *node)
{
	if (node != NULL && !in_list(&c->v->culprits, node))
		strlist_add(&c->v->culprits, node);
}

/* The culprits in the job's order, when it is known. */
static void
order_culprits(struct vctx *c)
{
	struct strlist	ordered;
	size_t		i;

	if (c->nodes->n == 0)
		return;
	strlist_init(&ordered);
	for (i = 0; i < c->nodes->n; i++)
		if (in_list(&c->v->culprits, c->nodes->v[i]))
			strlist_add(&ordered, c->nodes->v[i]);
	for (i = 0; i < c->v->culprits.n; i++)
		if (!in_list(&ordered, c->v->culprits.v[i]))
			strlist_add(&ordered, c->v->culprits.v[i]);
	strlist_free(&c->v->culprits);
	c->v->culprits = ordered;
}

static int
cmp_vrank(const void *a, const void *b)
{
	const struct vrank	*x = a, *y = b;

	return (x->k->rank > y->k->rank) - (x->k->rank < y->k->rank);
}

static void
collect(struct vctx *c)
{
	size_t	i, j;

	for (i = 0; i < c->nrecs; i++) {
		for (j = 0; j < c->recs[i].nranks; j++) {
			c->r = xreallocarray(c->r, c->nr + 1, sizeof *c->r);
			c->r[c->nr].k = &c->recs[i].ranks[j];
			c->r[c->nr].node = c->recs[i].node != NULL ?
			    c->recs[i].node : "?";
			c->r[c->nr].limit = c->recs[i].limit;
			c->r[c->nr].place = hang_place(&c->recs[i].ranks[j]);
			c->r[c->nr++].culprit = 0;
		}
	}
	if (c->nr > 0)
		qsort(c->r, c->nr, sizeof *c->r, cmp_vrank);
}

/* "rank 5" or "ranks 4, 5 and 7" of the ranks flagged want. */
static size_t
add_ranks(struct buf *b, const struct vctx *c, int want)
{
	struct buf	list;
	char		num[32];
	size_t		i, n = 0, m = 0;

	for (i = 0; i < c->nr; i++)
		n += c->r[i].culprit == want;
	buf_init(&list);
	for (i = 0; i < c->nr; i++) {
		if (c->r[i].culprit != want)
			continue;
		snprintf(num, sizeof num, "%ld", c->r[i].k->rank);
		buf_add_item(&list, num, ++m == n, " and ");
	}
	buf_addf(b, "%s %s", n == 1 ? "rank" : "ranks", list.s);
	buf_free(&list);
	return n;
}

/* The oldest beat of the ranks flagged want; -1 if none beat. */
static double
oldest(const struct vctx *c, int want)
{
	double	age = -1;
	size_t	i;

	for (i = 0; i < c->nr; i++)
		if (c->r[i].culprit == want && c->r[i].k->age > age)
			age = c->r[i].k->age;
	return age;
}

/* The place most of the ranks flagged want are in, and how many. */
static const char *
common_place(const struct vctx *c, int want, size_t *count)
{
	const char	*best = NULL;
	size_t		 i, j, n, most = 0;

	for (i = 0; i < c->nr; i++) {
		if (c->r[i].culprit != want || c->r[i].place == NULL)
			continue;
		for (n = 0, j = 0; j < c->nr; j++)
			n += c->r[j].culprit == want && c->r[j].place !=
			    NULL && strcmp(c->r[j].place, c->r[i].place) == 0;
		if (n > most) {
			most = n;
			best = c->r[i].place;
		}
	}
	*count = most;
	return best;
}

/* "; the other 7 ranks wait in PLACE" (or what is known of them). */
static void
add_others(struct buf *b, const struct vctx *c)
{
	const char	*place;
	size_t		 i, n = 0, same;

	for (i = 0; i < c->nr; i++)
		n += !c->r[i].culprit;
	if (n == 0)
		return;
	place = common_place(c, 0, &same);
	if (n == 1)
		buf_adds(b, "; the other rank");
	else
		buf_addf(b, "; the other %zu ranks", n);
	if (place == NULL)
		buf_addf(b, " left no stack");
	else if (same == n)
		buf_addf(b, " %s in %s", n == 1 ? "waits" : "wait", place);
	else
		buf_addf(b, " wait in %s (%zu of them) and elsewhere", place,
		    same);
}

/* "has not beaten for 62 s; it is in PLACE" of the culprit ranks. */
static void
add_culprit_state(struct buf *b, const struct vctx *c, size_t n)
{
	const char	*place;
	double		 age = oldest(c, 1);
	size_t		 same;

	if (age < 0)
		buf_adds(b, " never beat");
	else
		buf_addf(b, " %s not beaten for %.0f s", n == 1 ? "has" :
		    "have", age);
	place = common_place(c, 1, &same);
	if (place == NULL)
		buf_addf(b, "; %s left no stack", n == 1 ? "it" : "they");
	else
		buf_addf(b, "; %s in %s", n == 1 ? "it is" : same == n ?
		    "they are" : "most are", place);
}

static void
mark_node(struct vctx *c, const char *node)
{
	size_t	i;

	for (i = 0; i < c->nr; i++)
		if (strcmp(c->r[i].node, node) == 0)
			c->r[i].culprit = 1;
}

/* The nodes that could not reach node 0; or node 0, when none of the
 * two or more others could. */
static int
by_reach(struct vctx *c, struct buf *b)
{
	const struct hang_record *first = NULL;
	size_t			 i, nu = 0;

	for (i = 0; i < c->nrecs; i++) {
		if (!c->recs[i].unreachable || c->recs[i].node == NULL ||
		    in_list(&c->v->culprits, c->recs[i].node))
			continue;
		if (first == NULL)
			first = &c->recs[i];
		add_culprit(c, c->recs[i].node);
		nu++;
	}
	if (first == NULL)
		return 0;
	if (c->nodes->n >= 3 && nu == c->nodes->n - 1 &&
	    !in_list(&c->v->culprits, c->nodes->v[0])) {
		strlist_free(&c->v->culprits);
		strlist_init(&c->v->culprits);
		add_culprit(c, c->nodes->v[0]);
		mark_node(c, c->nodes->v[0]);
		buf_addf(b, "none of the other %zu nodes can reach %s (%s: "
		    "%s)", nu, c->nodes->v[0], first->node, first->reach);
	} else {
		for (i = 0; i < c->v->culprits.n; i++)
			mark_node(c, c->v->culprits.v[i]);
		buf_addf(b, "%s cannot reach node 0%s%s (%s)", first->node,
		    c->nodes->n > 0 ? ", " : "", c->nodes->n > 0 ?
		    c->nodes->v[0] : "", first->reach);
		if (nu > 1)
			buf_addf(b, ", nor can %zu other %s", nu - 1,
			    nu == 2 ? "node" : "nodes");
	}
	buf_adds(b, ": ");
	add_culprit_state(b, c, add_ranks(b, c, 1));
	return 1;
}

/* The nodes of the job that left no record, when they are fewer than
 * half: they died or lost the shared directory. */
static int
by_missing(struct vctx *c, struct buf *b)
{
	struct buf	list;
	size_t		i, j, n = 0, m = 0;
	int		*miss;

	if (c->nodes->n == 0)
		return 0;
	miss = xcalloc(c->nodes->n, sizeof *miss);
	for (i = 0; i < c->nodes->n; i++) {
		miss[i] = 1;
		for (j = 0; j < c->nrecs && miss[i]; j++)
			if (c->recs[j].node != NULL &&
			    strcmp(c->recs[j].node, c->nodes->v[i]) == 0)
				miss[i] = 0;
		n += miss[i];
	}
	if (n == 0 || 2 * n >= c->nodes->n) {
		free(miss);
		return 0;
	}
	buf_init(&list);
	for (i = 0; i < c->nodes->n; i++) {
		if (!miss[i])
			continue;
		add_culprit(c, c->nodes->v[i]);
		buf_add_item(&list, c->nodes->v[i], ++m == n, " and ");
	}
	free(miss);
	buf_addf(b, "%s sent no evidence (%s died, or lost the shared "
	    "directory)", list.s, n == 1 ? "it" : "they");
	buf_free(&list);
	return 1;
}

/* A rank that beat in the last half of its limit is still at work. */
static int
beating(const struct vrank *r)
{
	return !r->k->stalled && r->k->age >= 0 && r->limit > 0 &&
	    r->k->age < r->limit / 2.0;
}

/* Stalled ranks while more of the others still beat: these are not
 * waiting for anyone. */
static int
by_progress(struct vctx *c, struct buf *b)
{
	size_t	i, stalled = 0, beat = 0;

	for (i = 0; i < c->nr; i++) {
		stalled += c->r[i].k->stalled;
		beat += beating(&c->r[i]);
	}
	if (stalled == 0 || beat == 0)
		return 0;
	for (i = 0; i < c->nr; i++) {
		if (c->r[i].k->stalled) {
			c->r[i].culprit = 1;
			add_culprit(c, c->r[i].node);
		}
	}
	add_ranks(b, c, 1);
	buf_addf(b, " on %s", c->v->culprits.v[0]);
	if (c->v->culprits.n > 1)
		buf_addf(b, " and %zu other %s", c->v->culprits.n - 1,
		    c->v->culprits.n == 2 ? "node" : "nodes");
	add_culprit_state(b, c, stalled);
	buf_addf(b, "; %zu other %s still %s", beat, beat == 1 ? "rank" :
	    "ranks", beat == 1 ? "beats" : "beat");
	return 1;
}

/* Ranks whose stack differs from the one most ranks share, when more
 * than half share it: the odd ones out are where the others wait for. */
static int
by_stack(struct vctx *c, struct buf *b)
{
	const char	*place = NULL;
	size_t		 i, j, n, most = 0, tie = 0, with = 0, out = 0;

	for (i = 0; i < c->nr; i++) {
		if (c->r[i].place == NULL || c->r[i].k->nframes == 0)
			continue;
		with++;
		for (n = 0, j = 0; j < c->nr; j++)
			n += c->r[j].place != NULL &&
			    strcmp(c->r[j].place, c->r[i].place) == 0;
		if (n > most) {
			most = n;
			place = c->r[i].place;
			tie = 0;
		} else if (n == most && strcmp(place, c->r[i].place) != 0)
			tie = 1;
	}
	if (place == NULL || tie || 2 * most <= with || most == with)
		return 0;
	for (i = 0; i < c->nr; i++) {
		if (c->r[i].place != NULL &&
		    strcmp(c->r[i].place, place) != 0) {
			c->r[i].culprit = 1;
			add_culprit(c, c->r[i].node);
			out++;
		}
	}
	add_ranks(b, c, 1);
	buf_addf(b, " on %s", c->v->culprits.v[0]);
	if (c->v->culprits.n > 1)
		buf_addf(b, " and %zu other %s", c->v->culprits.n - 1,
		    c->v->culprits.n == 2 ? "node" : "nodes");
	add_culprit_state(b, c, out);
	return 1;
}

/* The rank whose last beat is HANG_FIRST_LEAD s older than any other's
 * stopped first. */
static int
by_beat(struct vctx *c, struct buf *b)
{
	size_t	i, first = 0;
	double	second = -1;

	if (c->nr < 2)
		return 0;
	for (i = 1; i < c->nr; i++)
		if (c->r[i].k->age > c->r[first].k->age)
			first = i;
	for (i = 0; i < c->nr; i++)
		if (i != first && c->r[i].k->age > second)
			second = c->r[i].k->age;
	if (c->r[first].k->age < 0 || second < 0 ||
	    c->r[first].k->age - second < HANG_FIRST_LEAD)
		return 0;
	c->r[first].culprit = 1;
	add_culprit(c, c->r[first].node);
	buf_addf(b, "rank %ld on %s stopped first and", c->r[first].k->rank,
	    c->r[first].node);
	add_culprit_state(b, c, 1);
	return 1;
}

static void
nobody(struct vctx *c, struct buf *b)
{
	const char	*place;
	size_t		 same;
	double		 age = oldest(c, 0);

	if (c->nr == 1)
		buf_addf(b, "the only rank stopped beating %.0f s ago",
		    age < 0 ? 0 : age);
	else
		buf_addf(b, "%zu ranks stopped beating together (the first "
		    "%.0f s ago)", c->nr, age < 0 ? 0 : age);
	if ((place = common_place(c, 0, &same)) != NULL)
		buf_addf(b, "; %s in %s", same == c->nr ? "all wait" :
		    "most wait", place);
	buf_adds(b, ": no rank or node stands out");
}

static int
preflight(struct vctx *c, struct buf *b)
{
	const char	*why;
	size_t		 i, j, n = 0;
	char		*node;

	for (i = 0; i < c->nrecs; i++) {
		for (j = 0; j < c->recs[i].bad.n; j++) {
			why = strchr(c->recs[i].bad.v[j], ' ');
			node = why == NULL ? xstrdup(c->recs[i].bad.v[j]) :
			    xstrndup(c->recs[i].bad.v[j],
			    (size_t)(why - c->recs[i].bad.v[j]));
			if (!in_list(&c->v->culprits, node)) {
				buf_addf(b, "%s%s failed the preflight (%s)",
				    n++ > 0 ? "; " : "", node,
				    why != NULL ? why + 1 : "no reason given");
				add_culprit(c, node);
			}
			free(node);
		}
	}
	return n > 0;
}

void
hang_verdict(struct hang_verdict *v, const struct hang_record *recs,
    size_t n, const struct strlist *nodes)
{
	struct vctx	c;
	struct buf	b;
	size_t		i;
	int		stalled = 0;

	memset(v, 0, sizeof *v);
	strlist_init(&v->culprits);
	memset(&c, 0, sizeof c);
	c.recs = recs;
	c.nrecs = n;
	c.nodes = nodes;
	c.v = v;
	buf_init(&b);
	if (preflight(&c, &b)) {
		v->kind = HANG_PREFLIGHT;
		order_culprits(&c);
		v->summary = buf_take(&b);
		return;
	}
	collect(&c);
	for (i = 0; i < c.nr; i++)
		stalled |= c.r[i].k->stalled;
	if (stalled) {
		v->kind = HANG_STALL;
		if (by_progress(&c, &b))
			;
		else if (by_reach(&c, &b) || by_missing(&c, &b) ||
		    by_stack(&c, &b) || by_beat(&c, &b))
			add_others(&b, &c);
		else
			nobody(&c, &b);
		order_culprits(&c);
		v->summary = buf_take(&b);
	}
	buf_free(&b);
	for (i = 0; i < c.nr; i++)
		free(c.r[i].place);
	free(c.r);
}
