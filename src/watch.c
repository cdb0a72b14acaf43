/* watch.c: the watcher ddprank exec leaves beside torchrun (watch.h). */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "watch.h"
#include "xmalloc.h"

static int	read_stat(const struct watch *, pid_t, struct watch_stat *);

/* torchrun's options that take no value (torch/distributed/run.py,
 * 1.13), so that the word after one is the training script. */
static const char *const torchrun_flags[] = {
	"--standalone", "--no_python", "--no-python", "-m", "--module",
	"--run_path", "--run-path", "-h", "--help", NULL
};

/* The fields after the command name, whose ')' may be anywhere in it:
 * 3 state, 4 ppid, 5 pgrp, ..., 52 exit_code (Linux 3.5 and later). */
int
watch_stat_parse(const char *s, struct watch_stat *st)
{
	const char	*p = strrchr(s, ')');
	char		*end;
	long		 v;
	int		 field;

	if (p == NULL || p[1] != ' ' || p[2] == '\0')
		return -1;
	st->state = p[2];
	p += 3;
	st->ppid = st->pgrp = -1;
	st->exit_code = 0;
	st->starttime = 0;
	for (field = 4; *p == ' '; field++) {
		v = strtol(p + 1, &end, 10);
		if (end == p + 1)
			return -1;
		if (field == 4)
			st->ppid = (pid_t)v;
		if (field == 5)
			st->pgrp = (pid_t)v;
		if (field == 22)
			st->starttime = strtoull(p + 1, NULL, 10);
		if (field == 52)
			st->exit_code = (int)v;
		p = end;
	}
	return st->ppid > 0 ? 0 : -1;
}

static long
env_number(const char *s)
{
	long long	v;

	if (util_strtonum(s, 0, INT_MAX, &v) == -1)
		return -1;
	return (long)v;
}

void
watch_env_parse(const char *buf, size_t len, struct watch_env *e)
{
	const char	*p = buf, *end = buf + len, *nul;

	e->restart_count = e->max_restarts = e->local_rank = e->rank = -1;
	for (; p < end; p = nul + 1) {
		if ((nul = memchr(p, '\0', (size_t)(end - p))) == NULL)
			break;
		if (strncmp(p, "TORCHELASTIC_RESTART_COUNT=", 27) == 0)
			e->restart_count = env_number(p + 27);
		else if (strncmp(p, "TORCHELASTIC_MAX_RESTARTS=", 26) == 0)
			e->max_restarts = env_number(p + 26);
		else if (strncmp(p, "LOCAL_RANK=", 11) == 0)
			e->local_rank = env_number(p + 11);
		else if (strncmp(p, "RANK=", 5) == 0)
			e->rank = env_number(p + 5);
	}
}

static int
is_flag(const char *a)
{
	size_t	i;

	for (i = 0; torchrun_flags[i] != NULL; i++)
		if (strcmp(a, torchrun_flags[i]) == 0)
			return 1;
	return 0;
}

/* torchrun's --max-restarts in argv from its first own word, first,
 * before the training script; else PET_MAX_RESTARTS (its environment
 * default); else 0. A word that could be either a value or the script
 * is taken as a value, so that a doubt makes the count larger, never
 * smaller. */
static long
argv_max_restarts(const char *const *argv, int first)
{
	const char	*a, *v = NULL, *pet;
	int		 value_next = 0, i;

	for (i = first; argv[i] != NULL; i++) {
		a = argv[i];
		if (value_next) {
			value_next = 0;
			continue;
		}
		if (strcmp(a, "--") == 0 || a[0] != '-')
			break;
		if (strncmp(a, "--max-restarts", 14) == 0 ||
		    strncmp(a, "--max_restarts", 14) == 0) {
			if (a[14] == '=')
				v = a + 15;
			else if (a[14] == '\0' && argv[i + 1] != NULL)
				v = argv[i + 1];
		}
		value_next = strchr(a, '=') == NULL && !is_flag(a);
	}
	if (v == NULL && (pet = getenv("PET_MAX_RESTARTS")) != NULL)
		v = pet;
	return v == NULL ? 0 : env_number(v);
}

static const char *
base_name(const char *path)
{
	const char	*b = strrchr(path, '/');

	return b == NULL ? path : b + 1;
}

