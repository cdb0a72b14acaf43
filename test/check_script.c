/* check_script.c: unit tests for job variables and template lookup. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen.h"
#include "profile.h"
#include "script.h"
#include "testlib.h"
#include "tmpl.h"
#include "util.h"
#include "xmalloc.h"

static const char *fake_env[][2] = {
	{ "DDPGEN_TEMPLATE_PATH", "/a:/b" },
	{ "XDG_CONFIG_HOME", "/xdg" },
	{ "HOME", "/home/u" },
	{ NULL, NULL }
};
static int use_xdg;		/* 0: unset, 1: as above, 2: relative */

static const char *
fake_getenv(const char *name)
{
	int	i;

	for (i = 0; fake_env[i][0] != NULL; i++) {
		if (strcmp(name, fake_env[i][0]) != 0)
			continue;
		if (strcmp(name, "XDG_CONFIG_HOME") == 0 && use_xdg != 1)
			return use_xdg == 0 ? NULL : "rel";
		return fake_env[i][1];
	}
	return NULL;
}

/* Loads a profile from text; fails the test on any error. */
static struct profile *
load(const char *text)
{
	struct strlist	 dirs, errors;
	struct profile	*p;

	strlist_init(&dirs);
	strlist_init(&errors);
	p = profile_parse_buf("test.conf", text, &dirs, &errors);
	if (p == NULL)
		ck_abort_msg("profile: %s", errors.n ? errors.v[0] : "?");
	strlist_free(&dirs);
	strlist_free(&errors);
	return p;
}

/* Renders template text against a job made from profile text; NULL
 * with *why when the template names a variable this job does not have. */
static char *
render_or(const char *profile_text, const char *tmpl_text, int nodes,
    char **why)
{
	static char	 a0[] = "--lr", a1[] = "0.1", a2[] = "it's";
	static char	 v0[] = "ddpgen", v1[] = "--nodes", v2[] = "2",
			 v3[] = "t.py";
	static char	*args[] = { a0, a1, a2, NULL };
	static char	*argv[] = { v0, v1, v2, v3, NULL };
	struct profile	*p = load(profile_text);
	struct tmpl	*t;
	struct tmpl_vars *v;
	struct job	 job;
	struct buf	 b;
	char		*cause = NULL;

	memset(&job, 0, sizeof job);
	job.prof = p;
	job.site = "test";
	job.nodes = nodes;
	job.script = "t.py";
	job.args = args;
	job.nargs = 3;
	job.argv = argv;
	job.argc = 4;
	job.ddprank = "/opt/bin/ddprank";
	t = tmpl_parse("inline.sh", tmpl_text, TMPL_SH, NULL, &cause);
	ck_assert_msg(t != NULL, "%s", cause);
	v = script_vars(&job);
	buf_init(&b);
	if (tmpl_render(t, v, &b, why) != 0) {
		buf_free(&b);
		b.s = NULL;
	}
	tmpl_vars_free(v);
	tmpl_free(t);
	profile_free(p);
	return b.s;
}

static char *
render(const char *profile_text, const char *tmpl_text, int nodes)
{
	char	*s, *cause = NULL;

	s = render_or(profile_text, tmpl_text, nodes, &cause);
	ck_assert_msg(s != NULL, "%s", cause);
	return s;
}

#define BASE "description = \"d\"\nscheduler = slurm\n"

START_TEST(test_vars_basic)
{
	char	*s;

	s = render(BASE, "{{nodes}} {{nproc_per_node}} {{port}} "
	    "{{port_range}} {{rdzv}} [{{rdzv_c10d}}] {{discovery}} "
	    "[{{discovery_iface}}] {{ddprank}} {{script}} {{args}} "
	    "{{command}} {{site}} {{launcher}}", 3);
	ck_assert_str_eq(s, "3 1 auto 20000-29999 static [''] hostname [''] "
	    "/opt/bin/ddprank t.py --lr 0.1 'it'\\''s' ddpgen --nodes 2 t.py "
	    "test torchrun");
	free(s);
}
END_TEST

