/* check_bind.c: unit tests for the binding plan (bind.c) and the CPU
 * lists it is written in (cpuset.c): hand-built topologies, and the hwloc
 * XML files of test/topo/ (made by gen-topo.py from the centres' node
 * descriptions), whose plans must equal the centres' maps. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "bind.h"
#include "cpuset.h"
#include "testlib.h"
#include "topo.h"
#include "util.h"
#include "xmalloc.h"

/* ---- CPU lists ---- */

static void
list_is(const char *in, const char *out)
{
	struct cpuset	 s;
	struct buf	 b;
	char		*cause = NULL;

	ck_assert_msg(cpuset_parse(&s, in, &cause) == 0, "%s: %s", in, cause);
	buf_init(&b);
	cpuset_format(&b, &s);
	ck_assert_str_eq(b.s, out);
	buf_free(&b);
}

static void
list_bad(const char *in)
{
	struct cpuset	 s;
	char		*cause = NULL;

	ck_assert_msg(cpuset_parse(&s, in, &cause) == -1, "'%s' taken", in);
	ck_assert_ptr_nonnull(strstr(cause, "is not a CPU list"));
	free(cause);
}

START_TEST(test_cpuset_lists)
{
	list_is("", "");
	list_is("0", "0");
	list_is("3,1,2", "1-3");
	list_is("0-3,8,10-11", "0-3,8,10-11");
	list_is("0-63,64-127", "0-127");
	list_is("4095", "4095");
	list_is("0,0,0", "0");
	list_bad("4096");
	list_bad("3-1");
	list_bad("1,");
	list_bad(",1");
	list_bad("1-");
	list_bad("-1");
	list_bad("a");
	list_bad("1 2");
	list_bad("1,,2");
	list_bad("99999999999999999999");
}
END_TEST

START_TEST(test_cpuset_ops)
{
	struct cpuset	a, b;
	char		*cause = NULL;

	ck_assert_int_eq(cpuset_parse(&a, "0-7", &cause), 0);
	ck_assert_int_eq(cpuset_parse(&b, "4-5,100", &cause), 0);
	ck_assert_int_eq(cpuset_count(&a), 8);
	ck_assert(cpuset_intersects(&a, &b));
	ck_assert(!cpuset_subset(&b, &a));
	cpuset_clr(&b, 100);
	ck_assert(cpuset_subset(&b, &a));
	cpuset_andnot(&a, &b);
	ck_assert_int_eq(cpuset_count(&a), 6);
	ck_assert_int_eq(cpuset_next(&a, 3), 6);
	ck_assert_int_eq(cpuset_next(&a, 7), -1);
	cpuset_set(&a, 4095);
	ck_assert_int_eq(cpuset_next(&a, 7), 4095);
	cpuset_set(&a, 4096);
	cpuset_set(&a, -1);
	ck_assert(!cpuset_isset(&a, 4096));
}
END_TEST

/* ---- hand-built topologies ---- */

static void
set_list(struct cpuset *s, const char *list)
{
	char	*cause = NULL;

	ck_assert_msg(cpuset_parse(s, list, &cause) == 0, "%s", list);
}

/* A node of nnuma domains of per cores each (one thread per core), and
 * ngpus GPUs and NICs, GPU and NIC i near domain i % nnuma, each pair
 * behind its own switch. */
