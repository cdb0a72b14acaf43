#!/bin/sh
# t-ddpgen-check.sh: ddpgen --check FILE, a generated job checked before it
# is queued (ddpgen(1), CHECKING A JOB), one case each: a good job passes
# (its --env value, which the Regenerate line does not repeat, taken from
# the file); it fails, exit 8, for a training script that does not exist,
# a launcher missing from the PATH the setup lines leave, a setup line
# that fails and an image that does not exist; Slurm's dry run (a
# stand-in sbatch speaking as sbatch --test-only does) passes with its
# guess of the start, labelled as Slurm's, or fails with its refusal; a
# scheduler without one warns when a partition cannot be checked; an
# edited job warns; a file that is no job of ddpgen's, or none at all,
# is refused in one line. Nothing here runs a training.
. "$(dirname "$0")/lib.sh"

need_built ddpgen ddprank
need_progs bash

DDPGEN_PROFILE_PATH=$srcdir/profiles
DDPGEN_TEMPLATE_PATH=$srcdir/templates
export DDPGEN_PROFILE_PATH DDPGEN_TEMPLATE_PATH

# Stand-ins, each a script in $T/bin: a torchrun and an apptainer that do
# nothing (the checks only look for them), and sbatch, which answers
# --test-only as Slurm's sbatch does (src/sbatch/sbatch.c: "Job %u to
# start at %s using %u processors on nodes %s in partition %s"), or with
# its refusal for partition 'nosuch', or cannot ask Slurm (as sbatch
# without a configuration cannot) for partition 'noconf'.
mkdir -p "$T/bin" "$T/nobin" "$T/work"
printf '#!/bin/sh\nexit 0\n' >"$T/bin/torchrun"
cp "$T/bin/torchrun" "$T/bin/apptainer"
cat >"$T/bin/sbatch" <<'EOF'
#!/bin/sh
[ "$1" = --test-only ] || exit 9
if grep -q '^#SBATCH --partition=noconf$' "$2"; then
	echo "sbatch: fatal: Could not establish a configuration source" >&2
	exit 1
fi
if grep -q '^#SBATCH --partition=nosuch$' "$2"; then
	echo "sbatch: error: Batch job submission failed: Invalid partition name specified" >&2
	exit 1
fi
echo "sbatch: Job 42 to start at 2030-01-02T03:04:05 using 2 processors on nodes n[1-2] in partition debug" >&2
EOF
chmod +x "$T/bin/"*
: >"$T/work/train.py"
touch "$T/work/image.sif"
cd "$T/work" || exit 1

# job NAME DDPGEN-ARGS...: NAME.sh, a job whose PATH (an --env value,
# which the Regenerate line writes as <value>) finds the stand-ins.
job() {
	name=$1
	shift
	"$DDPGEN" -e "PATH=$T/bin:\$PATH" "$@" >"$name.sh"
}
# checked NAME WANT-RC: ddpgen --check NAME.sh, its report in NAME.out.
checked() {
	"$DDPGEN" --check "$1.sh" >"$1.out" 2>"$1.err"
	expect_eq "$1: exit status" "$?" "$2"
	expect_eq "$1: nothing on standard error" "$(cat "$1.err")" ""
}
report() { cat "$1.out"; }

check "good: generated" job good --site local train.py --data ./image.sif \
    --out=missing/x
checked good 0
expect_has "good: the script is its Regenerate line's" \
    "PASS job: the script is what its 'Regenerate with' line gives now (site local)" \
    "$(report good)"
expect_has "good: the setup ran" "PASS setup: " "$(report good)"
expect_has "good: the launcher on the job's PATH (the --env value read from the file)" \
    "PASS launcher: 'torchrun' is $T/bin/torchrun" "$(report good)"
expect_has "good: ddprank" "PASS ddprank: '$BUILDDIR/ddprank' is executable" \
    "$(report good)"
expect_has "good: the script" "PASS script: '$T/work/train.py' is a file" \
    "$(report good)"
expect_has "good: an argument that is a file" \
    "PASS argument: './image.sif' is a file" "$(report good)"
expect_has "good: an argument that is no file" \
    "WARN argument: 'missing/x' does not exist here" "$(report good)"
expect_lacks "good: no failure" "FAIL" "$(report good)"
check "good: one line per finding, LEVEL name: detail" \
    eval '! grep -Ev "^(PASS|WARN|FAIL) [a-z]+: " good.out'

