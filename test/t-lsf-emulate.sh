#!/bin/sh
# t-lsf-emulate.sh: LSF job scripts (templates/lsf.sh) run as LSF would
# run them. No LSF server is packaged for Debian, so test/emu/lsf plays
# LSF's part, from IBM's documentation (each file names its pages): the
# batch shell on the job's first host with LSF's variables, blaunch and
# jsrun starting one task per node on the namespace nodes of a
# test/cluster cluster (interface eth0; its Slurm daemons stay idle),
# bkill -s, bstatus, brequeue, and bsub, whose job lsf-run next
# dispatches on the cluster's hosts its resource requirements allow.
# Cases: a real 2-node x 2-process training with blaunch and hostile
# arguments, checked as t-e2e-slurm.sh checks its jobs; the same on IBM
# CSM with jsrun, the batch shell on a launch node; a node whose task
# never starts; the same with three nodes, where the doctor blames it
# and the job submits its continuation without it (bsub's arguments
# byte for byte), and that continuation, dispatched on three of the
# four hosts without it, trains there with the restart count and last
# stop it carries; a rank that hangs inside a collective (t-e2e-hang.sh's
# hang case), which the verdict names with its node, every rank's stacks
# in the output, and the continuation without its node, which resumes
# from the checkpoint and finishes; a node that dies; the warning before
# the run limit (bsub -wa/-wt), the requeue, the count it carries,
# max_requeues, and a training that fails after the warning.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"
. "$srcdir/test/emu/lib.sh"

# --- what the test needs -------------------------------------------------------
# LSF's stand-ins (test/emu/lsf) in $T/bin.
emu_setup lsf timeout
need_torchrun

# --- the nodes -------------------------------------------------------------------
bin=$T/bin emu=$T/emu work=$T/work
# The job's processes, should a case end without LSF's cleanup.
# shellcheck disable=SC2016 # expanded at exit
on_exit 'for f in "$emu"/batch "$emu"/tasks "$emu"/jsm-tasks; do
	[ -f "$f" ] && while read -r pg h; do kill -KILL -- "-$pg"; done <"$f"
done 2>/dev/null'
t0=$(date +%s)
# Four nodes: the leave case's continuation needs three without node3.
cluster_up 4 eth0

# resolved HOST: HOST's address in the cluster's hosts file.
resolved() {
	awk -v h="$1" '{ for (i = 2; i <= NF; i++) if ($i == h) { print $1; exit } }' \
	    "$CLUSTER_DIR/etc/hosts"
}

# --- LSF ---------------------------------------------------------------------------
# emu_conf [NEVER]: fresh job state; NEVER is a host whose tasks blaunch
# never starts.
emu_conf() {
	cat >"$bin/emu.conf" <<EOF
EMU_PREFIX=ddp$ID-
EMU_HOSTS=$CLUSTER_DIR/etc/hosts
EMU_DIR=$emu
EMU_NEVER=${1:-}
EMU_KILL_INTERVAL=1
EOF
	rm -rf "$emu"
	mkdir -p "$emu"
}

# The job's environment as bsub took it from the submitting shell: the
# test's PATH with the stand-ins first, an empty HOME, and the site
# customisation torchrun needs on this Debian (test/cluster/README.md).
submit_env="PATH=$bin:$TASK_PATH HOME=$T/home PYTHONPATH=$srcdir/test/cluster"

# gen NAME ARGS...: ddpgen ARGS... into $work/NAME.sh.
gen() {
	g_name=$1
	shift
	"$DDPGEN" --ddprank "$DDPRANK" -o "$work/$g_name.sh" "$@" \
	    2>"$T/$g_name.gen.err"
}

# run NAME JOBID HOST:SLOTS...: the job $work/NAME.sh dispatched on
# those hosts, with $submit_env and $extra_env, its output in
# $work/NAME.out, its exit status in $RC. A job that hangs is ended
# after 300 s (a failure).
extra_env=
run() {
	r_name=$1 r_job=$2
	shift 2
	# shellcheck disable=SC2086 # the environments: words
	dispatch "$r_name" "$r_job" "$work/$r_name.out" "$work/$r_name.sh" \
	    "$@" -- $submit_env $extra_env
}

