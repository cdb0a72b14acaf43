/* profile-int.h: what the parts of the profile module share, and
 * nothing outside it uses: profile-key.c (the schema), profile-cfg.c
 * (libconfuse), profile.c (the extends chain, the merge, the rules
 * between keys, dump), profile-lex.c (the scan before libconfuse),
 * profile-site.c (the search path and the sites) and profile-time.c
 * (Slurm times). Calls go one way: profile.c calls the others,
 * profile-cfg.c calls profile-key.c and profile-lex.c, and none calls
 * back. */
#ifndef DDPGEN_PROFILE_INT_H
#define DDPGEN_PROFILE_INT_H

#include <stddef.h>

#include "profile.h"
#include "util.h"

#include <confuse.h>

/*
 * Every key is declared to libconfuse as a list of strings and typed
 * here: a parse callback checks each value as it is read, so a bad value
 * costs one message and the parse goes on (libconfuse stops at the
 * first error a callback returns). A list where one value is expected
 * is then a type error of ours too, not a syntax error of libconfuse.
 */
enum ktype {
	K_EXTENDS,	/* string, resolved by the chain, not stored */
	K_STR,
	K_LIST,
	K_INT,
	K_BOOL,
	K_ENUM,
	K_PORT,		/* "auto" (stored 0) or 1-65535 */
	K_RANGE		/* port_range: two ints into port_min, port_max */
};

#define KF_LINE		0x1	/* one line: no control characters */
#define KF_REQUIRED	0x2	/* set somewhere in the chain, non-empty */
#define KF_SCHED	0x4	/* some schedulers' only: a back-end that
				   does not honour it (gen.h) refuses any
				   value but the default */
#define KF_WHERE	0x8	/* says where a job runs, not what it
				   runs: ddpgen --local keeps the local
				   profile's (profile_localize) */

struct key {
	const char		 *name;
	enum ktype		  type;
	size_t			  off;
	int			  flags;
	int			  min, max;	/* K_INT, K_RANGE */
	const char *const	 *names;	/* K_ENUM, in enum order */
	/* K_ENUM whose words are a table's row names: the table's function
	 * that gives them (gen_names, runtime_names), instead of names. */
	const char *const	*(*rows)(void);
	int			  base;		/* K_ENUM: the first name's value */
	int			(*check)(const char *, char **);
};

/* profile-key.c's table of keys, profile_nkeys of them. */
extern const struct key *const profile_keys;
extern const size_t profile_nkeys;

/* A problem, reported in file (chain order) and line order. */
struct found {
	size_t		 layer;
	int		 line;
	size_t		 seq;
	char		*msg;
};

struct foundlist {
	struct found	*v;
	size_t		 n;
};

/* One file of an extends chain, parsed. */
struct layer {
	char		*file;		/* name in messages */
	char		*real;		/* canonical path, to find cycles */
	char		*text;
	cfg_t		*cfg;
	struct foundlist errors;
	int		 parsing;
	int		 failed;	/* libconfuse stopped early */
	/* Per key, profile_nkeys each: the last line giving it a value;
	 * set in this file, and valid; bad; a list given with "+=". */
	int		*line;
	char		*set;
	char		*bad;
	char		*append;
	char		*extends;
	int		 extends_line;
};

/* The field of key k in p. */
static inline void *
profile_key_field(const struct profile *p, const struct key *k)
{
	return (char *)p + k->off;
}

/* profile-key.c, the schema */
const struct key *profile_key_find(const char *name);
int	 profile_key_item(const struct key *, const char *s, int *out,
	    char **cause);
/* The value of a scalar key as a profile would spell it (caller frees). */
char	*profile_key_scalar(const struct profile *, const struct key *);
char	*profile_vis(const char *s);
/* s made visible, or in double quotes as libconfuse reads it back. */
void	 profile_addvis(struct buf *, const char *s);
void	 profile_addquoted(struct buf *, const char *s);
/* One entry per name, the last value winning, in first-seen order. */
void	 profile_env_dedupe(struct strlist *env);
/* An sbatch_extra item as one word, its value joined to its option. */
char	*profile_sbatch_word(const char *s);

/* profile-cfg.c */
void	 profile_found_add(struct foundlist *, size_t layer, int line,
	    char *msg);
void	 profile_found_flush(struct foundlist *, struct strlist *errors);
char	*profile_at(const char *file, int line, const char *msg);
void	 profile_layer_error(struct layer *, int line, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
int	 profile_layer_line(const struct layer *, size_t i);
struct layer *profile_layer_new(const char *file, char *text);
void	 profile_layer_free(struct layer *);

/* 1 when path is a regular file (following links). */
int	 profile_is_file(const char *path);
/* A site is a path when it names a file rather than a profile: it has
 * a '/' or ends in ".conf". */
int	 profile_site_is_path(const char *site);
char	*profile_site_find(const char *name, const struct strlist *dirs,
	    const char *const *skip, size_t n, int *hit);
/* Every NAME.conf along dirs, first occurrence of a name, sorted by
 * name, their descriptions NULL and scheduler "?"; the count. Free
 * with profile_sites_free. */
size_t	 profile_site_scan(const struct strlist *dirs,
	    struct profile_site **out);
/* Adds "unknown site 'SITE' (known: ...)" to errors. */
void	 profile_unknown_site(const char *site, const struct strlist *dirs,
	    struct strlist *errors);

/* The text libconfuse is given, in *out (caller frees): comments
 * blanked, "${" in strings escaped. Returns the problem that would
 * leave libconfuse's lexer in a bad state (and its line in *line),
 * which the caller frees, or NULL. */
char	*profile_lex(const char *text, char **out, int *line);

#endif
