/* nodes.c: the node list and job id from scheduler variables or a hostfile. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "nodes.h"
#include "util.h"
#include "xmalloc.h"

/* Longest list text quoted in a message before it is cut. */
#define NODES_DESCRIBE_MAX	100

static const char *const nodes_names[] = {
	"auto", "slurm", "hpcpack", "pbs", "lsf", "hostfile"
};

static const char *
nodes_getenv(void *arg, const char *name)
{
	(void)arg;
	return getenv(name);
}

const struct nodes_env nodes_env_real = { nodes_getenv, NULL };

const char *
nodes_var(const struct nodes_env *env, const char *name)
{
	const char	*v = env->get(env->arg, name);

	return v == NULL || *v == '\0' ? NULL : v;
}

int
nodes_var_num(int64_t *out, const struct nodes_env *env, const char *name,
    long long min, char **cause)
{
	const char	*v;
	long long	 n;

	if ((v = nodes_var(env, name)) == NULL)
		return 0;
	if (util_strtonum(v, min, INT64_MAX, &n) == -1)
		return util_fail(cause, "%s is not a number: '%s'", name, v);
	*out = n;
	return 0;
}

int
nodes_sched_parse(const char *s, enum nodes_sched *out)
{
	size_t	i;

	for (i = 0; i < sizeof nodes_names / sizeof nodes_names[0]; i++) {
		if (strcmp(s, nodes_names[i]) == 0) {
			*out = (enum nodes_sched)i;
			return 0;
		}
	}
	return -1;
}

const char *
nodes_sched_name(enum nodes_sched s)
{
	return nodes_names[s];
}

/* Splits s into words separated by blanks and newlines. */
static void
nodes_words(struct strlist *l, const char *s)
{
	size_t	n;

	for (;;) {
		s += strspn(s, " \t\r\n");
		if ((n = strcspn(s, " \t\r\n")) == 0)
			return;
		strlist_addown(l, xstrndup(s, n));
		s += n;
	}
}

static char *
nodes_join(const struct strlist *l, const char *sep)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < l->n; i++) {
		if (i > 0)
			buf_adds(&b, sep);
		buf_adds(&b, l->v[i]);
	}
	return b.s;
}

static int
nodes_cores(const char *what, const char *s, char **cause)
{
	long long	v;

	if (util_strtonum(s, 1, INT32_MAX, &v) == -1)
		return util_fail(cause, "%s: bad core count '%s'", what, s);
	return 0;
}

/* Takes the names in l as the node list; empties l. */
static int
nodes_set_names(struct nodes *n, struct strlist *l, const char *what,
    char **cause)
{
	size_t	i;

	if (l->n == 0)
		return util_fail(cause, "%s: no hosts", what);
	for (i = 0; i < l->n; i++) {
		if (strlen(l->v[i]) > HOSTLIST_NAME_MAX)
			return util_fail(cause, "%s: host name too long: '%.40s...'",
			    what, l->v[i]);
	}
	n->list = hostlist_from_names(l->v, l->n);
	return 0;
}

static int
nodes_slurm_nodeid(struct nodes *n, const struct nodes_env *env,
    int step_list, char **cause)
{
	/* SLURM_NODEID is step-scoped inside a step and job-scoped in the
	 * batch shell: only compare it with a list of the same scope. */
	if (!step_list && (nodes_var(env, "SLURM_STEP_ID") != NULL ||
	    nodes_var(env, "SLURM_STEPID") != NULL))
		return 0;
	return nodes_var_num(&n->nodeid, env, "SLURM_NODEID", 0, cause);
}

static int
nodes_slurm(struct nodes *n, const struct nodes_env *env, char **cause)
{
	/* SLURM_NODELIST is the older name, still set by some wrappers
	 * and by Slurm itself for compatibility: the last resort. */
	static const char *const vars[] = { "SLURM_STEP_NODELIST",
	    "SLURM_JOB_NODELIST", "SLURM_NODELIST" };
	const char	*var = NULL, *v = NULL;
	char		*why;
	size_t		 i;

	for (i = 0; v == NULL && i < sizeof vars / sizeof vars[0]; i++)
		v = nodes_var(env, var = vars[i]);
	if (v == NULL)
		return util_fail(cause, "no node list: none of "
		    "SLURM_STEP_NODELIST, SLURM_JOB_NODELIST, SLURM_NODELIST "
		    "is set");
	n->text = xstrdup(v);
	n->source = xstrdup(var);
	if ((n->list = hostlist_parse(v, &why)) == NULL) {
		util_fail(cause, "%s: %s", var, why);
		free(why);
		return -1;
	}
	if ((v = nodes_var(env, "SLURMD_NODENAME")) != NULL)
		n->selfname = xstrdup(v);
	return nodes_slurm_nodeid(n, env, strcmp(var, "SLURM_STEP_NODELIST") == 0,
	    cause);
}

