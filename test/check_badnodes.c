/* check_badnodes.c: unit tests for the nodes remembered as bad and the
 * state directory they are kept in (badnodes.h, state.h). */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "badnodes.h"
#include "sdir.h"
#include "state.h"
#include "testlib.h"
#include "util.h"
#include "xmalloc.h"

START_TEST(test_parse)
{
	static const char	text[] = "# comment\n\nslurm nid1 100 a "
	    "training stalled on it\ncori nid2 200 \n";
	struct badnodes		b;
	struct buf		out;
	char			*cause;

	ck_assert_int_eq(badnodes_parse(&b, text, sizeof text - 1, &cause), 0);
	ck_assert_uint_eq(b.n, 2);
	ck_assert_str_eq(b.v[0].site, "slurm");
	ck_assert_str_eq(b.v[0].node, "nid1");
	ck_assert_int_eq(b.v[0].until, 100);
	ck_assert_str_eq(b.v[0].why, "a training stalled on it");
	ck_assert_str_eq(b.v[1].why, "");
	buf_init(&out);
	badnodes_format(&out, &b);
	ck_assert(strstr(out.s, "\nslurm nid1 100 a training stalled on it\n"
	    "cori nid2 200 \n") != NULL);
	buf_free(&out);
	badnodes_free(&b);
	ck_assert_int_eq(badnodes_parse(&b, "slurm nid1\n", 11, &cause), -1);
	ck_assert_str_eq(cause, "line 1: not 'SITE NODE UNTIL WHY'");
	free(cause);
	ck_assert_int_eq(badnodes_parse(&b, "\nslurm nid1 -5 x\n", 17,
	    &cause), -1);
	ck_assert_str_eq(cause, "line 2: not 'SITE NODE UNTIL WHY'");
	free(cause);
	ck_assert_int_eq(badnodes_parse(&b, "a  1 x\n", 7, &cause), -1);
	free(cause);
}
END_TEST

START_TEST(test_edit)
{
	struct badnodes	 b;
	struct strlist	 l;
	const char	*gone[] = { "n2", "nx", NULL };

	badnodes_init(&b);
	badnodes_add(&b, "s", "n1", 100, "first");
	badnodes_add(&b, "s", "n2", 300, "second");
	badnodes_add(&b, "t", "n1", 50, "other site");
	/* A later time renews; an earlier one does not. */
	badnodes_add(&b, "s", "n1", 200, "renewed");
	badnodes_add(&b, "s", "n2", 10, "older");
	ck_assert_uint_eq(b.n, 3);
	ck_assert_int_eq(b.v[0].until, 200);
	ck_assert_str_eq(b.v[0].why, "renewed");
	ck_assert_str_eq(b.v[1].why, "second");
	strlist_init(&l);
	badnodes_of(&b, "s", &l);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_str_eq(l.v[1], "n2");
	strlist_free(&l);
	ck_assert_uint_eq(badnodes_expire(&b, 50), 1);
	ck_assert_uint_eq(b.n, 2);
	ck_assert_uint_eq(badnodes_forget(&b, gone), 1);
	ck_assert_uint_eq(b.n, 1);
	ck_assert_str_eq(b.v[0].node, "n1");
	ck_assert_uint_eq(badnodes_forget(&b, NULL), 1);
	ck_assert_uint_eq(b.n, 0);
	badnodes_free(&b);
}
END_TEST

START_TEST(test_scope)
{
	char	*s;

	ck_assert_str_eq(s = badnodes_scope("perlmutter"), "perlmutter");
	free(s);
	ck_assert_str_eq(s = badnodes_scope("/etc/ddpgen/my site.conf"),
	    "my_site");
	free(s);
	ck_assert_str_eq(s = badnodes_scope("./.conf"), "_");
	free(s);
}
END_TEST

/* The environment tests see: XDG_STATE_HOME and HOME below a scratch
 * directory. */
static char	*tmp, *xdg, *home;

static const char *
fake_env(const char *name)
{
	if (strcmp(name, "XDG_STATE_HOME") == 0)
		return xdg;
	if (strcmp(name, "HOME") == 0)
		return home;
	return NULL;
}

static void
setup(void)
{
	tmp = t_tmpdir("check_badnodes");
	xasprintf(&home, "%s/home", tmp);
	xdg = NULL;
}

