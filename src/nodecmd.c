/* nodecmd.c: the one builder of the command each node runs. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"
#include "nodecmd.h"
#include "profile.h"
#include "quote.h"
#include "runtime.h"
#include "gen.h"
#include "scheduler.h"
#include "script.h"
#include "util.h"
#include "vocab.h"
#include "xmalloc.h"

static void
nodecmd_addf_int(struct strlist *l, int n)
{
	char	*s;

	xasprintf(&s, "%d", n);
	strlist_addown(l, s);
}

/* The processes per node as a word after prefix ("--nproc_per_node=",
 * or "" for a word of its own): the profile's count, or where the job
 * counts them when it runs (gen_nproc_at_run), the shell's. */
static void
nodecmd_nproc(struct nodecmd *c, const struct job *job, const char *prefix)
{
	char	*s;

	if (gen_nproc_at_run(job->prof)) {
		if (c->nraw < NODECMD_RAW_MAX)
			c->raw[c->nraw++] = c->argv.n;
		xasprintf(&s, "%s\"$ddpgen_nproc\"", prefix);
	} else
		xasprintf(&s, "%s%d", prefix, profile_nproc(job->prof));
	strlist_addown(&c->argv, s);
}

/* What a scheduler whose tasks may see only their own node needs: the
 * shared-directory exchange, and the one reliable node count. */
static void
nodecmd_exchange(struct strlist *argv, const struct job *job)
{
	const struct profile	*p = job->prof;
	char			*s;

	strlist_add(argv, "--exchange");
	xasprintf(&s, "dir:%s/.ddprank", p->shared_dir);
	strlist_addown(argv, s);
	strlist_add(argv, "--exchange-timeout");
	nodecmd_addf_int(argv, p->exchange_timeout);
	strlist_add(argv, "--nnodes");
	nodecmd_addf_int(argv, job->nodes);
}

/* A launcher other than torchrun: its name, and the processes per node
 * when its flags count every node's. */
static void
nodecmd_launcher(struct nodecmd *c, const struct job *job,
    const struct launcher *l)
{
	const struct launcher_flag	*f;

	strlist_add(&c->argv, "--launcher");
	strlist_add(&c->argv, l->name);
	for (f = l->flags; f->flag != NULL; f++) {
		if (f->val == LAUNCHER_VAL_PROCS) {
			strlist_add(&c->argv, "--nproc-per-node");
			nodecmd_nproc(c, job, "");
		}
	}
}

static const struct launcher *
nodecmd_row(const struct job *job)
{
	return launcher_get(launcher_find(job->prof->launcher.v[0]));
}

/* The binding's options of ddprank exec and doctor: the policy, the
 * site's reserved CPUs and NIC variable, and the local ranks (added
 * already when want is 0). */
static void
nodecmd_bind(struct nodecmd *c, const struct job *job, int nic,
    int nproc)
{
	const struct profile	*p = job->prof;
	struct strlist		*argv = &c->argv;

	strlist_add(argv, "--bind");
	strlist_add(argv, bind_names[p->bind]);
	if (*p->bind_reserve != '\0') {
		strlist_add(argv, "--bind-reserve");
		strlist_add(argv, p->bind_reserve);
	}
	if (nic && *p->bind_nic_var != '\0') {
		strlist_add(argv, "--bind-nic-var");
		strlist_add(argv, p->bind_nic_var);
	}
	if (nproc) {
		strlist_add(argv, "--nproc-per-node");
		nodecmd_nproc(c, job, "");
	}
}

/* 1 if the launcher's flags count every node's processes, and ddprank
 * exec is given --nproc-per-node for them already. */
static int
nodecmd_has_procs(const struct launcher *l)
{
	const struct launcher_flag	*f;

	for (f = l->flags; f->flag != NULL; f++)
		if (f->val == LAUNCHER_VAL_PROCS)
			return 1;
	return 0;
}

/* ddprank exec and its options, up to and with "--"; rt words of a
 * container runtime's command come before the launcher. */
