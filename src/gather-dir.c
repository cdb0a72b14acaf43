/* gather-dir.c: node 0's gather through a shared directory (gather.h),
 * for nodes that cannot count on a node list (HPC Pack): each node
 * writes its message, whole, into a run directory of the shared one,
 * and node 0 reads them; every wait is bounded, as over TCP. The base,
 * the run's directory and every file in them go through sdir.c. */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gather.h"
#include "sdir.h"
#include "util.h"
#include "xmalloc.h"

#define GATHER_DIR_POLL_MS	100

void
gather_dir_init(struct gather_dir *d)
{
	memset(d, 0, sizeof *d);
	sdir_init(&d->base, geteuid());
	sdir_init(&d->run, geteuid());
}

/* The base, then the run's directory, through sdir.c's StrictModes
 * checks: a directory someone else made is refused, not read. */
int
gather_dir_open(struct gather_dir *d, const char *base,
    const char *base_what, const char *what, int secret, const char *name,
    char **cause)
{
	free(d->name);
	d->name = xstrdup(name);
	if (sdir_open_base(&d->base, base, base_what, 0, secret,
	    cause) == -1 ||
	    sdir_open_run(&d->run, &d->base, name, what, cause) == -1)
		return -1;
	return 0;
}

int
gather_dir_refused(const struct gather_dir *d)
{
	return d->base.refused || d->run.refused;
}

int
gather_dir_write(struct gather_dir *d, uint64_t rank, const char *msg,
    size_t len, char **cause)
{
	char	name[32];

	snprintf(name, sizeof name, "t%llu", (unsigned long long)rank + 1);
	return sdir_write(&d->run, name, msg, len, NULL, cause);
}

/* Reads file name into the sink; 1 and *rank when it was filed. Only a
 * regular file of this user's counts, and with a secret only a sealed
 * message: a file someone else planted blames no one. */
static int
gather_dir_read(const struct gather_dir *d, const char *name,
    struct gather_sink *s, uint64_t *rank)
{
	struct stat	 st;
	struct buf	 body;
	char		*buf, *cause = NULL;
	ssize_t		 len;
	int		 rc = 0;

	buf = xmalloc(GATHER_MSG_MAX);
	len = sdir_read(&d->run, name, buf, GATHER_MSG_MAX, &st, &cause);
	free(cause);
	cause = NULL;
	if (len > 0 && (size_t)len < GATHER_MSG_MAX &&
	    memchr(buf, '\0', (size_t)len) == NULL) {
		if (gather_open(buf, (size_t)len, s->label, s->scope, &body,
		    &cause) == 0)
			rc = s->file(s->arg, body.s, body.len, rank);
		buf_free(&body);
		free(cause);
	}
	free(buf);
	return rc;
}

static long long
gather_dir_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The names a gather writes: tN, and tN.XXXXXXXXXXXX while it is being
 * written. */
static int
gather_dir_ours(const char *name)
{
	size_t	n;

	if (name[0] != 't' || (n = strspn(name + 1, "0123456789")) == 0)
		return 0;
	return name[1 + n] == '\0' || name[1 + n] == '.';
}

void
gather_dir_collect(struct gather_dir *d, uint64_t n, int ms,
    struct gather_sink *s)
{
	long long	 end = gather_dir_ms() + ms;
	unsigned char	*done = n > 0 ? xcalloc(n, 1) : NULL;
	uint64_t	 i, rank;
	char		 name[32];

	while (s->got < s->want) {
		for (i = 1; i < n; i++) {
			if (done[i])
				continue;
			snprintf(name, sizeof name, "t%llu",
			    (unsigned long long)i + 1);
			if (gather_dir_read(d, name, s, &rank) == 1) {
				s->got++;
				if (rank < n)
					done[rank] = 1;
			}
		}
		if (s->got >= s->want || gather_dir_ms() >= end)
			break;
		poll(NULL, 0, GATHER_DIR_POLL_MS);
	}
	free(done);
	(void)sdir_remove(&d->base, d->name, gather_dir_ours);
}

void
gather_dir_close(struct gather_dir *d)
{
	sdir_close(&d->run);
	sdir_close(&d->base);
	free(d->name);
	d->name = NULL;
}