/* The words of var, a list of hosts each with its core count, keeping
 * the text for messages. */
static int
nodes_pairs_words(struct nodes *n, const struct nodes_env *env,
    const char *var, struct strlist *w, char **cause)
{
	const char	*v;

	if ((v = nodes_var(env, var)) == NULL)
		return util_fail(cause, "no node list: %s is not set", var);
	n->text = xstrdup(v);
	n->source = xstrdup(var);
	strlist_init(w);
	nodes_words(w, v);
	return 0;
}

/* Takes the hosts of the "host cores" pairs in w from word i on as the
 * node list; there are w->n - i words, an even number. */
static int
nodes_pairs(struct nodes *n, const struct strlist *w, size_t i,
    const char *var, char **cause)
{
	struct strlist	names;
	int		rc = -1;

	strlist_init(&names);
	for (; i < w->n; i += 2) {
		if (nodes_cores(var, w->v[i + 1], cause) == -1)
			goto out;
		strlist_add(&names, w->v[i]);
	}
	rc = nodes_set_names(n, &names, var, cause);
out:
	strlist_free(&names);
	return rc;
}

/* CCP_NODES is "<count> <host1> <cores1> <host2> <cores2> ...". */
static int
nodes_hpcpack(struct nodes *n, const struct nodes_env *env, char **cause)
{
	struct strlist	w;
	long long	count;
	int		rc = -1;

	if (nodes_pairs_words(n, env, "CCP_NODES", &w, cause) == -1)
		return -1;
	if (w.n == 0 || util_strtonum(w.v[0], 1, INT32_MAX, &count) == -1)
		util_fail(cause, "CCP_NODES: bad node count in '%s'", n->text);
	else if (w.n % 2 != 1 || (unsigned long long)count != (w.n - 1) / 2)
		util_fail(cause, "CCP_NODES: count %lld does not match the "
		    "%zu words after it: '%s'", count, w.n - 1, n->text);
	else
		rc = nodes_pairs(n, &w, 1, "CCP_NODES", cause);
	strlist_free(&w);
	return rc;
}

