/* exchange-dir.c: the exchange through a shared directory (ddprank(1),
 * "The directory exchange"), in sdir.c's StrictModes directories:
 * entries written whole and read checked, and a poll that lists names
 * and reads nothing. */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "exchange.h"
#include "exchange-dir.h"
#include "fault.h"
#include "scheduler.h"
#include "util.h"
#include "xmalloc.h"

static double
exchange_real_now(void *arg)
{
	struct timespec	ts;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
exchange_real_sleep(void *arg, double seconds)
{
	struct timespec	ts;

	(void)arg;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

const struct exchange_clock exchange_clock_real = {
	exchange_real_now, exchange_real_sleep, NULL
};

/* The base directory: sdir.c's StrictModes checks. A missing one is
 * made private to this user: a base several users share is for an
 * administrator to make (root, mode 1777). */
static int
exchange_open_base(struct exchange_dir_ctx *c, char **cause)
{
	return sdir_open_base(&c->base, c->o->dir, "exchange directory",
	    c->o->noowners, c->auth != NULL, cause);
}

/* The run directory: made by this node, or by another node of this job
 * (the same user), and then owned by this user and writable by no one
 * else. Anything else was made by someone else: the exchange fails
 * rather than read what they may plant in it. */
static int
exchange_open_run(struct exchange_dir_ctx *c, char **cause)
{
	return sdir_open_run(&c->rundir, &c->base, c->name,
	    "exchange directory", cause);
}

static enum fault
exchange_publish(struct exchange_dir_ctx *c, char **cause)
{
	struct stat	 st;
	struct buf	 b;
	char		*name;
	int		 rc;

	buf_init(&b);
	exchange_format_entry(&b, &c->x->self);
	if (c->auth != NULL && exchange_sign_entry(&b, c->auth, c->name,
	    cause) == -1) {
		buf_free(&b);
		return FAULT_EXCHANGE;
	}
	xasprintf(&name, EXCHANGE_ENTRY "%s", c->key);
	/* Written once, in place: a reader takes an entry that does not
	 * parse or check as not yet written. One of an earlier try of
	 * this run is replaced whole. */
	if ((rc = sdir_write_new(&c->rundir, name, b.s, b.len, &st,
	    cause)) == -2)
		rc = sdir_write(&c->rundir, name, b.s, b.len, &st, cause);
	if (rc == 0)
		c->mtime = exchange_mtime(&st);
	free(name);
	buf_free(&b);
	return rc == -1 ? FAULT_EXCHANGE : FAULT_NONE;
}

/* The key of an entry or marker file name, or NULL for anything else:
 * the temporary files a writer renames have a dot after the key. */
static const char *
exchange_name_key(const char *name, const char *prefix)
{
	size_t	n = strlen(prefix);

	if (strncmp(name, prefix, n) != 0 || name[n] == '\0' ||
	    strchr(name + n, '.') != NULL)
		return NULL;
	return name + n;
}

static void
exchange_push(struct exchange_dir_ctx *c, const struct exchange_entry *e)
{
	if (c->n == c->cap) {
		c->cap = c->cap == 0 ? 16 : c->cap * 2;
		c->v = xreallocarray(c->v, c->cap, sizeof *c->v);
	}
	c->v[c->n++] = *e;
}

/* Notes a file of the run directory that is not used, and why: it is
 * said once, in a warning or in the failure's message, and does not
 * fail the exchange, so that no one can stop a job by planting a
 * file. */
static void
exchange_ignore(struct exchange_dir_ctx *c, const char *name,
    const char *why)
{
	if (c->nignored++ < EXCHANGE_LIST_MAX) {
		buf_adds(&c->ignored, c->nignored == 1 ? "" : ", ");
		buf_addf(&c->ignored, "%s (", name);
		util_addvis(&c->ignored, why, strlen(why));
		buf_adds(&c->ignored, ")");
	}
}

/* The entry in buf, n bytes, checked: its MAC when authenticated, its
 * format, and that it says what its name says. */
static int
exchange_check(struct exchange_dir_ctx *c, const char *key, char *buf,
    size_t n, struct exchange_entry *e, char **why)
{
	char	k[sizeof c->key];

	if (n > EXCHANGE_ENTRY_MAX)
		return util_fail(why, "larger than %d bytes",
		    EXCHANGE_ENTRY_MAX);
	if (c->auth != NULL && exchange_verify_entry(buf, &n, c->auth,
	    c->name, why) == -1)
		return -1;
	if (exchange_parse_entry(buf, n, e, why) == -1)
		return -1;
	exchange_key(e, k, sizeof k);
	if (strcmp(k, key) != 0)
		return util_fail(why, "its name does not match its contents "
		    "(%s)", k);
	return 0;
}

/* Reads one entry file into f. A file that cannot be used is kept as
 * such, with why; one that vanished stays unread, and is read if its
 * name comes back. */
static void
exchange_load(struct exchange_dir_ctx *c, struct exchange_file *f)
{
	struct stat	 st;
	char		 buf[EXCHANGE_ENTRY_MAX + 1];
	const char	*key = f->name + strlen(EXCHANGE_ENTRY);
	ssize_t		 n;

	if ((n = sdir_read(&c->rundir, f->name, buf, sizeof buf, &st,
	    &f->why)) == -2)
		return;
	if (n == -1)
		f->state = EXCHANGE_BAD;
	else if (exchange_is_stale(c, &st))
		f->state = EXCHANGE_STALE;
	else if (exchange_check(c, key, buf, (size_t)n, &f->e, &f->why) == -1)
		f->state = EXCHANGE_BAD;
	else
		f->state = EXCHANGE_GOOD;
}

static int
exchange_cmp_file(const void *a, const void *b)
{
	const struct exchange_file	*x = a, *y = b;

	return strcmp(x->name, y->name);
}

static struct exchange_file *
exchange_file_find(struct exchange_dir_ctx *c, const char *name)
{
	struct exchange_file	key;

	if (c->nsorted == 0)
		return NULL;
	key.name = (char *)(uintptr_t)name;
	return bsearch(&key, c->f, c->nsorted, sizeof *c->f,
	    exchange_cmp_file);
}

static void
exchange_file_reset(struct exchange_file *f, ino_t ino)
{
	free(f->why);
	f->why = NULL;
	f->ino = ino;
	f->state = EXCHANGE_UNREAD;
}

/* Sorts the names a listing added among the others. A name it returned
 * twice (a directory changing while it is read may do that) is kept
 * once. */
static void
exchange_sort_files(struct exchange_dir_ctx *c)
{
	size_t	i, m = 0;

	qsort(c->f, c->nf, sizeof *c->f, exchange_cmp_file);
	for (i = 0; i < c->nf; i++) {
		if (m > 0 && strcmp(c->f[i].name, c->f[m - 1].name) == 0) {
			free(c->f[i].name);
			free(c->f[i].why);
			continue;
		}
		c->f[m++] = c->f[i];
	}
	c->nf = c->nsorted = m;
}

/* Notes one name of a listing: a new name, or an old one that is now
 * another file, is to be read. New names go after the sorted ones;
 * returns 1 for one. */
static int
exchange_note(struct exchange_dir_ctx *c, const struct dirent *d)
{
	struct exchange_file	*f;

	if ((f = exchange_file_find(c, d->d_name)) != NULL) {
		if (f->ino != d->d_ino)
			exchange_file_reset(f, d->d_ino);
		f->gen = c->gen;
		return 0;
	}
	if (c->nf == c->fcap) {
		c->fcap = c->fcap == 0 ? 16 : c->fcap * 2;
		c->f = xreallocarray(c->f, c->fcap, sizeof *c->f);
	}
	f = &c->f[c->nf++];
	memset(f, 0, sizeof *f);
	f->name = xstrdup(d->d_name);
	exchange_file_reset(f, d->d_ino);
	f->gen = c->gen;
	return 1;
}

/* Lists the entry names of the run directory, one readdir, reading
 * nothing: c->listed says how many there are, c->table whether the
 * table is there. */
static int
exchange_list(struct exchange_dir_ctx *c, char **cause)
{
	struct dirent	*d;
	DIR		*dir;
	size_t		 i;
	int		 added = 0;

	if ((dir = sdir_opendir(c->rundir.fd)) == NULL) {
		util_fail(cause, "exchange directory %s: %s", c->run,
		    strerror(errno));
		return -1;
	}
	c->gen++;
	c->table = 0;
	while ((d = readdir(dir)) != NULL) {
		if (exchange_name_key(d->d_name, EXCHANGE_ENTRY) != NULL)
			added |= exchange_note(c, d);
		else if (strcmp(d->d_name, EXCHANGE_TABLE) == 0)
			c->table = d->d_ino;
	}
	closedir(dir);
	if (added)
		exchange_sort_files(c);
	for (c->listed = 0, i = 0; i < c->nf; i++)
		c->listed += c->f[i].gen == c->gen;
	return 0;
}

/* 1 when this node's entry file was in the last listing. */
static int
exchange_listed_self(struct exchange_dir_ctx *c)
{
	struct exchange_file	*f;
	char			 name[sizeof EXCHANGE_ENTRY + sizeof c->key];

	snprintf(name, sizeof name, EXCHANGE_ENTRY "%s", c->key);
	f = exchange_file_find(c, name);
	return f != NULL && f->gen == c->gen;
}

/* The entries of the last listing into c->v, reading only the files not
 * read before. */
static void
exchange_load_listed(struct exchange_dir_ctx *c)
{
	struct exchange_file	*f;
	size_t			 i;

	c->n = 0;
	c->stale = 0;
	c->nignored = 0;
	buf_free(&c->ignored);
	buf_init(&c->ignored);
	for (i = 0; i < c->nf; i++) {
		f = &c->f[i];
		if (f->gen != c->gen)
			continue;
		if (f->state != EXCHANGE_GOOD) {
			exchange_file_reset(f, f->ino);
			exchange_load(c, f);
		}
		if (f->state == EXCHANGE_GOOD)
			exchange_push(c, &f->e);
		else if (f->state == EXCHANGE_STALE)
			c->stale++;
		else if (f->state == EXCHANGE_BAD)
			exchange_ignore(c, f->name, f->why);
	}
	if (c->table_why != NULL)
		exchange_ignore(c, EXCHANGE_TABLE, c->table_why);
}

static void
exchange_files_free(struct exchange_dir_ctx *c)
{
	size_t	i;

	for (i = 0; i < c->nf; i++) {
		free(c->f[i].name);
		free(c->f[i].why);
	}
	free(c->f);
}

static const struct exchange_entry *
exchange_find(const struct exchange_dir_ctx *c, const char *key)
{
	char	k[sizeof c->key];
	size_t	i;

	for (i = 0; i < c->n; i++) {
		exchange_key(&c->v[i], k, sizeof k);
		if (strcmp(k, key) == 0)
			return &c->v[i];
	}
	return NULL;
}

/* The longest pause of a poll that opens one file: nnodes of them make
 * at most EXCHANGE_LOOKUPS a second. */
static double
exchange_poll_lookup(const struct exchange_dir_ctx *c)
{
	double	max = (double)c->x->nnodes / EXCHANGE_LOOKUPS;

	if (max < 2 * EXCHANGE_POLL_MIN)
		return 2 * EXCHANGE_POLL_MIN;
	return max > EXCHANGE_POLL_MAX ? EXCHANGE_POLL_MAX : max;
}

/* A node with a task id other than the first waits for the table that
 * the first task's node collects, opening it alone at each poll: no
 * listing of a directory of n entries by n nodes. Returns 1 when it has
 * the table; 0 to go on as a node without a task id does (list, read
 * the entries itself if it must, say what is missing at the timeout):
 * the timeout has come, the table was bad, or no node has become the
 * collector within EXCHANGE_TABLE_WAIT (the job has no task 1). */
static int
exchange_await_table(struct exchange_dir_ctx *c, double start)
{
	double	poll = EXCHANGE_POLL_MIN, waited;

	if (c->x->self.task < 0 || c->x->self.task == EXCHANGE_FIRST_TASK)
		return 0;
	c->poll_max = exchange_poll_lookup(c);
	for (;;) {
		if (exchange_use_table(c))
			return 1;
		waited = c->clock->now(c->clock->arg) - start;
		if (waited >= c->o->timeout || c->table_bad != 0 ||
		    (waited >= EXCHANGE_TABLE_WAIT &&
		    !sdir_exists(&c->rundir, EXCHANGE_COLLECTOR)))
			break;
		exchange_pause(c, &poll);
	}
	c->poll_max = EXCHANGE_POLL_MAX;
	return 0;
}

static enum fault
exchange_vanished(struct exchange_dir_ctx *c, char **cause)
{
	util_fail(cause, "exchange in %s: this node's entry %s%s has vanished",
	    c->run, EXCHANGE_ENTRY, c->key);
	return FAULT_EXCHANGE;
}

/* Polls the run directory until nnodes entries are there. Until every
 * node's entry name is there, a poll lists the names and reads nothing.
 * Then one node, the collector, reads the entries and writes the table,
 * and the others poll for the table alone, one open each, and read it.
 * A node reads each file at most once, and no poll costs more than one
 * directory read. Where nodes have task ids, only the first task's node
 * lists: the others poll for the table from the start. */
static enum fault
exchange_gather(struct exchange_dir_ctx *c, char **cause)
{
	double	start = c->clock->now(c->clock->arg), poll = EXCHANGE_POLL_MIN;
	double	all = -1, t;
	int	late, reads;

	if (exchange_await_table(c, start))
		return FAULT_NONE;
	for (;;) {
		t = c->clock->now(c->clock->arg);
		late = t - start >= c->o->timeout;
		reads = all >= 0 && exchange_reads_entries(c, t - all);
		if (all < 0 || reads || late) {
			if (exchange_list(c, cause) == -1)
				return FAULT_EXCHANGE;
			if (!exchange_listed_self(c))
				return exchange_vanished(c, cause);
		}
		/* The table comes soon after the last name: poll fast. */
		if (all < 0 && c->listed >= c->x->nnodes) {
			all = t;
			poll = EXCHANGE_POLL_MIN;
			reads = exchange_reads_entries(c, 0);
		}
		if ((all >= 0 || c->table != 0) && exchange_use_table(c))
			return FAULT_NONE;
		if (late || reads) {
			exchange_load_listed(c);
			if (exchange_find(c, c->key) == NULL)
				return exchange_vanished(c, cause);
			if (c->n == c->x->nnodes) {
				if (c->collector)
					exchange_write_table(c);
				return FAULT_NONE;
			}
			if (c->n > c->x->nnodes)
				return exchange_too_many(c, cause);
		}
		if (late)
			return exchange_timed_out(c, cause);
		exchange_pause(c, &poll);
	}
}

/* This node has read the run: its marker, what was ignored, and node
 * 0's cleanup. */
static enum fault
exchange_finish(struct exchange_dir_ctx *c, struct exchange_result *r,
    char **cause)
{
	struct buf	warn;
	enum fault	xc;

	if ((xc = exchange_mark_read(c, cause)) != FAULT_NONE)
		return xc;
	buf_init(&warn);
	if (c->nignored > 0) {
		buf_addf(&warn, "exchange in %s", c->run);
		exchange_said_ignored(&warn, c, ":");
	}
	if (r->node_rank == 0)
		exchange_cleanup(c, &warn);
	if (warn.len > 0)
		r->warning = buf_take(&warn);
	buf_free(&warn);
	return FAULT_NONE;
}

static enum fault
exchange_dir_run(struct exchange_dir_ctx *c, struct exchange_result *r,
    char **cause)
{
	const struct exchange_entry	*self;
	char				 key[sizeof c->key], *why;
	enum fault			 xc;

	if (exchange_open_base(c, cause) == -1 ||
	    exchange_open_run(c, cause) == -1)
		return FAULT_EXCHANGE;
	/* The first task's node collects from the start, and says so
	 * before its entry is there: it lists, alone, as fast as the
	 * others poll for the table. */
	if (c->x->self.task == EXCHANGE_FIRST_TASK &&
	    sdir_create(&c->rundir, EXCHANGE_COLLECTOR) == 1) {
		c->collector = 1;
		c->poll_max = exchange_poll_lookup(c);
	}
	if ((xc = exchange_publish(c, cause)) != FAULT_NONE ||
	    (xc = exchange_gather(c, cause)) != FAULT_NONE)
		return xc;
	if (c->compact) {
		r->node_rank = c->self_at;
		r->nnodes = c->n;
		r->master_addr = xstrdup(c->v[0].addr);
		return exchange_finish(c, r, cause);
	}
	if (exchange_order(c->v, c->n, &why) == -1) {
		util_fail(cause, "exchange in %s: %s", c->run, why);
		free(why);
		return FAULT_EXCHANGE;
	}
	for (r->node_rank = 0; r->node_rank < c->n; r->node_rank++) {
		self = &c->v[r->node_rank];
		exchange_key(self, key, sizeof key);
		if (strcmp(key, c->key) == 0)
			break;
	}
	r->nnodes = c->n;
	r->master_addr = xstrdup(c->v[0].addr);
	return exchange_finish(c, r, cause);
}

enum fault
exchange_dir(struct exchange_result *r, const struct exchange_opts *o,
    const struct exchange_node *x, char **cause)
{
	struct exchange_dir_ctx	 c;
	char			*vars;
	enum fault		 xc;

	memset(r, 0, sizeof *r);
	if (x->nnodes == 0) {
		util_fail(cause, "--exchange dir: needs --nnodes N, the number "
		    "of nodes to wait for");
		return FAULT_USAGE;
	}
	if (x->jobid == NULL) {
		/* The numbered tasks' scheduler first: it is what this
		 * exchange is for. */
		vars = sched_job_vars_text(SCHED_AUTO,
		    sched_numbered(SCHED_AUTO));
		util_fail(cause, "--exchange dir: needs a job id to name its "
		    "directory, and none is set (%s)", vars);
		free(vars);
		return FAULT_EXCHANGE;
	}
	memset(&c, 0, sizeof c);
	c.o = o;
	c.x = x;
	c.clock = o->clock != NULL ? o->clock : &exchange_clock_real;
	c.auth = o->auth != NULL && o->auth->len > 0 ? o->auth : NULL;
	c.poll_max = EXCHANGE_POLL_MAX;
	sdir_init(&c.base, geteuid());
	sdir_init(&c.rundir, geteuid());
	buf_init(&c.ignored);
	exchange_key(&x->self, c.key, sizeof c.key);
	if ((c.name = exchange_run_name(c.auth, x->jobid, x->retry)) == NULL) {
		util_fail(cause, "--exchange dir: cannot name the run "
		    "directory: HMAC-SHA256 failed");
		xc = FAULT_EXCHANGE;
	} else {
		xasprintf(&c.run, "%s/%s", o->dir, c.name);
		xc = exchange_dir_run(&c, r, cause);
	}
	sdir_close(&c.rundir);
	sdir_close(&c.base);
	buf_free(&c.ignored);
	exchange_files_free(&c);
	free(c.confirmed);
	free(c.table_why);
	free(c.v);
	free(c.name);
	free(c.run);
	return xc;
}
