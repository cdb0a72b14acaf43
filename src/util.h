/* util.h: growable buffers and string lists shared by every module. */
#ifndef DDPGEN_UTIL_H
#define DDPGEN_UTIL_H

#include <stdarg.h>
#include <stddef.h>

/* Name printed before messages; main() sets it. */
extern const char *util_progname;

/* A NUL-terminated growable byte buffer; s is never NULL after buf_init
 * and NULL after buf_take until something is added. */
struct buf {
	char	*s;
	size_t	 len;
	size_t	 cap;
};

void	 buf_init(struct buf *);
void	 buf_free(struct buf *);
void	 buf_addc(struct buf *, char);
void	 buf_addn(struct buf *, const char *, size_t);
void	 buf_adds(struct buf *, const char *);
void	 buf_addf(struct buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* Hands the string to the caller (who frees it) and leaves the buffer
 * empty with nothing allocated; adding to it again is fine. */
char	*buf_take(struct buf *);
/* Appends a word to the list "a, b or c" that b holds alone: ", " before
 * it, or conj (" or ", " and ") when last says it ends the list; nothing
 * before the first. */
void	 buf_add_item(struct buf *, const char *, int, const char *);
/* The NULL-terminated words v as one list, "a, b or c" with conj " or "
 * (or " and "); "" for none. The caller frees it. */
char	*words_join(const char *const *, const char *);

/* A list of owned strings; v[n] is NULL so it can serve as an argv. */
struct strlist {
	char	**v;
	size_t	  n;
	size_t	  cap;
};

void	 strlist_init(struct strlist *);
void	 strlist_free(struct strlist *);
void	 strlist_add(struct strlist *, const char *);	/* copies */
void	 strlist_addown(struct strlist *, char *);	/* takes ownership */
void	 strlist_copy(struct strlist *, const struct strlist *);

/* Sets *cause to a formatted message; the caller frees *cause.
 * Returns -1 so lower layers can write "return util_fail(cause, ...)". */
int	 util_fail(char **cause, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

/* Writes "PROG: message" and a newline to standard error in one write,
 * so lines of processes sharing it (srun's tasks, mpirun's ranks) do not
 * interleave. For the two mains only: lower layers never print. */
void	 util_vwarn(const char *, va_list)
	    __attribute__((format(printf, 1, 0)));
void	 util_warn(const char *, ...)
	    __attribute__((format(printf, 1, 2)));
/* util_warn, then returns xc, an exit status or a category of failure
 * (fault.h), whichever the caller deals in. */
int	 util_report(int xc, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* util_warn of cause, which it frees; returns xc. */
int	 util_report_cause(int xc, char *cause);

/* The message for getopt_long's '?' or ':' (ch), called with opterr 0
 * and an optstring starting "+:": "-x: unknown option", "--name:
 * ambiguous option", "--name: needs a value", "--name: takes no value".
 * The option is named as typed for an unknown long option, else by its
 * long name when it was given by it. The caller frees it. */
struct option;
char	*util_opterr(int ch, char *const *argv, const struct option *);

/* Appends s[0, n) with its control bytes written as \n, \t, \r or
 * \xHH, so that a message stays one line whatever a value in it holds. */
void	 util_addvis(struct buf *, const char *, size_t);

/* Appends the line util_vwarn writes for msg: "PROG: msg" and a newline,
 * with control bytes in msg shown as \n, \t, \r or \xHH; a msg longer
 * than UTIL_WARN_MAX bytes keeps its first UTIL_WARN_HEAD and its last
 * UTIL_WARN_TAIL bytes (never cutting a UTF-8 sequence) around a note of
 * how many were left out. */
#define UTIL_WARN_MAX	4096
#define UTIL_WARN_HEAD	2048
#define UTIL_WARN_TAIL	1024
void	 util_warnline(struct buf *, const char *msg);
extern int util_warned;		/* util_vwarn has written a line */

/* Fills dirs (initialised by the caller) with the directories of kind
 * sub ("profiles", "templates"), in search order: each non-empty entry
 * of the colon-separated variable var, ${XDG_CONFIG_HOME:-$HOME/.config}
 * /ddpgen/SUB (a relative XDG_CONFIG_HOME is ignored, as the XDG rules
 * say), SYSCONFDIR/SUB, then DATADIR/SUB -- or, when a directory SUB
 * stands in exedir (the build tree), that one instead of DATADIR's.
 * getenv_fn is the environment seam (NULL: getenv(3)); exedir may be
 * NULL. */
/* getenv(3) as the environment seam's callback, where a module takes
 * one (const char *(*getenv_fn)(const char *)). */
const char *util_getenv(const char *name);

void	 util_searchpath(struct strlist *dirs, const char *var,
	    const char *sub, const char *(*getenv_fn)(const char *),
	    const char *exedir);

/* When fd is a pipe, waits until its reader has taken everything written
 * to it, or max_ms milliseconds have passed. Returns 0 when the pipe is
 * empty (or fd is not a pipe), -1 on timeout. srun --kill-on-bad-exit
 * stops forwarding the tasks' output once a task has exited non-zero, so
 * ddprank drains its standard error before it exits with an error. */
int	 util_drain(int fd, int max_ms);
/* How long, at most, an error line may wait in the pipe at exit. */
#define UTIL_DRAIN_MS	2000

/* Control bytes (1-31 and 127): what may not stand raw in a line of a
 * generated script or a profile value that becomes one. */
int	 util_iscntrl(unsigned char);
int	 util_has_cntrl(const char *);

/* Parses a decimal integer in [min, max]; 0 on success, -1 otherwise. */
int	 util_strtonum(const char *, long long min, long long max,
	    long long *out);

/* Reads a whole file into a NUL-terminated string (caller frees), of at
 * most max bytes: endless input (/dev/zero) is an error, not a heap that
 * grows until the OOM killer comes. Returns NULL and sets *cause
 * ("PATH: larger than N MiB") on error; *len gets the length.
 * util_readfile's limit is UTIL_READ_MAX; the man pages give each kind
 * of file's (FILES). */
#define UTIL_READ_MAX		(128u << 20)
#define UTIL_READ_PROFILE_MAX	(4u << 20)
#define UTIL_READ_TMPL_MAX	(1u << 20)
char	*util_readfile(const char *path, size_t *len, char **cause);
char	*util_readfile_max(const char *path, size_t max, size_t *len,
	    char **cause);

/* Writes data to path atomically: a temporary file in the same
 * directory, fsync, chmod to mode, rename. Nothing is left on error. */
int	 util_writefile(const char *path, const char *data, size_t len,
	    unsigned int mode, char **cause);

/* Writes data where a user's -o FILE points: a path that does not exist
 * or names a regular file is replaced atomically as util_writefile
 * does; a symbolic link is followed and its target handled the same
 * way; anything else that exists (a device, a FIFO, a dangling link) is
 * opened and written through, never replaced. mode is the final mode of
 * a new file. -1 + *cause, naming the path and the error, on failure. */
int	 util_writeout(const char *path, const char *data, size_t len,
	    unsigned int mode, char **cause);

#endif
