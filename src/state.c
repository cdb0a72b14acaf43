/* state.c: the per-user state directory (state.h). */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sdir.h"
#include "state.h"
#include "util.h"
#include "xmalloc.h"

char *
state_path(const char *(*getenv_fn)(const char *), char **cause)
{
	const char	*x = getenv_fn("XDG_STATE_HOME"), *h;
	char		*s;

	if (x != NULL && x[0] == '/') {
		xasprintf(&s, "%s/ddpgen", x);
		return s;
	}
	if ((h = getenv_fn("HOME")) == NULL || h[0] != '/') {
		util_fail(cause, "no state directory: XDG_STATE_HOME and HOME "
		    "are unset or not absolute");
		return NULL;
	}
	xasprintf(&s, "%s/.local/state/ddpgen", h);
	return s;
}

/* mkdir -p of path's parents, each new one 0700; errors are left to
 * the open that follows, which names the path. */
static void
make_parents(const char *path)
{
	char	*p = xstrdup(path), *slash;

	for (slash = strchr(p + 1, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(p, 0700) == -1 && errno != EEXIST) {
			*slash = '/';
			break;
		}
		*slash = '/';
	}
	free(p);
}

int
state_open(struct sdir *d, const char *path, const char *sub,
    const char *(*getenv_fn)(const char *), const char *what, char **cause)
{
	char	*dir, *full;
	int	 rc;

	sdir_init(d, geteuid());
	if (path != NULL)
		return sdir_open_base(d, path, what, 0, 0, cause);
	if ((dir = state_path(getenv_fn, cause)) == NULL)
		return -1;
	if (sub != NULL) {
		xasprintf(&full, "%s/%s", dir, sub);
		free(dir);
		dir = full;
	}
	make_parents(dir);
	rc = sdir_open_base(d, dir, what, 0, 0, cause);
	free(dir);
	return rc;
}
