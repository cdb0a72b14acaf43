/* check_scheduler.c: unit tests for the table of schedulers and the
 * table of ddpgen's back-ends that names its rows. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "gen.h"
#include "runtime.h"
#include "scheduler.h"
#include "testlib.h"
#include "vocab.h"

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

/* The profile's scheduler key is SCHED_GEN_FIRST + its index, and names
 * the back-end of that scheduler; each back-end has a template, formats,
 * a vars hook and places what every runtime's word needs. */
START_TEST(test_gen_names)
{
	const char *const	*names = gen_names();
	const struct gen	*g;
	enum sched_id		 s;
	int			 i, n = 0;

	for (i = 0; names[i] != NULL; i++) {
		ck_assert_int_eq(sched_parse(names[i], &s), 0);
		ck_assert_int_eq(s, SCHED_GEN_FIRST + i);
		ck_assert_ptr_nonnull(g = gen_get(s));
		ck_assert_int_eq(g->sched, s);
		ck_assert_ptr_nonnull(g->tmpl);
		ck_assert_ptr_nonnull(g->submit);
		ck_assert_uint_gt(g->nformats, 0);
		ck_assert_ptr_nonnull(g->vars);
		ck_assert_int_eq(g->images & (1 << RT_IMAGE_NONE |
		    1 << RT_IMAGE_WORD), 1 << RT_IMAGE_NONE | 1 << RT_IMAGE_WORD);
	}
	for (i = 0; i < SCHED_COUNT; i++)
		n += gen_get(i) != NULL;
	ck_assert_int_eq(n, SCHED_HOSTFILE - SCHED_GEN_FIRST);
	ck_assert_ptr_null(gen_get(SCHED_AUTO));
	ck_assert_ptr_null(gen_get(SCHED_HOSTFILE));
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
	ck_assert_str_eq(s, "auto, slurm, hpcpack, flux, pbs, lsf, local or "
	    "hostfile");
	free(s);
	s = sched_list_vars_text();
	ck_assert_str_eq(s, "SLURM_STEP_NODELIST, SLURM_JOB_NODELIST, "
	    "SLURM_NODELIST, CCP_NODES, FLUX_JOB_ID, PBS_NODEFILE, "
	    "LSB_MCPU_HOSTS, DDPGEN_LOCAL_NODES");
	free(s);
	s = sched_job_vars_text(SCHED_PBS, SCHED_AUTO);
	ck_assert_str_eq(s, "PBS_JOBID");
	free(s);
	s = sched_job_vars_text(SCHED_AUTO, SCHED_AUTO);
	ck_assert_str_eq(s, "SLURM_JOB_ID, CCP_JOBID, FLUX_JOB_ID, PBS_JOBID, "
	    "LSB_JOBID or DDPGEN_LOCAL_JOB");
	free(s);
	s = sched_job_vars_text(SCHED_HOSTFILE, SCHED_HPCPACK);
	ck_assert_str_eq(s, "CCP_JOBID, SLURM_JOB_ID, FLUX_JOB_ID, PBS_JOBID, "
	    "LSB_JOBID or DDPGEN_LOCAL_JOB");
	free(s);
}
END_TEST

