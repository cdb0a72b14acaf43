/* bind.c: the binding plan (bind.h): which cores, GPU and NIC each local
 * rank of a node gets. Pure; ddprank's bindrun.c applies it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "cpuset.h"
#include "topo.h"
#include "util.h"
#include "vocab.h"
#include "xmalloc.h"

#define BIND_WIRE_VERSION	"1"

void
bind_plan_free(struct bind_plan *p)
{
	free(p->r);
	memset(p, 0, sizeof *p);
}

/* The cores that are not reserved and whose threads meet near (every
 * core when near is empty: hwloc knows no locality), by first thread,
 * as indices into t->cores; returns their number. */
static size_t
bind_cores_near(const struct topo *t, const struct bind_opts *o,
    const struct cpuset *near, size_t *idx)
{
	size_t	i, n = 0;
	int	all = cpuset_empty(near);

	for (i = 0; i < t->ncores; i++) {
		if (cpuset_intersects(&t->cores[i].pus, &o->reserve))
			continue;
		if (all || cpuset_intersects(&t->cores[i].pus, near))
			idx[n++] = i;
	}
	return n;
}

/* Shares the n cores idx out among the k ranks of ranks, in order, in
 * contiguous runs whose sizes differ by one at most (k <= n). */
static void
bind_share(struct bind_plan *p, const struct topo *t, const size_t *ranks,
    size_t k, const size_t *idx, size_t n)
{
	struct bind_rank	*r;
	size_t			 i, j;

	for (j = 0; j < k; j++) {
		r = &p->r[ranks[j]];
		for (i = j * n / k; i < (j + 1) * n / k; i++) {
			cpuset_or(&r->cpus, &t->cores[idx[i]].pus);
			r->ncores++;
		}
		r->numa = t->cores[idx[j * n / k]].numa;
	}
}

/* The length of the common prefix of two devices' ancestries. */
static size_t
bind_shared_depth(const struct topo_dev *a, const struct topo_dev *b)
{
	size_t	i;

	for (i = 0; i < a->depth && i < b->depth; i++)
		if (a->path[i] != b->path[i])
			break;
	return i;
}

/* How close NIC k is to rank r: the depth of their common ancestor for
 * a rank with a GPU, else how many of its CPUs the NIC is near. */
static size_t
bind_nic_score(const struct bind_plan *p, const struct topo *t, size_t r,
    size_t k)
{
	struct cpuset	s;

	if (p->r[r].gpu >= 0)
		return bind_shared_depth(&t->gpus[p->r[r].gpu], &t->nics[k]);
	s = t->nics[k].near;
	cpuset_and(&s, &p->r[r].cpus);
	return (size_t)cpuset_count(&s);
}

/* The closest NICs of rank r: sets best[k] for each, returns how many.
 * A rank without a GPU takes only NICs near its cores. */
static size_t
bind_nic_best(const struct bind_plan *p, const struct topo *t, size_t r,
    char *best)
{
	size_t	k, top = 0, n = 0, s;

	for (k = 0; k < t->nnics; k++)
		if ((s = bind_nic_score(p, t, r, k)) > top)
			top = s;
	for (k = 0; k < t->nnics; k++) {
		best[k] = bind_nic_score(p, t, r, k) == top &&
		    (top > 0 || p->r[r].gpu >= 0);
		n += best[k];
	}
	return n;
}

/* Each rank's NIC: first the ranks with one closest NIC, then the others
 * take the least used of theirs (the first, on a tie), so that ranks
 * equally far from several NICs spread over them. */
static void
bind_nics(struct bind_plan *p, const struct topo *t)
{
	size_t	 r, k, pass, *load;
	char	*best;
	int	 pick;

	if (t->nnics == 0)
		return;
	load = xreallocarray(NULL, t->nnics, sizeof *load);
	best = xmalloc(t->nnics);
	memset(load, 0, t->nnics * sizeof *load);
	for (pass = 1; pass <= 2; pass++) {
		for (r = 0; r < p->n; r++) {
			if (p->r[r].nic >= 0 ||
			    (bind_nic_best(p, t, r, best) == 1) != (pass == 1))
				continue;
			pick = -1;
			for (k = 0; k < t->nnics; k++)
				if (best[k] && (pick == -1 ||
				    load[k] < load[pick]))
					pick = (int)k;
			if (pick >= 0) {
				p->r[r].nic = pick;
				load[pick]++;
			}
		}
	}
	free(best);
	free(load);
}