static void
hand(struct topo *t, size_t nnuma, size_t per, size_t ngpus)
{
	size_t	i;

	memset(t, 0, sizeof *t);
	t->nnuma = nnuma;
	t->numa = xcalloc(nnuma, sizeof *t->numa);
	t->ncores = nnuma * per;
	t->cores = xcalloc(t->ncores, sizeof *t->cores);
	for (i = 0; i < t->ncores; i++) {
		cpuset_set(&t->cores[i].pus, (int)i);
		cpuset_set(&t->numa[i / per], (int)i);
		t->cores[i].numa = (int)(i / per);
		t->cores[i].l3 = (int)(i / per);
	}
	t->ngpus = t->nnics = ngpus;
	t->gpus = xcalloc(ngpus > 0 ? ngpus : 1, sizeof *t->gpus);
	t->nics = xcalloc(ngpus > 0 ? ngpus : 1, sizeof *t->nics);
	for (i = 0; i < ngpus; i++) {
		snprintf(t->gpus[i].busid, sizeof t->gpus[i].busid,
		    "0000:%02zx:00.0", 0x10 * i + 1);
		snprintf(t->nics[i].busid, sizeof t->nics[i].busid,
		    "0000:%02zx:00.0", 0x10 * i + 2);
		snprintf(t->nics[i].iface, sizeof t->nics[i].iface, "ib%zu", i);
		snprintf(t->nics[i].fabric, sizeof t->nics[i].fabric,
		    "mlx5_%zu", i);
		t->gpus[i].near = t->numa[i % nnuma];
		t->nics[i].near = t->numa[i % nnuma];
		/* machine, domain, switch */
		t->gpus[i].path[0] = t->nics[i].path[0] = 1;
		t->gpus[i].path[1] = t->nics[i].path[1] =
		    (uint32_t)(100 + i % nnuma);
		t->gpus[i].path[2] = t->nics[i].path[2] = (uint32_t)(200 + i);
		t->gpus[i].depth = t->nics[i].depth = 3;
	}
}

static struct bind_opts
opts(enum bind_policy policy, size_t nranks)
{
	struct bind_opts	o;

	memset(&o, 0, sizeof o);
	o.policy = policy;
	o.nranks = nranks;
	return o;
}

static void
plan_ok(struct bind_plan *p, const struct topo *t, const struct bind_opts *o)
{
	char	*cause = NULL;

	ck_assert_msg(bind_make(p, t, o, &cause) == 0, "bind_make: %s",
	    cause);
	ck_assert_ptr_null(cause);
	ck_assert_uint_eq(p->n, o->nranks);
}

/* Rank r of p has CPUs list, cores cores, GPU gpu and NIC nic (-1). */
static void
rank_is(const struct bind_plan *p, size_t r, const char *list, int cores,
    int gpu, int nic)
{
	struct buf	b;

	buf_init(&b);
	cpuset_format(&b, &p->r[r].cpus);
	ck_assert_msg(strcmp(b.s, list) == 0, "rank %zu: CPUs %s, not %s", r,
	    b.s, list);
	buf_free(&b);
	ck_assert_int_eq(p->r[r].ncores, cores);
	ck_assert_msg(p->r[r].gpu == gpu, "rank %zu: GPU %d, not %d", r,
	    p->r[r].gpu, gpu);
	ck_assert_msg(p->r[r].nic == nic, "rank %zu: NIC %d, not %d", r,
	    p->r[r].nic, nic);
}

static void
plan_fails(const struct topo *t, const struct bind_opts *o, const char *why)
{
	struct bind_plan p;
	char		*cause = NULL;

	ck_assert_int_eq(bind_make(&p, t, o, &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, why) != NULL, "'%s' lacks '%s'", cause,
	    why);
	free(cause);
	bind_plan_free(&p);
}

START_TEST(test_hand_gpu)
{
	struct topo	 t;
	struct bind_opts o = opts(BIND_GPU, 4);
	struct bind_plan p;

	/* 2 domains of 8 cores, GPUs 0 and 2 near domain 0, 1 and 3 near 1:
	 * the two ranks near a domain share its cores in GPU order. */
	hand(&t, 2, 8, 4);
	plan_ok(&p, &t, &o);
	rank_is(&p, 0, "0-3", 4, 0, 0);
	rank_is(&p, 1, "8-11", 4, 1, 1);
	rank_is(&p, 2, "4-7", 4, 2, 2);
	rank_is(&p, 3, "12-15", 4, 3, 3);
	ck_assert_int_eq(p.r[1].numa, 1);
	bind_plan_free(&p);

	/* Fewer ranks than GPUs: each takes its GPU's whole domain. */
	o.nranks = 2;
	plan_ok(&p, &t, &o);
	rank_is(&p, 0, "0-7", 8, 0, 0);
	rank_is(&p, 1, "8-15", 8, 1, 1);
	bind_plan_free(&p);

	/* Reserved cores are never planned; the rest is shared. */
	o.nranks = 4;
	set_list(&o.reserve, "0,8");
	plan_ok(&p, &t, &o);
	rank_is(&p, 0, "1-3", 3, 0, 0);
	rank_is(&p, 2, "4-7", 4, 2, 2);
	rank_is(&p, 1, "9-11", 3, 1, 1);
	bind_plan_free(&p);
	topo_free(&t);
}
END_TEST

