#!/bin/sh
# t-flux-emulate.sh: generated Flux jobs (templates/flux.sh) run as Flux
# would run them. No Flux is packaged for Debian 12 (apt-cache policy
# flux-core: none), so test/emu/flux/flux plays it, from flux-core's
# documentation and source (named in that file): the batch script runs
# on the first node of a test/cluster cluster (network namespaces, eth0;
# its Slurm daemons are not used) with the initial program's
# environment, its #flux: lines read as flux batch reads them (RFC 36);
# "flux run" starts one task per node in the node's namespace with
# Flux's task variables, and "flux job info ID R" gives the job's
# resource set, which ddprank reads. Cases:
#   2x2    a real 2-node x 2-process gloo training with hostile
#          arguments: world size, every rank once, parameters in sync,
#          argv byte for byte (test/cluster/check_job.py, as the Slurm
#          end-to-end test checks it)
#   nostart  node2 never starts its task (ddprank is not executable
#          there): the job says so and ends at once (of two nodes,
#          the silent one is named but not blamed)
#   dies   node2 dies in the middle of the training (its task is
#          killed): the run ends at once, no hang
#   cont   the warning signal (--signal=USR2@LEAD): the workers
#          checkpoint, the job submits its continuation to the enclosing
#          instance (flux --parent batch --dependency=afterany:ID), and
#          the continuation resumes with DDPGEN_RESTART_COUNT=1 and
#          DDPGEN_LAST_STOP=time-limit
#   hang   --hang-timeout: rank 3, on node2, hangs forever inside a
#          collective (test/e2e/hang_train.py, as t-e2e-hang.sh has it):
#          the job ends soon after, names node2 and the rank, shows
#          every rank's stacks and submits its continuation with
#          --requires=-host:node2, which the stand-in honours: the
#          continuation runs on the first two nodes of three that the
#          constraint allows, resumes with DDPGEN_LAST_STOP=hang and
#          finishes
# Flux's timer for the warning is the harness's: it triggers the signal
# once the training runs. The cluster has three nodes; all but hang's
# continuation run on node1 and node2.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"
. "$srcdir/test/emu/lib.sh"

example=$srcdir/examples/train_resumable.py

# --- what the test needs -------------------------------------------------------
emu_setup flux timeout
need_torchrun

# --- the nodes -------------------------------------------------------------------
t0=$(date +%s)
cluster_up 3 eth0
addr1=$("$cluster" addr node1 eth0)

# Flux's stand-in (emu_setup put it in $T/bin) is "flux" on the
# submitter's and the tasks' PATH.
FLUXEMU_NODES="node1 node2"
FLUXEMU_NETNS=ddp$ID-
FLUXEMU_HOSTS=$CLUSTER_DIR/etc/hosts
export FLUXEMU_NODES FLUXEMU_NETNS FLUXEMU_HOSTS
cp "$srcdir/test/train.py" "$T/work/train.py"

# A test profile: the shipped tuolumne one on this cluster's eth0, two
# CPU processes a node.
cat >"$T/emu.conf" <<EOF
extends = "tuolumne"
description = "tuolumne, emulated on namespaces"
iface = "^eth0\$"
gpus_per_node = 0
nproc_per_node = 2
EOF

# Arguments that break naive quoting, as t-e2e-slurm.sh has them, with
# Flux's own {{id}} mustache and a directive besides: written once as
# ddpgen's arguments and once NUL-separated for check_job.py. flux batch
# reads scripts as UTF-8 only: ddpgen refuses other bytes (below).
nl=$(printf 'line1\nline2')
notutf8=$(printf '\377\376 not utf-8')
utf8=$(printf 'caf\303\251 \316\273')
set -- --epochs=2 'two  words' '' '$(touch pwned)' '`touch pwned`' \
    "it's \"quoted\" \\back\\slash\\" '*' '?' "$nl" -- \
    --nnodes=7 --port=1 "$utf8" ' lead ' '-h' '${PATH}' ';' '&&' '|' \
    '{{id}}' '#flux: -N 9' '\' "'" '"'
