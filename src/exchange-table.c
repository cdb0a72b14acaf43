/* exchange-table.c: the collector's table: one file with every entry,
 * so that each node reads one file, not one per node. */
#include "config.h"

#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exchange.h"
#include "exchange-dir.h"
#include "util.h"
#include "xmalloc.h"

/* Reading every entry on every node is n^2 file reads in all. So the
 * first node to see every node's entry name, which wins the exclusive
 * creation of the collector file, reads the entries and writes them
 * into one file, the table:
 *	ddprank-table 1
 *	ignored 2 entry.x (why), entry.y (why)	(when the collector
 *				 ignored files: every node warns of them)
 *	entry 52		(the length of the entry that follows)
 *	ddprank-exchange 1
 *	...
 *	mac HEX			(with a secret)
 * The mac is the HMAC under the label "ddprank table" of the run's
 * name, a newline and the bytes before it, as for an entry. The other
 * nodes read that one file, checked as an entry is. */

/* -1 when it cannot be signed (b is then freed). */
static int
exchange_format_table(struct exchange_dir_ctx *c, struct buf *b)
{
	struct buf	 e;
	char		*why = NULL;
	size_t		 i;

	buf_init(b);
	buf_adds(b, EXCHANGE_TABLE_MAGIC " " EXCHANGE_FORMAT "\n");
	if (c->nignored > 0)
		buf_addf(b, "ignored %zu %s\n", c->nignored, c->ignored.s);
	for (i = 0; i < c->n; i++) {
		buf_init(&e);
		exchange_format_entry(&e, &c->v[i]);
		buf_addf(b, "entry %zu\n", e.len);
		buf_addn(b, e.s, e.len);
		buf_free(&e);
	}
	if (c->auth != NULL && exchange_sign(b, c->auth, "ddprank table",
	    c->name, &why) == -1) {
		/* Not written: the others read the entries themselves. */
		free(why);
		buf_free(b);
		return -1;
	}
	return 0;
}

/* The collector writes the table, in node order, so that each other
 * node can take it in one pass keeping two entries (a duplicate stays
 * for exchange_order to name). If it cannot, the others read the
 * entries themselves after EXCHANGE_TABLE_WAIT: nothing to say. */
void
exchange_write_table(struct exchange_dir_ctx *c)
{
	struct buf	 b;
	char		*why = NULL;

	if (exchange_order(c->v, c->n, &why) == -1) {
		free(why);
		why = NULL;
	}
	if (exchange_format_table(c, &b) == -1)
		return;
	(void)sdir_write(&c->rundir, EXCHANGE_TABLE, b.s, b.len, NULL, &why);
	free(why);
	buf_free(&b);
}

/* One "entry LEN" line and its entry at *p, within end. */
static int
exchange_table_entry(const char **p, const char *end,
    struct exchange_entry *e, char **why)
{
	const char	*s = *p, *nl;
	char		*num;
	unsigned long	 len;

	if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL ||
	    strncmp(s, "entry ", 6) != 0 || nl - s > 6 + 4)
		return util_fail(why, "bad table: no entry line");
	num = xstrndup(s + 6, (size_t)(nl - s - 6));
	len = strtoul(num, NULL, 10);
	free(num);
	if (len == 0 || len > EXCHANGE_ENTRY_MAX ||
	    len > (size_t)(end - nl - 1))
		return util_fail(why, "bad table: bad entry length");
	if (exchange_parse_entry(nl + 1, len, e, why) == -1)
		return -1;
	*p = nl + 1 + len;
	return 0;
}

/* The "ignored" line at *p, if there is one, into c: printable text
 * only, as the collector made it. */
