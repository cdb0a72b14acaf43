/* check_sdir.c: the StrictModes layer for shared directories
 * (src/sdir.c), which the exchange and the doctor both use: each attack
 * class (a link, another owner, a mode others can write, a planted file
 * of the wrong kind) against each of its entry points. Another user is
 * played by giving the sdir another uid than the files': no root
 * needed. */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "sdir.h"
#include "testlib.h"
#include "util.h"
#include "xmalloc.h"

static char	*tmp;

static void
setup(void)
{
	tmp = t_tmpdir("check_sdir");
}

static void
teardown(void)
{
	t_rmtree(tmp);
}

/* tmp/name, for the caller to free. */
static char *
at(const char *name)
{
	char	*s;

	xasprintf(&s, "%s/%s", tmp, name);
	return s;
}

/* Opens base tmp/name as uid; expects want (0 or -1), and for -1 the
 * message with "@" for the path, and whether it was a refusal. */
static void
expect_base(const char *name, uid_t uid, int noowners, int secret,
    int want, const char *msg, int refused)
{
	struct sdir	 d;
	char		*path = at(name), *cause = NULL, *w = NULL;
	const char	*p;
	struct buf	 b;

	sdir_init(&d, uid);
	ck_assert_int_eq(sdir_open_base(&d, path, "base", noowners, secret,
	    &cause), want);
	ck_assert_int_eq(d.refused, refused);
	if (msg != NULL) {
		buf_init(&b);
		for (p = msg; *p != '\0'; p++) {
			if (*p == '@')
				buf_adds(&b, path);
			else
				buf_addc(&b, *p);
		}
		w = buf_take(&b);
		ck_assert_str_eq(cause, w);
	}
	free(w);
	free(cause);
	sdir_close(&d);
	free(path);
}

START_TEST(test_base)
{
	struct stat	 st;
	char		*p;

	/* Missing: made, private to this user. */
	expect_base("new", geteuid(), 0, 0, 0, NULL, 0);
	p = at("new");
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	free(p);
	/* A link, even to a good directory. */
	p = at("link");
	ck_assert_int_eq(symlink("new", p), 0);
	free(p);
	expect_base("link", geteuid(), 0, 0, -1, "base @: a symbolic link", 1);
	/* Not a directory. */
	p = at("file");
	t_write(p, "x", 1);
	free(p);
	expect_base("file", geteuid(), 0, 0, -1, "base @: not a directory", 1);
	/* Writable by others, not sticky; sticky is fine. */
	p = at("open");
	ck_assert_int_eq(mkdir(p, 0700), 0);
	ck_assert_int_eq(chmod(p, 0777), 0);
	expect_base("open", geteuid(), 0, 0, -1, "base @: mode 0777: writable "
	    "by others and not sticky, so they could swap your files; "
	    "chmod +t", 1);
	ck_assert_int_eq(chmod(p, 01777), 0);
	expect_base("open", geteuid(), 0, 0, 0, NULL, 0);
	free(p);
	/* Another user's (root's would do): as root, one chowned away;
	 * otherwise this user's, seen by another. */
	p = at("new");
	if (geteuid() == 0)
		ck_assert_int_eq(chown(p, 12345, 12345), 0);
	free(p);
	expect_base("new", geteuid() == 0 ? 0 : geteuid() + 1, 0, 0, -1, NULL,
	    1);
	/* Where owners mean nothing, only a secret makes it usable. */
	expect_base("new", geteuid() + 1, 1, 0, -1, "base @ is on a file "
	    "system that does not keep owners (cifs, smb): anyone could write "
	    "in it; give the job a secret (DDPRANK_SECRET, or the key file "
	    "~/.ddprank/key, which 'ddprank key' makes)", 1);
	expect_base("new", geteuid() + 1, 1, 1, 0, NULL, 0);
	/* A failing call is not a refusal. */
	expect_base("nodir/x", geteuid(), 0, 0, -1, "base @: No such file or "
	    "directory", 0);
}
END_TEST

/* Opens the run directory name of base tmp as uid. */
static int
open_run(struct sdir *base, struct sdir *run, const char *name, uid_t uid,
    char **cause)
{
	sdir_init(base, geteuid());
	sdir_init(run, uid);
	ck_assert_int_eq(sdir_open_base(base, tmp, "base", 0, 0, cause), 0);
	base->uid = uid;
	return sdir_open_run(run, base, name, "run", cause);
}