START_TEST(test_vars_nproc_default)
{
	char	*s;

	s = render(BASE "gpus_per_node = 4\n",
	    "{{gpus_per_node}} {{nproc_per_node}} [{{cpus_per_task}}]", 1);
	ck_assert_str_eq(s, "4 4 ['']");
	free(s);
	s = render(BASE "gpus_per_node = 4\nnproc_per_node = 1\n"
	    "cpus_per_task = 8\n",
	    "{{gpus_per_node}} {{nproc_per_node}} [{{cpus_per_task}}]", 1);
	ck_assert_str_eq(s, "4 1 [8]");
	free(s);
}
END_TEST

START_TEST(test_vars_runtime)
{
	char	*s;

	s = render(BASE "discovery = iface\niface = \"^eth3$\"\nport = 4321\n"
	    "rdzv = c10d\nport_range = {30000, 30100}\n",
	    "{{discovery}} {{discovery_iface}} {{iface}} {{port}} "
	    "{{port_range}} {{rdzv}} {{rdzv_c10d}}", 1);
	ck_assert_str_eq(s, "iface 1 '^eth3$' 4321 30000-30100 c10d 1");
	free(s);
}
END_TEST

/* --exclusive for jobs of several nodes, unless the profile says not;
 * HPC Pack's IsExclusive holds one node too, in its own words. */
START_TEST(test_vars_exclusive)
{
	char	*s;

	s = render(BASE, "[{{exclusive}}]", 2);
	ck_assert_str_eq(s, "[1]");
	free(s);
	s = render(BASE, "[{{exclusive}}]", 1);
	ck_assert_str_eq(s, "['']");
	free(s);
	s = render(BASE "exclusive = false\n", "[{{exclusive}}]", 2);
	ck_assert_str_eq(s, "['']");
	free(s);
	s = render("description = \"d\"\nscheduler = hpcpack\n",
	    "[{{exclusive}}]", 1);
	ck_assert_str_eq(s, "[true]");
	free(s);
}
END_TEST

/* Every back-end gives the common names in its own form; what is one
 * scheduler's own is not computed for another's jobs. */
START_TEST(test_vars_backends)
{
	static const char *const want[] = {
		"[1-00:00:30] [ddp-%j.out] [1]",	/* slurm */
		"[86430] [] [true]",			/* hpcpack */
		"[86430s] [ddp-{{id}}.out] [1]",	/* flux */
		"[24:00:30] [] [1]",			/* pbs */
		"[24:01] [ddp-%J.out] [1]",		/* lsf */
		"[86430] [] ['']",			/* local */
	};
	static const char *const own[] = { "container_srun", "task_command",
	    NULL, "pbs_select", "lsf_jsrun", "nproc_run" };
	char	*prof, *s, *cause;
	size_t	 i, k;

	/* A new back-end adds its line to each. */
	for (i = 0; gen_names()[i] != NULL; i++)
		;
	ck_assert_uint_eq(i, sizeof want / sizeof want[0]);
	ck_assert_uint_eq(i, sizeof own / sizeof own[0]);
	for (i = 0; gen_names()[i] != NULL; i++) {
		xasprintf(&prof, "description = \"d\"\nscheduler = %s\n"
		    "time = \"1-00:00:30\"\n", gen_names()[i]);
		s = render(prof, "[{{time|raw}}] [{{output|raw}}] "
		    "[{{exclusive}}]", 2);
		ck_assert_str_eq(s, want[i]);
		free(s);
		for (k = 0; k < sizeof own / sizeof own[0]; k++) {
			char	*t;

			if (k == i || own[k] == NULL)
				continue;
			xasprintf(&t, "{{%s}}", own[k]);
			cause = NULL;
			ck_assert_ptr_null(render_or(prof, t, 2, &cause));
			ck_assert_ptr_nonnull(strstr(cause, "unknown variable"));
			free(cause);
			free(t);
		}
		free(prof);
	}
}
END_TEST

#define HPC "description = \"d\"\nscheduler = hpcpack\n"

/* The run time for job new and New-HpcJob: D:HH:MM, seconds rounded up
 * to a minute, computed here rather than by the script. */
