/* exchange.c: what the nodes of an exchange tell each other, apart
 * from how: the --exchange option, the entry format and its MAC, the
 * run directory's name, node order and MPI's numbering. No file system,
 * no MPI: this is what test/fuzz/fuzz_exchange.c builds against. The
 * directory is exchange-dir.c's, MPI exchange-mpi.c's (or
 * exchange-nompi.c's, which configure chooses). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "auth.h"
#include "exchange.h"
#include "mac.h"
#include "netif.h"
#include "util.h"
#include "xmalloc.h"

#define EXCHANGE_MAGIC		"ddprank-exchange"
#define EXCHANGE_MAC		"mac "
/* A run directory name carries this many hex digits of its MAC. */
#define EXCHANGE_RUN_HEX	32

int
exchange_parse(struct exchange_opts *o, const char *spec, int have_mpi,
    char **cause)
{
	size_t	n;

	if (strcmp(spec, "mpi") == 0) {
		if (!have_mpi)
			return util_fail(cause, "ddprank was built without MPI "
			    "support (./configure --with-mpi)");
		o->method = EXCHANGE_MPI;
		return 0;
	}
	if (strncmp(spec, "dir:", 4) != 0)
		return util_fail(cause, "bad exchange '%s': expected dir:PATH "
		    "or mpi", spec);
	/* Relative paths would depend on each task's working directory. */
	if (spec[4] != '/')
		return util_fail(cause, "bad exchange '%s': PATH must be "
		    "absolute", spec);
	free(o->dir);
	o->dir = xstrdup(spec + 4);
	for (n = strlen(o->dir); n > 1 && o->dir[n - 1] == '/'; n--)
		o->dir[n - 1] = '\0';
	o->method = EXCHANGE_DIR;
	return 0;
}

void
exchange_opts_free(struct exchange_opts *o)
{
	free(o->dir);
	o->dir = NULL;
}

void
exchange_result_free(struct exchange_result *r)
{
	free(r->master_addr);
	free(r->warning);
	memset(r, 0, sizeof *r);
}

char *
exchange_dir_name(const struct auth *a, const char *label,
    const char *prefix, const char *jobid, int64_t retry)
{
	char	*s, *t, hex[AUTH_HEX_LEN + 1];

	xasprintf(&s, "%s-r%lld", jobid, (long long)retry);
	if (a == NULL || a->len == 0) {
		xasprintf(&t, "%s%s", prefix, s);
		free(s);
		return t;
	}
	if (auth_mac_hex(a, label, s, strlen(s), hex) == -1) {
		free(s);
		return NULL;
	}
	xasprintf(&t, "%s%s-%.*s", prefix, s, EXCHANGE_RUN_HEX, hex);
	free(s);
	return t;
}

char *
exchange_run_name(const struct auth *a, const char *jobid, int64_t retry)
{
	return exchange_dir_name(a, "ddprank run", "", jobid, retry);
}

/* --- entries ----------------------------------------------------------- */

void
exchange_format_entry(struct buf *b, const struct exchange_entry *e)
{
	buf_adds(b, EXCHANGE_MAGIC " " EXCHANGE_FORMAT "\n");
	if (e->task >= 0)
		buf_addf(b, "task %lld\n", (long long)e->task);
	buf_addf(b, "host %s\naddr %s\n", e->host, e->addr);
}

/* The MAC covers the run directory's name, a newline and the entry:
 * an entry of one run does not authenticate in another. */
static int
exchange_mac(const struct auth *a, const char *label, const char *run,
    const char *body, size_t len, char hex[AUTH_HEX_LEN + 1])
{
	struct mac_part	parts[3] = {
		{ run, strlen(run) }, { "\n", 1 }, { body, len }
	};

	return auth_mac_hex_parts(a, label, parts, 3, hex);
}

int
exchange_sign(struct buf *b, const struct auth *a, const char *label,
    const char *run, char **cause)
{
	char	hex[AUTH_HEX_LEN + 1];

	if (exchange_mac(a, label, run, b->s, b->len, hex) == -1)
		return util_fail(cause, "%s: HMAC-SHA256 failed: not "
		    "written unsigned", label);
	buf_addf(b, EXCHANGE_MAC "%s\n", hex);
	return 0;
}

int
exchange_sign_entry(struct buf *b, const struct auth *a, const char *run,
    char **cause)
{
	return exchange_sign(b, a, "ddprank entry", run, cause);
}

