#!/bin/sh
# t-e2e-timeline.sh: the launch timeline of real jobs on the namespace
# cluster of test/cluster (one cluster of 5 nodes, the jobs at once).
#   slow      3 nodes, torchrun, test/train.py marking its phases through
#             the hook; the test hook DDPTEST_SLOW_NODE makes node rank
#             1's imports 6 s slower: node 0's report, once in the job's
#             output, names that node and import
#   srun      2 nodes, srun-direct (a task a process, one reporter a
#             node): the report has both nodes and the training's phases
# Timings are printed, not asserted.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

cluster=$srcdir/test/cluster/cluster.sh
check_job=$srcdir/test/cluster/check_job.py
. "$srcdir/test/cluster/e2e-lib.sh"
e2e_up 5 eth3

script=$srcdir/test/train.py

# report NAME: node 0's report in job NAME's output, without srun's
# "0: " labels.
report() {
	sed -n 's/^0: //; /^ddprank timeline:/,/^start-up /p' "$OUT"
}

gen slow -s e2e-slurm -N 3 -t 5 "$script"
# srun-direct runs the python that has torch (torchrun's), named in the
# profile after srun.
printf 'description = "test: srun-direct"\nextends = "e2e-slurm"\nlauncher = {"srun", "%s"}\n' \
    "$tpy" >"$T/srun.conf"
gen srun -s "$T/srun.conf" -N 2 -t 5 "$script"
# start NAME [ENV...]: sbatch --wait job NAME in the background.
start() {
	name=$1
	shift
	mkdir -p "$T/$name/ranks"
	(cd "$T/$name" && env DDPTEST_DIR="$T/$name/ranks" "$@" \
	    timeout 240 sbatch --parsable --wait job.sh >sbatch.out \
	    2>sbatch.err; echo $? >rc) &
}
start slow DDPTEST_SLOW_NODE=1 DDPTEST_SLOW=6
start srun
t0=$(date +%s)
wait
timing "both jobs" $(($(date +%s) - t0))

# load NAME: what submit would have set: JOBID, RC, STATE, OUT, NODES_OF.
load() {
	RC=$(cat "$T/$1/rc")
	JOBID=$(sed -n '1{s/;.*//;p;}' "$T/$1/sbatch.out")
	check "$1: no job id from sbatch: $(cat "$T/$1/sbatch.err")" \
	    test -n "$JOBID" || return 1
	expect_eq "$1: sbatch --wait exit status" "$RC" 0
	STATE=$("$cluster" state "$JOBID")
	OUT=$T/$1/ddp-$JOBID.out
	NODES_OF=$(grep "^JobId=$JOBID " "$CLUSTER_DIR/log/jobcomp.txt" |
	    sed -n 's/.* NodeList=\([^ ]*\) .*/\1/p')
	NODES_OF=$(scontrol show hostnames "$NODES_OF" | tr '\n' ' ')
	NODES_OF=${NODES_OF% }
}

if load slow; then
	expect_eq "slow: job state" "$STATE" COMPLETED || show_logs slow
	r=$(report slow)
	echo "--- slow: the report"
	echo "$r"
	expect_eq "slow: one report" \
	    "$(grep -c 'ddprank timeline:' "$OUT")" 1
	expect_has "slow: three nodes" "ddprank timeline: 3 nodes" "$r"
	# Node rank 1 is the second node of the job's list.
	slow_host=$(echo "$NODES_OF" | cut -d' ' -f2)
	expect_has "slow: node rank 1 ($slow_host) and import named" \
	    "; slowest: $slow_host import " "$r"
	for p in "step start" "task to ddprank" "node list and rank" \
	    "ddprank to launcher" "launcher to python" import \
	    "process group" "first collective"; do
		check "slow: phase $p in the report" matches "$r" "*
$p *"
	done
	expect_lacks "slow: nothing missing" "no timeline from" "$r"
	expect_lacks "slow: no hook line refused" "hook ignored" "$r"
	check "slow: the training ran" grep -a -q 'DDPTEST {' "$OUT"
fi

if load srun; then
	expect_eq "srun: job state" "$STATE" COMPLETED || show_logs srun
	r=$(report srun)
	echo "--- srun: the report"
	echo "$r"
	expect_eq "srun: one report" \
	    "$(grep -c 'ddprank timeline:' "$OUT")" 1
	expect_has "srun: two nodes" "ddprank timeline: 2 nodes" "$r"
	check "srun: the training's first collective" matches "$r" "*
first collective *"
	expect_lacks "srun: nothing missing" "no timeline from" "$r"
fi

e2e_down
finish