/* The index of torchrun's first own word in argv: 1 after "torchrun",
 * after "-m torch.distributed.run" (or "-mtorch.distributed.run") for a
 * python program, past its flags without values such as -u (what
 * launcher_find takes for torchrun too: HPC Pack's launcher); 0 when
 * argv runs something else. */
static int
torchrun_first(const char *const *argv)
{
	const char	*mod = "torch.distributed.run";
	int		 i;

	if (argv == NULL || argv[0] == NULL)
		return 0;
	if (strcmp(base_name(argv[0]), "torchrun") == 0)
		return 1;
	if (strncmp(base_name(argv[0]), "python", 6) != 0)
		return 0;
	for (i = 1; argv[i] != NULL && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-m") == 0)
			return argv[i + 1] != NULL &&
			    strcmp(argv[i + 1], mod) == 0 ? i + 2 : 0;
		if (strncmp(argv[i], "-m", 2) == 0)
			return strcmp(argv[i] + 2, mod) == 0 ? i + 1 : 0;
		/* -u, -B, -E, -s, -I, -O, -OO, -bb... not -c, -X, -W. */
		if (argv[i][1] == '\0' || argv[i][1] == '-' ||
		    strspn(argv[i] + 1, "bBdEiIOqsSuv") != strlen(argv[i] + 1))
			return 0;
	}
	return 0;
}

int
watch_is_torchrun(const char *const *argv)
{
	return torchrun_first(argv) > 0;
}

void
watch_init(struct watch *w, const char *proc, pid_t launcher, pid_t self,
    const char *const *argv)
{
	struct watch_stat	st;
	int			first;

	memset(w, 0, sizeof *w);
	w->proc = proc;
	w->launcher = launcher;
	w->self = self;
	first = torchrun_first(argv);
	w->is_torchrun = first > 0;
	w->argv_max = first > 0 ? argv_max_restarts(argv, first) : -1;
	w->last.restart_count = w->last.max_restarts = -1;
	w->last.local_rank = w->last.rank = -1;
	if (read_stat(w, launcher, &st) == 0 && st.state != 'Z')
		w->launcher_start = st.starttime;
}

int
watch_alive(const struct watch *w)
{
	struct watch_stat	st;

	return w->launcher_start != 0 && read_stat(w, w->launcher, &st) == 0 &&
	    st.state != 'Z' && st.starttime == w->launcher_start;
}

/* Reads PROC/pid/what; NULL if it is gone or unreadable. */
static char *
read_proc(const struct watch *w, pid_t pid, const char *what, size_t *len)
{
	char	*path, *cause, *s;

	xasprintf(&path, "%s/%ld/%s", w->proc, (long)pid, what);
	s = util_readfile(path, len, &cause);
	free(path);
	if (s == NULL)
		free(cause);
	return s;
}

static int
read_stat(const struct watch *w, pid_t pid, struct watch_stat *st)
{
	char	*s;
	int	 rc;

	if ((s = read_proc(w, pid, "stat", NULL)) == NULL)
		return -1;
	rc = watch_stat_parse(s, st);
	free(s);
	return rc;
}

static void
add_pids(struct buf *pids, const char *text)
{
	buf_adds(pids, text);
	buf_addc(pids, ' ');
}

/* The children of pid as "PID PID ..." from its threads' children
 * files (CONFIG_PROC_CHILDREN); *found is 0 when there are none. */
static char *
children_of(const struct watch *w, pid_t pid, int *found)
{
	struct buf	 pids;
	struct dirent	*de;
	DIR		*d;
	char		*dir, *rel, *s;

	buf_init(&pids);
	*found = 0;
	xasprintf(&dir, "%s/%ld/task", w->proc, (long)pid);
	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			xasprintf(&rel, "task/%s/children", de->d_name);
			if ((s = read_proc(w, pid, rel, NULL)) != NULL) {
				add_pids(&pids, s);
				free(s);
				*found = 1;
			}
			free(rel);
		}
		closedir(d);
	}
	free(dir);
	return buf_take(&pids);
}