static size_t
nodes_hash(const char *s)
{
	size_t	h = 14695981039346656037ULL;

	while (*s != '\0')
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/* The names of a strlist as a set, so node files of a million lines are
 * checked for repeats without comparing every pair: open addressing over
 * indices into the list (slot value i + 1; 0 is empty). */
struct nodes_set {
	size_t	 cap;
	size_t	*slot;
};

static size_t *
nodes_set_probe(const struct nodes_set *set, const struct strlist *l,
    const char *name)
{
	size_t	h = nodes_hash(name) & (set->cap - 1);

	while (set->slot[h] != 0 && strcmp(l->v[set->slot[h] - 1], name) != 0)
		h = (h + 1) & (set->cap - 1);
	return &set->slot[h];
}

static void
nodes_set_grow(struct nodes_set *set, const struct strlist *l)
{
	size_t	i;

	free(set->slot);
	set->cap = set->cap == 0 ? 64 : set->cap * 2;
	set->slot = xcalloc(set->cap, sizeof *set->slot);
	for (i = 0; i < l->n; i++)
		*nodes_set_probe(set, l, l->v[i]) = i + 1;
}

/* Appends name to l unless l has it; returns 1 when it had. */
static int
nodes_set_add(struct nodes_set *set, struct strlist *l, const char *name)
{
	size_t	*slot;

	if (2 * (l->n + 1) > set->cap)
		nodes_set_grow(set, l);
	slot = nodes_set_probe(set, l, name);
	if (*slot != 0)
		return 1;
	strlist_add(l, name);
	*slot = l->n;
	return 0;
}

static void
nodes_set_free(struct nodes_set *set)
{
	free(set->slot);
	set->slot = NULL;
	set->cap = 0;
}

/* Appends the names of in to out once each, in first-seen order: a PBS
 * node file repeats a host once per slot. */
static void
nodes_unique(struct strlist *out, const struct strlist *in)
{
	struct nodes_set	set = { 0, NULL };
	size_t			i;

	for (i = 0; i < in->n; i++)
		nodes_set_add(&set, out, in->v[i]);
	nodes_set_free(&set);
}

static int
nodes_pbs(struct nodes *n, const struct nodes_env *env, char **cause)
{
	struct strlist	 w, names;
	const char	*path;
	char		*data, *what;
	int		 rc;

	if ((path = nodes_var(env, "PBS_NODEFILE")) == NULL)
		return util_fail(cause, "no node list: PBS_NODEFILE is not set");
	if ((data = util_readfile(path, NULL, cause)) == NULL)
		return -1;
	xasprintf(&what, "PBS_NODEFILE %s", path);
	strlist_init(&w);
	strlist_init(&names);
	nodes_words(&w, data);
	nodes_unique(&names, &w);
	n->text = nodes_join(&names, ",");
	rc = nodes_set_names(n, &names, what, cause);
	n->source = what;
	strlist_free(&w);
	strlist_free(&names);
	free(data);
	return rc;
}

/* LSB_MCPU_HOSTS is "host1 n1 host2 n2 ...". In a job of LSF with IBM
 * CSM (CSM_ALLOCATION_ID set), LSF lists the launch node, which runs the
 * batch script but no compute task, first: it is left out. */
static int
nodes_lsf(struct nodes *n, const struct nodes_env *env, char **cause)
{
	struct strlist	w;
	size_t		first = 0;
	int		rc = -1;

	if (nodes_pairs_words(n, env, "LSB_MCPU_HOSTS", &w, cause) == -1)
		return -1;
	if (nodes_var(env, "CSM_ALLOCATION_ID") != NULL && w.n > 2)
		first = 2;
	if (w.n % 2 != 0)
		util_fail(cause, "LSB_MCPU_HOSTS: not host and count pairs: "
		    "'%s'", n->text);
	else if (first == 0 || nodes_cores("LSB_MCPU_HOSTS", w.v[1],
	    cause) == 0)
		rc = nodes_pairs(n, &w, first, "LSB_MCPU_HOSTS", cause);
	strlist_free(&w);
	return rc;
}

/* The word of a hostfile line that is not a valid slot count, or NULL:
 * after the host comes nothing, "slots=N" (Open MPI, DeepSpeed) or "N";
 * MPICH's "host:N" stands alone, and ":N" is cut off its host name. */
static const char *
nodes_hostfile_bad(struct strlist *w)
{
	const char	*s;
	char		*colon;
	long long	 v;

	if (w->n > 2)
		return w->v[2];
	if ((colon = strchr(w->v[0], ':')) != NULL) {
		if (w->n > 1)
			return w->v[1];
		if (colon == w->v[0] ||
		    util_strtonum(colon + 1, 1, INT32_MAX, &v) == -1)
			return w->v[0];
		*colon = '\0';
		return NULL;
	}
	if (w->n == 1)
		return NULL;
	s = w->v[1];
	if (strncmp(s, "slots=", 6) == 0)
		s += 6;
	return util_strtonum(s, 1, INT32_MAX, &v) == -1 ? w->v[1] : NULL;
}

/* One hostfile line after comments are cut: "host", "host slots=N",
 * "host:N" or "host N". */
static int
nodes_hostfile_line(struct strlist *names, struct nodes_set *set,
    const char *path, size_t lineno, char *line, char **cause)
{
	struct strlist	 w;
	const char	*bad;
	int		 rc = -1;

	line[strcspn(line, "#")] = '\0';
	strlist_init(&w);
	nodes_words(&w, line);
	if (w.n == 0) {
		rc = 0;
		goto out;
	}
	if ((bad = nodes_hostfile_bad(&w)) != NULL) {
		util_fail(cause, "%s:%zu: expected 'host', 'host slots=N', "
		    "'host:N' or 'host N', not '%s'", path, lineno, bad);
		goto out;
	}
	if (nodes_set_add(set, names, w.v[0])) {
		util_fail(cause, "%s:%zu: host '%s' is listed twice", path,
		    lineno, w.v[0]);
		goto out;
	}
	rc = 0;
out:
	strlist_free(&w);
	return rc;
}

static int
nodes_hostfile(struct nodes *n, const char *path, char **cause)
{
	struct strlist	 names;
	struct nodes_set set = { 0, NULL };
	char		*data, *line, *next;
	size_t		 lineno = 0;
	int		 rc = -1;

	if ((data = util_readfile(path, NULL, cause)) == NULL)
		return -1;
	xasprintf(&n->source, "hostfile %s", path);
	strlist_init(&names);
	for (line = data; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (nodes_hostfile_line(&names, &set, path, ++lineno, line,
		    cause) == -1)
			goto out;
	}
	n->text = nodes_join(&names, ",");
	rc = nodes_set_names(n, &names, path, cause);
out:
	nodes_set_free(&set);
	strlist_free(&names);
	free(data);
	return rc;
}

static enum nodes_sched
nodes_detect(const struct nodes_env *env)
{
	if (nodes_var(env, "SLURM_STEP_NODELIST") != NULL ||
	    nodes_var(env, "SLURM_JOB_NODELIST") != NULL ||
	    nodes_var(env, "SLURM_NODELIST") != NULL)
		return NODES_SLURM;
	if (nodes_var(env, "CCP_NODES") != NULL)
		return NODES_HPCPACK;
	if (nodes_var(env, "PBS_NODEFILE") != NULL)
		return NODES_PBS;
	if (nodes_var(env, "LSB_MCPU_HOSTS") != NULL)
		return NODES_LSF;
	return NODES_AUTO;
}

static int
nodes_load_list(struct nodes *n, const struct nodes_env *env,
    const char *hostfile, char **cause)
{
	switch (n->sched) {
	case NODES_SLURM:
		return nodes_slurm(n, env, cause);
	case NODES_HPCPACK:
		return nodes_hpcpack(n, env, cause);
	case NODES_PBS:
		return nodes_pbs(n, env, cause);
	case NODES_LSF:
		return nodes_lsf(n, env, cause);
	case NODES_HOSTFILE:
		if (hostfile == NULL)
			return util_fail(cause, "no node list: --scheduler "
			    "hostfile needs --hostfile FILE");
		return nodes_hostfile(n, hostfile, cause);
	case NODES_AUTO:
		break;
	}
	return util_fail(cause, "no node list: none of SLURM_STEP_NODELIST, "
	    "SLURM_JOB_NODELIST, SLURM_NODELIST, CCP_NODES, PBS_NODEFILE, "
	    "LSB_MCPU_HOSTS is set and no --hostfile was given");
}

enum nodes_sched
nodes_sched_resolve(const struct nodes_env *env, enum nodes_sched sched,
    const char *hostfile)
{
	if (sched != NODES_AUTO)
		return sched;
	if (hostfile != NULL)
		return NODES_HOSTFILE;
	return nodes_detect(env);
}

int
nodes_load(struct nodes *n, const struct nodes_env *env,
    enum nodes_sched sched, const char *hostfile, char **cause)
{
	memset(n, 0, sizeof *n);
	n->nodeid = -1;
	if (hostfile != NULL && sched != NODES_AUTO && sched != NODES_HOSTFILE)
		return util_fail(cause, "--hostfile conflicts with "
		    "--scheduler %s", nodes_sched_name(sched));
	n->sched = nodes_sched_resolve(env, sched, hostfile);
	if (nodes_load_list(n, env, hostfile, cause) == -1) {
		nodes_free(n);
		return -1;
	}
	return 0;
}

void
nodes_free(struct nodes *n)
{
	if (n->list != NULL)
		hostlist_free(n->list);
	free(n->text);
	free(n->source);
	free(n->selfname);
	memset(n, 0, sizeof *n);
}

/* A decimal job id; PBS ids are "1234.server" or "1234[5].server", so
 * with prefix set only the leading digits count. */
static int
nodes_jobnum(struct nodes_job *job, const struct nodes_env *env,
    const char *var, int prefix, char **cause)
{
	const char	*v, *s;
	uint64_t	 id = 0;

	if ((v = nodes_var(env, var)) == NULL)
		return 0;
	for (s = v; *s >= '0' && *s <= '9'; s++) {
		if (id > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return util_fail(cause, "%s is too large: '%s'", var, v);
		id = id * 10 + (uint64_t)(*s - '0');
	}
	if (s == v || (!prefix && *s != '\0'))
		return util_fail(cause, "%s is not a number: '%s'", var, v);
	job->set = 1;
	job->id = id;
	job->var = var;
	return 0;
}


static int
nodes_job_slurm(struct nodes_job *job, const struct nodes_env *env,
    char **cause)
{
	if (nodes_jobnum(job, env, "SLURM_JOB_ID", 0, cause) == -1 ||
	    nodes_var_num(&job->task, env, "SLURM_ARRAY_TASK_ID", 0,
	    cause) == -1)
		return -1;
	/* SLURM_STEPID is the older name of SLURM_STEP_ID. */
	if (nodes_var_num(&job->step, env, "SLURM_STEPID", 0, cause) == -1)
		return -1;
	return nodes_var_num(&job->step, env, "SLURM_STEP_ID", 0, cause);
}

static int
nodes_job_pbs(struct nodes_job *job, const struct nodes_env *env,
    char **cause)
{
	/* Array sub-jobs share the numeric prefix: PBS Pro numbers them in
	 * PBS_ARRAY_INDEX, Torque in PBS_ARRAYID. */
	if (nodes_jobnum(job, env, "PBS_JOBID", 1, cause) == -1 ||
	    nodes_var_num(&job->task, env, "PBS_ARRAYID", 0, cause) == -1)
		return -1;
	return nodes_var_num(&job->task, env, "PBS_ARRAY_INDEX", 0, cause);
}

static int
nodes_job_lsf(struct nodes_job *job, const struct nodes_env *env,
    char **cause)
{
	/* Elements of an LSF job array share LSB_JOBID; LSB_JOBINDEX is 0
	 * outside arrays. */
	if (nodes_jobnum(job, env, "LSB_JOBID", 0, cause) == -1 ||
	    nodes_var_num(&job->task, env, "LSB_JOBINDEX", 0, cause) == -1)
		return -1;
	if (job->task == 0)
		job->task = -1;
	return 0;
}

static enum nodes_sched
nodes_job_detect(const struct nodes_env *env)
{
	if (nodes_var(env, "SLURM_JOB_ID") != NULL)
		return NODES_SLURM;
	if (nodes_var(env, "CCP_JOBID") != NULL)
		return NODES_HPCPACK;
	if (nodes_var(env, "PBS_JOBID") != NULL)
		return NODES_PBS;
	if (nodes_var(env, "LSB_JOBID") != NULL)
		return NODES_LSF;
	return NODES_AUTO;
}

int
nodes_job(struct nodes_job *job, const struct nodes_env *env,
    enum nodes_sched sched, char **cause)
{
	memset(job, 0, sizeof *job);
	job->task = job->step = -1;
	if (sched == NODES_AUTO || sched == NODES_HOSTFILE)
		sched = nodes_job_detect(env);
	switch (sched) {
	case NODES_SLURM:
		return nodes_job_slurm(job, env, cause);
	case NODES_HPCPACK:
		/* Not CCP_TASKID: each node runs its own task. */
		return nodes_jobnum(job, env, "CCP_JOBID", 0, cause);
	case NODES_PBS:
		return nodes_job_pbs(job, env, cause);
	case NODES_LSF:
		return nodes_job_lsf(job, env, cause);
	case NODES_AUTO:
	case NODES_HOSTFILE:
		break;
	}
	return 0;
}

char *
nodes_job_string(const struct nodes_job *job)
{
	struct buf	b;

	if (!job->set)
		return NULL;
	buf_init(&b);
	buf_addf(&b, "%llu", (unsigned long long)job->id);
	if (job->task >= 0)
		buf_addf(&b, "_%lld", (long long)job->task);
	if (job->step >= 0)
		buf_addf(&b, ".%lld", (long long)job->step);
	return b.s;
}

int64_t
nodes_find(const struct nodes *n, const char *name)
{
	int	flags = HOSTLIST_SHORT;

	/* HPC Pack names nodes in NetBIOS upper case; the Linux hostname
	 * may be lower case, short or not. */
	if (n->sched == NODES_HPCPACK)
		flags |= HOSTLIST_ICASE;
	return hostlist_find(n->list, name, flags);
}

char *
nodes_describe(const struct nodes *n)
{
	char	*s;

	if (strlen(n->text) > NODES_DESCRIBE_MAX)
		xasprintf(&s, "'%.*s...' (from %s)", NODES_DESCRIBE_MAX,
		    n->text, n->source);
	else
		xasprintf(&s, "'%s' (from %s)", n->text, n->source);
	return s;
}
