/* util.c: growable buffers, string lists, error messages and file I/O. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "xmalloc.h"

const char *util_progname = "ddpgen";
int util_warned;

static int	util_writeall(int, const char *, size_t);

const char *
util_getenv(const char *name)
{
	return getenv(name);
}

void
buf_init(struct buf *b)
{
	b->cap = 64;
	b->len = 0;
	b->s = xmalloc(b->cap);
	b->s[0] = '\0';
}

void
buf_free(struct buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

static void
buf_grow(struct buf *b, size_t more)
{
	size_t	need;

	if (more > SIZE_MAX - b->len - 1)
		xreallocarray(b->s, SIZE_MAX, 2);	/* too big: dies */
	need = b->len + more + 1;
	if (need <= b->cap)
		return;
	if (b->cap == 0)
		b->cap = 64;
	while (b->cap < need)
		b->cap = b->cap > SIZE_MAX / 2 ? need : b->cap * 2;
	b->s = xreallocarray(b->s, b->cap, 1);
}

void
buf_addn(struct buf *b, const char *s, size_t n)
{
	buf_grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void
buf_addc(struct buf *b, char c)
{
	buf_addn(b, &c, 1);
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_addn(b, s, strlen(s));
}

void
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;
	int	 n;

	va_start(ap, fmt);
	n = xvasprintf(&s, fmt, ap);
	va_end(ap);
	buf_addn(b, s, (size_t)n);
	free(s);
}

void
buf_add_item(struct buf *b, const char *word, int last, const char *conj)
{
	if (b->len > 0)
		buf_adds(b, last ? conj : ", ");
	buf_adds(b, word);
}

char *
words_join(const char *const *v, const char *conj)
{
	struct buf	b;

	buf_init(&b);
	for (; *v != NULL; v++)
		buf_add_item(&b, *v, v[1] == NULL, conj);
	if (b.s == NULL)
		buf_adds(&b, "");
	return buf_take(&b);
}

