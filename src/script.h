/* script.h: turns a resolved profile and the command line into template
 * variables (those of every job; a back-end adds its own: gen.h), finds
 * templates and renders the job script. */
#ifndef DDPGEN_SCRIPT_H
#define DDPGEN_SCRIPT_H

#include "profile.h"
#include "tmpl.h"
#include "util.h"

/* Everything a job script is made from. */
struct job {
	const struct profile	 *prof;
	const char		 *site;		/* as given, for the header */
	int			  nodes;
	const char		 *script;	/* the training script */
	char *const		 *args;		/* its arguments, untouched */
	size_t			  nargs;
	char *const		 *argv;		/* ddpgen's own command line */
	size_t			  argc;
	const char		 *ddprank;	/* absolute path on the nodes */
	const struct strlist	 *env_pass;	/* names passed from the
						   submitting shell; may be
						   NULL */
	const char		 *scope;	/* whose bad nodes (badnodes.h) */
	const struct strlist	 *exclude;	/* nodes to leave out; may
						   be NULL */
};

/* The template variables of a job (caller frees with tmpl_vars_free). */
struct tmpl_vars *script_vars(const struct job *);

/* The job's environment as shell code (the shell_env variable, which
 * every shell template places): the setup lines, env exported, and
 * env_default exported where the job lacks the variable; each part
 * opens with a blank line, and the whole has no final newline. Appended
 * to b. */
void		 script_shell_env(struct buf *b, const struct profile *);

/* Finds the template file: a path when name contains '/', else
 * DIR/NAME along dirs. Returns the path (caller frees) or NULL with
 * *cause set. */
char		*script_find_template(const char *name,
		    const struct strlist *dirs, char **cause);

/* The template directories: util_searchpath's order, with
 * $DDPGEN_TEMPLATE_PATH and "templates". */
void		 script_template_path(struct strlist *dirs,
		    const char *(*getenv_fn)(const char *), const char *exedir);

/* Renders the job with the template at path into out, the filters its
 * back-end adds allowed. A partial {{>NAME}} (tmpl.h) of a file STEM.EXT
 * is SCHED/NAME.EXT (SCHED the job's scheduler), else STEM/NAME.EXT, else
 * NAME.EXT, each looked for in the template's own directory (unless it
 * is one of dirs) and then along dirs, so that a directory earlier on
 * the path overrides the shipped fragments. -1 + *cause ("FILE:LINE:
 * message" for template errors). */
int		 script_render(const struct job *, const char *path,
		    const struct strlist *dirs, struct buf *out,
		    char **cause);

/* Checks code with "bash -n" when bash is in PATH. Returns 0 when bash
 * accepts it, 1 when there is no bash to ask, -1 with *cause (bash's
 * first complaint, warnings included, without its "bash: " and, when
 * strip_line, "line N: " prefix) otherwise. */
int		 script_check_syntax(const char *code, int strip_line,
		    char **cause);

#endif
