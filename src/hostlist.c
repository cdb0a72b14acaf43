/* hostlist.c: Slurm hostlist expressions, kept compressed: parsed into
 * items of literal text and bracket groups, then counted, indexed and
 * searched arithmetically. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "util.h"
#include "xmalloc.h"

/*
 * Grammar, as found by running `scontrol show hostnames` of Slurm 22.05
 * and 24.11:
 *
 *   list  = item { sep item }		sep is ',', ' ' or '\t'; empty
 *					items are skipped
 *   item  = name | { text "[" elem { "," elem } "]" } [ text ]
 *   elem  = digits [ "-" [ digits ] ]	"7-" means 7, as in Slurm
 *
 * Separators inside brackets do not split. Text after the last group
 * ("nc[1-2]-ib") is Slurm 23.11's: 22.05 rejects it, and never writes
 * it, so accepting it cannot change what a 22.05 list means. Every number is printed zero-padded to the width of the
 * low bound as written: "n[001-3]" gives n001, "n[9-0011]" gives n9 ...
 * n11. Several groups make a cartesian product in Slurm's own order:
 * the last group runs fastest, then the first, the second, and so on,
 * so the one before last is outermost ("a[1-2][3-4][5-6]" gives a135
 * a136 a235 a236 a145 ...); with two groups the first is outermost.
 *
 * Where Slurm's output is a bug we reject instead, and say so where the
 * check is made: unclosed brackets, ']' in the text of an item with
 * brackets, blanks or '+' inside brackets, numbers beyond 2^64-1,
 * control characters.
 */

#define HL_SEP(c)	((c) == ',' || (c) == ' ' || (c) == '\t')
#define HL_DIGIT(c)	((c) >= '0' && (c) <= '9')
#define HL_UNKNOWN	(-2)

/* lo-hi inside a bracket group; width is the low bound's digit count. */
struct hl_range {
	uint64_t	 lo;
	uint64_t	 hi;
	size_t		 width;
	uint64_t	 first;		/* index of lo within its group */
};

/* Literal text followed by one bracket group. */
struct hl_group {
	char		*lit;
	size_t		 litlen;
	struct hl_range	*r;
	size_t		 nr;
	uint64_t	 count;
	uint64_t	 stride;	/* hosts between its steps */
};

/* One item: groups, then a tail of literal text. A plain name is an item
 * without groups; a pattern's tail is its suffix ("-ib" of
 * "nc[1-2]-ib"), or empty. */
struct hl_item {
	struct hl_group	*g;
	size_t		 ng;
	char		*tail;
	size_t		 taillen;
	uint64_t	 count;
	uint64_t	 first;		/* index of its first host */
};

struct hostlist {
	struct hl_item	*items;
	size_t		 n;
	size_t		 cap;
	uint64_t	 count;
};

/* State of one hostlist_find on one item. */
struct hl_match {
	const struct hl_item	*it;
	const char		*name;
	size_t			 len;
	int			 flags;
	int64_t			*memo;	/* (ng + 1) x (len + 1) results */
};

static int64_t	hl_match_at(struct hl_match *, size_t, size_t);

static struct hostlist *
hl_new(void)
{
	struct hostlist	*hl;

	hl = xcalloc(1, sizeof *hl);
	hl->cap = 4;
	hl->items = xcalloc(hl->cap, sizeof *hl->items);
	return hl;
}

static void
hl_item_clear(struct hl_item *it)
{
	size_t	i;

	for (i = 0; i < it->ng; i++) {
		free(it->g[i].lit);
		free(it->g[i].r);
	}
	free(it->g);
	free(it->tail);
	memset(it, 0, sizeof *it);
}

static void
hl_append(struct hostlist *hl, struct hl_item *it)
{
	if (hl->n == hl->cap) {
		hl->items = xreallocarray(hl->items, hl->cap,
		    2 * sizeof *hl->items);
		hl->cap *= 2;
	}
	it->first = hl->count;
	hl->count += it->count;
	hl->items[hl->n++] = *it;
}

void
hostlist_free(struct hostlist *hl)
{
	size_t	i;

	if (hl == NULL)
		return;
	for (i = 0; i < hl->n; i++)
		hl_item_clear(&hl->items[i]);
	free(hl->items);
	free(hl);
}