static void
nodecmd_ddprank(struct nodecmd *c, const struct job *job, size_t rt)
{
	const struct profile	*p = job->prof;
	const struct launcher	*l = nodecmd_row(job);
	struct strlist		*argv = &c->argv;
	char			*s;

	strlist_add(argv, job->ddprank);
	strlist_add(argv, "exec");
	if (gen_get(p->scheduler)->flags & GEN_NAME_SCHED) {
		strlist_add(argv, "--scheduler");
		strlist_add(argv, sched_name(p->scheduler));
	}
	if (sched_get(p->scheduler)->partial_list)
		nodecmd_exchange(argv, job);
	if (*p->iface != '\0') {
		strlist_add(argv, "--iface");
		strlist_add(argv, p->iface);
	}
	if (*p->comm_iface != '\0') {
		strlist_add(argv, "--comm-iface");
		strlist_add(argv, p->comm_iface);
	}
	strlist_add(argv, "--port");
	if (p->port == 0)
		strlist_add(argv, "auto");
	else
		nodecmd_addf_int(argv, p->port);
	strlist_add(argv, "--port-range");
	xasprintf(&s, "%d-%d", p->port_min, p->port_max);
	strlist_addown(argv, s);
	if (l->rdzv) {
		strlist_add(argv, "--rdzv");
		strlist_add(argv, rdzv_names[p->rdzv]);
	}
	if (l != launcher_get(LAUNCHER_TORCHRUN))
		nodecmd_launcher(c, job, l);
	if (p->bind != BIND_NONE)
		nodecmd_bind(c, job, 1, !nodecmd_has_procs(l));
	if (p->hang_timeout > 0) {
		strlist_add(argv, "--hang-timeout");
		nodecmd_addf_int(argv, p->hang_timeout);
		if (*p->hang_dir != '\0') {
			strlist_add(argv, "--hang-dir");
			strlist_add(argv, p->hang_dir);
		}
	}
	/* The launcher's run-time flags go after its first words. */
	if (rt > 0 && l->flags[0].flag != NULL) {
		strlist_add(argv, "--launcher-at");
		xasprintf(&s, "%zu", rt);
		strlist_addown(argv, s);
	}
	strlist_add(argv, "--");
}

static void
nodecmd_add_all(struct strlist *argv, const char *const *words)
{
	for (; words != NULL && *words != NULL; words++)
		strlist_add(argv, *words);
}

/* A runtime that passes no environment is told each name that must
 * cross: ddprank's and the script's variables, the profile's env and
 * the names --env passes (each once, in that order). */
static void
nodecmd_env_names(struct strlist *argv, const struct job *job,
    const char *opt)
{
	const struct profile	*p = job->prof;
	struct strlist		 names;
	size_t			 i, j;

	strlist_init(&names);
	nodecmd_add_all(&names, vocab_exec_vars);
	for (i = 0; i < p->env.n; i++)
		strlist_addown(&names, xstrndup(p->env.v[i],
		    strcspn(p->env.v[i], "=")));
	for (i = 0; job->env_pass != NULL && i < job->env_pass->n; i++)
		strlist_add(&names, job->env_pass->v[i]);
	if (p->bind != BIND_NONE)
		strlist_add(&names, BIND_PLAN_VAR);
	for (i = 0; i < names.n; i++) {
		for (j = 0; j < i && strcmp(names.v[j], names.v[i]) != 0; j++)
			;
		if (j < i)
			continue;
		strlist_add(argv, opt);
		strlist_add(argv, names.v[i]);
	}
	strlist_free(&names);
}

static void
nodecmd_mounts(struct strlist *argv, const struct profile *p,
    const char *opt)
{
	size_t	 n = strlen(opt), i;
	char	*m, *s;

	for (i = 0; i < p->container_mounts.n; i++) {
		m = runtime_mount(p->container_mounts.v[i]);
		if (opt[n - 1] == '=') {
			xasprintf(&s, "%s%s", opt, m);
			strlist_addown(argv, s);
			free(m);
		} else {
			strlist_add(argv, opt);
			strlist_addown(argv, m);
		}
	}
}

