/* timeline.c: the launch timeline's records, the training's hook lines,
 * the message each node sends node 0, and node 0's report (timeline.h).
 * Nothing here reads a clock or a file. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "timeline.h"
#include "util.h"
#include "xmalloc.h"

static const struct {
	const char	*word;
	const char	*title;
} phases[TL_NPHASES] = {
	[TL_STEP] =		{ "step", "step start" },
	[TL_DDPRANK] =		{ "ddprank", "task to ddprank" },
	[TL_RANK] =		{ "rank", "node list and rank" },
	[TL_EXCHANGE] =		{ "exchange", "exchange" },
	[TL_EXEC] =		{ "exec", "ddprank to launcher" },
	[TL_PYTHON] =		{ "python", "launcher to python" },
	[TL_IMPORT] =		{ "import", "import" },
	[TL_INIT] =		{ "init", "process group" },
	[TL_COLLECTIVE] =	{ "collective", "first collective" }
};

static const char *const ends[TL_NENDS] = {
	[TL_END_DONE] = "done",
	[TL_END_EXITED] = "exited",
	[TL_END_WAITED] = "waited"
};

const char *
timeline_phase_word(enum tl_phase p)
{
	return phases[p].word;
}

const char *
timeline_phase_title(enum tl_phase p)
{
	return phases[p].title;
}

int
timeline_phase_parse(const char *s, size_t len, enum tl_phase *p)
{
	int	i;

	for (i = 0; i < TL_NPHASES; i++) {
		if (strlen(phases[i].word) == len &&
		    memcmp(phases[i].word, s, len) == 0) {
			*p = (enum tl_phase)i;
			return 0;
		}
	}
	return -1;
}

void
timeline_node_init(struct tl_node *n)
{
	memset(n, 0, sizeof *n);
}

void
timeline_node_free(struct tl_node *n)
{
	free(n->host);
	memset(n, 0, sizeof *n);
}

/* --- the hook ------------------------------------------------------------ */

void
timeline_hook_init(struct tl_hook *h, int per_process)
{
	memset(h, 0, sizeof *h);
	h->per_process = per_process;
}

/* A time of the epoch: at most 12 digits, then a dot (or a comma) and
 * at most 9 more; 0, and -1 for anything else (no sign, exponent, "inf"
 * or "nan"). */
static int
timeline_time(const char *s, size_t len, double *t)
{
	char	buf[32];
	size_t	i, dot = len;

	if (len == 0 || len >= sizeof buf)
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	for (i = 0; i < len; i++) {
		/* bash's EPOCHREALTIME has the locale's decimal point. */
		if ((s[i] == '.' || s[i] == ',') && dot == len && i > 0)
			buf[dot = i] = '.';
		else if (s[i] < '0' || s[i] > '9')
			return -1;
	}
	if (dot > 12 || dot == len - 1 || (dot < len && len - dot - 1 > 9))
		return -1;
	*t = strtod(buf, NULL);
	return 0;
}

/* A number from 0 to max, digits only. */
static int
timeline_count(const char *s, size_t len, uint64_t max, uint64_t *v)
{
	size_t	i;

	*v = 0;
	if (len == 0 || len > 7)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	}
	return *v <= max ? 0 : -1;
}

/* Splits line into at most 5 words at single spaces; returns how many,
 * or -1 for an empty word (two spaces, a space at either end). */
static int
timeline_words(const char *line, size_t len, const char *w[5], size_t wl[5])
{
	size_t	i, start = 0;
	int	n = 0;

	for (i = 0; i <= len; i++) {
		if (i < len && line[i] != ' ')
			continue;
		if (i == start || n == 5)
			return -1;
		w[n] = line + start;
		wl[n++] = i - start;
		start = i + 1;
	}
	return n;
}

/* One line, without its newline: 0 when taken. */
static int
timeline_hook_line(struct tl_node *nd, struct tl_hook *h, const char *line,
    size_t len, double since, double now)
{
	const char	*w[5];
	size_t		 wl[5];
	enum tl_phase	 p;
	uint64_t	 lr = 0, lws = 0;
	double		 t = now;
	int		 n;

	if ((n = timeline_words(line, len, w, wl)) < 1 || n == 3 || n > 4 ||
	    timeline_phase_parse(w[0], wl[0], &p) == -1 || p < TL_HOOK_FIRST)
		return -1;
	if (n >= 2 && (timeline_time(w[1], wl[1], &t) == -1 ||
	    t < since - 60 || t > now + 60))
		return -1;
	if (n == 4 && (timeline_count(w[3], wl[3], TL_LOCAL_MAX, &lws) == -1 ||
	    lws == 0 || timeline_count(w[2], wl[2], lws - 1, &lr) == -1))
		return -1;
	if (t > nd->t[p])
		nd->t[p] = t;
	if (n == 4 && lws > h->lws)
		h->lws = lws;
	if (p != TL_COLLECTIVE)
		return 0;
	if (n < 4)
		h->anon = 1;
	else if ((h->coll[lr / 8] & (1u << (lr % 8))) == 0) {
		h->coll[lr / 8] |= (unsigned char)(1u << (lr % 8));
		h->ncoll++;
	}
	return 0;
}

