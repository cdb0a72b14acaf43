/* fuzz_nodes.c: libFuzzer target for the node lists ddprank reads:
 * Slurm's variables, CCP_NODES, a PBS node file, LSB_MCPU_HOSTS and a
 * hostfile, with the job id variables, through the nodes module's
 * environment seam; then the same environment through rank_compute with
 * fake interfaces and resolver, and the result through the sh and JSON
 * formats. No network, no real environment.
 *
 * Input: byte 0 picks the scheduler option and where the list goes,
 * byte 1 the ddprank options; the rest is split at NUL bytes into the
 * values of fields[] in order (missing ones are unset). */
#include "config.h"

#include <sys/socket.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostlist.h"
#include "netif.h"
#include "nodes.h"
#include "rank.h"
#include "rx.h"
#include "util.h"

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

enum { F_LIST, F_HOSTNAME, F_MASTER_ADDR };

/* Field 0 is the list; where it goes depends on byte 0. */
static const char *const fields[] = {
	"(list)", "(hostname)", "MASTER_ADDR", "SLURM_NODEID",
	"SLURMD_NODENAME", "SLURM_JOB_ID", "SLURM_ARRAY_TASK_ID",
	"SLURM_STEP_ID", "SLURM_STEPID", "CCP_JOBID", "PBS_JOBID",
	"PBS_ARRAYID", "PBS_ARRAY_INDEX", "LSB_JOBID", "LSB_JOBINDEX",
	"CCP_TASKID", "CCP_RETRY_COUNT"
};
#define NFIELDS	(sizeof fields / sizeof fields[0])

static const char *const listvars[] = {
	"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "CCP_NODES",
	"PBS_NODEFILE", "LSB_MCPU_HOSTS", NULL /* --hostfile */
};

struct input {
	const char	*v[NFIELDS];
	const char	*listvar;	/* NULL: the list is a hostfile */
};

static char	 path[4096];		/* the node file */
static struct rx iface_rx;

