/* check_watch.c: unit tests for the watcher that ends a torchrun whose
 * workers failed with no restarts left, on a /proc of files. */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "testlib.h"
#include "watch.h"
#include "xmalloc.h"

START_TEST(test_stat_parse)
{
	struct watch_stat	st;
	char			line[1024];
	int			i;

	/* A command name may hold ") Z 1 " itself: the last ')' counts. */
	strcpy(line, "123 (a) Z 1 (b) R 77 77 77 0 -1");
	for (i = 9; i < 52; i++)
		strcat(line, " 0");
	strcat(line, " 768\n");
	ck_assert_int_eq(watch_stat_parse(line, &st), 0);
	ck_assert_int_eq(st.state, 'R');
	ck_assert_int_eq(st.ppid, 77);
	ck_assert_int_eq(st.pgrp, 77);
	ck_assert_int_eq(st.exit_code, 768);
	ck_assert_int_eq(WEXITSTATUS(st.exit_code), 3);
	ck_assert_int_eq(watch_stat_parse("123 (a) R", &st), -1);
	ck_assert_int_eq(watch_stat_parse("123 a R 1", &st), -1);
	ck_assert_int_eq(watch_stat_parse("", &st), -1);
}
END_TEST

START_TEST(test_env_parse)
{
	static const char	env[] = "A=1\0TORCHELASTIC_RESTART_COUNT=2\0"
	    "LOCAL_RANK=5\0TORCHELASTIC_MAX_RESTARTS=x\0";
	struct watch_env	e;

	watch_env_parse(env, sizeof env - 1, &e);
	ck_assert_int_eq(e.restart_count, 2);
	ck_assert_int_eq(e.local_rank, 5);
	ck_assert_int_eq(e.max_restarts, -1);
	/* Cut short: the last string has no NUL and is not read. */
	watch_env_parse("LOCAL_RANK=5", 12, &e);
	ck_assert_int_eq(e.local_rank, -1);
}
END_TEST