START_TEST(test_vars_hpcpack_runtime)
{
	char	*s;

	s = render(HPC "time = \"1-00:00:30\"\n", "{{runtime}}", 1);
	ck_assert_str_eq(s, "01:00:01");
	free(s);
	s = render(HPC "time = \"59\"\n", "{{runtime}}", 1);
	ck_assert_str_eq(s, "00:00:59");
	free(s);
	s = render(HPC "time = \"0:0:59\"\n", "{{runtime}}", 1);
	ck_assert_str_eq(s, "00:00:01");
	free(s);
	s = render(HPC "time = \"24855-3:14:07\"\n", "{{runtime}}", 1);
	ck_assert_str_eq(s, "24855:03:15");
	free(s);
	s = render(HPC, "[{{runtime}}]", 1);
	ck_assert_str_eq(s, "['']");
	free(s);
}
END_TEST

/* The task's CommandLine evaluates DDPGEN_TASK in the task shell; the
 * interactive ones drop bash's job-control notice. */
START_TEST(test_vars_hpcpack_command_line)
{
	char	*s;

	s = render(HPC "task_shell = login\n", "{{task_command_line|raw}}", 1);
	ck_assert_str_eq(s, "bash -lc 'eval \"$DDPGEN_TASK\"'");
	free(s);
	s = render(HPC "task_shell = plain\npath = \"/bin\"\n",
	    "{{task_command_line|raw}}", 1);
	ck_assert_str_eq(s, "bash -c 'eval \"$DDPGEN_TASK\"'");
	free(s);
	s = render(HPC, "{{task_shell}} {{task_command_line|raw}}", 1);
	ck_assert_str_eq(s, "login-interactive bash -lic 'exec 2>&3 3>&- && "
	    "eval \"$DDPGEN_TASK\"' 3>&2 2> >(grep -vx -e 'bash: cannot set "
	    "terminal process group ([-0-9]*): Inappropriate ioctl for "
	    "device' -e 'bash: no job control in this shell' >&2)");
	free(s);
}
END_TEST

/* DDPGEN_TASK: setup lines through eval, no ';' and no newline. */
START_TEST(test_vars_hpcpack_task_command)
{
	char	*s;

	s = render(HPC "setup = {\"a; b\", \"c\"}\npreflight = no\n",
	    "{{task_command|raw}}", 2);
	ck_assert_str_eq(s, "eval $'a\\x3b b\\nc\\n' || : && /opt/bin/ddprank "
	    "exec --exchange dir:/app/.ddprank --exchange-timeout 300 "
	    "--nnodes 2 --port auto --port-range 20000-29999 --rdzv static "
	    "-- torchrun --nproc_per_node=1 t.py --lr 0.1 'it'\\''s' "
	    "|| (exit \"$(($? == 253 ? 1 : $?))\")");
	free(s);
	/* The preflight, by default: ddprank doctor, then "&&". */
	s = render(HPC "iface = \"^eth 0$\"\n", "{{task_command|raw}}", 2);
	ck_assert_str_eq(s, "/opt/bin/ddprank doctor "
	    "--exchange=dir:/app/.ddprank --nnodes=2 --iface '^eth 0$' "
	    "--port-range=20000-29999 --launcher torchrun && /opt/bin/ddprank "
	    "exec --exchange dir:/app/.ddprank --exchange-timeout 300 "
	    "--nnodes 2 --iface '^eth 0$' --port auto --port-range 20000-29999 "
	    "--rdzv static -- torchrun --nproc_per_node=1 t.py --lr 0.1 "
	    "'it'\\''s' || (exit \"$(($? == 253 ? 1 : $?))\")");
	free(s);
}
END_TEST

/* node_command: one builder for both schedulers. Slurm's template
 * calls ddprank through $DDPRANK and breaks before the launcher and the
 * script; HPC Pack's is the same words on one line, with the exchange. */
