/* doctor-check.c: ddprank doctor's checks on one node, each asking the
 * system through struct doctor_sys (doctor-sys.c is the real one). */
#include "config.h"

#include <sys/socket.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"
#include "fault.h"
#include "hostlist.h"
#include "netif.h"
#include "port.h"
#include "rank.h"
#include "xmalloc.h"

/* An unknown variable this close to a known one is a typo, not a
 * variable newer than the list: it fails instead of warning. */
#define DOCTOR_TYPO_DISTANCE	2
/* Milliseconds the launcher's python has to find torch's version. */
#define DOCTOR_TORCH_VERSION_MS	30000

/* --rdzv c10d with --iface, once the interface matched: exec refuses a
 * host name that does not lead to it (rank.c says why), whatever the
 * node count. */
struct doctor_c10d_arg {
	const struct doctor_opts	*o;
	const struct doctor_sys		*sys;
};

/* rank_opts' local_addr_ok for the doctor, as exec asks it. */
static int
doctor_local_addr_ok(void *arg, char **why)
{
	const struct doctor_c10d_arg	*a = arg;

	return doctor_torch_local_addr(a->o->launcher != NULL ?
	    a->o->launcher : "torchrun", a->sys, why);
}

static void
doctor_check_c10d(struct doctor_node *n, const struct doctor_opts *o,
    const struct doctor_sys *sys)
{
	struct doctor_c10d_arg	 arg = { o, sys };
	struct rank_opts	 ro;
	char			*cause;
	enum fault		 xc;

	if (!o->c10d || o->ro->rx == NULL)
		return;
	ro = *o->ro;
	ro.local_addr_ok = doctor_local_addr_ok;
	ro.local_addr_arg = &arg;
	if ((xc = rank_c10d_check(&ro, o->family, sys->net,
	    &cause)) != FAULT_NONE) {
		doctor_set(n, DOCTOR_IFACE, DOCTOR_FAIL, "%s", cause);
		free(cause);
	}
}

/* --comm-iface, as exec takes it (rank.c): it must match, unless both
 * socket variables are set already. */
static void
doctor_check_comm(struct doctor_node *n, const struct doctor_opts *o,
    const struct doctor_sys *sys, const struct netif_list *l)
{
	const struct netif	*e;
	struct buf		 b;
	char			*cause;

	if (o->comm_rx == NULL ||
	    (nodes_var(sys->env, "GLOO_SOCKET_IFNAME") != NULL &&
	    nodes_var(sys->env, "NCCL_SOCKET_IFNAME") != NULL))
		return;
	if ((e = netif_find(l, o->comm_rx, o->comm_iface, AF_UNSPEC,
	    &cause)) == NULL) {
		/* After c10d's failure, both are said. */
		if (n->f[DOCTOR_IFACE].level == DOCTOR_FAIL &&
		    n->f[DOCTOR_IFACE].detail != NULL)
			doctor_set(n, DOCTOR_IFACE, DOCTOR_FAIL, "%s; "
			    "--comm-iface: %s", n->f[DOCTOR_IFACE].detail,
			    cause);
		else
			doctor_set(n, DOCTOR_IFACE, DOCTOR_FAIL,
			    "--comm-iface: %s", cause);
		free(cause);
		return;
	}
	buf_init(&b);
	netif_names(&b, l, o->comm_rx);
	if (n->f[DOCTOR_IFACE].level == DOCTOR_PASS)
		doctor_set(n, DOCTOR_IFACE, DOCTOR_PASS, "%s; Gloo and NCCL "
		    "on %s", n->f[DOCTOR_IFACE].detail != NULL ?
		    n->f[DOCTOR_IFACE].detail : "", b.s);
	buf_free(&b);
}