emu_argv "$@"

# gen NAME DDPGEN-ARGS...: $T/NAME.sh.
gen() {
	g_name=$1
	shift
	check "$g_name: ddpgen" "$DDPGEN" --site "$T/emu.conf" \
	    --ddprank "$DDPRANK" -o "$T/$g_name.sh" "$@"
}

# submitter_env FILE [VAR=VALUE...]: the environment flux batch would
# copy into the job, as JSON: a user's minimal one, with the cluster's
# torchrun fix for Python 3.11 on PYTHONPATH.
submitter_env() {
	s_file=$1
	shift
	env -i PATH="$T/bin:$TASK_PATH" HOME="$T/home" LANG=C.UTF-8 \
	    PYTHONPATH="$srcdir/test/cluster" "$@" python3 -c \
	    'import json, os, sys; json.dump(dict(os.environ), sys.stdout)' \
	    >"$s_file"
}

# batch NAME LIMIT ENVFILE [ID [ARGS]]: runs $T/NAME.sh as batch job ID
# (F58; default from NAME) from $T/work, for at most LIMIT seconds, with
# the options of flux batch the stand-in recorded in ARGS; RC its status,
# OUT its output file.
batch() {
	b_name=$1
	FLUXEMU_DIR=$T/emu-$b_name
	mkdir -p "$FLUXEMU_DIR/jobs" "$FLUXEMU_DIR/tasks" \
	    "$FLUXEMU_DIR/submitted"
	FLUXEMU_BATCH_ID=${4:-$(printf '\306\222Ba%s' "$b_name")}
	export FLUXEMU_DIR FLUXEMU_BATCH_ID
	b_t0=$(date +%s)
	OUT=$(cd "$T/work" && timeout "$2" python3 "$T/bin/flux" \
	    --emulate-batch "$3" "$T/$b_name.sh" ${5:+"$5"})
	RC=$?
	SECS=$(($(date +%s) - b_t0))
	OUT=$T/work/$OUT
	echo "TIME: $b_name $SECS s"
}

# submitted CASE: the job CASE's batch job submitted to the enclosing
# instance, its id in cont.
submitted() {
	cont=$(ls "$T/emu-$1/submitted")
	check "$1: continuation submitted" test -n "$cont" || emu_show "$OUT"
}

# cont_env CASE KEY...: each KEY of the environment flux batch recorded
# for CASE's continuation, and its value, then whether the secret
# crossed, on one line.
cont_env() {
	ce_case=$1
	shift
	python3 -c '
import json, sys
env = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    print(k, env.get(k))
print("DDPRANK_SECRET" in env)' "$T/emu-$ce_case/submitted/$cont/env" "$@" |
	    tr '\n' ' '
}

# cont_run CASE NEXT: runs CASE's continuation as the batch job NEXT,
# with the script, environment, id and arguments flux batch recorded.
cont_run() {
	cr_d=$T/emu-$1/submitted/$cont
	cp "$cr_d/script" "$T/$2.sh"
	batch "$2" 300 "$cr_d/env" "$cont" "$cr_d/args"
}

# --- what flux batch would refuse ------------------------------------------------
"$DDPGEN" --site "$T/emu.conf" --ddprank "$DDPRANK" train.py "$notutf8" \
    >"$T/notutf8.out" 2>"$T/notutf8.err"
expect_eq "not UTF-8: exit status" "$?" 2
expect_eq "not UTF-8: message" "$(cat "$T/notutf8.err")" \
    "ddpgen: line 3 of the Flux job is not valid UTF-8, which flux batch requires: a value holds other bytes"
expect_eq "not UTF-8: no script" "$(cat "$T/notutf8.out")" ""

