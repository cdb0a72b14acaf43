/* profile.h: site profiles (libconfuse files in profiles/), their search
 * path, the extends chain and validation. Keys are documented in
 * ddpgen-profile(5). */
#ifndef DDPGEN_PROFILE_H
#define DDPGEN_PROFILE_H

#include "runtime.h"
#include "scheduler.h"
#include "util.h"
#include "vocab.h"

enum profile_disc {
	PROFILE_HOSTNAME,	/* master = first node of the allocation */
	PROFILE_IFACE		/* master = address of the matching interface */
};

enum profile_shell {		/* how an HPC Pack task runs its command */
	PROFILE_SHELL_LOGIN,	/* bash -lc */
	PROFILE_SHELL_INTERACTIVE, /* bash -ic */
	PROFILE_SHELL_PLAIN,	/* bash -c, with path set explicitly */
	PROFILE_SHELL_LOGIN_INTERACTIVE /* bash -lic, the default */
};

enum profile_lsf_launch {	/* how an LSF job starts a task per node */
	PROFILE_LSF_BLAUNCH,	/* bsub -n N -R "span[ptile=1]"; blaunch */
	PROFILE_LSF_JSRUN	/* bsub -nnodes N (IBM CSM); jsrun */
};

enum profile_signal {		/* the checkpoint signal */
	PROFILE_SIG_USR2,
	PROFILE_SIG_USR1	/* NCCL installs its own USR1 handler */
};

enum profile_pbs_launch {	/* how a PBS job starts a process per node */
	PROFILE_PBS_MPIEXEC,	/* Cray PALS: mpiexec -n N --ppn 1 */
	PROFILE_PBS_PBSDSH	/* pbsdsh -n INDEX, a task per host */
};

/* Each enum's words, as profiles and options spell them, indexed by the
 * enum and ending in NULL. */
extern const char *const profile_disc_names[];
extern const char *const profile_shell_names[];
extern const char *const profile_signal_names[];
extern const char *const profile_pbs_launch_names[];
extern const char *const profile_lsf_launch_names[];

/* A resolved profile: every string is owned and never NULL ("" = unset). */
struct profile {
	char		*name;		/* site name, or the path given */
	char		*path;		/* the file named by the user */
	struct strlist	 chain;		/* every file loaded, base first */

	char		*description;
	enum sched_id	 scheduler;	/* one of gen_names() (gen.h) */
	enum profile_disc discovery;
	char		*iface;		/* PCRE2 pattern, checked at load */
	char		*comm_iface;	/* Gloo's and NCCL's; "" = iface's */
	int		 gpus_per_node;	/* 0: request none (CPU runs) */
	int		 nproc_per_node; /* 0: one per GPU, 1 without GPUs */

	/* Scheduler requests. */
	char		*job_name;
	char		*job_output;	/* Slurm --output pattern */
	char		*partition;
	char		*account;
	char		*qos;
	char		*constraint;
	char		*time;		/* Slurm time format, "" = unset */
	int		 cpus_per_task;	/* 0: unset */
	struct strlist	 sbatch_extra;	/* one sbatch option per item */
	int		 label_output;	/* Slurm: srun --label */

	struct strlist	 env;		/* NAME=VALUE, exported */
	struct strlist	 env_default;	/* NAME=VALUE, exported when unset */
	struct strlist	 setup;		/* shell lines, code by design */
	char		*setup_at;	/* "FILE:LINE: " of the file that set
					 * setup last, for messages; "" */
	struct strlist	 launcher;	/* argv prefix, e.g. {"torchrun"} */
	struct strlist	 launcher_args;	/* after the launcher's own options */

	int		 port;		/* 0: derived from the job id */
	int		 port_min;	/* range for derived ports */
	int		 port_max;
	enum rdzv	 rdzv;
	char		*template;	/* name in the template path, or a path */
	char		*ddprank;	/* ddprank on the nodes; "" = resolve */
	int		 preflight;	/* ddprank doctor before training */
	int		 preflight_torch; /* ...with --deep: import torch */

	/* Where each local rank runs (ddprank(1), BINDING). */
	enum bind_policy bind;
	char		*bind_reserve;	/* CPU list the site keeps, "" none */
	char		*bind_nic_var;	/* variable for the rank's NIC, "" */

	/* Containers (runtime.h). */
	enum runtime_id	 container;	/* RT_NONE: bare nodes */
	char		*image;
	struct strlist	 container_mounts; /* "SRC" or "SRC:DST" */
	struct strlist	 container_args;	/* the runtime's own options */
	struct strlist	 container_modules; /* Shifter, podman-hpc modules */

	/* HPC Pack. */
	char		*node_group;
	char		*shared_dir;
	enum profile_shell task_shell;
	char		*path_env;	/* explicit PATH for tasks, "" = none */
	int		 exclusive;
	int		 c10d_shared;	/* c10d allowed on shared nodes */
	int		 fail_on_task_failure;
	int		 exchange_timeout; /* seconds */

