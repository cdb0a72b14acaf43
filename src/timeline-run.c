/* timeline-run.c: the launch timeline on a node (ddprank(1), TIMELINE).
 * ddprank exec notes its own moments; just before it execs the
 * launcher it makes the training's hook, an anonymous file that only
 * this user can open (DDPRANK_TIMELINE names it through /proc), and
 * forks the reporter, a process of its own beside the launcher, as the
 * watcher is. The reporter reads the hook until every process of the
 * node did its first collective, the launcher exited or the wait is
 * over, and sends node 0 one sealed line through the gather (gather.h);
 * node 0's prints the report. Nothing of it is on the launcher's way:
 * the launcher starts as soon as the fork returns. */
#include "config.h"

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "exchange.h"
#include "gather.h"
#include "hostlist.h"
#include "nodes.h"
#include "port.h"
#include "timeline.h"
#include "timeline-run.h"
#include "util.h"
#include "watch.h"
#include "xmalloc.h"

/* How often the reporter looks at the hook and the launcher. */
#define TL_TICK_MS		100
/* Node 0 waits this much longer than the others, which may start
 * later than it; and this long for the others once its own launcher
 * has exited. */
#define TL_LEAD_EXTRA		30
#define TL_LEAD_AFTER_EXIT	3
/* A node tries to reach node 0 for at most this long. */
#define TL_SEND_MS		30000
/* The run directory of a gather through the shared directory. */
#define TL_DIR_PREFIX		"timeline-"
#define TL_DIR_LABEL		"ddprank timeline run"
#define TL_MAC_LABEL		"ddprank timeline"

double
timeline_clock(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
timeline_mono(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
timeline_stat(pid_t pid, struct watch_stat *st)
{
	char	path[64], buf[1024];
	ssize_t	n;
	int	fd;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return watch_stat_parse(buf, st);
}

/*
 * When the task started: its process group's leader (slurmstepd makes
 * each task one) when that is this process or an ancestor that started
 * at most TL_TASK_AGE seconds before it (a shell that ran setup lines
 * or the preflight), else this process. /proc gives clock ticks since
 * boot, CLOCK_BOOTTIME the same clock now.
 */
#define TL_TASK_AGE	600
static double
timeline_task_start(double now)
{
	struct watch_stat	st, self;
	struct timespec		boot;
	pid_t			pid = getpid(), pgrp = getpgrp();
	long			hz = sysconf(_SC_CLK_TCK);
	int			depth;

	if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) == -1 ||
	    timeline_stat(pid, &self) == -1)
		return 0;
	st = self;
	for (depth = 0; pid != pgrp && depth < 64; depth++) {
		pid = st.ppid;
		if (pid <= 1 || timeline_stat(pid, &st) == -1)
			break;
	}
	if (pid != pgrp || self.starttime - st.starttime >
	    (unsigned long long)(TL_TASK_AGE * hz))
		st = self;
	return now - ((double)boot.tv_sec + (double)boot.tv_nsec / 1e9 -
	    (double)st.starttime / (double)hz);
}

void
timeline_begin(struct tl_node *self)
{
	timeline_node_init(self);
	self->t[TL_DDPRANK] = timeline_clock();
	self->t[TL_STEP] = timeline_task_start(self->t[TL_DDPRANK]);
	if (self->t[TL_STEP] > self->t[TL_DDPRANK])
		self->t[TL_STEP] = self->t[TL_DDPRANK];
}

void
timeline_mark(struct tl_node *self, enum tl_phase p)
{
	self->t[p] = timeline_clock();
}

int
timeline_wait(const char *s, int *wait, char **cause)
{
	long long	v;

	*wait = TL_WAIT_DEFAULT;
	if (s == NULL)
		return 0;
	if (util_strtonum(s, 0, TL_WAIT_MAX, &v) == -1)
		return util_fail(cause, "DDPRANK_TIMELINE_WAIT: '%s' is not a "
		    "number of seconds from 0 (off) to %d", s, TL_WAIT_MAX);
	*wait = (int)v;
	return 0;
}

/* --- the reporter ------------------------------------------------------------ */

