/* script.h: turns a resolved profile and the command line into template
 * variables and renders the job script. */
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
};

/* HPC Pack's limits (Microsoft's API pages, HPC Pack 2008 R2 and
 * later): a task's CommandLine, and all of a task's environment
 * variables together, which ddpgen also holds the job's variables to,
 * since no job-level limit is documented. cmd.exe reads lines of at most
 * 8191 characters; SCRIPT_CMD_EXPAND is kept free on every line for what
 * %DDPGEN_OUT% (a file under %TEMP%) expands to, MAX_PATH. */
#define SCRIPT_MAX_COMMAND_LINE	480
#define SCRIPT_MAX_ENV		2048
#define SCRIPT_MAX_CMD_LINE	8191
#define SCRIPT_CMD_EXPAND	260

/* The template variables of a job (caller frees with tmpl_vars_free). */
struct tmpl_vars *script_vars(const struct job *);

/* Finds the template file: a path when name contains '/', else
 * DIR/NAME along dirs. Returns the path (caller frees) or NULL with
 * *cause set. */
char		*script_find_template(const char *name,
		    const struct strlist *dirs, char **cause);

/* The template directories: util_searchpath's order, with
 * $DDPGEN_TEMPLATE_PATH and "templates". */
void		 script_template_path(struct strlist *dirs,
		    const char *(*getenv_fn)(const char *), const char *exedir);

/* Renders the job with the template at path into out. -1 + *cause
 * ("FILE:LINE: message" for template errors). */
int		 script_render(const struct job *, const char *path,
		    struct buf *out, char **cause);

/* Checks code with "bash -n" when bash is in PATH. Returns 0 when bash
 * accepts it, 1 when there is no bash to ask, -1 with *cause (bash's
 * first complaint, warnings included, without its "bash: " and, when
 * strip_line, "line N: " prefix) otherwise. */
int		 script_check_syntax(const char *code, int strip_line,
		    char **cause);

/* Checks an HPC Pack job against HPC Pack's limits (a no-op for other
 * schedulers), and, for a template ending in .cmd, that no env value
 * holds a ';'. -1 + *cause when something cannot be written. */
int		 script_check_hpcpack(const struct job *, const char *tpath,
		    char **cause);

/* Checks a rendered .cmd job's lines against cmd.exe's line limit (a
 * no-op for other templates). -1 + *cause naming the line. */
int		 script_check_output(const char *tpath, const struct buf *out,
		    char **cause);

#endif