START_TEST(test_run)
{
	struct sdir	 base, run;
	struct stat	 st;
	char		*cause = NULL, *p, *want;

	/* Made by this node, then by another node of the same user. */
	ck_assert_int_eq(open_run(&base, &run, "r1", geteuid(), &cause), 0);
	ck_assert_int_eq(fstat(run.fd, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	sdir_close(&run);
	sdir_close(&base);
	ck_assert_int_eq(open_run(&base, &run, "r1", geteuid(), &cause), 0);
	sdir_close(&run);
	sdir_close(&base);
	/* Made by someone else. */
	ck_assert_int_eq(open_run(&base, &run, "r1", geteuid() + 1, &cause),
	    -1);
	xasprintf(&want, "run %s/r1 is owned by uid %lu, not by you: someone "
	    "else made it; not using it", tmp, (unsigned long)geteuid());
	ck_assert_str_eq(cause, want);
	ck_assert_int_eq(run.refused, 1);
	free(want);
	free(cause);
	sdir_close(&run);
	sdir_close(&base);
	/* This user's, but others could write in it. */
	p = at("r2");
	ck_assert_int_eq(mkdir(p, 0700), 0);
	ck_assert_int_eq(chmod(p, 0770), 0);
	ck_assert_int_eq(open_run(&base, &run, "r2", geteuid(), &cause), -1);
	xasprintf(&want, "run %s: mode 0770: others could write in it; not "
	    "using it", p);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);
	sdir_close(&run);
	sdir_close(&base);
	free(p);
	/* A link to a directory of this user's. */
	p = at("r3");
	ck_assert_int_eq(symlink("r1", p), 0);
	ck_assert_int_eq(open_run(&base, &run, "r3", geteuid(), &cause), -1);
	xasprintf(&want, "run %s: a symbolic link", p);
	ck_assert_str_eq(cause, want);
	ck_assert_int_eq(run.refused, 1);
	free(want);
	free(cause);
	sdir_close(&run);
	sdir_close(&base);
	free(p);
}
END_TEST

START_TEST(test_files)
{
	struct sdir	 base, run;
	struct stat	 st;
	char		 buf[16], *cause = NULL, *why = NULL, *p;

	ck_assert_int_eq(open_run(&base, &run, "r", geteuid(), &cause), 0);
	ck_assert_int_eq(sdir_write(&run, "a", "hello", 5, &st, &cause), 0);
	ck_assert_int_eq(st.st_size, 5);
	ck_assert_int_eq(sdir_read(&run, "a", buf, sizeof buf, &st, &why), 5);
	ck_assert_int_eq(memcmp(buf, "hello", 5), 0);
	/* Read at most len bytes of a large file. */
	ck_assert_int_eq(sdir_read(&run, "a", buf, 2, &st, &why), 2);
	/* Missing, a link, a FIFO (which must not block), a directory. */
	ck_assert_int_eq(sdir_read(&run, "none", buf, sizeof buf, &st, &why),
	    -2);
	p = at("r/l");
	ck_assert_int_eq(symlink("a", p), 0);
	free(p);
	ck_assert_int_eq(sdir_read(&run, "l", buf, sizeof buf, &st, &why), -1);
	ck_assert_str_eq(why, "a symbolic link");
	free(why);
	p = at("r/f");
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	free(p);
	ck_assert_int_eq(sdir_read(&run, "f", buf, sizeof buf, &st, &why), -1);
	ck_assert_str_eq(why, "not a regular file");
	free(why);
	/* Another user's file: its owner is not this sdir's uid. */
	run.uid = geteuid() + 1;
	ck_assert_int_eq(sdir_read(&run, "a", buf, sizeof buf, &st, &why), -1);
	xasprintf(&p, "owned by uid %lu, not by you",
	    (unsigned long)geteuid());
	ck_assert_str_eq(why, p);
	free(p);
	free(why);
	/* Unless owners mean nothing here. */
	run.noowners = 1;
	ck_assert_int_eq(sdir_read(&run, "a", buf, sizeof buf, &st, &why), 5);
	run.noowners = 0;
	run.uid = geteuid();
	/* A write never follows a link at its name: it replaces the link. */
	ck_assert_int_eq(sdir_write(&run, "l", "x", 1, NULL, &cause), 0);
	ck_assert_int_eq(sdir_read(&run, "a", buf, sizeof buf, &st, &why), 5);
	/* Exclusive creation. */
	ck_assert_int_eq(sdir_create(&run, "c"), 1);
	ck_assert_int_eq(sdir_create(&run, "c"), 0);
	/* Written once, in place: never over a name that is there, a
	 * link least of all. */
	ck_assert_int_eq(sdir_write_new(&run, "n", "new", 3, &st, &cause), 0);
	ck_assert_int_eq(st.st_size, 3);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(sdir_read(&run, "n", buf, sizeof buf, &st, &why), 3);
	ck_assert_int_eq(sdir_write_new(&run, "n", "x", 1, NULL, &cause), -2);
	ck_assert_int_eq(sdir_write_new(&run, "a", "x", 1, NULL, &cause), -2);
	p = at("r/l2");
	ck_assert_int_eq(symlink("zz", p), 0);
	free(p);
	ck_assert_int_eq(sdir_write_new(&run, "l2", "x", 1, NULL, &cause), -2);
	p = at("r/zz");
	ck_assert_int_eq(access(p, F_OK), -1);
	free(p);
	ck_assert_int_eq(sdir_exists(&run, "n"), 1);
	ck_assert_int_eq(sdir_exists(&run, "l2"), 1);
	ck_assert_int_eq(sdir_exists(&run, "nothing"), 0);
	ck_assert_int_eq(sdir_probe(&run, &cause), 0);
	sdir_close(&run);
	sdir_close(&base);
}
END_TEST

static int
ours(const char *name)
{
	return name[0] == 'o';
}

START_TEST(test_remove)
{
	struct sdir	 base, run;
	struct stat	 st;
	char		*cause = NULL, *p, *q;

	/* Only our names go; then the directory stays for what is left. */
	ck_assert_int_eq(open_run(&base, &run, "r", geteuid(), &cause), 0);
	ck_assert_int_eq(sdir_write(&run, "o1", "x", 1, NULL, &cause), 0);
	ck_assert_int_eq(sdir_write(&run, "keep", "x", 1, NULL, &cause), 0);
	ck_assert_int_eq(sdir_remove(&base, "r", ours), -1);
	p = at("r/o1");
	ck_assert_int_eq(stat(p, &st), -1);
	free(p);
	p = at("r/keep");
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(unlink(p), 0);
	free(p);
	ck_assert_int_eq(sdir_remove(&base, "r", ours), 0);
	p = at("r");
	ck_assert_int_eq(stat(p, &st), -1);
	free(p);
	sdir_close(&run);
	/* Never through a link: a linked run directory's files stay. */
	p = at("precious");
	ck_assert_int_eq(mkdir(p, 0700), 0);
	q = at("precious/o1");
	t_write(q, "keep", 4);
	free(p);
	p = at("l");
	ck_assert_int_eq(symlink("precious", p), 0);
	ck_assert_int_eq(sdir_remove(&base, "l", ours), -1);
	ck_assert_int_eq(stat(q, &st), 0);
	free(q);
	free(p);
	/* Nor another user's directory, nor another user's files. */
	p = at("theirs");
	ck_assert_int_eq(mkdir(p, 0700), 0);
	q = at("theirs/o1");
	t_write(q, "keep", 4);
	base.uid = geteuid() + 1;
	ck_assert_int_eq(sdir_remove(&base, "theirs", ours), -1);
	ck_assert_int_eq(stat(q, &st), 0);
	free(q);
	free(p);
	/* A missing one is already gone. */
	base.uid = geteuid();
	ck_assert_int_eq(sdir_remove(&base, "none", ours), 0);
	sdir_close(&base);
}
END_TEST

static Suite *
sdir_suite(void)
{
	Suite	*s = suite_create("sdir");
	TCase	*tc = tcase_create("sdir");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_base);
	tcase_add_test(tc, test_run);
	tcase_add_test(tc, test_files);
	tcase_add_test(tc, test_remove);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(sdir_suite());
}