# run_next NAME: the continuation bsub last recorded, as run runs a job:
# lsf-run next dispatches it on the first of the cluster's hosts, in
# order, that it allows, with the environment it was submitted with, and
# the execution host's HOME.
run_next() {
	# shellcheck disable=SC2046 # the hosts: words
	dispatch "$1" next "$work/$1.out" $(seq -f 'node%g' 1 "$NNODES") -- \
	    HOME="$T/home"
}

# dispatch NAME LSF-RUN-ARG...: lsf-run's job, its status in $RC.
dispatch() {
	r_name=$1
	shift
	(cd "$work" && timeout 300 "$bin/lsf-run" "$@")
	RC=$?
	check "$r_name: ended before the 300 s timeout" test "$RC" -ne 124 ||
	    tail -n 30 "$work/$r_name.out"
}

# leftovers: the job's processes still alive, as "pgid host" lines.
leftovers() {
	for f in "$emu/tasks" "$emu/jsm-tasks" "$emu/batch"; do
		[ -f "$f" ] || continue
		while read -r pg h; do
			! kill -0 -- "-$pg" 2>/dev/null || echo "$pg $h"
		done <"$f"
	done
}

# rank0_port NAME: the master port rank 0 of job NAME saw.
rank0_port() {
	python3 -c '
import json, sys
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    at = line.find("DDPTEST ")
    if at >= 0:
        print(json.loads(line[at + 8:])["env"].get("PET_MASTER_PORT", ""))
        sys.exit(0)' "$work/$1.out" 2>/dev/null
}

# expect_training NAME NODES PPN FIRST ORDER ARGV-FILE [CHECK-ARG...]:
# the job trained to the end, each rank once, in sync, with the
# arguments byte for byte, FIRST's address as the master, node ranks in
# ORDER, and what CHECK-ARGs (check_job.py's) ask.
expect_training() {
	e_name=$1 e_nodes=$2 e_ppn=$3 e_first=$4 e_order=$5 e_argv=$6
	shift 6
	expect_eq "$e_name: exit status" "$RC" 0
	expect_eq "$e_name: DDPTEST lines in the job's output" \
	    "$(grep -a -o 'DDPTEST {' "$work/$e_name.out" | wc -l)" \
	    $((e_nodes * e_ppn))
	port=$(rank0_port "$e_name")
	check "$e_name: port '$port' in 20000-29999" \
	    matches "$port" "2[0-9][0-9][0-9][0-9]"
	check "$e_name: check_job.py" \
	    python3 "$check_job" --nodes "$e_nodes" --procs-per-node "$e_ppn" \
	    --node-order "$e_order" --argv-file "$e_argv" \
	    --master-addr "$(resolved "$e_first")" \
	    --expect-env "PET_MASTER_ADDR=$(resolved "$e_first")" \
	    --expect-env "PET_MASTER_PORT=$port" \
	    --expect-env "PET_NNODES=$e_nodes" \
	    --expect-unset DDPRANK_SECRET --expect-unset GLOO_SOCKET_IFNAME \
	    "$@" "$work/$e_name.out" || tail -n 40 "$work/$e_name.out"
	check "$e_name: an argument was run as a command" \
	    test ! -e "$work/pwned"
	expect_eq "$e_name: processes left" "$(leftovers)" ""
}

# Arguments that break naive quoting, as in t-e2e-slurm.sh: written once
# as the training's arguments and once NUL-separated for check_job.py.
nl=$(printf 'line1\nline2')
notutf8=$(printf '\377\376 not utf-8')
utf8=$(printf 'caf\303\251 \316\273')
with_args() {
	"$@" --epochs=2 'two  words' '' '$(touch pwned)' '`touch pwned`' \
	    "it's \"quoted\" \\back\\slash\\" '*' '?' '[a-z]*' "$nl" \
	    "$notutf8" -- --nnodes=7 --nproc_per_node=9 --port=1 "$utf8" \
	    ' lead and trail ' '-h' '$HOME' '${PATH}' '!x' ';' '&&' '|' \
	    '>out' '\' "'" '"' '%J' '#BSUB -J x'
}
with_args printf '%s\0' >"$T/argv"
: >"$T/argv.none"
cp "$srcdir/test/train.py" "$work/train.py"
jobid=$((1000 + $$ % 9000))