# --- 2 nodes, 2 processes each ---------------------------------------------------
gen 2x2 -N 2 -t 10 "$T/work/train.py" "$@"
expect_eq "2x2: #flux: lines" "$(grep '^#flux:' "$T/2x2.sh" | tr '\n' '|')" \
    "#flux: --job-name=ddp|#flux: -N 2|#flux: --exclusive|#flux: -t 600s|#flux: -q pbatch|#flux: --output='ddp-{{id}}.out'|#flux: --signal=USR2@120s|#flux: -o output.mode=append|"
submitter_env "$T/env.json"
batch 2x2 300 "$T/env.json"
expect_eq "2x2: exit status" "$RC" 0
expect_eq "2x2: output file" "$OUT" "$T/work/ddp-$FLUXEMU_BATCH_ID.out"
check "2x2: check_job.py" python3 "$check_job" --nodes 2 --procs-per-node 2 \
    --argv-file "$T/argv" --node-order "node1 node2" \
    --expect-env PET_NNODES=2 --expect-env PET_MASTER_ADDR="$addr1" \
    --expect-env GLOO_SOCKET_IFNAME=eth0 "$OUT" || emu_show "$OUT"
check "2x2: the doctor ran first" grep -q 'ddprank doctor: 2 nodes' "$OUT" ||
    emu_show "$OUT"
check "2x2: an argument was run as a command" test ! -e "$T/work/pwned"
# The job ids ddprank read were Flux's F58 ones, and R came from flux.
check "2x2: R was asked of flux" test -n "$(ls "$T/emu-2x2/jobs")"

# --- the doctor's run and the training's: one port --------------------------------
# Each flux run of a batch job is a job with its own FLUX_JOB_ID; the
# automatic port derives from the batch job's FLUX_ENCLOSING_ID, so the
# doctor's run checks the port the training's run then uses.
cat >"$T/ports.sh" <<'EOF'
#!/bin/bash
#flux: -N 2
set -eu
DDPRANK_SECRET=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
export DDPRANK_SECRET
for run in doctor training; do
	flux run -N 2 --tasks-per-node=1 sh -c \
	    'echo "port $1 $FLUX_JOB_ID $("$2" port)"' sh "$run" "$DDPRANK"
done
EOF
submitter_env "$T/ports-env.json" DDPRANK="$DDPRANK"
batch ports 60 "$T/ports-env.json"
expect_eq "ports: exit status" "$RC" 0
expect_eq "ports: four tasks, two runs of their own: $(cat "$OUT")" \
    "$(grep -c '^port ' "$OUT") $(awk '/^port / { print $3 }' "$OUT" | sort -u | wc -l)" "4 2"
expect_eq "ports: one port in both runs: $(cat "$OUT")" \
    "$(awk '/^port / { print $4 }' "$OUT" | sort -u | wc -l)" 1

# --- node2 never starts its task -------------------------------------------------
# ddprank is not executable on node2 (/dev/null over it): node2's task
# says so and ends; -o exit-on-error ends node1's at once.
gen nostart -N 2 -t 10 --no-requeue "$T/work/train.py"
FLUXEMU_BINDS_node2="/dev/null:$DDPRANK"
export FLUXEMU_BINDS_node2
batch nostart 120 "$T/env.json"
unset FLUXEMU_BINDS_node2
check "nostart: exit status $RC is a failure" test "$RC" -ne 0 -a "$RC" -ne 124
# The doctor runs first: it names the node that never reported.
check "nostart: the doctor names node2" \
    grep -q '^FAIL connect node2: no findings reached node 0' "$OUT" ||
    emu_show "$OUT"
check "nostart: and why" grep -q "$DDPRANK: Permission denied" "$OUT"
# Of two nodes, node 0 cannot tell a node that never started from one
# that could not reach it (ddprank(1), DOCTOR): it blames neither.
expect_eq "nostart: no node blamed for a silence of two" \
    "$(tail -n 1 "$OUT")" "ddprank doctor: FAIL, but no node is to blame"
check "nostart: took $SECS s" test "$SECS" -le 60