START_TEST(test_vars_node_command)
{
	char	*s;

	s = render(BASE "iface = \"^ib\"\nlauncher_args = {\"--max-restarts=0\"}\n",
	    "{{node_command|raw}}", 2);
	ck_assert_str_eq(s, "\"$DDPRANK\" exec --iface '^ib' --port auto "
	    "--port-range 20000-29999 --rdzv static -- \\\n"
	    "\ttorchrun --nproc_per_node=1 --max-restarts=0 \\\n"
	    "\tt.py --lr 0.1 'it'\\''s'");
	free(s);
	s = render(HPC "iface = \"^ib\"\n", "{{node_command|raw}}", 2);
	ck_assert_str_eq(s, "/opt/bin/ddprank exec --exchange "
	    "dir:/app/.ddprank --exchange-timeout 300 --nnodes 2 --iface "
	    "'^ib' --port auto --port-range 20000-29999 --rdzv static -- "
	    "torchrun --nproc_per_node=1 t.py --lr 0.1 'it'\\''s'");
	free(s);
}
END_TEST

/* HPC Pack's limits, checked before anything is written. */
START_TEST(test_check_hpcpack_limits)
{
	static char	 v0[] = "ddpgen", v1[] = "t.py";
	static char	*argv[] = { v0, v1, NULL };
	struct profile	*p;
	struct job	 job;
	struct buf	 out;
	char		*args[1], *cause = NULL, *big;

	p = load(HPC "env = {\"A=x;y\"}\n");
	memset(&job, 0, sizeof job);
	job.prof = p;
	job.nodes = 1;
	job.script = "t.py";
	job.argv = argv;
	job.argc = 2;
	job.ddprank = "/opt/bin/ddprank";
	ck_assert_int_eq(gen_hpcpack.check_job(&job, "hpcpack.xml", &cause), 0);
	ck_assert_int_eq(gen_hpcpack.check_job(&job, "t/hpcpack.cmd", &cause),
	    -1);
	ck_assert_str_eq(cause, "env: A: ';' cannot be written in a cmd.exe "
	    "job: job new's /jobenv would start another variable there "
	    "(use --format xml or ps)");
	free(cause);
	/* The argument is in DDPGEN_TASK only here (argv does not hold it):
	 * 1,900 characters and the rest pass 2,048. */
	big = xmalloc(1901);
	memset(big, 'a', 1900);
	big[1900] = '\0';
	args[0] = big;
	job.args = args;
	job.nargs = 1;
	ck_assert_int_eq(gen_hpcpack.check_job(&job, "hpcpack.xml", &cause),
	    -1);
	ck_assert_msg(strncmp(cause, "job variables: ", 15) == 0 &&
	    strstr(cause, "HPC Pack takes at most 2048") != NULL, "%s", cause);
	free(cause);
	big[1500] = '\0';
	ck_assert_int_eq(gen_hpcpack.check_job(&job, "hpcpack.xml", &cause), 0);
	free(big);
	profile_free(p);

	buf_init(&out);
	buf_adds(&out, "short\r\n");
	for (int i = 0; i < 8191 - 260; i++)
		buf_addc(&out, 'x');
	buf_adds(&out, "\r\n");
	ck_assert_int_eq(gen_hpcpack.check_output("a.cmd", &out, &cause), 0);
	ck_assert_int_eq(gen_hpcpack.check_output("a.xml", &out, &cause), 0);
	buf_addc(&out, 'y');
	for (int i = 0; i < 8191 - 260; i++)
		buf_addc(&out, 'x');
	ck_assert_int_eq(gen_hpcpack.check_output("a.cmd", &out, &cause), -1);
	ck_assert_str_eq(cause, "cmd.exe: line 3 of the batch file has 7932 "
	    "characters; cmd.exe reads at most 8191, less 260 kept for the "
	    "file name %DDPGEN_OUT% expands to (use --format xml or ps)");
	free(cause);
	buf_free(&out);
}
END_TEST

START_TEST(test_vars_env_records)
{
	char	*s;

	s = render(BASE "env = {\"A=1\", \"B=x y\", \"C=\"}\n",
	    "{{#env}}export {{name}}={{value}};{{/env}}", 1);
	ck_assert_str_eq(s, "export A=1;export B='x y';export C='';");
	free(s);
	s = render(BASE, "{{?env}}some{{/env}}{{^env}}none{{/env}}", 1);
	ck_assert_str_eq(s, "none");
	free(s);
}
END_TEST

