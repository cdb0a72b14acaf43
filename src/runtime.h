/* runtime.h: the container runtimes, one row each: how a runtime wraps
 * the node's command, whether it passes the environment, where ddprank
 * runs, and what the job script adds for it. nodecmd.c builds the
 * command from a row and script.c gives templates the rest; adding a
 * runtime is adding a row (src/README). */
#ifndef DDPGEN_RUNTIME_H
#define DDPGEN_RUNTIME_H

#include "util.h"

/* The profile's container key: RT_NONE first, then the rows' order. */
enum runtime_id {
	RT_NONE,
	RT_SHIFTER,
	RT_PODMAN_HPC,
	RT_APPTAINER,
	RT_PYXIS,
	RT_CHARLIECLOUD
};
#define RT_COUNT	(RT_CHARLIECLOUD + 1)

/* Where the image is named. */
enum runtime_image {
	RT_IMAGE_NONE,		/* no runtime */
	RT_IMAGE_WORD,		/* a word of the runtime's command */
	RT_IMAGE_SBATCH,	/* #SBATCH --image=IMG (Shifter) */
	RT_IMAGE_SRUN		/* srun --container-image=IMG (Pyxis) */
};

struct runtime {
	const char	*name;		/* the profile's container key */
	const char	*title;		/* for messages */
	/* The runtime's own words before its options ("podman-hpc", "run",
	 * ...), NULL-ended; NULL when ddprank runs inside (Pyxis). */
	const char *const *argv;
	/* Words for a job that asks for GPUs (NULL-ended, or NULL). */
	const char *const *gpu_args;
	/* Modules a GPU job loads, before the profile's container_modules;
	 * how modules are spelled: "--module=" joins them with commas on
	 * an #SBATCH line (Shifter), "--" makes each an option of its own
	 * (podman-hpc), NULL: the runtime has none. */
	const char *const *gpu_modules;
	const char	*module_opt;
	/* One bind mount: the option word(s) before "SRC:DST" ("-v"), or
	 * joined to it when the option ends in '=' ("--volume="). */
	const char	*mount_opt;
	/* The runtime passes no environment: each variable that must cross
	 * is named with this option ("-e NAME", which podman fills from
	 * the environment it runs in). NULL: the environment passes. */
	const char	*env_opt;
	enum runtime_image image;
	/* Between the image and the command ("--" for ch-run), or NULL. */
	const char	*command_sep;
	/* ddprank runs inside the container, from a directory mounted read
	 * only at its own path (Pyxis). */
	int		 inside;
	/* ddprank, outside, sees the workers inside: they are its
	 * descendants in its process namespace, and the node's /tmp,
	 * where their heartbeats go, is theirs (hang_timeout). */
	int		 watched;
};

/* The row of a runtime; RT_NONE's has a NULL argv and image NONE. */
const struct runtime *runtime_get(enum runtime_id);

/* The profile's words, the rows' names indexed by enum runtime_id,
 * NULL-ended: a vector filled from the rows, which hold the one copy. */
const char *const *runtime_names(void);

/* "none, shifter, ... or charliecloud", for messages; the caller frees. */
char	*runtime_names_text(void);

/* Checks one container_mounts item: "SRC" or "SRC:DST", absolute paths
 * without ',' or ':' (the runtimes' list separators). -1 + *cause. */
int	runtime_check_mount(const char *, char **cause);

/* Appends "SRC:DST" for a container_mounts item (DST = SRC when only one
 * path is given). The caller frees. */
char	*runtime_mount(const char *item);

#endif