/* Length of the item at s: up to the first separator outside brackets. */
static size_t
hl_itemlen(const char *s)
{
	size_t	i;
	int	depth = 0;

	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] == '[')
			depth++;
		else if (s[i] == ']' && depth > 0)
			depth--;
		else if (depth == 0 && HL_SEP(s[i]))
			break;
	}
	return i;
}

/* Decimal digits only: no sign, no blanks. 0, -1 if not a number, -2 if
 * it exceeds 2^64-1 (Slurm silently saturates those). */
static int
hl_number(const char *s, size_t n, uint64_t *out)
{
	uint64_t	v = 0;
	unsigned int	d;
	size_t		i;

	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (!HL_DIGIT(s[i]))
			return -1;
		d = (unsigned int)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -2;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static size_t
hl_ndigits(uint64_t v)
{
	size_t	n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Length of v as printed in a range of the given pad width. */
static size_t
hl_width(uint64_t v, size_t width)
{
	size_t	n = hl_ndigits(v);

	return n > width ? n : width;
}

/*
 * Parses one element of a group. Slurm reads numbers with strtoul(3),
 * which skips blanks and takes a sign, and then counts those characters
 * as zero padding ("n[ 1-3]" gives n01 n02 n03, "n[+1]" gives n01): a
 * bug, so anything but digits is rejected here.
 */
static int
hl_parse_range(const char *s, size_t n, const char *item,
    struct hl_range *r, char **cause)
{
	const char	*dash;
	size_t		 lolen;
	int		 e1, e2 = 0;

	if (n == 0)
		return util_fail(cause, "empty range in \"%s\"", item);
	dash = memchr(s, '-', n);
	lolen = dash != NULL ? (size_t)(dash - s) : n;
	e1 = hl_number(s, lolen, &r->lo);
	r->width = lolen;
	if (dash == NULL || dash + 1 == s + n)
		r->hi = r->lo;		/* Slurm reads "7-" as "7" */
	else
		e2 = hl_number(dash + 1, (size_t)(s + n - dash - 1), &r->hi);
	if (e1 == -2 || e2 == -2)
		return util_fail(cause, "number too large in \"%.*s\" in \"%s\"",
		    (int)n, s, item);
	if (e1 != 0 || e2 != 0)
		return util_fail(cause, "invalid range \"%.*s\" in \"%s\"",
		    (int)n, s, item);
	if (r->hi < r->lo)
		return util_fail(cause, "decreasing range \"%.*s\" in \"%s\"",
		    (int)n, s, item);
	return 0;
}

static int
hl_too_many(const char *item, char **cause)
{
	return util_fail(cause, "\"%s\" makes more than %llu hosts", item,
	    (unsigned long long)HOSTLIST_MAX_HOSTS);
}

/* Adds a range to a group, keeping the count under the guard. There is
 * no per-range limit (Slurm's is 65,536): only the total counts. */
static int
hl_add_range(struct hl_group *g, const struct hl_range *r, const char *item,
    char **cause)
{
	if (r->hi - r->lo >= HOSTLIST_MAX_HOSTS ||
	    g->count + (r->hi - r->lo + 1) > HOSTLIST_MAX_HOSTS)
		return hl_too_many(item, cause);
	if ((g->nr & (g->nr - 1)) == 0)	/* 0, 1, 2, 4...: double */
		g->r = xreallocarray(g->r, g->nr == 0 ? 1 : 2 * g->nr,
		    sizeof *g->r);
	g->r[g->nr] = *r;
	g->r[g->nr].first = g->count;
	g->count += r->hi - r->lo + 1;
	g->nr++;
	return 0;
}

/* Parses the text between '[' and ']' into g. */
static int
hl_parse_group(struct hl_group *g, const char *s, size_t n, const char *item,
    char **cause)
{
	struct hl_range	 r;
	const char	*end = s + n, *comma;

	for (;;) {
		if ((comma = memchr(s, ',', (size_t)(end - s))) == NULL)
			comma = end;
		if (hl_parse_range(s, (size_t)(comma - s), item, &r,
		    cause) != 0 || hl_add_range(g, &r, item, cause) != 0)
			return -1;
		if (comma == end)
			return 0;
		s = comma + 1;
	}
}

/* The ']' closing the '[' before s, or NULL with *cause set. Slurm has
 * no nesting, and prints garbage for an unclosed bracket ("n[1-3" gives
 * "n]"): both are errors. */
static const char *
hl_close(const char *s, const char *item, char **cause)
{
	const char	*close;

	close = s + strcspn(s, "[]");
	if (*close == '[')
		util_fail(cause, "nested brackets in \"%s\"", item);
	else if (*close == '\0')
		util_fail(cause, "unclosed bracket in \"%s\"", item);
	else
		return close;
	return NULL;
}

static int
hl_parse_groups(struct hl_item *it, const char *item, char **cause)
{
	const char	*p = item, *open, *close;
	struct hl_group	*g;

	while ((open = strchr(p, '[')) != NULL) {
		/* Slurm takes "a]b[1-2]" as a]b1 a]b2 but "a]b[1,2]" as
		 * "a]b]" and "2]": in an item with brackets, refuse it. */
		if (memchr(p, ']', (size_t)(open - p)) != NULL)
			return util_fail(cause, "stray \"]\" in \"%s\"", item);
		if ((close = hl_close(open + 1, item, cause)) == NULL)
			return -1;
		it->g = xreallocarray(it->g, it->ng + 1, sizeof *it->g);
		g = &it->g[it->ng++];
		memset(g, 0, sizeof *g);
		g->litlen = (size_t)(open - p);
		g->lit = xstrndup(p, g->litlen);
		if (hl_parse_group(g, open + 1, (size_t)(close - open - 1),
		    item, cause) != 0)
			return -1;
		p = close + 1;
	}
	/* A ']' in the suffix is text, as Slurm 24.11 reads it ("n[1-2]]"
	 * gives n1] n2]). */
	it->taillen = strlen(p);
	it->tail = xstrndup(p, it->taillen);
	return 0;
}

/* Widest number a group prints. */
static size_t
hl_group_width(const struct hl_group *g)
{
	size_t	i, w = 0;

	for (i = 0; i < g->nr; i++) {
		if (hl_width(g->r[i].hi, g->r[i].width) > w)
			w = hl_width(g->r[i].hi, g->r[i].width);
	}
	return w;
}

/* Counts the item's hosts, sets the strides in Slurm's order (the last
 * group fastest, then the first, second...) and checks the guard and
 * the longest name it can produce. */
static int
hl_size_item(struct hl_item *it, const char *item, char **cause)
{
	size_t		i, k, namelen = it->taillen;
	uint64_t	count = 1;

	for (k = 0; k < it->ng; k++) {
		i = k == 0 ? it->ng - 1 : k - 1;
		it->g[i].stride = count;
		if (count > HOSTLIST_MAX_HOSTS / it->g[i].count)
			return hl_too_many(item, cause);
		count *= it->g[i].count;
		namelen += it->g[i].litlen + hl_group_width(&it->g[i]);
	}
	if (namelen > HOSTLIST_NAME_MAX)
		return util_fail(cause, "host names longer than %d "
		    "characters in \"%.40s...\"", HOSTLIST_NAME_MAX, item);
	it->count = count;
	return 0;
}

/* Slurm takes any byte but separators as part of a name, newlines
 * included, which makes one-per-line output ambiguous: refuse them. A
 * tab can only be inside brackets here, where hl_parse_range says more. */
static int
hl_check_chars(const char *item, char **cause)
{
	const unsigned char	*p;

	for (p = (const unsigned char *)item; *p != '\0'; p++) {
		if (util_iscntrl(*p) && *p != '\t')
			return util_fail(cause, "control character 0x%02x "
			    "after \"%.*s\"", *p, (int)(p -
			    (const unsigned char *)item), item);
	}
	return 0;
}

static int
hl_parse_item(struct hostlist *hl, const char *s, size_t n, char **cause)
{
	struct hl_item	 it;
	char		*item;
	int		 rc = -1;

	memset(&it, 0, sizeof it);
	item = xstrndup(s, n);
	if (hl_check_chars(item, cause) != 0 ||
	    hl_parse_groups(&it, item, cause) != 0 ||
	    hl_size_item(&it, item, cause) != 0)
		goto out;
	if (it.count > HOSTLIST_MAX_HOSTS - hl->count) {
		hl_too_many(item, cause);
		goto out;
	}
	hl_append(hl, &it);
	rc = 0;
out:
	if (rc != 0)
		hl_item_clear(&it);
	free(item);
	return rc;
}

struct hostlist *
hostlist_parse(const char *expr, char **cause)
{
	struct hostlist	*hl;
	size_t		 n;

	hl = hl_new();
	for (;;) {
		while (HL_SEP(*expr))
			expr++;
		if (*expr == '\0')
			break;
		n = hl_itemlen(expr);
		if (hl_parse_item(hl, expr, n, cause) != 0) {
			hostlist_free(hl);
			return NULL;
		}
		expr += n;
	}
	/* Slurm prints nothing for "" or ","; a job with no hosts is
	 * always a mistake here. */
	if (hl->n == 0) {
		hostlist_free(hl);
		util_fail(cause, "empty host list");
		return NULL;
	}
	return hl;
}

struct hostlist *
hostlist_from_names(char *const *names, size_t n)
{
	struct hostlist	*hl;
	struct hl_item	 it;
	size_t		 i;

	hl = hl_new();
	for (i = 0; i < n; i++) {
		memset(&it, 0, sizeof it);
		it.taillen = strlen(names[i]);
		it.tail = xstrndup(names[i], it.taillen);
		it.count = 1;
		hl_append(hl, &it);
	}
	return hl;
}

uint64_t
hostlist_count(const struct hostlist *hl)
{
	return hl->count;
}

/* The item holding host i (i < count), by bisection. */
static const struct hl_item *
hl_item_at(const struct hostlist *hl, uint64_t i)
{
	size_t	lo = 0, hi = hl->n - 1, mid;

	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (hl->items[mid].first <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	return &hl->items[lo];
}

/* The range holding index i (i < count) of a group, by bisection. */
static const struct hl_range *
hl_range_at(const struct hl_group *g, uint64_t i)
{
	size_t	lo = 0, hi = g->nr - 1, mid;

	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (g->r[mid].first <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	return &g->r[lo];
}

/* Appends n bytes to buf at *off; -1 if they do not fit with a NUL. */
static int
hl_put(char *buf, size_t len, size_t *off, const char *s, size_t n)
{
	if (n >= len - *off)
		return -1;
	memcpy(buf + *off, s, n);
	*off += n;
	buf[*off] = '\0';
	return 0;
}

/* Appends number gi of group g, zero-padded. By hand: snprintf(3) took
 * most of the time of printing a long list. */
static int
hl_put_number(char *buf, size_t len, size_t *off, const struct hl_group *g,
    uint64_t gi)
{
	const struct hl_range	*r = hl_range_at(g, gi);
	uint64_t		 v = r->lo + (gi - r->first);
	size_t			 n = hl_width(v, r->width), i;

	if (n >= len - *off)
		return -1;
	for (i = n; i-- > 0; v /= 10)
		buf[*off + i] = (char)('0' + v % 10);
	*off += n;
	buf[*off] = '\0';
	return 0;
}

int
hostlist_nth(const struct hostlist *hl, uint64_t i, char *buf, size_t len)
{
	const struct hl_item	*it;
	const struct hl_group	*g;
	uint64_t		 rem;
	size_t			 off = 0, j;

	if (i >= hl->count || len == 0)
		return -1;
	it = hl_item_at(hl, i);
	rem = i - it->first;
	buf[0] = '\0';
	for (j = 0; j < it->ng; j++) {
		g = &it->g[j];
		if (hl_put(buf, len, &off, g->lit, g->litlen) != 0 ||
		    hl_put_number(buf, len, &off, g,
		    rem / g->stride % g->count) != 0)
			return -1;
	}
	if (hl_put(buf, len, &off, it->tail, it->taillen) != 0)
		return -1;
	return (int)off;
}

static int
hl_eqc(char a, char b, int flags)
{
	if (a == b)
		return 1;
	return (flags & HOSTLIST_ICASE) &&
	    tolower((unsigned char)a) == tolower((unsigned char)b);
}

/* Matches literal text at name[*pos]: 1 and *pos advanced on a match, 0
 * on a mismatch, 2 when under HOSTLIST_SHORT the text reaches its first
 * '.' exactly where the short name ends, so nothing after it counts. */
static int
hl_match_lit(const struct hl_match *m, const char *lit, size_t n,
    size_t *pos)
{
	size_t	i, p = *pos;

	for (i = 0; i < n; i++, p++) {
		if (lit[i] == '.' && (m->flags & HOSTLIST_SHORT))
			return p == m->len ? 2 : 0;
		if (p == m->len || !hl_eqc(lit[i], m->name[p], m->flags))
			return 0;
	}
	*pos = p;
	return 1;
}

/* Index within group g of the first number printed as the k digits of
 * value v, or -1: a range prints v in max(width, digits of v) places. */
static int64_t
hl_group_index(const struct hl_group *g, uint64_t v, size_t k)
{
	const struct hl_range	*r;
	size_t			 i;

	for (i = 0; i < g->nr; i++) {
		r = &g->r[i];
		if (v >= r->lo && v <= r->hi && hl_width(v, r->width) == k)
			return (int64_t)(r->first + (v - r->lo));
	}
	return -1;
}

/*
 * Smallest sum of gi * stride over groups g and after, for a host that
 * prints as name[pos..], or -1. The digits a group takes are not known
 * in advance ("n[1-2][3-4]" against "n13"), so each length is tried.
 */
static int64_t
hl_match_group(struct hl_match *m, size_t g, size_t pos)
{
	const struct hl_item	*it = m->it;
	const struct hl_group	*grp;
	uint64_t		 v = 0;
	unsigned int		 d;
	int64_t			 best = -1, gi, rest, idx;
	size_t			 k;

	if (g == it->ng) {
		switch (hl_match_lit(m, it->tail, it->taillen, &pos)) {
		case 0:
			return -1;
		case 2:
			return 0;
		}
		return pos == m->len ? 0 : -1;
	}
	grp = &it->g[g];
	switch (hl_match_lit(m, grp->lit, grp->litlen, &pos)) {
	case 0:
		return -1;
	case 2:
		return 0;	/* later groups are past the short name */
	}
	for (k = 1; pos + k <= m->len && HL_DIGIT(m->name[pos + k - 1]); k++) {
		d = (unsigned int)(m->name[pos + k - 1] - '0');
		if (v > (UINT64_MAX - d) / 10)
			break;
		v = v * 10 + d;
		if ((gi = hl_group_index(grp, v, k)) == -1 ||
		    (rest = hl_match_at(m, g + 1, pos + k)) == -1)
			continue;
		idx = gi * (int64_t)grp->stride + rest;
		if (best == -1 || idx < best)
			best = idx;
	}
	return best;
}

/* hl_match_group, remembered: without it adjacent groups could make the
 * search exponential in their number. */
static int64_t
hl_match_at(struct hl_match *m, size_t g, size_t pos)
{
	int64_t	*slot = &m->memo[g * (m->len + 1) + pos];

	if (*slot == HL_UNKNOWN)
		*slot = hl_match_group(m, g, pos);
	return *slot;
}

/* Index within the item of the first host equal to name[0..len), or -1. */
static int64_t
hl_find_item(const struct hl_item *it, const char *name, size_t len,
    int flags)
{
	struct hl_match	 m;
	int64_t		 r;
	size_t		 i, n;

	m.it = it;
	m.name = name;
	m.len = len;
	m.flags = flags;
	m.memo = NULL;
	if (it->ng == 0)
		return hl_match_group(&m, 0, 0);	/* no recursion */
	/* Parsed names are at most HOSTLIST_NAME_MAX long: this bounds
	 * the table, and most items fail on their first text anyway. */
	i = 0;
	if (len > HOSTLIST_NAME_MAX ||
	    hl_match_lit(&m, it->g[0].lit, it->g[0].litlen, &i) == 0)
		return -1;
	n = (it->ng + 1) * (len + 1);
	m.memo = xreallocarray(NULL, n, sizeof *m.memo);
	for (i = 0; i < n; i++)
		m.memo[i] = HL_UNKNOWN;
	r = hl_match_at(&m, 0, 0);
	free(m.memo);
	return r;
}

int64_t
hostlist_find(const struct hostlist *hl, const char *name, int flags)
{
	size_t	i, len;
	int64_t	r;

	if (flags & HOSTLIST_SHORT)
		len = strcspn(name, ".");
	else
		len = strlen(name);
	for (i = 0; i < hl->n; i++) {
		r = hl_find_item(&hl->items[i], name, len, flags);
		if (r != -1)
			return (int64_t)hl->items[i].first + r;
	}
	return -1;
}

/* A name split for compression: prefix, then a trailing number whose
 * width matters only when it is zero-padded ("n07"). */
struct hl_key {
	const char	*name;
	size_t		 plen;		/* prefix length */
	uint64_t	 num;
	size_t		 width;		/* digits when padded, else 0 */
	int		 hasnum;
};

static void
hl_key(struct hl_key *k, const char *name)
{
	size_t	n = strlen(name), d = n;

	while (d > 0 && isdigit((unsigned char)name[d - 1]))
		d--;
	k->name = name;
	k->plen = d;
	/* Over 18 digits would overflow: such a name stays literal. */
	k->hasnum = d < n && n - d <= 18;
	k->num = 0;
	k->width = 0;
	if (!k->hasnum) {
		k->plen = n;
		return;
	}
	(void)hl_number(name + d, n - d, &k->num);
	if (name[d] == '0' && n - d > 1)
		k->width = n - d;
}

/* Same prefix and same padding: one bracket group can hold both. */
static int
hl_key_joins(const struct hl_key *a, const struct hl_key *b)
{
	return a->hasnum && b->hasnum && a->plen == b->plen &&
	    a->width == b->width && memcmp(a->name, b->name, a->plen) == 0;
}

static int
hl_key_cmp(const void *pa, const void *pb)
{
	const struct hl_key	*a = pa, *b = pb;
	size_t			 n = a->plen < b->plen ? a->plen : b->plen;
	int			 c;

	if ((c = memcmp(a->name, b->name, n)) != 0)
		return c;
	if (a->plen != b->plen)
		return a->plen < b->plen ? -1 : 1;
	if (a->hasnum != b->hasnum)
		return a->hasnum - b->hasnum;
	if (a->width != b->width)
		return a->width < b->width ? -1 : 1;
	if (a->num != b->num)
		return a->num < b->num ? -1 : 1;
	return 0;
}

static void
hl_put_num(struct buf *b, uint64_t v, size_t width)
{
	buf_addf(b, "%0*llu", (int)width, (unsigned long long)v);
}

/* Appends keys [i, j), which join, as "prefix[1-3,5]" or "prefix1". */
static void
hl_compress_run(struct buf *b, const struct hl_key *k, size_t i, size_t j)
{
	size_t	r;

	buf_addn(b, k[i].name, k[i].plen);
	if (j - i == 1) {
		hl_put_num(b, k[i].num, k[i].width);
		return;
	}
	buf_addc(b, '[');
	for (r = i; r < j; r = i) {
		for (i = r + 1; i < j && k[i].num <= k[i - 1].num + 1; i++)
			;
		if (b->s[b->len - 1] != '[')
			buf_addc(b, ',');
		hl_put_num(b, k[r].num, k[r].width);
		if (k[i - 1].num != k[r].num) {
			buf_addc(b, '-');
			hl_put_num(b, k[i - 1].num, k[r].width);
		}
	}
	buf_addc(b, ']');
}

char *
hostlist_compress(const char *const *names, size_t n)
{
	struct hl_key	*k;
	struct buf	 b;
	size_t		 i, j, u;

	buf_init(&b);
	k = xreallocarray(NULL, n ? n : 1, sizeof *k);
	for (i = 0; i < n; i++)
		hl_key(&k[i], names[i]);
	qsort(k, n, sizeof *k, hl_key_cmp);
	/* Duplicates go: a set of nodes to exclude. */
	for (i = u = 0; i < n; i++) {
		if (u == 0 || hl_key_cmp(&k[u - 1], &k[i]) != 0)
			k[u++] = k[i];
	}
	for (i = 0; i < u; i = j) {
		for (j = i + 1; j < u && hl_key_joins(&k[i], &k[j]); j++)
			;
		if (i > 0)
			buf_addc(&b, ',');
		if (!k[i].hasnum)
			buf_adds(&b, k[i].name);
		else
			hl_compress_run(&b, k, i, j);
	}
	free(k);
	return buf_take(&b);
}