void
doctor_check_iface(struct doctor_node *n, const struct doctor_opts *o,
    const struct doctor_sys *sys)
{
	struct netif_list	 l;
	const struct netif	*e;
	char			*cause, s[NETIF_ADDRSTRLEN];

	if (o->ro->rx == NULL && o->comm_rx == NULL)
		return;
	netif_list_init(&l);
	if (sys->net->ifaddrs(sys->net->arg, &l, &cause) == -1) {
		doctor_set(n, DOCTOR_IFACE, DOCTOR_FAIL, "%s", cause);
		free(cause);
	} else if (o->ro->rx == NULL) {
		doctor_check_comm(n, o, sys, &l);
	} else if ((e = netif_find(&l, o->ro->rx, o->ro->iface, o->family,
	    &cause)) == NULL) {
		doctor_set(n, DOCTOR_IFACE, DOCTOR_FAIL, "%s", cause);
		free(cause);
	} else {
		netif_addr_format(&e->a, e->name, s, sizeof s);
		free(n->src);
		n->src = xstrdup(s);
		doctor_set(n, DOCTOR_IFACE, DOCTOR_PASS, "%s is up with %s",
		    e->name, s);
		doctor_check_c10d(n, o, sys);
		doctor_check_comm(n, o, sys, &l);
	}
	netif_list_free(&l);
}

/* First loopback address among addrs, or NULL. */
static const struct netif_addr *
doctor_loopback(const struct netif_addrs *addrs)
{
	size_t	i;

	for (i = 0; i < addrs->n; i++) {
		if (netif_addr_is_loopback(&addrs->v[i]))
			return &addrs->v[i];
	}
	return NULL;
}

/* With hostname discovery the name is what the nodes use to reach each
 * other; with --iface it only matters to a library told no interface,
 * so a loopback answer is then a warning. */
void
doctor_check_resolve(struct doctor_node *n, const struct doctor_opts *o,
    const struct doctor_sys *sys)
{
	const struct netif_sys	*net = sys->net;
	struct netif_addrs	 addrs;
	const struct netif_addr	*lo;
	enum doctor_level	 bad;
	char			 host[HOSTLIST_NAME_MAX + 1], s[NETIF_ADDRSTRLEN];
	char			*cause;

	bad = o->ro->rx == NULL ? DOCTOR_FAIL : DOCTOR_WARN;
	if (net->hostname(net->arg, host, sizeof host, &cause) == -1) {
		doctor_set(n, DOCTOR_RESOLVE, DOCTOR_FAIL, "%s", cause);
		free(cause);
		return;
	}
	netif_addrs_init(&addrs);
	if (net->resolve(net->arg, host, &addrs, &cause) == -1) {
		doctor_set(n, DOCTOR_RESOLVE, bad, "%s", cause);
		free(cause);
	} else if (addrs.n == 0) {
		doctor_set(n, DOCTOR_RESOLVE, bad, "'%s' resolves to no "
		    "address", host);
	} else if ((lo = doctor_loopback(&addrs)) != NULL) {
		netif_addr_format(lo, NULL, s, sizeof s);
		doctor_set(n, DOCTOR_RESOLVE, bad, "'%s' resolves to the "
		    "loopback address %s (see /etc/hosts), which other nodes "
		    "cannot reach", host, s);
	} else {
		netif_addr_format(&addrs.v[0], NULL, s, sizeof s);
		doctor_set(n, DOCTOR_RESOLVE, DOCTOR_PASS, "'%s' resolves to "
		    "%s", host, s);
	}
	netif_addrs_free(&addrs);
}

/* The first executable path/name along path, or NULL; caller frees. */
static char *
doctor_which(const char *name, const char *path, const struct doctor_sys *sys)
{
	const char	*p = path, *end;
	char		*full;
	size_t		 len;

	for (;;) {
		end = strchr(p, ':');
		len = end == NULL ? strlen(p) : (size_t)(end - p);
		/* An empty entry is the current directory, as for execvp. */
		if (len == 0)
			xasprintf(&full, "./%s", name);
		else
			xasprintf(&full, "%.*s/%s", (int)len, p, name);
		if (sys->executable(sys->arg, full))
			return full;
		free(full);
		if (end == NULL)
			return NULL;
		p = end + 1;
	}
}

