/* badnodes.c: the nodes remembered as bad (badnodes.h). */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "badnodes.h"
#include "sdir.h"
#include "state.h"
#include "util.h"
#include "xmalloc.h"

void
badnodes_init(struct badnodes *b)
{
	b->v = NULL;
	b->n = 0;
}

static void
entry_free(struct badnode *e)
{
	free(e->site);
	free(e->node);
	free(e->why);
}

void
badnodes_free(struct badnodes *b)
{
	size_t	i;

	for (i = 0; i < b->n; i++)
		entry_free(&b->v[i]);
	free(b->v);
	badnodes_init(b);
}

/* A word of the file: printable, no space, not empty. */
static int
is_word(const char *s, size_t len)
{
	size_t	i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return 0;
	return len > 0;
}

static char *
take_word(const char **p, const char *end)
{
	const char	*s = *p, *e = memchr(s, ' ', (size_t)(end - s));

	if (e == NULL)
		e = end;
	if (!is_word(s, (size_t)(e - s)))
		return NULL;
	*p = e < end ? e + 1 : e;
	return xstrndup(s, (size_t)(e - s));
}

static int
parse_line(struct badnodes *b, const char *p, const char *end)
{
	struct badnode	 e;
	long long	 until;
	char		*num;
	int		 rc;

	memset(&e, 0, sizeof e);
	if ((e.site = take_word(&p, end)) == NULL ||
	    (e.node = take_word(&p, end)) == NULL ||
	    (num = take_word(&p, end)) == NULL) {
		entry_free(&e);
		return -1;
	}
	rc = util_strtonum(num, 0, LLONG_MAX, &until);
	free(num);
	if (rc == -1) {
		entry_free(&e);
		return -1;
	}
	e.until = until;
	e.why = xstrndup(p, (size_t)(end - p));
	b->v = xreallocarray(b->v, b->n + 1, sizeof *b->v);
	b->v[b->n++] = e;
	return 0;
}

int
badnodes_parse(struct badnodes *b, const char *text, size_t len,
    char **cause)
{
	const char	*p = text, *end = text + len, *nl;
	int		 line;

	badnodes_init(b);
	for (line = 1; p < end; p = nl + 1, line++) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (nl == p || *p == '#')
			continue;
		if (memchr(p, '\0', (size_t)(nl - p)) != NULL ||
		    b->n == BADNODES_MAX || parse_line(b, p, nl) == -1) {
			badnodes_free(b);
			return util_fail(cause, "line %d: not 'SITE NODE UNTIL "
			    "WHY'", line);
		}
	}
	return 0;
}

void
badnodes_format(struct buf *out, const struct badnodes *b)
{
	size_t	i;

	buf_adds(out, "# ddpgen's bad nodes (ddpgen(1), HANGS AND BAD NODES): SITE NODE "
	    "UNTIL WHY, UNTIL in seconds since 1970\n");
	for (i = 0; i < b->n; i++) {
		buf_addf(out, "%s %s %lld ", b->v[i].site, b->v[i].node,
		    b->v[i].until);
		util_addvis(out, b->v[i].why, strlen(b->v[i].why));
		buf_addc(out, '\n');
	}
}

void
badnodes_add(struct badnodes *b, const char *site, const char *node,
    long long until, const char *why)
{
	struct badnode	*e;
	size_t		 i;

	for (i = 0; i < b->n; i++) {
		e = &b->v[i];
		if (strcmp(e->site, site) != 0 || strcmp(e->node, node) != 0)
			continue;
		if (until >= e->until) {
			e->until = until;
			free(e->why);
			e->why = xstrdup(why);
		}
		return;
	}
	b->v = xreallocarray(b->v, b->n + 1, sizeof *b->v);
	e = &b->v[b->n++];
	e->site = xstrdup(site);
	e->node = xstrdup(node);
	e->until = until;
	e->why = xstrdup(why);
}

/* Drops the entries drop says; returns how many. */
static size_t
drop(struct badnodes *b, int (*dropped)(const struct badnode *,
    const void *), const void *arg)
{
	size_t	i, j, n = 0;

	for (i = j = 0; i < b->n; i++) {
		if (dropped(&b->v[i], arg)) {
			entry_free(&b->v[i]);
			n++;
		} else
			b->v[j++] = b->v[i];
	}
	b->n = j;
	return n;
}

