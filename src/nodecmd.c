/* nodecmd.c: the one builder of the command each node runs. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "launcher.h"
#include "nodecmd.h"
#include "profile.h"
#include "quote.h"
#include "scheduler.h"
#include "script.h"
#include "util.h"
#include "xmalloc.h"

static void
nodecmd_addf_int(struct strlist *l, int n)
{
	char	*s;

	xasprintf(&s, "%d", n);
	strlist_addown(l, s);
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
nodecmd_launcher(struct strlist *argv, const struct job *job,
    const struct launcher *l)
{
	const struct launcher_flag	*f;

	strlist_add(argv, "--launcher");
	strlist_add(argv, l->name);
	for (f = l->flags; f->flag != NULL; f++) {
		if (f->val == LAUNCHER_VAL_PROCS) {
			strlist_add(argv, "--nproc-per-node");
			nodecmd_addf_int(argv, profile_nproc(job->prof));
		}
	}
}

static const struct launcher *
nodecmd_row(const struct job *job)
{
	return launcher_get(launcher_find(job->prof->launcher.v[0]));
}

/* ddprank exec and its options, up to and with "--". */
static void
nodecmd_ddprank(struct strlist *argv, const struct job *job)
{
	const struct profile	*p = job->prof;
	const struct launcher	*l = nodecmd_row(job);
	char			*s;

	strlist_add(argv, job->ddprank);
	strlist_add(argv, "exec");
	if (sched_get(p->scheduler)->partial_list)
		nodecmd_exchange(argv, job);
	if (*p->iface != '\0') {
		strlist_add(argv, "--iface");
		strlist_add(argv, p->iface);
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
		nodecmd_launcher(argv, job, l);
	strlist_add(argv, "--");
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

/* The row's fixed flags, unless the profile chose another of alt. */
static void
nodecmd_fixed(struct strlist *argv, const struct profile *p,
    const struct launcher *l)
{
	size_t	i;

	if (l->fixed == NULL || nodecmd_has(&p->launcher, l->alt) ||
	    nodecmd_has(&p->launcher_args, l->alt))
		return;
	for (i = 0; l->fixed[i] != NULL; i++)
		strlist_add(argv, l->fixed[i]);
}

void
nodecmd_build(struct nodecmd *c, const struct job *job)
{
	const struct profile	*p = job->prof;
	const struct launcher	*l = nodecmd_row(job);
	char			*s;
	size_t			 i;

	strlist_init(&c->argv);
	nodecmd_ddprank(&c->argv, job);
	c->launcher = c->argv.n;
	launcher_program(&c->argv, &p->launcher);
	if (l->nproc_flag != NULL) {
		xasprintf(&s, "%s=%d", l->nproc_flag, profile_nproc(p));
		strlist_addown(&c->argv, s);
	}
	if (p->max_restarts > 0 && l->restarts_flag != NULL) {
		xasprintf(&s, "%s=%d", l->restarts_flag, p->max_restarts);
		strlist_addown(&c->argv, s);
	}
	nodecmd_fixed(&c->argv, p, l);
	strlist_copy(&c->argv, &p->launcher_args);
	c->script = c->argv.n;
	strlist_add(&c->argv, job->script);
	for (i = 0; i < job->nargs; i++)
		strlist_add(&c->argv, job->args[i]);
}

void
nodecmd_doctor(struct nodecmd *c, const struct job *job)
{
	const struct profile	*p = job->prof;
	int			 partial = sched_get(p->scheduler)->partial_list;
	struct strlist		 prog;
	char			*s;

	strlist_init(&c->argv);
	strlist_init(&prog);
	c->launcher = c->script = SIZE_MAX;
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
	strlist_add(&c->argv, prog.v[0]);
	strlist_free(&prog);
	if (!partial && p->gpus_per_node > 0) {
		strlist_add(&c->argv, "--gpus");
		nodecmd_addf_int(&c->argv, p->gpus_per_node);
	}
}

void
nodecmd_free(struct nodecmd *c)
{
	strlist_free(&c->argv);
}

void
nodecmd_sh(struct buf *b, const struct nodecmd *c, const struct job *job)
{
	const struct sched	*s = sched_get(job->prof->scheduler);
	size_t			 i;

	for (i = 0; i < c->argv.n; i++) {
		if (i > 0)
			buf_adds(b, !s->cmd_one_line && (i == c->launcher ||
			    i == c->script) ? " \\\n\t" : " ");
		if (i == 0 && s->cmd_ddprank != NULL)
			buf_adds(b, s->cmd_ddprank);
		else if (s->cmd_one_line)
			quote_sh_line(b, c->argv.v[i]);
		else
			quote_sh(b, c->argv.v[i]);
	}
}