static void
cleanup(void)
{
	unlink(path);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char	*tmp = getenv("TMPDIR");
	char		*cause;
	int		 fd;

	(void)argc;
	(void)argv;
	snprintf(path, sizeof path, "%s/fuzz_nodes.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if ((fd = mkstemp(path)) == -1)
		abort();
	close(fd);
	atexit(cleanup);
	if (rx_compile(&iface_rx, "^eth", &cause) == -1)
		abort();
	return 0;
}

static const char *
env_get(void *arg, const char *name)
{
	const struct input	*in = arg;
	size_t			 i;

	if (in->listvar != NULL && strcmp(name, in->listvar) == 0)
		return strcmp(name, "PBS_NODEFILE") == 0 ? path : in->v[F_LIST];
	for (i = F_MASTER_ADDR; i < NFIELDS; i++) {
		if (strcmp(name, fields[i]) == 0)
			return in->v[i];
	}
	return NULL;
}

static int
fake_ifaddrs(void *arg, struct netif_list *l, char **cause)
{
	(void)arg;
	(void)cause;
	netif_list_add(l, "lo", 1, "127.0.0.1", 8);
	netif_list_add(l, "eth0", 1, "10.0.0.1", 24);
	netif_list_add(l, "eth0", 1, "fe80::1", 64);
	netif_list_add(l, "eth1", 0, "192.0.2.1", 24);
	netif_list_add(l, "ib0", 1, NULL, 0);
	return 0;
}

static int
fake_hostname(void *arg, char *buf, size_t len, char **cause)
{
	const struct input	*in = arg;
	const char		*h = in->v[F_HOSTNAME];

	if (h == NULL)
		return util_fail(cause, "gethostname: no name");
	snprintf(buf, len, "%s", h);
	return 0;
}

/* Names starting with 'x' do not resolve; "me..." is this node; others
 * get an address derived from the name, sometimes the loopback one. */
static int
fake_resolve(void *arg, const char *host, struct netif_addrs *addrs,
    char **cause)
{
	struct netif_addr	a;
	unsigned int		h = 0;
	const char		*p;
	char			s[32];

	(void)arg;
	if (host[0] == 'x')
		return util_fail(cause, "%s: Name or service not known", host);
	for (p = host; *p != '\0'; p++)
		h = h * 31 + (unsigned char)*p;
	if (strncmp(host, "me", 2) == 0)
		h = 1;
	snprintf(s, sizeof s, h % 7 == 0 ? "127.0.1.1" : "10.0.%u.%u",
	    (h >> 8) % 2, h % 250 + 1);
	if (netif_addr_parse(&a, s) == -1)
		abort();
	netif_addrs_add(addrs, &a);
	return 0;
}

static void
check_nodes(const struct nodes *n, const struct nodes_env *env,
    const struct input *in)
{
	struct nodes_job job;
	char		name[HOSTLIST_NAME_MAX + 1], *s, *cause = NULL;
	uint64_t	count = hostlist_count(n->list), i;
	int64_t		j;

	if (count == 0)
		abort();
	for (i = 0; i < count && i < 16; i++) {
		if (hostlist_nth(n->list, i, name, sizeof name) < 0)
			abort();
		j = nodes_find(n, name);
		if (j < 0 || (uint64_t)j > i)
			abort();
	}
	if (in->v[F_HOSTNAME] != NULL)
		(void)nodes_find(n, in->v[F_HOSTNAME]);
	s = nodes_describe(n);
	free(s);
	/* The job id is read apart from the list, for the same scheduler. */
	if (nodes_job(&job, env, n->sched, &cause) == 0) {
		s = nodes_job_string(&job);
		if ((s == NULL) != !job.set)
			abort();
		free(s);
	} else if (cause == NULL)
		abort();
	else
		free(cause);
}

static void
check_rank(const struct input *in, const struct rank_opts *o, int json,
    int c10d)
{
	struct netif_sys	 sys = { fake_ifaddrs, fake_hostname,
				     fake_resolve, NULL };
	struct nodes_env	 env = { env_get, NULL };
	struct rank_vars	 vs;
	struct rank		 r;
	struct buf		 b;
	char			*cause = NULL;
	int			 xc;

	sys.arg = env.arg = (void *)in;
	xc = rank_compute(&r, o, &env, &sys, &cause);
	if (xc != 0) {
		if (cause == NULL)
			abort();
		free(cause);
		rank_free(&r);
		return;
	}
	if (r.node_rank >= r.nnodes || r.master_addr == NULL)
		abort();
	rank_vars(&vs, &r, 1, c10d ? RDZV_C10D : RDZV_STATIC);
	buf_init(&b);
	if (json)
		rank_format_json(&b, &vs);
	else
		rank_format_sh(&b, &vs);
	if (strlen(b.s) != b.len)
		abort();
	buf_free(&b);
	rank_vars_free(&vs);
	rank_free(&r);
}

static int
write_file(const char *s)
{
	size_t	len = strlen(s);
	int	fd;

	if ((fd = open(path, O_WRONLY | O_TRUNC)) == -1)
		return -1;
	if (write(fd, s, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum sched_id scheds[] = {
		SCHED_AUTO, SCHED_SLURM, SCHED_HPCPACK, SCHED_PBS, SCHED_LSF,
		SCHED_HOSTFILE
	};
	struct nodes_env	 env = { env_get, NULL };
	struct rank_opts	 o;
	struct input		 in;
	struct nodes		 n;
	char			*s, *p, *end, *cause = NULL;
	size_t			 i;

	if (size < 2)
		return 0;
	if ((s = malloc(size - 1)) == NULL)
		return 0;
	memcpy(s, data + 2, size - 2);
	s[size - 2] = '\0';
	memset(&in, 0, sizeof in);
	end = s + size - 2;
	for (p = s, i = 0; i < NFIELDS && p <= end; i++) {
		in.v[i] = p;
		p += strlen(p) + 1;
	}
	/* A variable set to "" counts as unset; the seam need not care. */
	in.listvar = listvars[(data[0] / 6) % 6];
	memset(&o, 0, sizeof o);
	o.sched = scheds[data[0] % 6];
	if (in.v[F_LIST] != NULL && (in.listvar == NULL ||
	    strcmp(in.listvar, "PBS_NODEFILE") == 0) &&
	    write_file(in.v[F_LIST]) == -1)
		abort();
	if (in.listvar == NULL)
		o.hostfile = path;
	env.arg = &in;
	if (nodes_load(&n, &env, o.sched, o.hostfile, &cause) == 0) {
		check_nodes(&n, &env, &in);
		nodes_free(&n);
	} else {
		if (cause == NULL)
			abort();
		free(cause);
	}
	if (data[1] & 1) {
		o.rx = &iface_rx;
		o.iface = "^eth";
	}
	o.port = data[1] & 2 ? 29500 : 0;
	o.lo = 20000;
	o.hi = data[1] & 4 ? 20000 : 29999;
	o.nnodes = (data[1] >> 5) & 3;
	check_rank(&in, &o, data[1] & 8, data[1] & 16);
	free(s);
	return 0;
}