/* A visible-devices list reorders: device r is GPU visible[r], and the
 * rank takes that GPU's cores. */
START_TEST(test_hand_visible)
{
	static const int rev[] = { 3, 2, 1, 0 };
	static const int part[] = { 0, 1 };
	static const int dup[] = { 0, 0, 1, 2 };
	static const int big[] = { 0, 1, 2, 7 };
	struct topo	 t;
	struct bind_opts o = opts(BIND_GPU, 4);
	struct bind_plan p;

	hand(&t, 2, 8, 4);
	o.visible = rev;
	o.nvisible = 4;
	plan_ok(&p, &t, &o);
	rank_is(&p, 0, "12-15", 4, 3, 3);
	rank_is(&p, 3, "0-3", 4, 0, 0);
	bind_plan_free(&p);
	o.visible = part;
	o.nvisible = 2;
	o.nranks = 2;
	plan_fails(&t, &o, "the job sees 2 of this node's 4 GPUs");
	o.visible = dup;
	o.nvisible = 4;
	plan_fails(&t, &o, "GPU 0 is visible twice");
	o.visible = big;
	plan_fails(&t, &o, "visible device 3 is GPU 7");
	topo_free(&t);
}
END_TEST

START_TEST(test_hand_numa)
{
	struct topo	 t;
	struct bind_opts o = opts(BIND_NUMA, 2);
	struct bind_plan p;

	hand(&t, 4, 4, 0);
	/* Fewer ranks than domains: whole domains. */
	plan_ok(&p, &t, &o);
	rank_is(&p, 0, "0-7", 8, -1, -1);
	rank_is(&p, 1, "8-15", 8, -1, -1);
	bind_plan_free(&p);
	o.nranks = 3;
	plan_ok(&p, &t, &o);
	rank_is(&p, 0, "0-7", 8, -1, -1);
	rank_is(&p, 1, "8-11", 4, -1, -1);
	rank_is(&p, 2, "12-15", 4, -1, -1);
	bind_plan_free(&p);
	/* More: each domain's cores shared out. */
	o.nranks = 8;
	plan_ok(&p, &t, &o);
	rank_is(&p, 0, "0-1", 2, -1, -1);
	rank_is(&p, 7, "14-15", 2, -1, -1);
	bind_plan_free(&p);
	o.nranks = 16;
	plan_ok(&p, &t, &o);
	rank_is(&p, 5, "5", 1, -1, -1);
	bind_plan_free(&p);
	o.nranks = 17;
	plan_fails(&t, &o, "has 4 free cores for 5 local ranks");
	topo_free(&t);
}
END_TEST

START_TEST(test_hand_errors)
{
	struct topo	 t;
	struct bind_opts o = opts(BIND_GPU, 2);
	struct bind_plan p;
	char		*cause = NULL;

	hand(&t, 2, 2, 0);
	plan_fails(&t, &o, "hwloc sees no GPU on this node");
	topo_free(&t);
	hand(&t, 2, 2, 2);
	o.nranks = 3;
	plan_fails(&t, &o, "3 local ranks but 2 GPUs");
	o.nranks = 0;
	plan_fails(&t, &o, "0 local ranks");
	o.nranks = 2;
	set_list(&o.reserve, "0-1");
	plan_fails(&t, &o, "has 0 free cores near it for 1 local ranks");
	topo_free(&t);
	/* None plans nothing, and needs nothing. */
	o = opts(BIND_NONE, 4);
	memset(&t, 0, sizeof t);
	ck_assert_int_eq(bind_make(&p, &t, &o, &cause), 0);
	ck_assert_uint_eq(p.n, 0);
	bind_plan_free(&p);
}
END_TEST

