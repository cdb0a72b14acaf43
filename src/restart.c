/* restart.c: the restart count, the last stop and the checkpoint signal. */
#include "config.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>

#include "restart.h"
#include "scheduler.h"
#include "util.h"

static const char *const stops[] = {
	"none", "time-limit", "preemption", "by-hand", "requeued", "hang",
	"preflight", NULL
};

static long long
restart_num(const char *(*getenv_fn)(const char *), const char *name)
{
	const char	*s = getenv_fn(name);
	long long	 n;

	if (s == NULL || util_strtonum(s, 0, RESTART_MAX, &n) == -1)
		return 0;
	return n;
}

static const char *
restart_stop(const char *s, long long count)
{
	size_t	i;

	for (i = 0; s != NULL && stops[i] != NULL; i++)
		if (strcmp(s, stops[i]) == 0 && (count > 0) == (i > 0))
			return stops[i];
	return count > 0 ? "requeued" : "none";
}

static int
restart_badsig(const char *sig, char **cause)
{
	struct buf	b;

	buf_init(&b);
	util_addvis(&b, sig, strlen(sig));
	util_fail(cause, "DDPGEN_CHECKPOINT_SIGNAL: '%s' is not USR1 or USR2",
	    b.s);
	buf_free(&b);
	return -1;
}

int
restart_read(struct restart *r, const char *(*getenv_fn)(const char *),
    char **cause)
{
	const char		*sig = getenv_fn("DDPGEN_CHECKPOINT_SIGNAL");
	const struct sched	*s;
	int			 i;

	/* The schedulers' own counts (their rows' restart_var), and the
	 * job's continuations before this one. */
	r->count = restart_num(getenv_fn, "DDPGEN_RESTART_BASE");
	for (i = 0; i < SCHED_COUNT; i++) {
		s = sched_get((enum sched_id)i);
		if (s->restart_var != NULL)
			r->count += restart_num(getenv_fn, s->restart_var);
	}
	r->last_stop = restart_stop(getenv_fn("DDPGEN_LAST_STOP"), r->count);
	r->signo = 0;
	if (sig == NULL || *sig == '\0')
		return 0;
	if (strcmp(sig, "USR2") == 0)
		r->signo = SIGUSR2;
	else if (strcmp(sig, "USR1") == 0)
		r->signo = SIGUSR1;
	else
		return restart_badsig(sig, cause);
	return 0;
}
