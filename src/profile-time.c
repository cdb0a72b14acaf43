/* profile-time.c: Slurm's time formats, for the profile's time key
 * and ddpgen --time. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "profile.h"

/* Up to three ':'-separated fields of at most 8 digits each. Returns
 * the count, or -1. */
static int
time_fields(const char *s, long long *f)
{
	size_t		len;
	int		n = 0;

	for (;;) {
		len = strspn(s, "0123456789");
		if (len == 0 || len > 8 || n == 3)
			return -1;
		f[n++] = strtoll(s, NULL, 10);
		s += len;
		if (*s == '\0')
			return n;
		if (*s++ != ':')
			return -1;
	}
}

int
profile_parse_time(const char *s, long long *seconds)
{
	long long	 f[3], d = 0, h = 0, m = 0, sec = 0, total;
	const char	*dash;
	int		 n;

	if (strcasecmp(s, "UNLIMITED") == 0 || strcasecmp(s, "INFINITE") == 0) {
		if (seconds != NULL)
			*seconds = -1;
		return 0;
	}
	if ((dash = strchr(s, '-')) != NULL) {
		if (dash == s || dash - s > 8 ||
		    strspn(s, "0123456789") != (size_t)(dash - s))
			return -1;
		d = strtoll(s, NULL, 10);
		s = dash + 1;
	}
	if ((n = time_fields(s, f)) == -1)
		return -1;
	if (dash != NULL) {		/* D-H, D-H:M, D-H:M:S */
		h = f[0];
		m = n > 1 ? f[1] : 0;
		sec = n > 2 ? f[2] : 0;
		if (h > 23 || m > 59 || sec > 59)
			return -1;
	} else if (n == 3) {		/* H:M:S */
		h = f[0];
		m = f[1];
		sec = f[2];
		if (m > 59 || sec > 59)
			return -1;
	} else {			/* M, M:S */
		m = f[0];
		sec = n > 1 ? f[1] : 0;
		if (n > 1 && sec > 59)
			return -1;
	}
	total = ((d * 24 + h) * 60 + m) * 60 + sec;
	if (seconds != NULL)
		*seconds = total == 0 ? -1 : total;	/* as Slurm: 0 = none */
	return 0;
}
