/* vocab.c: the words ddpgen and ddprank share (vocab.h). */
#include "config.h"

#include <string.h>

#include "util.h"
#include "vocab.h"

const char *const rdzv_names[] = {
	[RDZV_STATIC] = "static", [RDZV_C10D] = "c10d", NULL
};

int
vocab_word(const char *const *names, const char *s)
{
	int	i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

int
vocab_port(const char *s, int *port)
{
	long long	v;

	if (strcmp(s, "auto") == 0) {
		*port = 0;
		return 0;
	}
	if (*s == '\0' || strspn(s, "0123456789") != strlen(s))
		return VOCAB_NAN;
	if (util_strtonum(s, 1, 65535, &v) == -1)
		return VOCAB_RANGE;
	*port = (int)v;
	return 0;
}
