/* vocab.c: the words ddpgen and ddprank share (vocab.h). */
#include "config.h"

#include <string.h>

#include "util.h"
#include "vocab.h"

const char *const rdzv_names[] = {
	[RDZV_STATIC] = "static", [RDZV_C10D] = "c10d", NULL
};

const char *const bind_names[] = {
	[BIND_NONE] = "none", [BIND_NUMA] = "numa", [BIND_GPU] = "gpu", NULL
};

const char *const vocab_exec_vars[] = {
	"NODE_RANK", "NNODES", "MASTER_ADDR", "MASTER_PORT",
	"GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME",
	"PET_NNODES", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT",
	"PET_RDZV_BACKEND", "PET_RDZV_ENDPOINT", "PET_RDZV_ID",
	"PET_RDZV_CONF", "PET_LOCAL_ADDR",
	"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
	"DDPGEN_RESTART_COUNT", "DDPGEN_LAST_STOP",
	"DDPGEN_CHECKPOINT_SIGNAL", "OMP_NUM_THREADS", NULL
};

int
vocab_word(const char *const *names, const char *s)
{
	int	i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

int
vocab_port(const char *s, int *port)
{
	long long	v;

	if (strcmp(s, "auto") == 0) {
		*port = 0;
		return 0;
	}
	if (*s == '\0' || strspn(s, "0123456789") != strlen(s))
		return VOCAB_NAN;
	if (util_strtonum(s, 1, 65535, &v) == -1)
		return VOCAB_RANGE;
	*port = (int)v;
	return 0;
}

int
vocab_port_parse(const char *s, int *port, char **cause)
{
	if (vocab_port(s, port) != 0)
		return util_fail(cause, "'%s' " VOCAB_PORT_WANT, s);
	return 0;
}

int
vocab_port_range(const char *s, int *lo, int *hi, char **cause)
{
	const char	*dash;
	char		 low[8];
	long long	 a, b;
	size_t		 n;

	if ((dash = strchr(s, '-')) == NULL || (n = (size_t)(dash - s)) == 0 ||
	    n >= sizeof low)
		goto bad;
	memcpy(low, s, n);
	low[n] = '\0';
	if (util_strtonum(low, 1, 65535, &a) == -1 ||
	    util_strtonum(dash + 1, 1, 65535, &b) == -1 || a > b)
		goto bad;
	*lo = (int)a;
	*hi = (int)b;
	return 0;
bad:
	return util_fail(cause, "bad port range '%s': expected LO-HI with "
	    "1 <= LO <= HI <= 65535", s);
}
