/* exchange.h: nodes that cannot learn each other from the scheduler
 * tell each other their addresses, through a shared directory or MPI.
 * exchange.c has the format, order and numbering (no I/O), exchange-dir.c
 * and the files that share exchange-dir.h the directory, exchange-mpi.c
 * or exchange-nompi.c MPI.
 * Functions returning enum fault give FAULT_NONE on success, and
 * otherwise a category (fault.h) and set *cause (caller frees), unless
 * they say. */
#ifndef DDPGEN_EXCHANGE_H
#define DDPGEN_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "fault.h"
#include "netif.h"
#include "vocab.h"

struct auth;
struct buf;

/* Bytes in an entry file, at most; characters in a host name, at most
 * (Linux's HOST_NAME_MAX: the name is part of a file name). */
#define EXCHANGE_ENTRY_MAX	1024
#define EXCHANGE_HOST_MAX	64
/* The version of the entry and table formats, on their first line. */
#define EXCHANGE_FORMAT		"1"
/* How long node 0 waits, at most, for the others to confirm they have
 * read the directory before removing it: short, since node 0's torchrun
 * is meanwhile not listening. */
#define EXCHANGE_CLEANUP_WAIT	30

enum exchange_method {
	EXCHANGE_NONE,
	EXCHANGE_DIR,
	EXCHANGE_MPI
};

/* Time, behind a seam so tests do not wait. */
struct exchange_clock {
	double	(*now)(void *arg);		/* seconds, monotonic */
	void	(*sleep)(void *arg, double seconds);
	void	*arg;
};

extern const struct exchange_clock exchange_clock_real;

struct exchange_opts {
	enum exchange_method		 method;
	char				*dir;	  /* dir:PATH; owned */
	int				 timeout; /* seconds */
	const struct exchange_clock	*clock;	  /* NULL: the real one */
	/* The job's secret (len 0 or NULL: none): entries are signed and
	 * checked, and the run directory's name derives from it. */
	const struct auth		*auth;
	int				 noowners; /* tests: as on cifs */
};

/* What one node publishes: its task id (-1 when it has none), its short
 * host name and its address, numeric and without a %scope. */
struct exchange_entry {
	int64_t	 task;
	char	 host[EXCHANGE_HOST_MAX + 1];
	char	 addr[NETIF_ADDRSTRLEN];
};

/* This node's side of an exchange. */
struct exchange_node {
	struct exchange_entry	 self;
	const char		*jobid;	 /* names the directory */
	int64_t			 retry;	 /* the scheduler's retry count
					    (HPC Pack's CCP_RETRY_COUNT),
					    0 when unset */
	int64_t			 task_base; /* node 0's task id, as the
					    scheduler numbers its tasks
					    (HPC Pack's: 1) */
	uint64_t		 nnodes; /* --nnodes; 0 when not given */
};

struct exchange_result {
	uint64_t	 node_rank;
	uint64_t	 nnodes;
	char		*master_addr;	/* node 0's entry address */
	int		 duplicate;	/* mpi: a lower MPI rank has this
					   node's address */
	char		*warning;	/* something to say, or NULL */
};

/* Parses --exchange: "dir:PATH" (PATH absolute) or "mpi", which fails
 * unless have_mpi (exchange_have_mpi(), which the caller asks: the MPI
 * files call this one, never the other way). Returns 0, or -1 and sets
 * *cause. Free with exchange_opts_free. */
int	exchange_parse(struct exchange_opts *, const char *spec, int have_mpi,
	    char **cause);
void	exchange_opts_free(struct exchange_opts *);
/* 1 if built with MPI. */
int	exchange_have_mpi(void);

/* The entry file format, documented in ddprank(1):
 *	ddprank-exchange 1
 *	task 2			(absent without a task id)
 *	host node2
 *	addr 10.0.0.2
 * exchange_parse_entry accepts exactly len bytes of anything and returns
 * 0, or -1 and sets *cause; it never reads past buf + len. */
void	exchange_format_entry(struct buf *, const struct exchange_entry *);
int	exchange_parse_entry(const char *buf, size_t len,
	    struct exchange_entry *, char **cause);
/* With a secret, an entry ends with a line "mac HEX": the HMAC-SHA256,
 * under the label "ddprank entry", of the run directory's name, a
 * newline, and every byte of the entry before that line.
 * exchange_sign_entry appends it to b; exchange_verify_entry checks it,
 * in constant time, within *len bytes of buf, and on success sets *len
 * to the length of what it covers (for exchange_parse_entry), or returns
 * -1 and sets *cause. Signing fails (-1, *cause) when the HMAC does:
 * nothing is then to be written. */
int	exchange_sign_entry(struct buf *b, const struct auth *,
	    const char *run, char **cause);
int	exchange_verify_entry(const char *buf, size_t *len,
	    const struct auth *, const char *run, char **cause);
/* The same under another label, for the other files of a run. */
int	exchange_sign(struct buf *b, const struct auth *, const char *label,
	    const char *run, char **cause);
int	exchange_verify(const char *buf, size_t *len, const struct auth *,
	    const char *label, const char *run, char **cause);

/* Puts v in node order: by task id when every entry has one, else by host
 * name (without regard to case), then address. Two entries with one task
 * id, or one host name without task ids, are an error (-1, *cause). */
int	exchange_order(struct exchange_entry *v, size_t n, char **cause);
/* 1 when a comes strictly before b in that order, 0 when not, -1 when
 * one has a task id and the other none. */
int	exchange_before(const struct exchange_entry *a,
	    const struct exchange_entry *b);

/* MPI's numbering, as in the seed notes: v[i] is MPI rank i's entry;
 * node ranks follow the first appearance of each address, node 0 is
 * rank 0's. Sets r for rank me (r->master_addr is a copy), or returns
 * -1 and sets *cause when one address is claimed by two host names: a
 * host name resolving to 127.0.1.1 on every node would otherwise make
 * one node of them all. */
int	exchange_number(struct exchange_result *r,
	    const struct exchange_entry *v, size_t n, size_t me, char **cause);

/* The directory exchange in o->dir/exchange_run_name; see ddprank(1). Fills
 * r; free it with exchange_result_free whatever this returns. */
enum fault exchange_dir(struct exchange_result *r,
	    const struct exchange_opts *o, const struct exchange_node *,
	    char **cause);
/* MPI_Init, an allgather of the addresses, MPI_Finalize. */
enum fault exchange_mpi(struct exchange_result *r,
	    const struct exchange_opts *o, const struct exchange_node *,
	    char **cause);
void	exchange_result_free(struct exchange_result *);

/* The run directory's name: "JOBID-rRETRY", followed with a secret by
 * "-" and the first 32 hex digits of the HMAC-SHA256 of that under the
 * label "ddprank run", so that no one else can know it in advance.
 * Caller frees; NULL when the HMAC fails. */
char	*exchange_run_name(const struct auth *, const char *jobid,
	    int64_t retry);
/* The same under another label, after prefix: the name of another run
 * directory of the job (ddprank doctor's), which tells nothing of the
 * exchange's. */
char	*exchange_dir_name(const struct auth *, const char *label,
	    const char *prefix, const char *jobid, int64_t retry);

#endif
