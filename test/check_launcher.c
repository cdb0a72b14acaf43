/* check_launcher.c: unit tests for the table of launchers. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "launcher.h"
#include "testlib.h"
#include "util.h"
#include "vocab.h"
#include "xmalloc.h"

/* A row's name, or a path ending in it, names the row (so no two rows
 * share a name, and --launcher's word finds that row); any other
 * program is torchrun-compatible. */
START_TEST(test_find)
{
	const char *const	*names = launcher_names();
	char			*path;
	int			 i;

	for (i = 0; i < LAUNCHER_COUNT; i++) {
		ck_assert_int_eq(launcher_find(launcher_get(i)->name), i);
		ck_assert_int_eq(vocab_word(names, launcher_get(i)->name), i);
		xasprintf(&path, "/opt/bin/%s", launcher_get(i)->name);
		ck_assert_int_eq(launcher_find(path), i);
		free(path);
	}
	ck_assert_ptr_null(names[LAUNCHER_COUNT]);
	ck_assert_int_eq(launcher_find("/opt/venv/bin/deepspeed"),
	    LAUNCHER_DEEPSPEED);
	ck_assert_int_eq(launcher_find("python3"), LAUNCHER_TORCHRUN);
	ck_assert_int_eq(launcher_find("deepspeed.sh"), LAUNCHER_TORCHRUN);
	ck_assert_int_eq(launcher_find("/srun/x"), LAUNCHER_TORCHRUN);
	ck_assert_int_eq(launcher_find(""), LAUNCHER_TORCHRUN);
	/* srun-direct is Slurm's alone and per process. */
	ck_assert(launcher_get(LAUNCHER_SRUN)->per_process);
	ck_assert_int_eq(launcher_get(LAUNCHER_SRUN)->sched, SCHED_SLURM);
	ck_assert(!launcher_get(LAUNCHER_TORCHRUN)->per_process);
}
END_TEST

/* The words of l, separated by spaces. Caller frees. */
static char *
join(const struct strlist *l)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < l->n; i++)
		buf_addf(&b, "%s%s", i > 0 ? " " : "", l->v[i]);
	return buf_take(&b);
}

/* A list of the words of s, split at spaces. */
static void
words(struct strlist *l, const char *s)
{
	size_t	n;

	strlist_init(l);
	while ((n = strcspn(s, " ")) > 0) {
		strlist_addown(l, xstrndup(s, n));
		s += n + (s[n] == ' ');
	}
}

static void
expect_program(const char *const *words, const char *want)
{
	struct strlist	l, out;
	size_t		i;
	char		*got;

	strlist_init(&l);
	strlist_init(&out);
	for (; *words != NULL; words++)
		strlist_add(&l, *words);
	launcher_program(&out, &l);
	got = join(&out);
	ck_assert_str_eq(got, want);
	free(got);
	for (i = 0; i < out.n; i++)
		ck_assert_ptr_nonnull(out.v[i]);
	strlist_free(&l);
	strlist_free(&out);
}

START_TEST(test_program)
{
	expect_program((const char *[]){ "torchrun", NULL }, "torchrun");
	expect_program((const char *[]){ "python3", "-m",
	    "torch.distributed.run", NULL }, "python3 -m torch.distributed.run");
	expect_program((const char *[]){ "srun", NULL }, "python3");
	expect_program((const char *[]){ "srun", "/v/bin/python", "-u",
	    NULL }, "/v/bin/python -u");
	expect_program((const char *[]){ "accelerate", NULL },
	    "accelerate launch");
	expect_program((const char *[]){ "accelerate", "launch", "--cpu",
	    NULL }, "accelerate launch --cpu");
	expect_program((const char *[]){ "/v/deepspeed", NULL },
	    "/v/deepspeed");
	ck_assert_str_eq(launcher_doctor_program("srun"), "python3");
	ck_assert_str_eq(launcher_doctor_program("/x/srun"), "/x/srun");
	ck_assert_str_eq(launcher_doctor_program("deepspeed"), "deepspeed");
}
END_TEST

/* The run-time flags go after the launcher's own words, before the
 * script, which keeps its arguments. */