/* The GPU of each device index: visible's, checked, or the identity. */
static int
bind_devices(const struct topo *t, const struct bind_opts *o, int *dev,
    char **cause)
{
	size_t	d, e;

	if (t->ngpus == 0)
		return util_fail(cause, "hwloc sees no GPU on this node: bind "
		    "= gpu gives each local rank its own (bind = numa binds "
		    "the cores alone)");
	if (o->visible == NULL) {
		for (d = 0; d < t->ngpus; d++)
			dev[d] = (int)d;
		return 0;
	}
	if (o->nvisible != t->ngpus)
		return util_fail(cause, "the job sees %zu of this node's %zu "
		    "GPUs: bind = gpu needs every GPU of the node visible "
		    "(a whole node), as it cannot tell which ones these are",
		    o->nvisible, t->ngpus);
	for (d = 0; d < o->nvisible; d++) {
		if (o->visible[d] < 0 || (size_t)o->visible[d] >= t->ngpus)
			return util_fail(cause, "visible device %zu is GPU "
			    "%d, and this node has GPUs 0 to %zu", d,
			    o->visible[d], t->ngpus - 1);
		for (e = 0; e < d; e++)
			if (o->visible[e] == o->visible[d])
				return util_fail(cause, "GPU %d is visible "
				    "twice", o->visible[d]);
		dev[d] = o->visible[d];
	}
	return 0;
}

/* Insertion sort of the ranks by their GPU (a few ranks). */
static void
bind_sort_by_gpu(size_t *ranks, size_t n, const struct bind_plan *p)
{
	size_t	i, j, v;

	for (i = 1; i < n; i++) {
		v = ranks[i];
		for (j = i; j > 0 && p->r[ranks[j - 1]].gpu > p->r[v].gpu; j--)
			ranks[j] = ranks[j - 1];
		ranks[j] = v;
	}
}

/* The ranks whose GPUs are near the same cores share those cores out,
 * in their GPUs' order. */
static int
bind_gpu_cores(struct bind_plan *p, const struct topo *t,
    const struct bind_opts *o, size_t *order, size_t *idx, char **cause)
{
	size_t		 i, j, k, n, *grp = order + p->n;
	char		*done = xmalloc(p->n);
	const struct cpuset *near;
	int		 rc = 0;

	memset(done, 0, p->n);
	for (i = 0; i < p->n && rc == 0; i++) {
		if (done[order[i]])
			continue;
		near = &t->gpus[p->r[order[i]].gpu].near;
		for (k = 0, j = i; j < p->n; j++) {
			if (!done[order[j]] && cpuset_equal(near,
			    &t->gpus[p->r[order[j]].gpu].near)) {
				grp[k++] = order[j];
				done[order[j]] = 1;
			}
		}
		n = bind_cores_near(t, o, near, idx);
		if (n < k)
			rc = util_fail(cause, "GPU %s has %zu free core%s near "
			    "it for %zu local ranks", t->gpus[p->r[grp[0]].gpu]
			    .busid, n, n == 1 ? "" : "s", k);
		else
			bind_share(p, t, grp, k, idx, n);
	}
	free(done);
	return rc;
}

static int
bind_gpu(struct bind_plan *p, const struct topo *t, const struct bind_opts *o,
    size_t *order, size_t *idx, char **cause)
{
	int	*dev;
	size_t	 r;
	int	 rc;

	dev = xreallocarray(NULL, t->ngpus > 0 ? t->ngpus : 1, sizeof *dev);
	rc = bind_devices(t, o, dev, cause);
	if (rc == 0 && p->n > t->ngpus)
		rc = util_fail(cause, "%zu local ranks but %zu GPU%s on this "
		    "node: bind = gpu gives each rank its own", p->n,
		    t->ngpus, t->ngpus == 1 ? "" : "s");
	for (r = 0; rc == 0 && r < p->n; r++) {
		p->r[r].gpu = dev[r];
		order[r] = r;
	}
	free(dev);
	if (rc != 0)
		return rc;
	bind_sort_by_gpu(order, p->n, p);
	return bind_gpu_cores(p, t, o, order, idx, cause);
}

/* Adds all n cores idx to rank r. */
static void
bind_add_all(struct bind_plan *p, const struct topo *t, size_t r,
    const size_t *idx, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (p->r[r].ncores == 0)
			p->r[r].numa = t->cores[idx[i]].numa;
		cpuset_or(&p->r[r].cpus, &t->cores[idx[i]].pus);
		p->r[r].ncores++;
	}
}

/* The ranks over the NUMA domains, in order: with fewer ranks than
 * domains each takes whole domains, else each domain's cores are shared
 * out among its ranks. */
