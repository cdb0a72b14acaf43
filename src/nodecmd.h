/* nodecmd.h: the command every node of a job runs, built once for every
 * template: ddprank exec and its options, the launcher with its options,
 * the training script and its arguments, inside the container
 * runtime's command when ddprank runs outside it. Templates place it (the
 * node_command variable, and HPC Pack's task_command around it); none
 * spells it. */
#ifndef DDPGEN_NODECMD_H
#define DDPGEN_NODECMD_H

#include "util.h"

struct gen;
struct job;

/* The most words of a node command that are shell code, not a value. */
#define NODECMD_RAW_MAX	4

struct nodecmd {
	struct strlist	 argv;
	/* The words written as they are, shell code that expands when the
	 * job runs (the processes per node a job counts then:
	 * "$ddpgen_nproc"), by index into argv. */
	size_t		 raw[NODECMD_RAW_MAX];
	size_t		 nraw;
	/* Where a multi-line layout breaks: the container runtime's first
	 * word, the launcher's and the training script (SIZE_MAX:
	 * nowhere). */
	size_t		 runtime;
	size_t		 launcher;
	size_t		 script;
};

/* The words of job's node command; free with nodecmd_free. The
 * scheduler's row decides the options it needs besides (a scheduler
 * whose tasks may see only part of the node list exchanges addresses
 * in the profile's shared_dir); the container runtime's row, whether
 * ddprank execs the runtime, and the runtime's words (runtime.h). */
void	nodecmd_build(struct nodecmd *, const struct job *);
/* The preflight every node runs first (profile key preflight): ddprank
 * doctor with the same interface, port and launcher; where tasks may see
 * only part of the list, through the shared directory, else with --gpus
 * when the job asks for GPUs. Where ddprank runs outside a container,
 * the launcher it checks for is the runtime. One line. */
void	nodecmd_doctor(struct nodecmd *, const struct job *);
void	nodecmd_free(struct nodecmd *);

/* The container's srun options, for a runtime that starts the step's
 * tasks inside it (Pyxis): the image, ddprank's directory mounted read
 * only and the profile's mounts, the profile's container_args. An empty
 * list otherwise. */
void	nodecmd_srun_container(struct strlist *, const struct job *);

/* The command as shell code laid out as back-end g says (its
 * cmd_ddprank and GEN_ONE_LINE): ddprank as the row says, and either one
 * line of quote_sh_line words, or quote_sh words with a line break
 * (" \", newline, tab) before the launcher and before the script. */
void	nodecmd_sh(struct buf *, const struct nodecmd *, const struct gen *);

#endif