char *
buf_take(struct buf *b)
{
	char	*s = b->s;

	/* Empty, with nothing allocated: the next add allocates again, so a
	 * caller that only takes the string owes no buf_free. */
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void
strlist_init(struct strlist *l)
{
	l->n = 0;
	l->cap = 4;
	l->v = xcalloc(l->cap, sizeof *l->v);
}

void
strlist_free(struct strlist *l)
{
	size_t	i;

	if (l->v == NULL)
		return;
	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

void
strlist_addown(struct strlist *l, char *s)
{
	if (l->v == NULL)
		strlist_init(l);
	if (l->n + 1 >= l->cap) {
		l->v = xreallocarray(l->v, l->cap, 2 * sizeof *l->v);
		l->cap *= 2;
	}
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
}

void
strlist_add(struct strlist *l, const char *s)
{
	strlist_addown(l, xstrdup(s));
}

void
strlist_copy(struct strlist *dst, const struct strlist *src)
{
	size_t	i;

	for (i = 0; i < src->n; i++)
		strlist_add(dst, src->v[i]);
}

static int util_vfail(char **, const char *, va_list)
    __attribute__((format(printf, 2, 0)));

static int
util_vfail(char **cause, const char *fmt, va_list ap)
{
	if (cause != NULL)
		xvasprintf(cause, fmt, ap);
	return -1;
}

int
util_fail(char **cause, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	util_vfail(cause, fmt, ap);
	va_end(ap);
	return -1;
}

void
util_addvis(struct buf *b, const char *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		unsigned char	c = (unsigned char)s[i];

		if (c == '\n')
			buf_adds(b, "\\n");
		else if (c == '\t')
			buf_adds(b, "\\t");
		else if (c == '\r')
			buf_adds(b, "\\r");
		else if (util_iscntrl(c))
			buf_addf(b, "\\x%02x", c);
		else
			buf_addc(b, (char)c);
	}
}

/* A UTF-8 continuation byte: a cut must not fall before one. */
#define CONT(c)	(((unsigned char)(c) & 0xc0) == 0x80)

void
util_warnline(struct buf *b, const char *msg)
{
	size_t	n = strlen(msg), head, tail;

	buf_addf(b, "%s: ", util_progname);
	if (n <= UTIL_WARN_MAX) {
		util_addvis(b, msg, n);
	} else {
		head = UTIL_WARN_HEAD;
		while (head > 0 && CONT(msg[head]))
			head--;
		tail = n - UTIL_WARN_TAIL;
		while (tail < n && CONT(msg[tail]))
			tail++;
		util_addvis(b, msg, head);
		buf_addf(b, " [... %zu bytes left out ...] ", tail - head);
		util_addvis(b, msg + tail, n - tail);
	}
	buf_addc(b, '\n');
}

void
util_vwarn(const char *fmt, va_list ap)
{
	struct buf	 b;
	char		*msg;

	xvasprintf(&msg, fmt, ap);
	buf_init(&b);
	util_warnline(&b, msg);
	(void)util_writeall(STDERR_FILENO, b.s, b.len);
	buf_free(&b);
	free(msg);
	util_warned = 1;
}

void
util_warn(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	util_vwarn(fmt, ap);
	va_end(ap);
}

int
util_report(int xc, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	util_vwarn(fmt, ap);
	va_end(ap);
	return xc;
}

int
util_report_cause(int xc, char *cause)
{
	util_warn("%s", cause);
	free(cause);
	return xc;
}

void
util_searchpath(struct strlist *dirs, const char *var, const char *sub,
    const char *(*getenv_fn)(const char *), const char *exedir)
{
	struct stat	 st;
	const char	*v;
	char		*copy, *item, *rest, *p;

	if (getenv_fn == NULL)
		getenv_fn = util_getenv;
	if ((v = getenv_fn(var)) != NULL) {
		rest = copy = xstrdup(v);
		while ((item = strsep(&rest, ":")) != NULL)
			if (*item != '\0')
				strlist_add(dirs, item);
		free(copy);
	}
	/* The XDG base directory rules ignore a relative value. */
	if ((v = getenv_fn("XDG_CONFIG_HOME")) != NULL && v[0] == '/')
		xasprintf(&p, "%s/ddpgen/%s", v, sub);
	else if ((v = getenv_fn("HOME")) != NULL && v[0] != '\0')
		xasprintf(&p, "%s/.config/ddpgen/%s", v, sub);
	else
		p = NULL;
	if (p != NULL)
		strlist_addown(dirs, p);
	xasprintf(&p, "%s/%s", DDPGEN_SYSCONFDIR, sub);
	strlist_addown(dirs, p);
	if (exedir != NULL) {
		xasprintf(&p, "%s/%s", exedir, sub);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			strlist_addown(dirs, p);
			return;
		}
		free(p);
	}
	xasprintf(&p, "%s/%s", DDPGEN_DATADIR, sub);
	strlist_addown(dirs, p);
}

int
util_drain(int fd, int max_ms)
{
	struct stat	 st;
	struct timespec	 tick = { 0, 5 * 1000 * 1000 };
	int		 n, waited;

	if (fstat(fd, &st) == -1 || !S_ISFIFO(st.st_mode))
		return 0;
	for (waited = 0; ; waited += 5) {
		if (ioctl(fd, FIONREAD, &n) == -1 || n <= 0)
			return 0;
		if (waited >= max_ms)
			return -1;
		(void)nanosleep(&tick, NULL);
	}
}

int
util_iscntrl(unsigned char c)
{
	return (c >= 1 && c <= 31) || c == 127;
}

int
util_has_cntrl(const char *s)
{
	for (; *s != '\0'; s++)
		if (util_iscntrl((unsigned char)*s))
			return 1;
	return 0;
}

