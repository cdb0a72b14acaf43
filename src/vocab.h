/* vocab.h: the words and defaults ddpgen and ddprank share, defined
 * once: the rendezvous kinds, the port range and the exchange timeout a
 * profile and ddprank's options fall back to, and the port number's
 * grammar. */
#ifndef DDPGEN_VOCAB_H
#define DDPGEN_VOCAB_H

/* The automatic port's range (ddprank --port-range, profile port_range). */
#define PORT_LO_DEFAULT		20000
#define PORT_HI_DEFAULT		29999

/* Seconds the shared-directory exchange waits for every node
 * (--exchange-timeout, profile exchange_timeout), and the most it may. */
#define EXCHANGE_TIMEOUT_DEFAULT 300
#define EXCHANGE_TIMEOUT_MAX	86400

/* torchrun's rendezvous: static (node ranks from ddprank) or c10d. */
enum rdzv {
	RDZV_STATIC,
	RDZV_C10D
};

/* The words of enum rdzv, indexed by it, NULL-ended. */
extern const char *const rdzv_names[];

/* Where each local rank runs (ddpgen --bind, profile bind, ddprank
 * --bind; bind.h): nowhere in particular, a share of the node's cores
 * by NUMA domain, or the cores, GPU and NIC closest to GPU LOCAL_RANK. */
enum bind_policy {
	BIND_NONE,
	BIND_NUMA,
	BIND_GPU
};

/* The words of enum bind_policy, indexed by it, NULL-ended. */
extern const char *const bind_names[];

/* The variable ddprank exec hands the plan to the workers' binding step
 * in (ddprank(1), BINDING). */
#define BIND_PLAN_VAR	"DDPRANK_BIND_PLAN"

/* What crosses into a container that passes no environment (podman-hpc
 * -e NAME), NULL-ended: every variable ddprank exec may set for the
 * command it runs (rank_vars with exec, restart_setenv), and those the
 * job script exports for the training (its thread count, the checkpoint
 * signal). check_rank holds rank_vars to this list. */
extern const char *const vocab_exec_vars[];

/* The index of s in names (a NULL-ended list), or -1. */
int	vocab_word(const char *const *names, const char *s);

/* A port as options and profiles spell it: "auto" (*port = 0) or a
 * decimal number from 1 to 65535. 0 when valid; else VOCAB_NAN (not a
 * number) or VOCAB_RANGE (a number out of range), each caller wording
 * the message in its own context's style. */
#define VOCAB_NAN	(-1)
#define VOCAB_RANGE	(-2)
int	vocab_port(const char *s, int *port);

/* What every message about a bad port says after the value. */
#define VOCAB_PORT_WANT	"is not auto or a number from 1 to 65535"

/* The same for --port, in both programs: -1 and *cause ("'x' is not
 * auto or a number from 1 to 65535") on anything else. */
int	vocab_port_parse(const char *s, int *port, char **cause);
/* --port-range "LO-HI" with 1 <= LO <= HI <= 65535. */
int	vocab_port_range(const char *s, int *lo, int *hi, char **cause);

#endif