# --- blaunch: 2 nodes, 2 processes each ------------------------------------------
emu_conf
t1=$(date +%s)
if with_args gen blaunch --site lsf -N 2 -n 2 -t 10 "$work/train.py"; then
	run blaunch "$jobid" node1:1 node2:1
	expect_training blaunch 2 2 node1 "node1 node2" "$T/argv"
	expect_eq "blaunch: one blaunch per node, for the doctor and the training" \
	    "$(grep -c '^blaunch ' "$emu/log")" 4
else
	fail "ddpgen --site lsf: $(cat "$T/blaunch.gen.err")"
fi

# --- jsrun under IBM CSM: the batch shell on a launch node ------------------------
# LSB_MCPU_HOSTS lists the launch node first; CSM_ALLOCATION_ID marks
# the job as CSM's, so ddprank and the script leave it out.
emu_conf
jobid=$((jobid + 1))
t2=$(date +%s)
if gen csm --site lsf-csm -N 2 -n 2 -t 10 "$work/train.py" "two  words"; then
	printf '%s\0' 'two  words' >"$T/argv.csm"
	extra_env=CSM_ALLOCATION_ID=77
	run csm "$jobid" node1:1 node2:4 node3:4
	extra_env=
	expect_training csm 2 2 node2 "node2 node3" "$T/argv.csm"
	expect_eq "csm: jsrun, for the doctor and the training" \
	    "$(grep -c '^jsrun nrs=2 per_host=1 per_rs=1$' "$emu/log")" 2
else
	fail "ddpgen --site lsf-csm: $(cat "$T/csm.gen.err")"
fi

# --- a node whose task never starts ------------------------------------------------
# blaunch never starts node2's task: the doctor on node1 waits its 5 s
# for node2's findings, names it and fails; the job ends, and LSF ends
# what is left of it.
emu_conf node2
jobid=$((jobid + 1))
t3=$(date +%s)
if gen never --site lsf -N 2 -n 1 -t 10 "$work/train.py"; then
	run never "$jobid" node1:1 node2:1
	check "never: failed" test "$RC" -ne 0
	check "never: the doctor names node2" \
	    grep -q '^FAIL connect node2: no findings reached node 0 within 5 s$' \
	    "$work/never.out" || tail -n 20 "$work/never.out"
	check "never: the job names the failed task" \
	    grep -q "^ddpgen job: blaunch on node1 exited with status $RC: ending the job$" \
	    "$work/never.out" || tail -n 20 "$work/never.out"
	check "never: no training started" \
	    test "$(grep -c 'DDPTEST' "$work/never.out")" -eq 0
	expect_eq "never: processes left" "$(leftovers)" ""
else
	fail "ddpgen never: $(cat "$T/never.gen.err")"
fi

# --- the rerun without a bad node (ddpgen(1), HANGS AND BAD NODES) ------------------
# blaunch never starts node3's task: node2's findings reached node 0, so
# the doctor blames node3, ddprank verdict reads it, and the job submits
# its continuation (bsub < FILE) with -R "select[hname!='node3']" and the
# failure counted in its external status. Once the job has ended, LSF
# dispatches the continuation on three hosts that select[] allows, which
# the stand-in takes in the cluster's order; it trains there, from the
# count and last stop its status carries.
emu_conf node3
jobid=$((jobid + 1))
t3a=$(date +%s) t3b=$t3a
if gen leave --site lsf -N 3 -n 1 -t 10 "$work/train.py"; then
	run leave "$jobid" node1:1 node2:1 node3:1
	expect_eq "leave: exit status" "$RC" 0
	check "leave: says it reran" grep -q \
	    '^ddpgen job: the preflight failed on node3; continuation job 9999 submitted without node3 (failure 1 of at most 3)$' \
	    "$work/leave.out" || tail -n 20 "$work/leave.out"
	check "leave: no training started" \
	    test "$(grep -c 'DDPTEST' "$work/leave.out")" -eq 0
	expect_eq "leave: bsub's arguments" \
	    "$(tr '\0' '\n' 2>/dev/null <"$emu/bsub.args")" "-w
