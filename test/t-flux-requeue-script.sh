#!/bin/sh
# t-flux-requeue-script.sh: the long-training logic of a generated Flux
# script (ddpgen(1), LONG TRAININGS, Flux), run by bash with a flux
# stand-in that logs what it is asked: the warning Flux sends to the
# batch script's process group and to the training (here one "worker",
# a python process that installs its handler as the workers do), the
# continuation submitted to the enclosing instance with the state in its
# environment, max_requeues (exit 124), a training that fails after the
# warning, a hostile state, no warning at all; and the rerun without the
# nodes ddprank verdict blames (ddpgen(1), HANGS AND BAD NODES): a
# preflight that fails on one node, then a stall, each a continuation
# whose --requires=-host: leaves them out (its arguments checked byte
# for byte), the failures counted in its environment up to max_failures
# (exit 125), hostile node names, the bad nodes remembered in the next
# script's #flux: --requires line. t-flux-emulate.sh runs the
# same with a real training on namespace nodes; this one is fast.
. "$(dirname "$0")/lib.sh"
. "$srcdir/test/emu/lib.sh"

# The flux stand-in of test/emu/flux-stub in $stub.
emu_stubs flux
command -v python3 >/dev/null || skip "no python3"
need_built ddpgen

"$DDPGEN" --site tuolumne -N 2 -t 1:00:00 --ddprank /bin/true train.py \
    >"$T/job.sh" 2>"$T/gen.err"
expect_eq "ddpgen" "$?" 0

# job NAME [VAR=VALUE...]: runs the job in its own process group as Flux
# runs a batch script, sends USR2 to that group once the worker runs
# (unless STUB_NO_WARN), and sets RC, LOG (the stand-in's) and ERR.
job() {
	name=$1
	shift
	d=$T/$name
	mkdir -p "$d"
	: >"$d/log"
	env -i PATH="$stub:/usr/bin:/bin" HOME="$T" STUB_LOG="$d/log" \
	    STUB_DIR="$d" FLUX_ENCLOSING_ID=ƒBatch1 "$@" \
	    setsid bash "$T/job.sh" >"$d/out" 2>"$d/err" &
	pid=$!
	i=0
	while [ ! -e "$d/ready" ] && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	case " $* " in
	*" STUB_NO_WARN=1 "*) ;;
	*)	kill -USR2 -- "-$pid" 2>/dev/null || kill -USR2 "-$pid" ;;
	esac
	wait "$pid"
	RC=$?
	LOG=$(cat "$d/log")
	ERR=$(cat "$d/err")
}

# --- the warning: the continuation, with the state in its environment ---------
job first
expect_eq "first: exit status" "$RC" 0
expect_eq "first: what flux was asked" "$LOG" "run doctor
run base=0 last=none sig=USR2
batch --dependency=afterany:ƒBatch1 $T/job.sh continued=1 base=1 limits=1 secret="
expect_eq "first: message" "$ERR" \
    "ddpgen job: time limit: checkpoint signal sent to 8 processes on 2 nodes; continuation job ƒCont1 submitted (restart 1 of at most 3)"

# --- a continuation: the training is told -----------------------------------
job second DDPGEN_CONTINUED=1 DDPGEN_RESTART_BASE=1 DDPGEN_LIMITS=1
expect_eq "second: exit status" "$RC" 0
expect_eq "second: what flux was asked" "$LOG" "run doctor
run base=1 last=time-limit sig=USR2
batch --dependency=afterany:ƒBatch1 $T/job.sh continued=1 base=2 limits=2 secret="

# --- max_requeues continuations already: exit 124 ---------------------------
job limit DDPGEN_CONTINUED=1 DDPGEN_RESTART_BASE=3 DDPGEN_LIMITS=3
expect_eq "limit: exit status" "$RC" 124
expect_eq "limit: nothing submitted" "$(echo "$LOG" | grep -c '^batch')" 0
expect_eq "limit: message" "$ERR" \
    "ddpgen job: time limit: checkpoint signal sent to 8 processes on 2 nodes; not continued: 3 time-limit continuations already (max_requeues = 3)"

