/* doctor-report.c: the report: node 0 files each node's findings as
 * the gather brings them (doctor_sink, for both gathers), compares
 * them, decides the verdict and prints it as text or JSON. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor-int.h"
#include "hostlist.h"
#include "xmalloc.h"

void
doctor_report_free(struct doctor_report *r)
{
	uint64_t	i;

	for (i = 0; i < r->n; i++)
		doctor_node_free(&r->v[i]);
	free(r->v);
	memset(r, 0, sizeof *r);
}

/* Files what one node sent; a second claim on a rank is named. Returns
 * 1 when it is the first report of its rank. */
static int
doctor_file(void *arg, const char *msg, size_t len, uint64_t *rank)
{
	struct doctor_report	*r = arg;
	struct doctor_node	 n, *slot;
	char			*cause;

	if (doctor_decode(&n, msg, len, &cause) == -1) {
		free(cause);
		return 0;
	}
	*rank = n.rank;
	if (n.rank >= r->n) {
		doctor_node_free(&n);
		return 0;
	}
	slot = &r->v[n.rank];
	/* Two nodes with one rank collide in the rendezvous; a second
	 * node 0 would even host it. */
	if (slot->reported) {
		doctor_set(slot, DOCTOR_NODES, DOCTOR_FAIL, "%s also claims "
		    "node rank %llu", n.host, (unsigned long long)n.rank);
		doctor_node_free(&n);
		return 0;
	}
	doctor_node_free(slot);
	*slot = n;
	slot->reported = 1;
	return 1;
}

/* Node 0's side of the doctor's gather, TCP or directory. */
void
doctor_sink(struct gather_sink *s, struct doctor_report *r,
    const struct gather_scope *sc)
{
	memset(s, 0, sizeof *s);
	s->file = doctor_file;
	s->arg = r;
	s->label = DOCTOR_MAC_LABEL;
	s->scope = sc;
	s->want = r->n > 0 ? (size_t)r->n - 1 : 0;
}

/* A report of this node's findings alone, when it could not send them
 * (either gather): self's fields move into r. */
void
doctor_alone(struct doctor_report *r, struct doctor_node *self)
{
	r->n = 1;
	r->v = xcalloc(1, sizeof *r->v);
	r->v[0] = *self;
	r->v[0].reported = 1;
	r->local = 1;
	doctor_compare(r);
}

/* The master address and the training's port, as a report may show
 * them: not the port when it is the job's secret. */
static void
doctor_endpoint(struct buf *b, const struct doctor_report *r)
{
	const struct doctor_node	*z = &r->v[0];

	if (r->hide_port)
		buf_addf(b, "master %s, secret port", z->addr);
	else
		buf_addf(b, "master %s port %d", z->addr, z->port);
}

static void
doctor_disagree(const struct doctor_report *r, struct doctor_node *n,
    const struct doctor_node *z)
{
	struct buf	b;

	if (n->nnodes != z->nnodes)
		doctor_set(n, DOCTOR_NODES, DOCTOR_FAIL, "counts %llu nodes, "
		    "node 0 %llu", (unsigned long long)n->nnodes,
		    (unsigned long long)z->nnodes);
	else if (strcmp(n->addr, z->addr) != 0)
		doctor_set(n, DOCTOR_NODES, DOCTOR_FAIL, "uses master address "
		    "%s, node 0 %s", n->addr, z->addr);
	else if (n->port != z->port && r->hide_port)
		doctor_set(n, DOCTOR_NODES, DOCTOR_FAIL, "uses another port "
		    "than node 0 (another --port-range?)");
	else if (n->port != z->port)
		doctor_set(n, DOCTOR_NODES, DOCTOR_FAIL, "uses port %d, node 0 "
		    "%d", n->port, z->port);
	else if (n->f[DOCTOR_NODES].detail == NULL) {
		buf_init(&b);
		doctor_endpoint(&b, r);
		doctor_set(n, DOCTOR_NODES, DOCTOR_PASS, "%llu node%s, %s",
		    (unsigned long long)n->nnodes, n->nnodes == 1 ? "" : "s",
		    b.s);
		buf_free(&b);
	}
}