# --- node2 dies during the training ----------------------------------------------
# A long training; once it runs, node2's task is killed (its node gone):
# Flux's exception ends the run, and the job, at once.
gen dies -N 2 -t 10 --no-requeue "$example" --checkpoint "$T/work/dies.pt" \
    --steps 100000 --step-seconds 1
dies_killer() {
	i=0
	while [ $i -lt 600 ]; do
		pid=
		if grep -q 'resuming at step 0' "$T"/work/ddp-*dies*.out 2>/dev/null; then
			for f in "$T"/emu-dies/tasks/*/node2.pid; do
				[ -f "$f" ] && pid=$(cat "$f")
			done
		fi
		case $pid in
		[1-9]*)	kill -KILL "-$pid"
			return ;;
		esac
		i=$((i + 1))
		sleep 0.2
	done
}
dies_killer &
killer=$!
batch dies 180 "$T/env.json"
wait "$killer"
check "dies: exit status $RC is a failure" test "$RC" -ne 0 -a "$RC" -ne 124
check "dies: the run ended at the exception" grep -q 'task 1 (node2) exited with status 137' "$OUT" ||
    emu_show "$OUT"
check "dies: took $SECS s" test "$SECS" -le 120

# --- the warning signal and the continuation ---------------------------------------
gen cont -N 2 -t 10 "$example" --checkpoint "$T/work/cont.pt" \
    --result "$T/work/cont.result" --steps 40 --step-seconds 1 --every 5
signaller() {
	i=0
	while [ $i -lt 900 ]; do
		if grep -q 'resuming at step 0' "$T"/work/ddp-*cont.out 2>/dev/null; then
			sleep 3
			: >"$T/emu-cont/signal-$1"
			return
		fi
		i=$((i + 1))
		sleep 0.2
	done
}
FLUXEMU_BATCH_ID=$(printf '\306\222%s' Bacont)
signaller "$FLUXEMU_BATCH_ID" &
sig=$!
batch cont 300 "$T/env.json"
wait "$sig"
expect_eq "cont: exit status" "$RC" 0
submitted cont
check "cont: the job said so" grep -q "^ddpgen job: time limit: checkpoint signal sent to 4 processes on 2 nodes; continuation job $cont submitted (restart 1 of at most 3)\$" "$OUT" ||
    emu_show "$OUT"
expect_eq "cont: flux batch's arguments" \
    "$(cat "$T/emu-cont/submitted/$cont/args")" \
    "[\"--dependency=afterany:$FLUXEMU_BATCH_ID\"]"
check "cont: every worker got the signal once" test \
    "$(grep -c '^[0-9]*: train_resumable: rank [0-9] got signal 12' "$OUT")" -eq 4
# The continuation: its environment is the one flux batch recorded.
expect_eq "cont: its state" \
    "$(cont_env cont DDPGEN_CONTINUED DDPGEN_RESTART_BASE DDPGEN_LIMITS)" \
    "DDPGEN_CONTINUED 1 DDPGEN_RESTART_BASE 1 DDPGEN_LIMITS 1 False "
cont_run cont cont2
expect_eq "cont2: exit status" "$RC" 0
check "cont2: resumed as restart 1 after the time limit" \
    grep -q '^0: train_resumable: restart 1, last stop time-limit, resuming at step [1-9]' "$OUT" ||
    emu_show "$OUT"
check "cont2: finished" test -s "$T/work/cont.result"

# --- a rank hangs: the continuation leaves its node out ---------------------------
# Rank 3 (node2's second) hangs at step 12 of the first run; the other
# ranks wait for it in the training's all_reduce. ddprank exec's watcher
# on each node sees the heartbeats stop, the job's verdict blames node2,
# and the continuation asks Flux for nodes without it. The stand-in
# gives each batch job the first nodes of the pool its --requires allow.
gen hang -N 2 -t 10 --hang-timeout 10 "$srcdir/test/e2e/hang_train.py" \
    --checkpoint "$T/work/hang.pt" --result "$T/work/hang.result" \
    --steps 24 --every 5 --step-seconds 0.25
submitter_env "$T/hang-env.json" DDPTEST_HANG=3:12
FLUXEMU_POOL="node1 node2 node3"
export FLUXEMU_POOL
batch hang 300 "$T/hang-env.json"
hang_end=$(date +%s)
expect_eq "hang: exit status" "$RC" 0 || emu_show "$OUT"
hung=$(sed -n 's/^1: hang_train: rank 3 hangs at step 12 at \([0-9]*\)\..*/\1/p' "$OUT")
check "hang: rank 3 hung on node2" test -n "$hung" || emu_show "$OUT"
# The watchers judge 10 s after the last beat and end the training 10 s
# later (ddprank(1), HANGS): some 21 s here, 30 s allowed for the rest,
# and as much again for a loaded machine.
echo "TIME: hang: stall -> job ended: $((hang_end - ${hung:-0})) s"
check "hang: ended $((hang_end - ${hung:-0})) s after the stall" \
    test "$((hang_end - ${hung:-0}))" -le 70
expect_eq "hang: one verdict" "$(grep -c '^ddprank: rank [0-9]* on ' "$OUT")" 1
check "hang: the verdict names rank 3 on node2" grep -Eq \
    "^ddprank: rank 3 on node2 has not beaten for [0-9]+ s; it is in all_reduce \\(hang_train.py:[0-9]+\\); the other 3 ranks wait in " \
    "$OUT" || emu_show "$OUT"
# Each node's watcher prints its ranks' stacks, in its task's output
# (labelled with the task's rank, the node's).
for r in 0 1 2 3; do
	check "hang: the stack of rank $r on node$((r / 2 + 1))" grep -Eq \
	    "^$((r / 2)): ddprank: node$((r / 2 + 1)): rank $r:   File \".*\", line [0-9]+ in " \
	    "$OUT"
done
check "hang: rank 3's stack in its collective" grep -Eq \
    "^1: ddprank: node2: rank 3:   File \".*hang_train.py\", line [0-9]+ in hanging_batch" \
    "$OUT"
submitted hang
check "hang: the job said so" grep -q "^ddpgen job: the training stalled on node2; continuation job $cont submitted without node2 (failure 1 of at most 3)\$" "$OUT" ||
    emu_show "$OUT"
expect_eq "hang: flux batch's arguments" \
    "$(cat "$T/emu-hang/submitted/$cont/args")" \
    "[\"--dependency=afterany:$FLUXEMU_BATCH_ID\", \"--requires=-host:node2\"]"
expect_eq "hang: the continuation's state" \
    "$(cont_env hang DDPGEN_CONTINUED DDPGEN_RESTART_BASE DDPGEN_LIMITS \
    DDPGEN_FAILS DDPGEN_LAST DDPGEN_EXCLUDE)" \
    "DDPGEN_CONTINUED 1 DDPGEN_RESTART_BASE 1 DDPGEN_LIMITS 0 DDPGEN_FAILS 1 DDPGEN_LAST hang DDPGEN_EXCLUDE node2 False "
cont_run hang hang2
unset FLUXEMU_POOL
expect_eq "hang2: exit status" "$RC" 0 || emu_show "$OUT"
check "hang2: resumed as restart 1 after the stall" \
    grep -q '^0: train_resumable: restart 1, last stop hang, resuming at step [1-9]' "$OUT" ||
    emu_show "$OUT"
# Every run of the continuation (the doctor's, the training's) had the
# nodes the stand-in chose, as its R says.
expect_eq "hang2: its runs' nodes" \
    "$(cat "$T"/emu-hang2/jobs/*.R | grep -o '"nodelist":\[[^]]*\]' | sort | uniq -c | tr -s ' ')" \
    ' 2 "nodelist":["node1,node3"]'
check "hang2: hung again" ! grep -q 'hang_train: rank 3 hangs' "$OUT"
check "hang2: finished" test -s "$T/work/hang.result"

echo "cluster up and cases in $(($(date +%s) - t0)) s"
finish
