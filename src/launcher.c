/* launcher.c: the table of launchers, and how a launcher word names a row. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "launcher.h"
#include "util.h"
#include "xmalloc.h"

static const char *const torchrun_prog[] = { "torchrun", NULL };
static const char *const srun_prog[] = { "python3", NULL };

/* DeepSpeed's runner (deepspeed/launcher/runner.py, parse_args and main,
 * read at commit 38327e07, 2025-02): without ssh it needs --node_rank,
 * and a hostfile of every node, or it runs on localhost alone with
 * master 127.0.0.1; --num_gpus sets the slots of every host. */
static const char *const deepspeed_prog[] = { "deepspeed", NULL };
static const struct launcher_flag deepspeed_flags[] = {
	{ "--hostfile", LAUNCHER_VAL_HOSTFILE },
	{ "--no_ssh", LAUNCHER_VAL_NONE },
	{ "--node_rank", LAUNCHER_VAL_NODE_RANK },
	{ "--num_nodes", LAUNCHER_VAL_NNODES },
	{ "--master_addr", LAUNCHER_VAL_ADDR },
	{ "--master_port", LAUNCHER_VAL_PORT },
	{ NULL, LAUNCHER_VAL_NONE }
};

/* accelerate launch (src/accelerate/commands/launch.py,
 * launch_command_parser and launch_command, 1.15.0.dev0, commit
 * 16cb6eb8): --num_processes counts every machine's; without one of the
 * paradigm flags and without a config file it runs one process unless
 * the node has two GPUs, so --multi_gpu (torch.distributed.run) comes
 * unless the profile names another paradigm. Options take '-' for '_'. */
static const char *const accelerate_prog[] = { "accelerate", "launch", NULL };
static const char *const accelerate_fixed[] = { "--multi_gpu", NULL };
static const char *const accelerate_alt[] = { "--multi_gpu", "--multi-gpu",
    "--cpu", "--tpu", "--use_deepspeed", "--use-deepspeed", "--use_fsdp",
    "--use-fsdp", NULL };
static const struct launcher_flag accelerate_flags[] = {
	{ "--num_machines", LAUNCHER_VAL_NNODES },
	{ "--machine_rank", LAUNCHER_VAL_NODE_RANK },
	{ "--main_process_ip", LAUNCHER_VAL_ADDR },
	{ "--main_process_port", LAUNCHER_VAL_PORT },
	{ "--num_processes", LAUNCHER_VAL_PROCS },
	{ NULL, LAUNCHER_VAL_NONE }
};

static const struct launcher_flag no_flags[] = { { NULL, LAUNCHER_VAL_NONE } };

/* The flags that run a module (torch/distributed/run.py's -m/--module,
 * DeepSpeed's --module, accelerate's -m/--module). */
static const char *const module_flags[] = { "-m", "--module", NULL };
static const char *const ds_module_flags[] = { "--module", NULL };

static const struct launcher launcher_table[LAUNCHER_COUNT] = {
	[LAUNCHER_TORCHRUN] = {
		.name = "torchrun", .program = torchrun_prog,
		.nproc_flag = "--nproc_per_node",
		.restarts_flag = "--max-restarts",
		/* torch 1.13 knows --no_python alone; 2.x both spellings. */
		.no_python = "--no_python", .module = module_flags,
		.flags = no_flags, .vars = LAUNCHER_VARS_PET, .rdzv = 1,
	},
	/* NERSC's srun-direct: one Slurm task per process, no agent. */
	[LAUNCHER_SRUN] = {
		.name = "srun", .program = srun_prog,
		.flags = no_flags, .vars = LAUNCHER_VARS_WORKER,
		.per_process = 1, .sched = SCHED_SLURM,
	},
	[LAUNCHER_DEEPSPEED] = {
		.name = "deepspeed", .program = deepspeed_prog, .words = 1,
		.nproc_flag = "--num_gpus",
		.no_python = "--no_python", .no_local_rank = "--no_local_rank",
		.module = ds_module_flags,
		.flags = deepspeed_flags, .vars = LAUNCHER_VARS_NONE,
	},
	[LAUNCHER_ACCELERATE] = {
		.name = "accelerate", .program = accelerate_prog, .words = 2,
		.restarts_flag = "--max_restarts",
		.fixed = accelerate_fixed, .alt = accelerate_alt,
		.no_python = "--no_python", .module = module_flags,
		.flags = accelerate_flags, .vars = LAUNCHER_VARS_NONE,
	},
};