void
doctor_check_launcher(struct doctor_node *n, const struct doctor_opts *o,
    const struct doctor_sys *sys)
{
	const char	*name = o->launcher != NULL ? o->launcher : "torchrun";
	const char	*path = nodes_var(sys->env, "PATH");
	char		*found;

	if (strchr(name, '/') != NULL) {
		if (sys->executable(sys->arg, name))
			doctor_set(n, DOCTOR_LAUNCHER, DOCTOR_PASS, "%s is "
			    "executable", name);
		else
			doctor_set(n, DOCTOR_LAUNCHER, DOCTOR_FAIL, "%s is not "
			    "an executable file", name);
		return;
	}
	if (path == NULL) {
		doctor_set(n, DOCTOR_LAUNCHER, DOCTOR_FAIL, "'%s' not found: "
		    "PATH is not set", name);
		return;
	}
	if ((found = doctor_which(name, path, sys)) == NULL) {
		doctor_set(n, DOCTOR_LAUNCHER, DOCTOR_FAIL, "'%s' not found "
		    "on PATH=%s", name, path);
		return;
	}
	doctor_set(n, DOCTOR_LAUNCHER, DOCTOR_PASS, "'%s' is %s (PATH=%s)",
	    name, found, path);
	free(found);
}

/* The python that runs the launcher: itself when it is one, else the
 * interpreter of its #! line ("#!/usr/bin/env python3" included).
 * Caller frees; NULL when there is none. */
static char *
doctor_python(const char *launcher, const struct doctor_sys *sys)
{
	const char	*base = strrchr(launcher, '/');
	char		 line[512], *p, *q;

	base = base != NULL ? base + 1 : launcher;
	if (strncmp(base, "python", 6) == 0)
		return xstrdup(launcher);
	if (sys->firstline(sys->arg, launcher, line, sizeof line) == -1 ||
	    strncmp(line, "#!", 2) != 0)
		return NULL;
	p = line + 2 + strspn(line + 2, " \t");
	q = p + strcspn(p, " \t");
	/* "/usr/bin/env python3": the word after env. */
	if (*q != '\0' && q - p >= 4 && strncmp(q - 4, "/env", 4) == 0) {
		p = q + strspn(q, " \t");
		q = p + strcspn(p, " \t");
	}
	*q = '\0';
	return *p != '\0' ? xstrdup(p) : NULL;
}

/* Finds torch's version.py beside the package's __init__.py without
 * importing torch (which takes seconds on torch 2.x), and says
 * "torch MAJOR.MINOR" as the last line of its standard error, where
 * doctor_sys's run reads it. */
static const char doctor_version_py[] =
    "import importlib.util as u, os, re, sys\n"
    "s = u.find_spec('torch')\n"
    "if s is None or not s.origin:\n"
    "    sys.exit(3)\n"
    "with open(os.path.join(os.path.dirname(s.origin), 'version.py')) as f:\n"
    "    m = re.search(r'__version__\\s*=\\s*.([0-9]+)\\.([0-9]+)', f.read())\n"
    "if m is None:\n"
    "    sys.exit(4)\n"
    "sys.stderr.write('torch %s.%s\\n' % m.groups())\n";

int
doctor_torch_local_addr(const char *launcher, const struct doctor_sys *sys,
    char **why)
{
	int	major, minor;

	if (doctor_torch_version(launcher, sys, DOCTOR_TORCH_VERSION_MS,
	    &major, &minor, why) == -1)
		return 0;
	if (major > 2 || (major == 2 && minor >= 3))
		return 1;
	xasprintf(why, "'%s' runs torch %d.%d", launcher, major, minor);
	return 0;
}

int
doctor_torch_version(const char *launcher, const struct doctor_sys *sys,
    int ms, int *major, int *minor, char **cause)
{
	const char	*path = nodes_var(sys->env, "PATH");
	char		*found = NULL, *py, *err = NULL;
	char		*argv[] = { NULL, (char *)"-c",
			    (char *)doctor_version_py, NULL };
	int		 took, rc;

	if (strchr(launcher, '/') != NULL)
		found = xstrdup(launcher);
	else if (path != NULL)
		found = doctor_which(launcher, path, sys);
	if (found == NULL || (py = doctor_python(found, sys)) == NULL) {
		free(found);
		return util_fail(cause, "cannot tell which python runs '%s'",
		    launcher);
	}
	free(found);
	argv[0] = py;
	rc = sys->run(sys->arg, argv, ms, &took, &err);
	if (rc != 0 || err == NULL ||
	    sscanf(err, "torch %d.%d", major, minor) != 2) {
		util_fail(cause, "%s finds no torch version (%s)", py,
		    rc == 3 ? "no torch" : rc > 0 ? "no version.py" :
		    err != NULL ? err : "failed");
		free(err);
		free(py);
		return -1;
	}
	free(err);
	free(py);
	return 0;
}