int
exchange_verify(const char *buf, size_t *len, const struct auth *a,
    const char *label, const char *run, char **cause)
{
	const char	*line;
	char		 hex[AUTH_HEX_LEN + 1];
	size_t		 n = *len, body;

	/* The last line: at least the MAC and its newline. */
	if (n < strlen(EXCHANGE_MAC) + AUTH_HEX_LEN + 1 || buf[n - 1] != '\n')
		return util_fail(cause, "not authenticated: no mac line");
	body = n - strlen(EXCHANGE_MAC) - AUTH_HEX_LEN - 1;
	line = buf + body;
	if ((body > 0 && buf[body - 1] != '\n') ||
	    memcmp(line, EXCHANGE_MAC, strlen(EXCHANGE_MAC)) != 0)
		return util_fail(cause, "not authenticated: no mac line");
	if (exchange_mac(a, label, run, buf, body, hex) == -1)
		return util_fail(cause, "cannot be checked: HMAC-SHA256 "
		    "failed");
	if (!mac_equal(hex, line + strlen(EXCHANGE_MAC), AUTH_HEX_LEN))
		return util_fail(cause, "does not authenticate: written "
		    "without this job's secret");
	*len = body;
	return 0;
}

int
exchange_verify_entry(const char *buf, size_t *len, const struct auth *a,
    const char *run, char **cause)
{
	return exchange_verify(buf, len, a, "ddprank entry", run, cause);
}

/* A short host name: letters, digits, '-' and '_' (no dots, so that it
 * can be part of a file name). */
static int
exchange_host_ok(const char *s, size_t n)
{
	size_t	i;
	char	c;

	if (n == 0 || n > EXCHANGE_HOST_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_'))
			return 0;
	}
	return 1;
}

/* Keys are lower-case letters and '_'; values printable ASCII without
 * blanks. */
static int
exchange_chars_ok(const char *s, size_t n, int key)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (key && !((s[i] >= 'a' && s[i] <= 'z') || s[i] == '_'))
			return 0;
		if (!key && (s[i] <= ' ' || s[i] > '~'))
			return 0;
	}
	return n > 0;
}

enum {
	SEEN_TASK = 0x1,
	SEEN_HOST = 0x2,
	SEEN_ADDR = 0x4
};

static int
exchange_set_value(struct exchange_entry *e, const char *key,
    const char *value, size_t lineno, char **cause)
{
	struct netif_addr	a;
	long long		v;

	if (strcmp(key, "task") == 0) {
		if (util_strtonum(value, 1, INT64_MAX, &v) == -1)
			return util_fail(cause, "line %zu: bad task id '%s'",
			    lineno, value);
		e->task = v;
	} else if (strcmp(key, "host") == 0) {
		if (!exchange_host_ok(value, strlen(value)))
			return util_fail(cause, "line %zu: bad host name '%s'",
			    lineno, value);
		/* exchange_host_ok bounds the length to fit. */
		memcpy(e->host, value, strlen(value) + 1);
	} else {
		if (strlen(value) >= sizeof e->addr ||
		    netif_addr_parse(&a, value) == -1)
			return util_fail(cause, "line %zu: bad address '%s'",
			    lineno, value);
		netif_addr_format(&a, NULL, e->addr, sizeof e->addr);
	}
	return 0;
}

static int
exchange_parse_line(struct exchange_entry *e, const char *s, size_t n,
    size_t lineno, unsigned int *seen, char **cause)
{
	static const char *const keys[] = { "task", "host", "addr" };
	char		 key[8], value[EXCHANGE_ENTRY_MAX];
	const char	*sp;
	size_t		 i, klen, vlen;

	if (lineno == 1) {
		if (n == strlen(EXCHANGE_MAGIC " " EXCHANGE_FORMAT) &&
		    memcmp(s, EXCHANGE_MAGIC " " EXCHANGE_FORMAT, n) == 0)
			return 0;
		if (n > strlen(EXCHANGE_MAGIC " ") &&
		    memcmp(s, EXCHANGE_MAGIC " ", strlen(EXCHANGE_MAGIC " ")) == 0)
			return util_fail(cause, "line 1: unsupported version");
		return util_fail(cause, "line 1: not a ddprank exchange entry");
	}
	if ((sp = memchr(s, ' ', n)) == NULL)
		return util_fail(cause, "line %zu: expected KEY VALUE", lineno);
	klen = (size_t)(sp - s);
	vlen = n - klen - 1;
	if (!exchange_chars_ok(s, klen, 1) || !exchange_chars_ok(sp + 1, vlen, 0))
		return util_fail(cause, "line %zu: expected KEY VALUE", lineno);
	/* Unknown keys are for later versions of the format to add. */
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (klen == strlen(keys[i]) && memcmp(s, keys[i], klen) == 0)
			break;
	}
	if (i == sizeof keys / sizeof keys[0])
		return 0;
	if (*seen & (1u << i))
		return util_fail(cause, "line %zu: %s given twice", lineno,
		    keys[i]);
	*seen |= 1u << i;
	memcpy(key, s, klen);
	key[klen] = '\0';
	memcpy(value, sp + 1, vlen);
	value[vlen] = '\0';
	return exchange_set_value(e, key, value, lineno, cause);
}

