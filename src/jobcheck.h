/* jobcheck.h: ddpgen --check, what can be checked of a generated job
 * before it is queued (ddpgen(1), CHECKING A JOB): the job its "Regenerate
 * with" line gives now against the file, the setup lines in a fresh bash,
 * the launcher, python and the container runtime on the PATH they leave,
 * the training script and the arguments that are paths, ddprank, the
 * container image, and the scheduler's own dry run where it has one.
 * Nothing here prints; ddpgen.c prints the findings, one line each. The
 * training never runs. */
#ifndef DDPGEN_JOBCHECK_H
#define DDPGEN_JOBCHECK_H

#include <stddef.h>

#include "util.h"

struct job_resolved;

enum jobcheck_level {
	JOBCHECK_PASS,
	JOBCHECK_WARN,
	JOBCHECK_FAIL
};

struct jobcheck_finding {
	enum jobcheck_level	 level;
	char			*name;		/* "setup", "launcher" ... */
	char			*detail;
};

struct jobcheck {
	struct jobcheck_finding	*v;
	size_t			 n;
};

/* The largest job file --check reads. */
#define JOBCHECK_FILE_MAX	(16u << 20)

/* Seconds the setup lines, and the scheduler's dry run, may take. */
#define JOBCHECK_TIMEOUT	120

/* The value ddpgen writes in the "Regenerate with" line for an --env
 * value (job.c), which the job itself holds. */
#define JOBCHECK_REDACTED	"<value>"

/* "PASS", "WARN" or "FAIL". */
const char	*jobcheck_level_name(enum jobcheck_level);

/* The words of the "Regenerate with" line of text, a shell job ddpgen
 * wrote: the comment line ending in "Regenerate with:", then "#   " and
 * the command as quote_sh words (quote_sh_unquote), ddpgen first. -1 +
 * *cause when there is none or it does not read back. */
int		 jobcheck_command(const char *text, struct strlist *argv,
		    char **cause);

/*
 * Compares text, the job as the file holds it, with regen, the job its
 * "Regenerate with" line gives now, line by line. A line of regen
 * "export NAME='<value>'" (an --env value, which the line does not
 * repeat) matches text's line "export NAME=..." there, which is appended
 * to subst. Returns 0 when they match, else the first line (from 1)
 * that differs; subst then holds what matched before it.
 */
size_t		 jobcheck_compare(const char *text, const char *regen,
		    struct strlist *subst);

/* The bash program that applies env, the job's environment as shell code
 * (script_shell_env), with each line "export NAME='<value>'" replaced by
 * subst's line for NAME, or left out and its NAME appended to unknown;
 * then tells, each on a line of its own after a \036 byte, its working
 * directory ("pwd DIR") and where each of its positional parameters is
 * on PATH ("found PATH" or "missing"); or, when a command ends the
 * shell, its line as the ERR and DEBUG traps saw it (0 when they did
 * not), and its status ("failed ERRLINE LINE STATUS"). Caller frees. */
char		*jobcheck_program(const char *env, const struct strlist *subst,
		    struct strlist *unknown);

/* Checks the job r resolves to, whose file, at path file, holds text
 * and whose rendering now is regen, into c. Runs bash and the
 * scheduler's dry run, in the current directory and environment. */
void		 jobcheck_run(struct jobcheck *c, const struct job_resolved *r,
		    const char *file, const char *text,
		    const struct buf *regen);

/* Whether a finding failed. */
int		 jobcheck_failed(const struct jobcheck *);
void		 jobcheck_free(struct jobcheck *);

#endif
