/* check_util.c: unit tests for buffers, string lists, numbers and files. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"
#include "util.h"
#include "xmalloc.h"

START_TEST(test_buf)
{
	struct buf	 b;
	char		*s;
	int		 i;

	buf_init(&b);
	ck_assert_str_eq(b.s, "");
	for (i = 0; i < 1000; i++)
		buf_addc(&b, 'x');
	ck_assert_uint_eq(b.len, 1000);
	buf_addf(&b, "%d-%s", 42, "y");
	ck_assert_str_eq(b.s + 1000, "42-y");
	buf_addn(&b, "a\0b", 3);
	ck_assert_uint_eq(b.len, 1007);
	ck_assert_int_eq(memcmp(b.s + 1004, "a\0b", 3), 0);
	s = buf_take(&b);
	ck_assert_uint_eq(strlen(s), 1005);
	ck_assert_ptr_null(b.s);
	ck_assert_uint_eq(b.len, 0);
	free(s);
	buf_adds(&b, "again");
	ck_assert_str_eq(b.s, "again");
	buf_free(&b);
}
END_TEST

/* "a", "a or b", "a, b and c": the one list joiner. */
START_TEST(test_buf_item)
{
	const char	*w[] = { "a", "b", "c" };
	const char	*want[] = { "a", "a or b", "a, b and c" };
	struct buf	 b;
	size_t		 n, i;

	for (n = 1; n <= 3; n++) {
		buf_init(&b);
		for (i = 0; i < n; i++)
			buf_add_item(&b, w[i], i + 1 == n,
			    n == 3 ? " and " : " or ");
		ck_assert_str_eq(b.s, want[n - 1]);
		buf_free(&b);
	}
}
END_TEST

START_TEST(test_strlist)
{
	struct strlist	a, b;
	int		i;
	char		num[16];

	strlist_init(&a);
	ck_assert_ptr_null(a.v[0]);
	for (i = 0; i < 100; i++) {
		snprintf(num, sizeof num, "%d", i);
		strlist_add(&a, num);
	}
	ck_assert_uint_eq(a.n, 100);
	ck_assert_str_eq(a.v[99], "99");
	ck_assert_ptr_null(a.v[100]);
	memset(&b, 0, sizeof b);
	strlist_copy(&b, &a);
	ck_assert_uint_eq(b.n, 100);
	ck_assert_str_eq(b.v[42], "42");
	strlist_free(&a);
	strlist_free(&b);
	strlist_free(&b);
}
END_TEST

START_TEST(test_strtonum)
{
	long long	v;

	ck_assert_int_eq(util_strtonum("12", 1, 100, &v), 0);
	ck_assert_int_eq(v, 12);
	ck_assert_int_eq(util_strtonum("0", 1, 100, &v), -1);
	ck_assert_int_eq(util_strtonum("101", 1, 100, &v), -1);
	ck_assert_int_eq(util_strtonum("", 0, 100, &v), -1);
	ck_assert_int_eq(util_strtonum(" 1", 0, 100, &v), -1);
	ck_assert_int_eq(util_strtonum("+1", 0, 100, &v), -1);
	ck_assert_int_eq(util_strtonum("1x", 0, 100, &v), -1);
	ck_assert_int_eq(util_strtonum("99999999999999999999", 0, 100, &v),
	    -1);
	ck_assert_int_eq(util_strtonum("-5", -10, 100, &v), 0);
	ck_assert_int_eq(v, -5);
}
END_TEST

START_TEST(test_cntrl)
{
	ck_assert_int_eq(util_iscntrl('\n'), 1);
	ck_assert_int_eq(util_iscntrl(1), 1);
	ck_assert_int_eq(util_iscntrl(31), 1);
	ck_assert_int_eq(util_iscntrl(127), 1);
	ck_assert_int_eq(util_iscntrl(0), 0);
	ck_assert_int_eq(util_iscntrl(' '), 0);
	ck_assert_int_eq(util_iscntrl(0xc3), 0);
	ck_assert_int_eq(util_has_cntrl("plain caf\xc3\xa9"), 0);
	ck_assert_int_eq(util_has_cntrl("a\tb"), 1);
	ck_assert_int_eq(util_has_cntrl("\x7f"), 1);
	ck_assert_int_eq(util_has_cntrl(""), 0);
}
END_TEST

START_TEST(test_fail)
{
	char	*cause = NULL;

	ck_assert_int_eq(util_fail(&cause, "bad %s at %d", "x", 3), -1);
	ck_assert_str_eq(cause, "bad x at 3");
	free(cause);
	ck_assert_int_eq(util_fail(NULL, "ignored"), -1);
}
END_TEST