START_TEST(test_vars_requests)
{
	char	*s;

	s = render(BASE "partition = \"p\"\naccount = \"a b\"\nqos = \"q\"\n"
	    "constraint = \"c\"\ntime = \"1:00:00\"\njob_name = \"j\"\n"
	    "job_output = \"o-%j\"\nsbatch_extra = {\"--exclusive\"}\n",
	    "{{partition}} {{account}} {{qos}} {{constraint}} {{time}} "
	    "{{job_name}} {{output}} {{sbatch_extra}}", 1);
	ck_assert_str_eq(s, "p 'a b' q c 1:00:00 j o-%j --exclusive");
	free(s);
}
END_TEST

/* Slurm's %j and %x as Flux's mustache tags, %% a %, others kept. */
START_TEST(test_vars_flux_output)
{
	char	*s;

	s = render("description = \"d\"\nscheduler = flux\n"
	    "job_output = \"%x-%j.%%.%N%\"\n", "{{output|raw}}", 1);
	ck_assert_str_eq(s, "{{name}}-{{id}}.%.%N%");
	free(s);
}
END_TEST

/* Flux's back-end's check of a rendered job. */
static int
flux_check(const char *script, char **cause)
{
	struct buf	b;
	int		rc;

	buf_init(&b);
	buf_adds(&b, script);
	rc = gen_flux.check_output("flux.sh", &b, cause);
	buf_free(&b);
	return rc;
}

static void
expect_flux_refused(const char *script, const char *want)
{
	char	*cause = NULL;

	ck_assert_int_eq(flux_check(script, &cause), -1);
	ck_assert_str_eq(cause, want);
	free(cause);
}

/* flux batch's rules (RFC 36, cli/batch.py): UTF-8, and directives in
 * one block at the top with one sentinel. */
START_TEST(test_flux_check)
{
	char	*cause = NULL;

	ck_assert_int_eq(flux_check("#!/bin/bash\n# c\n#flux: -N 2\n\n"
	    "#flux: -t 60s\nset -e\n# flux is here\necho 'flux: x'\n"
	    "\ttorchrun caf\xc3\xa9 \xf0\x9f\x98\x80\n", &cause), 0);
	ck_assert_int_eq(flux_check("", &cause), 0);
	expect_flux_refused("#flux: -N 2\nset -e\n\t/flux:/t.py\n",
	    "line 3 of the Flux job would be read by flux batch as a "
	    "submission directive: '\t/flux:/t.py'");
	expect_flux_refused("#flux: -N 2\nx\n#FLUX: -N 3", "line 3 of the "
	    "Flux job would be read by flux batch as a submission directive: "
	    "'#FLUX: -N 3'");
	expect_flux_refused("#!/bin/bash\n#   /flux:/ddpgen\n#flux: -N 2\n",
	    "line 2 of the Flux job would be read by flux batch as a "
	    "submission directive: '#   /flux:/ddpgen'");
	expect_flux_refused("#flux: -N 2\n\necho \xff\n", "line 3 of the "
	    "Flux job is not valid UTF-8, which flux batch requires: a value "
	    "holds other bytes");
	expect_flux_refused("a\xed\xa0\x80", "line 1 of the Flux job is not "
	    "valid UTF-8, which flux batch requires: a value holds other "
	    "bytes");
	expect_flux_refused("a\xc0\xaf", "line 1 of the Flux job is not "
	    "valid UTF-8, which flux batch requires: a value holds other "
	    "bytes");
	expect_flux_refused("a\xf0\x9f\x98", "line 1 of the Flux job is not "
	    "valid UTF-8, which flux batch requires: a value holds other "
	    "bytes");
}
END_TEST