START_TEST(test_fit)
{
	struct topo	 t;
	struct bind_opts o = opts(BIND_GPU, 2);
	struct bind_plan p;
	struct cpuset	 allowed;
	char		*cause = NULL;

	hand(&t, 2, 4, 2);
	plan_ok(&p, &t, &o);
	set_list(&allowed, "0-7");
	ck_assert_int_eq(bind_fit(&p, &t, &allowed, &cause), 0);
	rank_is(&p, 1, "4-7", 4, 1, 1);
	/* What Slurm gave a task with -c 4: the second rank's cores are
	 * not among them. */
	set_list(&allowed, "0-3");
	ck_assert_int_eq(bind_fit(&p, &t, &allowed, &cause), -1);
	ck_assert_str_eq(cause, "local rank 1's CPUs 4-7 are not all among "
	    "this task's, 0-3: ask for whole nodes and every CPU "
	    "(--exclusive, -c), or set bind = none");
	free(cause);
	bind_plan_free(&p);
	topo_free(&t);
}
END_TEST

/* ---- the plan for the workers ---- */

START_TEST(test_wire)
{
	struct topo	 t;
	struct bind_opts o = opts(BIND_GPU, 2);
	struct bind_plan p;
	struct bind_wire w;
	struct buf	 b;
	char		*cause = NULL;
	struct buf	 c;

	hand(&t, 2, 4, 2);
	t.nics[1].fabric[0] = '\0';
	plan_ok(&p, &t, &o);
	buf_init(&b);
	bind_encode(&b, &p, &t, "NCCL_IB_HCA");
	ck_assert_str_eq(b.s, "1;gpu;NCCL_IB_HCA;0-3/4/0000:01:00.0/mlx5_0;"
	    "4-7/4/0000:11:00.0/ib1");
	ck_assert_int_eq(bind_decode(&w, b.s, 1, &cause), 0);
	ck_assert_int_eq(w.policy, BIND_GPU);
	ck_assert_uint_eq(w.n, 2);
	ck_assert_int_eq(w.ncores, 4);
	ck_assert_str_eq(w.gpu, "0000:11:00.0");
	ck_assert_str_eq(w.nic, "ib1");
	ck_assert_str_eq(w.nic_var, "NCCL_IB_HCA");
	buf_init(&c);
	cpuset_format(&c, &w.cpus);
	ck_assert_str_eq(c.s, "4-7");
	buf_free(&c);
	ck_assert_int_eq(bind_decode(&w, b.s, 2, &cause), -1);
	ck_assert_str_eq(cause, "local rank 2 is not in the plan of "
	    "DDPRANK_BIND_PLAN, which has 2");
	free(cause);
	buf_free(&b);
	bind_plan_free(&p);
	topo_free(&t);

	ck_assert_int_eq(bind_decode(&w, "1;numa;-;0-1/2/-/-", 0, &cause), 0);
	ck_assert_str_eq(w.gpu, "");
	ck_assert_str_eq(w.nic_var, "");
}
END_TEST

START_TEST(test_wire_bad)
{
	static const char *const bad[] = {
		"", "1", "2;gpu;-;0/1/-/-", "1;none;-;0/1/-/-",
		"1;bogus;-;0/1/-/-", "1;gpu;-;", "1;gpu;-;0/1/-",
		"1;gpu;-;0/1/-/-/x", "1;gpu;-;/1/-/-", "1;gpu;-;0/x/-/-",
		"1;gpu;-;0/1//-", "1;gpu;-;0/1/a b/-", "1;gpu;A=B;0/1/-/-",
		"1;gpu;-;0/1/-/-;;", "1;gpu;-;5000/1/-/-", NULL
	};
	struct bind_wire w;
	char		*cause = NULL;
	size_t		 i;

	for (i = 0; bad[i] != NULL; i++) {
		ck_assert_msg(bind_decode(&w, bad[i], 0, &cause) == -1,
		    "'%s' decoded", bad[i]);
		ck_assert_ptr_nonnull(strstr(cause, "DDPRANK_BIND_PLAN"));
		free(cause);
		cause = NULL;
	}
}
END_TEST

/* ---- the centres' nodes, through hwloc ---- */

/* test/topo/NAME.xml of the source tree: $srcdir, else beside the test
 * binary's directory. Caller frees. */
static char *
topo_path(const char *name)
{
	const char	*src = getenv("srcdir");
	char		 exe[PATH_MAX], *slash, *s;
	ssize_t		 n;

	if (src != NULL && *src != '\0') {
		xasprintf(&s, "%s/test/topo/%s.xml", src, name);
		return s;
	}
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	ck_assert(n > 0);
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	xasprintf(&s, "%s/topo/%s.xml", exe, name);
	return s;
}

