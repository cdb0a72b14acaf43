/* exchange.c: node addresses exchanged through a shared directory or MPI. */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_MPI
#include <mpi.h>
#endif

#include "exchange.h"
#include "exitcode.h"
#include "netif.h"
#include "util.h"
#include "xmalloc.h"

#define EXCHANGE_MAGIC		"ddprank-exchange"
#define EXCHANGE_VERSION	"1"
#define EXCHANGE_ENTRY		"entry."
#define EXCHANGE_READ		"read."
/* Polling starts fast, for nodes that start together, and slows down so
 * that a long wait does not flood a file server with directory reads. */
#define EXCHANGE_POLL_MIN	0.05
#define EXCHANGE_POLL_MAX	1.0
/* Entries and names listed in a message, at most. */
#define EXCHANGE_LIST_MAX	16

static double
exchange_real_now(void *arg)
{
	struct timespec	ts;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
exchange_real_sleep(void *arg, double seconds)
{
	struct timespec	ts;

	(void)arg;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

const struct exchange_clock exchange_clock_real = {
	exchange_real_now, exchange_real_sleep, NULL
};

int
exchange_have_mpi(void)
{
#ifdef HAVE_MPI
	return 1;
#else
	return 0;
#endif
}

int
exchange_parse(struct exchange_opts *o, const char *spec, char **cause)
{
	size_t	n;

	if (strcmp(spec, "mpi") == 0) {
		if (!exchange_have_mpi())
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
exchange_run_name(const char *jobid, int64_t retry)
{
	char	*s;

	xasprintf(&s, "%s-r%lld", jobid, (long long)retry);
	return s;
}

/* --- entries ----------------------------------------------------------- */

void
exchange_format_entry(struct buf *b, const struct exchange_entry *e)
{
	buf_adds(b, EXCHANGE_MAGIC " " EXCHANGE_VERSION "\n");
	if (e->task >= 0)
		buf_addf(b, "task %lld\n", (long long)e->task);
	buf_addf(b, "host %s\naddr %s\n", e->host, e->addr);
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
		if (n == strlen(EXCHANGE_MAGIC " " EXCHANGE_VERSION) &&
		    memcmp(s, EXCHANGE_MAGIC " " EXCHANGE_VERSION, n) == 0)
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

#ifdef HAVE_MPI
/* Each rank's entry travels as its formatted text in a fixed slot. */
static int
exchange_allgather(const struct exchange_entry *self,
    struct exchange_entry **v, int *size, int *rank, char **cause)
{
	struct buf	 b;
	char		*mine, *all, *why;
	size_t		 slot = EXCHANGE_ENTRY_MAX, i, len;
	int		 rc;

	MPI_Comm_size(MPI_COMM_WORLD, size);
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	buf_init(&b);
	exchange_format_entry(&b, self);
	mine = xcalloc(1, slot);
	memcpy(mine, b.s, b.len < slot ? b.len : slot - 1);
	buf_free(&b);
	all = xcalloc((size_t)*size, slot);
	rc = MPI_Allgather(mine, (int)slot, MPI_CHAR, all, (int)slot, MPI_CHAR,
	    MPI_COMM_WORLD);
	free(mine);
	if (rc != MPI_SUCCESS) {
		free(all);
		return util_fail(cause, "exchange: MPI_Allgather failed");
	}
	*v = xcalloc((size_t)*size, sizeof **v);
	for (i = 0; i < (size_t)*size && rc == 0; i++) {
		len = strnlen(all + i * slot, slot);
		if (exchange_parse_entry(all + i * slot, len, &(*v)[i],
		    &why) == -1) {
			rc = util_fail(cause, "exchange: MPI rank %zu: %s", i,
			    why);
			free(why);
		}
	}
	free(all);
	return rc == 0 ? 0 : -1;
}

int
exchange_mpi(struct exchange_result *r, const struct exchange_opts *o,
    const struct exchange_node *x, char **cause)
{
	struct exchange_entry	*v = NULL;
	int			 size, rank, rc;

	(void)o;
	memset(r, 0, sizeof *r);
	if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
		util_fail(cause, "exchange: MPI_Init failed");
		return XC_EXCHANGE;
	}
	rc = exchange_allgather(&x->self, &v, &size, &rank, cause);
	/* Before the command is executed: torchrun must not inherit a live
	 * MPI process. */
	MPI_Finalize();
	if (rc == 0)
		rc = exchange_number(r, v, (size_t)size, (size_t)rank, cause);
	free(v);
	if (rc == -1)
		return XC_EXCHANGE;
	if (x->nnodes != 0 && r->nnodes != x->nnodes) {
		util_fail(cause, "exchange: the %d MPI processes are on %llu "
		    "nodes (distinct addresses), not --nnodes %llu", size,
		    (unsigned long long)r->nnodes,
		    (unsigned long long)x->nnodes);
		return XC_EXCHANGE;
	}
	return XC_OK;
}
#else
int
exchange_mpi(struct exchange_result *r, const struct exchange_opts *o,
    const struct exchange_node *x, char **cause)
{
	(void)o;
	(void)x;
	memset(r, 0, sizeof *r);
	util_fail(cause, "ddprank was built without MPI support "
	    "(./configure --with-mpi)");
	return XC_USAGE;
}
#endif

/* --- the shared directory ---------------------------------------------- */

/* One exchange in progress. */
struct exchange_dir_ctx {
	const struct exchange_opts	*o;
	const struct exchange_node	*x;
	const struct exchange_clock	*clock;
	char				*run;	 /* o->dir/JOBID-rRETRY */
	char				 key[EXCHANGE_HOST_MAX + 2];
	double				 mtime;	 /* of this node's entry */
	struct exchange_entry		*v;	 /* the entries found */
	size_t				 n, cap;
	size_t				 stale;	 /* entries ignored as such */
};

/* "t2" for task 2, "hnode2" for host NODE2 without a task id: the part
 * of the file names that says whose they are. */
static void
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

static double
exchange_mtime(const struct stat *st)
{
	return (double)st->st_mtim.tv_sec + (double)st->st_mtim.tv_nsec / 1e9;
}

/* Every node of a run writes its entry within the timeout of the others,
 * or they give up: a file older than this node's entry by more than the
 * timeout is left over from another run. Both times come from the file
 * server's clock, so the nodes' clocks need not agree. */
static int
exchange_is_stale(const struct exchange_dir_ctx *c, const struct stat *st)
{
	return exchange_mtime(st) < c->mtime - (double)c->o->timeout;
}

static int
exchange_mkdir(const char *path, mode_t mode, int sticky, char **cause)
{
	if (mkdir(path, mode) == -1) {
		if (errno == EEXIST)
			return 0;
		util_fail(cause, "exchange directory %s: %s", path,
		    strerror(errno));
		return XC_EXCHANGE;
	}
	/* Jobs of every user share the base directory, as they share /tmp;
	 * mkdir's mode went through the umask. */
	if (sticky && chmod(path, 01777) == -1) {
		util_fail(cause, "exchange directory %s: chmod: %s", path,
		    strerror(errno));
		return XC_EXCHANGE;
	}
	return XC_OK;
}

static int
exchange_publish(struct exchange_dir_ctx *c, char **cause)
{
	struct stat	 st;
	struct buf	 b;
	char		*path;
	int		 xc = XC_OK;

	buf_init(&b);
	exchange_format_entry(&b, &c->x->self);
	xasprintf(&path, "%s/" EXCHANGE_ENTRY "%s", c->run, c->key);
	if (util_writefile(path, b.s, b.len, 0644, cause) == -1)
		xc = XC_EXCHANGE;
	else if (stat(path, &st) == -1) {
		util_fail(cause, "%s: %s", path, strerror(errno));
		xc = XC_EXCHANGE;
	} else
		c->mtime = exchange_mtime(&st);
	free(path);
	buf_free(&b);
	return xc;
}

/* The key of an entry or marker file name, or NULL for anything else:
 * the temporary files a writer renames have a dot after the key. */
static const char *
exchange_name_key(const char *name, const char *prefix)
{
	size_t	n = strlen(prefix);

	if (strncmp(name, prefix, n) != 0 || name[n] == '\0' ||
	    strchr(name + n, '.') != NULL)
		return NULL;
	return name + n;
}

/* Reads at most EXCHANGE_ENTRY_MAX + 1 bytes: whatever is in the
 * directory, a huge file costs nothing. Returns the length, -1 on error,
 * -2 when the file has vanished. */
static ssize_t
exchange_read(const char *path, char *buf, size_t len, char **cause)
{
	size_t	got = 0;
	ssize_t	n;
	int	fd;

	/* Not blocking: a FIFO in the directory must not hang the node. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK)) == -1) {
		if (errno == ENOENT)
			return -2;
		util_fail(cause, "%s", strerror(errno));
		return -1;
	}
	while (got < len && (n = read(fd, buf + got, len - got)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			util_fail(cause, "%s", strerror(errno));
			close(fd);
			return -1;
		}
		got += (size_t)n;
	}
	close(fd);
	return (ssize_t)got;
}

static void
exchange_push(struct exchange_dir_ctx *c, const struct exchange_entry *e)
{
	if (c->n == c->cap) {
		c->cap = c->cap == 0 ? 16 : c->cap * 2;
		c->v = xreallocarray(c->v, c->cap, sizeof *c->v);
	}
	c->v[c->n++] = *e;
}

/* Reads one entry file, checks that it says what its name says. Returns
 * 1 when it was read, 0 when it vanished or is stale, -1 on error. */
static int
exchange_load(struct exchange_dir_ctx *c, const char *name, const char *key,
    char **cause)
{
	struct exchange_entry	 e;
	struct stat		 st;
	char			 buf[EXCHANGE_ENTRY_MAX + 1], *path, *why;
	char			 k[sizeof c->key];
	ssize_t			 n;
	int			 rc = -1;

	xasprintf(&path, "%s/%s", c->run, name);
	if (lstat(path, &st) == -1) {
		if (errno == ENOENT)
			rc = 0;
		else
			util_fail(cause, "exchange entry %s: %s", path,
			    strerror(errno));
	} else if (!S_ISREG(st.st_mode))
		util_fail(cause, "exchange entry %s: not a regular file", path);
	else if (exchange_is_stale(c, &st)) {
		c->stale++;
		rc = 0;
	} else if ((n = exchange_read(path, buf, sizeof buf, &why)) == -2)
		rc = 0;
	else if (n == -1) {
		util_fail(cause, "exchange entry %s: %s", path, why);
		free(why);
	} else if (n > EXCHANGE_ENTRY_MAX)
		util_fail(cause, "exchange entry %s: larger than %d bytes", path,
		    EXCHANGE_ENTRY_MAX);
	else if (exchange_parse_entry(buf, (size_t)n, &e, &why) == -1) {
		util_fail(cause, "exchange entry %s: %s", path, why);
		free(why);
	} else {
		exchange_key(&e, k, sizeof k);
		if (strcmp(k, key) != 0)
			util_fail(cause, "exchange entry %s: its name does not "
			    "match its contents (%s)", path, k);
		else {
			exchange_push(c, &e);
			rc = 1;
		}
	}
	free(path);
	return rc;
}

/* Lists the entries of the run directory into c->v. */
static int
exchange_scan(struct exchange_dir_ctx *c, char **cause)
{
	struct dirent	*d;
	const char	*key;
	DIR		*dir;
	int		 rc = 0;

	c->n = 0;
	c->stale = 0;
	if ((dir = opendir(c->run)) == NULL) {
		util_fail(cause, "exchange directory %s: %s", c->run,
		    strerror(errno));
		return -1;
	}
	while (rc != -1 && (d = readdir(dir)) != NULL) {
		if ((key = exchange_name_key(d->d_name, EXCHANGE_ENTRY)) != NULL)
			rc = exchange_load(c, d->d_name, key, cause);
	}
	closedir(dir);
	return rc == -1 ? -1 : 0;
}

static const struct exchange_entry *
exchange_find(const struct exchange_dir_ctx *c, const char *key)
{
	char	k[sizeof c->key];
	size_t	i;

	for (i = 0; i < c->n; i++) {
		exchange_key(&c->v[i], k, sizeof k);
		if (strcmp(k, key) == 0)
			return &c->v[i];
	}
	return NULL;
}

static void
exchange_describe(struct buf *b, const struct exchange_entry *e)
{
	if (e->task >= 0)
		buf_addf(b, "task %lld ", (long long)e->task);
	buf_addf(b, "%s (%s)", e->host, e->addr);
}

static int
exchange_cmp_int64(const void *a, const void *b)
{
	const int64_t	*x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* The distinct task ids from 1 to nnodes among the entries, sorted into
 * v (caller frees); returns how many. */
static size_t
exchange_tasks(const struct exchange_dir_ctx *c, int64_t **v)
{
	size_t	i, n = 0, m = 0;

	*v = xcalloc(c->n, sizeof **v);
	for (i = 0; i < c->n; i++) {
		if (c->v[i].task >= 1 && (uint64_t)c->v[i].task <= c->x->nnodes)
			(*v)[n++] = c->v[i].task;
	}
	qsort(*v, n, sizeof **v, exchange_cmp_int64);
	for (i = 0; i < n; i++) {
		if (m == 0 || (*v)[i] != (*v)[m - 1])
			(*v)[m++] = (*v)[i];
	}
	return m;
}

/* "missing task ids 2, 4" when the entries have task ids, numbered 1
 * to nnodes as HPC Pack numbers the tasks of a job from ddpgen. With
 * nnodes up to HOSTLIST_MAX_HOSTS, only the ids listed are looked for:
 * the others are counted from the ids present. */
static void
exchange_missing(struct buf *b, const struct exchange_dir_ctx *c)
{
	uint64_t	 t, shown = 0, absent, missing = c->x->nnodes - c->n;
	int64_t		*task;
	size_t		 i = 0, n;

	if (c->x->self.task < 0) {
		buf_addf(b, "%llu missing (no task ids to name them)",
		    (unsigned long long)missing);
		return;
	}
	n = exchange_tasks(c, &task);
	absent = c->x->nnodes - n;
	buf_adds(b, "missing task ids");
	for (t = 1; shown < absent && shown < EXCHANGE_LIST_MAX; t++) {
		if (i < n && (uint64_t)task[i] == t)
			i++;
		else
			buf_addf(b, "%s %llu", shown++ == 0 ? "" : ",",
			    (unsigned long long)t);
	}
	free(task);
	if (absent > EXCHANGE_LIST_MAX)
		buf_addf(b, " and %llu more", (unsigned long long)(absent -
		    EXCHANGE_LIST_MAX));
	if (absent != missing)
		buf_addf(b, "%s (task ids are not 1 to %llu)",
		    absent == 0 ? " unknown" : "",
		    (unsigned long long)c->x->nnodes);
}

static void
exchange_arrived(struct buf *b, const struct exchange_dir_ctx *c)
{
	size_t	i;

	buf_adds(b, "arrived:");
	for (i = 0; i < c->n && i < EXCHANGE_LIST_MAX; i++) {
		buf_adds(b, i == 0 ? " " : ", ");
		exchange_describe(b, &c->v[i]);
	}
	if (c->n > EXCHANGE_LIST_MAX)
		buf_addf(b, " and %zu more", c->n - EXCHANGE_LIST_MAX);
}

/* Opens a message that goes on to list the entries: "exchange in RUN",
 * the entries put in node order first. A duplicate exchange_order finds
 * is not what such a message is about. */
static void
exchange_msg_start(struct exchange_dir_ctx *c, struct buf *b)
{
	char	*ignore;

	if (exchange_order(c->v, c->n, &ignore) == -1)
		free(ignore);
	buf_init(b);
	buf_addf(b, "exchange in %s", c->run);
}

static int
exchange_timed_out(struct exchange_dir_ctx *c, char **cause)
{
	struct buf	b;

	exchange_msg_start(c, &b);
	buf_addf(&b, " timed out after %d s: %zu of %llu nodes arrived; ",
	    c->o->timeout, c->n, (unsigned long long)c->x->nnodes);
	exchange_missing(&b, c);
	buf_adds(&b, "; ");
	exchange_arrived(&b, c);
	if (c->stale > 0)
		buf_addf(&b, "; ignored %zu stale entr%s", c->stale,
		    c->stale == 1 ? "y" : "ies");
	*cause = b.s;
	return XC_EXCHANGE;
}

static int
exchange_too_many(struct exchange_dir_ctx *c, char **cause)
{
	struct buf	b;

	exchange_msg_start(c, &b);
	buf_addf(&b, ": %zu nodes registered, more than --nnodes %llu; ",
	    c->n, (unsigned long long)c->x->nnodes);
	exchange_arrived(&b, c);
	*cause = b.s;
	return XC_EXCHANGE;
}

/* Sleeps *poll seconds between two polls and doubles *poll, up to
 * EXCHANGE_POLL_MAX. */
static void
exchange_pause(struct exchange_dir_ctx *c, double *poll)
{
	c->clock->sleep(c->clock->arg, *poll);
	if ((*poll *= 2) > EXCHANGE_POLL_MAX)
		*poll = EXCHANGE_POLL_MAX;
}

/* Polls the run directory until nnodes entries are there. */
static int
exchange_gather(struct exchange_dir_ctx *c, char **cause)
{
	double	start = c->clock->now(c->clock->arg), poll = EXCHANGE_POLL_MIN;

	for (;;) {
		if (exchange_scan(c, cause) == -1)
			return XC_EXCHANGE;
		if (exchange_find(c, c->key) == NULL) {
			util_fail(cause, "exchange in %s: this node's entry "
			    "%s%s has vanished", c->run, EXCHANGE_ENTRY, c->key);
			return XC_EXCHANGE;
		}
		if (c->n == c->x->nnodes)
			return XC_OK;
		if (c->n > c->x->nnodes)
			return exchange_too_many(c, cause);
		if (c->clock->now(c->clock->arg) - start >= c->o->timeout)
			return exchange_timed_out(c, cause);
		exchange_pause(c, &poll);
	}
}

static int
exchange_mark_read(struct exchange_dir_ctx *c, char **cause)
{
	char	*path;
	int	 rc;

	xasprintf(&path, "%s/" EXCHANGE_READ "%s", c->run, c->key);
	rc = util_writefile(path, "", 0, 0644, cause);
	free(path);
	return rc == -1 ? XC_EXCHANGE : XC_OK;
}

/* The nodes that have not yet said they read the directory, as a list
 * for a message; NULL when there are none. */
static char *
exchange_unread(struct exchange_dir_ctx *c)
{
	struct stat	 st;
	struct buf	 b;
	char		*path, k[sizeof c->key];
	size_t		 i, missing = 0;

	buf_init(&b);
	for (i = 0; i < c->n; i++) {
		exchange_key(&c->v[i], k, sizeof k);
		xasprintf(&path, "%s/" EXCHANGE_READ "%s", c->run, k);
		if (lstat(path, &st) == -1 || exchange_is_stale(c, &st)) {
			if (missing++ < EXCHANGE_LIST_MAX) {
				buf_adds(&b, missing == 1 ? "" : ", ");
				exchange_describe(&b, &c->v[i]);
			}
		}
		free(path);
	}
	if (missing > EXCHANGE_LIST_MAX)
		buf_addf(&b, " and %zu more", missing - EXCHANGE_LIST_MAX);
	if (missing == 0) {
		buf_free(&b);
		return NULL;
	}
	return b.s;
}

/* Removes dir and the files in it; -1 with errno set on failure. */
static int
exchange_rmdir(const char *dir)
{
	struct dirent	*d;
	DIR		*dp;
	char		*path;
	int		 saved = 0;

	if ((dp = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((d = readdir(dp)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		xasprintf(&path, "%s/%s", dir, d->d_name);
		if (unlink(path) == -1 && errno != ENOENT && saved == 0)
			saved = errno;
		free(path);
	}
	closedir(dp);
	if (rmdir(dir) == -1 && errno != ENOENT && saved == 0)
		saved = errno;
	errno = saved;
	return saved == 0 ? 0 : -1;
}

/* The directories of earlier runs of this job, left by a run that
 * failed before its node 0 could clean up: the scheduler reran the job,
 * so nothing uses them any more. */
static void
exchange_rm_earlier(struct exchange_dir_ctx *c)
{
	struct dirent	*d;
	DIR		*dp;
	const char	*s;
	char		*path, *prefix;
	long long	 r;
	size_t		 n;

	if (c->x->retry == 0 || (dp = opendir(c->o->dir)) == NULL)
		return;
	xasprintf(&prefix, "%s-r", c->x->jobid);
	n = strlen(prefix);
	while ((d = readdir(dp)) != NULL) {
		s = d->d_name;
		if (strncmp(s, prefix, n) != 0 || util_strtonum(s + n, 0,
		    INT64_MAX, &r) == -1 || r >= c->x->retry)
			continue;
		xasprintf(&path, "%s/%s", c->o->dir, s);
		(void)exchange_rmdir(path);
		free(path);
	}
	closedir(dp);
	free(prefix);
}

/* Node 0 removes the run directory once every node has read it, waiting
 * a bounded time: a node that crashed after registering never confirms,
 * and then the directory stays, with a warning. The earlier runs' go
 * first, whatever the wait brings: every node is in this run, so none
 * reads them, and node 0 may be killed while it waits. */
static void
exchange_cleanup(struct exchange_dir_ctx *c, struct exchange_result *r)
{
	double	 start = c->clock->now(c->clock->arg), poll = EXCHANGE_POLL_MIN;
	double	 limit = c->o->timeout < EXCHANGE_CLEANUP_WAIT ?
		    c->o->timeout : EXCHANGE_CLEANUP_WAIT;
	char	*unread;

	exchange_rm_earlier(c);
	while ((unread = exchange_unread(c)) != NULL) {
		if (c->clock->now(c->clock->arg) - start >= limit) {
			xasprintf(&r->warning, "exchange: leaving %s in place: "
			    "no confirmation after %.0f s that %s read it",
			    c->run, limit, unread);
			free(unread);
			return;
		}
		free(unread);
		exchange_pause(c, &poll);
	}
	if (exchange_rmdir(c->run) == -1)
		xasprintf(&r->warning, "exchange: cannot remove %s: %s",
		    c->run, strerror(errno));
}

static int
exchange_dir_run(struct exchange_dir_ctx *c, struct exchange_result *r,
    char **cause)
{
	const struct exchange_entry	*self;
	char				 key[sizeof c->key], *why;
	int				 xc;

	if ((xc = exchange_mkdir(c->o->dir, 0777, 1, cause)) != XC_OK ||
	    (xc = exchange_mkdir(c->run, 0755, 0, cause)) != XC_OK ||
	    (xc = exchange_publish(c, cause)) != XC_OK ||
	    (xc = exchange_gather(c, cause)) != XC_OK)
		return xc;
	if (exchange_order(c->v, c->n, &why) == -1) {
		util_fail(cause, "exchange in %s: %s", c->run, why);
		free(why);
		return XC_EXCHANGE;
	}
	for (r->node_rank = 0; r->node_rank < c->n; r->node_rank++) {
		self = &c->v[r->node_rank];
		exchange_key(self, key, sizeof key);
		if (strcmp(key, c->key) == 0)
			break;
	}
	r->nnodes = c->n;
	r->master_addr = xstrdup(c->v[0].addr);
	if ((xc = exchange_mark_read(c, cause)) != XC_OK)
		return xc;
	if (r->node_rank == 0)
		exchange_cleanup(c, r);
	return XC_OK;
}

int
exchange_dir(struct exchange_result *r, const struct exchange_opts *o,
    const struct exchange_node *x, char **cause)
{
	struct exchange_dir_ctx	 c;
	char			*name;
	int			 xc;

	memset(r, 0, sizeof *r);
	if (x->nnodes == 0) {
		util_fail(cause, "--exchange dir: needs --nnodes N, the number "
		    "of nodes to wait for");
		return XC_USAGE;
	}
	if (x->jobid == NULL) {
		util_fail(cause, "--exchange dir: needs a job id to name its "
		    "directory, and none is set (CCP_JOBID, SLURM_JOB_ID, "
		    "PBS_JOBID or LSB_JOBID)");
		return XC_EXCHANGE;
	}
	memset(&c, 0, sizeof c);
	c.o = o;
	c.x = x;
	c.clock = o->clock != NULL ? o->clock : &exchange_clock_real;
	name = exchange_run_name(x->jobid, x->retry);
	xasprintf(&c.run, "%s/%s", o->dir, name);
	free(name);
	exchange_key(&x->self, c.key, sizeof c.key);
	xc = exchange_dir_run(&c, r, cause);
	free(c.v);
	free(c.run);
	return xc;
}
