/* fuzz_profile.c: libFuzzer target for profile_parse_buf, then the
 * resolved profile through validation and --show-site's dump, and the
 * raw bytes through the Slurm time parser. Set DDPGEN_FUZZ_PROFILES to a
 * profiles directory so that "extends" finds the shipped sites. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct strlist	dirs;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char	*d = getenv("DDPGEN_FUZZ_PROFILES");

	(void)argc;
	(void)argv;
	strlist_init(&dirs);
	if (d != NULL && *d != '\0')
		strlist_add(&dirs, d);
	return 0;
}

static void
check_profile(struct profile *p)
{
	struct buf	 b;
	char		*cause = NULL;

	/* A profile that loads passes every check: the load checks each
	 * value as its layer is parsed and the rules between keys after
	 * the merge, so validating it again finds nothing. */
	if (profile_validate(p, &cause) == -1) {
		fprintf(stderr, "loaded but invalid: %s\n", cause);
		abort();
	}
	if (profile_nproc(p) < 1)
		abort();
	buf_init(&b);
	profile_dump(p, &b);
	if (strlen(b.s) != b.len)
		abort();
	buf_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strlist	 errors;
	struct profile	*p;
	long long	 secs;
	char		*s;
	size_t		 i;

	s = malloc(size + 1);
	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	strlist_init(&errors);
	p = profile_parse_buf("fuzz.conf", s, &dirs, &errors);
	if (p != NULL) {
		if (errors.n != 0)
			abort();
		check_profile(p);
		profile_free(p);
	} else if (errors.n == 0)
		abort();
	for (i = 0; i < errors.n; i++) {
		if (errors.v[i][0] == '\0' || strchr(errors.v[i], '\n') != NULL)
			abort();
	}
	strlist_free(&errors);
	if (size < 64)
		(void)profile_parse_time(s, &secs);
	free(s);
	return 0;
}
