/* testlib.c: helpers shared by the Check suites: a runner, scratch
 * directories and files, a command's output, a TCP listener, a fake
 * environment and a fixed-seed random generator.  The fake network is
 * in testnet.c, for the suites that link src/netif.o. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <stdint.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "testlib.h"
#include "util.h"
#include "xmalloc.h"

/* CK_ENV: CK_FORK=no in the environment runs the tests in this process,
 * for a debugger. */
int
t_run(Suite *s)
{
	SRunner	*sr = srunner_create(s);
	int	 failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}

/* PREFIX.XXXXXX under $TMPDIR, or /tmp when it is unset or empty, for
 * mkdtemp or mkstemp; the caller frees it. */
static char *
tmp_template(const char *prefix)
{
	const char	*base = getenv("TMPDIR");
	char		*path;

	xasprintf(&path, "%s/%s.XXXXXX",
	    base != NULL && *base != '\0' ? base : "/tmp", prefix);
	return path;
}

/* The caller frees it with t_rmtree. */
char *
t_tmpdir(const char *prefix)
{
	char	*dir = tmp_template(prefix);

	ck_assert_msg(mkdtemp(dir) != NULL, "%s: %s", dir, strerror(errno));
	return dir;
}

/* mkstemp rather than a name in a t_tmpdir, for tests that want a lone
 * file; its descriptor is closed before t_write reopens the name. */
char *
t_tmpfile(const char *prefix, const char *data)
{
	char	*path = tmp_template(prefix);
	int	 fd;

	ck_assert_msg((fd = mkstemp(path)) != -1, "%s: %s", path,
	    strerror(errno));
	ck_assert_int_eq(close(fd), 0);
	t_write(path, data, strlen(data));
	return path;
}

/* nftw's callback: with FTW_DEPTH a directory comes after its entries. */
static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Without rm -rf, so no shell sees the name; FTW_PHYS removes a
 * symbolic link a test left rather than what it points to. */
void
t_rmtree(char *dir)
{
	ck_assert_msg(nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0,
	    "removing %s: %s", dir, strerror(errno));
	free(dir);
}

/* Creates or truncates path; data may hold NUL bytes. */
void
t_write(const char *path, const char *data, size_t len)
{
	FILE	*f = fopen(path, "w");

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/* popen, so cmd may use the shell's quoting and redirections. */
int
t_capture(const char *cmd, struct buf *out)
{
	char	 chunk[4096];
	size_t	 n;
	FILE	*f = popen(cmd, "r");

	ck_assert_msg(f != NULL, "%s: %s", cmd, strerror(errno));
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_addn(out, chunk, n);
	return pclose(f);
}

/* A listener on loopback at a port the kernel picks: a port that is
 * surely in use, for the bind checks. */
int
t_listener(int *port)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof sin;
	int			fd;

	ck_assert_int_ne(fd = socket(AF_INET, SOCK_STREAM, 0), -1);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof sin), 0);
	ck_assert_int_eq(listen(fd, 1), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = ntohs(sin.sin_port);
	return fd;
}

/* The getter of a struct nodes_env over an ENV(...) array: exact names
 * only, so FOO does not match FOOBAR=1. */
const char *
t_env_get(void *arg, const char *name)
{
	const char *const	*v;
	size_t			 n = strlen(name);

	for (v = arg; *v != NULL; v++) {
		if (strncmp(*v, name, n) == 0 && (*v)[n] == '=')
			return *v + n + 1;
	}
	return NULL;
}

struct nodes_env
t_env(const char *const *vars)
{
	struct nodes_env	e = { t_env_get, (void *)(uintptr_t)vars };

	return e;
}

static uint64_t	rng_state;

void
t_rng_seed(uint64_t seed)
{
	rng_state = seed;
}

uint64_t
t_rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* The high bits: xorshift's low ones are its weakest. */
uint32_t
t_rng_below(uint32_t n)
{
	return (uint32_t)(t_rng() >> 11) % n;
}
