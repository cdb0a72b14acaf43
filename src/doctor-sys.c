/* doctor-sys.c: the real system the checks ask (struct doctor_sys):
 * directories, files, the clock and child processes. */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "doctor.h"
#include "netif.h"
#include "nodes.h"
#include "xmalloc.h"

static int
doctor_real_list(void *arg, const char *dir, struct strlist *names)
{
	DIR		*d;
	struct dirent	*e;

	(void)arg;
	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] != '.')
			strlist_add(names, e->d_name);
	}
	closedir(d);
	return 0;
}

static int
doctor_real_executable(void *arg, const char *path)
{
	struct stat	st;

	(void)arg;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0;
}

/* Creates and removes a file: access(2) says nothing of a read-only
 * mount or of a share's own permissions. The directory is checked as
 * the exchange will check it (sdir.c); whether a secret is needed there
 * is for the gather to say, which knows it. */
static int
doctor_real_writable(void *arg, const char *dir, char **cause)
{
	struct stat	 st;
	struct sdir	 d;
	char		*path;
	int		 rc;

	(void)arg;
	/* ddprank creates the exchange directory itself, in its parent. */
	if (stat(dir, &st) == -1 && errno == ENOENT &&
	    strrchr(dir, '/') != NULL && strrchr(dir, '/') != dir) {
		path = xstrndup(dir, (size_t)(strrchr(dir, '/') - dir));
		rc = doctor_real_writable(arg, path, cause);
		free(path);
		return rc;
	}
	sdir_init(&d, geteuid());
	if ((rc = sdir_open_base(&d, dir, "exchange directory", 0, 1,
	    cause)) == 0)
		rc = sdir_probe(&d, cause);
	else if (d.refused)
		rc = -2;
	sdir_close(&d);
	return rc;
}

extern char **environ;

static long long
doctor_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Keeps the last len - 1 bytes read from fd until end of file or the
 * deadline; returns 0 at end of file, -1 at the deadline. */
static int
doctor_drain(int fd, char *buf, size_t len, long long deadline)
{
	struct pollfd	p = { fd, POLLIN, 0 };
	size_t		have = 0;
	ssize_t		n;
	long long	left;

	buf[0] = '\0';
	while ((left = deadline - doctor_ms()) > 0) {
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		if (have == len - 1) {
			memmove(buf, buf + len / 2, have - len / 2);
			have -= len / 2;
		}
		if ((n = read(fd, buf + have, len - 1 - have)) == 0)
			return 0;
		if (n > 0)
			buf[have += (size_t)n] = '\0';
	}
	return -1;
}

/* The last non-empty line of s, in place. */
static char *
doctor_lastline(char *s)
{
	char	*nl;

	while ((nl = strrchr(s, '\n')) != NULL && nl[1] == '\0')
		*nl = '\0';
	return (nl = strrchr(s, '\n')) != NULL ? nl + 1 : s;
}

static int
doctor_real_run(void *arg, char *const *argv, int ms, int *took_ms,
    char **err)
{
	long long	start = doctor_ms(), deadline = start + ms;
	char		buf[4096];
	pid_t		pid;
	int		p[2], status, late, fd;

	(void)arg;
	*err = NULL;
	if (pipe2(p, O_CLOEXEC) == -1)
		return util_fail(err, "pipe: %s", strerror(errno));
	if ((pid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		return util_fail(err, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		if ((fd = open("/dev/null", O_RDWR)) != -1) {
			dup2(fd, 0);
			dup2(fd, 1);
		}
		dup2(p[1], 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	late = doctor_drain(p[0], buf, sizeof buf, deadline);
	close(p[0]);
	/* Bounded even when the child closes its standard error early. */
	while (!late && waitpid(pid, &status, WNOHANG) == 0)
		late = doctor_ms() >= deadline || poll(NULL, 0, 20) < 0;
	*took_ms = (int)(doctor_ms() - start);
	if (late) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return util_fail(err, "did not finish within %d s", ms / 1000);
	}
	if (!WIFEXITED(status))
		return util_fail(err, "killed by signal %d", WTERMSIG(status));
	*err = xstrdup(doctor_lastline(buf));
	return WEXITSTATUS(status);
}

static int
doctor_real_firstline(void *arg, const char *path, char *buf, size_t len)
{
	ssize_t	n;
	int	fd;

	(void)arg;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static char *const *
doctor_real_environ(void *arg)
{
	(void)arg;
	return environ;
}

static long
doctor_real_readfile(void *arg, const char *path, char *buf, size_t len)
{
	ssize_t	n;
	size_t	got = 0;
	int	fd;

	(void)arg;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	return (long)got;
}

const struct doctor_sys doctor_sys_real = {
	&nodes_env_real, &netif_sys_real, doctor_real_list,
	doctor_real_executable, doctor_real_writable, doctor_real_environ,
	doctor_real_run, doctor_real_firstline, doctor_real_readfile, NULL
};
