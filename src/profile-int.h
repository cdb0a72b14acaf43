/* profile-int.h: what the parts of the profile module share, and
 * nothing outside it uses: profile.c (the schema, libconfuse, the
 * extends chain, checks, dump), profile-lex.c (the scan before
 * libconfuse), profile-site.c (the search path and the sites) and
 * profile-time.c (Slurm times). */
#ifndef DDPGEN_PROFILE_INT_H
#define DDPGEN_PROFILE_INT_H

#include <stddef.h>

#include "util.h"

/* 1 when path is a regular file (following links). */
int	 profile_is_file(const char *path);
/* A site is a path when it names a file rather than a profile: it has
 * a '/' or ends in ".conf". */
int	 profile_site_is_path(const char *site);
char	*profile_site_find(const char *name, const struct strlist *dirs,
	    const char *const *skip, size_t n, int *hit);
/* Adds "unknown site 'SITE' (known: ...)" to errors. */
void	 profile_unknown_site(const char *site, const struct strlist *dirs,
	    struct strlist *errors);

/* The text libconfuse is given, in *out (caller frees): comments
 * blanked, "${" in strings escaped. Returns the problem that would
 * leave libconfuse's lexer in a bad state (and its line in *line),
 * which the caller frees, or NULL. */
char	*profile_lex(const char *text, char **out, int *line);

#endif