ended($jobid)
-R
select[hname!='node3']"
	check "leave: bsub read the script" cmp "$work/leave.sh" "$emu/bsub.in"
	expect_eq "leave: the exclusion crosses" "$(cat "$emu/bsub.env")" node3
	check "leave: the count in the continuation's status" grep -qx \
	    "bstatus -d ddpgen restart=1 limits=0 last=preflight fails=1 9999" \
	    "$emu/log"
	expect_eq "leave: processes left" "$(leftovers)" ""
	t3b=$(date +%s)
	run_next leave-cont
	check "leave-cont: placed without node3" grep -qx \
	    "dispatch 9999 on node1 node2 node4" "$emu/log" ||
	    grep '^dispatch' "$emu/log"
	check "leave-cont: read its own status" grep -qx "bstatus 9999" \
	    "$emu/log"
	expect_training leave-cont 3 1 node1 "node1 node2 node4" \
	    "$T/argv.none" --expect-env DDPGEN_RESTART_COUNT=1 \
	    --expect-env DDPGEN_LAST_STOP=preflight
	check "leave-cont: nothing more submitted" \
	    test "$(grep -c '^bsub ' "$emu/log")" -eq 1
else
	fail "ddpgen leave: $(cat "$T/leave.gen.err")"
fi
# The selection the stand-in makes: every name of select[hname!='A' &&
# hname!=B] is kept out, quoted or not; a job the hosts left cannot
# hold pends.
expect_eq "lsf-run pick: two names left out" \
    "$("$bin/lsf-run" pick "$work/leave.sh" "node1 node2 node3 node4 node5" \
    -R "select[hname!='node3' && hname!=node1]" 2>&1)" "node2 node4 node5"
check "lsf-run pick: pending without enough hosts" \
    ! "$bin/lsf-run" pick "$work/leave.sh" "node1 node2 node3" \
    -R 'select[hname!=node3]' 2>/dev/null

# --- a stall: the rerun without its node (ddpgen(1), HANGS AND BAD NODES) -----------
# t-e2e-hang.sh's hang case under LSF: test/e2e/hang_train.py's rank 3,
# on node2, hangs inside a collective at step 12 of the first run (no
# preflight, which the leave case tries, to keep it short). Its
# watcher sees it stop beating for 10 s, prints every rank's stacks and
# ends the training; ddprank verdict names rank 3 on node2, and the job
# submits its continuation with -R "select[hname!='node2']", which LSF
# dispatches on node1 and node3, and which resumes from the checkpoint
# and finishes.
emu_conf
jobid=$((jobid + 1))
t4a=$(date +%s) t4b=$t4a
if gen stall --site lsf -N 2 -n 2 -t 10 --hang-timeout 10 --no-preflight \
    -e DDPTEST_HANG=3:12 "$srcdir/test/e2e/hang_train.py" \
    --checkpoint "$work/stall.pt" --steps 20 --every 5 --step-seconds 0.25
then
	run stall "$jobid" node1:1 node2:1
	expect_eq "stall: exit status" "$RC" 0
	check "stall: the verdict names rank 3 on node2" grep -Eq \
	    '^ddprank: rank 3 on node2 has not beaten for [0-9]+ s; it is in all_reduce \(hang_train\.py:[0-9]+\)' \
	    "$work/stall.out" || tail -n 30 "$work/stall.out"
	for r in 0 1 2 3; do
		check "stall: rank $r's stacks, labelled" grep -Eq \
		    "^ddprank: node$((r / 2 + 1)): rank $r:   File \".*\", line [0-9]+ in " \
		    "$work/stall.out"
	done
	check "stall: rank 3's stack in its collective" grep -Eq \
	    '^ddprank: node2: rank 3:   File ".*hang_train\.py", line [0-9]+ in hanging_batch' \
	    "$work/stall.out"
	check "stall: says it reran" grep -q \
	    '^ddpgen job: the training stalled on node2; continuation job 9999 submitted without node2 (failure 1 of at most 3)$' \
	    "$work/stall.out" || tail -n 20 "$work/stall.out"
	expect_eq "stall: bsub's arguments" \
	    "$(tr '\0' '\n' 2>/dev/null <"$emu/bsub.args")" "-w
