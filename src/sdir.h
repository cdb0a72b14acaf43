/* sdir.h: a directory other users can reach, used as OpenSSH's
 * StrictModes would: the base of a shared file system (such as
 * --exchange dir:PATH) and the run directories made in it. Everything
 * goes through descriptors opened without following a link and checked
 * with fstat once open; after the base, nothing is named by path. The
 * directory exchange and ddprank doctor's directory gather use it; so
 * must anything else that reads or writes a shared directory.
 * Functions returning int return 0 (or a descriptor), or -1 and set
 * *cause (caller frees), unless said otherwise. */
#ifndef DDPGEN_SDIR_H
#define DDPGEN_SDIR_H

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <stddef.h>

struct sdir {
	int	 fd;		/* -1: not open */
	uid_t	 uid;		/* whose files count */
	int	 noowners;	/* cifs and the like: owners mean nothing */
	char	*path;		/* for messages */
	int	 refused;	/* the last open failed a StrictModes rule
				   (a link, an owner, a mode), not a call */
};

/* A closed sdir for uid; sdir_close frees what the opens set. */
void	 sdir_init(struct sdir *, uid_t uid);
void	 sdir_close(struct sdir *);

/* The base directory path: not a link, owned by d->uid or root, and
 * sticky if others may write to it. A missing one is made 0700. On a
 * file system whose owners mean nothing (cifs, smb; or forced, for
 * tests) the owner checks cannot hold, and the base is refused unless
 * secret says that what is read in it is authenticated. what names the
 * directory in messages ("exchange directory"). */
int	 sdir_open_base(struct sdir *d, const char *path, const char *what,
	    int force_noowners, int secret, char **cause);
/* The run directory name of base, made 0700 by this node or by another
 * of the same job (the same user): then owned by this user and
 * writable by no one else. Anything else someone else made, and is
 * refused rather than read. */
int	 sdir_open_run(struct sdir *run, const struct sdir *base,
	    const char *name, const char *what, char **cause);

/* 1 when st is this user's, or owners mean nothing here. */
int	 sdir_mine(const struct sdir *, const struct stat *st);
/* Writes name whole or not at all: a temporary file made exclusively,
 * renamed over name. Sets *st, if not NULL, to the file written. */
int	 sdir_write(const struct sdir *, const char *name, const char *data,
	    size_t len, struct stat *st, char **cause);
/* Writes name, which must not exist, made exclusively: a reader may
 * see it empty or in part while it is written, so only for files whose
 * readers check that what they read is whole. -2 when name exists. */
int	 sdir_write_new(const struct sdir *, const char *name,
	    const char *data, size_t len, struct stat *st, char **cause);
/* 1 when name exists in d (not following a link), else 0. */
int	 sdir_exists(const struct sdir *, const char *name);
/* Makes name, empty, exclusively: 1 when this call made it, 0 when it
 * was there, -1 with errno set otherwise. */
int	 sdir_create(const struct sdir *, const char *name);
/* Opens name, which must be a regular file of this user's; a FIFO does
 * not block. Returns the descriptor, -1 with *why set (caller frees)
 * when it is not to be used, -2 when it does not exist. */
int	 sdir_open_file(const struct sdir *, const char *name, struct stat *,
	    char **why);
/* Reads at most len bytes of fd, up to the size fstat gave; closes fd.
 * Returns the length, or -1 with *why set. */
ssize_t	 sdir_read_fd(int fd, char *buf, size_t len, const struct stat *,
	    char **why);
/* sdir_open_file, then sdir_read_fd. */
ssize_t	 sdir_read(const struct sdir *, const char *name, char *buf,
	    size_t len, struct stat *, char **why);
/* A directory stream on a new descriptor of fd, rewound; NULL with
 * errno set. */
DIR	*sdir_opendir(int fd);
/* Removes the run directory name of base: only if it is a directory of
 * this user's (never through a link), only the names ours accepts and
 * this user owns, by unlinkat on the directory opened; then the
 * directory, if nothing else is left. A missing one is not an error.
 * -1 with errno set. */
int	 sdir_remove(const struct sdir *base, const char *name,
	    int (*ours)(const char *name));
/* Makes and removes a file in d: whether this user can write there,
 * which access(2) cannot say of a read-only mount or a share's own
 * permissions. */
int	 sdir_probe(const struct sdir *d, char **cause);

#endif