/* Every process of PROC as "PID PPID PID PPID ...". */
static char *
every_parent(const struct watch *w)
{
	struct buf	 pids;
	struct dirent	*de;
	DIR		*d;
	struct watch_stat st;

	buf_init(&pids);
	if ((d = opendir(w->proc)) == NULL)
		return buf_take(&pids);
	while ((de = readdir(d)) != NULL) {
		if (isdigit((unsigned char)de->d_name[0]) &&
		    read_stat(w, (pid_t)atol(de->d_name), &st) == 0)
			buf_addf(&pids, "%s %ld ", de->d_name, (long)st.ppid);
	}
	closedir(d);
	return buf_take(&pids);
}

/* The launcher's children as "PID PID ...": its threads' children
 * files, else every process's parent. */
static char *
children(const struct watch *w)
{
	struct buf	 pids;
	char		*s, *all, *p, *end;
	long		 pid, ppid;
	int		 found;

	s = children_of(w, w->launcher, &found);
	if (found)
		return s;
	free(s);
	buf_init(&pids);
	all = every_parent(w);
	for (p = all; ; p = end) {
		pid = strtol(p, &end, 10);
		if (end == p)
			break;
		ppid = strtol(p = end, &end, 10);
		if (end == p)
			break;
		if (ppid == w->launcher)
			buf_addf(&pids, "%ld ", pid);
	}
	free(all);
	return buf_take(&pids);
}

static int
listed(const pid_t *pids, size_t n, long pid)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (pids[i] == (pid_t)pid)
			return 1;
	return 0;
}

/* Appends the pids of text ("PID PID ...", or with pairs "PID PPID
 * ..." of which those whose PPID is parent) not listed yet, but the
 * watcher's own. */
static size_t
add_listed(const struct watch *w, pid_t *pids, size_t n, size_t max,
    const char *text, int pairs, pid_t parent)
{
	const char	*p;
	char		*end;
	long		 pid, ppid;

	for (p = text; n < max; p = end) {
		pid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (pairs) {
			ppid = strtol(p = end, &end, 10);
			if (end == p)
				break;
			if (ppid != parent)
				continue;
		}
		if (pid > 0 && pid != w->self && !listed(pids, n, pid))
			pids[n++] = (pid_t)pid;
	}
	return n;
}

size_t
watch_descendants(const struct watch *w, pid_t *pids, size_t max)
{
	char	*s, *all = NULL;
	size_t	 i, n = 0;
	int	 found;

	if (max == 0)
		return 0;
	pids[n++] = w->launcher;
	/* Without children files, one look at every process's parent. */
	s = children_of(w, w->launcher, &found);
	if (!found)
		all = every_parent(w);
	free(s);
	for (i = 0; i < n && n < max; i++) {
		if (all != NULL) {
			n = add_listed(w, pids, n, max, all, 1, pids[i]);
			continue;
		}
		s = children_of(w, pids[i], &found);
		n = add_listed(w, pids, n, max, s, 0, 0);
		free(s);
	}
	free(all);
	return n;
}

int
watch_read_stat(const struct watch *w, pid_t pid, struct watch_stat *st)
{
	return read_stat(w, pid, st);
}

char *
watch_read_env(const struct watch *w, pid_t pid, size_t *len)
{
	return read_proc(w, pid, "environ", len);
}

static int
env_known(const struct watch_env *e)
{
	return e->max_restarts >= 0 && e->restart_count >= 0;
}

static struct watch_worker *
worker(struct watch *w, pid_t pid)
{
	size_t	i;

	for (i = 0; i < w->nw; i++)
		if (w->w[i].pid == pid)
			return &w->w[i];
	if (w->nw == WATCH_MAX)
		return NULL;
	memset(&w->w[w->nw], 0, sizeof w->w[w->nw]);
	w->w[w->nw].pid = pid;
	w->w[w->nw].env.restart_count = w->w[w->nw].env.max_restarts = -1;
	w->w[w->nw].env.local_rank = w->w[w->nw].env.rank = -1;
	return &w->w[w->nw++];
}

/* What torchrun told a worker that exited before it was read: the
 * newest worker's, else (torchrun only) a first run with argv's count. */
static struct watch_env
env_for(const struct watch *w, const struct watch_worker *k)
{
	struct watch_env	e = k->env;

	if (env_known(&e))
		return e;
	e = w->last;
	if (env_known(&e))
		return e;
	e.restart_count = 0;
	e.max_restarts = w->is_torchrun ? w->argv_max : -1;
	return e;
}

