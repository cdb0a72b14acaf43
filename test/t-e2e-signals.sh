#!/bin/sh
# t-e2e-signals.sh: checkpoint signals that are not Slurm's time-limit
# warning, for real (ddpgen(1), LONG TRAININGS). One cluster of
# test/cluster with preemption; generated scripts run
# examples/train_resumable.py:
#   hand   no --time; scancel -b --signal=USR2 once it trains: a
#          checkpoint asked for by hand, requeued, resumed, finished
#   steps  scancel --signal=USR2 without -b once it trains: the training
#          checkpoints and the job ends with status 124 and a line, not
#          COMPLETED in mid-training
#   early  preempted while its doctor runs (a ddprank that holds the
#          doctor until the preemption has come): the training is not
#          started, the job requeues, then trains to the end
# t-signals-script.sh runs these and more with stand-ins.

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
CLUSTER_CONF_EXTRA='PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
SlurmctldParameters=preempt_send_user_signal
PartitionName=hand Nodes=node1 MaxTime=INFINITE State=UP
PartitionName=steps Nodes=node2 MaxTime=INFINITE State=UP
PartitionName=low Nodes=node3 PriorityTier=1 PreemptMode=REQUEUE GraceTime=60 MaxTime=INFINITE State=UP
PartitionName=high Nodes=node3 PriorityTier=10 PreemptMode=OFF MaxTime=INFINITE State=UP'
CLUSTER_MIN_JOB_AGE=30
export CLUSTER_DIR CLUSTER_PARTITIONS CLUSTER_CONF_EXTRA CLUSTER_MIN_JOB_AGE
on_exit '"$cluster" down'
trap 'exit 130' INT TERM HUP

check "cluster.sh up" "$cluster" up 3 || finish
eval "$("$cluster" env)"

# early's ddprank: the doctor waits for $T/early/go, made by the harness
# once the preemption has come.
mkdir -p "$T/early"
cat >"$T/early/ddprank" <<EOF
#!/bin/sh
if [ "\$1" = doctor ]; then
	: >"$T/early/doctor"
	while [ ! -e "$T/early/go" ]; do sleep 0.2; done
fi
exec "$(cd "$(dirname "$DDPRANK")" && pwd)/ddprank" "\$@"
EOF
chmod 0755 "$T/early/ddprank"

# gen NAME DDPGEN-ARGS...: $T/NAME/job.sh, training to $T/NAME
gen() {
	name=$1
	shift
	mkdir -p "$T/$name"
	printf 'description = "%s"\nextends = "slurm"\njob_output = "%s"\nlabel_output = false\n' \
	    "$name" "$T/$name/out" >"$T/$name/site.conf"
	check "$name: ddpgen" "$DDPGEN" -s "$T/$name/site.conf" -J "$name" \
	    "$@" "$example" --checkpoint "$T/$name/ckpt.pt" \
	    --result "$T/$name/result" --steps 40 --step-seconds 1 --every 5 \
	    >"$T/$name/job.sh"
}
gen hand -N 1 -p hand --requeue
gen steps -N 1 -p steps --requeue
gen early -N 1 -p low -t 10 --ddprank "$T/early/ddprank"
for c in hand steps; do
	(cd "$T/$c" && sbatch --parsable job.sh) >"$T/$c/jobid" ||
	    echo 0 >"$T/$c/jobid"
done
(cd "$T/early" && sbatch --parsable --exclusive job.sh) >"$T/early/jobid" ||
    echo 0 >"$T/early/jobid"

