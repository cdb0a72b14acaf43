/* nodes.c: the node list and job id from scheduler variables or a hostfile. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fluxr.h"
#include "hostlist.h"
#include "nodes.h"
#include "scheduler.h"
#include "util.h"
#include "xmalloc.h"

/* Longest list text quoted in a message before it is cut. */
#define NODES_DESCRIBE_MAX	100

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
	const char	*v;

	if (name == NULL)	/* a variable the scheduler's row lacks */
		return NULL;
	v = env->get(env->arg, name);
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

/* The variable of vars that is set first, or NULL; *var names it. */
static const char *
nodes_first(const struct nodes_env *env, const char *const *vars,
    const char **var)
{
	const char	*v = NULL;

	for (; v == NULL && *vars != NULL; vars++)
		v = nodes_var(env, *var = *vars);
	return v;
}

/* "no node list: V is not set" or "none of V1, V2 is set". */
static int
nodes_unset(const struct sched *s, char **cause)
{
	struct buf	b;
	size_t		i;

	if (s->list_vars[1] == NULL)
		return util_fail(cause, "no node list: %s is not set",
		    s->list_vars[0]);
	buf_init(&b);
	for (i = 0; s->list_vars[i] != NULL; i++)
		buf_addf(&b, "%s%s", i > 0 ? ", " : "", s->list_vars[i]);
	util_fail(cause, "no node list: none of %s is set", b.s);
	buf_free(&b);
	return -1;
}

static int
nodes_nodeid(struct nodes *n, const struct sched *s,
    const struct nodes_env *env, int step_list, char **cause)
{
	const char	*var;

	if (s->nodeid_var == NULL)
		return 0;
	/* SLURM_NODEID is step-scoped inside a step and job-scoped in the
	 * batch shell: only compare it with a list of the same scope (the
	 * first list variable is the step's). */
	if (!step_list && nodes_first(env, s->step_vars, &var) != NULL)
		return 0;
	return nodes_var_num(&n->nodeid, env, s->nodeid_var, 0, cause);
}

