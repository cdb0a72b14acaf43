/* launcher.h: the launchers, one row each: how ddpgen spells the program
 * each node (or each task) runs, which variables and flags ddprank exec
 * gives it at run time, whether it runs once per node or once per
 * process, and which schedulers allow it. The profile's launcher key and
 * ddpgen's --launcher name a row, as do ddprank's --launcher; adding a
 * launcher is adding a row. */
#ifndef DDPGEN_LAUNCHER_H
#define DDPGEN_LAUNCHER_H

#include <stddef.h>

#include "scheduler.h"
#include "util.h"

enum launcher_id {
	LAUNCHER_TORCHRUN,
	LAUNCHER_SRUN,
	LAUNCHER_DEEPSPEED,
	LAUNCHER_ACCELERATE
};
#define LAUNCHER_COUNT	(LAUNCHER_ACCELERATE + 1)

/* What ddprank exec exports besides NODE_RANK, NNODES, MASTER_ADDR,
 * MASTER_PORT and the socket interface names: torchrun's PET_*, or what
 * torchrun would have given a worker (RANK, LOCAL_RANK, WORLD_SIZE,
 * LOCAL_WORLD_SIZE, GROUP_RANK), or nothing (the flags carry it). */
enum launcher_vars {
	LAUNCHER_VARS_PET,
	LAUNCHER_VARS_WORKER,
	LAUNCHER_VARS_NONE
};

/* A value only the node knows, which ddprank exec spells into a flag. */
enum launcher_val {
	LAUNCHER_VAL_NONE,	/* a flag alone */
	LAUNCHER_VAL_NODE_RANK,
	LAUNCHER_VAL_NNODES,
	LAUNCHER_VAL_ADDR,
	LAUNCHER_VAL_PORT,
	LAUNCHER_VAL_PROCS,	/* nodes times processes per node */
	LAUNCHER_VAL_HOSTFILE	/* a file naming every node */
};

struct launcher_flag {
	const char		*flag;	/* "--node_rank": "--node_rank=V" */
	enum launcher_val	 val;
};

struct launcher {
	const char	*name;		/* the profile's and --launcher's word */
	/* The program words when the launcher key is the name alone. */
	const char *const *program;
	/* The words of the program before its options: ddprank exec puts
	 * its flags after them (accelerate's "accelerate launch"). */
	size_t		 words;
	/* ddpgen: the flags of the processes per node and of
	 * max_restarts ("--flag=N"; NULL: none), and flags that come
	 * unless the launcher's words or arguments give one of alt. */
	const char	*nproc_flag;
	const char	*restarts_flag;
	const char *const *fixed;
	const char *const *alt;
	/* For the binding (ddpgen --bind): the flag that makes the launcher
	 * run its script operand as a program rather than through python
	 * (the workers' binding step is one), the flag that keeps it from
	 * putting --local_rank=N before the script's arguments (the step
	 * puts it back after the script), and the flags that run a module
	 * instead of a script, which the step cannot; NULL: none. */
	const char	*no_python;
	const char	*no_local_rank;
	const char *const *module;
	/* ddprank exec: the run-time flags, after the first words words. */
	const struct launcher_flag *flags;
	enum launcher_vars vars;
	/* One task per process (srun-direct) rather than one per node. */
	int		 per_process;
	/* The one scheduler that can start it (SCHED_AUTO: any). */
	enum sched_id	 sched;
	int		 rdzv;		/* torchrun's --rdzv applies */
};

/* The rows' names in enum order, NULL-ended: a vector filled from the
 * rows, which hold the one copy. */
const char *const *launcher_names(void);

const struct launcher *launcher_get(enum launcher_id);

/* The row a launcher word names: the name of a row, or a path or
 * program whose last component is one ("/opt/venv/bin/deepspeed");
 * any other program ("python3", "/opt/bin/torchrun-wrapper") is
 * torchrun-compatible, as it always was. */
enum launcher_id launcher_find(const char *word);

/* The program of profile launcher words l (l->n > 0), appended to out:
 * where the row's name is no program (srun) the words after it, else
 * the row's program (python3); else l, completed to the row's first
 * words ("accelerate" alone: "accelerate launch"). */
void	 launcher_program(struct strlist *out, const struct strlist *l);

/* The program ddprank doctor checks for word: a row's own name gives
 * its program's first word (srun: python3), anything else itself. */
const char *launcher_doctor_program(const char *word);

/* What ddprank exec knows at run time, for the flags. */
struct launcher_run {
	unsigned long long node_rank, nnodes, nproc;
	const char	*addr;
	int		 port;
	const char	*hostfile;
};

/* argv with the row's run-time flags after its first words words, which
 * start at argv[at] (the words before are a container runtime's), in out
 * (which owns its copies). -1 and *cause when argv is too short. */
int	 launcher_argv(struct strlist *out, const struct launcher *,
	    char *const *argv, size_t argc, size_t at,
	    const struct launcher_run *, char **cause);

/* "a, b, c or d" of the names. Caller frees. */
char	*launcher_names_text(void);

#endif