static void
load(struct topo *t, const char *name)
{
	char	*path = topo_path(name), *cause = NULL;

	ck_assert_msg(topo_load(t, path, &cause) == 0, "%s: %s", path, cause);
	free(path);
}

/* Rank r's GPU has bus id busid, its NIC interface iface. */
static void
devs_are(const struct bind_plan *p, const struct topo *t, size_t r,
    const char *busid, const char *iface)
{
	ck_assert_int_ge(p->r[r].gpu, 0);
	ck_assert_msg(strcmp(t->gpus[p->r[r].gpu].busid, busid) == 0,
	    "rank %zu: GPU %s, not %s", r, t->gpus[p->r[r].gpu].busid, busid);
	ck_assert_int_ge(p->r[r].nic, 0);
	ck_assert_msg(strcmp(t->nics[p->r[r].nic].iface, iface) == 0,
	    "rank %zu: NIC %s, not %s", r, t->nics[p->r[r].nic].iface, iface);
}

static void
cpus_are(const struct bind_plan *p, size_t r, const char *list, int cores,
    int numa)
{
	struct buf	b;

	buf_init(&b);
	cpuset_format(&b, &p->r[r].cpus);
	ck_assert_msg(strcmp(b.s, list) == 0, "rank %zu: CPUs %s, not %s", r,
	    b.s, list);
	buf_free(&b);
	ck_assert_int_eq(p->r[r].ncores, cores);
	ck_assert_int_eq(p->r[r].numa, numa);
}

/* NERSC Perlmutter GPU node: GPU 0 near NUMA 3 (cores 48-63 and their
 * second threads 112-127), 1 near 2, 2 near 1, 3 near 0; the NIC beside
 * each GPU; the BMC's VGA is no GPU. */
START_TEST(test_perlmutter)
{
	struct topo	 t;
	struct bind_opts o = opts(BIND_GPU, 4);
	struct bind_plan p;

	load(&t, "perlmutter");
	ck_assert_uint_eq(t.ncores, 64);
	ck_assert_uint_eq(t.nnuma, 4);
	ck_assert_uint_eq(t.ngpus, 4);
	ck_assert_uint_eq(t.nnics, 4);
	plan_ok(&p, &t, &o);
	cpus_are(&p, 0, "48-63,112-127", 16, 3);
	cpus_are(&p, 1, "32-47,96-111", 16, 2);
	cpus_are(&p, 2, "16-31,80-95", 16, 1);
	cpus_are(&p, 3, "0-15,64-79", 16, 0);
	devs_are(&p, &t, 0, "0000:03:00.0", "hsn0");
	devs_are(&p, &t, 1, "0000:41:00.0", "hsn1");
	devs_are(&p, &t, 2, "0000:82:00.0", "hsn2");
	devs_are(&p, &t, 3, "0000:c1:00.0", "hsn3");
	ck_assert_str_eq(t.nics[p.r[0].nic].fabric, "cxi0");
	bind_plan_free(&p);
	/* Eight ranks: two per GPU is one GPU each no more. */
	o.nranks = 8;
	plan_fails(&t, &o, "8 local ranks but 4 GPUs");
	topo_free(&t);
}
END_TEST

/* OLCF Frontier with its reserved first core of each L3 region: the
 * documented GCD-to-core map, 7 cores each, and the NIC of each MI250X
 * shared by its two GCDs. */
START_TEST(test_frontier)
{
	static const char *const cores[8] = {
		"49-55,113-119", "57-63,121-127", "17-23,81-87",
		"25-31,89-95", "1-7,65-71", "9-15,73-79", "33-39,97-103",
		"41-47,105-111"
	};
	static const int numa[8] = { 3, 3, 1, 1, 0, 0, 2, 2 };
	static const char *const bus[8] = { "c1", "c6", "c9", "ce", "d1",
	    "d6", "d9", "de" };
	static const char *const nic[8] = { "hsn0", "hsn0", "hsn1", "hsn1",
	    "hsn2", "hsn2", "hsn3", "hsn3" };
	struct topo	 t;
	struct bind_opts o = opts(BIND_GPU, 8);
	struct bind_plan p;
	char		 id[16];
	size_t		 r;

	load(&t, "frontier");
	set_list(&o.reserve, "0,8,16,24,32,40,48,56");
	plan_ok(&p, &t, &o);
	for (r = 0; r < 8; r++) {
		cpus_are(&p, r, cores[r], 7, numa[r]);
		snprintf(id, sizeof id, "0000:%s:00.0", bus[r]);
		devs_are(&p, &t, r, id, nic[r]);
	}
	bind_plan_free(&p);
	topo_free(&t);
}
END_TEST