int
exchange_parse_entry(const char *buf, size_t len, struct exchange_entry *e,
    char **cause)
{
	const char	*p = buf, *end = buf + len, *nl;
	unsigned int	 seen = 0;
	size_t		 lineno = 0;

	memset(e, 0, sizeof *e);
	e->task = -1;
	if (len == 0)
		return util_fail(cause, "empty");
	if (len > EXCHANGE_ENTRY_MAX)
		return util_fail(cause, "too large: %zu bytes, at most %d", len,
		    EXCHANGE_ENTRY_MAX);
	if (memchr(buf, '\0', len) != NULL)
		return util_fail(cause, "holds a NUL byte");
	if (buf[len - 1] != '\n')
		return util_fail(cause, "truncated: no newline at the end");
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (exchange_parse_line(e, p, (size_t)(nl - p), ++lineno, &seen,
		    cause) == -1)
			return -1;
	}
	if ((seen & SEEN_HOST) == 0)
		return util_fail(cause, "no host");
	if ((seen & SEEN_ADDR) == 0)
		return util_fail(cause, "no addr");
	return 0;
}

/* --- order ------------------------------------------------------------- */

static int
exchange_cmp_task(const void *a, const void *b)
{
	const struct exchange_entry	*x = a, *y = b;

	return x->task < y->task ? -1 : x->task > y->task;
}

static int
exchange_cmp_host(const void *a, const void *b)
{
	const struct exchange_entry	*x = a, *y = b;
	int				 c;

	if ((c = strcasecmp(x->host, y->host)) != 0)
		return c;
	return strcmp(x->addr, y->addr);
}

int
exchange_before(const struct exchange_entry *a, const struct exchange_entry *b)
{
	if (a->task >= 0 && b->task >= 0)
		return a->task < b->task;
	if (a->task >= 0 || b->task >= 0)
		return -1;
	return strcasecmp(a->host, b->host) < 0;
}

int
exchange_order(struct exchange_entry *v, size_t n, char **cause)
{
	size_t	i;
	int	tasks = 1;

	for (i = 0; i < n; i++) {
		if (v[i].task < 0)
			tasks = 0;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, tasks ? exchange_cmp_task :
		    exchange_cmp_host);
	for (i = 1; i < n; i++) {
		if (tasks && v[i].task == v[i - 1].task)
			return util_fail(cause, "task %lld registered twice: "
			    "by %s (%s) and %s (%s)", (long long)v[i].task,
			    v[i - 1].host, v[i - 1].addr, v[i].host, v[i].addr);
		if (!tasks && strcasecmp(v[i].host, v[i - 1].host) == 0)
			return util_fail(cause, "host %s registered twice, "
			    "without task ids: %s and %s", v[i].host,
			    v[i - 1].addr, v[i].addr);
	}
	return 0;
}

/* --- the MPI numbering ----------------------------------------------- */

struct exchange_ranked {
	const struct exchange_entry	*e;
	size_t				 rank;
};

static int
exchange_cmp_ranked(const void *a, const void *b)
{
	const struct exchange_ranked	*x = a, *y = b;
	int				 c;

	if ((c = strcmp(x->e->addr, y->e->addr)) != 0)
		return c;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int
exchange_number(struct exchange_result *r, const struct exchange_entry *v,
    size_t n, size_t me, char **cause)
{
	struct exchange_ranked	*s;
	unsigned char		*leader;
	size_t			 i, lead = 0, first = me;
	int			 rc = 0;

	memset(r, 0, sizeof *r);
	/* Sorted by address, then rank, each address's first rank heads
	 * its group: O(n log n) for large jobs. */
	s = xcalloc(n, sizeof *s);
	leader = xcalloc(n, 1);
	for (i = 0; i < n; i++) {
		s[i].e = &v[i];
		s[i].rank = i;
	}
	qsort(s, n, sizeof *s, exchange_cmp_ranked);
	for (i = 0; i < n && rc == 0; i++) {
		if (i == 0 || strcmp(s[i].e->addr, s[lead].e->addr) != 0) {
			lead = i;
			leader[s[i].rank] = 1;
			r->nnodes++;
		} else if (strcasecmp(s[i].e->host, s[lead].e->host) != 0)
			rc = util_fail(cause, "MPI ranks %zu (%s) and %zu (%s) "
			    "both have the address %s: use --iface REGEX",
			    s[lead].rank, s[lead].e->host, s[i].rank,
			    s[i].e->host, s[i].e->addr);
		if (strcmp(s[i].e->addr, v[me].addr) == 0 && s[i].rank < first)
			first = s[i].rank;
	}
	for (i = 0; i < first; i++)
		r->node_rank += leader[i];
	r->duplicate = first < me;
	r->master_addr = xstrdup(v[0].addr);
	free(leader);
	free(s);
	return rc;
}

