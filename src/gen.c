/* gen.c: the table of ddpgen's back-ends, and the words it gives
 * messages. Each row lives in its gen-NAME.c. */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "gen.h"
#include "profile.h"
#include "script.h"
#include "util.h"
#include "xmalloc.h"

/* In enum sched_id order from SCHED_GEN_FIRST, up to SCHED_HOSTFILE;
 * check_scheduler holds each row's sched to its place. */
static const struct gen *const gen_table[] = {
	&gen_slurm, &gen_hpcpack, &gen_flux, &gen_pbs, &gen_lsf, &gen_local
};
#define GEN_COUNT	(sizeof gen_table / sizeof gen_table[0])
_Static_assert(SCHED_GEN_FIRST + GEN_COUNT == SCHED_HOSTFILE, "gen_table");

const char *const *
gen_names(void)
{
	static const char	*names[GEN_COUNT + 1];
	size_t			 i;

	if (names[0] == NULL)
		for (i = 0; i < GEN_COUNT; i++)
			names[i] = sched_get(gen_table[i]->sched)->name;
	return names;
}

const struct gen *
gen_get(enum sched_id s)
{
	if (s < SCHED_GEN_FIRST || s >= SCHED_GEN_FIRST + GEN_COUNT)
		return NULL;
	return gen_table[s - SCHED_GEN_FIRST];
}

int
gen_nproc_at_run(const struct profile *p)
{
	return (gen_get(p->scheduler)->flags & GEN_NPROC_RUN) &&
	    p->nproc_per_node == 0 && p->gpus_per_node == 0;
}

int
gen_honours(enum sched_id s, const char *key)
{
	const struct gen	*g = gen_get(s);
	const char *const	*k;

	for (k = g != NULL ? g->keys : NULL; k != NULL && *k != NULL; k++)
		if (strcmp(*k, key) == 0)
			return 1;
	return 0;
}

char *
gen_keys_text(enum sched_id s)
{
	const struct gen	*g = gen_get(s);

	if (g == NULL || g->keys == NULL || g->keys[0] == NULL)
		return xstrdup("none");
	return words_join(g->keys, " and ");
}

char *
gen_env_pass_text(void)
{
	const char	*t[GEN_COUNT + 1];
	size_t		 i, n = 0;

	for (i = 0; i < GEN_COUNT; i++)
		if (gen_table[i]->flags & GEN_ENV_PASS)
			t[n++] = sched_get(gen_table[i]->sched)->title;
	t[n] = NULL;
	return words_join(t, " and ");
}

char *
gen_images_text(int image)
{
	const char	*t[GEN_COUNT + 1];
	size_t		 i, n = 0;

	for (i = 0; i < GEN_COUNT; i++)
		if (gen_table[i]->images & (1 << image))
			t[n++] = sched_name(gen_table[i]->sched);
	t[n] = NULL;
	return words_join(t, " or ");
}

const struct gen_format *
gen_format(const char *name, enum sched_id *s)
{
	size_t	i, k;

	for (i = 0; i < GEN_COUNT; i++) {
		for (k = 0; k < gen_table[i]->nformats; k++) {
			if (strcmp(gen_table[i]->formats[k].name, name) == 0) {
				*s = gen_table[i]->sched;
				return &gen_table[i]->formats[k];
			}
		}
	}
	return NULL;
}

char *
gen_formats_text(enum sched_id s)
{
	struct buf	b;
	size_t		i, k, n = 0, total = 0;

	for (i = 0; i < GEN_COUNT; i++)
		if (s == SCHED_AUTO || s == gen_table[i]->sched)
			total += gen_table[i]->nformats;
	buf_init(&b);
	for (i = 0; i < GEN_COUNT; i++) {
		if (s != SCHED_AUTO && s != gen_table[i]->sched)
			continue;
		for (k = 0; k < gen_table[i]->nformats; k++, n++)
			buf_add_item(&b, gen_table[i]->formats[k].name,
			    n + 1 == total, " or ");
	}
	return buf_take(&b);
}

/* A name a scheduler's exclusion can hold as it is: a letter or digit,
 * then letters, digits, '.', '-' and '_' (a host name's). Any other is
 * one no scheduler's syntax could keep from being read as its own
 * (LSF's ']' or "&&", Flux's blank, PBS's ':' and '+'). */
static int
gen_host_name(const char *s)
{
	static const char	 alnum[] = "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

	return *s != '\0' && strchr(alnum, *s) != NULL &&
	    s[strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")] == '\0';
}

char *
gen_exclusion(const struct job *job, const char *pre, const char *post,
    const char *sep, size_t *n)
{
	struct buf	 b;
	size_t		 i;

	buf_init(&b);
	*n = 0;
	for (i = 0; job->exclude != NULL && i < job->exclude->n; i++) {
		if (!gen_host_name(job->exclude->v[i]))
			continue;
		buf_addf(&b, "%s%s%s%s", (*n)++ > 0 ? sep : "", pre,
		    job->exclude->v[i], post);
	}
	return b.s;
}