static int
bind_numa(struct bind_plan *p, const struct topo *t, const struct bind_opts *o,
    size_t *ranks, size_t *idx, char **cause)
{
	struct cpuset	 all;
	size_t		 nd = t->nnuma > 0 ? t->nnuma : 1, d, lo, hi, r, n;

	cpuset_zero(&all);
	for (d = 0; d < nd; d++) {
		n = bind_cores_near(t, o, t->nnuma > 0 ? &t->numa[d] : &all,
		    idx);
		if (p->n < nd) {
			bind_add_all(p, t, d * p->n / nd, idx, n);
			continue;
		}
		lo = d * p->n / nd;
		hi = (d + 1) * p->n / nd;
		if (n < hi - lo)
			return util_fail(cause, "NUMA domain %zu has %zu free "
			    "core%s for %zu local ranks", d, n, n == 1 ? "" :
			    "s", hi - lo);
		for (r = lo; r < hi; r++)
			ranks[r - lo] = r;
		bind_share(p, t, ranks, hi - lo, idx, n);
	}
	for (r = 0; r < p->n; r++)
		if (p->r[r].ncores == 0)
			return util_fail(cause, "local rank %zu has no free "
			    "core in its NUMA domains", r);
	return 0;
}

int
bind_make(struct bind_plan *p, const struct topo *t,
    const struct bind_opts *o, char **cause)
{
	size_t	*order, *idx, r;
	int	 rc = 0;

	memset(p, 0, sizeof *p);
	p->policy = o->policy;
	if (o->policy == BIND_NONE)
		return 0;
	if (o->nranks < 1 || o->nranks > BIND_MAXRANKS)
		return util_fail(cause, "%zu local ranks: a plan has 1 to %d",
		    o->nranks, BIND_MAXRANKS);
	p->n = o->nranks;
	p->r = xreallocarray(NULL, p->n, sizeof *p->r);
	for (r = 0; r < p->n; r++) {
		memset(&p->r[r], 0, sizeof p->r[r]);
		p->r[r].numa = p->r[r].gpu = p->r[r].nic = -1;
	}
	order = xreallocarray(NULL, 2 * p->n, sizeof *order);
	idx = xreallocarray(NULL, t->ncores > 0 ? t->ncores : 1, sizeof *idx);
	if (o->policy == BIND_GPU)
		rc = bind_gpu(p, t, o, order, idx, cause);
	else
		rc = bind_numa(p, t, o, order, idx, cause);
	free(order);
	free(idx);
	if (rc == 0)
		bind_nics(p, t);
	return rc;
}

int
bind_fit(struct bind_plan *p, const struct topo *t,
    const struct cpuset *allowed, char **cause)
{
	struct buf	a, b;
	size_t		r, c;

	for (r = 0; r < p->n; r++) {
		for (c = 0; c < t->ncores; c++) {
			if (!cpuset_subset(&t->cores[c].pus, &p->r[r].cpus) ||
			    cpuset_intersects(&t->cores[c].pus, allowed))
				continue;
			buf_init(&a);
			buf_init(&b);
			cpuset_format(&a, &p->r[r].cpus);
			cpuset_format(&b, allowed);
			util_fail(cause, "local rank %zu's CPUs %s are not all "
			    "among this task's, %s: ask for whole nodes and "
			    "every CPU (--exclusive, -c), or set bind = none",
			    r, a.s, b.s);
			buf_free(&a);
			buf_free(&b);
			return -1;
		}
	}
	/* A core's threads the task may not use (Slurm's
	 * --threads-per-core=1) are left out; the core stays. */
	for (r = 0; r < p->n; r++)
		cpuset_and(&p->r[r].cpus, allowed);
	return 0;
}

/* The name a rank's NIC goes by in the plan: its fabric device
 * ("mlx5_0", as NCCL_IB_HCA takes it), else its interface. */
static const char *
bind_nic_name(const struct topo *t, int nic)
{
	if (nic < 0)
		return "-";
	return t->nics[nic].fabric[0] != '\0' ? t->nics[nic].fabric :
	    t->nics[nic].iface;
}

void
bind_encode(struct buf *b, const struct bind_plan *p, const struct topo *t,
    const char *nic_var)
{
	size_t	r;

	buf_addf(b, BIND_WIRE_VERSION ";%s;%s", bind_names[p->policy],
	    nic_var != NULL && *nic_var != '\0' ? nic_var : "-");
	for (r = 0; r < p->n; r++) {
		buf_addc(b, ';');
		cpuset_format(b, &p->r[r].cpus);
		buf_addf(b, "/%d/%s/%s", p->r[r].ncores, p->r[r].gpu >= 0 ?
		    t->gpus[p->r[r].gpu].busid : "-",
		    bind_nic_name(t, p->r[r].nic));
	}
}

