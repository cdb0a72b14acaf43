/* profile-site.c: where profiles are found: the search path, a site
 * name or path, the sites along the path. It loads none: profile.c's
 * profile_list does, for ddpgen --list-sites. */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "profile-int.h"
#include "util.h"
#include "xmalloc.h"

int
profile_is_file(const char *path)
{
	struct stat	st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

void
profile_searchpath(struct strlist *dirs,
    const char *(*getenv_fn)(const char *), const char *exedir)
{
	util_searchpath(dirs, "DDPGEN_PROFILE_PATH", "profiles", getenv_fn,
	    exedir);
}

/* A site is a path when it names a file rather than a profile. */
int
profile_site_is_path(const char *site)
{
	size_t	len = strlen(site);

	return strchr(site, '/') != NULL ||
	    (len >= 5 && strcmp(site + len - 5, ".conf") == 0);
}

/*
 * The first DIR/NAME.conf along dirs whose real path is not one of
 * skip[0..n-1], the files of the chain so far: a user's cori.conf can
 * so extend the shipped cori. *hit gets the index of a chain file that
 * was skipped, or -1. Caller frees.
 */
char *
profile_site_find(const char *name, const struct strlist *dirs,
    const char *const *skip, size_t n, int *hit)
{
	char	*path, *real;
	size_t	 i, j;

	*hit = -1;
	for (i = 0; i < dirs->n; i++) {
		xasprintf(&path, "%s/%s.conf", dirs->v[i], name);
		if (!profile_is_file(path) ||
		    (real = realpath(path, NULL)) == NULL) {
			free(path);
			continue;
		}
		for (j = 0; j < n; j++)
			if (strcmp(skip[j], real) == 0)
				break;
		free(real);
		if (j == n)
			return path;
		if (*hit == -1)
			*hit = (int)j;
		free(path);
	}
	return NULL;
}

static int
site_cmp(const void *a, const void *b)
{
	const struct profile_site	*x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* Adds dir/file as a site unless its name is known already. */
static void
site_add(struct profile_site **v, size_t *n, const char *dir,
    const char *file)
{
	size_t	 i, len = strlen(file) - 5;	/* without ".conf" */
	char	*path;

	for (i = 0; i < *n; i++)
		if (strncmp((*v)[i].name, file, len) == 0 &&
		    (*v)[i].name[len] == '\0')
			return;
	xasprintf(&path, "%s/%s", dir, file);
	if (!profile_is_file(path)) {
		free(path);
		return;
	}
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[*n].name = xstrndup(file, len);
	(*v)[*n].description = NULL;
	(*v)[*n].scheduler = "?";
	(*v)[(*n)++].path = path;
}

size_t
profile_site_scan(const struct strlist *dirs, struct profile_site **out)
{
	struct profile_site	*v = NULL;
	struct dirent		*de;
	DIR			*d;
	size_t			 i, n = 0, len;

	for (i = 0; i < dirs->n; i++) {
		if ((d = opendir(dirs->v[i])) == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			len = strlen(de->d_name);
			if (de->d_name[0] != '.' && len > 5 &&
			    strcmp(de->d_name + len - 5, ".conf") == 0)
				site_add(&v, &n, dirs->v[i], de->d_name);
		}
		closedir(d);
	}
	if (n > 0)
		qsort(v, n, sizeof *v, site_cmp);
	*out = v;
	return n;
}

void
profile_unknown_site(const char *site, const struct strlist *dirs,
    struct strlist *errors)
{
	struct profile_site	*v;
	struct buf		 b;
	size_t			 i, n;

	buf_init(&b);
	buf_adds(&b, "unknown site '");
	util_addvis(&b, site, strlen(site));
	n = profile_site_scan(dirs, &v);
	if (n == 0)
		buf_adds(&b, "' (no profiles along the search path)");
	else
		buf_adds(&b, "' (known:");
	for (i = 0; i < n; i++)
		buf_addf(&b, "%s %s", i == 0 ? "" : ",", v[i].name);
	if (n > 0)
		buf_addc(&b, ')');
	strlist_addown(errors, buf_take(&b));
	profile_sites_free(v, n);
}

void
profile_sites_free(struct profile_site *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].description);
		free(v[i].path);
	}
	free(v);
}