struct tl_reporter {
	struct tl_node		*self;
	const struct tl_run	*run;
	struct tl_hook		 hook;
	int			 fd;		/* the hook */
	off_t			 off;
	struct watch		*w;		/* the launcher's life */
	struct gather_job	 job;
	int			 port;
	double			 exec_mono;	/* when the launcher began */
	double			 gone_mono;	/* when it was seen gone */
	int			 ended;		/* self's record is final */
	/* Node 0. */
	struct tl_report	 r;
	struct gather_sink	 sink;
	struct gather_tcp	*g;
	int			 lfd;
};

/* Takes what the training appended to the hook since the last look. */
static void
timeline_read_hook(struct tl_reporter *t)
{
	char	buf[4096];
	ssize_t	n;

	while (!t->self->full && (n = pread(t->fd, buf, sizeof buf,
	    t->off)) > 0) {
		t->off += n;
		timeline_hook_feed(t->self, &t->hook, buf, (size_t)n,
		    t->self->t[TL_DDPRANK], timeline_clock());
	}
}

/* Files one node's line on node 0. */
static int
timeline_file(void *arg, const char *msg, size_t len, uint64_t *rank)
{
	struct tl_report	*r = arg;
	struct tl_node		 n;
	char			*cause;

	if (timeline_decode(&n, msg, len, &cause) == -1) {
		free(cause);
		return 0;
	}
	*rank = n.rank;
	if (n.rank >= r->n || r->v[n.rank].reported) {
		timeline_node_free(&n);
		return 0;
	}
	timeline_node_free(&r->v[n.rank]);
	r->v[n.rank] = n;
	r->v[n.rank].reported = 1;
	return 1;
}

/* Node 0's side: a listener on the master address now, so that no node
 * waits for it; through the shared directory, nothing yet. */
static void
timeline_lead_init(struct tl_reporter *t)
{
	const struct tl_run	*run = t->run;
	struct tl_report	*r = &t->r;
	char			*cause;

	r->n = run->nnodes;
	r->v = xcalloc(r->n, sizeof *r->v);
	r->wait = run->wait;
	r->job_start = run->job_start;
	t->lfd = -1;
	memset(&t->sink, 0, sizeof t->sink);
	t->sink.file = timeline_file;
	t->sink.arg = r;
	t->sink.label = TL_MAC_LABEL;
	t->sink.scope = &t->job.sc;
	t->sink.want = r->n - 1;
	if (r->n == 1 || run->dir != NULL)
		return;
	if (t->port == -1)
		r->gather_why = xstrdup("cannot derive the timeline's port: "
		    "HMAC-SHA256 failed");
	else if ((t->lfd = gather_listen(run->addr, t->port, &cause)) == -1)
		r->gather_why = cause;
	else
		t->g = gather_tcp_new(t->lfd, &t->sink);
}

/* The name of the timeline's run directory (HPC Pack), as the doctor
 * names its own: nothing in it tells the exchange's. */
static char *
timeline_dir_name(struct tl_reporter *t)
{
	return exchange_dir_name(t->run->auth, TL_DIR_LABEL, TL_DIR_PREFIX,
	    t->job.job, t->job.retry);
}

static int
timeline_dir(struct tl_reporter *t, struct gather_dir *d, char **cause)
{
	char	*name;
	int	 rc, secret = t->run->auth != NULL && t->run->auth->len > 0;

	gather_dir_init(d);
	if ((name = timeline_dir_name(t)) == NULL)
		return util_fail(cause, "cannot name the timeline's directory: "
		    "HMAC-SHA256 failed");
	rc = gather_dir_open(d, t->run->dir, "exchange directory",
	    "timeline directory", secret, name, cause);
	free(name);
	return rc;
}

/* A node other than node 0: its line, sealed, to node 0. */
static void
timeline_send(struct tl_reporter *t)
{
	struct gather_dir	 d;
	struct buf		 msg;
	char			*cause = NULL;

	buf_init(&msg);
	timeline_encode(&msg, t->self);
	if (gather_seal(&msg, 0, TL_MAC_LABEL, &t->job.sc) == -1) {
		buf_free(&msg);
		return;
	}
	if (t->run->dir != NULL) {
		if (timeline_dir(t, &d, &cause) == 0)
			(void)gather_dir_write(&d, t->self->rank, msg.s,
			    msg.len, &cause);
		gather_dir_close(&d);
	} else if (t->port != -1)
		(void)gather_send(t->run->addr, t->port, msg.s, msg.len,
		    TL_SEND_MS, &cause);
	free(cause);
	buf_free(&msg);
}