/* ALCF Polaris: GPU 0 on cores 24-31, 1 on 16-23, 2 on 8-15, 3 on 0-7;
 * mlx5_1 behind GPU 1's host bridge, mlx5_0 behind GPU 3's; GPUs 0 and
 * 2, as far from either, take one each. */
START_TEST(test_polaris)
{
	struct topo	 t;
	struct bind_opts o = opts(BIND_GPU, 4);
	struct bind_plan p;

	load(&t, "polaris");
	plan_ok(&p, &t, &o);
	cpus_are(&p, 0, "24-31,56-63", 8, 3);
	cpus_are(&p, 1, "16-23,48-55", 8, 2);
	cpus_are(&p, 2, "8-15,40-47", 8, 1);
	cpus_are(&p, 3, "0-7,32-39", 8, 0);
	ck_assert_str_eq(t.nics[p.r[1].nic].fabric, "mlx5_1");
	ck_assert_str_eq(t.nics[p.r[3].nic].fabric, "mlx5_0");
	ck_assert_int_ne(p.r[0].nic, p.r[2].nic);
	ck_assert_int_ge(p.r[0].nic, 0);
	ck_assert_int_ge(p.r[2].nic, 0);
	bind_plan_free(&p);
	topo_free(&t);
}
END_TEST

/* A 2-socket 8-GPU DGX-class node: four GPUs per socket share its 56
 * cores, 14 each; each GPU's NIC is the one behind its own switch, not
 * another of the socket's. */
START_TEST(test_dgx)
{
	struct topo	 t;
	struct bind_opts o = opts(BIND_GPU, 8);
	struct bind_plan p;
	char		 nic[16], list[64];
	size_t		 r;
	int		 lo;

	load(&t, "dgx");
	ck_assert_uint_eq(t.ncores, 112);
	plan_ok(&p, &t, &o);
	for (r = 0; r < 8; r++) {
		lo = (int)r * 14;
		snprintf(list, sizeof list, "%d-%d,%d-%d", lo, lo + 13,
		    lo + 112, lo + 125);
		cpus_are(&p, r, list, 14, r < 4 ? 0 : 1);
		snprintf(nic, sizeof nic, "ib%zu", r);
		ck_assert_str_eq(t.nics[p.r[r].nic].iface, nic);
		ck_assert_uint_eq(p.r[r].gpu, r);
	}
	bind_plan_free(&p);
	topo_free(&t);
}
END_TEST

/* A CPU-only node (two sockets, 8 NUMA domains, one NIC): numa binds,
 * gpu refuses. */
START_TEST(test_cpuonly)
{
	struct topo	 t;
	struct bind_opts o = opts(BIND_NUMA, 2);
	struct bind_plan p;

	load(&t, "cpuonly");
	ck_assert_uint_eq(t.ngpus, 0);
	ck_assert_uint_eq(t.nnuma, 8);
	plan_ok(&p, &t, &o);
	cpus_are(&p, 0, "0-63,128-191", 64, 0);
	cpus_are(&p, 1, "64-127,192-255", 64, 4);
	/* The one NIC, on the first socket, is the first rank's alone. */
	ck_assert_str_eq(t.nics[p.r[0].nic].iface, "hsn0");
	ck_assert_int_eq(p.r[1].nic, -1);
	bind_plan_free(&p);
	o.nranks = 16;
	plan_ok(&p, &t, &o);
	cpus_are(&p, 3, "24-31,152-159", 8, 1);
	bind_plan_free(&p);
	o = opts(BIND_GPU, 2);
	plan_fails(&t, &o, "hwloc sees no GPU on this node");
	topo_free(&t);
}
END_TEST

/* A GPU node whose GPUs hwloc does not see: gpu refuses in one line,
 * never a plan without GPUs; numa still binds. */
