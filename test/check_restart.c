/* check_restart.c: unit tests for the restart count, the last stop and
 * the checkpoint signal ddprank exec passes to the training. */
#include "config.h"

#include <signal.h>
#include <stdlib.h>

#include <check.h>

#include "restart.h"
#include "testlib.h"

/* The environment restart_read sees: NAME=value strings, NULL last. */
static const char *const *env_now;

static const char *
env_get(const char *name)
{
	return t_env_get((void *)env_now, name);
}

static struct restart
read_ok(const char *const *env)
{
	struct restart	 r;
	char		*cause = NULL;

	env_now = env;
	ck_assert_int_eq(restart_read(&r, env_get, &cause), 0);
	ck_assert_ptr_null(cause);
	return r;
}

START_TEST(test_first_run)
{
	static const char *const env[] = { NULL };
	struct restart	r = read_ok(env);

	ck_assert_int_eq(r.count, 0);
	ck_assert_str_eq(r.last_stop, "none");
	ck_assert_int_eq(r.signo, 0);
}
END_TEST

START_TEST(test_counts)
{
	static const char *const env[] = { "SLURM_RESTART_COUNT=2",
	    "DDPGEN_RESTART_BASE=3", "DDPGEN_LAST_STOP=time-limit",
	    "DDPGEN_CHECKPOINT_SIGNAL=USR2", NULL };
	struct restart	r = read_ok(env);

	ck_assert_int_eq(r.count, 5);
	ck_assert_str_eq(r.last_stop, "time-limit");
	ck_assert_int_eq(r.signo, SIGUSR2);
}
END_TEST

/* A checkpoint asked for by hand (scancel -b --signal) and requeued. */
START_TEST(test_by_hand)
{
	static const char *const env[] = { "SLURM_RESTART_COUNT=1",
	    "DDPGEN_LAST_STOP=by-hand", NULL };
	static const char *const env0[] = { "DDPGEN_LAST_STOP=by-hand", NULL };
	struct restart	r = read_ok(env);

	ck_assert_str_eq(r.last_stop, "by-hand");
	r = read_ok(env0);
	ck_assert_str_eq(r.last_stop, "none");
}
END_TEST

/* HPC Pack's reruns: no warning came, so the reason is "requeued". */
START_TEST(test_hpcpack)
{
	static const char *const env[] = { "CCP_RETRY_COUNT=2", NULL };
	static const char *const env0[] = { "CCP_RETRY_COUNT=0", NULL };
	struct restart	r = read_ok(env);

	ck_assert_int_eq(r.count, 2);
	ck_assert_str_eq(r.last_stop, "requeued");
	r = read_ok(env0);
	ck_assert_int_eq(r.count, 0);
	ck_assert_str_eq(r.last_stop, "none");
}
END_TEST

/* Garbage counts as 0; a reason that does not fit the count is not
 * believed. */
START_TEST(test_garbage)
{
	static const char *const env1[] = { "SLURM_RESTART_COUNT=-1",
	    "DDPGEN_RESTART_BASE=1x", "DDPGEN_LAST_STOP=preemption", NULL };
	static const char *const env2[] = { "SLURM_RESTART_COUNT=1",
	    "DDPGEN_LAST_STOP=none", NULL };
	static const char *const env3[] = { "SLURM_RESTART_COUNT=99999999",
	    "DDPGEN_LAST_STOP=../x", "DDPGEN_CHECKPOINT_SIGNAL=", NULL };
	struct restart	r;

	r = read_ok(env1);
	ck_assert_int_eq(r.count, 0);
	ck_assert_str_eq(r.last_stop, "none");
	r = read_ok(env2);
	ck_assert_int_eq(r.count, 1);
	ck_assert_str_eq(r.last_stop, "requeued");
	r = read_ok(env3);
	ck_assert_int_eq(r.count, 0);
	ck_assert_str_eq(r.last_stop, "none");
	ck_assert_int_eq(r.signo, 0);
}
END_TEST

START_TEST(test_bad_signal)
{
	static const char *const env[] = {
	    "DDPGEN_CHECKPOINT_SIGNAL=TERM\033[2J", NULL };
	struct restart	 r;
	char		*cause = NULL;

	env_now = env;
	ck_assert_int_eq(restart_read(&r, env_get, &cause), -1);
	ck_assert_str_eq(cause, "DDPGEN_CHECKPOINT_SIGNAL: 'TERM\\x1b[2J' "
	    "is not USR1 or USR2");
	free(cause);
}
END_TEST

static Suite *
restart_suite(void)
{
	Suite	*s = suite_create("restart");
	TCase	*tc;

	tc = tcase_create("read");
	tcase_add_test(tc, test_first_run);
	tcase_add_test(tc, test_counts);
	tcase_add_test(tc, test_by_hand);
	tcase_add_test(tc, test_hpcpack);
	tcase_add_test(tc, test_garbage);
	tcase_add_test(tc, test_bad_signal);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(restart_suite());
}
