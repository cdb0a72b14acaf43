/* exchange-node.c: one simulated node of bench/exchange.sh. Once
 * started, it appends a byte to READY and waits for SIGUSR1, so that
 * all nodes start together however long the machine takes to start
 * their processes (a real node has a machine of its own). It then runs
 * ddprank's directory exchange (exchange_dir, linked from the tree's
 * objects) with a fake host name and address, and prints one line:
 *	TASK START PUBLISHED END OPENS READS XC CPU
 * START, PUBLISHED (its entry written: the exchange's first look at the
 * clock) and END in seconds of the real-time clock (the nodes are
 * processes of one machine, so their clocks agree), OPENS and READS the
 * openat and read calls the exchange made, counted by wrapping them at
 * link time (-Wl,--wrap=openat,--wrap=read), CPU the user and system
 * time in seconds the process spent from its start to its end. With
 * BENCH_COLD set, libcrypto is not warmed before the start.
 *	exchange-node DIR JOBID NNODES TASK SECRET READY */
#include "config.h"

#include <sys/resource.h>

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "exchange.h"
#include "util.h"
#include "xmalloc.h"

int	__real_openat(int, const char *, int, ...);
ssize_t	__real_read(int, void *, size_t);
int	__wrap_openat(int, const char *, int, ...);
ssize_t	__wrap_read(int, void *, size_t);

static unsigned long	nopen, nread;
static double		published;

int
__wrap_openat(int dir, const char *path, int flags, ...)
{
	va_list	ap;
	int	mode = 0;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	nopen++;
	return __real_openat(dir, path, flags, mode);
}

ssize_t
__wrap_read(int fd, void *buf, size_t len)
{
	nread++;
	return __real_read(fd, buf, len);
}

static double
cpu(void)
{
	struct rusage	ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
bench_now(void *arg)
{
	double	t = now();

	(void)arg;
	if (published == 0)
		published = t;
	return t;
}

static void
bench_sleep(void *arg, double seconds)
{
	exchange_clock_real.sleep(arg, seconds);
}

static const struct exchange_clock bench_clock = {
	bench_now, bench_sleep, NULL
};

static void
bench_go(int sig)
{
	(void)sig;
}

/* Says it is ready in the file ready, and waits for SIGUSR1. */
static void
bench_wait(const char *ready)
{
	struct sigaction	sa;
	sigset_t		usr1, old;
	int			fd;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = bench_go;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	if ((fd = open(ready, O_WRONLY | O_APPEND)) != -1) {
		(void)write(fd, "x", 1);
		close(fd);
	}
	sigdelset(&old, SIGUSR1);
	sigsuspend(&old);
}

int
main(int argc, char **argv)
{
	struct exchange_opts	o;
	struct exchange_node	x;
	struct exchange_result	r;
	struct auth		a;
	char			*cause = NULL, line[256];
	char			 hex[AUTH_HEX_LEN + 1];
	double			 start, cpu0;
	long			 task;
	int			 xc;

	if (argc != 7) {
		fprintf(stderr, "usage: exchange-node DIR JOBID NNODES TASK "
		    "SECRET READY\n");
		return 2;
	}
	memset(&o, 0, sizeof o);
	memset(&x, 0, sizeof x);
	memset(&a, 0, sizeof a);
	if (auth_parse(&a, argv[5], "bench", &cause) == -1) {
		fprintf(stderr, "exchange-node: %s\n", cause);
		return 2;
	}
	/* libcrypto's first HMAC loads its provider: some 3 ms of CPU,
	 * which a node spends on its own machine whatever it exchanges
	 * (ddprank exec has derived the port by then), not on the shared
	 * directory. Paid before the start, as the process's own start
	 * is. */
	if (getenv("BENCH_COLD") == NULL)
		(void)auth_mac_hex(&a, "bench", "", 0, hex);
	bench_wait(argv[6]);
	start = now();
	cpu0 = cpu();
	o.method = EXCHANGE_DIR;
	o.dir = xstrdup(argv[1]);
	o.timeout = 300;
	o.auth = &a;
	o.clock = &bench_clock;
	x.jobid = argv[2];
	x.nnodes = strtoull(argv[3], NULL, 10);
	task = strtol(argv[4], NULL, 10);
	x.self.task = task;
	snprintf(x.self.host, sizeof x.self.host, "node%04ld", task);
	snprintf(x.self.addr, sizeof x.self.addr, "10.%ld.%ld.%ld",
	    (task >> 16) & 255, (task >> 8) & 255, task & 255);
	xc = exchange_dir(&r, &o, &x, &cause);
	snprintf(line, sizeof line, "%ld %.6f %.6f %.6f %lu %lu %d %.6f\n",
	    task, start, published, now(), nopen, nread, xc, cpu() - cpu0);
	(void)write(STDOUT_FILENO, line, strlen(line));
	if (xc != 0)
		fprintf(stderr, "exchange-node %ld: %s\n", task, cause);
	exchange_result_free(&r);
	exchange_opts_free(&o);
	return xc;
}
