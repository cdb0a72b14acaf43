/* hangwatch.c: the heartbeat contract kept on a node (hangwatch.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hang.h"
#include "hangwatch.h"
#include "nodes.h"
#include "resolve.h"
#include "restart.h"
#include "sdir.h"
#include "state.h"
#include "util.h"
#include "watch.h"
#include "xmalloc.h"

/* The flight recorder's ring (entries), where torch has it (2.5 and
 * later read it; older ones ignore it). */
#define NCCL_TRACE_ENTRIES	"2000"
#define NCCL_PIPE_PREFIX	"nccl_dump_"
#define STACKS_PREFIX		"stacks."
#define RECORD_PREFIX		"rec."

static double
clock_of(clockid_t id)
{
	struct timespec	ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
wall(void)
{
	return clock_of(CLOCK_REALTIME);
}

static void
sleep_ms(int ms)
{
	struct timespec	ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Writes all of b to fd, whatever a signal or a full pipe does. */
static void
write_all(int fd, const struct buf *b)
{
	size_t	off = 0;
	ssize_t	n;

	while (off < b->len) {
		if ((n = write(fd, b->s + off, b->len - off)) == -1) {
			if (errno == EINTR || errno == EAGAIN) {
				sleep_ms(10);
				continue;
			}
			return;
		}
		off += (size_t)n;
	}
}

/* "ddprank: NODE: " and a formatted line, on standard error whole. */
static void __attribute__((format(printf, 2, 3)))
say(const struct hangwatch *hw, const char *fmt, ...)
{
	struct buf	b, line;
	va_list		ap;
	char		*s;

	va_start(ap, fmt);
	xvasprintf(&s, fmt, ap);
	va_end(ap);
	buf_init(&line);
	buf_addf(&line, "%s: %s", hw->node, s);
	free(s);
	buf_init(&b);
	util_warnline(&b, line.s);
	write_all(STDERR_FILENO, &b);
	buf_free(&b);
	buf_free(&line);
}

char *
hangwatch_run_name(const struct nodes_env *env, int sched,
    const char *hostfile, char **cause)
{
	struct nodes_job	 job;
	struct restart		 r;
	char			*id, *s, *why;

	if (nodes_job(&job, env, nodes_sched_resolve(env, (enum sched_id)sched,
	    hostfile), cause) == -1)
		return NULL;
	if (!job.set) {
		util_fail(cause, "no job id in the environment");
		return NULL;
	}
	/* The batch job's, which its script and every run of it share: not
	 * a Slurm step's, nor a flux run's (port_id: FLUX_ENCLOSING_ID). */
	job.step = -1;
	job.id = job.port_id;
	id = nodes_job_string(&job);
	if (restart_read(&r, util_getenv, &why) == -1) {
		free(why);
		r.count = 0;
	}
	xasprintf(&s, "%s-%lld", id, r.count);
	free(id);
	return s;
}

int
hangwatch_jobdir(struct sdir *base, struct sdir *run, const char *basepath,
    const char *name, char **cause)
{
	sdir_init(run, geteuid());
	if (state_open(base, basepath, basepath == NULL ? STATE_JOBS : NULL,
	    util_getenv, "job directory base", cause) == -1)
		return -1;
	if (sdir_open_run(run, base, name, "job directory", cause) == -1) {
		sdir_close(base);
		return -1;
	}
	return 0;
}

void
hangwatch_target(struct hangwatch *hw, const char *node, const char *addr,
    int port)
{
	char	host[256];

	free(hw->node);
	free(hw->addr);
	if (node == NULL) {
		if (gethostname(host, sizeof host) == -1)
			snprintf(host, sizeof host, "this-node");
		host[sizeof host - 1] = '\0';
		node = host;
	}
	hw->node = xstrdup(node);
	hw->addr = addr != NULL ? xstrdup(addr) : NULL;
	hw->port = port;
}

/*
 * A container may show the workers another directory at /tmp: ch-run
 * binds the host's TMPDIR there when it is set (ch-run(1), -t). So the
 * heartbeat directory's name is made under TMPDIR too, and each file is
 * read as its worker sees it, through /proc/PID/root: in the
 * directory it writes to, whichever that is. The name is mkdtemp's, in
 * a directory of this user's (or /tmp); one that exists already under
 * TMPDIR is not taken.
 */
static void
make_alt(struct hangwatch *hw)
{
	const char	*tmp = getenv("TMPDIR");
	char		*alt;

	if (tmp == NULL || tmp[0] != '/' || strcmp(tmp, "/tmp") == 0 ||
	    strcmp(tmp, "/tmp/") == 0)
		return;
	xasprintf(&alt, "%s/%s", tmp, strrchr(hw->dir, '/') + 1);
	if (mkdir(alt, 0700) == -1) {
		free(alt);
		return;
	}
	hw->alt = alt;
}

/* DIR/NAME as worker pid sees it, when its root can be read; else as
 * this process does. The caller frees. */
static char *
worker_path(const struct hangwatch *hw, pid_t pid, const char *name)
{
	struct stat	 st;
	char		*s;

	if (hw->proc != NULL && pid > 0) {
		xasprintf(&s, "%s/%ld/root%s", hw->proc, (long)pid, hw->dir);
		if (stat(s, &st) == 0 && S_ISDIR(st.st_mode)) {
			free(s);
			xasprintf(&s, "%s/%ld/root%s/%s", hw->proc, (long)pid,
			    hw->dir, name);
			return s;
		}
		free(s);
	}
	xasprintf(&s, "%s/%s", hw->dir, name);
	return s;
}

static int
setenv_default(const char *name, const char *value, char **cause)
{
	if (getenv(name) != NULL)
		return 0;
	if (setenv(name, value, 1) == -1)
		return util_fail(cause, "setenv %s: %s", name, strerror(errno));
	return 0;
}

/* The flight recorder writes its dumps into the job directory, which
 * outlives the node; a write to its pipe in the heartbeat directory
 * asks for one (torch 2.5 and later). */
static int
setup_nccl(struct hangwatch *hw, char **warning, char **cause)
{
	struct sdir	 base, run;
	char		*s, *why;
	int		 rc;

	xasprintf(&s, "%s/" NCCL_PIPE_PREFIX, hw->dir);
	rc = setenv_default("TORCH_NCCL_DEBUG_INFO_PIPE_FILE", s, cause);
	free(s);
	if (rc == -1 || setenv_default("TORCH_NCCL_TRACE_BUFFER_SIZE",
	    NCCL_TRACE_ENTRIES, cause) == -1 ||
	    setenv_default("TORCH_NCCL_DUMP_ON_TIMEOUT", "1", cause) == -1)
		return -1;
	if (hw->run == NULL)
		return 0;
	if (hangwatch_jobdir(&base, &run, hw->base, hw->run, &why) == -1) {
		xasprintf(warning, "warning: %s: no record of a stall and no "
		    "flight recorder dump will be kept", why);
		free(why);
		return 0;
	}
	xasprintf(&s, "%s/%s/nccl_trace_rank_", base.path, hw->run);
	rc = setenv_default("TORCH_NCCL_DEBUG_INFO_TEMP_FILE", s, cause);
	free(s);
	sdir_close(&run);
	sdir_close(&base);
	return rc;
}

int
hangwatch_setup(struct hangwatch *hw, char **warning, char **cause)
{
	char	*t;

	*warning = NULL;
	if (hw->timeout == 0)
		return 0;
	/* /tmp, not TMPDIR: a container that shares the node's /tmp
	 * (Apptainer, Charliecloud) need not share TMPDIR's. */
	t = xstrdup("/tmp/ddprank-beat.XXXXXX");
	if (mkdtemp(t) == NULL) {
		util_fail(cause, "heartbeat directory %s: %s", t,
		    strerror(errno));
		free(t);
		return -1;
	}
	hw->dir = t;
	make_alt(hw);
	hw->tck = sysconf(_SC_CLK_TCK);
	if (hw->tck <= 0)
		hw->tck = 100;
	/* /proc counts a process's start from boot, suspends included. */
	hw->boot = wall() - clock_of(CLOCK_BOOTTIME);
	if (setenv("DDPGEN_HEARTBEAT", hw->dir, 1) == -1)
		return util_fail(cause, "setenv DDPGEN_HEARTBEAT: %s",
		    strerror(errno));
	/* Every thread's stack on a fatal signal: NCCL's watchdog aborts,
	 * and SIGABRT is the last resort below. */
	if (setenv_default("PYTHONFAULTHANDLER", "1", cause) == -1)
		return -1;
	return setup_nccl(hw, warning, cause);
}

/* --- the look ---------------------------------------------------------- */

static struct hangwatch_worker *
find_worker(struct hangwatch *hw, pid_t pid, unsigned long long start)
{
	size_t	i;

	for (i = 0; i < hw->nw; i++)
		if (hw->w[i].pid == pid && hw->w[i].starttime == start)
			return &hw->w[i];
	return NULL;
}

static int
rank_seen(const struct hangwatch *hw, long rank)
{
	size_t	i;

	for (i = 0; i < hw->nw; i++)
		if (hw->w[i].seen && hw->w[i].rank == rank)
			return 1;
	return 0;
}

/* A new process of the launcher's tree: a worker when torchrun (or the
 * launcher, or ddprank) gave it a RANK; its children that inherit the
 * same RANK (a data loader's) are not. */
static void
add_worker(struct hangwatch *hw, const struct watch *w, pid_t pid,
    const struct watch_stat *st)
{
	struct hangwatch_worker	*k;
	struct watch_env	 e;
	char			*env;
	size_t			 len;

	if (hw->nw == WATCH_MAX ||
	    (env = watch_read_env(w, pid, &len)) == NULL)
		return;
	watch_env_parse(env, len, &e);
	free(env);
	/* Between fork and exec a worker has its parent's environment:
	 * its RANK comes with the exec. */
	if (e.rank < 0 || rank_seen(hw, e.rank))
		return;
	k = &hw->w[hw->nw++];
	memset(k, 0, sizeof *k);
	k->pid = pid;
	k->starttime = st->starttime;
	k->rank = e.rank;
	k->local_rank = e.local_rank;
	k->start = hw->boot + (double)st->starttime / (double)hw->tck;
	k->age = -1;
	k->seen = 1;
}

static void
forget_unseen(struct hangwatch *hw)
{
	size_t	i, j;

	for (i = j = 0; i < hw->nw; i++) {
		if (hw->w[i].seen)
			hw->w[j++] = hw->w[i];
		else
			free(hw->w[i].stacks);
	}
	hw->nw = j;
}

static double
beat_of(const struct hangwatch *hw, const struct hangwatch_worker *k)
{
	struct stat	 st;
	char		 name[32], *path;
	int		 rc;

	snprintf(name, sizeof name, "%ld", k->rank);
	path = worker_path(hw, k->pid, name);
	rc = stat(path, &st);
	free(path);
	if (rc == -1)
		return 0;
	return (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9;
}

/* Reads the launcher's tree and judges every worker; 1 on a stall. */
static int
look(struct hangwatch *hw, const struct watch *w, double now)
{
	struct hangwatch_worker	*k;
	struct watch_stat	 st;
	pid_t			 pids[WATCH_MAX];
	size_t			 i, n;
	int			 stalled = 0;

	hw->proc = w->proc;
	for (i = 0; i < hw->nw; i++)
		hw->w[i].seen = 0;
	n = watch_descendants(w, pids, WATCH_MAX);
	/* Parents first: a worker before its children. */
	for (i = 0; i < n; i++) {
		if (watch_read_stat(w, pids[i], &st) == -1 || st.state == 'Z')
			continue;
		if ((k = find_worker(hw, pids[i], st.starttime)) != NULL) {
			k->seen = !rank_seen(hw, k->rank);
			continue;
		}
		add_worker(hw, w, pids[i], &st);
	}
	forget_unseen(hw);
	for (i = 0; i < hw->nw; i++) {
		k = &hw->w[i];
		k->state = hang_judge(now, k->start, beat_of(hw, k),
		    hw->timeout, &k->age);
		if (k->state == HANG_UNSIGNED)
			k->age = -1;
		stalled |= k->state == HANG_STALLED;
	}
	return stalled;
}

/* --- the evidence ------------------------------------------------------ */

static char *
stacks_path(const struct hangwatch *hw, pid_t pid)
{
	char	name[64];

	snprintf(name, sizeof name, STACKS_PREFIX "%ld", (long)pid);
	return worker_path(hw, pid, name);
}

static off_t
file_size(const char *path)
{
	struct stat	st;

	return stat(path, &st) == -1 ? -1 : st.st_size;
}

static void
read_stacks(struct hangwatch_worker *k, const char *path)
{
	char	*s, *cause;
	size_t	 len;

	if ((s = util_readfile_max(path, HANG_STACKS_MAX, &len,
	    &cause)) == NULL) {
		free(cause);
		return;
	}
	if (len == 0) {
		free(s);
		return;
	}
	k->stacks = s;
	k->stacks_len = len;
}

/* Asks every worker the hook registered in for its stacks, and waits
 * for them: faulthandler writes from its signal handler, at once even
 * in a collective that holds the GIL. */
static void
dump_stacks(struct hangwatch *hw)
{
	char	*path;
	size_t	 i, left = 0;
	int	 ms;

	for (i = 0; i < hw->nw; i++) {
		path = stacks_path(hw, hw->w[i].pid);
		hw->w[i].hooked = file_size(path) == 0;
		free(path);
		if (hw->w[i].hooked && kill(hw->w[i].pid, HANGWATCH_SIGNAL) ==
		    0)
			left++;
		else
			hw->w[i].hooked = 0;
	}
	for (ms = 0; left > 0 && ms < HANGWATCH_DUMP_MS; ms += 100) {
		sleep_ms(100);
		for (left = 0, i = 0; i < hw->nw; i++) {
			path = stacks_path(hw, hw->w[i].pid);
			left += hw->w[i].hooked && file_size(path) <= 0;
			free(path);
		}
	}
	/* The last write of a dump follows its first within microseconds. */
	sleep_ms(100);
	for (i = 0; i < hw->nw; i++) {
		if (!hw->w[i].hooked)
			continue;
		path = stacks_path(hw, hw->w[i].pid);
		read_stacks(&hw->w[i], path);
		free(path);
	}
}

/* One write to each flight recorder pipe: torch dumps that rank's
 * recent collectives into the job directory. */
static void
dump_nccl_in(const char *dir)
{
	struct dirent	*de;
	DIR		*d;
	int		 dfd, fd;

	if ((d = opendir(dir)) == NULL)
		return;
	dfd = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, NCCL_PIPE_PREFIX,
		    sizeof NCCL_PIPE_PREFIX - 1) != 0)
			continue;
		fd = openat(dfd, de->d_name, O_WRONLY | O_NONBLOCK |
		    O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1)
			continue;
		(void)write(fd, "1\n", 2);
		close(fd);
	}
	closedir(d);
}