void
timeline_hook_feed(struct tl_node *n, struct tl_hook *h, const char *data,
    size_t len, double since, double now)
{
	size_t	i;

	for (i = 0; i < len && !n->full; i++, h->total++) {
		if (h->total >= TL_HOOK_MAX) {
			n->full = 1;
			break;
		}
		if (data[i] != '\n') {
			if (h->len == sizeof h->line - 1)
				h->skip = 1;
			else
				h->line[h->len++] = data[i];
			continue;
		}
		if (h->skip || memchr(h->line, '\0', h->len) != NULL ||
		    timeline_hook_line(n, h, h->line, h->len, since,
		    now) == -1)
			n->bad++;
		h->len = 0;
		h->skip = 0;
	}
}

int
timeline_hook_done(const struct tl_node *n, const struct tl_hook *h)
{
	if (n->t[TL_COLLECTIVE] == 0)
		return 0;
	return h->per_process || h->anon || h->ncoll >= h->lws;
}

/* --- the message ------------------------------------------------------------ */

void
timeline_encode(struct buf *b, const struct tl_node *n)
{
	const char	*s;
	int		 i;

	buf_adds(b, "ddprank-timeline 1\n");
	buf_addf(b, "node %llu ", (unsigned long long)n->rank);
	if (n->host == NULL || *n->host == '\0')
		buf_addc(b, '-');
	for (s = n->host; s != NULL && *s != '\0'; s++)
		buf_addc(b, (unsigned char)*s <= ' ' || *s == 0x7f ? '?' : *s);
	buf_addf(b, " %s %u %d", ends[n->end], n->bad, n->full != 0);
	for (i = 0; i < TL_NPHASES; i++) {
		if (n->t[i] > 0)
			buf_addf(b, " %s=%.6f", phases[i].word, n->t[i]);
	}
	buf_adds(b, "\nend\n");
}

/* One "PHASE=TIME" word. */
static int
timeline_decode_time(struct tl_node *n, const char *w, size_t len)
{
	const char	*eq = memchr(w, '=', len);
	enum tl_phase	 p;
	double		 t;

	if (eq == NULL || timeline_phase_parse(w, (size_t)(eq - w), &p) == -1 ||
	    n->t[p] != 0 || timeline_time(eq + 1, len - (size_t)(eq - w) - 1,
	    &t) == -1 || t <= 0)
		return -1;
	n->t[p] = t;
	return 0;
}

static int
timeline_decode_node(struct tl_node *n, char *line, char **cause)
{
	unsigned long long	 rank;
	unsigned int		 bad;
	int			 full, off = 0, i;
	char			 host[HOSTLIST_NAME_MAX + 1], end[8], *w, *sp;

	_Static_assert(HOSTLIST_NAME_MAX == 255, "the width below");
	if (sscanf(line, "node %llu %255s %7s %u %d%n", &rank, host, end, &bad,
	    &full, &off) != 5 || (full != 0 && full != 1) ||
	    util_has_cntrl(host))
		return util_fail(cause, "bad node line");
	for (i = 0; i < TL_NENDS && strcmp(end, ends[i]) != 0; i++)
		;
	if (i == TL_NENDS)
		return util_fail(cause, "bad node line");
	n->rank = rank;
	n->end = (enum tl_end)i;
	n->bad = bad;
	n->full = full;
	for (w = line + off; *w != '\0'; w = sp) {
		if (*w++ != ' ' || (sp = strchr(w, ' ')) == NULL)
			sp = w + strlen(w);
		if (timeline_decode_time(n, w, (size_t)(sp - w)) == -1)
			return util_fail(cause, "bad time '%.*s'",
			    (int)(sp - w) > 40 ? 40 : (int)(sp - w), w);
	}
	n->host = xstrdup(host);
	return 0;
}