static int
nodes_hostlist(struct nodes *n, const struct sched *s,
    const struct nodes_env *env, char **cause)
{
	const char	*var = NULL, *v;
	char		*why;

	if ((v = nodes_first(env, s->list_vars, &var)) == NULL)
		return nodes_unset(s, cause);
	n->text = xstrdup(v);
	n->source = xstrdup(var);
	if ((n->list = hostlist_parse(v, &why)) == NULL) {
		util_fail(cause, "%s: %s", var, why);
		free(why);
		return -1;
	}
	if (s->selfname_var != NULL &&
	    (v = nodes_var(env, s->selfname_var)) != NULL)
		n->selfname = xstrdup(v);
	return nodes_nodeid(n, s, env, strcmp(var, s->list_vars[0]) == 0,
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

/* HPC Pack's CCP_NODES is "<count> <host1> <cores1> <host2> <cores2>
 * ...". */
static int
nodes_counted(struct nodes *n, const struct sched *s,
    const struct nodes_env *env, char **cause)
{
	const char	*var = s->list_vars[0];
	struct strlist	 w;
	long long	 count;
	int		 rc = -1;

	if (nodes_pairs_words(n, env, var, &w, cause) == -1)
		return -1;
	if (w.n == 0 || util_strtonum(w.v[0], 1, INT32_MAX, &count) == -1)
		util_fail(cause, "%s: bad node count in '%s'", var, n->text);
	else if (w.n % 2 != 1 || (unsigned long long)count != (w.n - 1) / 2)
		util_fail(cause, "%s: count %lld does not match the "
		    "%zu words after it: '%s'", var, count, w.n - 1, n->text);
	else
		rc = nodes_pairs(n, &w, 1, var, cause);
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

/* A file named by the variable, a host per slot (PBS's PBS_NODEFILE). */
static int
nodes_nodefile(struct nodes *n, const struct sched *s,
    const struct nodes_env *env, char **cause)
{
	struct strlist	 w, names;
	const char	*path;
	char		*data, *what;
	int		 rc;

	if ((path = nodes_var(env, s->list_vars[0])) == NULL)
		return nodes_unset(s, cause);
	if ((data = util_readfile(path, NULL, cause)) == NULL)
		return -1;
	xasprintf(&what, "%s %s", s->list_vars[0], path);
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

/* LSF's LSB_MCPU_HOSTS is "host1 n1 host2 n2 ...". In a job of LSF with
 * IBM CSM (CSM_ALLOCATION_ID set), LSF lists the launch node, which runs
 * the batch script but no compute task, first: it is left out. */
static int
nodes_pairlist(struct nodes *n, const struct sched *s,
    const struct nodes_env *env, char **cause)
{
	const char	*var = s->list_vars[0];
	struct strlist	 w;
	size_t		 first = 0;
	int		 rc = -1;

	if (nodes_pairs_words(n, env, var, &w, cause) == -1)
		return -1;
	if (s->launch_var != NULL && nodes_var(env, s->launch_var) != NULL &&
	    w.n > 2)
		first = 2;
	if (w.n % 2 != 0)
		util_fail(cause, "%s: not host and count pairs: '%s'", var,
		    n->text);
	else if (first == 0 || nodes_cores(var, w.v[1], cause) == 0)
		rc = nodes_pairs(n, &w, first, var, cause);
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

/* The variable that stands in for `flux job info ID R`: R's text, for
 * tests and for jobs that fetch R once themselves. */
#define NODES_FLUX_R	"DDPRANK_FLUX_R"

/* R's text: DDPRANK_FLUX_R, else flux's answer for the job. */
static char *
nodes_flux_text(struct nodes *n, const struct nodes_env *env,
    const char *id, size_t *len, char **cause)
{
	const char	*v;

	if ((v = nodes_var(env, NODES_FLUX_R)) != NULL) {
		n->source = xstrdup(NODES_FLUX_R);
		*len = strlen(v);
		return xstrdup(v);
	}
	xasprintf(&n->source, "flux job info %s R", id);
	return fluxr_fetch(id, len, cause);
}

/* A Flux job's nodes: its resource set R's execution.nodelist, RFC 29
 * hostlists, which Slurm's grammar reads the same for the lists Flux
 * writes. */
static int
nodes_flux(struct nodes *n, const struct sched *s,
    const struct nodes_env *env, char **cause)
{
	struct buf	 hosts;
	const char	*id;
	char		*r, *why;
	size_t		 len;
	int		 rc = -1;

	if ((id = nodes_var(env, s->list_vars[0])) == NULL)
		return nodes_unset(s, cause);
	if ((r = nodes_flux_text(n, env, id, &len, cause)) == NULL)
		return -1;
	buf_init(&hosts);
	if (fluxr_nodelist(r, len, &hosts, &why) == -1) {
		util_fail(cause, "%s: %s", n->source, why);
		free(why);
	} else if ((n->list = hostlist_parse(hosts.s, &why)) == NULL) {
		util_fail(cause, "%s: execution.nodelist: %s", n->source, why);
		free(why);
	} else
		rc = 0;
	n->text = buf_take(&hosts);
	free(r);
	if (rc == 0)
		rc = nodes_var_num(&n->nodeid, env, s->nodeid_var, 0, cause);
	return rc;
}

/* The first scheduler, in table order, one of whose list variables is
 * set; SCHED_AUTO when none is. */
static enum sched_id
nodes_detect(const struct nodes_env *env)
{
	const char	*var;
	int		 i;

	for (i = 0; i < SCHED_COUNT; i++)
		if (nodes_first(env, sched_get(i)->list_vars, &var) != NULL)
			return (enum sched_id)i;
	return SCHED_AUTO;
}

static int
nodes_load_list(struct nodes *n, const struct nodes_env *env,
    const char *hostfile, char **cause)
{
	const struct sched	*s = sched_get(n->sched);
	char			*vars;

	switch (s->list) {
	case SCHED_LIST_HOSTLIST:
		return nodes_hostlist(n, s, env, cause);
	case SCHED_LIST_COUNTED:
		return nodes_counted(n, s, env, cause);
	case SCHED_LIST_PAIRS:
		return nodes_pairlist(n, s, env, cause);
	case SCHED_LIST_NODEFILE:
		return nodes_nodefile(n, s, env, cause);
	case SCHED_LIST_FLUX_R:
		return nodes_flux(n, s, env, cause);
	case SCHED_LIST_NONE:
		break;
	}
	if (n->sched == SCHED_HOSTFILE) {
		if (hostfile == NULL)
			return util_fail(cause, "no node list: --scheduler "
			    "hostfile needs --hostfile FILE");
		return nodes_hostfile(n, hostfile, cause);
	}
	vars = sched_list_vars_text();
	util_fail(cause, "no node list: none of %s is set and no --hostfile "
	    "was given", vars);
	free(vars);
	return -1;
}

enum sched_id
nodes_sched_resolve(const struct nodes_env *env, enum sched_id sched,
    const char *hostfile)
{
	if (sched != SCHED_AUTO)
		return sched;
	if (hostfile != NULL)
		return SCHED_HOSTFILE;
	return nodes_detect(env);
}

int
nodes_load(struct nodes *n, const struct nodes_env *env,
    enum sched_id sched, const char *hostfile, char **cause)
{
	memset(n, 0, sizeof *n);
	n->nodeid = -1;
	if (hostfile != NULL && sched != SCHED_AUTO && sched != SCHED_HOSTFILE)
		return util_fail(cause, "--hostfile conflicts with "
		    "--scheduler %s", sched_name(sched));
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

/* Flux's job ids: F58 (FLUX_JOB_ID's form) or decimal. */
static int
nodes_jobf58(struct nodes_job *job, const struct nodes_env *env,
    const char *var, char **cause)
{
	const char	*v;
	uint64_t	 id;

	if ((v = nodes_var(env, var)) == NULL)
		return 0;
	if (fluxr_jobid(v, &id) == -1)
		return util_fail(cause, "%s is not a Flux job id: '%s'", var, v);
	job->set = 1;
	job->id = id;
	job->var = var;
	return 0;
}

static int
nodes_jobvar(struct nodes_job *job, const struct nodes_env *env,
    const struct sched *s, const char *var, char **cause)
{
	if (s->job_f58)
		return nodes_jobf58(job, env, var, cause);
	return nodes_jobnum(job, env, var, s->job_prefix, cause);
}

/* Where port_job_var is set but job_var is not, the job is port_job_var's:
 * Flux's batch script, its instance's initial program, has
 * FLUX_ENCLOSING_ID, the batch job's id, but no FLUX_JOB_ID, which the
 * broker unsets (flux-environment(7)). */
static int
nodes_jobid(struct nodes_job *job, const struct nodes_env *env,
    const struct sched *s, char **cause)
{
	struct nodes_job	port;

	if (nodes_jobvar(job, env, s, s->job_var, cause) == -1)
		return -1;
	job->port_id = job->id;
	if (s->port_job_var == NULL)
		return 0;
	memset(&port, 0, sizeof port);
	if (nodes_jobvar(&port, env, s, s->port_job_var, cause) == -1)
		return -1;
	if (!port.set)
		return 0;
	if (!job->set) {
		job->set = 1;
		job->id = port.id;
		job->var = port.var;
	}
	job->port_id = port.id;
	return 0;
}

/* The first scheduler, in table order, whose job id variable, or port
 * job id variable (Flux's batch script), is set; SCHED_AUTO when none
 * is. */
static enum sched_id
nodes_job_detect(const struct nodes_env *env)
{
	const struct sched	*s;
	int			 i;

	for (i = 0; i < SCHED_COUNT; i++) {
		s = sched_get(i);
		if ((s->job_var != NULL && nodes_var(env, s->job_var) != NULL) ||
		    (s->port_job_var != NULL &&
		    nodes_var(env, s->port_job_var) != NULL))
			return (enum sched_id)i;
	}
	return SCHED_AUTO;
}

/* Sets *out from each of vars that is set, the last winning. */
static int
nodes_var_last(int64_t *out, const struct nodes_env *env,
    const char *const *vars, char **cause)
{
	for (; *vars != NULL; vars++)
		if (nodes_var_num(out, env, *vars, 0, cause) == -1)
			return -1;
	return 0;
}

int
nodes_job(struct nodes_job *job, const struct nodes_env *env,
    enum sched_id sched, char **cause)
{
	const struct sched	*s;

	memset(job, 0, sizeof *job);
	job->task = job->step = -1;
	if (sched == SCHED_AUTO || sched == SCHED_HOSTFILE)
		sched = nodes_job_detect(env);
	s = sched_get(sched);
	if (s->job_var == NULL)
		return 0;
	if (nodes_jobid(job, env, s, cause) == -1 ||
	    nodes_var_last(&job->task, env, s->task_vars, cause) == -1 ||
	    nodes_var_last(&job->step, env, s->step_vars, cause) == -1)
		return -1;
	if (s->task_zero_absent && job->task == 0)
		job->task = -1;
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
	return hostlist_find(n->list, name, sched_get(n->sched)->hostlist_flags);
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