# --- the training fails after the warning: its status, nothing submitted -----
job fails STUB_TRAIN_RC=5
expect_eq "fails: exit status" "$RC" 5
expect_eq "fails: nothing submitted" "$(echo "$LOG" | grep -c '^batch')" 0
expect_eq "fails: message" "$ERR" \
    "ddpgen job: time limit: checkpoint signal sent to 8 processes on 2 nodes; the training exited with status 5: not continued"

# --- a state that is not numbers is no state -------------------------------
job hostile DDPGEN_CONTINUED=1 'DDPGEN_RESTART_BASE=1;touch pwned' \
    'DDPGEN_LIMITS=$(touch pwned)'
expect_eq "hostile: exit status" "$RC" 0
expect_eq "hostile: state read" "$(echo "$LOG" | sed -n 2p)" \
    "run base=0 last=time-limit sig=USR2"
check "hostile: nothing ran" test ! -e pwned -a ! -e "$T/pwned"

# --- the continuation cannot be submitted: the job fails, saying so ----------
job nosubmit STUB_BATCH_FAIL=1
expect_eq "nosubmit: exit status" "$RC" 1
expect_eq "nosubmit: message" "$ERR" \
    "ddpgen job: time limit: checkpoint signal sent to 8 processes on 2 nodes; the continuation was not submitted"

# --- no warning: the training ends, nothing else ----------------------------
job quiet STUB_NO_WARN=1 STUB_SLEEP=0.5
expect_eq "quiet: exit status" "$RC" 0
expect_eq "quiet: what flux was asked" "$LOG" "run doctor
run base=0 last=none sig=USR2"
expect_eq "quiet: nothing said" "$ERR" ""
# --- the leave-out: a script whose ddprank gives a verdict -------------------
"$DDPGEN" --site tuolumne -N 2 -t 1:00:00 --hang-timeout 30 --ddprank "$stub/ddprank" \
    train.py >"$T/leave.sh" 2>"$T/gen.err"
expect_eq "ddpgen (leave-out)" "$?" 0

# now NAME SCRIPT [VAR=VALUE...]: SCRIPT to its end, unwarned; sets RC,
# LOG, ERR and ARGS (flux batch's arguments, a line each).
now() {
	name=$1 script=$2
	shift 2
	d=$T/$name
	mkdir -p "$d"
	: >"$d/log"
	env -i PATH="$stub:/usr/bin:/bin" HOME="$T" STUB_LOG="$d/log" \
	    STUB_DIR="$d" FLUX_ENCLOSING_ID=ƒBatch1 "$@" \
	    bash "$script" >"$d/out" 2>"$d/err"
	RC=$?
	LOG=$(cat "$d/log")
	ERR=$(cat "$d/err")
	ARGS=$(tr '\0' '\n' 2>/dev/null <"$d/batch.args")
}

# The preflight fails on node2: the continuation leaves it out.
now pre "$T/leave.sh" STUB_DOCTOR_RC=8 STUB_VERDICT="preflight node2"
expect_eq "pre: exit status" "$RC" 0
expect_eq "pre: message" "$ERR" "ddprank: a summary line
ddpgen job: the preflight failed on node2; continuation job ƒCont1 submitted without node2 (failure 1 of at most 3)"
expect_eq "pre: what flux was asked" "$LOG" "run doctor
verdict
batch --dependency=afterany:ƒBatch1 --requires=-host:node2 $T/leave.sh continued=1 base=1 limits=0 secret="
expect_eq "pre: flux batch's arguments" "$ARGS" "--parent
batch
--dependency=afterany:ƒBatch1
--requires=-host:node2
$T/leave.sh"
expect_eq "pre: the state" "$(cat "$T/pre/batch.env")" \
    "fails=1 last=preflight exclude=node2"

# The continuation stalls on node1: the count and the exclusion grow, and
# the last stop reached the training.
now hang "$T/leave.sh" STUB_TRAIN_RC_NOW=143 STUB_VERDICT="hang node1" \
    DDPGEN_CONTINUED=1 DDPGEN_RESTART_BASE=1 DDPGEN_LIMITS=0 \
    DDPGEN_FAILS=1 DDPGEN_LAST=preflight DDPGEN_EXCLUDE=node2