static int
exchange_table_ignored(struct exchange_dir_ctx *c, const char **p,
    const char *end, char **why)
{
	const char	*s = *p, *nl, *q, *t;
	char		*num;

	if ((size_t)(end - s) < 8 || strncmp(s, "ignored ", 8) != 0)
		return 0;
	if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL ||
	    (q = memchr(s + 8, ' ', (size_t)(nl - s - 8))) == NULL ||
	    q - s > 8 + 20)
		return util_fail(why, "bad table: bad ignored line");
	for (t = q + 1; t < nl; t++) {
		if ((unsigned char)*t < 0x20 || *t == 0x7f)
			return util_fail(why, "bad table: bad ignored line");
	}
	num = xstrndup(s + 8, (size_t)(q - s - 8));
	c->nignored = (size_t)strtoull(num, NULL, 10);
	free(num);
	buf_free(&c->ignored);
	buf_init(&c->ignored);
	buf_addn(&c->ignored, q + 1, (size_t)(nl - q - 1));
	*p = nl + 1;
	return 0;
}

/* The table's MAC, magic and ignored line: *p and *end then hold its
 * entries. */
static int
exchange_table_head(struct exchange_dir_ctx *c, const char *buf, size_t n,
    const char **p, const char **end, char **why)
{
	const char	 magic[] = EXCHANGE_TABLE_MAGIC " " EXCHANGE_FORMAT "\n";

	if (c->auth != NULL && exchange_verify(buf, &n, c->auth,
	    "ddprank table", c->name, why) == -1)
		return -1;
	*end = buf + n;
	if (n < sizeof magic - 1 || memcmp(buf, magic, sizeof magic - 1) != 0)
		return util_fail(why, "not a ddprank table");
	*p = buf + sizeof magic - 1;
	return exchange_table_ignored(c, p, *end, why);
}

/*
 * A node other than node 0 takes a table in node order in one pass,
 * each entry checked to come after the one before it (which rules out
 * a duplicate), keeping the first (the master's) and its own: a
 * thousand nodes then do not each fill and sort a thousand entries.
 * Returns how many entries, -1 and *why for a bad table, -3 for one
 * this does not take (out of order, this node first or absent): the
 * whole parse then says what it is.
 */
static ssize_t
exchange_scan_table(struct exchange_dir_ctx *c, const char *buf, size_t n,
    char **why)
{
	struct exchange_entry	 e, prev, first, self;
	const char		*p, *end;
	char			 k[sizeof c->key];
	size_t			 m = 0, at = 0;
	int			 found = 0;

	if (exchange_table_head(c, buf, n, &p, &end, why) == -1)
		return -1;
	while (p < end) {
		if (m == c->x->nnodes)
			return util_fail(why, "more than %llu entries",
			    (unsigned long long)c->x->nnodes);
		if (exchange_table_entry(&p, end, &e, why) == -1)
			return -1;
		if (m > 0 && exchange_before(&prev, &e) != 1)
			return -3;
		if (m == 0)
			first = e;
		exchange_key(&e, k, sizeof k);
		if (!found && strcmp(k, c->key) == 0) {
			self = e;
			at = m;
			found = 1;
		}
		prev = e;
		m++;
	}
	if (!found || at == 0 || m != c->x->nnodes)
		return -3;
	if (strcmp(self.host, c->x->self.host) != 0 ||
	    strcmp(self.addr, c->x->self.addr) != 0)
		return util_fail(why, "this node's entry differs");
	free(c->v);
	c->v = xcalloc(2, sizeof *c->v);
	c->v[0] = first;
	c->v[1] = self;
	c->n = m;
	c->cap = 2;
	c->self_at = at;
	c->compact = 1;
	return (ssize_t)m;
}

/* The entries of the table in buf, n bytes, into *v (caller frees);
 * returns how many, or -1 and sets *why. */
static ssize_t
exchange_parse_table(struct exchange_dir_ctx *c, const char *buf, size_t n,
    struct exchange_entry **v, char **why)
{
	const char	*p, *end;
	size_t		 m = 0;

	*v = NULL;
	if (exchange_table_head(c, buf, n, &p, &end, why) == -1)
		return -1;
	*v = xcalloc(c->x->nnodes, sizeof **v);
	while (p < end) {
		if (m == c->x->nnodes) {
			util_fail(why, "more than %llu entries",
			    (unsigned long long)c->x->nnodes);
			return -1;
		}
		if (exchange_table_entry(&p, end, &(*v)[m++], why) == -1)
			return -1;
	}
	return (ssize_t)m;
}