/* A node whose findings never came: blamed, unless node 0 dropped
 * connections that brought none, which may have crowded it out. */
static void
doctor_unreported(const struct doctor_report *r, struct doctor_node *n)
{
	if (r->dropped > 0)
		doctor_set(n, DOCTOR_CONNECT, DOCTOR_WARN, "no findings "
		    "reached node 0 within %d s, while it dropped %zu "
		    "connection%s that sent none (another user flooding its "
		    "port?): not blamed", r->wait, r->dropped,
		    r->dropped == 1 ? "" : "s");
	else
		doctor_set(n, DOCTOR_CONNECT, DOCTOR_FAIL, "no findings reached "
		    "node 0%s within %d s", r->dir ? " through the shared "
		    "directory" : "", r->wait);
}

void
doctor_compare(struct doctor_report *r)
{
	const struct doctor_node	*z = &r->v[0];
	uint64_t			 i;

	for (i = 0; i < r->n; i++) {
		if (!r->v[i].reported && r->v[i].f[DOCTOR_CONNECT].detail !=
		    NULL)
			continue;	/* not tested */
		if (!r->v[i].reported) {
			doctor_unreported(r, &r->v[i]);
			continue;
		}
		if (i > 0 && r->v[i].f[DOCTOR_CONNECT].detail == NULL &&
		    r->dir)
			doctor_set(&r->v[i], DOCTOR_CONNECT, DOCTOR_PASS,
			    "reached node 0 through the shared directory");
		else if (i > 0 && r->v[i].f[DOCTOR_CONNECT].detail == NULL &&
		    r->gport == 0 && r->hide_port)
			doctor_set(&r->v[i], DOCTOR_CONNECT, DOCTOR_PASS,
			    "reached node 0 at %s", z->addr);
		else if (i > 0 && r->v[i].f[DOCTOR_CONNECT].detail == NULL)
			doctor_set(&r->v[i], DOCTOR_CONNECT, DOCTOR_PASS,
			    "reached node 0 at %s port %d", z->addr,
			    r->gport != 0 ? r->gport : z->port);
		if (!r->local)
			doctor_disagree(r, &r->v[i], z);
	}
}

int
doctor_failed(const struct doctor_report *r)
{
	uint64_t	i;
	int		c;

	for (i = 0; i < r->n; i++) {
		for (c = 0; c < DOCTOR_NCHECKS; c++) {
			if (r->v[i].f[c].detail != NULL &&
			    r->v[i].f[c].level == DOCTOR_FAIL)
				return 1;
		}
	}
	return 0;
}

static const char *
doctor_host(const struct doctor_node *n, char *buf, size_t len)
{
	if (n->host != NULL)
		return n->host;
	snprintf(buf, len, "rank%llu", (unsigned long long)n->rank);
	return buf;
}

/* One check over every node: the worst level, the nodes at it (as a
 * compressed hostlist, or NULL when all pass) and the first detail. */
struct doctor_line {
	int		 run;
	enum doctor_level level;
	const char	*detail;
	char		*nodes;
	size_t		 count;
};

static void
doctor_line(struct doctor_line *dl, const struct doctor_report *r,
    enum doctor_check c)
{
	const char	**names;
	char		(*bufs)[32];
	uint64_t	 i;

	memset(dl, 0, sizeof *dl);
	for (i = 0; i < r->n; i++) {
		if (r->v[i].f[c].detail == NULL)
			continue;
		if (!dl->run || r->v[i].f[c].level > dl->level) {
			dl->level = r->v[i].f[c].level;
			dl->detail = r->v[i].f[c].detail;
		}
		dl->run = 1;
	}
	if (!dl->run || dl->level == DOCTOR_PASS)
		return;
	names = xreallocarray(NULL, r->n, sizeof *names);
	bufs = xreallocarray(NULL, r->n, sizeof *bufs);
	for (i = 0; i < r->n; i++) {
		if (r->v[i].f[c].detail != NULL &&
		    r->v[i].f[c].level == dl->level)
			names[dl->count++] = doctor_host(&r->v[i], bufs[i],
			    sizeof bufs[i]);
	}
	dl->nodes = hostlist_compress(names, dl->count);
	free(bufs);
	free(names);
}