expect_eq "hang: exit status" "$RC" 0
expect_eq "hang: message" "$ERR" "ddprank: a summary line
ddpgen job: the training stalled on node1; continuation job ƒCont1 submitted without node1 (failure 2 of at most 3)"
expect_has "hang: the training told" "run base=1 last=preflight" "$LOG"
expect_eq "hang: flux batch's arguments" "$ARGS" "--parent
batch
--dependency=afterany:ƒBatch1
--requires=-host:node2,node1
$T/leave.sh"
expect_eq "hang: the state" "$(cat "$T/hang/batch.env")" \
    "fails=2 last=hang exclude=node2,node1"

# max_failures (3) reruns already: exit 125, nothing submitted.
now budget "$T/leave.sh" STUB_TRAIN_RC_NOW=143 STUB_VERDICT="hang node1" \
    DDPGEN_CONTINUED=1 DDPGEN_RESTART_BASE=3 DDPGEN_FAILS=3 DDPGEN_LAST=hang
expect_eq "budget: exit status" "$RC" 125
expect_eq "budget: message" "$ERR" "ddprank: a summary line
ddpgen job: the training stalled; not rerun: 3 failures already (max_failures = 3)"
expect_eq "budget: nothing submitted" "$(echo "$LOG" | grep -c '^batch')" 0

# A failure that is no stall: its status, nothing submitted.
now other "$T/leave.sh" STUB_TRAIN_RC_NOW=3
expect_eq "other: exit status" "$RC" 3
expect_eq "other: nothing submitted" "$(echo "$LOG" | grep -c '^batch')" 0

# A time-limit continuation after a rerun carries the count and the
# exclusion.
job carried DDPGEN_CONTINUED=1 DDPGEN_RESTART_BASE=1 DDPGEN_FAILS=1 \
    DDPGEN_LAST=hang DDPGEN_EXCLUDE=node2
expect_eq "carried: exit status" "$RC" 0
expect_has "carried: the training told" "run base=1 last=hang" "$LOG"
# (job runs job.sh, whose ddprank gives no verdict: the exclusion it
# carries is the leave-out's, which job.sh has too.)
expect_eq "carried: the state" "$(cat "$T/carried/batch.env")" \
    "fails=1 last=unset exclude=node2"

# Hostile names, from the verdict and the environment: one word each, and
# none that is no host name reaches the constraint.
# shellcheck disable=SC2016 # literally
now hostile "$T/leave.sh" STUB_TRAIN_RC_NOW=143 \
    STUB_VERDICT='hang node1,$(touch pwned) x,a"b,node3 or host:x,`touch pwned2`' \
    DDPGEN_CONTINUED=1 'DDPGEN_EXCLUDE=n;touch pwned3,$(touch pwned4)'
expect_eq "hostile: exit status" "$RC" 0
expect_eq "hostile: flux batch's arguments" "$ARGS" "--parent
batch
--dependency=afterany:ƒBatch1
--requires=-host:node1
$T/leave.sh"
expect_has "hostile: said" "ddpgen job: not left out: node3\\ or\\ host:x is not a host name" "$ERR"
check "hostile: nothing ran" test ! -e "$T/pwned" -a ! -e "$T/pwned2" -a \
    ! -e "$T/pwned3" -a ! -e "$T/pwned4" -a ! -e pwned

# The nodes remembered as bad: the next script leaves them out.
mkdir -p "$XDG_STATE_HOME/ddpgen"
chmod 0700 "$XDG_STATE_HOME" "$XDG_STATE_HOME/ddpgen"
(umask 077 && printf 'tuolumne node9 %s a stall\ntuolumne bad]node %s a stall\n' \
    "$(($(date +%s) + 3600))" "$(($(date +%s) + 3600))" \
    >"$XDG_STATE_HOME/ddpgen/bad-nodes")
"$DDPGEN" --site tuolumne -N 2 -t 1:00:00 --ddprank "$stub/ddprank" \
    train.py >"$T/bad.sh" 2>"$T/bad.err"
expect_eq "ddpgen (bad nodes)" "$?" 0
expect_has "bad: the note" "leaving out 2 nodes remembered as bad" \
    "$(cat "$T/bad.err")"
expect_has "bad: the directive" "#flux: --requires=-host:node9" \
    "$(cat "$T/bad.sh")"
now bad "$T/bad.sh" STUB_DOCTOR_RC=8 STUB_VERDICT="preflight node2"
expect_eq "bad: flux batch's arguments" "$ARGS" "--parent
batch
--dependency=afterany:ƒBatch1
--requires=-host:node9,node2
$T/bad.sh"
finish
