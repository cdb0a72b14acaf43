/* state.h: the per-user state directory, where ddpgen remembers the
 * nodes that failed (badnodes.h) and jobs keep their evidence (hang.h):
 * ${XDG_STATE_HOME:-$HOME/.local/state}/ddpgen, opened through sdir's
 * StrictModes (sdir.h) as every shared directory is. */
#ifndef DDPGEN_STATE_H
#define DDPGEN_STATE_H

struct sdir;

/* Where the job directories are under the state directory. */
#define STATE_JOBS	"jobs"

/* The state directory's path: XDG_STATE_HOME when it is absolute (the
 * XDG rules ignore a relative one), else HOME's .local/state, then
 * "/ddpgen". NULL + *cause without either. getenv_fn: the environment
 * seam. The caller frees. */
char	*state_path(const char *(*getenv_fn)(const char *), char **cause);

/* Opens d on path, or (path NULL) on the state directory with sub
 * ("jobs", or NULL) under it, making it 0700 with the parents it lacks,
 * as the XDG rules ask. what names it in messages. -1 + *cause. */
int	 state_open(struct sdir *d, const char *path, const char *sub,
	    const char *(*getenv_fn)(const char *), const char *what,
	    char **cause);

#endif