/* Bytes in a table of nnodes entries, at most. */
static size_t
exchange_table_max(const struct exchange_dir_ctx *c)
{
	return 64 + (size_t)c->x->nnodes * (EXCHANGE_ENTRY_MAX + 16);
}

/* Reads the table into *buf (caller frees) and sets *ino; returns its
 * length, or -1 and sets *why, -2 when there is none, -3 when it is
 * the one found bad before. */
static ssize_t
exchange_read_table(struct exchange_dir_ctx *c, char **buf, ino_t *ino,
    char **why)
{
	struct stat	st;
	size_t		len;
	int		fd;

	*buf = NULL;
	if ((fd = sdir_open_file(&c->rundir, EXCHANGE_TABLE, &st, why)) < 0)
		return fd;
	*ino = st.st_ino;
	if (st.st_ino == c->table_bad) {
		close(fd);
		return -3;
	}
	if (exchange_is_stale(c, &st)) {
		close(fd);
		return util_fail(why, "stale");
	}
	if ((size_t)st.st_size > exchange_table_max(c)) {
		close(fd);
		return util_fail(why, "larger than %zu bytes",
		    exchange_table_max(c));
	}
	len = (size_t)st.st_size + 1;
	*buf = xmalloc(len);
	return sdir_read_fd(fd, *buf, len, &st, why);
}

/* Whether v, n entries, is the whole table, and holds this node's entry
 * as it wrote it: 0, or -1 and sets *why. */
static int
exchange_table_ok(struct exchange_dir_ctx *c, struct exchange_entry *v,
    size_t n, char **why)
{
	char	k[sizeof c->key];
	size_t	i;

	if (n != c->x->nnodes)
		return util_fail(why, "%zu entries, not %llu", n,
		    (unsigned long long)c->x->nnodes);
	for (i = 0; i < n; i++) {
		exchange_key(&v[i], k, sizeof k);
		if (strcmp(k, c->key) != 0)
			continue;
		if (strcmp(v[i].host, c->x->self.host) != 0 ||
		    strcmp(v[i].addr, c->x->self.addr) != 0)
			return util_fail(why, "this node's entry differs");
		return 0;
	}
	return util_fail(why, "without this node's entry");
}

/* Takes the entries from the table, if it is there and is not the one
 * found bad before. Returns 1 when it did; a bad table is noted (and
 * said with the ignored files) and not read again. */
int
exchange_use_table(struct exchange_dir_ctx *c)
{
	struct exchange_entry	*v = NULL;
	char			*buf, *why = NULL;
	ino_t			 ino = 0;
	ssize_t			 n;

	if ((n = exchange_read_table(c, &buf, &ino, &why)) == -3) {
		free(buf);
		return 0;
	}
	if (n >= 0) {
		if (exchange_scan_table(c, buf, (size_t)n, &why) >= 0) {
			free(buf);
			return 1;
		}
		/* The whole parse says what is wrong, if anything. */
		free(why);
		why = NULL;
		n = exchange_parse_table(c, buf, (size_t)n, &v, &why);
	}
	free(buf);
	if (n == -2 || n == -3)
		return 0;
	if (n >= 0 && exchange_table_ok(c, v, (size_t)n, &why) == 0) {
		free(c->v);
		c->v = v;
		c->n = c->cap = (size_t)n;
		return 1;
	}
	free(v);
	c->table_bad = ino;
	free(c->table_why);
	c->table_why = why;
	return 0;
}

/* 1 when this node is to read the entries itself: it is the collector,
 * or becomes it, or has waited long enough for the table. */
int
exchange_reads_entries(struct exchange_dir_ctx *c, double waited)
{
	if (c->collector)
		return 1;
	if (sdir_create(&c->rundir, EXCHANGE_COLLECTOR) == 1) {
		c->collector = 1;
		return 1;
	}
	return waited >= EXCHANGE_TABLE_WAIT || c->table_bad != 0;
}