static int
ended(const struct badnode *e, const void *now)
{
	return e->until <= *(const long long *)now;
}

size_t
badnodes_expire(struct badnodes *b, long long now)
{
	return drop(b, ended, &now);
}

static int
named(const struct badnode *e, const void *arg)
{
	const char *const	*nodes = arg;

	if (nodes == NULL)
		return 1;
	for (; *nodes != NULL; nodes++)
		if (strcmp(*nodes, e->node) == 0)
			return 1;
	return 0;
}

size_t
badnodes_forget(struct badnodes *b, const char *const *nodes)
{
	return drop(b, named, nodes);
}

void
badnodes_of(const struct badnodes *b, const char *site, struct strlist *out)
{
	size_t	i;

	for (i = 0; i < b->n; i++)
		if (strcmp(b->v[i].site, site) == 0)
			strlist_add(out, b->v[i].node);
}

char *
badnodes_scope(const char *site)
{
	const char	*b = strrchr(site, '/');
	size_t		 len, i;
	char		*s;

	b = b == NULL ? site : b + 1;
	len = strlen(b);
	if (len >= 5 && strcmp(b + len - 5, ".conf") == 0)
		len -= 5;
	s = len == 0 ? xstrdup("_") : xstrndup(b, len);
	for (i = 0; s[i] != '\0'; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			s[i] = '_';
	return s;
}

/* The lock file, made if missing, locked: its descriptor. */
static int
lock(const struct sdir *d, char **cause)
{
	struct stat	 st;
	char		*why;
	int		 fd;

	if (sdir_create(d, BADNODES_LOCK) == -1)
		return util_fail(cause, "%s/%s: %s", d->path, BADNODES_LOCK,
		    strerror(errno));
	if ((fd = sdir_open_file(d, BADNODES_LOCK, &st, &why)) < 0) {
		util_fail(cause, "%s/%s: %s", d->path, BADNODES_LOCK,
		    fd == -2 ? "vanished" : why);
		free(why);
		return -1;
	}
	while (flock(fd, LOCK_EX) == -1) {
		if (errno != EINTR) {
			util_fail(cause, "%s/%s: flock: %s", d->path,
			    BADNODES_LOCK, strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}

static int
load(struct badnodes *b, const struct sdir *d, char **cause)
{
	struct stat	 st;
	char		*text, *why;
	ssize_t		 n;

	text = xmalloc(BADNODES_READ_MAX + 1);
	n = sdir_read(d, BADNODES_FILE, text, BADNODES_READ_MAX, &st, &why);
	if (n == -2) {
		free(text);
		badnodes_init(b);
		return 0;
	}
	if (n < 0 || (size_t)n == BADNODES_READ_MAX) {
		util_fail(cause, "%s/%s: %s", d->path, BADNODES_FILE, n < 0 ?
		    why : "larger than 1 MiB");
		if (n < 0)
			free(why);
		free(text);
		return -1;
	}
	if (badnodes_parse(b, text, (size_t)n, &why) == -1) {
		util_fail(cause, "%s/%s: %s", d->path, BADNODES_FILE, why);
		free(why);
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

int
badnodes_update(struct badnodes *b, long long now,
    int (*edit)(struct badnodes *, void *), void *arg,
    const char *(*getenv_fn)(const char *), char **cause)
{
	struct sdir	d;
	struct buf	out;
	int		fd, rc = 0, changed;

	badnodes_init(b);
	if (state_open(&d, NULL, NULL, getenv_fn, "state directory",
	    cause) == -1) {
		sdir_close(&d);
		return -1;
	}
	if ((fd = lock(&d, cause)) == -1 || load(b, &d, cause) == -1) {
		if (fd != -1)
			close(fd);
		sdir_close(&d);
		return -1;
	}
	changed = badnodes_expire(b, now) > 0;
	if (edit != NULL)
		changed |= edit(b, arg);
	if (changed) {
		buf_init(&out);
		badnodes_format(&out, b);
		rc = sdir_write(&d, BADNODES_FILE, out.s, out.len, NULL, cause);
		buf_free(&out);
	}
	close(fd);
	sdir_close(&d);
	return rc;
}