static void
dump_nccl(const struct hangwatch *hw)
{
	dump_nccl_in(hw->dir);
	if (hw->alt != NULL)
		dump_nccl_in(hw->alt);
}

/* Whether node 0's address answers on the training's port: a
 * connection, or a refusal (the host is there), is an answer. */
static int
probe(const struct hangwatch *hw, char **why)
{
	struct addrinfo	 hints, *ai;
	struct pollfd	 pfd;
	socklen_t	 len = sizeof(int);
	char		 serv[16];
	int		 fd, rc, err = 0;

	*why = NULL;
	if (hw->addr == NULL)
		return 1;
	memset(&hints, 0, sizeof hints);
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(serv, sizeof serv, "%d", hw->port);
	if ((rc = resolve_addrinfo(hw->addr, serv, &hints, &ai)) != 0) {
		xasprintf(why, "%s: %s", hw->addr, gai_strerror(rc));
		return 0;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd == -1)
		err = errno;
	else if (connect(fd, ai->ai_addr, ai->ai_addrlen) == -1 &&
	    (err = errno) == EINPROGRESS) {
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, HANGWATCH_PROBE_MS) <= 0)
			err = ETIMEDOUT;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
			err = errno;
	}
	if (fd != -1)
		close(fd);
	resolve_free(ai);
	if (err == 0 || err == ECONNREFUSED)
		return 1;
	xasprintf(why, "%s port %d: %s", hw->addr, hw->port,
	    err == ETIMEDOUT ? "no answer in 2 s" : strerror(err));
	return 0;
}

