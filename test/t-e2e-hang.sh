#!/bin/sh
# t-e2e-hang.sh: trainings that stall after they joined, and nodes that go
# bad, for real (ddpgen(1), HANGS AND BAD NODES). One cluster of
# test/cluster comes up; generated Slurm scripts run test/e2e/hang_train.py
# (examples/train_resumable.py, which beats once a step, with faults put
# in), all cases at once, each in a partition of its own with one node
# more than the job asks:
#   ref     2 nodes x 2, the training keeps no heartbeat, hang_timeout 5
#           and steps for 10 s: never judged, it runs to the end, and is
#           the reference run
#   hang    rank 3 hangs forever inside a collective at step 15 of the
#           first run: the job names its node and rank, the output holds
#           every rank's stacks, the rerun leaves the node out and ends
#           with ref's parameters
#   links   the training's links (nmn0) of the job's second node go down
#           once there is a checkpoint (its steps take 1 s, so that the
#           harness comes in time): the same, the node named as the one
#           that cannot reach node 0 (Slurm, on eth3, sees nothing)
#   pre     nmn0 is down on the job's second node before it starts: the
#           preflight fails there, the rerun leaves it out and finishes
#   slow    steps of 2 s, which beat, under hang_timeout 30 (32 s of steps:
#           a training that stopped beating would be caught; a loaded
#           machine once made a 3 s step take more than a limit of 5, and
#           CI's Debian 13 run, with another cluster test beside it, more
#           than one of 12)
#   budget  max_failures = 1 and a hang in every run, at step 7 (the
#           rerun resumes at step 5 and beats first: a rank that never
#           beat is never judged), one rank a node: no node stands out,
#           one rerun, then exit status 125
# Then the nodes blamed are remembered: the next script for hang's site
# leaves them out, --list-bad-nodes shows them, --forget-bad-nodes
# forgets them. A requeued job becomes eligible only about 2 minutes
# later: the harness releases it (scontrol update StartTime). The
# figures of bench/README.md come from here (TIME lines): from the hang
# to the job's requeue, and from its release to its rerun running.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

cluster=$srcdir/test/cluster/cluster.sh
train=$srcdir/test/e2e/hang_train.py

need_cluster sbatch srun squeue scancel
need_torchrun
need_built ddpgen ddprank
[ -n "$T" ] && [ -d "$T" ] || { echo "FAIL: no temporary directory"; exit 1; }

DDPGEN_PROFILE_PATH=$srcdir/profiles
DDPGEN_TEMPLATE_PATH=$srcdir/templates
export DDPGEN_PROFILE_PATH DDPGEN_TEMPLATE_PATH

# --- the cluster ---------------------------------------------------------------
chmod 0755 "$T"
CLUSTER_DIR=$T/cluster
CLUSTER_PARTITIONS=debug
CLUSTER_CONF_EXTRA='PartitionName=ref Nodes=node[1-2] MaxTime=INFINITE State=UP
PartitionName=hang Nodes=node[3-5] MaxTime=INFINITE State=UP
PartitionName=links Nodes=node[6-8] MaxTime=INFINITE State=UP
PartitionName=pre Nodes=node[9-11] MaxTime=INFINITE State=UP
PartitionName=slow Nodes=node12 MaxTime=INFINITE State=UP
PartitionName=budget Nodes=node[13-14] MaxTime=INFINITE State=UP'
# scontrol must still know a job that has just been requeued.
CLUSTER_MIN_JOB_AGE=30
export CLUSTER_DIR CLUSTER_PARTITIONS CLUSTER_CONF_EXTRA CLUSTER_MIN_JOB_AGE
on_exit '"$cluster" down'
trap 'exit 130' INT TERM HUP

check "cluster.sh up" "$cluster" up 14 || finish
eval "$("$cluster" env)"
. "$CLUSTER_DIR/cluster.vars"

