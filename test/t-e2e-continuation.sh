#!/bin/sh
# t-e2e-continuation.sh: a continuation keeps its identity whatever
# SBATCH_EXPORT says in the job (issue 23, failure 2). On a cluster of
# test/cluster, two jobs submitted with --no-requeue (so requeue is
# refused and each submits its continuation with sbatch) and
# max_requeues = 1, under SBATCH_EXPORT=NONE:
#   setup  set by a setup line of the profile (a module would do it)
#   shell  set in the submitting shell, the job submitted --export=ALL
# Each must run twice: the first run's warning submits the continuation,
# which knows itself (restart 1, last stop time-limit, resuming from the
# checkpoint) and ends at its own warning, the bound reached (status
# 124), instead of starting the count again. Each run has 3 minutes and
# the warning 60 s before the end: two minutes to start (the preflight,
# torchrun) on a loaded machine, since a warning that comes before the
# training step is lost.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

cluster=$srcdir/test/cluster/cluster.sh
example=$srcdir/examples/train_resumable.py

need_cluster sbatch srun squeue scancel
need_torchrun
need_built ddpgen ddprank
[ -n "$T" ] && [ -d "$T" ] || { echo "FAIL: no temporary directory"; exit 1; }

DDPGEN_PROFILE_PATH=$srcdir/profiles
DDPGEN_TEMPLATE_PATH=$srcdir/templates
export DDPGEN_PROFILE_PATH DDPGEN_TEMPLATE_PATH

chmod 0755 "$T"
CLUSTER_DIR=$T/cluster
CLUSTER_PARTITIONS=debug
CLUSTER_CONF_EXTRA='PartitionName=setup Nodes=node1 MaxTime=INFINITE State=UP
PartitionName=shell Nodes=node2 MaxTime=INFINITE State=UP'
CLUSTER_MIN_JOB_AGE=30
export CLUSTER_DIR CLUSTER_PARTITIONS CLUSTER_CONF_EXTRA CLUSTER_MIN_JOB_AGE
on_exit '"$cluster" down'
trap 'exit 130' INT TERM HUP

check "cluster.sh up" "$cluster" up 2 || finish
eval "$("$cluster" env)"
. "$CLUSTER_DIR/cluster.vars"

# gen NAME PROFILE-LINES: $T/NAME/job.sh, a training that never ends
gen() {
	mkdir -p "$T/$1"
	printf 'description = "%s"\nextends = "slurm"\njob_output = "%s"\nlabel_output = false\nmax_requeues = 1\n%s\n' \
	    "$1" "$T/$1/out" "$2" >"$T/$1/site.conf"
	check "$1: ddpgen" "$DDPGEN" -s "$T/$1/site.conf" -J "$1" -N 1 -p "$1" \
	    -t 3 --signal-lead 60 "$example" --checkpoint "$T/$1/ckpt.pt" \
	    --result "$T/$1/result" --steps 100000 --step-seconds 1 \
	    >"$T/$1/job.sh" 2>"$T/$1/ddpgen.err" || cat "$T/$1/ddpgen.err"
}
gen setup 'setup = {"export SBATCH_EXPORT=NONE"}'
gen shell ''
check "setup: the setup line is in the job" \
    grep -q '^export SBATCH_EXPORT=NONE$' "$T/setup/job.sh"

# sub NAME ENV... -- SBATCH-OPTIONS...
sub() {
	name=$1
	shift
	(cd "$T/$name" && env "$@" job.sh) >"$T/$name/jobid" \
	    2>"$T/$name/sbatch.err" || { cat "$T/$name/sbatch.err"; echo 0 >"$T/$name/jobid"; }
}
sub setup sbatch --parsable --no-requeue
sub shell SBATCH_EXPORT=NONE sbatch --parsable --no-requeue --export=ALL

# Wait until both chains are over: the first job and every continuation
# it names (a chain that forgot its count would go on: the deadline).
field() {
	scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"
}
conts() {
	sed -n 's/.*continuation job \([0-9]*\) submitted.*/\1/p' \
	    "$T/$1/out" 2>/dev/null
}
deadline=$(($(date +%s) + 600)) late=
while :; do
	busy=
	for c in setup shell; do
		for j in $(cat "$T/$c/jobid") $(conts "$c"); do
			"$cluster" ended "$j" || busy=1
			# A requeued job waits 2 minutes: release it, so that
			# an unbounded chain shows within the deadline.
			if [ "$(field "$j" Reason)" = BeginTime ]; then
				scontrol update jobid="$j" StartTime=now
			fi
		done
	done
	[ -n "$busy" ] || break
	if [ "$(date +%s)" -gt "$deadline" ]; then
		late=1
		squeue
		break
	fi
	sleep 2
done
check "the chains did not end within 600 s" test -z "$late"

for c in setup shell; do
	show() { echo "--- $c/out"; cat "$T/$c/out"; }
	j=$(cat "$T/$c/jobid")
	cj=$(conts "$c")
	expect_eq "$c: first job's state" "$("$cluster" state "$j")" COMPLETED ||
	    show
	expect_eq "$c: one continuation" "$(echo "$cj" | grep -c .)" 1 || show
	expect_eq "$c: the continuation's state" \
	    "$("$cluster" state "$(echo "$cj" | head -n 1)")" FAILED || show
	expect_has "$c: continuation submitted" \
	    "requeue refused: continuation job $cj submitted (restart 1 of at most 1)" \
	    "$(cat "$T/$c/out")" || show
	expect_has "$c: the continuation knows itself" \
	    "train_resumable: restart 1, last stop time-limit, resuming at step" \
	    "$(cat "$T/$c/out")" || show
	expect_has "$c: max_requeues bounds the chain" \
	    "checkpoint signal sent to 1 process on 1 node; not requeued: 1 time-limit requeues already (max_requeues = 1)" \
	    "$(cat "$T/$c/out")" || show
	expect_eq "$c: two runs" \
	    "$(grep -c '^train_resumable: restart' "$T/$c/out")" 2 || show
done
finish