START_TEST(test_argv)
{
	struct launcher_run	 run = { 2, 3, 4, "10.0.0.1", 29500,
				    "/dev/fd/3" };
	struct strlist		 ds, acc, out;
	char			*got, *cause = NULL;

	words(&ds, "deepspeed --num_gpus=4 t.py --no_ssh");
	words(&acc, "accelerate launch t.py");
	strlist_init(&out);
	ck_assert_int_eq(launcher_argv(&out, launcher_get(LAUNCHER_DEEPSPEED),
	    ds.v, ds.n, 0, &run, &cause), 0);
	got = join(&out);
	ck_assert_str_eq(got, "deepspeed --hostfile=/dev/fd/3 --no_ssh "
	    "--node_rank=2 --num_nodes=3 --master_addr=10.0.0.1 "
	    "--master_port=29500 --num_gpus=4 t.py --no_ssh");
	free(got);
	strlist_free(&out);
	strlist_init(&out);
	ck_assert_int_eq(launcher_argv(&out, launcher_get(LAUNCHER_ACCELERATE),
	    acc.v, acc.n, 0, &run, &cause), 0);
	got = join(&out);
	ck_assert_str_eq(got, "accelerate launch --num_machines=3 "
	    "--machine_rank=2 --main_process_ip=10.0.0.1 "
	    "--main_process_port=29500 --num_processes=12 t.py");
	free(got);
	strlist_free(&out);
	strlist_init(&out);
	ck_assert_int_eq(launcher_argv(&out, launcher_get(LAUNCHER_ACCELERATE),
	    acc.v, 2, 0, &run, &cause), -1);
	ck_assert_str_eq(cause, "--launcher accelerate: the command must "
	    "start with 2 words (accelerate ...) and name a script");
	free(cause);
	strlist_free(&out);
	strlist_free(&ds);
	strlist_free(&acc);
}
END_TEST

/* A container runtime's words before the launcher stay in front; the
 * flags follow the launcher's own first words. */
START_TEST(test_argv_at)
{
	struct launcher_run	 run = { 1, 2, 2, "10.0.0.1", 29500, NULL };
	struct strlist		 in, out;
	char			*got, *cause = NULL;

	words(&in, "ch-run /img -- accelerate launch t.py");
	strlist_init(&out);
	ck_assert_int_eq(launcher_argv(&out, launcher_get(LAUNCHER_ACCELERATE),
	    in.v, in.n, 3, &run, &cause), 0);
	got = join(&out);
	ck_assert_str_eq(got, "ch-run /img -- accelerate launch "
	    "--num_machines=2 --machine_rank=1 --main_process_ip=10.0.0.1 "
	    "--main_process_port=29500 --num_processes=4 t.py");
	free(got);
	strlist_free(&out);
	strlist_init(&out);
	ck_assert_int_eq(launcher_argv(&out, launcher_get(LAUNCHER_ACCELERATE),
	    in.v, in.n, 5, &run, &cause), -1);
	ck_assert_str_eq(cause, "--launcher accelerate: the command after "
	    "--launcher-at's words must start with 2 words (accelerate ...) "
	    "and name a script");
	free(cause);
	strlist_free(&out);
	strlist_free(&in);
}
END_TEST

START_TEST(test_names)
{
	char	*s = launcher_names_text();

	ck_assert_str_eq(s, "torchrun, srun, deepspeed or accelerate");
	free(s);
}
END_TEST

/* The one joiner behind every "a, b or c" in a message. */
START_TEST(test_words_join)
{
	const char *const	 none[] = { NULL };
	const char *const	 one[] = { "a", NULL };
	const char *const	 two[] = { "a", "b", NULL };
	const char *const	 three[] = { "a", "b", "c", NULL };
	char			*s;

	s = words_join(none, " or ");
	ck_assert_str_eq(s, "");
	free(s);
	s = words_join(one, " or ");
	ck_assert_str_eq(s, "a");
	free(s);
	s = words_join(two, " and ");
	ck_assert_str_eq(s, "a and b");
	free(s);
	s = words_join(three, " or ");
	ck_assert_str_eq(s, "a, b or c");
	free(s);
}
END_TEST

static Suite *
launcher_suite(void)
{
	Suite	*s = suite_create("launcher");
	TCase	*tc = tcase_create("table");

	tcase_add_test(tc, test_find);
	tcase_add_test(tc, test_program);
	tcase_add_test(tc, test_argv);
	tcase_add_test(tc, test_argv_at);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_words_join);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(launcher_suite());
}
