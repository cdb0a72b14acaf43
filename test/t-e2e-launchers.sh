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

# rank0_env NAME VAR: VAR as rank 0 of job NAME saw it.
rank0_env() {
	python3 -c '
import json, sys
rec = json.loads(open(sys.argv[1], encoding="utf-8",
                      errors="replace").read().split("DDPTEST ", 1)[1])
print(rec["env"].get(sys.argv[2], ""))' "$T/$1/ranks/rank-0.txt" "$2" \
	    2>/dev/null
}

# expect_run NAME NODES PPN DISCOVERY JOBNAME [CHECK...]: as expect_job
# of e2e-lib.sh, for a launcher that is not torchrun: no PET_* variable
# reaches the training; MASTER_PORT is the job's automatic port.
expect_run() {
	name=$1 nodes=$2 ppn=$3 disc=$4 jname=$5
	shift 5
	expect_eq "$name: sbatch --wait exit status" "$RC" 0
	expect_eq "$name: job $JOBID state" "$STATE" COMPLETED
	n=0
	for h in $NODES_OF; do n=$((n + 1)); done
	expect_eq "$name: number of nodes" "$n" "$nodes"
	if [ "$disc" = hostname ]; then
		addr=$(resolved "$FIRST")
		set -- "$@" --expect-unset GLOO_SOCKET_IFNAME \
		    --expect-unset NCCL_SOCKET_IFNAME
	else
		addr=$("$cluster" addr "$FIRST" "$disc")
		set -- "$@" --expect-env "GLOO_SOCKET_IFNAME=$disc" \
		    --expect-env "NCCL_SOCKET_IFNAME==$disc"
	fi
	port=$(rank0_env "$name" MASTER_PORT)
	check "$name: port '$port' not in 20000-29999" \
	    matches "$port" "2[0-9][0-9][0-9][0-9]"
	if ! check "$name: check_job.py" \
	    python3 "$check_job" --nodes "$nodes" --procs-per-node "$ppn" \
	    --node-order "$NODES_OF" --argv-file "$T/argv" \
	    --master-addr "$addr" --expect-env "MASTER_PORT=$port" \
	    --expect-unset PET_NNODES --expect-unset PET_MASTER_ADDR \
	    --expect-unset DDPRANK_SECRET \
	    --expect-env "SLURM_JOB_NAME=$jname" "$@" "$T/$name"/ranks/*; then
		show_logs "$name"
	fi
	check "$name: an argument was run as a command" \
	    test ! -e "$T/$name/pwned" -a ! -e "$T/pwned"
}

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
if with_args gen srun-cori -s "$T/srun-cori.conf" -N 3 -t 3 -J "$jobname" \
    "$hostile_script" && submit srun-cori 180; then
	expect_run srun-cori 3 2 eth3 "$jobname" \
	    --expect-env LOCAL_WORLD_SIZE=2 --expect-env WORLD_SIZE=6
	expect_procid srun-cori
fi

# --- srun: hostname discovery, 2 of the 3 nodes --------------------------------------
if with_args gen srun-slurm -s "$T/srun-slurm.conf" -N 2 -t 3 "$script" &&
    submit srun-slurm 180; then
	expect_run srun-slurm 2 2 hostname ddp --expect-env LOCAL_WORLD_SIZE=2
	expect_procid srun-slurm
fi

# --- srun: the tasks of node rank 1 exit before joining ------------------------------
# The others would wait for them (gloo's timeout is 30 minutes); srun
# --kill-on-bad-exit ends the step once one task has failed.
if gen srun-fail -s "$T/srun-slurm.conf" -N 3 -t 3 -e DDPTEST_FAIL_NODE=1 \
    -e DDPTEST_FAIL_AT=start "$script" && submit srun-fail 120; then
	expect_failed srun-fail \
	    '^([0-9]+: )?train\.py: rank [23] on node 1: failing on request' \
	    "that the training failed on node rank 1"
fi

# --- deepspeed (stand-in): interface discovery, 2 nodes ------------------------------
if with_args gen deepspeed -s e2e-ds -N 2 -t 3 -e "$standin" "$script" &&
    submit deepspeed 180; then
	expect_run deepspeed 2 2 eth3 ddp --expect-unset LOCAL_WORLD_SIZE \
	    --expect-env WORLD_SIZE=4
fi

# --- accelerate (stand-in): hostname discovery, 2 nodes ------------------------------
if with_args gen accelerate -s e2e-slurm -L accelerate -N 2 -t 3 \
    -e "$standin" "$script" && submit accelerate 180; then
	expect_run accelerate 2 2 hostname ddp --expect-env LOCAL_WORLD_SIZE=2 \
	    --expect-env ACCELERATE_MIXED_PRECISION=no
fi

e2e_down
finish