int
timeline_decode(struct tl_node *n, const char *buf, size_t len,
    char **cause)
{
	const char	 magic[] = "ddprank-timeline 1\n";
	char		*line, *nl;
	int		 rc;

	timeline_node_init(n);
	if (len < sizeof magic - 1 || memcmp(buf, magic, sizeof magic - 1) != 0)
		return util_fail(cause, "not a ddprank timeline");
	if (memchr(buf, '\0', len) != NULL)
		return util_fail(cause, "NUL byte in timeline");
	line = xstrndup(buf + sizeof magic - 1, len - (sizeof magic - 1));
	if ((nl = strchr(line, '\n')) == NULL || strcmp(nl, "\nend\n") != 0) {
		free(line);
		return util_fail(cause, "timeline ends without 'end'");
	}
	*nl = '\0';
	if ((rc = timeline_decode_node(n, line, cause)) == -1)
		timeline_node_free(n);
	free(line);
	return rc;
}

/* --- the report ----------------------------------------------------------------- */

void
timeline_report_free(struct tl_report *r)
{
	uint64_t	i;

	for (i = 0; i < r->n; i++)
		timeline_node_free(&r->v[i]);
	free(r->v);
	free(r->gather_why);
	memset(r, 0, sizeof *r);
}

/* The origin of every time: the job's start, or the first moment any
 * node passed; 0 when no node passed any. */
static double
timeline_origin(const struct tl_report *r)
{
	double		o = 0;
	uint64_t	i;
	int		p;

	if (r->job_start > 0)
		return r->job_start;
	for (i = 0; i < r->n; i++)
		for (p = 0; p < TL_NPHASES; p++)
			if (r->v[i].reported && r->v[i].t[p] > 0 &&
			    (o == 0 || r->v[i].t[p] < o))
				o = r->v[i].t[p];
	return o;
}

/* How long phase p took on node n: from the phase before it that n
 * passed (the origin for its first), or -1 when n did not pass p. */
static double
timeline_took(const struct tl_node *n, int p, double origin)
{
	double	prev = origin;
	int	q;

	if (!n->reported || n->t[p] <= 0)
		return -1;
	for (q = p - 1; q >= 0; q--) {
		if (n->t[q] > 0) {
			prev = n->t[q];
			break;
		}
	}
	return n->t[p] - prev < 0 ? 0 : n->t[p] - prev;
}

static int
timeline_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The lower median of v, m values (sorted here): of two, the smaller,
 * so that with two nodes the slower one stands out. */
static double
timeline_median(double *v, size_t m)
{
	qsort(v, m, sizeof *v, timeline_cmp);
	return v[(m - 1) / 2];
}

/* Per phase: how many nodes passed it, the median of how long it took
 * and of when they passed it, and the node it took longest. */
struct tl_stat {
	size_t		m;
	double		took, at;
	uint64_t	slow;
	double		slow_took;
};

static void
timeline_stat(const struct tl_report *r, int p, double origin,
    struct tl_stat *st, double *buf)
{
	uint64_t	i;
	double		d;

	memset(st, 0, sizeof *st);
	for (i = 0; i < r->n; i++) {
		if ((d = timeline_took(&r->v[i], p, origin)) < 0)
			continue;
		buf[st->m++] = d;
		if (st->m == 1 || d > st->slow_took) {
			st->slow = i;
			st->slow_took = d;
		}
	}
	if (st->m == 0)
		return;
	st->took = timeline_median(buf, st->m);
	st->m = 0;
	for (i = 0; i < r->n; i++)
		if (timeline_took(&r->v[i], p, origin) >= 0)
			buf[st->m++] = r->v[i].t[p];
	st->at = timeline_median(buf, st->m);
}

static const char *
timeline_host(const struct tl_report *r, uint64_t i, char *buf, size_t len)
{
	if (r->v[i].host != NULL)
		return r->v[i].host;
	snprintf(buf, len, "node %llu", (unsigned long long)i);
	return buf;
}

/*
 * The node and phase to name: the one whose lateness grew most in a
 * phase, lateness being how long after the phase's median moment the
 * node passed it. A slow node grows late in the phase it was slow in;
 * the others, which wait for it in the next collective step, are not
 * late at all, and it is no later after that step than before. When no
 * node grew late by more than a twentieth of the start-up, the phase
 * whose median is longest and its slowest node: that is where the time
 * goes.
 */
static void
timeline_slowest(const struct tl_report *r, const struct tl_stat *st,
    double origin, double startup, uint64_t *node, int *phase)
{
	double		late, before, most = 0, longest = -1;
	uint64_t	i;
	int		p;

	*phase = -1;
	for (i = 0; i < r->n; i++) {
		before = 0;
		for (p = 0; p < TL_NPHASES; p++) {
			if (st[p].m == 0 ||
			    timeline_took(&r->v[i], p, origin) < 0)
				continue;
			late = r->v[i].t[p] - st[p].at;
			if (late - before > most) {
				most = late - before;
				*node = i;
				*phase = p;
			}
			before = late;
		}
	}
	if (*phase != -1 && most > startup / 20)
		return;
	for (p = 0; p < TL_NPHASES; p++) {
		if (st[p].m > 0 && st[p].took > longest) {
			longest = st[p].took;
			*node = st[p].slow;
			*phase = p;
		}
	}
}

