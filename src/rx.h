/* rx.h: PCRE2 patterns compiled with an error message that names where
 * the pattern came from, PCRE2's own message and the offset. */
#ifndef DDPGEN_RX_H
#define DDPGEN_RX_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

struct rx {
	pcre2_code		*code;
	pcre2_match_data	*md;	/* created once, freed with code */
};

/* Compiles pattern; on error returns -1 and sets *cause to
 * "bad pattern 'P': MESSAGE at offset N" (caller frees). */
int	rx_compile(struct rx *, const char *pattern, char **cause);
/* 1 if subject matches, 0 if not. */
int	rx_match(struct rx *, const char *subject);
void	rx_free(struct rx *);

#endif
