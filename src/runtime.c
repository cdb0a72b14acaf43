/* runtime.c: the table of container runtimes (runtime.h). Every row
 * follows its runtime's own documentation, named above it with the date
 * it was read. */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "runtime.h"
#include "util.h"
#include "xmalloc.h"

/*
 * Shifter (shifter.readthedocs.io, "shifter command", and NERSC's
 * "How to use Shifter" job scripts, read 2026-12): "#SBATCH
 * --image=docker:IMG" stages the image and sets the SLURM_SPANK_SHIFTER_*
 * variables the shifter command takes it from; "#SBATCH --module=gpu,..."
 * adds NERSC's GPU and NCCL modules; "srun shifter CMD" runs CMD in it
 * with the environment passed; "--volume=SRC:DST" binds a directory.
 */
static const char *const shifter_argv[] = { "shifter", NULL };
static const char *const shifter_gpu_modules[] = { "gpu", "nccl-plugin",
						   NULL };

/*
 * podman-hpc (NERSC's "Podman at NERSC" page and the podman-hpc README,
 * read 2026-12; podman-run(1) of podman 4.3): "podman-hpc run --rm --gpu
 * --nccl --net host -e VAR -v SRC:DST IMG CMD". podman passes no
 * variable of its caller's environment; "-e NAME" without a value copies
 * NAME when it is set. --gpu and --nccl are podman-hpc modules (each
 * module is an option named like it).
 */
static const char *const podman_argv[] = { "podman-hpc", "run", "--rm",
					   "--net", "host", NULL };
static const char *const podman_gpu[] = { "--gpu", "--nccl", NULL };

/*
 * Apptainer (apptainer-exec(1) and "Bind Paths and Mounts", Apptainer
 * 1.2 user guide, read 2026-12): "apptainer exec --nv --bind SRC:DST
 * IMAGE CMD"; the host environment passes by default; --nv binds the
 * NVIDIA driver's libraries and devices. /tmp is bound by default and
 * no PID namespace is made unless --pid asks: ddprank outside sees the
 * workers and their heartbeats (watched).
 */
static const char *const apptainer_argv[] = { "apptainer", "exec", NULL };
static const char *const apptainer_gpu[] = { "--nv", NULL };

/*
 * Charliecloud (ch-run(1), Charliecloud 0.31, Debian 12's
 * charliecloud-runtime, read 2026-12): "ch-run [-b SRC:DST] IMAGE -- CMD";
 * the environment passes unchanged but for ch-run's few changes (TMPDIR
 * unset, /bin added to PATH, CH_RUNNING set). No PID namespace, and
 * /tmp is the host's (its TMPDIR when set) unless --private-tmp: ddprank
 * outside sees the workers, and their heartbeats where they write them
 * (watched; hangwatch.c).
 */
static const char *const chrun_argv[] = { "ch-run", NULL };

/*
 * Pyxis (NVIDIA/pyxis wiki, "Usage", read 2026-12): srun
 * --container-image=IMAGE --container-mounts=SRC:DST[:FLAGS][,SRC:DST...]
 * starts every task of the step inside the container, with the task's
 * environment; so ddprank runs inside, from its directory mounted "ro".
 */

static const struct runtime runtimes[RT_COUNT] = {
	[RT_NONE] = { .name = "none", .title = "no container",
	    .image = RT_IMAGE_NONE },
	[RT_SHIFTER] = { .name = "shifter", .title = "Shifter",
	    .argv = shifter_argv, .gpu_modules = shifter_gpu_modules,
	    .module_opt = "--module=", .mount_opt = "--volume=",
	    .image = RT_IMAGE_SBATCH },
	[RT_PODMAN_HPC] = { .name = "podman-hpc", .title = "podman-hpc",
	    .argv = podman_argv, .gpu_args = podman_gpu, .module_opt = "--",
	    .mount_opt = "-v", .env_opt = "-e", .image = RT_IMAGE_WORD },
	[RT_APPTAINER] = { .name = "apptainer", .title = "Apptainer",
	    .argv = apptainer_argv, .gpu_args = apptainer_gpu,
	    .mount_opt = "--bind", .image = RT_IMAGE_WORD, .watched = 1 },
	[RT_PYXIS] = { .name = "pyxis", .title = "Pyxis",
	    .image = RT_IMAGE_SRUN, .inside = 1 },
	[RT_CHARLIECLOUD] = { .name = "charliecloud", .title = "Charliecloud",
	    .argv = chrun_argv, .mount_opt = "-b", .image = RT_IMAGE_WORD,
	    .command_sep = "--", .watched = 1 },
};

const struct runtime *
runtime_get(enum runtime_id id)
{
	if ((int)id < 0 || id >= RT_COUNT)
		id = RT_NONE;
	return &runtimes[id];
}

const char *const *
runtime_names(void)
{
	static const char	*names[RT_COUNT + 1];
	size_t			 i;

	if (names[0] == NULL)
		for (i = 0; i < RT_COUNT; i++)
			names[i] = runtimes[i].name;
	return names;
}

char *
runtime_names_text(void)
{
	return words_join(runtime_names(), " or ");
}

/* -1 and *cause: "'ITEM': WHY", the item made visible. */
static int
runtime_fail(char **cause, const char *item, const char *why)
{
	struct buf	b;

	buf_init(&b);
	buf_adds(&b, "'");
	util_addvis(&b, item, strlen(item));
	buf_adds(&b, "': ");
	buf_adds(&b, why);
	*cause = b.s;
	return -1;
}

int
runtime_check_mount(const char *item, char **cause)
{
	const char	*colon = strchr(item, ':');

	if (strchr(item, ',') != NULL)
		return runtime_fail(cause, item, "',' separates mounts in "
		    "Pyxis and Apptainer lists");
	if (colon != NULL && strchr(colon + 1, ':') != NULL)
		return runtime_fail(cause, item, "not SRC or SRC:DST (one ':' "
		    "at most)");
	if (item[0] != '/' || (colon != NULL && colon[1] != '/'))
		return runtime_fail(cause, item, "SRC and DST must be "
		    "absolute paths");
	return 0;
}

char *
runtime_mount(const char *item)
{
	char	*s;

	if (strchr(item, ':') != NULL)
		return xstrdup(item);
	xasprintf(&s, "%s:%s", item, item);
	return s;
}