/* Imports torch, then asks for a libuv store as torch 2.4 and later
 * do by default: a client of a port nobody serves, which a torch built
 * without libuv refuses at once, before it connects (a torch before 2.4
 * knows no use_libuv). Says "torch VERSION" and " without libuv" as the
 * last line of its standard error. */
static const char doctor_torch_py[] =
    "import datetime, sys\n"
    "import torch\n"
    "r = 'torch ' + torch.__version__\n"
    "try:\n"
    "    import torch.distributed as d\n"
    "    d.TCPStore('127.0.0.1', 1, 1, False,\n"
    "               datetime.timedelta(milliseconds=1), use_libuv=True)\n"
    "except Exception as e:\n"
    "    if 'without libuv support' in str(e):\n"
    "        r += ' without libuv'\n"
    "sys.stderr.write(r + '\\n')\n";

/* What the import said: PASS, or WARN for a torch without libuv. */
static void
doctor_torch_found(struct doctor_node *n, const char *py, int ms,
    const char *said)
{
	const char	*v = said != NULL && strncmp(said, "torch ", 6) == 0 ?
			    said + 6 : NULL;
	const char	*bad = v != NULL ? strstr(v, " without libuv") : NULL;

	if (v == NULL)
		doctor_set(n, DOCTOR_TORCH, DOCTOR_PASS, "%s imports torch "
		    "in %d.%01d s", py, ms / 1000, ms % 1000 / 100);
	else if (bad == NULL)
		doctor_set(n, DOCTOR_TORCH, DOCTOR_PASS, "%s imports torch %s "
		    "in %d.%01d s", py, v, ms / 1000, ms % 1000 / 100);
	else
		doctor_set(n, DOCTOR_TORCH, DOCTOR_WARN, "%s imports torch "
		    "%.*s in %d.%01d s, built without libuv: torchrun's "
		    "stores fail unless given the legacy backend, which "
		    "ddprank exec gives them (ddprank(1), LIBUV); a torchrun "
		    "started otherwise fails", py, (int)(bad - v), v,
		    ms / 1000, ms % 1000 / 100);
}

void
doctor_check_torch(struct doctor_node *n, const struct doctor_opts *o,
    const struct doctor_sys *sys)
{
	const char	*name = o->launcher != NULL ? o->launcher : "torchrun";
	const char	*path = nodes_var(sys->env, "PATH");
	char		*found = NULL, *py, *err = NULL;
	char		*argv[] = { NULL, (char *)"-c",
			    (char *)doctor_torch_py, NULL };
	int		 ms = 0, rc;

	if (!o->deep)
		return;
	if (strchr(name, '/') != NULL)
		found = xstrdup(name);
	else if (path != NULL)
		found = doctor_which(name, path, sys);
	if (found == NULL || (py = doctor_python(found, sys)) == NULL) {
		doctor_set(n, DOCTOR_TORCH, found == NULL ? DOCTOR_FAIL :
		    DOCTOR_WARN, "cannot tell which python runs '%s'", name);
		free(found);
		return;
	}
	argv[0] = py;
	rc = sys->run(sys->arg, argv, o->wait * 1000, &ms, &err);
	if (rc == 0)
		doctor_torch_found(n, py, ms, err);
	else if (rc > 0)
		doctor_set(n, DOCTOR_TORCH, DOCTOR_FAIL, "%s cannot import "
		    "torch (exit %d): %s", py, rc, err != NULL ? err : "");
	else
		doctor_set(n, DOCTOR_TORCH, DOCTOR_FAIL, "%s -c 'import torch': "
		    "%s", py, err != NULL ? err : "failed");
	free(err);
	free(py);
	free(found);
}

