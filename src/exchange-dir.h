/* exchange-dir.h: what the files of the directory exchange share, and
 * nothing else includes: exchange-dir.c (the directory, its files, the
 * poll), exchange-table.c (the collector's table), exchange-msg.c (what
 * a timeout or too many nodes say) and exchange-clean.c (read markers,
 * node 0's cleanup). */
#ifndef DDPGEN_EXCHANGE_DIR_H
#define DDPGEN_EXCHANGE_DIR_H

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>

#include "exchange.h"
#include "sdir.h"
#include "util.h"

#define EXCHANGE_ENTRY		"entry."
#define EXCHANGE_READ		"read."
#define EXCHANGE_TABLE		"table"
#define EXCHANGE_TABLE_MAGIC	"ddprank-table"
#define EXCHANGE_COLLECTOR	"collector"
/* How long a node that sees every node's entry name waits for the
 * table before it reads the entries itself: the collector is slow or
 * dead, or the names include files that are not entries. */
#define EXCHANGE_TABLE_WAIT	5.0
/* Polling starts fast, for nodes that start together, and slows down so
 * that a long wait does not flood a file server with directory reads. */
#define EXCHANGE_POLL_MIN	0.05
#define EXCHANGE_POLL_MAX	1.0
/* A poll that opens one file (the nodes waiting for the table, the
 * collector's listing) slows down only so far that all the nodes
 * together open at most this many a second: the table comes within a
 * quarter of a second of the last entry at 1,024 nodes, and a file
 * server gets no more than these lookups however many there are. */
#define EXCHANGE_LOOKUPS	4000.0
/* The task whose node collects the entries into the table, where nodes
 * have task ids (HPC Pack numbers a job's tasks from 1): the others
 * never list the directory, and wait for the table alone. */
#define EXCHANGE_FIRST_TASK	1
/* Entries and names listed in a message, at most. */
#define EXCHANGE_LIST_MAX	16
/* Earlier runs whose directories node 0 removes, at most. */
#define EXCHANGE_RETRY_CLEAN	64
/* An entry file of the run directory. A good entry is read once: a name
 * seen again with the same inode number is the same file, since ddprank
 * only ever renames entries into place. One that was not good is read
 * again at each poll that reads, as before, in case it was rewritten
 * in place: there are few of those, not one per node. */
enum exchange_state {
	EXCHANGE_UNREAD,
	EXCHANGE_GOOD,
	EXCHANGE_STALE,
	EXCHANGE_BAD
};

struct exchange_file {
	char			*name;
	ino_t			 ino;
	unsigned int		 gen;	/* of the last listing it was in */
	enum exchange_state	 state;
	struct exchange_entry	 e;	/* EXCHANGE_GOOD */
	char			*why;	/* EXCHANGE_BAD */
};

/* One exchange in progress. Everything in the run directory goes
 * through base and rundir, opened and checked by sdir.c. */
struct exchange_dir_ctx {
	const struct exchange_opts	*o;
	const struct exchange_node	*x;
	const struct exchange_clock	*clock;
	const struct auth		*auth;	 /* NULL: not authenticated */
	struct sdir			 base, rundir;
	char				*name;	 /* the run directory's */
	char				*run;	 /* o->dir/name, for messages */
	char				 key[EXCHANGE_HOST_MAX + 2];
	double				 mtime;	 /* of this node's entry */
	struct exchange_file		*f;	 /* every entry name seen */
	size_t				 nf, fcap;
	size_t				 nsorted; /* f[0..nsorted): by name */
	size_t				 listed; /* names of the last listing */
	unsigned int			 gen;	 /* of the last listing */
	struct exchange_entry		*v;	 /* the entries that count */
	size_t				 n, cap;
	size_t				 stale;	 /* entries ignored as such */
	struct buf			 ignored; /* files skipped */
	size_t				 nignored;
	unsigned char			*confirmed; /* node 0: v[i] has read */
	int				 collector; /* writes the table */
	double				 poll_max; /* exchange_pause's */
	/* Taken from a table in node order, by a node other than node
	 * 0: v holds the master's entry and this node's, n the count,
	 * self_at this node's place. */
	int				 compact;
	size_t				 self_at;
	ino_t				 table;	 /* listed, or 0 */
	ino_t				 table_bad; /* the one found bad */
	char				*table_why; /* and why */
};

/*
 * What every part uses, here so that calls go one way: exchange-dir.c
 * drives the exchange and calls the table's, the cleanup's and the
 * messages' functions; the cleanup calls the messages'; none calls back.
 */

/* "t2" for task 2, "hnode2" for host NODE2 without a task id: the part
 * of the file names that says whose they are. */
static inline void
exchange_key(const struct exchange_entry *e, char *key, size_t len)
{
	size_t	i;

	if (e->task >= 0) {
		snprintf(key, len, "t%lld", (long long)e->task);
		return;
	}
	snprintf(key, len, "h%s", e->host);
	for (i = 1; key[i] != '\0'; i++) {
		if (key[i] >= 'A' && key[i] <= 'Z')
			key[i] = (char)(key[i] - 'A' + 'a');
	}
}

/* A file's modification time, from the file server's clock. */
static inline double
exchange_mtime(const struct stat *st)
{
	return (double)st->st_mtim.tv_sec + (double)st->st_mtim.tv_nsec / 1e9;
}

/* Every node of a run writes its entry within the timeout of the others,
 * or they give up: a file older than this node's entry by more than the
 * timeout is left over from another run. Both times come from the file
 * server's clock, so the nodes' clocks need not agree. */
static inline int
exchange_is_stale(const struct exchange_dir_ctx *c, const struct stat *st)
{
	return exchange_mtime(st) < c->mtime - (double)c->o->timeout;
}

/* Sleeps *poll seconds between two polls and doubles *poll, up to
 * c->poll_max. */
static inline void
exchange_pause(struct exchange_dir_ctx *c, double *poll)
{
	c->clock->sleep(c->clock->arg, *poll);
	if ((*poll *= 2) > c->poll_max)
		*poll = c->poll_max;
}

/* exchange-table.c */
int	 exchange_reads_entries(struct exchange_dir_ctx *, double waited);
int	 exchange_use_table(struct exchange_dir_ctx *);
void	 exchange_write_table(struct exchange_dir_ctx *);

/* exchange-msg.c */
void	 exchange_describe(struct buf *, const struct exchange_entry *);
void	 exchange_said_ignored(struct buf *, const struct exchange_dir_ctx *,
	    const char *sep);
enum fault	 exchange_timed_out(struct exchange_dir_ctx *, char **cause);
enum fault	 exchange_too_many(struct exchange_dir_ctx *, char **cause);

/* exchange-clean.c */
enum fault	 exchange_mark_read(struct exchange_dir_ctx *, char **cause);
void	 exchange_cleanup(struct exchange_dir_ctx *, struct buf *warn);

#endif