static int
cmp_worker(const void *a, const void *b)
{
	const struct hangwatch_worker	*x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

static void
add_state(struct buf *b, const struct hangwatch *hw,
    const struct hangwatch_worker *k)
{
	if (k->state == HANG_UNSIGNED)
		buf_adds(b, "never beat");
	else if (k->state == HANG_STALLED)
		buf_addf(b, "has not beaten for %.0f s (the limit is %d s)",
		    k->age, hw->timeout);
	else
		buf_addf(b, "beat %.0f s ago", k->age);
}

/* Each worker's stacks, every line labelled with the node and rank,
 * one write each. */
static void
print_stacks(const struct hangwatch *hw)
{
	const struct hangwatch_worker	*k;
	struct buf			 b;
	const char			*p, *end, *nl;
	size_t				 i;

	for (i = 0; i < hw->nw; i++) {
		k = &hw->w[i];
		buf_init(&b);
		buf_addf(&b, "ddprank: %s: rank %ld (local rank %ld, pid "
		    "%ld) ", hw->node, k->rank, k->local_rank, (long)k->pid);
		add_state(&b, hw, k);
		buf_adds(&b, k->stacks != NULL ? "; its stacks:\n" :
		    k->hooked ? "; it wrote no stacks\n" :
		    "; no stack hook in it: its stacks come when it is ended\n");
		for (p = k->stacks, end = p + k->stacks_len; p != NULL &&
		    p < end; p = nl + 1) {
			if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
				nl = end;
			if (nl == p)
				continue;
			buf_addf(&b, "ddprank: %s: rank %ld: ", hw->node,
			    k->rank);
			util_addvis(&b, p, (size_t)(nl - p));
			buf_addc(&b, '\n');
		}
		write_all(STDERR_FILENO, &b);
		buf_free(&b);
	}
}

static void
write_record(struct hangwatch *hw, const struct hang_record *r)
{
	struct sdir	 base, run;
	struct buf	 b;
	char		*name, *cause;

	if (hw->run == NULL)
		return;
	if (hangwatch_jobdir(&base, &run, hw->base, hw->run, &cause) == -1) {
		say(hw, "no record of this node: %s", cause);
		free(cause);
		return;
	}
	buf_init(&b);
	hang_record_format(&b, r);
	xasprintf(&name, RECORD_PREFIX "%s.%ld", hw->node, (long)getpid());
	if (sdir_write(&run, name, b.s, b.len, NULL, &cause) == -1) {
		say(hw, "no record of this node: %s", cause);
		free(cause);
	} else
		hw->recorded = 1;
	free(name);
	buf_free(&b);
	sdir_close(&run);
	sdir_close(&base);
}

/* This node's record: its ranks, their beats and main threads' frames,
 * and whether node 0 answered. */
static void
record(struct hangwatch *hw, int reached, const char *why)
{
	struct hang_record	r;
	struct hang_rank	k;
	size_t			i;

	hang_record_init(&r);
	r.node = xstrdup(hw->node);
	r.limit = hw->timeout;
	r.unreachable = !reached;
	r.reach = why != NULL ? xstrdup(why) : NULL;
	for (i = 0; i < hw->nw; i++) {
		memset(&k, 0, sizeof k);
		k.rank = hw->w[i].rank;
		k.local_rank = hw->w[i].local_rank;
		k.age = hw->w[i].age;
		k.stalled = hw->w[i].state == HANG_STALLED;
		if (hw->w[i].stacks != NULL &&
		    hang_stacks_parse(hw->w[i].stacks, hw->w[i].stacks_len,
		    &k.frames, &k.nframes) == -1)
			k.frames = NULL;
		hang_record_add(&r, &k);
	}
	write_record(hw, &r);
	hang_record_free(&r);
}

static void
fire(struct hangwatch *hw, double now)
{
	const struct hangwatch_worker	*k = NULL;
	size_t				 i;
	char				*why;
	int				 reached;

	qsort(hw->w, hw->nw, sizeof *hw->w, cmp_worker);
	for (i = 0; i < hw->nw && k == NULL; i++)
		if (hw->w[i].state == HANG_STALLED)
			k = &hw->w[i];
	say(hw, "rank %ld has not beaten for %.0f s (the stall limit is %d "
	    "s): taking every local worker's stacks, then ending the "
	    "training in %d s", k->rank, k->age, hw->timeout, HANG_DUMP_WAIT);
	dump_stacks(hw);
	dump_nccl(hw);
	reached = probe(hw, &why);
	print_stacks(hw);
	if (!reached)
		say(hw, "node 0 does not answer: %s", why);
	record(hw, reached, why);
	free(why);
	hw->fired = 1;
	hw->fired_at = now;
}

enum watch_verdict
hangwatch_tick(struct hangwatch *hw, const struct watch *w)
{
	double	now = wall();

	if (hw->timeout == 0 || hw->dir == NULL)
		return WATCH_WAIT;
	if (hw->fired)
		return now - hw->fired_at >= HANG_DUMP_WAIT ? WATCH_END :
		    WATCH_WAIT;
	if (now < hw->next)
		return WATCH_WAIT;
	hw->next = now + 1;
	if (look(hw, w, now))
		fire(hw, now);
	return WATCH_WAIT;
}

/* Waits up to ms for pid (started at start) to be gone or a zombie. */
static void
wait_gone(const struct watch *w, pid_t pid, unsigned long long start, int ms)
{
	struct watch_stat	st;

	for (; ms > 0; ms -= 50) {
		if (watch_read_stat(w, pid, &st) == -1 || st.state == 'Z' ||
		    st.starttime != start)
			return;
		sleep_ms(50);
	}
}

void
hangwatch_end(struct hangwatch *hw, const struct watch *w)
{
	struct hangwatch_worker	*k;
	struct rlimit		 none = { 0, 0 };
	size_t			 i;
	int			 frozen = 0;

	/* A launcher that saw a worker die would restart the group or end
	 * the others before their turn: it waits, stopped. */
	for (i = 0; i < hw->nw && !frozen; i++)
		frozen = !hw->w[i].hooked && hw->w[i].pid != w->launcher;
	if (frozen)
		(void)kill(w->launcher, SIGSTOP);
	for (i = 0; i < hw->nw; i++) {
		k = &hw->w[i];
		if (k->hooked)
			continue;
		say(hw, "rank %ld (pid %ld): SIGABRT, for the stacks Python "
		    "prints on it (PYTHONFAULTHANDLER)", k->rank, (long)k->pid);
		/* Evidence, not a core file the size of the training. */
		(void)prlimit(k->pid, RLIMIT_CORE, &none, NULL);
		(void)kill(k->pid, SIGABRT);
		wait_gone(w, k->pid, k->starttime, 2000);
	}
	for (i = 0; i < hw->nw; i++)
		(void)kill(hw->w[i].pid, SIGKILL);
	if (frozen)
		(void)kill(w->launcher, SIGCONT);
}

static int
quiet(const struct hangwatch *hw)
{
	size_t	i;

	for (i = 0; i < hw->nw; i++)
		if (hw->w[i].age > HANGWATCH_QUIET)
			return 1;
	return 0;
}

/* Removes the heartbeat directory, which holds nothing but what its
 * workers and this node wrote there (files, the flight recorder's
 * pipes). */
static void
remove_dir(const char *dir)
{
	struct dirent	*de;
	DIR		*d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			(void)unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	(void)rmdir(dir);
}

void
hangwatch_exit(struct hangwatch *hw)
{
	size_t	i;

	if (hw->dir == NULL)
		return;
	if (!hw->recorded && quiet(hw))
		record(hw, 1, NULL);
	remove_dir(hw->dir);
	free(hw->dir);
	hw->dir = NULL;
	if (hw->alt != NULL)
		remove_dir(hw->alt);
	free(hw->alt);
	hw->alt = NULL;
	for (i = 0; i < hw->nw; i++)
		free(hw->w[i].stacks);
	hw->nw = 0;
}

void
hangwatch_free(struct hangwatch *hw)
{
	hangwatch_exit(hw);
	free(hw->run);
	free(hw->node);
	free(hw->addr);
	hw->run = hw->node = hw->addr = NULL;
}