START_TEST(test_vars_life)
{
	char	*s;

	s = render(BASE, "[{{requeue}}] {{signal_lead}} {{checkpoint_signal}} "
	    "{{max_requeues}} [{{max_restarts}}]", 1);
	ck_assert_str_eq(s, "[''] 120 USR2 3 ['']");
	free(s);
	s = render(BASE "requeue = true\nsignal_lead = 300\n"
	    "checkpoint_signal = USR1\nmax_requeues = 0\nmax_restarts = 2\n",
	    "[{{requeue}}] {{signal_lead}} {{checkpoint_signal}} "
	    "{{max_requeues}} [{{max_restarts}}]", 1);
	ck_assert_str_eq(s, "[1] 300 USR1 0 [2]");
	free(s);
}
END_TEST

/* LSF: bsub -W's hours:minutes and -wt's minutes, rounded up; how the
 * tasks start; the output pattern with LSF's job id. */
#define LSF "description = \"d\"\nscheduler = lsf\n"
#define LSF_VARS "[{{time}}] {{lsf_warn_time}} [{{lsf_jsrun}}] " \
	"{{output}}"

START_TEST(test_vars_lsf)
{
	char	*s;

	s = render(LSF, LSF_VARS, 2);
	ck_assert_str_eq(s, "[''] 2 [''] ddp-%J.out");
	free(s);
	s = render(LSF "time = \"90\"\nsignal_lead = 61\nlsf_launcher = jsrun\n"
	    "job_output = \"run-%J.log\"\n", LSF_VARS, 2);
	ck_assert_str_eq(s, "[1:30] 2 [1] run-%J.log");
	free(s);
	s = render(LSF "time = \"1:30\"\nsignal_lead = 60\n", LSF_VARS, 2);
	ck_assert_str_eq(s, "[0:02] 1 [''] ddp-%J.out");
	free(s);
	s = render(LSF "time = \"2-00:00:01\"\n", LSF_VARS, 2);
	ck_assert_str_eq(s, "[48:01] 2 [''] ddp-%J.out");
	free(s);
	s = render(LSF "time = \"UNLIMITED\"\n", LSF_VARS, 2);
	ck_assert_str_eq(s, "[''] 2 [''] ddp-%J.out");
	free(s);
}
END_TEST

/* HPC Pack tasks pass max_restarts to torchrun too. */
#define HP "description = \"d\"\nscheduler = hpcpack\n"

START_TEST(test_task_max_restarts)
{
	char	*s;

	s = render(HP "max_restarts = 2\n", "{{task_command}}", 2);
	ck_assert_msg(strstr(s, "torchrun --nproc_per_node=1 "
	    "--max-restarts=2 t.py") != NULL, "%s", s);
	free(s);
	s = render(HP, "{{task_command}}", 2);
	ck_assert_msg(strstr(s, "max-restarts") == NULL, "%s", s);
	free(s);
}
END_TEST

/* bash -n: valid code passes, a complaint comes back on one line
 * without bash's prefixes, a warning counts, and without bash in PATH
 * nothing is checked. */
START_TEST(test_check_syntax)
{
	char	*cause = NULL, *path;

	ck_assert_int_eq(script_check_syntax("for x in a; do\necho \"$x\"\n"
	    "done\n", 1, &cause), 0);
	ck_assert_int_eq(script_check_syntax("if true", 1, &cause), -1);
	ck_assert_str_eq(cause, "syntax error: unexpected end of file");
	free(cause);
	ck_assert_int_eq(script_check_syntax("true\nfi\n", 0, &cause), -1);
	ck_assert_str_eq(cause, "line 2: syntax error near unexpected token "
	    "`fi'");
	free(cause);
	ck_assert_int_eq(script_check_syntax("cat <<EOF\n", 1, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "here-document"));
	free(cause);
	path = xstrdup(getenv("PATH"));
	ck_assert_int_eq(setenv("PATH", "/nonexistent", 1), 0);
	ck_assert_int_eq(script_check_syntax("if true", 1, &cause), 1);
	ck_assert_int_eq(setenv("PATH", path, 1), 0);
	free(path);
}
END_TEST