/* Entries of dir named prefix followed by digits only. */
static uint64_t
doctor_count_devs(const struct doctor_sys *sys, const char *dir,
    const char *prefix)
{
	struct strlist	 l;
	const char	*s;
	size_t		 i, plen = strlen(prefix);
	uint64_t	 count = 0;

	strlist_init(&l);
	if (sys->list(sys->arg, dir, &l) == -1) {
		strlist_free(&l);
		return 0;
	}
	for (i = 0; i < l.n; i++) {
		s = l.v[i];
		if (strncmp(s, prefix, plen) == 0 && s[plen] != '\0' &&
		    strspn(s + plen, "0123456789") == strlen(s + plen))
			count++;
	}
	strlist_free(&l);
	return count;
}

static int
doctor_has_dev(const struct doctor_sys *sys, const char *name)
{
	struct strlist	l;
	size_t		i;
	int		found = 0;

	strlist_init(&l);
	if (sys->list(sys->arg, "/dev", &l) == 0) {
		for (i = 0; i < l.n && !found; i++)
			found = strcmp(l.v[i], name) == 0;
	}
	strlist_free(&l);
	return found;
}

/* Entries of a CUDA_VISIBLE_DEVICES-like list ("0,1,3"); "" hides all. */
static uint64_t
doctor_count_list(const char *s)
{
	uint64_t	n = 1;

	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		n += *s == ',';
	return n;
}

/* The GPUs this node shows: device nodes, then the visible list. */
struct doctor_gpus {
	const char	*kind;		/* "NVIDIA", "ROCm" */
	const char	*devs;		/* what was counted, for messages */
	const char	*var;		/* the visibility variable */
	uint64_t	 ndev;
	const char	*visible;	/* its value, or NULL */
};

static void
doctor_find_gpus(struct doctor_gpus *g, const struct doctor_sys *sys)
{
	memset(g, 0, sizeof *g);
	g->ndev = doctor_count_devs(sys, "/dev", "nvidia");
	if (g->ndev > 0 || !doctor_has_dev(sys, "kfd")) {
		g->kind = "NVIDIA";
		g->devs = "/dev/nvidiaN";
		g->var = "CUDA_VISIBLE_DEVICES";
	} else {
		g->kind = "ROCm";
		g->devs = "/dev/dri/renderDN beside /dev/kfd";
		g->var = "ROCR_VISIBLE_DEVICES";
		g->ndev = doctor_count_devs(sys, "/dev/dri", "renderD");
	}
	g->visible = nodes_var(sys->env, g->var);
}

/* The GPUs the scheduler gave the node (the first row's gpus_var that
 * is set), 0 when none says. */
static uint64_t
doctor_sched_gpus(const struct doctor_sys *sys)
{
	const struct sched	*s;
	int64_t			 v = 0;
	char			*cause;
	int			 i;

	for (i = 0; i < SCHED_COUNT; i++) {
		s = sched_get((enum sched_id)i);
		if (s->gpus_var == NULL || nodes_var(sys->env, s->gpus_var) ==
		    NULL)
			continue;
		if (nodes_var_num(&v, sys->env, s->gpus_var, 0, &cause) == -1)
			free(cause);
		return (uint64_t)v;
	}
	return 0;
}

/* The row whose variable says each task has only its own GPUs, or NULL. */
static const struct sched *
doctor_sched_per_task(const struct doctor_sys *sys)
{
	const struct sched	*s;
	int			 i;

	for (i = 0; i < SCHED_COUNT; i++) {
		s = sched_get((enum sched_id)i);
		if (s->gpus_per_task_var != NULL &&
		    nodes_var(sys->env, s->gpus_per_task_var) != NULL)
			return s;
	}
	return NULL;
}