/* Names for the nodes that never reported: from the node list, or,
 * without one (the exchange), their HPC Pack task. */
static void
timeline_names(struct tl_reporter *t)
{
	struct tl_report	*r = &t->r;
	struct nodes		 nl;
	char			 name[HOSTLIST_NAME_MAX + 1], *cause;
	uint64_t		 i;
	int			 have;

	have = t->run->dir == NULL && nodes_load(&nl, t->run->env,
	    t->run->sched, t->run->hostfile, &cause) == 0;
	if (!have && t->run->dir == NULL)
		free(cause);
	for (i = 1; i < r->n; i++) {
		if (r->v[i].reported || r->v[i].host != NULL)
			continue;
		if (!have)
			xasprintf(&r->v[i].host, "task%llu",
			    (unsigned long long)i + 1);
		else if (i < hostlist_count(nl.list) &&
		    hostlist_nth(nl.list, i, name, sizeof name) != -1)
			r->v[i].host = xstrdup(name);
	}
	if (have)
		nodes_free(&nl);
}

/* Whether any node's worker's python started. */
static int
timeline_python_seen(const struct tl_report *r)
{
	uint64_t	i;

	for (i = 0; i < r->n; i++)
		if (r->v[i].reported && r->v[i].t[TL_PYTHON] > 0)
			return 1;
	return 0;
}

/* Node 0 prints the report, in one write. */
static void
timeline_print(struct tl_reporter *t)
{
	struct gather_dir	 d;
	struct buf		 b;
	char			*cause = NULL;
	double			 left;
	ssize_t			 n;
	size_t			 off = 0;

	t->r.v[0] = *t->self;
	t->r.v[0].host = t->self->host != NULL ? xstrdup(t->self->host) : NULL;
	t->r.v[0].reported = 1;
	if (t->r.n > 1 && t->run->dir != NULL) {
		left = t->exec_mono + t->run->wait + TL_LEAD_EXTRA -
		    timeline_mono();
		if (timeline_dir(t, &d, &cause) == -1)
			t->r.gather_why = cause;
		else
			gather_dir_collect(&d, t->r.n, left > 0 ?
			    (int)(left * 1000) : 0, &t->sink);
		gather_dir_close(&d);
	}
	t->r.dropped = t->sink.dropped;
	/* A launcher gone before any worker's python started was no
	 * training: no report, which would come after the command. */
	if (t->gone_mono > 0 && !timeline_python_seen(&t->r))
		return;
	timeline_names(t);
	buf_init(&b);
	timeline_format(&b, &t->r);
	while (off < b.len && ((n = write(STDERR_FILENO, b.s + off,
	    b.len - off)) > 0 || (n == -1 && errno == EINTR)))
		off += n > 0 ? (size_t)n : 0;
	buf_free(&b);
	(void)util_drain(STDERR_FILENO, 2000);
}

/* Node 0 has what it waits for: every node's line, or time is up. */
static int
timeline_lead_over(const struct tl_reporter *t, double now)
{
	if (!t->ended)
		return 0;
	if (t->g == NULL || t->sink.got >= t->sink.want)
		return 1;
	if (t->gone_mono > 0 && now - t->gone_mono >= TL_LEAD_AFTER_EXIT)
		return 1;
	return now - t->exec_mono >= t->run->wait + TL_LEAD_EXTRA;
}

/* Ends self's record: its training is done, gone, or out of time. */
static void
timeline_end(struct tl_reporter *t, double now)
{
	if (t->ended)
		return;
	if (timeline_hook_done(t->self, &t->hook))
		t->self->end = TL_END_DONE;
	else if (t->gone_mono > 0)
		t->self->end = TL_END_EXITED;
	else if (now - t->exec_mono >= t->run->wait)
		t->self->end = TL_END_WAITED;
	else
		return;
	t->ended = 1;
	if (t->self->rank != 0)
		timeline_send(t);
}

/* The hook leads nowhere from now on: later lines go to /dev/null, and
 * the anonymous file goes with this process's last copy. */
static void
timeline_close_hook(struct tl_reporter *t)
{
	int	null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (null != -1) {
		(void)dup2(null, t->fd);
		close(null);
	}
}