/* Copies the field [s, e) into dst (len bytes), "-" as "": -1 when it is
 * empty, too long, or holds a byte outside [A-Za-z0-9_.:-]. */
static int
bind_word(char *dst, size_t len, const char *s, const char *e)
{
	size_t	n = (size_t)(e - s);

	if (n == 0 || n >= len || strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_.:-") < n)
		return -1;
	if (n == 1 && *s == '-')
		n = 0;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* One rank's "CPUS/CORES/GPU/NIC" in [s, e). */
static int
bind_decode_rank(struct bind_wire *w, const char *s, const char *e)
{
	const char	*f[4], *end[4];
	char		*list, *why;
	long long	 v;
	size_t		 i;
	int		 rc;

	for (i = 0; i < 4; i++) {
		f[i] = s;
		while (s < e && *s != '/')
			s++;
		end[i] = s;
		if (i < 3 && s++ == e)
			return -1;
	}
	if (end[3] != e)
		return -1;
	list = xstrndup(f[0], (size_t)(end[0] - f[0]));
	rc = cpuset_parse(&w->cpus, list, &why);
	free(list);
	if (rc == -1) {
		free(why);
		return -1;
	}
	list = xstrndup(f[1], (size_t)(end[1] - f[1]));
	rc = util_strtonum(list, 0, CPUSET_MAX, &v);
	free(list);
	if (rc == -1 || cpuset_empty(&w->cpus))
		return -1;
	w->ncores = (int)v;
	return bind_word(w->gpu, sizeof w->gpu, f[2], end[2]) == -1 ||
	    bind_word(w->nic, sizeof w->nic, f[3], end[3]) == -1 ? -1 : 0;
}

int
bind_decode(struct bind_wire *w, const char *s, size_t rank, char **cause)
{
	struct bind_wire scratch;
	const char	*p, *q;
	char		 word[16];
	size_t		 i;
	int		 pol;

	memset(w, 0, sizeof *w);
	if (strncmp(s, BIND_WIRE_VERSION ";", 2) != 0)
		goto bad;
	p = s + 2;
	if ((q = strchr(p, ';')) == NULL || bind_word(word, sizeof word, p,
	    q) == -1 || (pol = vocab_word(bind_names, word)) <= 0)
		goto bad;
	w->policy = (enum bind_policy)pol;
	p = q + 1;
	if ((q = strchr(p, ';')) == NULL || bind_word(w->nic_var,
	    sizeof w->nic_var, p, q) == -1)
		goto bad;
	/* Every rank is read, so that a plan is whole or refused. */
	for (i = 0, p = q + 1; ; i++, p = q + 1) {
		if ((q = strchr(p, ';')) == NULL)
			q = p + strlen(p);
		if (bind_decode_rank(i == rank ? w : &scratch, p, q) == -1)
			goto bad;
		if (*q == '\0')
			break;
	}
	w->n = i + 1;
	if (rank >= w->n)
		return util_fail(cause, "local rank %zu is not in the plan of "
		    BIND_PLAN_VAR ", which has %zu", rank, w->n);
	return 0;
bad:
	return util_fail(cause, BIND_PLAN_VAR " is not a binding plan of "
	    "this ddprank's (ddprank(1), BINDING)");
}

void
bind_explain(struct buf *b, const struct bind_plan *p, const struct topo *t,
    const char *host)
{
	const struct bind_rank	*r;
	const struct topo_dev	*n;
	size_t			 i;

	for (i = 0; i < p->n; i++) {
		r = &p->r[i];
		buf_addf(b, "%s rank %zu: cpus ", host, i);
		cpuset_format(b, &r->cpus);
		buf_addf(b, " (%d core%s", r->ncores, r->ncores == 1 ? "" :
		    "s");
		if (r->numa >= 0)
			buf_addf(b, ", NUMA %d", r->numa);
		if (r->gpu >= 0)
			buf_addf(b, "), GPU %d (%s), NIC ", r->gpu,
			    t->gpus[r->gpu].busid);
		else
			buf_adds(b, "), GPU none, NIC ");
		if (r->nic < 0) {
			buf_adds(b, "none\n");
			continue;
		}
		n = &t->nics[r->nic];
		if (n->iface[0] != '\0' && n->fabric[0] != '\0')
			buf_addf(b, "%s (%s)\n", n->iface, n->fabric);
		else
			buf_addf(b, "%s\n", n->iface[0] != '\0' ? n->iface :
			    n->fabric);
	}
}