void
doctor_check_gpus(struct doctor_node *n, const struct doctor_opts *o,
    const struct doctor_sys *sys)
{
	const struct sched	*per_task;
	struct doctor_gpus	 g;
	uint64_t		 want = o->gpus, shown;

	if (want == 0)
		want = doctor_sched_gpus(sys);
	if (want == 0)
		return;
	doctor_find_gpus(&g, sys);
	shown = g.visible != NULL ? doctor_count_list(g.visible) : g.ndev;
	if (g.ndev < want)
		doctor_set(n, DOCTOR_GPUS, DOCTOR_FAIL, "%llu GPU device "
		    "node%s (%s) for %llu GPUs requested",
		    (unsigned long long)g.ndev, g.ndev == 1 ? "" : "s", g.devs,
		    (unsigned long long)want);
	else if (shown < want)
		doctor_set(n, DOCTOR_GPUS, DOCTOR_FAIL, "%s=%s shows %llu of "
		    "%llu GPUs requested", g.var, g.visible,
		    (unsigned long long)shown, (unsigned long long)want);
	else if ((per_task = doctor_sched_per_task(sys)) != NULL)
		doctor_set(n, DOCTOR_GPUS, DOCTOR_WARN, "%s gives each task "
		    "only its own GPUs: NCCL cannot see the node's other GPUs "
		    "(no peer-to-peer); request GPUs per node",
		    per_task->gpus_per_task_opt);
	else
		doctor_set(n, DOCTOR_GPUS, DOCTOR_PASS, "%llu %s GPU%s for "
		    "%llu requested", (unsigned long long)shown, g.kind,
		    shown == 1 ? "" : "s", (unsigned long long)want);
}

static size_t
doctor_distance(const char *a, const char *b)
{
	size_t	la = strlen(a), lb = strlen(b), i, j, *row, prev, tmp, d;

	row = xreallocarray(NULL, lb + 1, sizeof *row);
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			d = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < d)
				d = row[j] + 1;
			if (row[j - 1] + 1 < d)
				d = row[j - 1] + 1;
			row[j] = d;
			prev = tmp;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

const char *
doctor_nearest_var(const char *name, size_t *distance)
{
	const char	*best = NULL;
	size_t		 i, d;

	*distance = (size_t)-1;
	for (i = 0; doctor_known_vars[i] != NULL; i++) {
		d = doctor_distance(name, doctor_known_vars[i]);
		if (d < *distance) {
			*distance = d;
			best = doctor_known_vars[i];
		}
	}
	return best;
}

static int
doctor_known(const char *name, size_t len)
{
	size_t	i;

	for (i = 0; doctor_known_vars[i] != NULL; i++) {
		if (strlen(doctor_known_vars[i]) == len &&
		    memcmp(doctor_known_vars[i], name, len) == 0)
			return 1;
	}
	return 0;
}

static int
doctor_watched(const char *name)
{
	size_t	i;

	for (i = 0; doctor_var_prefixes[i] != NULL; i++) {
		if (strncmp(name, doctor_var_prefixes[i],
		    strlen(doctor_var_prefixes[i])) == 0)
			return 1;
	}
	return 0;
}

/* One unknown variable: a typo of a known one fails, anything else
 * (perhaps newer than the list) warns. */
static enum doctor_level
doctor_unknown(struct buf *b, const char *name, size_t len)
{
	const char	*near;
	char		*s = xstrndup(name, len);
	size_t		 d;

	near = doctor_nearest_var(s, &d);
	if (b->len > 0)
		buf_adds(b, "; ");
	if (near != NULL && d <= DOCTOR_TYPO_DISTANCE) {
		buf_addf(b, "%s is not a known variable: did you mean %s?",
		    s, near);
		free(s);
		return DOCTOR_FAIL;
	}
	buf_addf(b, "%s is not a known variable", s);
	if (near != NULL)
		buf_addf(b, " (nearest: %s)", near);
	free(s);
	return DOCTOR_WARN;
}

/* The NCCL variables torch 2.2 renamed (REFERENCE 12: the old names
 * still work there, with a deprecation warning in every process). */
