#!/bin/sh
# t-e2e-launchers.sh: the launchers other than torchrun, for real, on the
# namespace Slurm cluster of test/cluster (3 nodes). srun-direct (one
# Slurm task per process, ddprank giving each what torchrun would have)
# with interface discovery on 3 nodes and hostname discovery on 2, 2
# processes per node, hostile job name, script path and arguments; a
# task that dies before joining ends the job through --kill-on-bad-exit.
# Then DeepSpeed and accelerate through their stand-ins (test/standin,
# with the real tools' grammar), on 2 nodes: the argv each node receives
# is parsed strictly, and the training they start is checked as
# t-e2e-slurm.sh checks torchrun's (check_job.py: world size, every rank
# once, parameters in sync, argv byte for byte).

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

cluster=$srcdir/test/cluster/cluster.sh
check_job=$srcdir/test/cluster/check_job.py

. "$srcdir/test/cluster/e2e-lib.sh"
e2e_up 3

# The arguments of t-e2e-slurm.sh that break naive quoting.
nl=$(printf 'line1\nline2')
notutf8=$(printf '\377\376 not utf-8')
utf8=$(printf 'caf\303\251 \316\273')
with_args() {
	"$@" --epochs=2 'two  words' '' '$(touch pwned)' '`touch pwned`' \
	    "it's \"quoted\" \\back\\slash\\" '*' '?' "$nl" "$notutf8" -- \
	    --nnodes=7 --nproc_per_node=9 --local_rank=5 --num_processes=1 \
	    "$utf8" ' lead and trail ' '-h' '$HOME' '!x' ';' '|' '\' "'" '"'
}
with_args printf '%s\0' >"$T/argv"
sdir="$T/scripts 'q' \"d\" \$(touch pwned) $utf8"
mkdir -p "$sdir"
cp "$srcdir/test/train.py" "$sdir/train it's.py"
hostile_script="$sdir/train it's.py"
script=$srcdir/test/train.py
jobname=$(printf 'e2e '\''q'\'' "dq" $HOME $(id) `x` \\back #hash %%j ;&|<>*?')
# The stand-ins are found on the nodes' PATH, as the real tools would be.
standin="PATH=$srcdir/test/standin:\$PATH"
# srun-direct runs the python that has torch (torchrun's), named in the
# profile after srun.
for p in cori slurm; do
	printf 'description = "test: %s, srun-direct"\nextends = "e2e-%s"\nlauncher = {"srun", "%s"}\n' \
	    "$p" "$p" "$tpy" >"$T/srun-$p.conf"
done

# expect_procid NAME: srun-direct's ranks are Slurm's task ids (block
# distribution), each task one rank.
expect_procid() {
	check "$1: RANK is not SLURM_PROCID on every rank" python3 -c '
import json, sys
for path in sys.argv[1:]:
    rec = json.loads(open(path, encoding="utf-8", errors="replace")
                     .read().split("DDPTEST ", 1)[1])
    env = rec["env"]
    if not (env.get("SLURM_PROCID") == env.get("RANK") == str(rec["rank"])):
        sys.exit("%s: rank %s, RANK %s, SLURM_PROCID %s" % (path,
                 rec["rank"], env.get("RANK"), env.get("SLURM_PROCID")))
' "$T/$1"/ranks/*
}

# --- srun: interface discovery (cori's eth3), 3 nodes, hostile everything ---------
if with_args gen srun-cori -s "$T/srun-cori.conf" -N 3 -t 6 -J "$jobname" \
    "$hostile_script" && submit srun-cori 180; then
	expect_job srun-cori 3 2 eth3 none "$jobname" "$T/argv" \
	    --expect-env LOCAL_WORLD_SIZE=2 --expect-env WORLD_SIZE=6
	expect_procid srun-cori
fi

# --- srun: hostname discovery, 2 of the 3 nodes --------------------------------------
if with_args gen srun-slurm -s "$T/srun-slurm.conf" -N 2 -t 6 "$script" &&
    submit srun-slurm 180; then
	# No CPU count asked, but the nodes are the job's (the slurm
	# profile's --exclusive): their 128 CPUs, 64 for each of a node's 2
	# tasks, which srun gives each task and OMP_NUM_THREADS follows.
	expect_job srun-slurm 2 2 hostname none ddp "$T/argv" \
	    --expect-env LOCAL_WORLD_SIZE=2 --expect-env SLURM_CPUS_PER_TASK=64 \
	    --expect-env OMP_NUM_THREADS=64
	expect_procid srun-slurm
fi

# --- srun: the tasks of node rank 1 exit before joining ------------------------------
# The others would wait for them (gloo's timeout is 30 minutes); srun
# --kill-on-bad-exit ends the step once one task has failed.
if gen srun-fail -s "$T/srun-slurm.conf" -N 3 -t 6 -e DDPTEST_FAIL_NODE=1 \
    -e DDPTEST_FAIL_AT=start "$script" && submit srun-fail 120; then
	expect_failed srun-fail \
	    '^([0-9]+: )?train\.py: rank [23] on node 1: failing on request' \
	    "that the training failed on node rank 1"
fi

# --- deepspeed (stand-in): interface discovery, 2 nodes ------------------------------
if with_args gen deepspeed -s e2e-ds -N 2 -t 6 -e "$standin" "$script" &&
    submit deepspeed 180; then
	expect_job deepspeed 2 2 eth3 none ddp "$T/argv" \
	    --expect-unset LOCAL_WORLD_SIZE --expect-env WORLD_SIZE=4
fi

# --- accelerate (stand-in): hostname discovery, 2 nodes ------------------------------
if with_args gen accelerate -s e2e-slurm -L accelerate -N 2 -t 6 \
    -e "$standin" "$script" && submit accelerate 180; then
	expect_job accelerate 2 2 hostname none ddp "$T/argv" \
	    --expect-env LOCAL_WORLD_SIZE=2 \
	    --expect-env ACCELERATE_MIXED_PRECISION=no
fi

e2e_down
finish