static void
teardown(void)
{
	free(home);
	free(xdg);
	t_rmtree(tmp);
}

START_TEST(test_state_path)
{
	char	*p, *cause;

	ck_assert_ptr_nonnull(p = state_path(fake_env, &cause));
	ck_assert(strstr(p, "/home/.local/state/ddpgen") != NULL);
	free(p);
	/* A relative XDG_STATE_HOME is ignored, as the XDG rules say. */
	xdg = xstrdup("rel");
	ck_assert_ptr_nonnull(p = state_path(fake_env, &cause));
	ck_assert(strstr(p, "/home/.local/state/ddpgen") != NULL);
	free(p);
	free(xdg);
	xasprintf(&xdg, "%s/xdg", tmp);
	ck_assert_ptr_nonnull(p = state_path(fake_env, &cause));
	ck_assert(strstr(p, "/xdg/ddpgen") != NULL);
	free(p);
	free(home);
	home = NULL;
	free(xdg);
	xdg = NULL;
	ck_assert_ptr_null(state_path(fake_env, &cause));
	ck_assert_str_eq(cause, "no state directory: XDG_STATE_HOME and HOME "
	    "are unset or not absolute");
	free(cause);
}
END_TEST

static int
add_two(struct badnodes *b, void *arg)
{
	(void)arg;
	badnodes_add(b, "s", "n1", 2000, "why one");
	badnodes_add(b, "s", "n2", 1500, "why two");
	return 1;
}

static int
forget_n1(struct badnodes *b, void *arg)
{
	static const char *const n1[] = { "n1", NULL };

	(void)arg;
	return badnodes_forget(b, n1) > 0;
}

START_TEST(test_update)
{
	struct badnodes	 b;
	struct stat	 st;
	char		*path, *cause;

	/* The state directory and its parents are made 0700. */
	ck_assert_int_eq(badnodes_update(&b, 1000, add_two, NULL, fake_env,
	    &cause), 0);
	badnodes_free(&b);
	xasprintf(&path, "%s/.local/state", home);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	free(path);
	xasprintf(&path, "%s/.local/state/ddpgen/" BADNODES_FILE, home);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	/* Read back; n2 has expired by 1600. */
	ck_assert_int_eq(badnodes_update(&b, 1600, NULL, NULL, fake_env,
	    &cause), 0);
	ck_assert_uint_eq(b.n, 1);
	ck_assert_str_eq(b.v[0].node, "n1");
	badnodes_free(&b);
	ck_assert_int_eq(badnodes_update(&b, 1600, forget_n1, NULL, fake_env,
	    &cause), 0);
	ck_assert_uint_eq(b.n, 0);
	badnodes_free(&b);
	/* A file someone could have swapped is refused, not read. */
	t_write(path, "s n9 99999 planted\n", 19);
	free(path);
	xasprintf(&path, "%s/.local/state/ddpgen", home);
	ck_assert_int_eq(chmod(path, 0777), 0);
	ck_assert_int_eq(badnodes_update(&b, 1600, NULL, NULL, fake_env,
	    &cause), -1);
	ck_assert(strstr(cause, "writable by others and not sticky") != NULL);
	free(cause);
	ck_assert_int_eq(chmod(path, 0700), 0);
	free(path);
	/* A malformed file is one line naming it and its line. */
	xasprintf(&path, "%s/.local/state/ddpgen/" BADNODES_FILE, home);
	t_write(path, "x\n", 2);
	ck_assert_int_eq(badnodes_update(&b, 1600, NULL, NULL, fake_env,
	    &cause), -1);
	ck_assert(strstr(cause, "/" BADNODES_FILE ": line 1: not 'SITE NODE "
	    "UNTIL WHY'") != NULL);
	free(cause);
	free(path);
}
END_TEST

static Suite *
badnodes_suite(void)
{
	Suite	*s = suite_create("badnodes");
	TCase	*tc = tcase_create("core");
	TCase	*fs = tcase_create("files");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_edit);
	tcase_add_test(tc, test_scope);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(fs, setup, teardown);
	tcase_add_test(fs, test_state_path);
	tcase_add_test(fs, test_update);
	suite_add_tcase(s, fs);
	return s;
}

int
main(void)
{
	return t_run(badnodes_suite());
}