/* Checks that dir holds no entry but one named only, if not NULL. */
static void
expect_only(const char *dir, const char *only)
{
	DIR		*d;
	struct dirent	*e;

	ck_assert_msg((d = opendir(dir)) != NULL, "%s: %s", dir,
	    strerror(errno));
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		ck_assert_msg(only != NULL && strcmp(e->d_name, only) == 0,
		    "%s: stray %s", dir, e->d_name);
	}
	closedir(d);
}

START_TEST(test_files)
{
	char		*dir = t_tmpdir("check_util"), *path, *keep, *want;
	char		*s, *cause = NULL;
	size_t		 len;
	struct stat	 st;

	xasprintf(&path, "%s/out", dir);
	ck_assert_int_eq(util_writefile(path, "a\0bc", 4, 0755, &cause), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0755);
	s = util_readfile(path, &len, &cause);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, 4);
	ck_assert_int_eq(memcmp(s, "a\0bc", 4), 0);
	free(s);
	ck_assert_int_eq(unlink(path), 0);
	free(path);

	/* A directory that does not exist: error, nothing left. */
	xasprintf(&path, "%s/no/out", dir);
	ck_assert_int_eq(util_writefile(path, "x", 1, 0644, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "No such file"));
	free(cause);
	s = util_readfile(path, &len, &cause);
	ck_assert_ptr_null(s);
	ck_assert_ptr_nonnull(strstr(cause, path));
	free(cause);
	free(path);
	expect_only(dir, NULL);

	/* The rename fails, the target being a directory: error, the
	 * directory as it was and no temporary file beside it. */
	xasprintf(&path, "%s/out", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	xasprintf(&keep, "%s/keep", path);
	t_write(keep, "k", 1);
	ck_assert_int_eq(util_writefile(path, "x", 1, 0644, &cause), -1);
	xasprintf(&want, "%s: %s", path, strerror(EISDIR));
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	expect_only(dir, "out");
	expect_only(path, "keep");
	s = util_readfile(keep, &len, &cause);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, 1);
	ck_assert_int_eq(memcmp(s, "k", 1), 0);
	free(s);
	free(keep);
	free(path);
	t_rmtree(dir);
}
END_TEST

/* util_readfile_max: a file of max bytes is read, one more is an error
 * naming the limit; /dev/zero ends at the limit, not with the memory. */
START_TEST(test_readfile_max)
{
	char	*dir, *path, *s, *cause;
	size_t	 len;

	dir = t_tmpdir("check_util");
	xasprintf(&path, "%s/f", dir);
	t_write(path, "abcd", 4);
	s = util_readfile_max(path, 4, &len, &cause);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, 4);
	free(s);
	ck_assert_ptr_null(util_readfile_max(path, 3, &len, &cause));
	ck_assert_ptr_nonnull(strstr(cause, ": larger than 3 bytes"));
	free(cause);
	ck_assert_ptr_null(util_readfile_max("/dev/zero", 2u << 20, &len,
	    &cause));
	ck_assert_str_eq(cause, "/dev/zero: larger than 2 MiB");
	free(cause);
	free(path);
	t_rmtree(dir);
}
END_TEST

/* util_writeout: a link is followed and its target replaced, the link
 * kept. Devices and FIFOs are t-output.sh's. */
START_TEST(test_writeout)
{
	char		*dir = t_tmpdir("check_util"), *target, *link, *s;
	char		*cause = NULL;
	struct stat	 st;
	size_t		 len;
	ino_t		 ino;

	xasprintf(&target, "%s/target", dir);
	xasprintf(&link, "%s/link", dir);
	t_write(target, "old", 3);
	ck_assert_int_eq(symlink("target", link), 0);
	ck_assert_int_eq(stat(target, &st), 0);
	ino = st.st_ino;
	ck_assert_int_eq(util_writeout(link, "new", 3, 0700, &cause), 0);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert(st.st_ino != ino);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	s = util_readfile(target, &len, &cause);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(memcmp(s, "new", 3), 0);
	free(s);
	/* A dangling link: its target is created through it. */
	ck_assert_int_eq(unlink(target), 0);
	ck_assert_int_eq(util_writeout(link, "x", 1, 0600, &cause), 0);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	/* A directory: an error naming it, the directory left alone. */
	ck_assert_int_eq(util_writeout(dir, "x", 1, 0600, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, dir));
	free(cause);
	free(target);
	free(link);
	t_rmtree(dir);
}
END_TEST

