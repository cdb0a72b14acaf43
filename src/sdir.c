/* sdir.c: StrictModes for shared directories (sdir.h): the one place
 * that says which directories and files another user may have made, and
 * refuses them. */
#include "config.h"

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "sdir.h"
#include "util.h"
#include "xmalloc.h"

/* statfs f_type of the file systems that show one owner for all files
 * (linux/magic.h and fs/smb). */
#define SDIR_CIFS_MAGIC	0xff534d42UL
#define SDIR_SMB2_MAGIC	0xfe534d42UL
#define SDIR_SMB_MAGIC	0x517bUL

void
sdir_init(struct sdir *d, uid_t uid)
{
	memset(d, 0, sizeof *d);
	d->fd = -1;
	d->uid = uid;
}

void
sdir_close(struct sdir *d)
{
	if (d->fd != -1)
		close(d->fd);
	d->fd = -1;
	free(d->path);
	d->path = NULL;
}

/* CIFS and SMB mounts, unless mounted multiuser with Unix extensions,
 * which cannot be told apart from here. */
static int
sdir_fs_noowners(int fd)
{
	struct statfs	sf;

	if (fstatfs(fd, &sf) == -1)
		return 0;
	return (unsigned long)sf.f_type == SDIR_CIFS_MAGIC ||
	    (unsigned long)sf.f_type == SDIR_SMB2_MAGIC ||
	    (unsigned long)sf.f_type == SDIR_SMB_MAGIC;
}

