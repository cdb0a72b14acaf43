#!/bin/sh
# t-e2e-field.sh: what users of the field reports (issues 9 and 18) do to
# a generated job, on a real 2-node Slurm cluster of test/cluster, with
# real sbatch; apart from t-e2e-slurm.sh so that both stay short and can
# run side by side.
#   field     sbatch --ntasks-per-node=2 -c 8 under SBATCH_EXPORT=NONE,
#             with the socket interface names set by the user: one
#             torchrun per node with every CPU the job holds there,
#             -e values reach the training, OMP_NUM_THREADS is the
#             task's CPUs per process, the user's interface names stay,
#             output lines carry the task number
#   whole     sbatch --exclusive -c 1: the step gets the whole node the
#             job holds, not the 1 CPU that Slurm 23.11 and later would
#             pass on to srun from SLURM_CPUS_PER_TASK (22.05 does not)
#   het       sbatch -N1 : -N1 (a heterogeneous job) fails, saying why
#   c10d      c10d with an interface the host names do not resolve to
#             (nmn0): under torch 2.3 and later, which gives the workers
#             PET_LOCAL_ADDR, it trains; before, it fails at once, in
#             the preflight, saying why
#   nodelist  a hand-written job: ddprank takes a node list given only in
#             SLURM_NODELIST, and refuses to be a second task on a node

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

cluster=$srcdir/test/cluster/cluster.sh
check_job=$srcdir/test/cluster/check_job.py

. "$srcdir/test/cluster/e2e-lib.sh"
e2e_up 2

script=$srcdir/test/train.py
: >"$T/argv.none"

# --- field: a task count at submit time, SBATCH_EXPORT=NONE --------------------------
# Under --export=NONE the job gets nothing of this environment, the test
# cluster's torchrun fix (PYTHONPATH), TMPDIR and DDPTEST_DIR (which
# submit sets) included: the job passes them with -e itself, which is
# what is under test.
name=field
mkdir -p "$T/$name"
if check "$name: ddpgen failed" \
    "$DDPGEN" -s e2e-plmt -N 2 -t 6 -e 'DDPTEST_VAR=two words' \
    -e "PYTHONPATH=$PYTHONPATH" -e "TMPDIR=$TMPDIR" \
    -e "DDPTEST_DIR=$T/$name/ranks" \
    -e GLOO_SOCKET_IFNAME=eth3 -e NCCL_SOCKET_IFNAME==eth3 \
    "$script" >"$T/$name/job.sh" 2>"$T/$name/ddpgen.err"; then
	SBATCH_EXPORT=NONE
	export SBATCH_EXPORT
	submit "$name" 180 --ntasks-per-node=2 -c 8
	unset SBATCH_EXPORT
	# The address is nmn0's (the profile's), the sockets eth3 (the
	# user's); plmt's nodes are the job's alone (--exclusive): their 128
	# CPUs for the node's one task and its 2 processes, 64 threads each.
	expect_job "$name" 2 2 nmn0/eth3 static ddp "$T/argv.none" \
	    --expect-env 'DDPTEST_VAR=two words' \
	    --expect-env SLURM_CPUS_PER_TASK=128 \
	    --expect-env OMP_NUM_THREADS=64
	expect_eq "$name: srun could honour one task per node" \
	    "$(grep -c "can't honor" "$OUT")" 0
	expect_eq "$name: srun did not compare the step's CPUs with -c 8" \
	    "$(grep -c "may never run" "$OUT")" 0
	expect_eq "$name: ddprank says once that it keeps the names" \
	    "$(grep -c 'ddprank: keeping GLOO_SOCKET_IFNAME=eth3 and NCCL_SOCKET_IFNAME==eth3 from the environment instead of interface nmn0' "$OUT")" 1
	expect_eq "$name: every DDPTEST line labelled with its task" \
	    "$(grep -a -c -E '^[01]: DDPTEST \{' "$OUT")" 4
else
	cat "$T/$name/ddpgen.err"
fi