# link NODE up|down: the training's interface of NODE (Slurm's is eth3).
link() { ip -n "ddp$ID-$1" link set nmn0 "$2"; }

# --- the jobs --------------------------------------------------------------------
# gen NAME PROFILE-LINES DDPGEN-ARGS... -- TRAINING-ARGS...:
# $T/NAME/job.sh, training on nmn0
gen() {
	name=$1 lines=$2 dargs=
	shift 2
	while [ "$1" != -- ]; do
		dargs="$dargs $1"
		shift
	done
	shift
	mkdir -p "$T/$name"
	printf 'description = "%s"\nextends = "slurm"\njob_output = "%s"\nlabel_output = false\niface = "^nmn0$"\ndiscovery = iface\n%s\n' \
	    "$name" "$T/$name/out" "$lines" >"$T/$name/$name.conf"
	# shellcheck disable=SC2086 # word splitting wanted
	if ! check "$name: ddpgen failed" \
	    "$DDPGEN" -s "$T/$name/$name.conf" -J "$name" -p "$name" $dargs \
	    "$train" --checkpoint "$T/$name/ckpt.pt" --result "$T/$name/result" \
	    "$@" >"$T/$name/job.sh" 2>"$T/$name/ddpgen.err"; then
		cat "$T/$name/ddpgen.err"
		return 1
	fi
}
steps="--steps 40 --every 5 --step-seconds 0.25"
# shellcheck disable=SC2086 # word splitting wanted
{
gen ref "$(printf 'nproc_per_node = 2\nenv = {"DDPTEST_NO_BEAT=1"}')" \
    -N 2 --no-requeue --hang-timeout 5 -- $steps
gen hang "$(printf 'nproc_per_node = 2\nenv = {"DDPTEST_HANG=3:15"}')" \
    -N 2 --hang-timeout 10 -- $steps
gen links 'nproc_per_node = 2' -N 2 --hang-timeout 10 -- $steps \
    --step-seconds 1
gen pre 'nproc_per_node = 2' -N 2 -- $steps
gen slow '' -N 1 --hang-timeout 30 -- --steps 16 --every 2 --step-seconds 2
gen budget "$(printf 'max_failures = 1\nenv = {"DDPTEST_HANG=1:7", "DDPTEST_HANG_RUNS=all"}')" \
    -N 2 --hang-timeout 8 -- $steps
}

sub() {
	name=$1
	# shellcheck disable=SC2016 # for the inner shell
	if ! check "$name: sbatch" sh -c 'cd "$1" && sbatch --parsable job.sh \
	    >jobid 2>sbatch.err' sh "$T/$name"; then
		cat "$T/$name/sbatch.err"
		echo 0 >"$T/$name/jobid"
	fi
}
# pre's second node has lost its training link before the job starts.
link node10 down
for c in ref hang links pre slow budget; do sub "$c"; done
t0=$(date +%s)
id() { cat "$T/$1/jobid"; }
field() {
	scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"
}
now() { python3 -c 'import time; print(f"{time.time():.6f}")'; }

