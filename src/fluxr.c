/* fluxr.c: a Flux job's resource set R and job ids, read strictly. R is
 * JSON (Flux RFC 20): the parser below takes RFC 8259's grammar whole,
 * keeps only version and execution.nodelist, and refuses what a careless
 * reader would guess at (a second "nodelist", a control byte, bad UTF-8),
 * since the node list decides every rank. */
#include "config.h"

#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fluxr.h"
#include "util.h"
#include "xmalloc.h"

extern char **environ;

long long	fluxr_timeout_ms = 60000;

struct jr {
	const unsigned char	*p;
	const unsigned char	*start;
	const unsigned char	*end;
	char			**cause;
	int			 depth;
};

static int
jr_fail(struct jr *j, const char *what)
{
	return util_fail(j->cause, "at byte %zu: %s", (size_t)(j->p - j->start),
	    what);
}

static int
jr_peek(const struct jr *j)
{
	return j->p < j->end ? *j->p : -1;
}

static void
jr_ws(struct jr *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
	    *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int
jr_expect(struct jr *j, char c, const char *what)
{
	jr_ws(j);
	if (jr_peek(j) != (unsigned char)c)
		return jr_fail(j, what);
	j->p++;
	return 0;
}

static int
jr_literal(struct jr *j, const char *word)
{
	size_t	n = strlen(word);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
		return jr_fail(j, "expected a JSON value");
	j->p += n;
	return 0;
}

static size_t
jr_digits(struct jr *j)
{
	const unsigned char	*s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return (size_t)(j->p - s);
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int
jr_number(struct jr *j)
{
	if (jr_peek(j) == '-')
		j->p++;
	if (jr_peek(j) == '0')
		j->p++;
	else if (jr_digits(j) == 0)
		return jr_fail(j, "bad number");
	if (jr_peek(j) == '.') {
		j->p++;
		if (jr_digits(j) == 0)
			return jr_fail(j, "bad number");
	}
	if (jr_peek(j) == 'e' || jr_peek(j) == 'E') {
		j->p++;
		if (jr_peek(j) == '+' || jr_peek(j) == '-')
			j->p++;
		if (jr_digits(j) == 0)
			return jr_fail(j, "bad number");
	}
	return 0;
}

/* The length of the UTF-8 sequence at p (at most n bytes), or 0 when it
 * is not a valid one: no overlong forms, surrogates or values above
 * U+10FFFF. */
static size_t
jr_utf8(const unsigned char *p, size_t n)
{
	size_t		len, i;
	uint32_t	c;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, c = p[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return len;
}

static void
jr_put(struct buf *out, uint32_t c)
{
	if (out == NULL)
		return;
	if (c < 0x80)
		buf_addc(out, (char)c);
	else if (c < 0x800) {
		buf_addc(out, (char)(0xc0 | c >> 6));
		buf_addc(out, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x10000) {
		buf_addc(out, (char)(0xe0 | c >> 12));
		buf_addc(out, (char)(0x80 | (c >> 6 & 0x3f)));
		buf_addc(out, (char)(0x80 | (c & 0x3f)));
	} else {
		buf_addc(out, (char)(0xf0 | c >> 18));
		buf_addc(out, (char)(0x80 | (c >> 12 & 0x3f)));
		buf_addc(out, (char)(0x80 | (c >> 6 & 0x3f)));
		buf_addc(out, (char)(0x80 | (c & 0x3f)));
	}
}

/* Four hex digits after "\u". */
static int
jr_hex4(struct jr *j, uint32_t *c)
{
	int	i, d;

	*c = 0;
	for (i = 0; i < 4; i++) {
		d = jr_peek(j);
		if (d >= '0' && d <= '9')
			d -= '0';
		else if (d >= 'a' && d <= 'f')
			d -= 'a' - 10;
		else if (d >= 'A' && d <= 'F')
			d -= 'A' - 10;
		else
			return jr_fail(j, "bad \\u escape");
		*c = *c << 4 | (uint32_t)d;
		j->p++;
	}
	return 0;
}

/* The code point of a \u escape (p after the "\u"), a surrogate pair
 * joined; U+0000 is refused, as no host name or key holds it. */
static int
jr_unicode(struct jr *j, uint32_t *c)
{
	uint32_t	lo;

	if (jr_hex4(j, c) == -1)
		return -1;
	if (*c >= 0xdc00 && *c <= 0xdfff)
		return jr_fail(j, "lone low surrogate");
	if (*c >= 0xd800 && *c <= 0xdbff) {
		if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
			return jr_fail(j, "lone high surrogate");
		j->p += 2;
		if (jr_hex4(j, &lo) == -1)
			return -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return jr_fail(j, "lone high surrogate");
		*c = 0x10000 + ((*c - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (*c == 0)
		return jr_fail(j, "\\u0000 in a string");
	return 0;
}

static int
jr_escape(struct jr *j, struct buf *out)
{
	static const char	 from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char		*e;
	uint32_t		 c;
	int			 ch = jr_peek(j);

	if (ch == 'u') {
		j->p++;
		if (jr_unicode(j, &c) == -1)
			return -1;
		jr_put(out, c);
		return 0;
	}
	if (ch <= 0 || (e = strchr(from, ch)) == NULL)
		return jr_fail(j, "bad escape in a string");
	j->p++;
	jr_put(out, (unsigned char)to[e - from]);
	return 0;
}

/* A string, decoded into out unless it is NULL. */
static int
jr_string(struct jr *j, struct buf *out)
{
	size_t	n;

	if (jr_expect(j, '"', "expected a string") == -1)
		return -1;
	for (;;) {
		if (j->p == j->end)
			return jr_fail(j, "unterminated string");
		if (*j->p == '"')
			break;
		if (*j->p < 0x20)
			return jr_fail(j, "control byte in a string");
		if (*j->p == '\\') {
			j->p++;
			if (jr_escape(j, out) == -1)
				return -1;
			continue;
		}
		if ((n = jr_utf8(j->p, (size_t)(j->end - j->p))) == 0)
			return jr_fail(j, "invalid UTF-8 in a string");
		if (out != NULL)
			buf_addn(out, (const char *)j->p, n);
		j->p += n;
	}
	j->p++;
	return 0;
}

/* Opens an array or object: one level deeper. */
static int
jr_open(struct jr *j, char c, const char *what)
{
	if (jr_expect(j, c, what) == -1)
		return -1;
	if (++j->depth > FLUXR_DEPTH)
		return jr_fail(j, "nested too deeply");
	return 0;
}

/* After '[' or '{', or an element: 1 when another element follows, 0 at
 * the closing bracket (taken), -1 on anything else. *first is set by
 * the caller before the first call. */
static int
jr_next(struct jr *j, char close, int *first)
{
	jr_ws(j);
	if (jr_peek(j) == (unsigned char)close) {
		j->p++;
		j->depth--;
		return 0;
	}
	if (*first) {
		*first = 0;
		return 1;
	}
	if (jr_peek(j) != ',')
		return jr_fail(j, close == ']' ? "expected ',' or ']'" :
		    "expected ',' or '}'");
	j->p++;
	return 1;
}

/* An object member's key and the ':' after it. */
static int
jr_key(struct jr *j, struct buf *key)
{
	key->len = 0;
	key->s[0] = '\0';
	if (jr_string(j, key) == -1)
		return -1;
	return jr_expect(j, ':', "expected ':'");
}

static int	jr_skip(struct jr *);

static int
jr_skip_array(struct jr *j)
{
	int	first = 1, rc;

	if (jr_open(j, '[', "expected '['") == -1)
		return -1;
	while ((rc = jr_next(j, ']', &first)) == 1)
		if (jr_skip(j) == -1)
			return -1;
	return rc;
}

static int
jr_skip_object(struct jr *j)
{
	struct buf	key;
	int		first = 1, rc;

	if (jr_open(j, '{', "expected '{'") == -1)
		return -1;
	buf_init(&key);
	while ((rc = jr_next(j, '}', &first)) == 1)
		if (jr_key(j, &key) == -1 || jr_skip(j) == -1) {
			rc = -1;
			break;
		}
	buf_free(&key);
	return rc;
}

/* Any value, checked and passed over. */
static int
jr_skip(struct jr *j)
{
	jr_ws(j);
	switch (jr_peek(j)) {
	case '{':
		return jr_skip_object(j);
	case '[':
		return jr_skip_array(j);
	case '"':
		return jr_string(j, NULL);
	case 't':
		return jr_literal(j, "true");
	case 'f':
		return jr_literal(j, "false");
	case 'n':
		return jr_literal(j, "null");
	default:
		if (jr_peek(j) == '-' || (jr_peek(j) >= '0' && jr_peek(j) <= '9'))
			return jr_number(j);
		return jr_fail(j, "expected a JSON value");
	}
}

/* What fluxr_nodelist keeps: which keys were seen, and the hosts. */
struct fluxr_r {
	int		 version;	/* 0: absent, 1: 1, -1: another */
	int		 execution;
	int		 nodelist;
	struct buf	*hosts;
};

static int
jr_once(struct jr *j, int *seen, const char *key)
{
	char	*msg;
	int	 rc;

	if (!*seen) {
		*seen = 1;
		return 0;
	}
	xasprintf(&msg, "\"%s\" given twice", key);
	rc = jr_fail(j, msg);
	free(msg);
	return rc;
}

/* execution.nodelist: an array of strings, each an RFC 29 hostlist; an
 * empty one is an empty list. */
static int
jr_nodelist(struct jr *j, struct fluxr_r *r)
{
	struct buf	s;
	int		first = 1, rc;

	if (jr_open(j, '[', "execution.nodelist is not an array") == -1)
		return -1;
	buf_init(&s);
	while ((rc = jr_next(j, ']', &first)) == 1) {
		s.len = 0;
		s.s[0] = '\0';
		jr_ws(j);
		if (jr_peek(j) != '"') {
			rc = jr_fail(j, "execution.nodelist holds a non-string");
			break;
		}
		if (jr_string(j, &s) == -1) {
			rc = -1;
			break;
		}
		/* An escaped one: host names have none. */
		if (util_has_cntrl(s.s)) {
			rc = jr_fail(j, "control character in execution.nodelist");
			break;
		}
		if (s.len == 0)
			continue;
		if (r->hosts->len > 0)
			buf_addc(r->hosts, ',');
		buf_addn(r->hosts, s.s, s.len);
	}
	buf_free(&s);
	return rc;
}

static int
jr_execution(struct jr *j, struct fluxr_r *r)
{
	struct buf	key;
	int		first = 1, rc;

	if (jr_open(j, '{', "execution is not an object") == -1)
		return -1;
	buf_init(&key);
	while ((rc = jr_next(j, '}', &first)) == 1) {
		if (jr_key(j, &key) == -1)
			rc = -1;
		else if (strcmp(key.s, "nodelist") != 0)
			rc = jr_skip(j);
		else if ((rc = jr_once(j, &r->nodelist, "nodelist")) == 0)
			rc = jr_nodelist(j, r);
		if (rc == -1)
			break;
	}
	buf_free(&key);
	return rc;
}

/* version: the number 1, written so. */
static int
jr_version(struct jr *j, struct fluxr_r *r)
{
	const unsigned char	*s;

	jr_ws(j);
	s = j->p;
	if (jr_skip(j) == -1)
		return -1;
	r->version = j->p - s == 1 && *s == '1' ? 1 : -1;
	return 0;
}

static int
jr_top(struct jr *j, struct fluxr_r *r)
{
	struct buf	key;
	int		first = 1, rc;

	if (jr_open(j, '{', "R is not a JSON object") == -1)
		return -1;
	buf_init(&key);
	while ((rc = jr_next(j, '}', &first)) == 1) {
		if (jr_key(j, &key) == -1)
			rc = -1;
		else if (strcmp(key.s, "version") == 0) {
			if ((rc = jr_once(j, &r->version, "version")) == 0)
				rc = jr_version(j, r);
		} else if (strcmp(key.s, "execution") == 0) {
			if ((rc = jr_once(j, &r->execution, "execution")) == 0)
				rc = jr_execution(j, r);
		} else
			rc = jr_skip(j);
		if (rc == -1)
			break;
	}
	buf_free(&key);
	return rc;
}

int
fluxr_nodelist(const char *text, size_t len, struct buf *hosts,
    char **cause)
{
	struct jr	j;
	struct fluxr_r	r;

	if (len > FLUXR_MAX)
		return util_fail(cause, "R is larger than %lu bytes",
		    FLUXR_MAX);
	memset(&r, 0, sizeof r);
	r.hosts = hosts;
	j.p = j.start = (const unsigned char *)text;
	j.end = j.p + len;
	j.cause = cause;
	j.depth = 0;
	if (jr_top(&j, &r) == -1)
		return -1;
	jr_ws(&j);
	if (j.p != j.end)
		return jr_fail(&j, "text after R's object");
	if (r.version == 0)
		return util_fail(cause, "R has no version");
	if (r.version != 1)
		return util_fail(cause, "R's version is not 1");
	if (!r.execution || !r.nodelist)
		return util_fail(cause, "R has no execution.nodelist");
	if (hosts->len == 0)
		return util_fail(cause, "R's execution.nodelist is empty");
	return 0;
}

/* Base58's digits as Flux orders them: no 0, O, I or l. */
static const char fluxr_b58[] =
    "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

static int
fluxr_digits(const char *s, unsigned base, uint64_t *id)
{
	const char	*d;
	unsigned	 v;

	*id = 0;
	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (base == 10 && *s >= '0' && *s <= '9')
			v = (unsigned)(*s - '0');
		else if (base == 58 && (d = strchr(fluxr_b58, *s)) != NULL)
			v = (unsigned)(d - fluxr_b58);
		else
			return -1;
		if (*id > (UINT64_MAX - v) / base)
			return -1;
		*id = *id * base + v;
	}
	return 0;
}

int
fluxr_jobid(const char *s, uint64_t *id)
{
	if (strncmp(s, "\xc6\x92", 2) == 0)	/* U+0192, "ƒ" */
		return fluxr_digits(s + 2, 58, id);
	if (s[0] == 'f')
		return fluxr_digits(s + 1, 58, id);
	return fluxr_digits(s, 10, id);
}

/* Milliseconds since some fixed point. */
static long long
fluxr_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd can be read or the deadline passes; -1 then. */
static int
fluxr_wait_readable(int fd, long long deadline, const char *cmd,
    char **cause)
{
	struct pollfd	pfd = { fd, POLLIN, 0 };
	long long	left;
	int		rc;

	for (;;) {
		if ((left = deadline - fluxr_now()) <= 0)
			return util_fail(cause, "%s gave no answer within %lld "
			    "s", cmd, (fluxr_timeout_ms + 999) / 1000);
		rc = poll(&pfd, 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (rc > 0)
			return 0;
		if (rc == -1 && errno != EINTR)
			return util_fail(cause, "%s: %s", cmd, strerror(errno));
	}
}

/* Reads fd to its end into b, at most FLUXR_MAX bytes, within
 * fluxr_timeout_ms; -1 beyond either. */
static int
fluxr_read(int fd, struct buf *b, const char *cmd, char **cause)
{
	char		chunk[65536];
	ssize_t		n = 1;
	long long	deadline = fluxr_now() + fluxr_timeout_ms;

	while (n != 0) {
		if (fluxr_wait_readable(fd, deadline, cmd, cause) == -1)
			return -1;
		if ((n = read(fd, chunk, sizeof chunk)) == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return util_fail(cause, "%s: %s", cmd, strerror(errno));
		if (b->len + (size_t)n > FLUXR_MAX)
			return util_fail(cause, "%s: more than %lu bytes", cmd,
			    FLUXR_MAX);
		buf_addn(b, chunk, (size_t)n);
	}
	return 0;
}

static int
fluxr_wait(pid_t pid, const char *cmd, char **cause)
{
	int	status;

	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return util_fail(cause, "%s: %s", cmd, strerror(errno));
	if (WIFSIGNALED(status))
		return util_fail(cause, "%s was killed by signal %d", cmd,
		    WTERMSIG(status));
	if (WEXITSTATUS(status) != 0)
		return util_fail(cause, "%s exited with status %d", cmd,
		    WEXITSTATUS(status));
	return 0;
}

/* Reads flux's output, then its status; flux is killed when its output
 * is refused, and the first problem is the one told. */
static int
fluxr_collect(pid_t pid, int fd, struct buf *b, const char *cmd,
    char **cause)
{
	char	*why = NULL;

	if (fluxr_read(fd, b, cmd, cause) == -1) {
		kill(pid, SIGKILL);
		fluxr_wait(pid, cmd, &why);
		free(why);
		return -1;
	}
	return fluxr_wait(pid, cmd, cause);
}

static int
fluxr_spawn(pid_t *pid, int out, char *const argv[], const char *cmd,
    char **cause)
{
	posix_spawn_file_actions_t	fa;
	int				rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out, STDOUT_FILENO);
	rc = posix_spawnp(pid, "flux", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc == ENOENT)
		return util_fail(cause, "the flux command is not in PATH: "
		    "ddprank reads a Flux job's nodes with '%s'", cmd);
	if (rc != 0)
		return util_fail(cause, "%s: %s", cmd, strerror(rc));
	return 0;
}

char *
fluxr_fetch(const char *jobid, size_t *len, char **cause)
{
	char		 a0[] = "flux", a1[] = "job", a2[] = "info", a4[] = "R";
	char		*argv[] = { a0, a1, a2, NULL, a4, NULL };
	struct buf	 b;
	char		*cmd;
	pid_t		 pid;
	int		 fd[2], rc;

	argv[3] = (char *)(uintptr_t)jobid;	/* posix_spawn's type */
	xasprintf(&cmd, "flux job info %s R", jobid);
	if (pipe2(fd, O_CLOEXEC) == -1) {
		util_fail(cause, "%s: %s", cmd, strerror(errno));
		free(cmd);
		return NULL;
	}
	rc = fluxr_spawn(&pid, fd[1], argv, cmd, cause);
	close(fd[1]);
	buf_init(&b);
	if (rc == 0)
		rc = fluxr_collect(pid, fd[0], &b, cmd, cause);
	close(fd[0]);
	free(cmd);
	if (rc == -1) {
		buf_free(&b);
		return NULL;
	}
	*len = b.len;
	return buf_take(&b);
}