/* 1 when some node other than node 0 reached it: node 0 could then be
 * reached, and a node that never reported is to blame itself. */
static int
doctor_reached(const struct doctor_report *r)
{
	uint64_t	i;

	for (i = 1; i < r->n; i++) {
		if (r->v[i].reported)
			return 1;
	}
	return 0;
}

/* 1 when a failure is one that blames nobody (a shared directory
 * another user could have made): then no node is to blame, whichever
 * node tells. */
static int
doctor_refused(const struct doctor_report *r)
{
	uint64_t	i;
	int		c;

	for (i = 0; i < r->n; i++) {
		for (c = 0; c < DOCTOR_NCHECKS; c++) {
			if (r->v[i].f[c].nobody &&
			    r->v[i].f[c].level == DOCTOR_FAIL)
				return 1;
		}
	}
	return 0;
}

/* 1 when node i's failure of check c is a fault of its own. A node
 * alone cannot tell whose fault its failed connection is, or its view
 * of the job (a master name that does not resolve, a port no job id
 * gives): node 0's report says. Nor can node 0 when no node at all
 * reached it: its port may be what nobody could reach. */
static int
doctor_blames(const struct doctor_report *r, uint64_t i,
    enum doctor_check c)
{
	const struct doctor_finding	*f = &r->v[i].f[c];

	if (!doctor_checks[c].blames || f->nobody || f->detail == NULL ||
	    f->level != DOCTOR_FAIL)
		return 0;
	if (r->local)
		return c != DOCTOR_CONNECT && c != DOCTOR_NODES;
	return c != DOCTOR_CONNECT || r->v[i].reported || doctor_reached(r);
}

/* The nodes to exclude: those failing a check that blames its node. */
static char *
doctor_exclude(const struct doctor_report *r)
{
	const char	**names;
	char		(*bufs)[32], *s;
	uint64_t	 i;
	size_t		 count = 0;
	int		 c;

	names = xreallocarray(NULL, r->n ? r->n : 1, sizeof *names);
	bufs = xreallocarray(NULL, r->n ? r->n : 1, sizeof *bufs);
	for (i = 0; i < r->n; i++) {
		for (c = 0; c < DOCTOR_NCHECKS; c++) {
			if (doctor_blames(r, i, (enum doctor_check)c))
				break;
		}
		if (c < DOCTOR_NCHECKS)
			names[count++] = doctor_host(&r->v[i], bufs[i],
			    sizeof bufs[i]);
	}
	s = count > 0 ? hostlist_compress(names, count) : NULL;
	free(bufs);
	free(names);
	return s;
}

void
doctor_blamed(const struct doctor_report *r, struct strlist *out)
{
	char		 hb[32], *s;
	uint64_t	 i;
	int		 c;

	for (i = 0; i < r->n; i++) {
		for (c = 0; c < DOCTOR_NCHECKS; c++) {
			if (!doctor_blames(r, i, (enum doctor_check)c))
				continue;
			xasprintf(&s, "%s %s: %s", doctor_host(&r->v[i], hb,
			    sizeof hb), doctor_checks[c].name,
			    r->v[i].f[c].detail);
			strlist_addown(out, s);
			break;
		}
	}
}

static void
doctor_text_line(struct buf *b, enum doctor_check c,
    const struct doctor_line *dl)
{
	buf_addf(b, "%s %s", doctor_levels[dl->level], doctor_checks[c].name);
	if (dl->nodes != NULL)
		buf_addf(b, " %s", dl->nodes);
	buf_adds(b, ": ");
	if (dl->count > 1)
		buf_adds(b, "first: ");
	util_addvis(b, dl->detail, strlen(dl->detail));
	buf_addc(b, '\n');
}

