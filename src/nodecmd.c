/* nodecmd.c: the one builder of the command each node runs. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

/* ddprank exec and its options, up to and with "--". */
static void
nodecmd_ddprank(struct strlist *argv, const struct job *job)
{
	const struct profile	*p = job->prof;
	char			*s;

	strlist_add(argv, job->ddprank);
	strlist_add(argv, "exec");
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
	strlist_add(argv, "--rdzv");
	strlist_add(argv, rdzv_names[p->rdzv]);
	strlist_add(argv, "--");
}

void
nodecmd_build(struct nodecmd *c, const struct job *job)
{
	const struct profile	*p = job->prof;
	char			*s;
	size_t			 i;

	strlist_init(&c->argv);
	nodecmd_ddprank(&c->argv, job);
	c->launcher = c->argv.n;
	strlist_copy(&c->argv, &p->launcher);
	xasprintf(&s, "--nproc_per_node=%d", profile_nproc(p));
	strlist_addown(&c->argv, s);
	if (p->max_restarts > 0) {
		xasprintf(&s, "--max-restarts=%d", p->max_restarts);
		strlist_addown(&c->argv, s);
	}
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
	char			*s;

	strlist_init(&c->argv);
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
	strlist_add(&c->argv, "--launcher");
	strlist_add(&c->argv, p->launcher.v[0]);
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