START_TEST(test_template_path)
{
	struct strlist	 dirs;

	use_xdg = 1;
	strlist_init(&dirs);
	script_template_path(&dirs, fake_getenv, NULL);
	ck_assert_uint_eq(dirs.n, 5);
	ck_assert_str_eq(dirs.v[0], "/a");
	ck_assert_str_eq(dirs.v[1], "/b");
	ck_assert_str_eq(dirs.v[2], "/xdg/ddpgen/templates");
	ck_assert_str_eq(dirs.v[3], DDPGEN_SYSCONFDIR "/templates");
	ck_assert_str_eq(dirs.v[4], DDPGEN_DATADIR "/templates");
	strlist_free(&dirs);

	use_xdg = 0;
	strlist_init(&dirs);
	script_template_path(&dirs, fake_getenv, "/nonexistent-exedir");
	ck_assert_str_eq(dirs.v[2], "/home/u/.config/ddpgen/templates");
	ck_assert_str_eq(dirs.v[4], DDPGEN_DATADIR "/templates");
	strlist_free(&dirs);

	/* A relative XDG_CONFIG_HOME is ignored, as for profiles. */
	use_xdg = 2;
	strlist_init(&dirs);
	script_template_path(&dirs, fake_getenv, NULL);
	ck_assert_uint_eq(dirs.n, 5);
	ck_assert_str_eq(dirs.v[2], "/home/u/.config/ddpgen/templates");
	strlist_free(&dirs);
	use_xdg = 0;
}
END_TEST

START_TEST(test_template_exedir)
{
	char		*dir = t_tmpdir("check_script"), *sub;
	struct strlist	 dirs;

	xasprintf(&sub, "%s/templates", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	strlist_init(&dirs);
	script_template_path(&dirs, fake_getenv, dir);
	ck_assert_str_eq(dirs.v[dirs.n - 1], sub);
	strlist_free(&dirs);
	free(sub);
	t_rmtree(dir);
}
END_TEST

START_TEST(test_find_template)
{
	char		*dir = t_tmpdir("check_script"), *f;
	char		*p, *cause = NULL;
	struct strlist	 dirs;

	xasprintf(&f, "%s/mine.sh", dir);
	t_write(f, "", 0);
	strlist_init(&dirs);
	strlist_add(&dirs, "/nonexistent");
	strlist_add(&dirs, dir);
	p = script_find_template("mine.sh", &dirs, &cause);
	ck_assert_str_eq(p, f);
	free(p);
	p = script_find_template(f, &dirs, &cause);
	ck_assert_str_eq(p, f);
	free(p);
	ck_assert_ptr_null(script_find_template("other.sh", &dirs, &cause));
	ck_assert_str_eq(cause,
	    "template 'other.sh' not found in the template path");
	free(cause);
	ck_assert_ptr_null(script_find_template("./none.sh", &dirs, &cause));
	ck_assert_str_eq(cause, "template ./none.sh: not readable");
	free(cause);
	strlist_free(&dirs);
	free(f);
	t_rmtree(dir);
}
END_TEST

static Suite *
script_suite(void)
{
	Suite	*s = suite_create("script");
	TCase	*tc = tcase_create("vars");

	tcase_add_test(tc, test_vars_basic);
	tcase_add_test(tc, test_vars_flux_output);
	tcase_add_test(tc, test_flux_check);
	tcase_add_test(tc, test_vars_backends);
	tcase_add_test(tc, test_vars_node_command);
	tcase_add_test(tc, test_vars_nproc_default);
	tcase_add_test(tc, test_vars_runtime);
	tcase_add_test(tc, test_vars_exclusive);
	tcase_add_test(tc, test_vars_env_records);
	tcase_add_test(tc, test_vars_hpcpack_runtime);
	tcase_add_test(tc, test_vars_hpcpack_command_line);
	tcase_add_test(tc, test_vars_hpcpack_task_command);
	tcase_add_test(tc, test_check_hpcpack_limits);
	tcase_add_test(tc, test_vars_requests);
	tcase_add_test(tc, test_vars_life);
	tcase_add_test(tc, test_vars_lsf);
	tcase_add_test(tc, test_task_max_restarts);
	suite_add_tcase(s, tc);
	tc = tcase_create("templates");
	tcase_add_test(tc, test_check_syntax);
	tcase_add_test(tc, test_template_path);
	tcase_add_test(tc, test_template_exedir);
	tcase_add_test(tc, test_find_template);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return t_run(script_suite());
}
