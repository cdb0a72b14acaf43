/* exchange-clean.c: read markers, and node 0's removal of the run
 * directory once every node has read it (and of earlier runs'). */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "exchange.h"
#include "exchange-dir.h"
#include "fault.h"
#include "util.h"
#include "xmalloc.h"

/* A read marker: empty, or with a MAC of the run and the node's key
 * when authenticated, so that no one else can hurry node 0's cleanup.
 * -1 when the MAC cannot be computed (b is empty then). */
static int
exchange_format_read(struct exchange_dir_ctx *c, const char *key,
    struct buf *b)
{
	char	hex[AUTH_HEX_LEN + 1], *msg;
	int	rc;

	buf_init(b);
	if (c->auth == NULL)
		return 0;
	xasprintf(&msg, "%s\n%s", c->name, key);
	rc = auth_mac_hex(c->auth, "ddprank read", msg, strlen(msg), hex);
	free(msg);
	if (rc == 0)
		buf_addf(b, "mac %s\n", hex);
	return rc;
}

enum fault
exchange_mark_read(struct exchange_dir_ctx *c, char **cause)
{
	struct buf	 b;
	char		*name;
	int		 rc;

	if (exchange_format_read(c, c->key, &b) == -1) {
		buf_free(&b);
		util_fail(cause, "exchange in %s: cannot sign the read "
		    "marker: HMAC-SHA256 failed", c->run);
		return FAULT_EXCHANGE;
	}
	xasprintf(&name, EXCHANGE_READ "%s", c->key);
	/* Node 0 takes a marker it cannot check as not yet written. */
	if ((rc = sdir_write_new(&c->rundir, name, b.s, b.len, NULL,
	    cause)) == -2)
		rc = sdir_write(&c->rundir, name, b.s, b.len, NULL, cause);
	free(name);
	buf_free(&b);
	return rc == -1 ? FAULT_EXCHANGE : FAULT_NONE;
}

/* 1 when the node of key has said it read the directory. */
static int
exchange_has_read(struct exchange_dir_ctx *c, const char *key)
{
	struct stat	 st;
	struct buf	 want;
	char		 buf[AUTH_HEX_LEN + 8], *name, *why = NULL;
	ssize_t		 n;
	int		 ok;

	xasprintf(&name, EXCHANGE_READ "%s", key);
	n = sdir_read(&c->rundir, name, buf, sizeof buf, &st, &why);
	free(name);
	free(why);
	if (n < 0 || exchange_is_stale(c, &st))
		return 0;
	/* A marker that cannot be checked was not read. */
	ok = exchange_format_read(c, key, &want) == 0 &&
	    (size_t)n == want.len && memcmp(buf, want.s, want.len) == 0;
	buf_free(&want);
	return ok;
}

/* The nodes that have not yet said they read the directory, as a list
 * for a message; NULL when there are none. */
static char *
exchange_unread(struct exchange_dir_ctx *c)
{
	struct buf	 b;
	char		 k[sizeof c->key];
	size_t		 i, missing = 0;

	buf_init(&b);
	if (c->confirmed == NULL)
		c->confirmed = xcalloc(c->n, 1);
	for (i = 0; i < c->n; i++) {
		if (c->confirmed[i])
			continue;
		exchange_key(&c->v[i], k, sizeof k);
		if (exchange_has_read(c, k))
			c->confirmed[i] = 1;
		else {
			if (missing++ < EXCHANGE_LIST_MAX) {
				buf_adds(&b, missing == 1 ? "" : ", ");
				exchange_describe(&b, &c->v[i]);
			}
		}
	}
	if (missing > EXCHANGE_LIST_MAX)
		buf_addf(&b, " and %zu more", missing - EXCHANGE_LIST_MAX);
	if (missing == 0) {
		buf_free(&b);
		return NULL;
	}
	return b.s;
}

/* A name ddprank writes in a run directory: an entry, a read marker,
 * the table, the temporary file of any of these, or the collector's
 * mark. */
static int
exchange_ours(const char *name)
{
	return strncmp(name, EXCHANGE_ENTRY, strlen(EXCHANGE_ENTRY)) == 0 ||
	    strncmp(name, EXCHANGE_READ, strlen(EXCHANGE_READ)) == 0 ||
	    strncmp(name, EXCHANGE_TABLE, strlen(EXCHANGE_TABLE)) == 0 ||
	    strcmp(name, EXCHANGE_COLLECTOR) == 0;
}

/* The directories of earlier runs of this job, left by a run that
 * failed before its node 0 could clean up: the scheduler reran the job,
 * so nothing uses them any more. Their names are computed, as this
 * run's is, not looked for: nothing else in the base is touched. */
static void
exchange_rm_earlier(struct exchange_dir_ctx *c)
{
	char	*name;
	int64_t	 r;

	for (r = c->x->retry - 1; r >= 0 && r >= c->x->retry -
	    EXCHANGE_RETRY_CLEAN; r--) {
		if ((name = exchange_run_name(c->auth, c->x->jobid,
		    r)) == NULL)
			return;
		(void)sdir_remove(&c->base, name, exchange_ours);
		free(name);
	}
}

/* Node 0 removes the run directory once every node has read it, waiting
 * a bounded time: a node that crashed after registering never confirms,
 * and then the directory stays, with a warning. The earlier runs' go
 * first, whatever the wait brings: every node is in this run, so none
 * reads them, and node 0 may be killed while it waits. */
void
exchange_cleanup(struct exchange_dir_ctx *c, struct buf *warn)
{
	double	 start = c->clock->now(c->clock->arg), poll = EXCHANGE_POLL_MIN;
	double	 limit = c->o->timeout < EXCHANGE_CLEANUP_WAIT ?
		    c->o->timeout : EXCHANGE_CLEANUP_WAIT;
	char	*unread;

	exchange_rm_earlier(c);
	while ((unread = exchange_unread(c)) != NULL) {
		if (c->clock->now(c->clock->arg) - start >= limit) {
			buf_addf(warn, "%sexchange: leaving %s in place: no "
			    "confirmation after %.0f s that %s read it",
			    warn->len > 0 ? "; " : "", c->run, limit, unread);
			free(unread);
			return;
		}
		free(unread);
		exchange_pause(c, &poll);
	}
	if (sdir_remove(&c->base, c->name, exchange_ours) == -1)
		buf_addf(warn, "%sexchange: cannot remove %s: %s",
		    warn->len > 0 ? "; " : "", c->run, strerror(errno));
}