# --- the harness -----------------------------------------------------------------
# While anything runs: release requeued jobs (noting when they were
# requeued, released and running again, and on which nodes each run
# was), and take links' training link down once it has a checkpoint.
links_down='' late=''
deadline=$((t0 + 900))
while :; do
	busy=
	for c in ref hang links pre slow budget; do
		j=$(id "$c")
		st=$(field "$j" JobState)
		"$cluster" ended "$j" || busy=1
		r=$(field "$j" Restarts)
		if [ "$st" = RUNNING ] && [ ! -f "$T/$c/ran.$r" ]; then
			field "$j" ExcNodeList >"$T/$c/exc.$r"
			scontrol show hostnames "$(field "$j" NodeList)" |
			    tr '\n' , >"$T/$c/ran.$r"
			if [ -f "$T/$c/released" ]; then
				rm -f "$T/$c/released"
				echo "$c $(now) running" >>"$T/times"
			fi
		fi
		if [ "$st" = PENDING ] && [ "$(field "$j" Restarts)" != 0 ] &&
		    [ "$(field "$j" Reason)" = BeginTime ]; then
			if [ ! -f "$T/$c/pending" ]; then
				echo "$c $(now) requeued" >>"$T/times"
				date +%s >"$T/$c/pending"
			elif [ "$(date +%s)" -ge $(($(cat "$T/$c/pending") + 5)) ]
			then
				rm -f "$T/$c/pending"
				echo "$c $(now) released" >>"$T/times"
				scontrol update jobid="$j" StartTime=now
				: >"$T/$c/released"
			fi
		fi
	done
	if [ -z "$links_down" ] && [ -f "$T/links/ckpt.pt" ] &&
	    [ -f "$T/links/ran.0" ]; then
		links_down=$(cut -d, -f2 "$T/links/ran.0")
		echo "links $(now) down $links_down" >>"$T/times"
		link "$links_down" down
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

# --- the verdicts ----------------------------------------------------------------
state() { "$cluster" state "$(id "$1")"; }
show() { echo "--- $1/out"; cat "$T/$1/out"; }
has() { grep -Eq -- "$2" "$T/$1/out"; }
same_result() { [ -s "$T/ref/result" ] && cmp -s "$T/$1/result" "$T/ref/result"; }
runs() { grep -c '^train_resumable: restart' "$T/$1/out"; }

expect_eq "ref: state" "$(state ref)" COMPLETED || show ref
check "ref: judged without a heartbeat" ! has ref 'has not beaten|stalled'

# left_out CASE NODE: the rerun ran without NODE, which the job's
# ExcNodeList held.
left_out() {
	[ -n "$2" ] && [ -f "$T/$1/ran.1" ] &&
	    ! grep -q "$2," "$T/$1/ran.1" && grep -qw "$2" "$T/$1/exc.1"
}
# exit_code CASE: the job's last run's, from the jobcomp file (slurmctld
# forgets a job MinJobAge after its end).
exit_code() {
	grep "^JobId=$(id "$1") " "$CLUSTER_DIR/log/jobcomp.txt" | tail -n 1 |
	    sed -n 's/.* ExitCode=\([^ ]*\).*/\1/p'
}
# rerun CASE NODE WHY FROM: completed, ref's parameters, resumed after
# WHY from a step matching FROM, without NODE.
rerun() {
	expect_eq "$1: state" "$(state "$1")" COMPLETED || show "$1"
	check "$1: final parameters differ from ref's: $(cat "$T/$1/result" 2>&1) vs $(cat "$T/ref/result" 2>&1)" \
	    same_result "$1"
	check "$1: no resume after '$3' from step $4" has "$1" \
	    "^train_resumable: restart 1, last stop $3, resuming at step $4 "
	check "$1: the rerun ran on $(cat "$T/$1/ran.1" 2>&1), not without '$2'" \
	    left_out "$1" "$2"
	check "$1: not one requeue without $2" has "$1" \
	    "^ddpgen job: the (training stalled|preflight failed) on $2; requeued without $2 \\(failure 1 of at most 3\\)$"
}

# hang: rank 3 is on the job's second node, named with it, its stacks
# and every other rank's in the output.
culprit=$(cut -d, -f2 "$T/hang/ran.0" 2>/dev/null)
rerun hang "$culprit" hang '[1-9][0-9]*'
check "hang: no summary naming rank 3 on $culprit" has hang \
    "^ddprank: rank 3 on $culprit has not beaten for [0-9]+ s; it is in all_reduce \\(hang_train.py:[0-9]+\\); the other 3 ranks wait in "
for r in 0 1 2 3; do
	check "hang: no stack of rank $r" has hang \
	    "^ddprank: node[0-9]+: rank $r:   File \".*\", line [0-9]+ in "
