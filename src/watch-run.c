/* watch-run.c: the watcher's process (watch.h): forked beside the
 * launcher by ddprank exec, it looks at /proc every WATCH_TICK_MS, ends
 * a torchrun that watch_tick says is held in its exit barrier, and
 * passes the checkpoint signal on to workers outside the launcher's
 * process group. */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hangwatch.h"
#include "util.h"
#include "watch.h"
#include "watch-run.h"

static double
now_seconds(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits up to ms for the launcher to end. */
static int
launcher_gone(const struct watch *w, int ms)
{
	struct timespec	tick = { 0, WATCH_TICK_MS * 1000000L };

	for (; ms > 0; ms -= WATCH_TICK_MS) {
		if (!watch_alive(w))
			return 1;
		nanosleep(&tick, NULL);
	}
	return !watch_alive(w);
}

static volatile sig_atomic_t	watch_signalled;

static void
watch_note_signal(int signo)
{
	(void)signo;
	watch_signalled = 1;
}

/* The checkpoint signal came to the launcher's process group: on to
 * the workers outside it (watch_outside), once each. */
static void
watch_forward(const struct watch *w, int signo)
{
	pid_t	pids[WATCH_MAX];
	size_t	i, n;

	watch_signalled = 0;
	n = watch_outside(w, getpgrp(), pids, WATCH_MAX);
	for (i = 0; i < n; i++)
		(void)kill(pids[i], signo);
}

/* Ends the launcher: SIGTERM, and SIGKILL WATCH_KILL_WAIT s later. */
static void
end_launcher(const struct watch *w)
{
	(void)kill(w->launcher, SIGTERM);
	if (!launcher_gone(w, WATCH_KILL_WAIT * 1000))
		(void)kill(w->launcher, SIGKILL);
}

/* The watcher's life (watch.h): it ends with the launcher, or ends it
 * after saying why (a worker failed, a rank stalled: hangwatch.h), and
 * passes the checkpoint signal (forward, or 0) on; it never returns. */
static void __attribute__((noreturn))
watch_child(struct watch *w, int forward, struct hangwatch *hw)
{
	struct sigaction	sa;
	char			node[256], *msg;

	(void)freopen("/dev/null", "r", stdin);
	(void)freopen("/dev/null", "w", stdout);
	if (gethostname(node, sizeof node) == -1)
		snprintf(node, sizeof node, "this node");
	node[sizeof node - 1] = '\0';
	w->self = getpid();
	/* The end of a step or of a local job signals the whole group: the
	 * watcher outlives the launcher to remove the heartbeat directory
	 * (hangwatch_exit), and ends as soon as it is gone. */
	if (hw->timeout > 0) {
		(void)signal(SIGTERM, SIG_IGN);
		(void)signal(SIGINT, SIG_IGN);
		(void)signal(SIGHUP, SIG_IGN);
	}
	if (forward != 0) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = watch_note_signal;
		sigemptyset(&sa.sa_mask);
		(void)sigaction(forward, &sa, NULL);
	}
	while (!launcher_gone(w, WATCH_TICK_MS)) {
		if (watch_signalled)
			watch_forward(w, forward);
		if (hangwatch_tick(hw, w) == WATCH_END) {
			hangwatch_end(hw, w);
			(void)util_drain(STDERR_FILENO, UTIL_DRAIN_MS);
			end_launcher(w);
			break;
		}
		if (!w->is_torchrun || watch_tick(w, now_seconds()) !=
		    WATCH_END)
			continue;
		msg = watch_message(w, node);
		util_warn("%s", msg);
		free(msg);
		(void)util_drain(STDERR_FILENO, UTIL_DRAIN_MS);
		end_launcher(w);
		break;
	}
	hangwatch_exit(hw);
	_exit(0);
}

/* Forks the watcher, a grandchild that init (or the step's subreaper)
 * adopts: not torchrun's child, so that no wait(2) of torchrun's, or
 * of a wrapper script's "wait", waits for it. The launcher keeps this
 * process's id, signals, exit status and argv as without a watcher.
 * It watches torchrun, and any launcher's workers where the scheduler
 * signals process groups and the job has a checkpoint signal
 * (forward). */
void
watch_start(char **argv, int forward, struct hangwatch *hw)
{
	static struct watch	w;
	pid_t			pid;

	if (!watch_is_torchrun((const char *const *)argv) && forward == 0 &&
	    hw->timeout == 0)
		return;
	watch_init(&w, "/proc", getpid(), 0, (const char *const *)argv);
	switch ((pid = fork())) {
	case -1:
		util_warn("warning: fork: %s: a worker that fails may hold "
		    "torchrun for its exit barrier", strerror(errno));
		return;
	case 0:
		if (fork() == 0)
			watch_child(&w, forward, hw);
		_exit(0);
	default:
		(void)waitpid(pid, NULL, 0);
	}
}