/* util_drain waits for a pipe's reader, gives up after its limit, and
 * does not wait on what is not a pipe. */
START_TEST(test_drain)
{
	int	 p[2], st;
	char	 c[8];
	pid_t	 pid;
	FILE	*f;

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(util_drain(p[1], 0), 0);	/* empty pipe */
	ck_assert_int_eq(write(p[1], "error\n", 6), 6);
	ck_assert_int_eq(util_drain(p[1], 50), -1);	/* nobody reads */
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		/* The reader: takes its time, then reads it all. */
		usleep(200 * 1000);
		_exit(read(p[0], c, sizeof c) == 6 ? 0 : 1);
	}
	ck_assert_int_eq(util_drain(p[1], 10000), 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* Drained means read: nothing is left for this process. */
	ck_assert_int_eq(util_drain(p[1], 0), 0);
	close(p[0]);
	close(p[1]);

	f = tmpfile();
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(util_drain(fileno(f), 0), 0);
	fclose(f);
}
END_TEST

/* An error line is one line, whatever the message holds, and bounded. */
START_TEST(test_warnline)
{
	struct buf	 b;
	char		*msg, *want;
	size_t		 i;

	util_progname = "prog";
	buf_init(&b);
	util_warnline(&b, "bad 'a\nb\tc\rd\001e\177f \303\251'");
	ck_assert_str_eq(b.s,
	    "prog: bad 'a\\nb\\tc\\rd\\x01e\\x7ff \303\251'\n");
	buf_free(&b);

	/* Exactly the limit: kept whole. */
	msg = xmalloc(UTIL_WARN_MAX + 3000 + 1);
	memset(msg, 'a', UTIL_WARN_MAX);
	msg[UTIL_WARN_MAX] = '\0';
	buf_init(&b);
	util_warnline(&b, msg);
	ck_assert_uint_eq(b.len, strlen("prog: ") + UTIL_WARN_MAX + 1);
	buf_free(&b);

	/* Longer: its head and tail around a count of what is left out. */
	for (i = 0; i < UTIL_WARN_MAX + 3000; i++)
		msg[i] = i < UTIL_WARN_HEAD ? 'h' :
		    i >= UTIL_WARN_MAX + 3000 - UTIL_WARN_TAIL ? 't' : 'm';
	msg[UTIL_WARN_MAX + 3000] = '\0';
	buf_init(&b);
	util_warnline(&b, msg);
	xasprintf(&want, "prog: %.*s [... %d bytes left out ...] %.*s\n",
	    UTIL_WARN_HEAD, msg, UTIL_WARN_MAX + 3000 - UTIL_WARN_HEAD -
	    UTIL_WARN_TAIL, UTIL_WARN_TAIL, msg + UTIL_WARN_MAX + 3000 -
	    UTIL_WARN_TAIL);
	ck_assert_str_eq(b.s, want);
	free(want);
	buf_free(&b);

	/* A cut never splits a UTF-8 sequence: both cuts fall inside one
	 * of 2 bytes here, so the head ends before it and the tail starts
	 * after it. */
	msg[UTIL_WARN_HEAD - 1] = '\303';
	msg[UTIL_WARN_HEAD] = '\251';
	i = UTIL_WARN_MAX + 3000 - UTIL_WARN_TAIL;
	msg[i - 1] = '\303';
	msg[i] = '\251';
	buf_init(&b);
	util_warnline(&b, msg);
	xasprintf(&want, "prog: %.*s [... %d bytes left out ...] %s\n",
	    UTIL_WARN_HEAD - 1, msg, UTIL_WARN_MAX + 3000 - UTIL_WARN_HEAD -
	    UTIL_WARN_TAIL + 2, msg + i + 1);
	ck_assert_str_eq(b.s, want);
	free(want);
	buf_free(&b);
	free(msg);
}
END_TEST

static Suite *
util_suite(void)
{
	Suite	*s = suite_create("util");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_buf);
	tcase_add_test(tc, test_buf_item);
	tcase_add_test(tc, test_strlist);
	tcase_add_test(tc, test_strtonum);
	tcase_add_test(tc, test_cntrl);
	tcase_add_test(tc, test_fail);
	tcase_add_test(tc, test_files);
	tcase_add_test(tc, test_readfile_max);
	tcase_add_test(tc, test_writeout);
	tcase_add_test(tc, test_drain);
	tcase_add_test(tc, test_warnline);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(util_suite());
}