static const char *const doctor_renamed[][2] = {
	{ "NCCL_ASYNC_ERROR_HANDLING", "TORCH_NCCL_ASYNC_ERROR_HANDLING" },
	{ "NCCL_BLOCKING_WAIT", "TORCH_NCCL_BLOCKING_WAIT" },
	{ "NCCL_DESYNC_DEBUG", "TORCH_NCCL_DESYNC_DEBUG" },
};

static int
doctor_env_has(char *const *env, const char *name)
{
	size_t	len = strlen(name), i;

	for (i = 0; env != NULL && env[i] != NULL; i++) {
		if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
			return 1;
	}
	return 0;
}

/* An old name set without its new one warns: torch 2.2 and later warn
 * in every process, and a later torch may stop reading it. */
static enum doctor_level
doctor_renamed_var(struct buf *b, char *const *env, const char *name,
    size_t len)
{
	size_t	i;

	for (i = 0; i < sizeof doctor_renamed / sizeof doctor_renamed[0];
	    i++) {
		if (strlen(doctor_renamed[i][0]) != len ||
		    memcmp(doctor_renamed[i][0], name, len) != 0 ||
		    doctor_env_has(env, doctor_renamed[i][1]))
			continue;
		if (b->len > 0)
			buf_adds(b, "; ");
		buf_addf(b, "%s is torch's name before 2.2, which 2.2 and later "
		    "read as %s with a deprecation warning: set %s (and keep "
		    "%s for an older torch)", doctor_renamed[i][0],
		    doctor_renamed[i][1], doctor_renamed[i][1],
		    doctor_renamed[i][0]);
		return DOCTOR_WARN;
	}
	return DOCTOR_PASS;
}

void
doctor_check_env(struct doctor_node *n, const struct doctor_sys *sys)
{
	char *const		*env = sys->environ(sys->arg);
	struct buf		 b;
	enum doctor_level	 l = DOCTOR_PASS, u;
	size_t			 i, len, seen = 0;

	buf_init(&b);
	for (i = 0; env != NULL && env[i] != NULL; i++) {
		if (!doctor_watched(env[i]))
			continue;
		seen++;
		len = strcspn(env[i], "=");
		if (doctor_known(env[i], len)) {
			if ((u = doctor_renamed_var(&b, env, env[i], len)) > l)
				l = u;
			continue;
		}
		if ((u = doctor_unknown(&b, env[i], len)) > l)
			l = u;
	}
	if (l == DOCTOR_PASS)
		doctor_set(n, DOCTOR_ENV, l, "%zu variable%s of NCCL_, GLOO_, "
		    "FI_, TORCH_, TORCHELASTIC_, RCCL_, MIOPEN_, all known",
		    seen, seen == 1 ? "" : "s");
	else
		doctor_set(n, DOCTOR_ENV, l, "%s", b.s);
	buf_free(&b);
}

void
doctor_check_shared(struct doctor_node *n, const struct doctor_opts *o,
    const struct doctor_sys *sys)
{
	char	*cause;
	int	 rc;

	if (o->shared == NULL)
		return;
	if ((rc = sys->writable(sys->arg, o->shared, &cause)) < 0) {
		doctor_set(n, DOCTOR_SHARED, DOCTOR_FAIL, "%s", cause);
		n->f[DOCTOR_SHARED].nobody = rc == -2;
		free(cause);
		return;
	}
	doctor_set(n, DOCTOR_SHARED, DOCTOR_PASS, "%s is writable", o->shared);
}

/* Binds and closes: a listener on the training's port would show it,
 * in /proc/net/tcp, to every user of the node. */
void
doctor_check_port(struct doctor_node *n, const char *addr, int hide)
{
	const char	*what = hide ? "the training's port (secret)" : NULL;
	char		*cause, port[16];

	if (port_check_as(addr, n->port, what, &cause) == -1) {
		doctor_set(n, DOCTOR_PORT, DOCTOR_FAIL, "%s", cause);
		free(cause);
		return;
	}
	snprintf(port, sizeof port, "port %d", n->port);
	doctor_set(n, DOCTOR_PORT, DOCTOR_PASS, "node 0 can bind %s%s%s",
	    addr != NULL ? addr : "", addr != NULL ? " " : "",
	    hide ? "the training's port (secret)" : port);
}