const char *const *
launcher_names(void)
{
	static const char	*names[LAUNCHER_COUNT + 1];
	size_t			 i;

	if (names[0] == NULL)
		for (i = 0; i < LAUNCHER_COUNT; i++)
			names[i] = launcher_table[i].name;
	return names;
}

const struct launcher *
launcher_get(enum launcher_id id)
{
	return &launcher_table[id];
}

enum launcher_id
launcher_find(const char *word)
{
	const char	*base = strrchr(word, '/');
	size_t		 i;

	base = base != NULL ? base + 1 : word;
	for (i = 0; i < LAUNCHER_COUNT; i++)
		if (strcmp(base, launcher_table[i].name) == 0)
			return (enum launcher_id)i;
	return LAUNCHER_TORCHRUN;
}

static void
launcher_add_words(struct strlist *out, const char *const *w)
{
	for (; *w != NULL; w++)
		strlist_add(out, *w);
}

void
launcher_program(struct strlist *out, const struct strlist *l)
{
	const struct launcher	*row = launcher_get(launcher_find(l->v[0]));
	size_t			 i;

	/* A name that is no program (srun): the words after it are. */
	if (strcmp(row->name, row->program[0]) != 0) {
		if (l->n == 1)
			launcher_add_words(out, row->program);
		for (i = 1; i < l->n; i++)
			strlist_add(out, l->v[i]);
		return;
	}
	strlist_copy(out, l);
	for (i = l->n; i < row->words; i++)
		strlist_add(out, row->program[i]);
}

const char *
launcher_doctor_program(const char *word)
{
	size_t	i;

	for (i = 0; i < LAUNCHER_COUNT; i++)
		if (strcmp(word, launcher_table[i].name) == 0)
			return launcher_table[i].program[0];
	return word;
}

static void
launcher_flag(struct strlist *out, const struct launcher_flag *f,
    const struct launcher_run *r)
{
	char	*s = NULL;

	switch (f->val) {
	case LAUNCHER_VAL_NONE:
		s = xstrdup(f->flag);
		break;
	case LAUNCHER_VAL_NODE_RANK:
		xasprintf(&s, "%s=%llu", f->flag, r->node_rank);
		break;
	case LAUNCHER_VAL_NNODES:
		xasprintf(&s, "%s=%llu", f->flag, r->nnodes);
		break;
	case LAUNCHER_VAL_ADDR:
		xasprintf(&s, "%s=%s", f->flag, r->addr);
		break;
	case LAUNCHER_VAL_PORT:
		xasprintf(&s, "%s=%d", f->flag, r->port);
		break;
	case LAUNCHER_VAL_PROCS:
		xasprintf(&s, "%s=%llu", f->flag, r->nnodes * r->nproc);
		break;
	case LAUNCHER_VAL_HOSTFILE:
		xasprintf(&s, "%s=%s", f->flag, r->hostfile);
		break;
	}
	strlist_addown(out, s);
}

int
launcher_argv(struct strlist *out, const struct launcher *l,
    char *const *argv, size_t argc, size_t at,
    const struct launcher_run *r, char **cause)
{
	const struct launcher_flag	*f;
	size_t				 i;

	if (at >= argc || argc - at <= l->words) {
		util_fail(cause, "--launcher %s: the command%s must start "
		    "with %zu word%s (%s ...) and name a script", l->name,
		    at > 0 ? " after --launcher-at's words" : "", l->words,
		    l->words == 1 ? "" : "s", l->program[0]);
		return -1;
	}
	for (i = 0; i < at + l->words; i++)
		strlist_add(out, argv[i]);
	for (f = l->flags; f->flag != NULL; f++)
		launcher_flag(out, f, r);
	for (; i < argc; i++)
		strlist_add(out, argv[i]);
	return 0;
}

char *
launcher_names_text(void)
{
	return words_join(launcher_names(), " or ");
}
