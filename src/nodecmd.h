/* nodecmd.h: the command every node of a job runs, built once for every
 * template: ddprank exec and its options, the launcher with its options,
 * the training script and its arguments. Templates place it (the
 * node_command variable, and HPC Pack's task_command around it); none
 * spells it. */
#ifndef DDPGEN_NODECMD_H
#define DDPGEN_NODECMD_H

#include "util.h"

struct job;

struct nodecmd {
	struct strlist	 argv;
	/* Where a multi-line layout breaks: the launcher's first word and
	 * the training script (SIZE_MAX: nowhere). */
	size_t		 launcher;
	size_t		 script;
};

/* The words of job's node command; free with nodecmd_free. The
 * scheduler's row decides the options it needs besides (a scheduler
 * whose tasks may see only part of the node list exchanges addresses
 * in the profile's shared_dir). */
void	nodecmd_build(struct nodecmd *, const struct job *);
/* The preflight every node runs first (profile key preflight): ddprank
 * doctor with the same interface, port and launcher; where tasks may see
 * only part of the list, through the shared directory, else with --gpus
 * when the job asks for GPUs. One line. */
void	nodecmd_doctor(struct nodecmd *, const struct job *);
void	nodecmd_free(struct nodecmd *);

/* The command as shell code for the job's scheduler (its row's cmd_*
 * fields): ddprank as the row says, and either one line of
 * quote_sh_line words, or quote_sh words with a line break (" \",
 * newline, tab) before the launcher and before the script. */
void	nodecmd_sh(struct buf *, const struct nodecmd *, const struct job *);

#endif