void
doctor_format_text(struct buf *b, const struct doctor_report *r)
{
	struct doctor_line	 dl;
	char			*ex, hb[32];
	int			 c;

	if (r->local)
		buf_addf(b, "ddprank doctor: %s alone (its findings did not "
		    "reach node 0)\n", doctor_host(&r->v[0], hb, sizeof hb));
	else if (r->dir && r->hide_port)
		buf_addf(b, "ddprank doctor: %llu node%s, secret port (the "
		    "master address comes from the exchange)\n",
		    (unsigned long long)r->n, r->n == 1 ? "" : "s");
	else if (r->dir)
		buf_addf(b, "ddprank doctor: %llu node%s, port %d (the master "
		    "address comes from the exchange)\n",
		    (unsigned long long)r->n, r->n == 1 ? "" : "s",
		    r->v[0].port);
	else {
		buf_addf(b, "ddprank doctor: %llu node%s, ",
		    (unsigned long long)r->n, r->n == 1 ? "" : "s");
		doctor_endpoint(b, r);
		buf_addc(b, '\n');
	}
	for (c = 0; c < DOCTOR_NCHECKS; c++) {
		doctor_line(&dl, r, (enum doctor_check)c);
		if (dl.run)
			doctor_text_line(b, (enum doctor_check)c, &dl);
		free(dl.nodes);
	}
	if (!doctor_failed(r)) {
		buf_adds(b, "ddprank doctor: no check failed\n");
		return;
	}
	if ((ex = doctor_exclude(r)) == NULL && r->local &&
	    !doctor_refused(r)) {
		buf_adds(b, "ddprank doctor: FAIL, but this node alone cannot "
		    "tell which node is to blame: see node 0's report\n");
		return;
	}
	if (ex == NULL) {
		buf_adds(b, "ddprank doctor: FAIL, but no node is to blame\n");
		return;
	}
	buf_addf(b, "%s%s\n", r->exclude_opt != NULL ? r->exclude_opt :
	    "--exclude=", ex);
	free(ex);
}

static void
doctor_json_string(struct buf *b, const char *s)
{
	buf_addc(b, '"');
	for (; s != NULL && *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			buf_addf(b, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			buf_addf(b, "\\u%04x", (unsigned int)(unsigned char)*s);
		else
			buf_addc(b, *s);
	}
	buf_addc(b, '"');
}

void
doctor_format_json(struct buf *b, const struct doctor_report *r)
{
	struct doctor_line	 dl;
	const char		*sep = "";
	char			*ex;
	int			 c;

	buf_addf(b, "{\"nnodes\":%llu,\"master_addr\":",
	    (unsigned long long)r->n);
	doctor_json_string(b, r->v[0].addr);
	if (r->hide_port)
		buf_adds(b, ",\"master_port\":null");
	else
		buf_addf(b, ",\"master_port\":%d", r->v[0].port);
	buf_addf(b, ",\"local\":%s,\"failed\":%s,\"checks\":[",
	    r->local ? "true" : "false", doctor_failed(r) ? "true" : "false");
	for (c = 0; c < DOCTOR_NCHECKS; c++) {
		doctor_line(&dl, r, (enum doctor_check)c);
		if (dl.run) {
			buf_addf(b, "%s{\"check\":\"%s\",\"level\":\"%s\","
			    "\"nodes\":", sep, doctor_checks[c].name,
			    doctor_levels[dl.level]);
			doctor_json_string(b, dl.nodes);
			buf_adds(b, ",\"detail\":");
			doctor_json_string(b, dl.detail);
			buf_addc(b, '}');
			sep = ",";
		}
		free(dl.nodes);
	}
	buf_adds(b, "],\"exclude\":");
	ex = doctor_exclude(r);
	doctor_json_string(b, ex);
	free(ex);
	buf_adds(b, "}\n");
}