ended($jobid)
-R
select[hname!='node2']"
	check "stall: the count in the continuation's status" grep -qx \
	    "bstatus -d ddpgen restart=1 limits=0 last=hang fails=1 9999" \
	    "$emu/log"
	expect_eq "stall: processes left" "$(leftovers)" ""
	t4b=$(date +%s)
	run_next stall-cont
	expect_eq "stall-cont: exit status" "$RC" 0
	check "stall-cont: placed without node2" grep -qx \
	    "dispatch 9999 on node1 node3" "$emu/log"
	check "stall-cont: resumed after the stall" grep -Eq \
	    '^train_resumable: restart 1, last stop hang, resuming at step [1-9][0-9]* of 20$' \
	    "$work/stall-cont.out" || tail -n 20 "$work/stall-cont.out"
	check "stall-cont: finished" grep -q '^train_resumable: done at step 20$' \
	    "$work/stall-cont.out"
	expect_eq "stall-cont: processes left" "$(leftovers)" ""
else
	fail "ddpgen stall: $(cat "$T/stall.gen.err")"
fi

# --- a node that dies --------------------------------------------------------------
# train.py exits 3 on node rank 1 once the process group is up: the job
# ends at once, and LSF ends what is left of it.
emu_conf
jobid=$((jobid + 1))
t4=$(date +%s)
if gen dies --site lsf -N 2 -n 2 -t 10 -e DDPTEST_FAIL_NODE=1 "$work/train.py"; then
	run dies "$jobid" node1:1 node2:1
	check "dies: failed" test "$RC" -ne 0
	check "dies: train.py's message" \
	    grep -q 'train\.py: rank [0-9]* on node 1: failing on request' \
	    "$work/dies.out" || tail -n 20 "$work/dies.out"
	# Node1's ranks fail too once their peers are gone: which task
	# ends first is a race.
	check "dies: the job names the task that ended it" \
	    grep -q "^ddpgen job: blaunch on node[12] exited with status $RC: ending the job$" \
	    "$work/dies.out" || tail -n 20 "$work/dies.out"
	expect_eq "dies: processes left" "$(leftovers)" ""
else
	fail "ddpgen dies: $(cat "$T/dies.gen.err")"
fi
t5=$(date +%s)

