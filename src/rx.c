/* rx.c: compile and match PCRE2 patterns, reporting errors with offsets. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rx.h"
#include "util.h"

int
rx_compile(struct rx *rx, const char *pattern, char **cause)
{
	PCRE2_UCHAR	msg[256];
	PCRE2_SIZE	off;
	int		err;

	rx->md = NULL;
	rx->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
	    0, &err, &off, NULL);
	if (rx->code == NULL) {
		if (pcre2_get_error_message(err, msg, sizeof msg) < 0)
			strcpy((char *)msg, "unknown error");
		return util_fail(cause, "bad pattern '%s': %s at offset %zu",
		    pattern, (char *)msg, (size_t)off);
	}
	rx->md = pcre2_match_data_create_from_pattern(rx->code, NULL);
	if (rx->md == NULL) {
		pcre2_code_free(rx->code);
		rx->code = NULL;
		return util_fail(cause, "out of memory compiling '%s'", pattern);
	}
	return 0;
}

int
rx_match(struct rx *rx, const char *subject)
{
	return pcre2_match(rx->code, (PCRE2_SPTR)subject, strlen(subject), 0,
	    0, rx->md, NULL) >= 0;
}

void
rx_free(struct rx *rx)
{
	pcre2_match_data_free(rx->md);
	pcre2_code_free(rx->code);
	rx->md = NULL;
	rx->code = NULL;
}
