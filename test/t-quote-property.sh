#!/bin/sh
# t-quote-property.sh: 1,500 random argument vectors (bytes 1-255,
# 0-64 bytes each, up to 8 arguments; the seed is printed) and random
# values of every option that reaches a job (--job-name, --partition,
# --account, --qos, --constraint, --env NAME=VALUE, --iface, under each
# --launcher) through
# ddpgen into Slurm scripts, PBS scripts (polaris), Flux scripts
# (tuolumne), LSF scripts, local jobs (two virtual nodes, each its own
# session) and HPC Pack job files, executed with a
# ddprank stand-in that records what it receives: identical every time,
# (an --env value as the job-time rule expands $NAME and ${NAME}, by a
# model of the rule), or refused with one clear error when ddpgen refuses
# the value by design
# (control bytes in an #SBATCH line or a pattern; what XML cannot hold).
# The #SBATCH lines are read back as sbatch reads them (a model of its
# parser, and sbatch -vvv itself when installed), the #PBS lines as
# qsub's make_argv reads them (a model), the #flux: lines as flux batch
# reads them (its pattern and shlex settings, RFC 36), the #BSUB lines as
# a bare or double-quoted value each (what IBM documents; anything else
# must be refused). Then 75 profiles with
# a container (each runtime of ddpgen-profile(5)) whose image and mounts
# are hostile bytes: the runtime's words after ddprank's "--", Pyxis's
# srun options and Shifter's #SBATCH --image carry them byte for byte.
# Then 750 hostfiles of
# random host names with random MASTER_ADDR values through ddprank env
# and eval in bash and sh.
#
# Not covered, by design: --setup and a profile's setup lines are shell
# code (ddpgen(1)); --time is validated against Slurm's formats and
# --template names a file, so neither carries arbitrary text.
#
# QP_N and QP_SEED change the number of vectors (the profiles are a
# twentieth of it, the hostfiles half) and the seed. make check runs
# 1,500, about 2.5 minutes on 2 quiet cores (3,000 took 20 minutes on
# loaded ones beside the Debian 13 chroot's making, near the suite's
# timeout); QP_N=10000 (20 minutes quiet) is the long run to make before
# changing quote.c or a template's quoting.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "needs python3"
command -v bash >/dev/null || skip "needs bash"
command -v xmllint >/dev/null || skip "needs xmllint (Debian: libxml2-utils)"
[ -x "$DDPGEN" ] && [ -x "$DDPRANK" ] || skip "ddpgen and ddprank are not built"
cc=${CC:-cc}

# The ddprank stand-in, in C because it runs thousands of times: "ip" records
# its --iface value in $REC.ip and prints an address; "exec" records the
# argument count and every argument after "--", then S and $HOSTILE_ENV
# (U when unset), then its --iface value, each ending in a NUL, in $REC.
mkdir -p "$T/bin dir"
cat >"$T/standin.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *
iface(int argc, char **argv)
{
	int	i;

	for (i = 2; i + 1 < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--iface") == 0)
			return argv[i + 1];
	return "";
}

int
main(int argc, char **argv)
{
	const char	*rec = getenv("REC"), *env = getenv("HOSTILE_ENV");
	char		 path[4096];
	FILE		*f;
	int		 i;

	if (argc < 2 || rec == NULL)
		return 9;
	if (strcmp(argv[1], "doctor") == 0)	/* the preflight passes */
		return 0;
	if (strcmp(argv[1], "ip") == 0) {
		snprintf(path, sizeof path, "%s.ip", rec);
		if ((f = fopen(path, "wb")) == NULL)
			return 9;
		fprintf(f, "%s%c", iface(argc, argv), '\0');
		puts("192.0.2.1");
		return fclose(f) != 0;
	}
	if (strcmp(argv[1], "exec") != 0 || (f = fopen(rec, "wb")) == NULL)
		return 9;
	for (i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)
		;
	fprintf(f, "%d%c", argc - i - 1, '\0');
	while (++i < argc)
		fprintf(f, "%s%c", argv[i], '\0');
	fprintf(f, "%s%s%c", env != NULL ? "S" : "U", env != NULL ? env : "",
	    '\0');
	fprintf(f, "%s%c", iface(argc, argv), '\0');
	return fclose(f) != 0;
}
EOF
"$cc" -O2 -o "$T/bin dir/ddprank" "$T/standin.c" ||
	skip "cannot compile the ddprank stand-in with $cc"

# For the jobs run for real: srun drops its options and runs the task;
# module is the profiles' setup line; SLURM_NNODES is the job's node
# count, which srun's options take from Slurm.
SLURM_NNODES=2
export SLURM_NNODES
mkdir -p "$T/work/bin"
cat >"$T/work/bin/srun" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in -N|-n) shift 2 ;; --*) shift ;; *) break ;; esac
done
exec "$@"
EOF
# PBS jobs (polaris): mpiexec likewise, conda a setup line.
cat >"$T/work/bin/mpiexec" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in -n|--ppn) shift 2 ;; *) break ;; esac
done
exec "$@"
EOF
printf '#!/bin/sh\nexit 0\n' >"$T/work/bin/module"
cp "$T/work/bin/module" "$T/work/bin/conda"
# flux (for the tuolumne profile's jobs): "resource list" gives the node
# count; "run" drops its options, as flux-run(1) lists them up to the
# first non-option, and runs the task.
cat >"$T/work/bin/flux" <<'FLUX'
#!/bin/sh
case $1 in
resource) echo 2; exit 0 ;;
run) shift ;;
*) exit 9 ;;
esac
while [ $# -gt 0 ]; do
	case $1 in -N|-n|-o) shift 2 ;; --) shift; break ;; -*) shift ;; *) break ;; esac
done
exec "$@"
FLUX
# LSF's blaunch HOST COMMAND...: as rsh would, the command words joined
# into one line that an intermediate shell runs (blaunch.8, IBM Spectrum
# LSF 10.1); bstatus: the job has no external status yet.
cat >"$T/work/bin/blaunch" <<'EOF'
#!/bin/sh
shift
exec /bin/sh -c "$*"
EOF
printf '#!/bin/sh\nexit 0\n' >"$T/work/bin/bstatus"
chmod +x "$T/work/bin/srun" "$T/work/bin/mpiexec" "$T/work/bin/module" \
    "$T/work/bin/conda" "$T/work/bin/flux" "$T/work/bin/blaunch" \
    "$T/work/bin/bstatus"

sbatch=
if command -v sbatch >/dev/null; then
	sbatch=--sbatch
else
	echo "note: no sbatch; #SBATCH lines are read by the model of its parser only"
fi
start=$(date +%s)
python3 "$srcdir/test/quote-property.py" --ddpgen "$DDPGEN" \
    --ddprank "$DDPRANK" --standin "$T/bin dir/ddprank" --work "$T/work" \
    --n "${QP_N:-1500}" --seed "${QP_SEED:-20261130}" $sbatch
rc=$?
echo "$(( $(date +%s) - start )) s"
expect_eq "property test" "$rc" 0
finish