START_TEST(test_formats)
{
	const struct gen_format	*f;
	enum sched_id		 s;
	char			*t;

	f = gen_format("ps", &s);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(s, SCHED_HPCPACK);
	ck_assert_str_eq(tmpl_ctx_ext(f->ctx), ".ps1");
	f = gen_format("sh", &s);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(s, SCHED_SLURM);
	f = gen_format("pbs", &s);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(s, SCHED_PBS);
	ck_assert_str_eq(tmpl_ctx_ext(f->ctx), ".sh");
	ck_assert_str_eq(gen_get(SCHED_PBS)->tmpl, "pbs.sh");
	/* PBS has no warning signal: its script arms a timer. */
	ck_assert_int_eq(gen_get(SCHED_PBS)->flags & GEN_WARN_SIGNAL, 0);
	ck_assert_ptr_null(gen_format("bat", &s));
	f = gen_format("lsf", &s);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(s, SCHED_LSF);
	ck_assert_str_eq(tmpl_ctx_ext(f->ctx), ".sh");
	t = gen_formats_text(SCHED_AUTO);
	ck_assert_str_eq(t, "sh, xml, cmd, ps, flux, pbs, lsf or local");
	free(t);
	t = gen_formats_text(SCHED_LSF);
	ck_assert_str_eq(t, "lsf");
	free(t);
	t = gen_formats_text(SCHED_HPCPACK);
	ck_assert_str_eq(t, "xml, cmd or ps");
	free(t);
	t = gen_formats_text(SCHED_SLURM);
	ck_assert_str_eq(t, "sh");
	free(t);
	f = gen_format("flux", &s);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(s, SCHED_FLUX);
	ck_assert_str_eq(tmpl_ctx_ext(f->ctx), ".sh");
}
END_TEST

/* The exchange's task numbers are the detected scheduler's where it
 * numbers its tasks, else those of the first row that does. */
START_TEST(test_numbered)
{
	int	i;

	ck_assert_int_eq(sched_numbered(SCHED_HPCPACK), SCHED_HPCPACK);
	for (i = 0; i < SCHED_COUNT; i++) {
		if (sched_get(i)->task_number_var == NULL) {
			ck_assert_int_eq(sched_numbered(i), SCHED_HPCPACK);
			continue;
		}
		ck_assert_int_eq(sched_numbered(i), i);
		ck_assert_ptr_nonnull(sched_get(i)->retry_var);
	}
	ck_assert_int_eq(sched_get(SCHED_HPCPACK)->task_number_base, 1);
}
END_TEST

/* The words of messages, from the back-ends' rows. */
START_TEST(test_gen_texts)
{
	char	*t;

	t = gen_env_pass_text();
	ck_assert_str_eq(t, "Slurm, Flux and local");
	free(t);
	t = gen_images_text(RT_IMAGE_SRUN);
	ck_assert_str_eq(t, "slurm");
	free(t);
	t = gen_images_text(RT_IMAGE_WORD);
	ck_assert_str_eq(t, "slurm, hpcpack, flux, pbs, lsf or local");
	free(t);
	t = gen_keys_text(SCHED_HPCPACK);
	ck_assert_str_eq(t, "node_group, shared_dir, task_shell, path, "
	    "fail_on_task_failure and exchange_timeout");
	free(t);
	t = gen_keys_text(SCHED_HOSTFILE);
	ck_assert_str_eq(t, "none");
	free(t);
	ck_assert_int_eq(gen_honours(SCHED_PBS, "pbs_select"), 1);
	ck_assert_int_eq(gen_honours(SCHED_SLURM, "pbs_select"), 0);
	ck_assert_int_eq(gen_honours(SCHED_AUTO, "partition"), 0);
}
END_TEST

/* Each runtime row's name, read as the profile's container key and
 * --container read it, gives back that row (so no two rows share a
 * name); the messages list them in the rows' order. */
START_TEST(test_runtime_names)
{
	const char *const	*names = runtime_names();
	char			*s;
	int			 i;

	for (i = 0; i < RT_COUNT; i++)
		ck_assert_int_eq(vocab_word(names, runtime_get(i)->name), i);
	ck_assert_ptr_null(names[RT_COUNT]);
	s = runtime_names_text();
	ck_assert_str_eq(s, "none, shifter, podman-hpc, apptainer, pyxis or "
	    "charliecloud");
	free(s);
}
END_TEST

static Suite *
scheduler_suite(void)
{
	Suite	*s = suite_create("scheduler");
	TCase	*tc = tcase_create("table");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_gen_names);
	tcase_add_test(tc, test_runtime_names);
	tcase_add_test(tc, test_rows);
	tcase_add_test(tc, test_texts);
	tcase_add_test(tc, test_formats);
	tcase_add_test(tc, test_gen_texts);
	tcase_add_test(tc, test_numbered);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(scheduler_suite());
}
