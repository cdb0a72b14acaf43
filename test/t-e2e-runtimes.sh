#!/bin/sh
# t-e2e-runtimes.sh: the container runtimes this machine lacks (Shifter,
# podman-hpc, Apptainer, Pyxis) on the namespace Slurm cluster, through
# the stand-ins of test/standin/runtime.py: each parses the command line
# the job gives it by the real tool's grammar (copied there from the
# tool's documentation), refuses what the tool would, passes on only the
# environment the tool would, and records both. The training then runs
# for real, and check_job.py checks it as t-e2e-slurm.sh does: so the
# variables ddprank sets did cross (podman-hpc passes nothing without
# -e). Charliecloud, which Debian packages, runs for real in
# t-e2e-container.sh.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

cluster=$srcdir/test/cluster/cluster.sh
check_job=$srcdir/test/cluster/check_job.py
. "$srcdir/test/cluster/e2e-lib.sh"
standin=$srcdir/test/standin/runtime.py
script=$srcdir/test/train.py

# The stand-ins, first in the jobs' PATH (sbatch exports this one).
mkdir -p "$T/bin"
for r in shifter podman-hpc apptainer srun; do
	ln -s "$standin" "$T/bin/$r"
done
DDPTEST_REAL_SRUN=$(command -v srun)
PATH=$T/bin:$PATH
export DDPTEST_REAL_SRUN PATH

# Pyxis runs ddprank inside, from its directory: the static one, with
# the legacy-store hook beside it as in a build tree (ddprank(1), LIBUV),
# which a torch without libuv (Debian 13's) needs to start torchrun.
make -C "$BUILDDIR" -s ddprank-static >/dev/null 2>&1
check "ddprank-static built" test -x "$BUILDDIR/ddprank-static" || finish
mkdir -p "$T/pyxis/bin/python"
cp "$BUILDDIR/ddprank-static" "$T/pyxis/bin/ddprank"
cp "$srcdir/python/sitecustomize.py" "$T/pyxis/bin/python/"
chmod 0755 "$T/pyxis/bin/python"
chmod 0644 "$T/pyxis/bin/python/sitecustomize.py"

mkdir -p "$T/profiles"
profile() {
	name=$1
	shift
	{
		echo "description = \"test: $name on the test cluster\""
		echo "extends = \"e2e-slurm\""
		printf '%s\n' "$@"
	} >"$T/profiles/e2e-$name.conf"
}
profile shifter 'container = shifter' \
    'image = "docker:nersc/pytorch:24.06.01"' \
    "container_mounts = {\"$srcdir\"}" 'container_modules = {"mpich"}'
# podman-hpc passes no environment: what the job must see is named in
# env (the harness's torchrun fix) or with --env (DDPTEST_DIR).
profile podman-hpc 'container = podman-hpc' \
    'image = "nersc/pytorch:24.06.01"' "container_mounts = {\"$srcdir\"}" \
    'env = {"PYTHONPATH=$PYTHONPATH"}'
profile apptainer 'container = apptainer' "image = \"$T/pytorch 24.sif\"" \
    "container_mounts = {\"$srcdir\"}"
profile pyxis 'container = pyxis' \
    'image = "nvcr.io#nvidia/pytorch:24.01-py3"' \
    "container_mounts = {\"$srcdir\"}" "ddprank = \"$T/pyxis/bin/ddprank\""
DDPGEN_PROFILE_PATH=$T/profiles:$DDPGEN_PROFILE_PATH

nl=$(printf 'line1\nline2')
with_args() {
	"$@" --epochs=2 'two  words' '' '$(touch pwned)' "it's \"q\" \\b\\" \
	    '*' "$nl" -- --nnodes=7 '-h' '${PATH}' ';' '\' "'" '"'
}
with_args printf '%s\0' >"$T/argv"

# standin_log NAME: the stand-ins' records for job NAME.
standin_log() { cat "$T/$1/standin.log" 2>/dev/null; }
# records NAME PYTHON-EXPR [ARG...]: how many records make EXPR true (r:
# the record, a: the ARGs).
records() {
	_n=$1
	shift
	standin_log "$_n" | python3 -c '
import json, sys
print(sum(1 for l in sys.stdin
          if eval(sys.argv[1], {"r": json.loads(l), "a": sys.argv[2:]})))' "$@"
}

e2e_up 2

# --- Shifter ---------------------------------------------------------------------
# sbatch here has no Shifter plugin: the test does its part, turning
# "#SBATCH --image=IMG" into SLURM_SPANK_SHIFTER_IMAGE for the job.
if with_args gen shifter -s e2e-shifter -N 2 -t 6 "$script"; then
	js=$T/shifter/job.sh
	expect_eq "shifter: #SBATCH lines" \
	    "$(grep '^#SBATCH --\(image\|module\)' "$js")" \
	    "#SBATCH --image=docker:nersc/pytorch:24.06.01
