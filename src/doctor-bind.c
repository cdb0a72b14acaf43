/* doctor-bind.c: ddprank doctor's binding check (doctor.h): the plan
 * can be made on this node, and the processes a binding step bound run
 * where their plan put them. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bind.h"
#include "bindrun.h"
#include "cpuset.h"
#include "doctor.h"
#include "fault.h"
#include "nodes.h"
#include "rank.h"
#include "scheduler.h"
#include "topo.h"
#include "util.h"
#include "vocab.h"
#include "xmalloc.h"

/* /proc/PID/environ and status, read whole up to this size. */
#define DOCTOR_BIND_READ_MAX	(256 * 1024)

/* The value of name in an environ block of len bytes, or NULL. */
static const char *
doctor_bind_var(const char *env, size_t len, const char *name)
{
	size_t		 n = strlen(name);
	const char	*p, *end = env + len;

	for (p = env; p < end; p += strlen(p) + 1)
		if (strncmp(p, name, n) == 0 && p[n] == '=')
			return p + n + 1;
	return NULL;
}

/* The CPUs process pid may run on (Cpus_allowed_list of its status). */
static int
doctor_bind_cpus(const struct doctor_sys *sys, const char *pid,
    char *buf, struct cpuset *cpus)
{
	char	 path[64], *line, *cause;
	long	 n;

	snprintf(path, sizeof path, "/proc/%s/status", pid);
	if ((n = sys->readfile(sys->arg, path, buf, DOCTOR_BIND_READ_MAX)) < 0)
		return -1;
	if ((line = strstr(buf, "\nCpus_allowed_list:")) == NULL)
		return -1;
	line += strlen("\nCpus_allowed_list:");
	line += strspn(line, " \t");
	line[strcspn(line, "\n")] = '\0';
	if (cpuset_parse(cpus, line, &cause) == -1) {
		free(cause);
		return -1;
	}
	return 0;
}

/* Whose processes count: those whose job variable (the scheduler row's
 * id that every step of the job sees alike) is this process's; every
 * bound process when this one runs outside a job. */
struct doctor_bind_job {
	const char	*var;
	const char	*id;
};

/* Process pid, if a binding step bound it in this job: 1 when it runs
 * on its rank's CPUs, 0 when not (*why says how, once), -1 when it is
 * not a bound process of this user's and job's (or is gone). */
static int
doctor_bind_proc(const struct doctor_sys *sys, const char *pid, char *buf,
    const struct doctor_bind_job *job, char **why)
{
	struct bind_wire w;
	struct cpuset	 got;
	struct buf	 a, b;
	const char	*plan, *lr, *jid;
	char		 path[64], *cause;
	long long	 rank;
	long		 n;

	snprintf(path, sizeof path, "/proc/%s/environ", pid);
	if ((n = sys->readfile(sys->arg, path, buf, DOCTOR_BIND_READ_MAX)) <= 0)
		return -1;
	if ((plan = doctor_bind_var(buf, (size_t)n, BIND_PLAN_VAR)) == NULL ||
	    (lr = doctor_bind_var(buf, (size_t)n, "LOCAL_RANK")) == NULL ||
	    util_strtonum(lr, 0, BIND_MAXRANKS - 1, &rank) == -1)
		return -1;
	if (job->id != NULL && ((jid = doctor_bind_var(buf, (size_t)n,
	    job->var)) == NULL || strcmp(jid, job->id) != 0))
		return -1;
	if (bind_decode(&w, plan, (size_t)rank, &cause) == -1) {
		free(cause);
		return -1;
	}
	if (doctor_bind_cpus(sys, pid, buf, &got) == -1)
		return -1;
	if (cpuset_equal(&got, &w.cpus))
		return 1;
	if (*why == NULL) {
		buf_init(&a);
		buf_init(&b);
		cpuset_format(&a, &got);
		cpuset_format(&b, &w.cpus);
		xasprintf(why, "local rank %lld (process %s) runs on CPUs %s, "
		    "not the plan's %s", rank, pid, a.s, b.s);
		buf_free(&a);
		buf_free(&b);
	}
	return 0;
}

/* Every bound process of this user on this node: how many, and how
 * many are off their plan (*why: the first). */
static void
doctor_bind_procs(const struct doctor_sys *sys, const struct doctor_bind_job
    *job, size_t *bound, size_t *off, char **why)
{
	struct strlist	 names;
	char		*buf, self[32];
	size_t		 i;
	int		 rc;

	*bound = *off = 0;
	*why = NULL;
	if (sys->readfile == NULL)
		return;
	strlist_init(&names);
	if (sys->list(sys->arg, "/proc", &names) == -1) {
		strlist_free(&names);
		return;
	}
	snprintf(self, sizeof self, "%ld", (long)getpid());
	buf = xmalloc(DOCTOR_BIND_READ_MAX);
	for (i = 0; i < names.n; i++) {
		if (strspn(names.v[i], "0123456789") != strlen(names.v[i]) ||
		    strcmp(names.v[i], self) == 0)
			continue;
		if ((rc = doctor_bind_proc(sys, names.v[i], buf, job,
		    why)) == -1)
			continue;
		(*bound)++;
		*off += rc == 0;
	}
	free(buf);
	strlist_free(&names);
}

void
doctor_check_bind(struct doctor_node *n, const struct doctor_opts *o,
    const struct doctor_sys *sys)
{
	struct doctor_bind_job job;
	const struct sched *row;
	struct bind_plan p;
	struct topo	 t;
	struct buf	 b;
	char		*cause = NULL, *why;
	size_t		 bound, off;
	int		 planned = o->bind != NULL && o->bind->policy != BIND_NONE;

	row = sched_get(nodes_sched_resolve(sys->env, o->ro != NULL ?
	    o->ro->sched : SCHED_AUTO, o->ro != NULL ? o->ro->hostfile : NULL));
	job.var = row->port_job_var != NULL ? row->port_job_var : row->job_var;
	job.id = job.var != NULL ? nodes_var(sys->env, job.var) : NULL;
	buf_init(&b);
	if (planned) {
		if (bindrun_plan(&p, &t, o->bind, &cause) != FAULT_NONE) {
			doctor_set(n, DOCTOR_BIND, DOCTOR_FAIL, "%s", cause);
			free(cause);
			bind_plan_free(&p);
			topo_free(&t);
			buf_free(&b);
			return;
		}
		buf_addf(&b, "a plan for %zu local rank%s (bind %s)", p.n,
		    p.n == 1 ? "" : "s", bind_names[p.policy]);
		bind_plan_free(&p);
		topo_free(&t);
	}
	doctor_bind_procs(sys, &job, &bound, &off, &why);
	if (off > 0)
		doctor_set(n, DOCTOR_BIND, DOCTOR_WARN, "%s%s%zu of %zu bound "
		    "processes off their plan", why, planned ? "; " : ", ",
		    off, bound);
	else if (bound > 0)
		doctor_set(n, DOCTOR_BIND, DOCTOR_PASS, "%s%s%zu bound "
		    "process%s on their planned CPUs", b.s, planned ? "; " : "",
		    bound, bound == 1 ? "" : "es");
	else if (planned)
		doctor_set(n, DOCTOR_BIND, DOCTOR_PASS, "%s; no bound process "
		    "running yet", b.s);
	free(why);
	buf_free(&b);
}