done
check "hang: no stack of rank 3 in its collective" has hang \
    "^ddprank: $culprit: rank 3:   File \".*hang_train.py\", line [0-9]+ in hanging_batch"

links_culprit=$links_down
rerun links "$links_culprit" hang '[1-9][0-9]*'
check "links: no summary naming $links_culprit" has links \
    "^ddprank: $links_culprit cannot reach node 0, node[0-9]+ \\(.*\\): ranks 2 and 3 have not beaten for [0-9]+ s"

# pre's first run ends at its preflight within a second or two, which
# the harness, looking once a second, may not see RUNNING (it did not,
# once, on a loaded machine): that it ran on node10 is the doctor's
# failure there, which the summary below names.
rerun pre node10 preflight 0
check "pre: no summary naming node10" has pre \
    "^ddprank: node10 failed the preflight \\(iface: "

expect_eq "slow: state" "$(state slow)" COMPLETED || show slow
expect_eq "slow: runs" "$(runs slow)" 1 || show slow
check "slow: judged though it beat" ! has slow 'has not beaten|stalled' ||
    show slow

expect_eq "budget: state" "$(state budget)" FAILED || show budget
expect_eq "budget: runs" "$(runs budget)" 2
check "budget: no rerun with no node to leave out" has budget \
    '^ddpgen job: the training stalled; requeued \(failure 1 of at most 1; no node to leave out\)$'
check "budget: no final message" has budget \
    '^ddpgen job: the training stalled; not rerun: 1 failures already \(max_failures = 1\)$'
expect_eq "budget: exit status" "$(exit_code budget)" 125:0

# --- the bad nodes remembered ----------------------------------------------------
"$DDPGEN" --list-bad-nodes >"$T/bad" 2>&1
check "--list-bad-nodes: $(cat "$T/bad")" grep -Eq \
    "^$culprit hang until [-0-9]+ [0-9:]+: a training stalled on it" "$T/bad"
check "--list-bad-nodes: node10: $(cat "$T/bad")" grep -Eq \
    "^node10 pre until .*: it failed the preflight" "$T/bad"
"$DDPGEN" -s "$T/hang/hang.conf" -N 2 train.py >"$T/next.sh" 2>"$T/next.err"
check "the next script leaves $culprit out" grep -qx \
    "#SBATCH --exclude=$culprit" "$T/next.sh"
check "the next script says so: $(cat "$T/next.err")" grep -q \
    "^ddpgen: leaving out 1 node remembered as bad: $culprit (until " \
    "$T/next.err"
check "--forget-bad-nodes" "$DDPGEN" --forget-bad-nodes "$culprit"
"$DDPGEN" -s "$T/hang/hang.conf" -N 2 train.py >"$T/next.sh" 2>"$T/next.err"
check "forgotten: not left out" ! grep -q "^#SBATCH --exclude" "$T/next.sh"

# --- the figures -----------------------------------------------------------------
python3 - "$T/times" "$T/hang/out" "$T/links/out" <<'EOF'
import re, sys
events = {}
for line in open(sys.argv[1]):
    c, t, what = line.split()[:3]
    events.setdefault(c, []).append((what, float(t)))
hung = {}
m = re.search(r"^hang_train: rank \d+ hangs at step \d+ at ([0-9.]+)$",
              open(sys.argv[2]).read(), re.M)
if m:
    hung["hang"] = float(m.group(1))
for c, ev in events.items():
    start = hung.get(c) or next((t for w, t in ev if w == "down"), None)
    req = next((t for w, t in ev if w == "requeued"), None)
    if start is not None and req is not None:
        print(f"TIME: {c}: fault -> job requeued: {req - start:.1f} s")
    rel = next((t for w, t in ev if w == "released"), None)
    run = next((t for w, t in ev if w == "running"), None)
    if rel is not None and run is not None:
        print(f"TIME: {c}: release of the requeued job -> RUNNING:"
              f" {run - rel:.3f} s")
EOF
link node10 up
finish