/* The workers' binding step runs ddprank inside the container: its
 * directory, mounted at its own path (job_resolve made it absolute). */
static void
nodecmd_bind_mount(struct strlist *argv, const struct job *job,
    const char *opt)
{
	const char	*slash = strrchr(job->ddprank, '/');
	size_t		 n = strlen(opt);
	char		*dir, *m;

	dir = xstrndup(job->ddprank, (size_t)(slash - job->ddprank));
	m = runtime_mount(dir);
	free(dir);
	if (opt[n - 1] == '=') {
		xasprintf(&dir, "%s%s", opt, m);
		strlist_addown(argv, dir);
		free(m);
	} else {
		strlist_add(argv, opt);
		strlist_addown(argv, m);
	}
}

/* The runtime's command up to the launcher, for a runtime that ddprank
 * execs (runtime.h has each row's source). */
static void
nodecmd_runtime(struct strlist *argv, const struct job *job)
{
	const struct profile	*p = job->prof;
	const struct runtime	*rt = runtime_get(p->container);
	char			*s;
	size_t			 i;

	nodecmd_add_all(argv, rt->argv);
	if (p->gpus_per_node > 0)
		nodecmd_add_all(argv, rt->gpu_args);
	/* Shifter's modules are #SBATCH --module (script.c). */
	for (i = 0; rt->module_opt != NULL && rt->image == RT_IMAGE_WORD &&
	    i < p->container_modules.n; i++) {
		xasprintf(&s, "%s%s", rt->module_opt,
		    p->container_modules.v[i]);
		strlist_addown(argv, s);
	}
	if (rt->env_opt != NULL)
		nodecmd_env_names(argv, job, rt->env_opt);
	nodecmd_mounts(argv, p, rt->mount_opt);
	if (p->bind != BIND_NONE && !nodecmd_row(job)->per_process)
		nodecmd_bind_mount(argv, job, rt->mount_opt);
	strlist_copy(argv, &p->container_args);
	if (rt->image == RT_IMAGE_WORD)
		strlist_add(argv, p->image);
	if (rt->command_sep != NULL)
		strlist_add(argv, rt->command_sep);
}

/* 1 if l holds one of the words of alt. */
static int
nodecmd_has(const struct strlist *l, const char *const *alt)
{
	size_t	i, k;

	for (i = 0; i < l->n; i++)
		for (k = 0; alt[k] != NULL; k++)
			if (strcmp(l->v[i], alt[k]) == 0)
				return 1;
	return 0;
}

/* The row's fixed flags, unless the profile chose another of alt, or
 * the job has one process in all: accelerate refuses --multi_gpu for
 * fewer than 2 ("You need to use at least 2 processes") and runs one
 * process without it. */
static void
nodecmd_fixed(struct strlist *argv, const struct job *job,
    const struct launcher *l)
{
	const struct profile	*p = job->prof;
	size_t			 i;

	if (l->fixed == NULL || nodecmd_has(&p->launcher, l->alt) ||
	    nodecmd_has(&p->launcher_args, l->alt) ||
	    (long long)job->nodes * profile_nproc(p) < 2)
		return;
	for (i = 0; l->fixed[i] != NULL; i++)
		strlist_add(argv, l->fixed[i]);
}

/* 1 if the profile's launcher words or arguments hold flag, spelled
 * with '_' or '-' (torch 2's torchrun takes --no-python too). */
static int
nodecmd_given(const struct profile *p, const char *flag)
{
	char		*other;
	const char	*alt[3];
	size_t		 i;
	int		 found;

	if (flag == NULL)
		return 0;
	other = xstrdup(flag);
	for (i = 2; other[i] != '\0'; i++)
		if (other[i] == '_' || other[i] == '-')
			other[i] = other[i] == '_' ? '-' : '_';
	alt[0] = flag;
	alt[1] = other;
	alt[2] = NULL;
	found = nodecmd_has(&p->launcher, alt) ||
	    nodecmd_has(&p->launcher_args, alt);
	free(other);
	return found;
}

