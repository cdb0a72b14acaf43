#!/bin/sh
# t-e2e-bind.sh: the binding (ddpgen --bind, ddprank(1) BINDING) in real
# jobs on the namespace Slurm cluster of test/cluster, on this machine's
# own topology (hwloc reads it; the nodes are namespaces of one machine,
# so each node's workers share out the same cores). With 2 processes per
# node and bind = numa, each worker's os.sched_getaffinity(0) is disjoint
# from the other's and OMP_NUM_THREADS is its number of cores, under
# torchrun, srun-direct, and DeepSpeed and accelerate through their
# stand-ins (the binding step's --no-python path, DeepSpeed's
# --local_rank=N put back after the script). With bind = none the script
# is the default's byte for byte and the workers run where they did. A
# plan the node cannot hold ends the job with ddprank's one line, from
# the preflight's doctor or, without it, from ddprank exec. The workers
# are bindprobe.py, which imports no torch: the binding is done before
# the training starts. Cases run at once, 4 nodes at a time.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

cluster=$srcdir/test/cluster/cluster.sh
check_job=$srcdir/test/cluster/check_job.py
. "$srcdir/test/cluster/e2e-lib.sh"

probe=$srcdir/test/e2e/bindprobe.py
bindcheck=$srcdir/test/e2e/bindcheck.py
need_progs python3
ncpu=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
[ "$ncpu" -ge 2 ] || skip "this machine gives the test $ncpu CPU: two workers cannot have CPUs of their own"
standin="PATH=$srcdir/test/standin:\$PATH"

e2e_up 4

# bg_submit NAME LIMIT: sbatch --wait the job in $T/NAME in the
# background, its workers' records in $T/NAME/ranks.
bg_submit() {
	rm -rf "$T/$1/ranks"
	mkdir -p "$T/$1/ranks"
	(cd "$T/$1" && DDPTEST_DIR=$T/$1/ranks && export DDPTEST_DIR &&
	    timeout "$2" sbatch --parsable --wait job.sh >sbatch.out \
	    2>sbatch.err; echo $? >rc) &
}

# collect NAME: once the background jobs have ended, JOBID, RC, STATE and
# OUT of job NAME.
collect() {
	JOBID=$(sed -n '1{s/;.*//;p;}' "$T/$1/sbatch.out")
	RC=$(cat "$T/$1/rc")
	STATE= OUT=
	check "$1: no job id from sbatch: $(cat "$T/$1/sbatch.err")" \
	    test -n "$JOBID" || return 1
	STATE=$("$cluster" state "$JOBID")
	OUT=$T/$1/ddp-$JOBID.out
}

# bound NAME NODES [--local-rank-arg]: job NAME completed, and its
# workers were bound, each node's on CPUs of their own.
bound() {
	name=$1 nodes=$2
	shift 2
	collect "$name" || return
	expect_eq "$name: sbatch --wait exit status" "$RC" 0
	expect_eq "$name: job $JOBID state" "$STATE" COMPLETED
	check "$name: bindcheck.py" python3 "$bindcheck" "$T/$name/ranks" \
	    "$nodes" 2 bound "$@" || show_logs "$name"
}

# --- batch 1: torchrun on 2 nodes, bind none, srun-direct ---------------------------
gen tr-numa -s e2e-slurm -N 2 -t 6 --bind numa "$probe" && bg_submit tr-numa 180
if gen tr-none -s e2e-slurm -N 1 -t 6 "$probe" &&
    gen tr-none-asked -s e2e-slurm -N 1 -t 6 --bind none "$probe"; then
	# But for the command line in its "Regenerate with" comment.
	grep -v '^#   ' "$T/tr-none/job.sh" >"$T/tr-none/body"
	grep -v '^#   ' "$T/tr-none-asked/job.sh" >"$T/tr-none-asked/body"
	check "bind none: the script is the default's byte for byte" \
	    cmp "$T/tr-none/body" "$T/tr-none-asked/body"
	bg_submit tr-none 180
fi
gen srun-numa -s e2e-slurm -L srun -N 1 -t 6 --bind numa "$probe" &&
    bg_submit srun-numa 180
wait

bound tr-numa 2
check "tr-numa: the script runs the workers through ddprank bind" \
    grep -q -- '--no_python' "$T/tr-numa/job.sh"
check "tr-numa: the preflight's doctor does not pass the plan" \
    grep -a -q '^PASS bind: a plan for 2 local ranks (bind numa); no bound process running yet$' "$OUT"
if collect tr-none; then
	expect_eq "tr-none: job $JOBID state" "$STATE" COMPLETED
	check "tr-none: bindcheck.py" python3 "$bindcheck" \
	    "$T/tr-none/ranks" 1 2 unbound || show_logs tr-none
	check "tr-none: the script binds nothing" \
	    ! grep -q -e '--bind' -e '--no_python' "$T/tr-none/job.sh"
fi
bound srun-numa 1
check "srun-numa: srun leaves the binding to the tasks" \
    grep -q -- '--cpu-bind=none' "$T/srun-numa/job.sh"

# --- batch 2: DeepSpeed and accelerate, and plans the node cannot hold ---------------
gen ds-numa -s e2e-slurm -L deepspeed -N 1 -t 6 -e "$standin" --bind numa \
    "$probe" a1 && bg_submit ds-numa 180
gen acc-numa -s e2e-slurm -L accelerate -N 1 -t 6 -e "$standin" --bind numa \
    "$probe" && bg_submit acc-numa 180
# One rank more than this machine has cores.
many=$((ncpu + 1))
gen many-exec -s e2e-slurm -N 1 -t 6 -n "$many" --bind numa --no-preflight \
    "$probe" && bg_submit many-exec 120
gen many-doctor -s e2e-slurm -N 1 -t 6 -n "$many" --bind numa "$probe" &&
    bg_submit many-doctor 120
wait

bound ds-numa 1 --local-rank-arg
bound acc-numa 1
why="NUMA domain 0 has $ncpu free cores for $many local ranks"
if collect many-exec; then
	check "many-exec: sbatch --wait exit status" test "$RC" != 0
	expect_eq "many-exec: job $JOBID state" "$STATE" FAILED
	# Each line begins with srun --label's "TASK: ".
	expect_output many-exec "^([0-9]+: )?ddprank: $why\$" \
	    "ddprank exec's one line"
	expect_output many-exec "task 0: Exited with exit code 9" \
	    "ddprank's exit status 9"
	check "many-exec: a worker started" \
	    test -z "$(ls "$T/many-exec/ranks")"
fi
if collect many-doctor; then
	expect_eq "many-doctor: job $JOBID state" "$STATE" FAILED
	expect_output many-doctor "^FAIL bind node[0-9]+: $why\$" \
	    "the doctor's FAIL"
fi

e2e_down
finish