#SBATCH --module=mpich"
	sed -i '/^#SBATCH --\(image\|module\)=/d' "$js"
	DDPTEST_STANDIN_LOG=$T/shifter/standin.log
	SLURM_SPANK_SHIFTER_IMAGE=docker:nersc/pytorch:24.06.01
	export DDPTEST_STANDIN_LOG SLURM_SPANK_SHIFTER_IMAGE
	if submit shifter 180; then
		expect_job shifter 2 2 hostname static ddp "$T/argv"
		expect_eq "shifter: runs, one per node, with the image" \
		    "$(records shifter 'r["image"] == "docker:nersc/pytorch:24.06.01" and r["command"][0] == "torchrun"')" 2
	fi
	unset SLURM_SPANK_SHIFTER_IMAGE
fi

# --- podman-hpc: only what -e names crosses ---------------------------------------
# (OMP_NUM_THREADS too: two processes a node and no CPU count, so the job
# sets torchrun's 1 itself, for every launcher, and -e names it.)
# Not through gen, which refuses a script naming PYTHONPATH: here the
# profile names it on purpose, as the one way the fix can cross.
mkdir -p "$T/podman-hpc"
if check "podman-hpc: ddpgen" with_args "$DDPGEN" -s e2e-podman-hpc -N 2 -t 6 \
    --env DDPTEST_DIR "$script" >"$T/podman-hpc/job.sh" &&
    DDPTEST_STANDIN_LOG=$T/podman-hpc/standin.log &&
    export DDPTEST_STANDIN_LOG && submit podman-hpc 180; then
	expect_eq "podman-hpc: sbatch --wait exit status" "$RC" 0
	expect_eq "podman-hpc: job $JOBID state" "$STATE" COMPLETED
	addr=$(resolved "$FIRST")
	port=$(auto_port podman-hpc)
	check "podman-hpc: check_job.py" python3 "$check_job" --nodes 2 \
	    --procs-per-node 2 --node-order "$NODES_OF" --argv-file "$T/argv" \
	    --master-addr "$addr" --expect-env "PET_MASTER_ADDR=$addr" \
	    --expect-env "PET_MASTER_PORT=$port" --expect-env PET_NNODES=2 \
	    --expect-env "MASTER_PORT=$port" --expect-unset SLURM_JOB_ID \
	    --expect-unset SLURM_JOB_NAME --expect-unset DDPRANK_SECRET \
	    "$T/podman-hpc"/ranks/* || show_logs podman-hpc
	expect_eq "podman-hpc: what crossed into the container" \
	    "$(records podman-hpc 'set(r["env"]) == {"PATH", "HOME", "HOSTNAME", "container", "NODE_RANK", "NNODES", "MASTER_ADDR", "MASTER_PORT", "PET_NNODES", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT", "DDPGEN_RESTART_COUNT", "DDPGEN_LAST_STOP", "DDPGEN_CHECKPOINT_SIGNAL", "OMP_NUM_THREADS", "PYTHONPATH", "DDPTEST_DIR"}')" 2
fi

# --- Apptainer ------------------------------------------------------------------------
if with_args gen apptainer -s e2e-apptainer -N 2 -t 6 "$script" &&
    DDPTEST_STANDIN_LOG=$T/apptainer/standin.log &&
    export DDPTEST_STANDIN_LOG && submit apptainer 180; then
	expect_job apptainer 2 2 hostname static ddp "$T/argv"
	expect_eq "apptainer: exec, no --nv on a CPU job, the image" \
	    "$(records apptainer 'r["argv"][:3] == ["exec", "--bind", a[0] + ":" + a[0]] and r["image"] == a[1]' "$srcdir" "$T/pytorch 24.sif")" 2
fi

# --- Pyxis: ddprank-static inside, from its directory mounted read only -----------
if with_args gen pyxis -s e2e-pyxis -N 2 -t 6 "$script" &&
    DDPTEST_STANDIN_LOG=$T/pyxis/standin.log &&
    export DDPTEST_STANDIN_LOG && submit pyxis 180; then
	expect_job pyxis 2 2 hostname static ddp "$T/argv"
	# Two steps (the preflight, the training) on two nodes.
	expect_eq "pyxis: tasks started in the container" \
	    "$(records pyxis 'r["image"] == "nvcr.io#nvidia/pytorch:24.01-py3"')" 4
fi

# --- Pyxis: a ddprank directory another user could write ---------------------------
chmod g+w "$T/pyxis/bin"
if gen pyxis-unsafe -s e2e-pyxis -N 2 -t 6 "$script" &&
    DDPTEST_STANDIN_LOG=$T/pyxis-unsafe/standin.log &&
    export DDPTEST_STANDIN_LOG && submit pyxis-unsafe 120; then
	expect_failed pyxis-unsafe \
	    "ddpgen job: $T/pyxis/bin is owned by uid 0 with mode 775: another user could replace ddprank" \
	    "that ddprank's directory is unsafe"
	expect_eq "pyxis-unsafe: nothing started" "$(standin_log pyxis-unsafe)" ""
fi
chmod g-w "$T/pyxis/bin"

e2e_down
finish