/* The launcher runs each worker's binding step, a program, where it
 * would run python: its no-python flag, and the flag that keeps its
 * --local_rank=N from coming before the step's arguments (the step
 * puts it after the script). */
static void
nodecmd_no_python(struct strlist *argv, const struct job *job,
    const struct launcher *l)
{
	if (!nodecmd_given(job->prof, l->no_python))
		strlist_add(argv, l->no_python);
	if (l->no_local_rank != NULL &&
	    !nodecmd_given(job->prof, l->no_local_rank))
		strlist_add(argv, l->no_local_rank);
}

/* The workers' binding step before the script: ddprank bind, which
 * runs the launcher's python on the script (unless the profile's own
 * no-python flag says the script is a program) and gives it the
 * --local_rank=N the launcher would have. */
static void
nodecmd_bind_step(struct strlist *argv, const struct job *job,
    const struct launcher *l)
{
	strlist_add(argv, job->ddprank);
	strlist_add(argv, "bind");
	if (!nodecmd_given(job->prof, l->no_python))
		strlist_add(argv, "--python");
	if (l->no_local_rank != NULL &&
	    !nodecmd_given(job->prof, l->no_local_rank))
		strlist_add(argv, "--local-rank-arg");
	strlist_add(argv, "--");
}

void
nodecmd_build(struct nodecmd *c, const struct job *job)
{
	const struct profile	*p = job->prof;
	const struct launcher	*l = nodecmd_row(job);
	struct strlist		 rt;
	char			*s;
	size_t			 i;

	strlist_init(&c->argv);
	c->nraw = 0;
	strlist_init(&rt);
	if (runtime_get(p->container)->argv != NULL)
		nodecmd_runtime(&rt, job);
	nodecmd_ddprank(c, job, rt.n);
	c->runtime = rt.n > 0 ? c->argv.n : SIZE_MAX;
	strlist_copy(&c->argv, &rt);
	strlist_free(&rt);
	c->launcher = c->argv.n;
	launcher_program(&c->argv, &p->launcher);
	if (l->nproc_flag != NULL) {
		xasprintf(&s, "%s=", l->nproc_flag);
		nodecmd_nproc(c, job, s);
		free(s);
	}
	if (p->max_restarts > 0 && l->restarts_flag != NULL) {
		xasprintf(&s, "%s=%d", l->restarts_flag, p->max_restarts);
		strlist_addown(&c->argv, s);
	}
	nodecmd_fixed(&c->argv, job, l);
	if (p->bind != BIND_NONE && !l->per_process)
		nodecmd_no_python(&c->argv, job, l);
	strlist_copy(&c->argv, &p->launcher_args);
	c->script = c->argv.n;
	if (p->bind != BIND_NONE && !l->per_process)
		nodecmd_bind_step(&c->argv, job, l);
	strlist_add(&c->argv, job->script);
	for (i = 0; i < job->nargs; i++)
		strlist_add(&c->argv, job->args[i]);
}