job noscript --site local nosuch.py
checked noscript 8
expect_has "noscript: failed" "FAIL script: '$T/work/nosuch.py' does not exist here" \
    "$(report noscript)"

# The launcher is not on the PATH the setup lines leave.
"$DDPGEN" --site local -e "PATH=$T/nobin" train.py >nolauncher.sh
checked nolauncher 8
expect_has "nolauncher: failed" \
    "FAIL launcher: 'torchrun' is not on the PATH the job's setup lines leave" \
    "$(report nolauncher)"

job nosetup --site local -S 'ddpgen_check_nosuch_command --x' train.py
checked nosetup 8
expect_has "nosetup: the line and why" \
    "FAIL setup: 'ddpgen_check_nosuch_command --x' ends the job with status 127: ddpgen_check_nosuch_command: command not found" \
    "$(report nosetup)"
job setupfalse --site local -S 'true' -S 'false' -S 'echo never' train.py
checked setupfalse 8
expect_has "setupfalse: the line" \
    "FAIL setup: 'false' ends the job with status 1" "$(report setupfalse)"

job noimage --site local --container apptainer --image "$T/none.sif" \
    train.py
checked noimage 8
expect_has "noimage: failed" "FAIL image: '$T/none.sif' does not exist" \
    "$(report noimage)"
expect_has "noimage: the runtime is there" \
    "PASS runtime: 'apptainer' is $T/bin/apptainer" "$(report noimage)"
job image --site local --container apptainer --image ./image.sif train.py
checked image 0
expect_has "image: found" "PASS image: '$T/work/./image.sif' is a file" \
    "$(report image)"

# Slurm's dry run, with sbatch where ddpgen --check runs.
job slurm --site slurm -p debug train.py
PATH=$T/bin:$PATH checked slurm 0
expect_has "slurm: Slurm's guess" \
    "PASS queue: sbatch --test-only takes the job; Slurm's guess, not a promise: it would start at 2030-01-02T03:04:05 using 2 processors on nodes n[1-2] in partition debug" \
    "$(report slurm)"
job badpart --site slurm -p nosuch train.py
PATH=$T/bin:$PATH checked badpart 8
expect_has "badpart: Slurm's refusal" \
    "FAIL queue: sbatch --test-only refuses the job: sbatch: error: Batch job submission failed: Invalid partition name specified" \
    "$(report badpart)"
job noconf --site slurm -p noconf train.py
PATH=$T/bin:$PATH checked noconf 0
expect_has "noconf: Slurm not asked" \
    "WARN queue: sbatch --test-only could not ask Slurm: sbatch: fatal: Could not establish a configuration source" \
    "$(report noconf)"
mkdir -p "$T/onlybash"
ln -s "$(command -v bash)" "$T/onlybash/bash"
PATH=$T/onlybash checked slurm 0
expect_has "slurm: no sbatch here" \
    "WARN queue: sbatch is not on PATH here: partition and account not checked" \
    "$(report slurm)"
printf 'description = "p"\nscheduler = pbs\npartition = "prod"\n' >pbs.conf
job pbs --site ./pbs.conf -A proj --no-requeue train.py
checked pbs 0
expect_has "pbs: no dry run" \
    "WARN queue: qsub has no dry run: partition 'prod' and account 'proj' not checked" \
    "$(report pbs)"

# An edited job: checked as its Regenerate line gives it now.
cp good.sh edited.sh
echo 'echo edited' >>edited.sh
checked edited 0
expect_has "edited: said" "WARN job: line " "$(report edited)"

# Refusals, one line each.
printf '<?xml version="1.0"?>\n<Job/>\n' >notajob.sh
"$DDPGEN" --check notajob.sh >out 2>err
expect_eq "notajob: exit status" "$?" 2
expect_eq "notajob: one line" "$(cat err)" \
    "ddpgen: notajob.sh: no comment ending in 'Regenerate with:': not a shell job of ddpgen's, or its header was replaced"
"$DDPGEN" --check nosuch.sh >out 2>err
expect_eq "nosuch: exit status" "$?" 1
expect_eq "nosuch: one line" "$(wc -l <err)" 1
"$DDPGEN" --check good.sh --nodes 2 >out 2>err
expect_eq "--check with --nodes: exit status" "$?" 2
expect_eq "--check with --nodes: said" "$(cat err)" \
    "ddpgen: --check: --nodes does not apply"
finish