	/* Long trainings (Slurm): ddpgen(1), LONG TRAININGS. */
	int		 requeue;	/* signal, checkpoint, requeue */
	int		 signal_lead;	/* seconds before the time limit */
	enum profile_signal checkpoint_signal;
	int		 max_requeues;	/* time-limit requeues */
	int		 max_restarts;	/* torchrun --max-restarts; 0 unset */

	/* Hangs and bad nodes: ddpgen(1), HANGS AND BAD NODES. */
	int		 hang_timeout;	/* the stall limit, s; 0: off */
	char		*hang_dir;	/* job directories; "": the state
					   directory's */
	int		 max_failures;	/* reruns after a stall or a
					   preflight failure */
	int		 bad_node_hours; /* how long one is left out */

	/* PBS Pro. */
	char		*filesystems;	/* -l filesystems=, "" = none */
	char		*pbs_select;	/* more resources of each chunk */
	enum profile_pbs_launch pbs_launcher;
	/* LSF. */
	enum profile_lsf_launch lsf_launcher;
};

/* One site found along the search path, for --list-sites. */
struct profile_site {
	char	*name;
	char	*description;
	char	*path;
	const char *scheduler;	/* its name, static; "?" when not loaded */
};

/* The profile directories: util_searchpath's order, with
 * $DDPGEN_PROFILE_PATH and "profiles". */
void		 profile_searchpath(struct strlist *dirs,
		    const char *(*getenv_fn)(const char *), const char *exedir);

/* Loads a site: a path when site contains '/' or ends in ".conf", else
 * the first DIR/SITE.conf along dirs; then its extends chain (a name is
 * looked up along dirs, skipping files already in the chain, so a
 * user's cori.conf may extend the shipped one; a path is relative to
 * the extending file's directory). Returns NULL when anything is
 * wrong, with one "FILE:LINE: message" (or "FILE: message") line per
 * problem appended to errors: every problem of a file is reported. An
 * unknown site lists the known ones. */
struct profile	*profile_load(const char *site, const struct strlist *dirs,
		    struct strlist *errors);

/* Same from a buffer; name stands for the file in messages. */
struct profile	*profile_parse_buf(const char *name, const char *text,
		    const struct strlist *dirs, struct strlist *errors);

/* Why rdzv c10d is refused on nodes other users' jobs may share, and
 * the key that accepts the risk. */
#define PROFILE_C10D_RISK	"torch's store has no authentication and " \
	"c10d unpickles what it reads, so another user on a node can run " \
	"code in every node of the job"
#define PROFILE_C10D_KEY	"accept the risk with c10d_shared = true"

/* Checks cross-key rules after command-line overrides (iface discovery
 * needs an iface pattern that compiles, port within 1-65535 or 0, time
 * format, env names, no newline in any value that lands in an #SBATCH
 * line...). -1 + *cause ("KEY: message") on the first problem. */
int		 profile_validate(const struct profile *, char **cause);

/* Effective processes per node (applies the nproc_per_node default). */
int		 profile_nproc(const struct profile *);

/* Slurm time formats: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S, or
 * "UNLIMITED"/"INFINITE" (any case). Fields after the first are
 * bounded (S, M < 60; H < 24 after a day count). 0 if valid. Sets
 * *seconds when not NULL (-1 for unlimited, and for a total of 0,
 * which Slurm reads as no limit). */
int		 profile_parse_time(const char *, long long *seconds);

/* The rules of the env key, for command-line values: 0 when valid,
 * else -1 and, when cause is not NULL, *cause. */
int		 profile_check_env(const char *, char **cause);

/* Sets NAME=VALUE in env: an entry of the same name keeps its place and
 * takes the new value, else it is appended. So env holds one entry per
 * name, in the order names first appear. */
void		 profile_env_set(struct strlist *env, const char *item);

/* ddpgen --local: lays site's keys over local, a profile of a scheduler
 * that runs jobs on this machine: every key but those that say where a
 * job runs (ddpgen-profile(5): scheduler, description, discovery, iface,
 * comm_iface, gpus_per_node, template, ddprank, preflight,
 * preflight_torch and the binding's bind, bind_reserve and
 * bind_nic_var) and the requests of schedulers local's back-end does
 * not honour, which keep local's values. local's chain gains site's
 * files. */
void		 profile_localize(struct profile *local,
		    const struct profile *site);

/* Appends the resolved profile in profile syntax (for --show-site). */
void		 profile_dump(const struct profile *, struct buf *);

/* Every site along dirs, first occurrence of a name wins, sorted by
 * name. Unparseable files are listed with description "(error: ...)".
 * Returns the count; *out is freed with profile_sites_free. */
size_t		 profile_list(const struct strlist *dirs,
		    struct profile_site **out);
void		 profile_sites_free(struct profile_site *, size_t);

void		 profile_free(struct profile *);

#endif
