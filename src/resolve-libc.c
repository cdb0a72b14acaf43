/* resolve-libc.c: resolve.h through glibc's name service switch. */
#include "config.h"

#include <pwd.h>

#include "resolve.h"
#include "xmalloc.h"

int
resolve_addrinfo(const char *host, const char *serv,
    const struct addrinfo *hints, struct addrinfo **res)
{
	return getaddrinfo(host, serv, hints, res);
}

void
resolve_free(struct addrinfo *ai)
{
	freeaddrinfo(ai);
}

char *
resolve_home(uid_t uid)
{
	struct passwd	*pw = getpwuid(uid);

	return pw == NULL ? NULL : xstrdup(pw->pw_dir);
}