static void
failed(struct watch *w, struct watch_worker *k, int code, double now)
{
	struct watch_env	e = env_for(w, k);

	k->failed = 1;
	if (e.max_restarts < 0 || e.restart_count < e.max_restarts)
		return;
	/* A worker that exited with a status says more than one torchrun
	 * stopped with a signal. */
	if (w->final && (WIFSIGNALED(code) || WIFEXITED(w->final_code)))
		return;
	if (!w->final)
		w->final_at = now;
	w->final = 1;
	w->final_pid = k->pid;
	w->final_code = code;
	w->final_env = e;
	w->final_env.local_rank = k->env.local_rank;
}

/* A worker's environment, read until it holds torchrun's variables:
 * between fork and exec it is still torchrun's own. */
static void
read_env(struct watch *w, struct watch_worker *k)
{
	char	*env;
	size_t	 len;

	if ((env = read_proc(w, k->pid, "environ", &len)) == NULL)
		return;
	watch_env_parse(env, len, &k->env);
	free(env);
	if (!env_known(&k->env))
		return;
	w->last = k->env;
	/* torchrun restarted the group after all. */
	if (w->final && k->env.restart_count > w->final_env.restart_count)
		w->final = 0;
}

/* One child: returns 1 if it is alive. */
static int
look(struct watch *w, pid_t pid, double now)
{
	struct watch_worker	*k;
	struct watch_stat	 st;

	if (pid == w->self || read_stat(w, pid, &st) == -1 ||
	    st.ppid != w->launcher || (k = worker(w, pid)) == NULL)
		return 0;
	k->seen = 1;
	if (st.state != 'Z' && !env_known(&k->env))
		read_env(w, k);
	if (st.state == 'Z' && st.exit_code != 0 && !k->failed)
		failed(w, k, st.exit_code, now);
	return st.state != 'Z';
}

enum watch_verdict
watch_tick(struct watch *w, double now)
{
	char	*pids, *p, *end;
	long	 pid;
	size_t	 i, j;
	int	 alive = 0;

	for (i = 0; i < w->nw; i++)
		w->w[i].seen = 0;
	pids = children(w);
	for (p = pids; p != NULL; p = end) {
		pid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (pid > 0)
			alive += look(w, (pid_t)pid, now);
	}
	free(pids);
	/* Forget the reaped: their ids may come back as new workers. */
	for (i = j = 0; i < w->nw; i++)
		if (w->w[i].seen)
			w->w[j++] = w->w[i];
	w->nw = j;
	if (w->final && alive == 0 && now - w->final_at >= WATCH_GRACE)
		return WATCH_END;
	return WATCH_WAIT;
}

char *
watch_message(const struct watch *w, const char *node)
{
	char	*how, *who, *s;

	if (WIFEXITED(w->final_code))
		xasprintf(&how, "exited with status %d",
		    WEXITSTATUS(w->final_code));
	else
		xasprintf(&how, "was killed by signal %d",
		    WTERMSIG(w->final_code));
	if (w->final_env.local_rank >= 0)
		xasprintf(&who, "local rank %ld (pid %ld)",
		    w->final_env.local_rank, (long)w->final_pid);
	else
		xasprintf(&who, "pid %ld", (long)w->final_pid);
	xasprintf(&s, "%s: a training process, %s, %s and torchrun has no "
	    "restarts left (%ld of %ld used): ending torchrun now rather than "
	    "after its exit barrier (300 s)", node, who, how,
	    w->final_env.restart_count, w->final_env.max_restarts);
	free(how);
	free(who);
	return s;
}

size_t
watch_outside(const struct watch *w, pid_t pgrp, pid_t *pids, size_t max)
{
	struct watch_stat	 st;
	char			*all, *p, *end;
	long			 pid;
	size_t			 n = 0;

	all = children(w);
	for (p = all; p != NULL && n < max; p = end) {
		pid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (pid <= 0 || pid == w->self ||
		    read_stat(w, (pid_t)pid, &st) == -1 ||
		    st.ppid != w->launcher || st.state == 'Z' ||
		    st.pgrp == pgrp)
			continue;
		pids[n++] = (pid_t)pid;
	}
	free(all);
	return n;
}