# --- whole: the node held, one CPU a task asked at submit time -----------------------
# The cluster's nodes have 128 CPUs (e2e-lib.sh), all the job's with
# --exclusive; 2 processes a node: 64 threads each. (The sockets' names
# given, as in field: the profile's comm_iface, Slingshot's hsn, is not on
# these nodes.)
name=whole
if gen "$name" -s e2e-plmt -N 2 -t 6 \
    -e GLOO_SOCKET_IFNAME=eth3 -e NCCL_SOCKET_IFNAME==eth3 "$script" &&
    submit "$name" 180 --exclusive -c 1; then
	expect_job "$name" 2 2 nmn0/eth3 static ddp "$T/argv.none" \
	    --expect-env SLURM_CPUS_PER_TASK=128 \
	    --expect-env OMP_NUM_THREADS=64
	expect_eq "$name: srun did not compare the step's CPUs with -c 1" \
	    "$(grep -c "may never run" "$OUT")" 0
fi

# --- het: a heterogeneous job -------------------------------------------------------
if gen het -s e2e-slurm -N 1 -t 6 "$script" &&
    submit het 60 -N1 : -N1; then
	expect_failed het \
	    "^ddpgen job: a heterogeneous job \\(2 components\\) is not supported" \
	    "that het jobs are not supported"
fi

# --- c10d: the interface is not where host names resolve ---------------------------
# (The sockets' names given, as in field: the profile's comm_iface,
# Slingshot's hsn, is not on these nodes.)
if torch_at_least 2 3; then
	if gen c10d -s e2e-plmt -N 2 -t 6 -r c10d \
	    -e GLOO_SOCKET_IFNAME=nmn0 -e NCCL_SOCKET_IFNAME==nmn0 "$script" &&
	    submit c10d 180; then
		expect_job c10d 2 2 nmn0/nmn0 c10d ddp "$T/argv.none"
	fi
elif gen c10d -s e2e-plmt -N 2 -t 6 -r c10d "$script" &&
    submit c10d 60; then
	# The doctor finds what exec would refuse (exit 5) first.
	expect_failed c10d \
	    "^FAIL iface node\\[1-2\\]: first: --rdzv c10d: torchrun gives the workers this node's host name 'node[12]' as MASTER_ADDR, which resolves to [0-9.]+, not to [0-9.]+ of interface nmn0" \
	    "why c10d is refused"
fi

# --- nodelist: ddprank on its own ---------------------------------------------------
name=nodelist
mkdir -p "$T/$name"
cat >"$T/$name/job.sh" <<EOF
#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=2
#SBATCH --output=ddp-%j.out
# Only SLURM_NODELIST tells the nodes apart, as on older Slurm.
srun -N 2 -n 2 --label env -u SLURM_STEP_NODELIST -u SLURM_JOB_NODELIST \\
    $DDPRANK env --port 29500
echo "step 1: \$?"
# Two tasks on each node: every task refuses.
srun -N 2 --ntasks-per-node=2 --label $DDPRANK env --port 29500
echo "step 2: \$?"
EOF
if submit "$name" 60; then
	expect_eq "$name: job state" "$STATE" COMPLETED
	expect_eq "$name: ranks from SLURM_NODELIST" \
	    "$(grep -a -E '^[01]: export (NODE_RANK|NNODES)=' "$OUT" | sort)" \
	    "0: export NNODES=2
0: export NODE_RANK=0
1: export NNODES=2
1: export NODE_RANK=1"
	expect_output "$name" '^step 1: 0$' "that step 1 succeeded"
	expect_output "$name" '^step 2: 4$' "that step 2 failed with status 4"
	expect_eq "$name: tasks of step 2 that refused" \
	    "$(grep -a -c 'ddprank: this job step runs 4 tasks on 2 nodes' "$OUT")" 4
	expect_eq "$name: exports of step 2" \
	    "$(grep -a -c -E '^[0-3]: export NODE_RANK' "$OUT")" 2
fi

e2e_down
finish