int
util_strtonum(const char *s, long long min, long long max, long long *out)
{
	char		*end;
	long long	 v;

	if (*s == '\0' || *s == ' ' || *s == '+' || *s == '\t')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

char *
util_readfile(const char *path, size_t *len, char **cause)
{
	return util_readfile_max(path, UTIL_READ_MAX, len, cause);
}

char *
util_readfile_max(const char *path, size_t max, size_t *len, char **cause)
{
	struct buf	 b;
	char		 chunk[65536];
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		util_fail(cause, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf_init(&b);
	while ((n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 || b.len + (size_t)n > max) {
			if (n == -1)
				util_fail(cause, "%s: %s", path,
				    strerror(errno));
			else if (max % (1u << 20) == 0)
				util_fail(cause, "%s: larger than %zu MiB",
				    path, max >> 20);
			else
				util_fail(cause, "%s: larger than %zu bytes",
				    path, max);
			close(fd);
			buf_free(&b);
			return NULL;
		}
		buf_addn(&b, chunk, (size_t)n);
	}
	close(fd);
	if (len != NULL)
		*len = b.len;
	return b.s;
}

static int
util_writeall(int fd, const char *data, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		if ((n = write(fd, data, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int
util_writefile(const char *path, const char *data, size_t len,
    unsigned int mode, char **cause)
{
	char	*tmp;
	int	 fd, saved;

	xasprintf(&tmp, "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) == -1) {
		util_fail(cause, "%s: %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	if (util_writeall(fd, data, len) == -1 || fchmod(fd, mode) == -1 ||
	    fsync(fd) == -1) {
		saved = errno;
		close(fd);
		goto fail;
	}
	/* A failed close has released fd all the same: never close twice. */
	if (close(fd) == -1) {
		saved = errno;
		goto fail;
	}
	if (rename(tmp, path) == -1) {
		saved = errno;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	util_fail(cause, "%s: %s", path, strerror(saved));
	return -1;
}

/* Opens path, following links, and writes data to what it names: a
 * device or a FIFO is written in place, as a shell's > would. */
static int
util_writethrough(const char *path, const char *data, size_t len,
    unsigned int mode, char **cause)
{
	int	fd, saved;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    (mode_t)mode)) == -1)
		return util_fail(cause, "%s: %s", path, strerror(errno));
	if (util_writeall(fd, data, len) == -1) {
		saved = errno;
		close(fd);
		return util_fail(cause, "%s: %s", path, strerror(saved));
	}
	if (close(fd) == -1)
		return util_fail(cause, "%s: %s", path, strerror(errno));
	return 0;
}

int
util_writeout(const char *path, const char *data, size_t len,
    unsigned int mode, char **cause)
{
	struct stat	 st;
	char		*real;
	int		 rc;

	if (lstat(path, &st) == -1) {
		if (errno != ENOENT)
			return util_fail(cause, "%s: %s", path,
			    strerror(errno));
		return util_writefile(path, data, len, mode, cause);
	}
	if (S_ISREG(st.st_mode))
		return util_writefile(path, data, len, mode, cause);
	/* A link to a regular file replaces that file; a dangling link,
	 * or one realpath cannot follow (/dev/stdout to "pipe:[N]"), is
	 * written through. */
	if (S_ISLNK(st.st_mode) && (real = realpath(path, NULL)) != NULL) {
		if (stat(real, &st) == 0 && S_ISREG(st.st_mode))
			rc = util_writefile(real, data, len, mode, cause);
		else
			rc = util_writethrough(real, data, len, mode, cause);
		free(real);
		return rc;
	}
	return util_writethrough(path, data, len, mode, cause);
}

/* The long option the argument arg ("--name" or "--name=value") names
 * with the value val, or NULL. */
static const struct option *
opt_long(const struct option *longopts, const char *arg, int val)
{
	size_t	i, len;

	if (strncmp(arg, "--", 2) != 0)
		return NULL;
	arg += 2;
	len = strcspn(arg, "=");
	for (i = 0; longopts[i].name != NULL; i++)
		if (longopts[i].val == val &&
		    strncmp(longopts[i].name, arg, len) == 0)
			return &longopts[i];
	return NULL;
}

/* How many long options start with the name in arg ("--na=x"). */
static size_t
opt_prefixes(const struct option *longopts, const char *arg)
{
	size_t	i, n = 0, len = strcspn(arg, "=");

	for (i = 0; longopts[i].name != NULL; i++)
		n += strncmp(longopts[i].name, arg, len) == 0;
	return n;
}

char *
util_opterr(int ch, char *const *argv, const struct option *longopts)
{
	const struct option	*lo;
	const char		*arg = argv[optind - 1];
	char			*msg;

	lo = optopt != 0 ? opt_long(longopts, arg, optopt) : NULL;
	if (ch == ':' && lo != NULL)
		xasprintf(&msg, "--%s: needs a value", lo->name);
	else if (ch == ':')
		xasprintf(&msg, "-%c: needs a value", optopt);
	else if (lo != NULL)
		xasprintf(&msg, "--%s: takes no value", lo->name);
	else if (optopt != 0)
		xasprintf(&msg, "-%c: unknown option", optopt);
	else
		xasprintf(&msg, "%.*s: %s option", (int)strcspn(arg, "="), arg,
		    opt_prefixes(longopts, arg + 2) > 1 ? "ambiguous" :
		    "unknown");
	return msg;
}