/* A /proc under dir: launcher 10, whose children file lists pids. */
static void
put(const char *dir, const char *rel, const char *text, size_t len)
{
	char	path[4096];
	FILE	*f;

	snprintf(path, sizeof path, "%s/%s", dir, rel);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void
proc_worker(const char *dir, int pid, char state, int code, const char *env,
    size_t envlen)
{
	char	rel[64], line[512];
	int	i;

	snprintf(rel, sizeof rel, "%s/%d", dir, pid);
	mkdir(rel, 0700);
	snprintf(line, sizeof line, "%d (python3) %c 10 1 1 0 -1", pid,
	    state);
	for (i = 9; i < 52; i++)
		strcat(line, " 0");
	snprintf(line + strlen(line), sizeof line - strlen(line), " %d\n",
	    code);
	snprintf(rel, sizeof rel, "%d/stat", pid);
	put(dir, rel, line, strlen(line));
	snprintf(rel, sizeof rel, "%d/environ", pid);
	put(dir, rel, env, envlen);
}

static char *
proc_dir(void)
{
	char	*dir = t_tmpdir("watch"), path[4096];

	snprintf(path, sizeof path, "%s/10", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/10/task", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/10/task/10", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	return dir;
}

#define ENV0	"TORCHELASTIC_RESTART_COUNT=0\0TORCHELASTIC_MAX_RESTARTS=0\0" \
		"LOCAL_RANK=1\0"
#define ENV01	"TORCHELASTIC_RESTART_COUNT=0\0TORCHELASTIC_MAX_RESTARTS=1\0"

static const char *const torchrun_argv[] = { "/x/torchrun", "--nnodes=2",
    "train.py", "--max-restarts=5", NULL };

/* Worker 11 runs, then is a zombie of status 3: after the grace, once
 * no worker runs, the verdict is to end torchrun. */
START_TEST(test_fail_ends)
{
	struct watch	 w;
	char		*dir = proc_dir(), *msg;

	proc_worker(dir, 11, 'S', 0, ENV0, sizeof ENV0 - 1);
	proc_worker(dir, 12, 'S', 0, ENV0, sizeof ENV0 - 1);
	put(dir, "10/task/10/children", "11 12 ", 6);
	watch_init(&w, dir, 10, 99, torchrun_argv);
	ck_assert_int_eq(watch_tick(&w, 1.0), WATCH_WAIT);
	proc_worker(dir, 11, 'Z', 3 << 8, "", 0);
	ck_assert_int_eq(watch_tick(&w, 2.0), WATCH_WAIT);
	/* torchrun reaps 11 and stops 12. */
	put(dir, "10/task/10/children", "", 0);
	ck_assert_int_eq(watch_tick(&w, 2.0 + WATCH_GRACE - 1), WATCH_WAIT);
	ck_assert_int_eq(watch_tick(&w, 2.0 + WATCH_GRACE), WATCH_END);
	msg = watch_message(&w, "node2");
	ck_assert_str_eq(msg, "node2: a training process, local rank 1 "
	    "(pid 11), exited with status 3 and torchrun has no restarts "
	    "left (0 of 0 used): ending torchrun now rather than after its "
	    "exit barrier (300 s)");
	free(msg);
	t_rmtree(dir);
}
END_TEST

/* Seen first between fork and exec, with torchrun's own environment:
 * read again until it holds torchrun's variables. */
START_TEST(test_env_after_exec)
{
	struct watch	 w;
	char		*dir = proc_dir(), *msg;

	proc_worker(dir, 11, 'R', 0, "PATH=/bin\0", 10);
	put(dir, "10/task/10/children", "11", 2);
	watch_init(&w, dir, 10, 99, torchrun_argv);
	ck_assert_int_eq(watch_tick(&w, 1.0), WATCH_WAIT);
	proc_worker(dir, 11, 'S', 0, ENV0, sizeof ENV0 - 1);
	ck_assert_int_eq(watch_tick(&w, 2.0), WATCH_WAIT);
	proc_worker(dir, 11, 'Z', 3 << 8, "", 0);
	ck_assert_int_eq(watch_tick(&w, 3.0), WATCH_WAIT);
	put(dir, "10/task/10/children", "", 0);
	ck_assert_int_eq(watch_tick(&w, 3.0 + WATCH_GRACE), WATCH_END);
	msg = watch_message(&w, "n");
	ck_assert_ptr_nonnull(strstr(msg, "local rank 1 (pid 11)"));
	free(msg);
	t_rmtree(dir);
}
END_TEST

/* A process of the tree: its stat (ppid), its environment, and with
 * kids, a children file of its one thread. */
static void
proc_tree(const char *dir, int pid, int ppid, const char *kids,
    const char *env, size_t envlen)
{
	char	rel[64], line[512];
	int	i;

	snprintf(rel, sizeof rel, "%s/%d", dir, pid);
	mkdir(rel, 0700);
	snprintf(line, sizeof line, "%d (p) S %d %d 1 0 -1", pid, ppid, ppid);
	for (i = 9; i <= 52; i++)
		strcat(line, " 0");
	strcat(line, "\n");
	snprintf(rel, sizeof rel, "%d/stat", pid);
	put(dir, rel, line, strlen(line));
	snprintf(rel, sizeof rel, "%d/environ", pid);
	put(dir, rel, env, envlen);
	if (kids == NULL)
		return;
	snprintf(rel, sizeof rel, "%s/%d/task", dir, pid);
	mkdir(rel, 0700);
	snprintf(rel, sizeof rel, "%s/%d/task/%d", dir, pid, pid);
	mkdir(rel, 0700);
	snprintf(rel, sizeof rel, "%d/task/%d/children", pid, pid);
	put(dir, rel, kids, strlen(kids));
}

/* deepspeed's launcher starts a launch.py that starts the workers: the
 * tree, parents first, from the children files or, without them, from
 * every process's parent; never the watcher (99). */
START_TEST(test_descendants)
{
	static const char	env[] = "RANK=4\0LOCAL_RANK=0\0";
	struct watch		 w;
	struct watch_env	 e;
	char			*dir = t_tmpdir("watch"), *s;
	pid_t			 pids[8];
	size_t			 n, len;
	int			 pass;

	for (pass = 0; pass < 2; pass++) {
		proc_tree(dir, 10, 1, pass ? NULL : "11 99 ", "", 0);
		proc_tree(dir, 11, 10, pass ? NULL : "12 13", "", 0);
		proc_tree(dir, 12, 11, pass ? NULL : "", env, sizeof env - 1);
		proc_tree(dir, 13, 11, pass ? NULL : "14", env, sizeof env - 1);
		proc_tree(dir, 14, 13, pass ? NULL : "", env, sizeof env - 1);
		proc_tree(dir, 99, 10, NULL, "", 0);
		proc_tree(dir, 50, 1, NULL, "", 0);
		if (pass) {
			/* No children files anywhere: every parent is read. */
			s = NULL;
			xasprintf(&s, "rm -r %s/1[0-4]/task", dir);
			ck_assert_int_eq(system(s), 0);
			free(s);
		}
		watch_init(&w, dir, 10, 99, torchrun_argv);
		n = watch_descendants(&w, pids, 8);
		ck_assert_uint_eq(n, 5);
		ck_assert_int_eq(pids[0], 10);
		ck_assert_int_eq(pids[1], 11);
		ck_assert(pids[2] == 12 || pids[2] == 13);
		ck_assert(pids[3] == 12 || pids[3] == 13);
		ck_assert_int_eq(pids[4], 14);
		/* At most max of them. */
		ck_assert_uint_eq(watch_descendants(&w, pids, 2), 2);
	}
	ck_assert_ptr_nonnull(s = watch_read_env(&w, 14, &len));
	watch_env_parse(s, len, &e);
	ck_assert_int_eq(e.rank, 4);
	ck_assert_int_eq(e.local_rank, 0);
	free(s);
	t_rmtree(dir);
}
END_TEST

/* The launcher's stat: state and starttime (field 22). */
static void
proc_launcher(const char *dir, char state, unsigned long long start)
{
	char	line[512];
	int	i;

	snprintf(line, sizeof line, "10 (torchrun) %c 1 1 1 0 -1", state);
	for (i = 9; i < 22; i++)
		strcat(line, " 0");
	snprintf(line + strlen(line), sizeof line - strlen(line), " %llu",
	    start);
	for (i = 23; i <= 52; i++)
		strcat(line, " 0");
	strcat(line, "\n");
	put(dir, "10/stat", line, strlen(line));
}

/* Alive: there, not a zombie, and the same process (its starttime). */
START_TEST(test_alive)
{
	struct watch	 w;
	char		*dir = proc_dir(), path[4096];

	watch_init(&w, dir, 10, 99, torchrun_argv);
	ck_assert_int_eq(watch_alive(&w), 0);
	proc_launcher(dir, 'S', 555);
	watch_init(&w, dir, 10, 99, torchrun_argv);
	ck_assert_int_eq(watch_alive(&w), 1);
	proc_launcher(dir, 'S', 777);
	ck_assert_int_eq(watch_alive(&w), 0);
	proc_launcher(dir, 'Z', 555);
	ck_assert_int_eq(watch_alive(&w), 0);
	snprintf(path, sizeof path, "%s/10/stat", dir);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(watch_alive(&w), 0);
	t_rmtree(dir);
}
END_TEST

/* Workers that exit 0 are never a reason. */
START_TEST(test_success_waits)
{
	struct watch	 w;
	char		*dir = proc_dir();

	proc_worker(dir, 11, 'Z', 0, "", 0);
	put(dir, "10/task/10/children", "11", 2);
	watch_init(&w, dir, 10, 99, torchrun_argv);
	ck_assert_int_eq(watch_tick(&w, 1.0), WATCH_WAIT);
	put(dir, "10/task/10/children", "", 0);
	ck_assert_int_eq(watch_tick(&w, 1000.0), WATCH_WAIT);
	t_rmtree(dir);
}
END_TEST

/* A restart is left: torchrun restarts the group. */
START_TEST(test_restart_left)
{
	struct watch	 w;
	char		*dir = proc_dir();

	proc_worker(dir, 11, 'S', 0, ENV01, sizeof ENV01 - 1);
	put(dir, "10/task/10/children", "11", 2);
	watch_init(&w, dir, 10, 99, torchrun_argv);
	ck_assert_int_eq(watch_tick(&w, 1.0), WATCH_WAIT);
	proc_worker(dir, 11, 'Z', 3 << 8, "", 0);
	ck_assert_int_eq(watch_tick(&w, 2.0), WATCH_WAIT);
	put(dir, "10/task/10/children", "", 0);
	ck_assert_int_eq(watch_tick(&w, 1000.0), WATCH_WAIT);
	t_rmtree(dir);
}
END_TEST

/* A worker never seen running: argv's --max-restarts before the script
 * counts (the one after it is the script's); not torchrun: no verdict. */
START_TEST(test_unseen)
{
	static const char *const restarts[] = { "torchrun", "--max_restarts", "1",
	    "train.py", NULL };
	static const char *const none[] = { "torchrun", "--nnodes", "2",
	    "--standalone", "train.py", "--max-restarts=5", NULL };
	static const char *const other[] = { "python3", "train.py", NULL };
	/* torchrun as a module (HPC Pack's shipped launcher), its count
	 * after the module name. */
	static const char *const module[] = { "/usr/bin/python3", "-u", "-m",
	    "torch.distributed.run", "--max-restarts=0", "train.py", NULL };
	static const char *const module1[] = { "python3.11",
	    "-mtorch.distributed.run", "--max-restarts", "1", "train.py",
	    NULL };
	static const char *const notmod[] = { "python3", "-c", "import x",
	    "-m", "torch.distributed.run", NULL };
	static const char *const othermod[] = { "python3", "-m",
	    "torch.distributed.launch", "train.py", NULL };
	struct watch	 w;
	char		*dir = proc_dir();

	ck_assert(watch_is_torchrun(module));
	ck_assert(watch_is_torchrun(module1));
	ck_assert(!watch_is_torchrun(notmod));
	ck_assert(!watch_is_torchrun(othermod));
	ck_assert(!watch_is_torchrun(other));

	proc_worker(dir, 11, 'Z', 3 << 8, "", 0);
	put(dir, "10/task/10/children", "11", 2);
	watch_init(&w, dir, 10, 99, restarts);
	watch_tick(&w, 1.0);
	ck_assert_int_eq(watch_tick(&w, 1000.0), WATCH_WAIT);
	watch_init(&w, dir, 10, 99, other);
	watch_tick(&w, 1.0);
	ck_assert_int_eq(watch_tick(&w, 1000.0), WATCH_WAIT);
	watch_init(&w, dir, 10, 99, none);
	watch_tick(&w, 1.0);
	ck_assert_int_eq(watch_tick(&w, 1000.0), WATCH_END);
	watch_init(&w, dir, 10, 99, module1);
	watch_tick(&w, 1.0);
	ck_assert_int_eq(watch_tick(&w, 1000.0), WATCH_WAIT);
	watch_init(&w, dir, 10, 99, module);
	watch_tick(&w, 1.0);
	ck_assert_int_eq(watch_tick(&w, 1000.0), WATCH_END);
	t_rmtree(dir);
}
END_TEST

/* A worker of torch 2.x, in a session of its own: stat's pgrp. */
static void
proc_session(const char *dir, int pid, char state, int pgrp)
{
	char	rel[64], line[512];
	int	i;

	snprintf(rel, sizeof rel, "%s/%d", dir, pid);
	mkdir(rel, 0700);
	snprintf(line, sizeof line, "%d (python3) %c 10 %d %d 0 -1", pid,
	    state, pgrp, pgrp);
	for (i = 9; i <= 52; i++)
		strcat(line, " 0");
	strcat(line, "\n");
	snprintf(rel, sizeof rel, "%d/stat", pid);
	put(dir, rel, line, strlen(line));
}

/* The workers a group's signal misses: running children of the
 * launcher outside its group, not the watcher, not another's child. */
START_TEST(test_outside)
{
	struct watch	 w;
	char		*dir = proc_dir(), line[512];
	pid_t		 pids[4];
	int		 i;

	proc_worker(dir, 11, 'S', 0, "", 0);	/* group 1: the launcher's */
	proc_session(dir, 12, 'S', 12);
	proc_session(dir, 13, 'R', 13);
	proc_session(dir, 14, 'Z', 14);		/* exited */
	proc_session(dir, 99, 'S', 99);		/* the watcher */
	proc_session(dir, 15, 'S', 15);
	/* 15 has another parent: listed, but not the launcher's child. */
	snprintf(line, sizeof line, "15 (python3) S 7 15 15 0 -1");
	for (i = 9; i <= 52; i++)
		strcat(line, " 0");
	strcat(line, "\n");
	put(dir, "15/stat", line, strlen(line));
	put(dir, "10/task/10/children", "11 12 13 14 99 15 ", 18);
	watch_init(&w, dir, 10, 99, torchrun_argv);
	ck_assert_uint_eq(watch_outside(&w, 1, pids, 4), 2);
	ck_assert_int_eq(pids[0], 12);
	ck_assert_int_eq(pids[1], 13);
	ck_assert_uint_eq(watch_outside(&w, 1, pids, 1), 1);
	/* torch 1.13: every worker in the launcher's group, none missed. */
	proc_session(dir, 12, 'S', 1);
	proc_session(dir, 13, 'S', 1);
	ck_assert_uint_eq(watch_outside(&w, 1, pids, 4), 0);
	t_rmtree(dir);
}
END_TEST

static Suite *
watch_suite(void)
{
	Suite	*s = suite_create("watch");
	TCase	*tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, test_stat_parse);
	tcase_add_test(tc, test_env_parse);
	suite_add_tcase(s, tc);
	tc = tcase_create("tick");
	tcase_add_test(tc, test_fail_ends);
	tcase_add_test(tc, test_env_after_exec);
	tcase_add_test(tc, test_alive);
	tcase_add_test(tc, test_descendants);
	tcase_add_test(tc, test_success_waits);
	tcase_add_test(tc, test_restart_left);
	tcase_add_test(tc, test_unseen);
	tcase_add_test(tc, test_outside);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(watch_suite());
}
