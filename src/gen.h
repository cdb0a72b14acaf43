/* gen.h: ddpgen's back-ends, one row each (struct gen) for every
 * scheduler it writes jobs for, as tmux has one cmd_entry per command:
 * the job's formats, what the scheduler can do (flags), the profile keys
 * its jobs honour, the template filters its directive lines need, and
 * hooks that fill the template variables in the scheduler's own form and
 * check a job. All that is particular to one scheduler on ddpgen's side
 * is its gen-NAME.c; job.c and script.c call the hooks, profile.c reads
 * the keys and calls check. ddprank's side of the same scheduler is its row of
 * scheduler.c (struct sched), which the row names. */
#ifndef DDPGEN_GEN_H
#define DDPGEN_GEN_H

#include <stddef.h>

#include "scheduler.h"
#include "tmpl.h"

struct buf;
struct job;
struct profile;

/* An output format of ddpgen: the template extension it selects. */
struct gen_format {
	const char	*name;		/* --format */
	enum tmpl_ctx	 ctx;		/* its template's, and so its extension */
};

/* What a scheduler can do; a row's flags. */
#define GEN_WARN_SIGNAL	0x01	/* signals a job before its time limit */
#define GEN_ENV_PASS	0x02	/* -e NAME: the job takes NAME from the
				   submitting shell */
#define GEN_ENV_SCRIPT	0x04	/* the job is a shell script, which exports
				   each env_default entry the job lacks;
				   else they join env */
#define GEN_ENV_IN_TASK	0x08	/* job variables are set before the task
				   shell's startup files run: a value with
				   $NAME is exported by the task instead */
#define GEN_ONE_LINE	0x10	/* the node command is one line without
				   ';' (HPC Pack's job variables), not a
				   line each for ddprank, the launcher and
				   the script */
#define GEN_HOLD_ONE	0x20	/* exclusive holds the node of a one-node
				   job too (else only from two nodes on) */
#define GEN_NAME_SCHED	0x40	/* the node command names the scheduler
				   (ddprank exec --scheduler NAME): its
				   variables may be set beside another
				   scheduler's, which detection would take
				   first (a local job inside an allocation) */
#define GEN_NPROC_RUN	0x80	/* the job counts its processes per node
				   when it runs, in the shell variable
				   ddpgen_nproc, unless nproc_per_node or
				   gpus_per_node gives the count */
#define GEN_NO_PREFLIGHT 0x100	/* runs no preflight: the profile's
				   preflight defaults to false (its check
				   hook refuses true) */
#define GEN_LEAVES_OUT	0x200	/* with requeue, reruns a job whose
				   training stalled or whose preflight
				   failed without the nodes ddprank verdict
				   blames, and its next scripts leave out
				   the nodes remembered as bad (ddpgen(1),
				   HANGS AND BAD NODES) */

/* A problem found in a profile: the key and one line about it. */
typedef void	gen_problem_fn(void *arg, const char *key, const char *msg);

struct gen {
	enum sched_id	 sched;		/* its row in scheduler.c: name,
					   title */
	const char	*submit;	/* "sbatch": how a job is submitted,
					   for messages */
	const char	*tmpl;		/* the default template */
	const struct gen_format *formats; /* the default first */
	size_t		 nformats;
	int		 flags;		/* GEN_* */
	/* How the templates name ddprank in the node command: this shell
	 * code (the job checks it into $DDPRANK first), or NULL for its
	 * path. */
	const char	*cmd_ddprank;
	/* The profile keys its jobs honour of those that are some
	 * schedulers' only (profile-key.c's schema marks them), NULL-ended; one
	 * of the others, set to other than its default, is refused, one
	 * policy for every scheduler. */
	const char *const *keys;
	/* The container images it can place beyond a word of the node
	 * command (a bit per enum runtime_image: #SBATCH, srun's). */
	int		 images;
	/* Filters its templates may use beside tmpl.c's own (the quoting
	 * of its directive lines), ending in a row without a name; NULL for
	 * none. */
	const struct tmpl_filter *filters;

	/* Fills the template variables of this scheduler's jobs: the common
	 * ones in its own form (time, output, exclusive; ddpgen(1), TEMPLATE
	 * VARIABLES) and its own. */
	void		(*vars)(struct tmpl_vars *, const struct job *);
	/* The profile's rules for this scheduler, each problem through fn;
	 * NULL for none. */
	void		(*check)(const struct profile *, gen_problem_fn *fn,
			    void *arg);
	/* The resolved job against the scheduler's limits, with the
	 * template at tpath, before anything is rendered; then the
	 * rendered job. -1 + *cause; NULL for none. */
	int		(*check_job)(const struct job *, const char *tpath,
			    char **cause);
	int		(*check_output)(const char *tpath,
			    const struct buf *out, char **cause);

	/* ddpgen --check: the submit command's dry run, which asks the
	 * scheduler whether it takes the job without queueing it, the
	 * job's path appended (sbatch --test-only), NULL-ended; and the
	 * words of its answer after which its guess of the start time
	 * follows. NULL: it has none. */
	const char *const *dry_run;
	const char	*dry_run_start;
	/* The words of its answer when the scheduler refuses the job; any
	 * other failure is the dry run's own (no configuration, no
	 * controller), which checks nothing. */
	const char	*dry_run_refused;
};

/* The back-ends, each in its gen-NAME.c. */
extern const struct gen gen_slurm;
extern const struct gen gen_hpcpack;
extern const struct gen gen_flux;
extern const struct gen gen_pbs;
extern const struct gen gen_lsf;
extern const struct gen gen_local;

/* The names of the schedulers ddpgen generates jobs for, in enum order
 * from SCHED_GEN_FIRST, NULL-ended (the profile's scheduler key): a
 * vector filled from the rows' scheduler rows, which hold the names. */
const char *const *gen_names(void);

/* The row of the scheduler s, or NULL when ddpgen writes no jobs for it. */
const struct gen *gen_get(enum sched_id s);

/* Whether the job of profile p counts its processes per node when it
 * runs (GEN_NPROC_RUN, and neither key gives the count): its node
 * command then says "$ddpgen_nproc". */
int		 gen_nproc_at_run(const struct profile *p);

/* Whether jobs of s honour the profile key of that name (one of those
 * the schema marks as some schedulers' only). */
int		 gen_honours(enum sched_id s, const char *key);

/* "a, b and c" of the keys s honours, or "none". Caller frees. */
char		*gen_keys_text(enum sched_id s);

/* The nodes the job leaves out (job->exclude, the bad nodes
 * remembered) that are host names, each between pre and post, sep
 * between them, for a scheduler's exclusion; *n gets their count. A
 * name of other characters is left out of it: no scheduler's syntax
 * could hold it. Caller frees. */
char		*gen_exclusion(const struct job *job, const char *pre,
		    const char *post, const char *sep, size_t *n);

/* "A and B" of the titles of the schedulers whose jobs take variables
 * from the submitting shell (GEN_ENV_PASS). Caller frees. */
char		*gen_env_pass_text(void);

/* "a or b" of the names of the schedulers that can place images of the
 * kind image (enum runtime_image). Caller frees. */
char		*gen_images_text(int image);

/* The format named name, and the scheduler it belongs to; NULL when no
 * scheduler has it. */
const struct gen_format *gen_format(const char *name, enum sched_id *);

/* "a, b or c" of the formats of s, or of every scheduler when s is
 * SCHED_AUTO. Caller frees. */
char		*gen_formats_text(enum sched_id s);

#endif
