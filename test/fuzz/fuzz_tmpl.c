/* fuzz_tmpl.c: libFuzzer target for tmpl_parse and tmpl_render. The
 * first byte picks the context (.sh, .xml, .cmd, .ps1), the rest is the
 * template. The variables are fixed: those ddpgen gives the shipped
 * templates (script_vars of a fixed job with hostile arguments), and
 * more strings clean and hostile, lists empty and not, records with
 * nested lists and records. */
#include "config.h"

#include <sanitizer/lsan_interface.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "quote.h"
#include "script.h"
#include "tmpl.h"
#include "util.h"

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct tmpl_vars	*vars;

/* The back-ends' filters too (gen-pbs.c, gen-lsf.c). */
static const struct tmpl_filter filters[] = {
	{ "pbs", quote_pbs, 1 },
	{ "bsub", quote_bsub, 1 },
	{ NULL, NULL, 0 }
};
static const struct tmpl_opts opts = { NULL, NULL, filters };

static const char *const names[] = {
	"--lr", "1e-3", "two words", "it's", "", "$(touch pwned)",
	"caf\xc3\xa9", "100%", "^!&|<>()"
};

static void
add_env(struct tmpl_vars *v, const char *name, const char *value)
{
	struct tmpl_vars	*r;

	r = tmpl_add_record(v, "env");
	tmpl_set(r, "name", name);
	tmpl_set(r, "value", value);
}

static void
add_task(struct tmpl_vars *v, const char *id)
{
	struct tmpl_vars	*r, *in;

	r = tmpl_add_record(v, "tasks");
	tmpl_set(r, "task_id", id);
	tmpl_set(r, "stdout", "ddp.out");
	tmpl_set(r, "stderr", "ddp.err");
	tmpl_set(r, "x", "shadows the top x");
	tmpl_set_list(r, "files", (char *const *)names, 3);
	in = tmpl_add_record(r, "inner");
	tmpl_set(in, "deep", "d'\"<&>");
	tmpl_set_empty_list(r, "none");
}

static const char profile_text[] =
	"description = \"fuzz\"\n"
	"scheduler = hpcpack\n"
	"discovery = iface\n"
	"iface = \"^eth0$\"\n"
	"gpus_per_node = 4\n"
	"node_group = \"GPU nodes\"\n"
	"time = \"1:00:00\"\n"
	"env = {\"A=1\", \"B=two words' \\\"q\\\"\"}\n"
	"setup = {\"module load pytorch\"}\n"
	"shared_dir = \"/app\"\n";

/* The variables of a real job, as ddpgen renders it. */
static struct tmpl_vars *
job_vars(void)
{
	static const char *const argv[] = {
	    "ddpgen", "--nodes", "2", "train.py"
	};
	struct strlist	 dirs, errors;
	struct profile	*p;
	struct job	 job;

	strlist_init(&dirs);
	strlist_init(&errors);
	if ((p = profile_parse_buf("fuzz.conf", profile_text, &dirs,
	    &errors)) == NULL)
		abort();
	memset(&job, 0, sizeof job);
	job.prof = p;
	job.site = "fuzz";
	job.nodes = 2;
	job.script = "/scratch/my dir/train.py";
	job.args = (char *const *)names;
	job.nargs = sizeof names / sizeof names[0];
	job.argv = (char *const *)argv;
	job.argc = sizeof argv / sizeof argv[0];
	job.ddprank = "/opt/ddpgen/bin/ddprank";
	vars = script_vars(&job);
	/* script_vars copies what it keeps. */
	profile_free(p);
	strlist_free(&dirs);
	strlist_free(&errors);
	return vars;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* A leak in the setup is not the templates' to report: the unit
	 * suites and t-valgrind.sh look for those. */
	__lsan_disable();
	vars = job_vars();
	__lsan_enable();
	tmpl_set(vars, "x", "value");
	tmpl_set(vars, "empty", "");
	tmpl_set(vars, "q", "it's \"q\" $(x) `y` \\ %PATH% ^!&|<>() ;#~*?[a]");
	tmpl_set(vars, "nl", "a\nb\tc\rd");
	tmpl_set(vars, "ctl", "x\001y\177z");
	tmpl_set(vars, "utf8", "caf\xc3\xa9 \xe2\x80\x98q\xe2\x80\x99 \xef\xbf\xbd");
	tmpl_set(vars, "bad", "\xff\xfe\xc0\xaf\xed\xa0\x80");
	tmpl_set(vars, "sp", " ");
	tmpl_set_list(vars, "args", (char *const *)names,
	    sizeof names / sizeof names[0]);
	tmpl_set_list(vars, "one", (char *const *)names + 2, 1);
	tmpl_set_empty_list(vars, "none");
	tmpl_set_empty_list(vars, "norec");
	add_env(vars, "A", "1");
	add_env(vars, "B", "two words' \"and\" <xml>");
	add_env(vars, "C", "");
	add_env(vars, "D", "/opt/x:$PATH:${HOME}\\$x${a:-b}\\");
	add_task(vars, "1");
	add_task(vars, "2");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const files[] = {
		"fuzz.sh", "fuzz.xml", "fuzz.cmd", "fuzz.ps1"
	};
	struct tmpl	*t;
	struct buf	 out;
	char		*s, *cause = NULL;
	int		 ctx;

	if (size == 0)
		return 0;
	ctx = data[0] % 4;
	s = malloc(size);
	if (s == NULL)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	t = tmpl_parse(files[ctx], s, (enum tmpl_ctx)ctx, &opts, &cause);
	if (t == NULL) {
		if (cause == NULL || strncmp(cause, files[ctx],
		    strlen(files[ctx])) != 0)
			abort();
		free(cause);
		free(s);
		return 0;
	}
	buf_init(&out);
	if (tmpl_render(t, vars, &out, &cause) == -1) {
		if (cause == NULL || strncmp(cause, files[ctx],
		    strlen(files[ctx])) != 0)
			abort();
		free(cause);
	} else if (strlen(out.s) != out.len)
		abort();
	buf_free(&out);
	tmpl_free(t);
	free(s);
	return 0;
}
