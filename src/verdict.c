/* verdict.c: ddprank verdict's work (verdict.h). */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "badnodes.h"
#include "hang.h"
#include "hangwatch.h"
#include "hostlist.h"
#include "nodes.h"
#include "sdir.h"
#include "util.h"
#include "verdict.h"
#include "xmalloc.h"

#define RECORD_PREFIX	"rec."
/* Node names read of the job's list: beyond, the missing nodes are not
 * told (the verdict then goes by the records alone). */
#define VERDICT_NODES_MAX	100000

const char *const verdict_kinds[] = { "none", "hang", "preflight" };

static int
is_record(const char *name)
{
	return strncmp(name, RECORD_PREFIX, sizeof RECORD_PREFIX - 1) == 0;
}

/* The job's nodes in order; empty when the list cannot be read. */
static void
job_nodes(struct strlist *out, const struct verdict_opts *o,
    const struct nodes_env *env)
{
	struct nodes	 n;
	char		 name[HOSTLIST_NAME_MAX + 1], *cause;
	uint64_t	 i, count;

	if (nodes_load(&n, env, (enum sched_id)o->sched, o->hostfile,
	    &cause) == -1) {
		free(cause);
		return;
	}
	count = hostlist_count(n.list);
	for (i = 0; i < count && count <= VERDICT_NODES_MAX; i++)
		if (hostlist_nth(n.list, i, name, sizeof name) != -1)
			strlist_add(out, name);
	nodes_free(&n);
}

static void
read_one(const struct sdir *run, const char *name, struct hang_record **v,
    size_t *n, struct strlist *notes)
{
	struct stat	 st;
	char		*text, *why, *s;
	ssize_t		 len;

	text = xmalloc(HANG_RECORD_MAX);
	len = sdir_read(run, name, text, HANG_RECORD_MAX, &st, &why);
	if (len < 0 || (size_t)len == HANG_RECORD_MAX) {
		xasprintf(&s, "%s/%s: %s", run->path, name, len == -2 ?
		    "vanished" : len < 0 ? why : "larger than 1 MiB");
		strlist_addown(notes, s);
		if (len == -1)
			free(why);
		free(text);
		return;
	}
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	if (hang_record_parse(&(*v)[*n], text, (size_t)len, &why) == -1) {
		xasprintf(&s, "%s/%s: %s", run->path, name, why);
		strlist_addown(notes, s);
		free(why);
	} else
		(*n)++;
	free(text);
}

static void
read_records(const struct sdir *run, struct hang_record **v, size_t *n,
    struct strlist *notes)
{
	struct dirent	*de;
	DIR		*d;

	if ((d = sdir_opendir(run->fd)) == NULL)
		return;
	while ((de = readdir(d)) != NULL)
		if (is_record(de->d_name) && strchr(de->d_name, '/') == NULL)
			read_one(run, de->d_name, v, n, notes);
	closedir(d);
}

struct remember {
	const struct hang_verdict	*v;
	const struct verdict_opts	*o;
	long long			 until;
	const char			*why;
};

static int
add_culprits(struct badnodes *b, void *arg)
{
	const struct remember	*r = arg;
	size_t			 i;

	for (i = 0; i < r->v->culprits.n; i++)
		badnodes_add(b, r->o->site, r->v->culprits.v[i], r->until,
		    r->why);
	return r->v->culprits.n > 0;
}

static void
remember(const struct hang_verdict *v, const struct verdict_opts *o,
    const char *run, struct strlist *notes)
{
	struct badnodes	 b;
	struct remember	 r;
	char		*why, *cause, *s;
	long long	 now = (long long)time(NULL);

	if (o->site == NULL || o->remember <= 0 || v->culprits.n == 0)
		return;
	xasprintf(&why, "%s (job run %s)", v->kind == HANG_STALL ?
	    "a training stalled on it" : "it failed the preflight", run);
	r.v = v;
	r.o = o;
	r.until = now + o->remember;
	r.why = why;
	if (badnodes_update(&b, now, add_culprits, &r, util_getenv,
	    &cause) == -1) {
		xasprintf(&s, "the bad nodes are not remembered: %s", cause);
		strlist_addown(notes, s);
		free(cause);
	}
	badnodes_free(&b);
	free(why);
}

int
verdict_run(struct hang_verdict *v, struct strlist *notes,
    const struct verdict_opts *o, const struct nodes_env *env, char **cause)
{
	struct hang_record	*recs = NULL;
	struct strlist		 nodes;
	struct sdir		 base, run;
	char			*name;
	size_t			 i, n = 0;

	memset(v, 0, sizeof *v);
	strlist_init(&v->culprits);
	if ((name = hangwatch_run_name(env, o->sched, o->hostfile,
	    cause)) == NULL)
		return -1;
	if (hangwatch_jobdir(&base, &run, o->base, name, cause) == -1) {
		free(name);
		return -1;
	}
	read_records(&run, &recs, &n, notes);
	strlist_init(&nodes);
	job_nodes(&nodes, o, env);
	hang_verdict_free(v);
	hang_verdict(v, recs, n, &nodes);
	strlist_free(&nodes);
	for (i = 0; i < n; i++)
		hang_record_free(&recs[i]);
	free(recs);
	remember(v, o, name, notes);
	/* The records are read; what else the run left (the flight
	 * recorder's dumps) keeps the directory. */
	sdir_close(&run);
	(void)sdir_remove(&base, name, is_record);
	sdir_close(&base);
	free(name);
	return 0;
}

int
verdict_record_bad(const struct strlist *bad, const char *basepath,
    const struct nodes_env *env, int sched, const char *hostfile,
    char **cause)
{
	struct hang_record	 r;
	struct sdir		 base, run;
	struct buf		 b;
	char			*name, *file, host[256];
	int			 rc;

	if ((name = hangwatch_run_name(env, sched, hostfile, cause)) == NULL)
		return -1;
	rc = hangwatch_jobdir(&base, &run, basepath, name, cause);
	free(name);
	if (rc == -1)
		return -1;
	hang_record_init(&r);
	strlist_copy(&r.bad, bad);
	buf_init(&b);
	hang_record_format(&b, &r);
	/* Node 0's, or a node's that could not reach it: one each. */
	if (gethostname(host, sizeof host) == -1)
		snprintf(host, sizeof host, "node");
	host[sizeof host - 1] = '\0';
	host[strcspn(host, "/")] = '\0';
	xasprintf(&file, RECORD_PREFIX "doctor.%s", host);
	rc = sdir_write(&run, file, b.s, b.len, NULL, cause);
	free(file);
	buf_free(&b);
	hang_record_free(&r);
	sdir_close(&run);
	sdir_close(&base);
	return rc;
}
