/* badnodes.h: the nodes a job left out, remembered for a while per user
 * (ddpgen(1), HANGS AND BAD NODES): so that the next script ddpgen writes for the
 * same site leaves them out too. One file in the state directory
 * (state.h), BADNODES_FILE, a line a node: "SITE NODE UNTIL WHY", UNTIL
 * in seconds since the epoch; read and rewritten whole through sdir,
 * under a lock, so that two jobs do not lose each other's. */
#ifndef DDPGEN_BADNODES_H
#define DDPGEN_BADNODES_H

#include <stddef.h>

#include "util.h"

#define BADNODES_FILE		"bad-nodes"
#define BADNODES_LOCK		"bad-nodes.lock"
/* The longest a node is remembered: a year. */
#define BADNODES_HOURS_MAX	8760
/* Lines of the file read; bytes. */
#define BADNODES_MAX		10000
#define BADNODES_READ_MAX	(1u << 20)

struct badnode {
	char		*site;
	char		*node;
	long long	 until;
	char		*why;
};

struct badnodes {
	struct badnode	*v;
	size_t		 n;
};

void	badnodes_init(struct badnodes *);
void	badnodes_free(struct badnodes *);
/* The file's text; -1 + *cause ("line N: ...") for what is not one. */
int	badnodes_parse(struct badnodes *, const char *text, size_t len,
	    char **cause);
void	badnodes_format(struct buf *, const struct badnodes *);
/* Adds or renews site's node (the later time wins). */
void	badnodes_add(struct badnodes *, const char *site, const char *node,
	    long long until, const char *why);
/* Drops what ended by now; returns how many. */
size_t	badnodes_expire(struct badnodes *, long long now);
/* Drops the nodes named (every node when nodes is NULL); returns how
 * many entries went. */
size_t	badnodes_forget(struct badnodes *, const char *const *nodes);
/* site's nodes, in the file's order, into out (initialised). */
void	badnodes_of(const struct badnodes *, const char *site,
	    struct strlist *out);

/* The word a site's nodes are kept under: the -s value's last path
 * component without ".conf", a byte that cannot be in a word as '_'.
 * The caller frees. */
char	*badnodes_scope(const char *site);

/* The file, read under the lock, passed to edit (when not NULL) and
 * written back whole when edit returns 1; what is left is in b, expired
 * entries dropped. A missing file is an empty list. getenv_fn: the
 * environment seam (state_path). -1 + *cause. */
int	badnodes_update(struct badnodes *b, long long now,
	    int (*edit)(struct badnodes *, void *), void *arg,
	    const char *(*getenv_fn)(const char *), char **cause);

#endif
