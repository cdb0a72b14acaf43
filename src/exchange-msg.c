/* exchange-msg.c: what the directory exchange says when it gives up:
 * who arrived, who is missing, which files it ignored. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "exchange.h"
#include "exchange-dir.h"
#include "fault.h"
#include "util.h"
#include "xmalloc.h"

void
exchange_describe(struct buf *b, const struct exchange_entry *e)
{
	if (e->task >= 0)
		buf_addf(b, "task %lld ", (long long)e->task);
	buf_addf(b, "%s (%s)", e->host, e->addr);
}

static int
exchange_cmp_int64(const void *a, const void *b)
{
	const int64_t	*x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* The distinct task ids of the nnodes from task_base among the
 * entries, sorted into v (caller frees); returns how many. */
static size_t
exchange_tasks(const struct exchange_dir_ctx *c, int64_t **v)
{
	int64_t	base = c->x->task_base;
	size_t	i, n = 0, m = 0;

	*v = xcalloc(c->n, sizeof **v);
	for (i = 0; i < c->n; i++) {
		if (c->v[i].task >= base &&
		    (uint64_t)(c->v[i].task - base) < c->x->nnodes)
			(*v)[n++] = c->v[i].task;
	}
	qsort(*v, n, sizeof **v, exchange_cmp_int64);
	for (i = 0; i < n; i++) {
		if (m == 0 || (*v)[i] != (*v)[m - 1])
			(*v)[m++] = (*v)[i];
	}
	return m;
}

/* "missing task ids 2, 4" when the entries have task ids, numbered from
 * task_base as the scheduler numbers the tasks of a job from ddpgen
 * (HPC Pack's 1 to nnodes). With
 * nnodes up to HOSTLIST_MAX_HOSTS, only the ids listed are looked for:
 * the others are counted from the ids present. */
static void
exchange_missing(struct buf *b, const struct exchange_dir_ctx *c)
{
	uint64_t	 shown = 0, absent, missing = c->x->nnodes - c->n;
	int64_t		*task, t, base = c->x->task_base;
	size_t		 i = 0, n;

	if (c->x->self.task < 0) {
		buf_addf(b, "%llu missing (no task ids to name them)",
		    (unsigned long long)missing);
		return;
	}
	n = exchange_tasks(c, &task);
	absent = c->x->nnodes - n;
	buf_adds(b, "missing task ids");
	for (t = base; shown < absent && shown < EXCHANGE_LIST_MAX; t++) {
		if (i < n && task[i] == t)
			i++;
		else
			buf_addf(b, "%s %lld", shown++ == 0 ? "" : ",",
			    (long long)t);
	}
	free(task);
	if (absent > EXCHANGE_LIST_MAX)
		buf_addf(b, " and %llu more", (unsigned long long)(absent -
		    EXCHANGE_LIST_MAX));
	if (absent != missing)
		buf_addf(b, "%s (task ids are not %lld to %lld)",
		    absent == 0 ? " unknown" : "", (long long)base,
		    (long long)(base + (int64_t)c->x->nnodes - 1));
}

static void
exchange_arrived(struct buf *b, const struct exchange_dir_ctx *c)
{
	size_t	i;

	buf_adds(b, "arrived:");
	for (i = 0; i < c->n && i < EXCHANGE_LIST_MAX; i++) {
		buf_adds(b, i == 0 ? " " : ", ");
		exchange_describe(b, &c->v[i]);
	}
	if (c->n > EXCHANGE_LIST_MAX)
		buf_addf(b, " and %zu more", c->n - EXCHANGE_LIST_MAX);
}

/* Opens a message that goes on to list the entries: "exchange in RUN",
 * the entries put in node order first. A duplicate exchange_order finds
 * is not what such a message is about. */
static void
exchange_msg_start(struct exchange_dir_ctx *c, struct buf *b)
{
	char	*ignore;

	if (exchange_order(c->v, c->n, &ignore) == -1)
		free(ignore);
	buf_init(b);
	buf_addf(b, "exchange in %s", c->run);
}

/* "SEP ignored 2 files: entry.x (why), ..." for a message. */
void
exchange_said_ignored(struct buf *b, const struct exchange_dir_ctx *c,
    const char *sep)
{
	if (c->nignored == 0)
		return;
	buf_addf(b, "%s ignored %zu file%s: %s", sep, c->nignored,
	    c->nignored == 1 ? "" : "s", c->ignored.s);
	if (c->nignored > EXCHANGE_LIST_MAX)
		buf_addf(b, " and %zu more", c->nignored - EXCHANGE_LIST_MAX);
}

enum fault
exchange_timed_out(struct exchange_dir_ctx *c, char **cause)
{
	struct buf	b;

	exchange_msg_start(c, &b);
	buf_addf(&b, " timed out after %d s: %zu of %llu nodes arrived; ",
	    c->o->timeout, c->n, (unsigned long long)c->x->nnodes);
	exchange_missing(&b, c);
	buf_adds(&b, "; ");
	exchange_arrived(&b, c);
	if (c->stale > 0)
		buf_addf(&b, "; ignored %zu stale entr%s", c->stale,
		    c->stale == 1 ? "y" : "ies");
	exchange_said_ignored(&b, c, ";");
	*cause = b.s;
	return FAULT_EXCHANGE;
}

enum fault
exchange_too_many(struct exchange_dir_ctx *c, char **cause)
{
	struct buf	b;

	exchange_msg_start(c, &b);
	buf_addf(&b, ": %zu nodes registered, more than --nnodes %llu; ",
	    c->n, (unsigned long long)c->x->nnodes);
	exchange_arrived(&b, c);
	*cause = b.s;
	return FAULT_EXCHANGE;
}