static void __attribute__((noreturn))
timeline_reporter(struct tl_reporter *t)
{
	double	now;
	int	printed = 0;

	if (t->self->rank == 0)
		timeline_lead_init(t);
	for (;;) {
		now = timeline_mono();
		if (t->gone_mono == 0 && !watch_alive(t->w))
			t->gone_mono = now;
		if (!t->ended) {
			timeline_read_hook(t);
			/* Past its bound the hook takes nothing more: new
			 * opens lead nowhere, and the file stops growing. */
			if (t->self->full)
				timeline_close_hook(t);
		}
		timeline_end(t, now);
		if (t->self->rank == 0 && !printed &&
		    timeline_lead_over(t, now)) {
			gather_tcp_free(t->g);
			t->g = NULL;
			if (t->lfd != -1)
				close(t->lfd);
			timeline_print(t);
			printed = 1;
		}
		if (t->ended && (t->self->rank != 0 || printed))
			break;
		if (t->g != NULL)
			gather_tcp_poll(t->g, TL_TICK_MS);
		else
			(void)poll(NULL, 0, TL_TICK_MS);
	}
	/* The path stays the launcher's life long, leading nowhere, so
	 * that no late line goes to a file of a process that took this
	 * one's id. */
	timeline_close_hook(t);
	(void)freopen("/dev/null", "w", stderr);
	while (watch_alive(t->w))
		(void)poll(NULL, 0, 1000);
	_exit(0);
}

/* The hook: an anonymous file, and the name the training opens it by. */
static int
timeline_hook_fd(char **cause)
{
	int	fd;

	if ((fd = memfd_create("ddprank-timeline", MFD_CLOEXEC)) == -1)
		return util_fail(cause, "timeline: memfd_create: %s",
		    strerror(errno));
	return fd;
}

int
timeline_launch(struct tl_node *self, const struct tl_run *run, char **cause)
{
	static struct watch	 w;
	static struct tl_reporter t;
	char			 path[64];
	int			 fd, p[2];
	pid_t			 pid, reporter = 0;

	(void)unsetenv(TL_ENV);
	if (run->wait == 0)
		return 0;
	if ((fd = timeline_hook_fd(cause)) == -1)
		return -1;
	if (pipe2(p, O_CLOEXEC) == -1) {
		close(fd);
		return util_fail(cause, "timeline: pipe: %s", strerror(errno));
	}
	memset(&t, 0, sizeof t);
	t.self = self;
	t.run = run;
	t.fd = fd;
	t.w = &w;
	t.exec_mono = timeline_mono();
	timeline_hook_init(&t.hook, run->per_process);
	gather_job_init(&t.job, run->env, run->sched, run->hostfile,
	    run->auth);
	t.port = port_timeline(run->auth, t.job.set, t.job.port_id,
	    t.job.task, t.job.step, run->port, run->lo, run->hi);
	self->t[TL_EXEC] = timeline_clock();
	/* The launcher keeps this process's id. */
	watch_init(&w, "/proc", getpid(), 0, NULL);
	switch ((pid = fork())) {
	case -1:
		close(fd);
		close(p[0]);
		close(p[1]);
		gather_job_free(&t.job);
		return util_fail(cause, "timeline: fork: %s", strerror(errno));
	case 0:
		close(p[0]);
		if ((reporter = fork()) == 0) {
			close(p[1]);
			(void)signal(SIGPIPE, SIG_IGN);
			(void)freopen("/dev/null", "r", stdin);
			(void)freopen("/dev/null", "w", stdout);
			if (self->rank != 0)
				(void)freopen("/dev/null", "w", stderr);
			timeline_reporter(&t);
		}
		(void)write(p[1], &reporter, sizeof reporter);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &reporter, sizeof reporter) != sizeof reporter ||
	    reporter <= 0) {
		reporter = 0;
	}
	close(p[0]);
	(void)waitpid(pid, NULL, 0);
	close(fd);
	gather_job_free(&t.job);
	if (reporter == 0)
		return util_fail(cause, "timeline: fork: %s", strerror(errno));
	snprintf(path, sizeof path, "/proc/%ld/fd/%d", (long)reporter, fd);
	if (setenv(TL_ENV, path, 1) == -1)
		return util_fail(cause, "setenv %s: %s", TL_ENV,
		    strerror(errno));
	return 0;
}
