/* check_scheduler.c: unit tests for the table of schedulers. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "scheduler.h"
#include "testlib.h"

START_TEST(test_parse)
{
	enum sched_id	s;
	int		i;

	for (i = 0; i < SCHED_COUNT; i++) {
		ck_assert_int_eq(sched_parse(sched_name(i), &s), 0);
		ck_assert_int_eq(s, i);
	}
	ck_assert_int_eq(sched_parse("Slurm", &s), -1);
	ck_assert_int_eq(sched_parse("", &s), -1);
	/* A zeroed struct means auto. */
	ck_assert_str_eq(sched_name(0), "auto");
}
END_TEST

/* The profile's scheduler key is SCHED_GEN_FIRST + its index. */
START_TEST(test_gen_names)
{
	enum sched_id	s;
	int		i;

	for (i = 0; sched_gen_names[i] != NULL; i++) {
		ck_assert_int_eq(sched_parse(sched_gen_names[i], &s), 0);
		ck_assert_int_eq(s, SCHED_GEN_FIRST + i);
		ck_assert_ptr_nonnull(sched_get(s)->tmpl);
		ck_assert_uint_gt(sched_get(s)->nformats, 0);
	}
	for (i = 0; i < SCHED_COUNT; i++)
		if (i < SCHED_GEN_FIRST || sched_get(i)->tmpl == NULL)
			ck_assert_uint_eq(sched_get(i)->nformats, 0);
}
END_TEST

/* Every row that reads a list names its variable; the others none. */
START_TEST(test_rows)
{
	const struct sched	*s;
	int			 i;

	for (i = 0; i < SCHED_COUNT; i++) {
		s = sched_get(i);
		ck_assert_ptr_nonnull(s->task_vars);
		ck_assert_ptr_nonnull(s->step_vars);
		if (s->list == SCHED_LIST_NONE)
			ck_assert_ptr_null(s->list_vars[0]);
		else
			ck_assert_ptr_nonnull(s->list_vars[0]);
	}
}
END_TEST

START_TEST(test_texts)
{
	char	*s;

	s = sched_names_text();
	ck_assert_str_eq(s, "auto, slurm, hpcpack, flux, pbs, lsf or hostfile");
	free(s);
	s = sched_list_vars_text();
	ck_assert_str_eq(s, "SLURM_STEP_NODELIST, SLURM_JOB_NODELIST, "
	    "SLURM_NODELIST, CCP_NODES, FLUX_JOB_ID, PBS_NODEFILE, "
	    "LSB_MCPU_HOSTS");
	free(s);
	s = sched_job_vars_text(SCHED_PBS, SCHED_AUTO);
	ck_assert_str_eq(s, "PBS_JOBID");
	free(s);
	s = sched_job_vars_text(SCHED_AUTO, SCHED_AUTO);
	ck_assert_str_eq(s, "SLURM_JOB_ID, CCP_JOBID, FLUX_JOB_ID, PBS_JOBID or "
	    "LSB_JOBID");
	free(s);
	s = sched_job_vars_text(SCHED_HOSTFILE, SCHED_HPCPACK);
	ck_assert_str_eq(s, "CCP_JOBID, SLURM_JOB_ID, FLUX_JOB_ID, PBS_JOBID or "
	    "LSB_JOBID");
	free(s);
}
END_TEST

START_TEST(test_formats)
{
	const struct sched_format	*f;
	enum sched_id			 s;
	char				*t;

	f = sched_format("ps", &s);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(s, SCHED_HPCPACK);
	ck_assert_str_eq(f->ext, ".ps1");
	f = sched_format("sh", &s);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(s, SCHED_SLURM);
	f = sched_format("pbs", &s);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(s, SCHED_PBS);
	ck_assert_str_eq(f->ext, ".sh");
	ck_assert_str_eq(sched_get(SCHED_PBS)->tmpl, "pbs.sh");
	/* PBS has no warning signal: its script arms a timer. */
	ck_assert_int_eq(sched_get(SCHED_PBS)->warn_signal, 0);
	ck_assert_ptr_null(sched_format("bat", &s));
	f = sched_format("lsf", &s);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(s, SCHED_LSF);
	ck_assert_str_eq(f->ext, ".sh");
	t = sched_formats_text(SCHED_AUTO);
	ck_assert_str_eq(t, "sh, xml, cmd, ps, flux, pbs or lsf");
	free(t);
	t = sched_formats_text(SCHED_LSF);
	ck_assert_str_eq(t, "lsf");
	free(t);
	t = sched_formats_text(SCHED_HPCPACK);
	ck_assert_str_eq(t, "xml, cmd or ps");
	free(t);
	t = sched_formats_text(SCHED_SLURM);
	ck_assert_str_eq(t, "sh");
	free(t);
	f = sched_format("flux", &s);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(s, SCHED_FLUX);
	ck_assert_str_eq(f->ext, ".sh");
}
END_TEST

static Suite *
scheduler_suite(void)
{
	Suite	*s = suite_create("scheduler");
	TCase	*tc = tcase_create("table");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_gen_names);
	tcase_add_test(tc, test_rows);
	tcase_add_test(tc, test_texts);
	tcase_add_test(tc, test_formats);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(scheduler_suite());
}