void
nodecmd_doctor(struct nodecmd *c, const struct job *job)
{
	const struct profile	*p = job->prof;
	const struct runtime	*rt = runtime_get(p->container);
	int			 partial = sched_get(p->scheduler)->partial_list;
	struct strlist		 prog;
	char			*s;

	strlist_init(&c->argv);
	strlist_init(&prog);
	c->nraw = 0;
	c->runtime = c->launcher = c->script = SIZE_MAX;
	strlist_add(&c->argv, job->ddprank);
	strlist_add(&c->argv, "doctor");
	if (partial) {
		xasprintf(&s, "--exchange=dir:%s/.ddprank", p->shared_dir);
		strlist_addown(&c->argv, s);
		xasprintf(&s, "--nnodes=%d", job->nodes);
		strlist_addown(&c->argv, s);
	}
	if (*p->iface != '\0') {
		strlist_add(&c->argv, "--iface");
		strlist_add(&c->argv, p->iface);
	}
	/* What exec would refuse, the doctor finds first. */
	if (*p->comm_iface != '\0') {
		strlist_add(&c->argv, "--comm-iface");
		strlist_add(&c->argv, p->comm_iface);
	}
	if (nodecmd_row(job)->rdzv && p->rdzv == RDZV_C10D) {
		strlist_add(&c->argv, "--rdzv");
		strlist_add(&c->argv, "c10d");
	}
	if (p->preflight_torch)
		strlist_add(&c->argv, "--deep");
	if (partial) {
		if (p->port != 0)
			xasprintf(&s, "--port=%d", p->port);
		else
			xasprintf(&s, "--port-range=%d-%d", p->port_min,
			    p->port_max);
		strlist_addown(&c->argv, s);
	} else {
		strlist_add(&c->argv, "--port");
		if (p->port == 0)
			strlist_add(&c->argv, "auto");
		else
			nodecmd_addf_int(&c->argv, p->port);
		strlist_add(&c->argv, "--port-range");
		xasprintf(&s, "%d-%d", p->port_min, p->port_max);
		strlist_addown(&c->argv, s);
	}
	/* The program the node runs: srun's is python. */
	launcher_program(&prog, &p->launcher);
	strlist_add(&c->argv, "--launcher");
	strlist_add(&c->argv, rt->argv != NULL ? rt->argv[0] : prog.v[0]);
	strlist_free(&prog);
	if (!partial && p->gpus_per_node > 0) {
		strlist_add(&c->argv, "--gpus");
		nodecmd_addf_int(&c->argv, p->gpus_per_node);
	}
	if (p->bind != BIND_NONE)
		nodecmd_bind(c, job, 0, 1);
	/* The nodes it blames, for the rerun without them. */
	if (p->requeue && (gen_get(p->scheduler)->flags & GEN_LEAVES_OUT)) {
		strlist_add(&c->argv, "--record");
		if (*p->hang_dir != '\0') {
			strlist_add(&c->argv, "--hang-dir");
			strlist_add(&c->argv, p->hang_dir);
		}
	}
}

void
nodecmd_srun_container(struct strlist *l, const struct job *job)
{
	const struct profile	*p = job->prof;
	const char		*slash = strrchr(job->ddprank, '/');
	struct buf		 b;
	char			*m;
	size_t			 i;

	strlist_init(l);
	if (runtime_get(p->container)->image != RT_IMAGE_SRUN)
		return;
	buf_init(&b);
	buf_addf(&b, "--container-image=%s", p->image);
	strlist_addown(l, b.s);
	/* job_resolve made ddprank's path absolute. */
	buf_init(&b);
	buf_addf(&b, "--container-mounts=%.*s:%.*s:ro",
	    (int)(slash - job->ddprank), job->ddprank,
	    (int)(slash - job->ddprank), job->ddprank);
	for (i = 0; i < p->container_mounts.n; i++) {
		m = runtime_mount(p->container_mounts.v[i]);
		buf_addf(&b, ",%s", m);
		free(m);
	}
	strlist_addown(l, b.s);
	strlist_copy(l, &p->container_args);
}

void
nodecmd_free(struct nodecmd *c)
{
	strlist_free(&c->argv);
}

/* Whether word i is shell code (c->raw). */
static int
nodecmd_is_raw(const struct nodecmd *c, size_t i)
{
	size_t	k;

	for (k = 0; k < c->nraw; k++)
		if (c->raw[k] == i)
			return 1;
	return 0;
}

void
nodecmd_sh(struct buf *b, const struct nodecmd *c, const struct gen *g)
{
	int	one_line = g->flags & GEN_ONE_LINE;
	size_t	i;

	for (i = 0; i < c->argv.n; i++) {
		if (i > 0)
			buf_adds(b, !one_line && (i == c->runtime ||
			    i == c->launcher || i == c->script) ? " \\\n\t" :
			    " ");
		if (i == 0 && g->cmd_ddprank != NULL)
			buf_adds(b, g->cmd_ddprank);
		else if (nodecmd_is_raw(c, i))
			buf_adds(b, c->argv.v[i]);
		else if (one_line)
			quote_sh_line(b, c->argv.v[i]);
		else
			quote_sh(b, c->argv.v[i]);
	}
}
