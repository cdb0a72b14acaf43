/* nodes.h: where ddprank's node list and job id come from: Slurm, HPC
 * Pack, PBS/Torque, LSF or a hostfile, read through an environment seam. */
#ifndef DDPGEN_NODES_H
#define DDPGEN_NODES_H

#include <stdint.h>

#include "scheduler.h"

struct hostlist;

/* The environment, as a getenv-like callback so tests can feed it. A
 * variable that is unset or empty counts as absent everywhere. */
struct nodes_env {
	const char	*(*get)(void *arg, const char *name);
	void		*arg;
};

/* The process environment (getenv). */
extern const struct nodes_env nodes_env_real;

/* The value of name, or NULL when it is unset or empty (or name is
 * NULL). */
const char	*nodes_var(const struct nodes_env *, const char *name);
/* Sets *out from name when it is set, leaving it alone otherwise; a
 * value that is not a number from min to INT64_MAX is an error (-1 and
 * *cause, which the caller frees). */
int		 nodes_var_num(int64_t *out, const struct nodes_env *,
		    const char *name, long long min, char **cause);

/* The job's identity, the same on every node of the job. */
struct nodes_job {
	int		 set;		/* 0: no job id was found */
	uint64_t	 id;		/* numeric job id */
	uint64_t	 port_id;	/* the id the port derives from: id,
					   or the row's port_job_var's */
	int64_t		 task;		/* array task, -1 when absent */
	int64_t		 step;		/* Slurm step, -1 when absent */
	const char	*var;		/* variable the id came from */
};

struct nodes {
	enum sched_id	 sched;
	struct hostlist		*list;
	char			*text;	 /* the list as given, for messages */
	char			*source; /* "SLURM_JOB_NODELIST", "hostfile F" */
	int64_t			 nodeid; /* the scheduler's index of this
					    node in list (SLURM_NODEID), or
					    -1 when it does not say */
	char			*selfname; /* the scheduler's name for this
					      node (SLURMD_NODENAME), or NULL */
};

/* The scheduler sched stands for, given hostfile, the --hostfile
 * argument or NULL: sched itself unless it is SCHED_AUTO; else
 * SCHED_HOSTFILE with a hostfile; else the first, in the scheduler
 * table's order, one of whose node list variables is set, or SCHED_AUTO
 * when none is. The node list and the job id both follow it, with or without a
 * list to read, so that every subcommand takes the same job id. */
enum sched_id nodes_sched_resolve(const struct nodes_env *,
		    enum sched_id sched, const char *hostfile);

/* Fills n from the scheduler nodes_sched_resolve gives, n->sched; a
 * hostfile conflicts with any other than SCHED_AUTO and SCHED_HOSTFILE.
 * The job id is not read: ddprank hosts has no use for it, and callers
 * that do pass n->sched to nodes_job. Returns -1 and sets *cause (caller
 * frees) when there is no list or it is malformed, leaving nothing in n
 * to free; on success free n with nodes_free. */
int		 nodes_load(struct nodes *n, const struct nodes_env *,
		    enum sched_id sched, const char *hostfile,
		    char **cause);
void		 nodes_free(struct nodes *);

/* The job id of scheduler sched, as nodes_sched_resolve gives it
 * (SCHED_AUTO and SCHED_HOSTFILE: the first, in table order, whose
 * job_var is set), read through its row. No job id is not an error
 * (job->set is 0); a malformed one is. */
int		 nodes_job(struct nodes_job *job, const struct nodes_env *,
		    enum sched_id sched, char **cause);

/* The job id as a rendezvous id: "ID", "ID_TASK", "ID.STEP" or
 * "ID_TASK.STEP". Caller frees; NULL when job->set is 0. */
char		*nodes_job_string(const struct nodes_job *);

/* Index of name in the list, or -1: names compare up to their first
 * dot, and HPC Pack's without regard to case. */
int64_t		 nodes_find(const struct nodes *, const char *name);

/* "'nid[01-04]' (from SLURM_JOB_NODELIST)", shortened when long, for
 * messages. Caller frees. */
char		*nodes_describe(const struct nodes *);

#endif