/* The nodes that never reported, "node3, node7 and 2 more". */
static size_t
timeline_missing(struct buf *b, const struct tl_report *r)
{
	char		name[32];
	uint64_t	i;
	size_t		k = 0;

	for (i = 0; i < r->n; i++) {
		if (r->v[i].reported)
			continue;
		if (k++ < 8)
			buf_addf(b, "%s%s", k > 1 ? ", " : "",
			    timeline_host(r, i, name, sizeof name));
	}
	if (k > 8)
		buf_addf(b, " and %zu more", k - 8);
	return k;
}

/* The nodes whose hook said something that is no line, or too much,
 * and those whose training did not reach its first collective. */
static void
timeline_notes(struct buf *b, const struct tl_report *r)
{
	char		name[32];
	uint64_t	i;
	size_t		said = 0;
	const char	*h;

	for (i = 0; i < r->n && said < 8; i++) {
		const struct tl_node	*n = &r->v[i];

		if (!n->reported)
			continue;
		h = timeline_host(r, i, name, sizeof name);
		if (n->bad > 0 || n->full) {
			buf_addf(b, "%s: %u line%s of the training's hook "
			    "ignored%s\n", h, n->bad, n->bad == 1 ? "" : "s",
			    n->full ? ", and everything after its first "
			    "64 KiB" : "");
			said++;
		}
		/* Out of time: before a collective, or before any worker's
		 * python had started. */
		if (n->end == TL_END_WAITED) {
			buf_addf(b, "%s: no %s within %d s\n", h,
			    n->t[TL_PYTHON] > 0 ? "first collective" :
			    "worker's python", r->wait);
			said++;
		}
	}
}

void
timeline_format(struct buf *b, const struct tl_report *r)
{
	struct tl_stat	 st[TL_NPHASES];
	double		 origin = timeline_origin(r), startup = 0, *tmp;
	char		 name[32];
	uint64_t	 i, node = 0;
	size_t		 k;
	int		 p, phase;

	tmp = xreallocarray(NULL, r->n > 0 ? r->n : 1, sizeof *tmp);
	for (p = 0; p < TL_NPHASES; p++)
		timeline_stat(r, p, origin, &st[p], tmp);
	free(tmp);
	for (i = 0; i < r->n; i++)
		for (p = 0; p < TL_NPHASES; p++)
			if (r->v[i].reported && r->v[i].t[p] - origin > startup)
				startup = r->v[i].t[p] - origin;
	buf_addf(b, "ddprank timeline: %llu node%s, start-up %.2f s from %s\n",
	    (unsigned long long)r->n, r->n == 1 ? "" : "s", startup,
	    r->job_start > 0 ? "the job's start" : "the first node's start");
	buf_addf(b, "%-20s %9s %9s  %s\n", "phase", "median", "slowest",
	    "node");
	for (p = 0; p < TL_NPHASES; p++) {
		if (st[p].m == 0)
			continue;
		buf_addf(b, "%-20s %7.2f s %7.2f s  %s\n", phases[p].title,
		    st[p].took, st[p].slow_took,
		    timeline_host(r, st[p].slow, name, sizeof name));
	}
	if (r->gather_why != NULL)
		buf_addf(b, "node 0 could not gather the others' times: %s\n",
		    r->gather_why);
	else {
		struct buf	miss;

		buf_init(&miss);
		if ((k = timeline_missing(&miss, r)) > 0)
			buf_addf(b, "no timeline from %s (%zu node%s)%s\n",
			    miss.s, k, k == 1 ? "" : "s", r->dropped > 0 ?
			    "; some connections to node 0 were dropped" : "");
		buf_free(&miss);
	}
	timeline_notes(b, r);
	timeline_slowest(r, st, origin, startup, &node, &phase);
	buf_addf(b, "start-up %.1f s", startup);
	if (phase != -1)
		buf_addf(b, "; slowest: %s %s %.1f s (median %.1f s)",
		    timeline_host(r, node, name, sizeof name),
		    phases[phase].title, timeline_took(&r->v[node], phase,
		    origin), st[phase].took);
	buf_addc(b, '\n');
}

static double
timeline_env_time(const char *s)
{
	double	t;

	if (s == NULL || timeline_time(s, strlen(s), &t) == -1 || t <= 0 ||
	    !isfinite(t))
		return 0;
	return t;
}

double
timeline_job_start(const char *(*get)(const char *))
{
	double	t;

	if ((t = timeline_env_time(get("DDPGEN_JOB_START"))) > 0)
		return t;
	return timeline_env_time(get("SLURM_JOB_START_TIME"));
}