id() { cat "$T/$1/jobid"; }
field() {
	scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"
}
started() { grep -q 'resuming at step 0 ' "$T/$1/out" 2>/dev/null; }
now() { python3 -c 'import time; print(f"{time.time():.6f}")'; }
hand_sent='' steps_sent='' high='' late=''
t0=$(date +%s)
deadline=$((t0 + 300))
while :; do
	busy=
	for c in hand steps early; do
		j=$(id "$c")
		st=$(field "$j" JobState)
		"$cluster" ended "$j" || busy=1
		# A requeued job: released 5 s later (its last batch shell may
		# not have ended yet).
		if [ "$st" = PENDING ] && [ "$(field "$j" Reason)" = BeginTime ]
		then
			if [ ! -f "$T/$c/pending" ]; then
				date +%s >"$T/$c/pending"
			elif [ "$(date +%s)" -ge $(($(cat "$T/$c/pending") + 5)) ]
			then
				rm -f "$T/$c/pending"
				scontrol update jobid="$j" StartTime=now
			fi
		fi
	done
	if [ -z "$hand_sent" ] && started hand; then
		sleep 2
		hand_sent=$(now)
		scancel -b --signal=USR2 "$(id hand)"
	fi
	if [ -z "$steps_sent" ] && started steps; then
		sleep 2
		steps_sent=1
		scancel --signal=USR2 "$(id steps)"
	fi
	if [ -z "$high" ] && [ -e "$T/early/doctor" ]; then
		high=$(sbatch --parsable -p high -N 1 --exclusive \
		    -o "$T/high.out" --wrap 'sleep 5')
	fi
	if [ -n "$high" ] && [ ! -e "$T/early/go" ] &&
	    field "$(id early)" PreemptTime | grep -q '^[0-9]'; then
		# The signal comes with the preemption; the trap runs at once.
		sleep 5
		: >"$T/early/go"
	fi
	[ -n "$busy" ] || break
	if [ "$(date +%s)" -gt "$deadline" ]; then
		late=1
		squeue
		break
	fi
	sleep 1
done
echo "TIME: all cases $(($(date +%s) - t0)) s"
check "the jobs did not end within $((deadline - t0)) s" test -z "$late"

state() { "$cluster" state "$(id "$1")"; }
show() { echo "--- $1/out"; cat "$T/$1/out"; }
finished() {
	[ -s "$T/$1/result" ] &&
	    grep -q '^train_resumable: restart 1, last stop '"$2"', resuming at step' "$T/$1/out"
}

expect_eq "hand: state" "$(state hand)" COMPLETED || show hand
# No time limit: Slurm 22.05 gives the job a year of TimeLimit here.
check "hand: no by-hand requeue line" grep -q '^ddpgen job: checkpoint asked for by hand ([a-z0-9 ]*): checkpoint signal sent to 1 process on 1 node; requeued (restart 1; checkpoints asked for by hand are not counted)$' "$T/hand/out" || show hand
check "hand: not resumed after 'by-hand' and finished" finished hand by-hand
# The figure of bench/README.md: the signal sent to the batch shell by
# hand, to the worker's handler (both clocks are this machine's).
got=$(sed -n 's/^train_resumable: rank 0 got signal 12 at //p' "$T/hand/out" |
    head -n 1)
[ -z "$hand_sent" ] || [ -z "$got" ] ||
    echo "TIME: hand: signal to the batch shell -> worker's handler:" \
	"$(python3 -c "print(f'{$got - $hand_sent:.3f}')") s"

expect_eq "steps: state" "$(state steps)" FAILED || show steps
check "steps: no line" grep -q '^ddpgen job: the training got the checkpoint signal from outside this shell (scancel without -b, or sbatch --signal without B:); it stopped with status 0: not requeued' "$T/steps/out" || show steps
check "steps: no checkpoint" test -s "$T/steps/ckpt.pt"

expect_eq "early: state" "$(state early)" COMPLETED || show early
check "early: no start-up line" grep -q '^ddpgen job: preemption during start-up: the training was not started; requeued (restart 1; preemptions are not counted)$' "$T/early/out" || show early
# Not trained in its first run: the first training is restart 1's. (On
# loaded cores Slurm may requeue it once more, a node late to answer:
# "last stop requeued" then resumes from the end.)
first=$(grep -m 1 '^train_resumable: restart' "$T/early/out")
check "early: trained in its first run ($first)" \
    test "${first#train_resumable: restart 1, last stop preemption, resuming at step 0 }" != "$first" ||
    show early
check "early: not finished after the requeue" test -s "$T/early/result"
finish