# --- the warning and the requeue ------------------------------------------------------
# stub-train stands in for the training: it records the restart count
# and last stop ddprank gives it and exits on the checkpoint signal. LSF
# sends URG (bsub -wa) -wt minutes before the run limit: lsf-run warn.
stub=$T/stub
cat >"$T/requeue.conf" <<EOF
extends = "lsf"
description = "lsf, a stand-in training"
launcher = {"$bin/stub-train"}
max_requeues = 1
env = {"STUB_DIR=$stub"}
EOF
# wait_file PATH...: waits, at most 60 s, until each exists.
wait_file() {
	w_i=0
	for w_f; do
		while [ ! -e "$w_f" ] && [ $w_i -lt 600 ]; do
			sleep 0.1
			w_i=$((w_i + 1))
		done
		[ -e "$w_f" ] || return 1
	done
}
# torchrun itself runs stub-train, one worker per node: torch 2.x starts
# each worker in a session of its own, where bkill -s, which signals the
# task's process group, does not reach it (ddprank's watcher passes the
# signal on).
cat >"$T/requeue-torchrun.conf" <<EOF
extends = "lsf"
description = "lsf, torchrun running a stand-in training"
max_requeues = 1
env = {"STUB_DIR=$stub"}
EOF
# requeue_job NAME [CONF SCRIPT ARGS...]: the job in the background; its
# pid in $bg.
requeue_job() {
	q_name=$1 q_conf=$T/requeue.conf q_script=$work/train.py
	[ $# -lt 3 ] || { q_conf=$2 q_script=$3; shift 2; }
	shift
	rm -rf "$stub"
	mkdir -p "$stub"
	emu_conf
	jobid=$((jobid + 1))
	gen "$q_name" --site "$q_conf" -N 2 -t 30 "$@" "$q_script" ||
	    fail "ddpgen $q_name: $(cat "$T/$q_name.gen.err")"
	# shellcheck disable=SC2086 # submit_env: words
	(cd "$work" && exec timeout 300 "$bin/lsf-run" "$jobid" \
	    "$work/$q_name.out" "$work/$q_name.sh" node1:1 node2:1 -- \
	    $submit_env) &
	bg=$!
}

requeue_job requeue
check "requeue: run 0 started on both nodes" \
    wait_file "$stub/run-0.node1" "$stub/run-0.node2"
expect_eq "requeue: run 0's count and last stop" \
    "$(cat "$stub/run-0.node1" "$stub/run-0.node2")" \
    "count=0 last=none sig=USR2
count=0 last=none sig=USR2"
"$bin/lsf-run" warn
check "requeue: run 1 started on both nodes" \
    wait_file "$stub/run-1.node1" "$stub/run-1.node2"
expect_eq "requeue: run 1's count and last stop" \
    "$(cat "$stub/run-1.node1" "$stub/run-1.node2")" \
    "count=1 last=time-limit sig=USR2
count=1 last=time-limit sig=USR2"
expect_eq "requeue: run 0 signalled once on each node, with USR2" \
    "$(cat "$stub/signalled-0.node1" "$stub/signalled-0.node2")" "12
12"
"$bin/lsf-run" warn
wait "$bg"
RC=$?
expect_eq "requeue: max_requeues reached: exit status" "$RC" 124
expect_eq "requeue: the job says why" \
    "$(grep '^ddpgen job:' "$work/requeue.out")" \
    "ddpgen job: run limit in 2 min: checkpoint signal sent to 2 processes on 2 nodes; requeued (restart 1 of at most 1)
ddpgen job: run limit in 2 min: checkpoint signal sent to 2 processes on 2 nodes; not requeued: 1 time-limit requeues already (max_requeues = 1)"
expect_eq "requeue: what LSF was asked" \
    "$(grep -e '^bkill' -e '^bstatus -d' -e '^brequeue' -e '^run ' "$emu/log")" \
    "run 0 of job $jobid
bkill -s USR2 $jobid
bstatus -d ddpgen restart=1 limits=1 last=time-limit fails=0 $jobid
brequeue $jobid
run 1 of job $jobid
bkill -s USR2 $jobid"
expect_eq "requeue: processes left" "$(leftovers)" ""

# A training that fails after the warning is not requeued.
requeue_job requeue-fail
echo 3 >"$stub/rc"
check "requeue-fail: started on both nodes" \
    wait_file "$stub/run-0.node1" "$stub/run-0.node2"
"$bin/lsf-run" warn
wait "$bg"
RC=$?
check "requeue-fail: exit status $RC is not 0" test "$RC" -ne 0
check "requeue-fail: the job says why" \
    grep -q "^ddpgen job: run limit in 2 min: checkpoint signal sent to 2 processes on 2 nodes; the training exited with status $RC: not requeued$" \
    "$work/requeue-fail.out"
expect_eq "requeue-fail: not requeued" \
    "$(grep -c -e '^brequeue' -e '^bstatus -d' "$emu/log")" 0
t6=$(date +%s)

# The same under real torchrun: each worker checkpoints on the signal,
# once, whatever torch's process groups.
requeue_job requeue-torchrun "$T/requeue-torchrun.conf" "$bin/stub-train" \
    -n 1
check "requeue-torchrun: run 0 started on both nodes" \
    wait_file "$stub/run-0.node1" "$stub/run-0.node2" ||
    tail -n 30 "$work/requeue-torchrun.out"
"$bin/lsf-run" warn
check "requeue-torchrun: run 1 started on both nodes" \
    wait_file "$stub/run-1.node1" "$stub/run-1.node2" ||
    tail -n 30 "$work/requeue-torchrun.out"
expect_eq "requeue-torchrun: run 0's workers signalled once, with USR2" \
    "$(cat "$stub/signalled-0.node1" "$stub/signalled-0.node2" 2>&1)" "12
12"
"$bin/lsf-run" warn
wait "$bg"
RC=$?
expect_eq "requeue-torchrun: max_requeues reached: exit status" "$RC" 124
expect_eq "requeue-torchrun: run 1's workers signalled once, with USR2" \
    "$(cat "$stub/signalled-1.node1" "$stub/signalled-1.node2" 2>&1)" "12
12"
expect_eq "requeue-torchrun: processes left" "$(leftovers)" ""
t7=$(date +%s)

echo "cluster up in $((t1 - t0)) s; blaunch 2x2 $((t2 - t1)) s; jsrun 2x2" \
    "$((t3 - t2)) s; never $((t3a - t3)) s; leave $((t3b - t3a)) s;" \
    "leave-cont $((t4a - t3b)) s; stall $((t4b - t4a)) s;" \
    "stall-cont $((t4 - t4b)) s; dies $((t5 - t4)) s;" \
    "requeue $((t6 - t5)) s; requeue-torchrun $((t7 - t6)) s"
finish