/* Why dir, name could not be opened as a directory with O_NOFOLLOW. */
static const char *
sdir_why(int dir, const char *name, int saved)
{
	struct stat	st;

	if ((saved == ELOOP || saved == ENOTDIR) &&
	    fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return S_ISLNK(st.st_mode) ? "a symbolic link" :
		    "not a directory";
	return strerror(saved);
}

static int
sdir_opendirat(struct sdir *d, int dir, const char *name, const char *what,
    struct stat *st, char **cause)
{
	int	saved;

	if ((d->fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || fstat(d->fd, st) == -1) {
		saved = errno;
		d->refused = saved == ELOOP || saved == ENOTDIR;
		return util_fail(cause, "%s %s: %s", what, d->path,
		    sdir_why(dir, name, saved));
	}
	return 0;
}

int
sdir_open_base(struct sdir *d, const char *path, const char *what,
    int force_noowners, int secret, char **cause)
{
	struct stat	st;

	d->path = xstrdup(path);
	if (mkdir(path, 0700) == -1 && errno != EEXIST)
		return util_fail(cause, "%s %s: %s", what, path,
		    strerror(errno));
	if (sdir_opendirat(d, AT_FDCWD, path, what, &st, cause) == -1)
		return -1;
	d->noowners = force_noowners || sdir_fs_noowners(d->fd);
	/* Every failure from here on is a refusal. */
	d->refused = 1;
	if (d->noowners && !secret)
		return util_fail(cause, "%s %s is on a file system that does "
		    "not keep owners (cifs, smb): anyone could write in it; "
		    "give the job a secret (%s, or the key file ~/" AUTH_KEYDIR
		    "/" AUTH_KEYFILE ", which 'ddprank key' makes)", what, path,
		    AUTH_ENV);
	if (d->noowners)
		return d->refused = 0;
	if (st.st_uid != d->uid && st.st_uid != 0)
		return util_fail(cause, "%s %s is owned by uid %lu, neither "
		    "you nor root: its owner could swap your files; use a base "
		    "that root made, mode 1777", what, path,
		    (unsigned long)st.st_uid);
	if ((st.st_mode & 022) != 0 && (st.st_mode & S_ISVTX) == 0)
		return util_fail(cause, "%s %s: mode %04o: writable by others "
		    "and not sticky, so they could swap your files; chmod +t",
		    what, path, (unsigned int)(st.st_mode & 07777));
	d->refused = 0;
	return 0;
}

int
sdir_open_run(struct sdir *run, const struct sdir *base, const char *name,
    const char *what, char **cause)
{
	struct stat	st;

	run->uid = base->uid;
	run->noowners = base->noowners;
	xasprintf(&run->path, "%s/%s", base->path, name);
	if (mkdirat(base->fd, name, 0700) == -1 && errno != EEXIST)
		return util_fail(cause, "%s %s: %s", what, run->path,
		    strerror(errno));
	if (sdir_opendirat(run, base->fd, name, what, &st, cause) == -1)
		return -1;
	if (run->noowners)
		return 0;
	run->refused = 1;
	if (st.st_uid != run->uid)
		return util_fail(cause, "%s %s is owned by uid %lu, not by "
		    "you: someone else made it; not using it", what, run->path,
		    (unsigned long)st.st_uid);
	if ((st.st_mode & 022) != 0)
		return util_fail(cause, "%s %s: mode %04o: others could write "
		    "in it; not using it", what, run->path,
		    (unsigned int)(st.st_mode & 07777));
	run->refused = 0;
	return 0;
}

int
sdir_mine(const struct sdir *d, const struct stat *st)
{
	return d->noowners || st->st_uid == d->uid;
}

/* No fsync: the rename alone makes the file whole for every reader (an
 * NFS client writes back on close, whose error is checked), and a file
 * server crash ends the run anyway, whose rerun uses another directory.
 * An fsync costs a journal commit, milliseconds each, and a thousand
 * nodes write two files each at once. */
int
sdir_write(const struct sdir *d, const char *name, const char *data,
    size_t len, struct stat *stp, char **cause)
{
	unsigned char	 r[6];
	struct stat	 st;
	char		*tmp;
	size_t		 got = 0;
	ssize_t		 n;
	int		 fd, saved = 0;

	if (getentropy(r, sizeof r) == -1)
		return util_fail(cause, "getentropy: %s", strerror(errno));
	xasprintf(&tmp, "%s.%02x%02x%02x%02x%02x%02x", name, r[0], r[1], r[2],
	    r[3], r[4], r[5]);
	if ((fd = openat(d->fd, tmp, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1) {
		saved = errno;
		free(tmp);
		return util_fail(cause, "%s/%s: %s", d->path, name,
		    strerror(saved));
	}
	while (got < len && saved == 0) {
		if ((n = write(fd, data + got, len - got)) == -1 &&
		    errno != EINTR)
			saved = errno;
		else if (n > 0)
			got += (size_t)n;
	}
	if (saved == 0 && fstat(fd, &st) == -1)
		saved = errno;
	if (close(fd) == -1 && saved == 0)
		saved = errno;
	if (saved == 0 && renameat(d->fd, tmp, d->fd, name) == -1)
		saved = errno;
	if (saved != 0)
		(void)unlinkat(d->fd, tmp, 0);
	free(tmp);
	if (saved != 0)
		return util_fail(cause, "%s/%s: %s", d->path, name,
		    strerror(saved));
	if (stp != NULL)
		*stp = st;
	return 0;
}

/* One change to the directory, not the three of a rename over a new
 * temporary name: for files whose readers take one that does not
 * parse or check as not yet written, and read it again. */
int
sdir_write_new(const struct sdir *d, const char *name, const char *data,
    size_t len, struct stat *stp, char **cause)
{
	struct stat	 st;
	size_t		 got = 0;
	ssize_t		 n;
	int		 fd, saved = 0;

	if ((fd = openat(d->fd, name, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1) {
		if (errno == EEXIST)
			return -2;
		saved = errno;
		return util_fail(cause, "%s/%s: %s", d->path, name,
		    strerror(saved));
	}
	while (got < len && saved == 0) {
		if ((n = write(fd, data + got, len - got)) == -1 &&
		    errno != EINTR)
			saved = errno;
		else if (n > 0)
			got += (size_t)n;
	}
	if (saved == 0 && fstat(fd, &st) == -1)
		saved = errno;
	if (close(fd) == -1 && saved == 0)
		saved = errno;
	if (saved != 0) {
		(void)unlinkat(d->fd, name, 0);
		return util_fail(cause, "%s/%s: %s", d->path, name,
		    strerror(saved));
	}
	if (stp != NULL)
		*stp = st;
	return 0;
}

int
sdir_exists(const struct sdir *d, const char *name)
{
	struct stat	st;

	return fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int
sdir_create(const struct sdir *d, const char *name)
{
	int	fd;

	if ((fd = openat(d->fd, name, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
		return errno == EEXIST ? 0 : -1;
	close(fd);
	return 1;
}

int
sdir_open_file(const struct sdir *d, const char *name, struct stat *st,
    char **why)
{
	int	fd;

	if ((fd = openat(d->fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK)) == -1) {
		if (errno == ENOENT)
			return -2;
		util_fail(why, "%s", errno == ELOOP ? "a symbolic link" :
		    strerror(errno));
		return -1;
	}
	if (fstat(fd, st) == -1)
		util_fail(why, "%s", strerror(errno));
	else if (!S_ISREG(st->st_mode))
		util_fail(why, "not a regular file");
	else if (!sdir_mine(d, st))
		util_fail(why, "owned by uid %lu, not by you",
		    (unsigned long)st->st_uid);
	else
		return fd;
	close(fd);
	return -1;
}

/* A file renamed into place does not grow: one read per small file. */
ssize_t
sdir_read_fd(int fd, char *buf, size_t len, const struct stat *st,
    char **why)
{
	size_t	got = 0;
	ssize_t	n;

	while (got < len && (got == 0 || got < (size_t)st->st_size) &&
	    (n = read(fd, buf + got, len - got)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			util_fail(why, "%s", strerror(errno));
			close(fd);
			return -1;
		}
		got += (size_t)n;
	}
	close(fd);
	return (ssize_t)got;
}

ssize_t
sdir_read(const struct sdir *d, const char *name, char *buf, size_t len,
    struct stat *st, char **why)
{
	int	fd;

	if ((fd = sdir_open_file(d, name, st, why)) < 0)
		return fd;
	return sdir_read_fd(fd, buf, len, st, why);
}

DIR *
sdir_opendir(int dir)
{
	DIR	*dp;
	int	 fd;

	if ((fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return NULL;
	if ((dp = fdopendir(fd)) == NULL)
		close(fd);
	return dp;
}

int
sdir_remove(const struct sdir *base, const char *name,
    int (*ours)(const char *))
{
	struct dirent	*d;
	struct stat	 st;
	DIR		*dp;
	int		 fd, saved = 0;

	if ((fd = openat(base->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) == -1)
		saved = errno;
	else if (!sdir_mine(base, &st))
		saved = EPERM;
	else if ((dp = sdir_opendir(fd)) == NULL)
		saved = errno;
	if (saved != 0) {
		close(fd);
		errno = saved;
		return -1;
	}
	while ((d = readdir(dp)) != NULL) {
		if (!ours(d->d_name) || fstatat(fd, d->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1 || !sdir_mine(base, &st))
			continue;
		if (unlinkat(fd, d->d_name, 0) == -1 && errno != ENOENT &&
		    saved == 0)
			saved = errno;
	}
	closedir(dp);
	close(fd);
	if (unlinkat(base->fd, name, AT_REMOVEDIR) == -1 && errno != ENOENT &&
	    saved == 0)
		saved = errno;
	errno = saved;
	return saved == 0 ? 0 : -1;
}

int
sdir_probe(const struct sdir *d, char **cause)
{
	unsigned char	 r[6];
	char		 name[32];
	int		 fd;

	if (getentropy(r, sizeof r) == -1)
		return util_fail(cause, "getentropy: %s", strerror(errno));
	snprintf(name, sizeof name, ".ddprank-probe.%02x%02x%02x%02x%02x%02x",
	    r[0], r[1], r[2], r[3], r[4], r[5]);
	if ((fd = openat(d->fd, name, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
		return util_fail(cause, "%s: cannot create a file: %s", d->path,
		    strerror(errno));
	close(fd);
	(void)unlinkat(d->fd, name, 0);
	return 0;
}