START_TEST(test_nogpu)
{
	struct topo	 t;
	struct bind_opts o = opts(BIND_GPU, 4);
	struct bind_plan p;

	load(&t, "nogpu");
	plan_fails(&t, &o, "hwloc sees no GPU on this node: bind = gpu gives "
	    "each local rank its own (bind = numa binds the cores alone)");
	o.policy = BIND_NUMA;
	plan_ok(&p, &t, &o);
	cpus_are(&p, 2, "32-47,96-111", 16, 2);
	bind_plan_free(&p);
	topo_free(&t);
}
END_TEST

/* Frontier's jobs may hold one thread of each core (Slurm's
 * --threads-per-core=1): the cores fit, their second threads go. */
START_TEST(test_fit_threads)
{
	struct topo	 t;
	struct bind_opts o = opts(BIND_GPU, 8);
	struct bind_plan p;
	struct cpuset	 allowed;
	char		*cause = NULL;

	load(&t, "frontier");
	set_list(&o.reserve, "0,8,16,24,32,40,48,56");
	plan_ok(&p, &t, &o);
	set_list(&allowed, "1-7,9-15,17-23,25-31,33-39,41-47,49-55,57-63");
	ck_assert_msg(bind_fit(&p, &t, &allowed, &cause) == 0, "%s", cause);
	cpus_are(&p, 0, "49-55", 7, 3);
	cpus_are(&p, 4, "1-7", 7, 0);
	bind_plan_free(&p);
	/* Without core 49, GPU 0's rank does not fit. */
	plan_ok(&p, &t, &o);
	cpuset_clr(&allowed, 49);
	ck_assert_int_eq(bind_fit(&p, &t, &allowed, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "local rank 0's CPUs "
	    "49-55,113-119 are not all among this task's"));
	free(cause);
	bind_plan_free(&p);
	topo_free(&t);
}
END_TEST

START_TEST(test_unreadable)
{
	struct topo	 t;
	char		*cause = NULL, *path;

	ck_assert_int_eq(topo_load(&t, "/nonexistent/node.xml", &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "hwloc cannot read the topology "
	    "of /nonexistent/node.xml"));
	free(cause);
	topo_free(&t);
	path = t_tmpfile("check_bind", "<topology>not hwloc's</topology>\n");
	ck_assert_int_eq(topo_load(&t, path, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "hwloc cannot read"));
	free(cause);
	topo_free(&t);
	unlink(path);
	free(path);
}
END_TEST

/* This machine, as hwloc reads it: at least one core, each core's
 * threads disjoint from the others'. */
START_TEST(test_this_machine)
{
	struct topo	 t;
	char		*cause = NULL;
	size_t		 i;

	ck_assert_msg(topo_load(&t, NULL, &cause) == 0, "%s", cause);
	ck_assert_uint_ge(t.ncores, 1);
	for (i = 1; i < t.ncores; i++)
		ck_assert(!cpuset_intersects(&t.cores[i - 1].pus,
		    &t.cores[i].pus));
	topo_free(&t);
}
END_TEST

static Suite *
bind_suite(void)
{
	Suite	*s = suite_create("bind");
	TCase	*tc;

	tc = tcase_create("cpuset");
	tcase_add_test(tc, test_cpuset_lists);
	tcase_add_test(tc, test_cpuset_ops);
	suite_add_tcase(s, tc);
	tc = tcase_create("hand");
	tcase_add_test(tc, test_hand_gpu);
	tcase_add_test(tc, test_hand_visible);
	tcase_add_test(tc, test_hand_numa);
	tcase_add_test(tc, test_hand_errors);
	tcase_add_test(tc, test_fit);
	tcase_add_test(tc, test_wire);
	tcase_add_test(tc, test_wire_bad);
	suite_add_tcase(s, tc);
	tc = tcase_create("centres");
	/* hwloc loads each XML file in a few milliseconds; loaded cores
	 * are slower. */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_perlmutter);
	tcase_add_test(tc, test_frontier);
	tcase_add_test(tc, test_polaris);
	tcase_add_test(tc, test_dgx);
	tcase_add_test(tc, test_cpuonly);
	tcase_add_test(tc, test_nogpu);
	tcase_add_test(tc, test_unreadable);
	tcase_add_test(tc, test_fit_threads);
	tcase_add_test(tc, test_this_machine);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(bind_suite());
}
