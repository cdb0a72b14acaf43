#!/bin/sh
# t-lsf-requeue-script.sh: the long-training logic of a generated LSF
# script (ddpgen(1), LONG TRAININGS, LSF), run by bash with stand-ins
# for blaunch, bkill, bstatus and brequeue that log what they are asked:
# the warning's trap, the state read from the job's external status
# (also a hostile one), the requeue, max_requeues, an array element, a
# refused requeue or status, a training that fails after the warning;
# and the rerun without the nodes ddprank verdict blames (ddpgen(1),
# HANGS AND BAD NODES): a preflight that fails on one node, then a stall,
# each a continuation (bsub, its arguments checked byte for byte) that
# leaves the nodes out, the failures counted in the external status up
# to max_failures (exit 125), hostile node names, and the bad nodes
# remembered in the next script's #BSUB -R line.
# t-lsf-emulate.sh runs the same on namespace nodes; this one is fast
# and runs everywhere bash and python3 do.
. "$(dirname "$0")/lib.sh"
. "$srcdir/test/emu/lib.sh"

# The stand-ins of test/emu/lsf-stub in $stub; ddprank's beside it.
emu_stubs lsf
command -v python3 >/dev/null || skip "no python3"
mv "$stub/ddprank" "$T/ddprank"

check "ddpgen" "$DDPGEN" --site "$srcdir/profiles/lsf.conf" -N 2 -n 2 --hang-timeout 30 \
    --ddprank "$T/ddprank" train.py >"$T/job.sh"

# run NAME VAR=VALUE...: the job, warned (URG, as bsub -wa asks) once
# both tasks run; sets RC, ERR (its output) and LOG (what the stand-ins
# were asked).
run() {
	name=$1
	shift
	STUB_DIR=$T/$name
	mkdir -p "$STUB_DIR"
	: >"$STUB_DIR/pids"
	(
		cd "$STUB_DIR" || exit 1
		exec env PATH="$stub:$PATH" STUB_DIR="$STUB_DIR" \
		    STUB_LOG="$STUB_DIR/log" LSB_JOBID=7 LSB_JOBINDEX=0 \
		    LSB_MCPU_HOSTS='h1 1 h2 1' "$@" bash "$T/job.sh"
	) >"$STUB_DIR/err" 2>&1 &
	job=$!
	i=0
	while [ "$(wc -l <"$STUB_DIR/pids")" -lt 2 ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	# The subshell exec'd env, which exec'd the batch shell: same pid.
	kill -URG "$job"
	wait "$job"
	RC=$?
	ERR=$(cat "$STUB_DIR/err")
	LOG=$(cat "$STUB_DIR/log")
}
say="ddpgen job: run limit in 2 min: checkpoint signal sent to 4 processes on 2 nodes"

run first
expect_eq "first: status" "$RC" 0
expect_eq "first: message" "$ERR" "$say; requeued (restart 1 of at most 3)"
expect_has "first: tasks" "blaunch h1" "$LOG"
expect_has "first: tasks" "blaunch h2" "$LOG"
expect_has "first: signal" "bkill -s USR2 7" "$LOG"
expect_has "first: state" "bstatus -d ddpgen restart=1 limits=1 last=time-limit fails=0 7" "$LOG"
expect_has "first: requeue" "brequeue 7" "$LOG"
expect_has "first: env" "exec base=0 last=none sig=USR2" "$LOG"
expect_eq "first: the signal, once" "$(grep -c '^bkill' "$T/first/log")" 1

# The fourth warning: max_requeues (3) reached.
run limit STUB_STATUS='ddpgen restart=3 limits=3 last=time-limit'
expect_eq "limit: status" "$RC" 124
expect_eq "limit: message" "$ERR" "$say; not requeued: 3 time-limit requeues already (max_requeues = 3)"
expect_lacks "limit: no requeue" "brequeue" "$LOG"
expect_has "limit: env" "exec base=3 last=time-limit" "$LOG"

# The second run: the count from the status.
run second STUB_STATUS='ddpgen restart=1 limits=1 last=time-limit'
expect_has "second: env" "exec base=1 last=time-limit" "$LOG"
expect_has "second: state" "bstatus -d ddpgen restart=2 limits=2 last=time-limit fails=0 7" "$LOG"

# An element of a job array: JOBID[INDEX] everywhere.
run array LSB_JOBINDEX=4
expect_has "array: status read" "bstatus 7[4]" "$LOG"
expect_has "array: signal" "bkill -s USR2 7[4]" "$LOG"
expect_has "array: requeue" "brequeue 7[4]" "$LOG"

# A requeue LSF refuses, a status it does not record: the job says so.
run refused STUB_REQUEUE_RC=1
expect_eq "refused: status" "$RC" 1
expect_eq "refused: message" "$ERR" "$say; requeued (restart 1 of at most 3)
ddpgen job: brequeue 7 failed: not requeued"
run nostatus STUB_BSTATUS_RC=1
expect_eq "nostatus: status" "$RC" 1
expect_eq "nostatus: message" "$ERR" "$say; not requeued: bstatus could not record the restart count"
expect_lacks "nostatus: no requeue" "brequeue" "$LOG"

# A hostile status (the owner's own bstatus -d) neither runs nor counts.
run hostile STUB_STATUS='ddpgen restart=$(touch pwned) limits=1e9 last=../x restart=01 `touch pwned2`'
expect_eq "hostile: status" "$RC" 0
expect_has "hostile: env" "exec base=0 last=none" "$LOG"
check "hostile: nothing ran" test ! -e "$T/hostile/pwned" -a ! -e "$T/hostile/pwned2"

# A training that fails after the warning is not requeued.
run fails STUB_TRAIN_RC=3
expect_eq "fails: status" "$RC" 3
# Which node's task the job finds ended first is a race.
check "fails: the task named" matches "$(echo "$ERR" | head -n 1)" \
    "ddpgen job: blaunch on h[12] exited with status 3: ending the job"
expect_eq "fails: message" "$(echo "$ERR" | tail -n +2)" \
    "$say; the training exited with status 3: not requeued"
expect_lacks "fails: no requeue" "brequeue" "$LOG"
# run_now NAME SCRIPT VAR=VALUE...: SCRIPT to its end, unwarned; sets RC,
# ERR, LOG and ARGS (bsub's arguments, a line each).
run_now() {
	name=$1 script=$2
	shift 2
	STUB_DIR=$T/$name
	mkdir -p "$STUB_DIR"
	: >"$STUB_DIR/pids"
	(
		cd "$STUB_DIR" || exit 1
		exec env PATH="$stub:$PATH" STUB_DIR="$STUB_DIR" \
		    STUB_LOG="$STUB_DIR/log" LSB_JOBID=7 LSB_JOBINDEX=0 \
		    LSB_MCPU_HOSTS='h1 1 h2 1' "$@" bash "$script"
	) >"$STUB_DIR/err" 2>&1
	RC=$?
	ERR=$(cat "$STUB_DIR/err")
	LOG=$(cat "$STUB_DIR/log")
	ARGS=$(tr '\0' '\n' 2>/dev/null <"$STUB_DIR/bsub.args")
}

# --- the preflight fails on h2: a continuation without it -------------------
run_now pre "$T/job.sh" STUB_DOCTOR_RC=8 STUB_VERDICT="preflight h2"
expect_eq "pre: status" "$RC" 0
check "pre: message" matches "$ERR" "ddpgen job: blaunch on h[12] exited with status 8: ending the job
ddprank: a summary line
ddpgen job: the preflight failed on h2; continuation job 99 submitted without h2 (failure 1 of at most 3)"
expect_has "pre: doctor records" "doctor --record" "$LOG"
expect_has "pre: verdict" "verdict --site lsf --remember 86400" "$LOG"
expect_lacks "pre: no training" "exec base" "$LOG"
expect_lacks "pre: no requeue" "brequeue" "$LOG"
expect_eq "pre: bsub's arguments" "$ARGS" "-w
ended(7)
-R
select[hname!='h2']"
check "pre: bsub read the script" cmp "$T/job.sh" "$T/pre/bsub.in"
expect_eq "pre: its environment" "$(cat "$T/pre/bsub.env")" \
    "exclude=h2 secret="
expect_has "pre: the counts" "bstatus -d ddpgen restart=1 limits=0 last=preflight fails=1 99" "$LOG"

# --- the continuation stalls on h1: the count and the exclusion grow -------
run_now hang "$T/job.sh" STUB_TRAIN_RC_NOW=143 STUB_VERDICT="hang h1" \
    STUB_STATUS='ddpgen restart=1 limits=0 last=preflight fails=1' \
    DDPGEN_EXCLUDE=h2
expect_eq "hang: status" "$RC" 0
check "hang: message" matches "$ERR" "*ddprank: a summary line
ddpgen job: the training stalled on h1; continuation job 99 submitted without h1 (failure 2 of at most 3)"
expect_has "hang: the last stop reached the training" "exec base=1 last=preflight" "$LOG"
expect_eq "hang: bsub's arguments" "$ARGS" "-w
ended(7)
-R
select[hname!='h2' && hname!='h1']"
expect_has "hang: the counts" "bstatus -d ddpgen restart=2 limits=0 last=hang fails=2 99" "$LOG"

# --- max_failures (3) reruns already: exit 125, nothing submitted ----------
run_now budget "$T/job.sh" STUB_TRAIN_RC_NOW=143 STUB_VERDICT="hang h1" \
    STUB_STATUS='ddpgen restart=3 limits=0 last=hang fails=3'
expect_eq "budget: status" "$RC" 125
check "budget: message" matches "$ERR" "*ddprank: a summary line
ddpgen job: the training stalled; not rerun: 3 failures already (max_failures = 3)"
expect_lacks "budget: no bsub" "bsub" "$LOG"

# --- a failure that is no stall: the job ends with its status --------------
run_now other "$T/job.sh" STUB_TRAIN_RC_NOW=3
expect_eq "other: status" "$RC" 3
expect_lacks "other: no bsub" "bsub" "$LOG"

# --- bsub refuses: the job fails, saying so --------------------------------
run_now nosub "$T/job.sh" STUB_DOCTOR_RC=8 STUB_VERDICT="preflight h2" \
    STUB_BSUB_RC=255
expect_eq "nosub: status" "$RC" 1
expect_has "nosub: message" "ddpgen job: the preflight failed on h2; the continuation was not submitted" "$ERR"

# --- hostile names, from the verdict and the environment: one word each,
# and none that is no host name reaches bsub's requirement ------------------
# shellcheck disable=SC2016 # literally
bad='h1,$(touch pwned) x,a"b,h3]||true,`touch pwned2`'
# shellcheck disable=SC2016 # literally
run_now hostile "$T/job.sh" STUB_TRAIN_RC_NOW=143 STUB_VERDICT="hang $bad" \
    DDPGEN_EXCLUDE='h2;touch pwned3,$(touch pwned4)'
expect_eq "hostile: status" "$RC" 0
expect_eq "hostile: bsub's arguments" "$ARGS" "-w
ended(7)
-R
select[hname!='h1']"
expect_eq "hostile: its environment" "$(cat "$T/hostile/bsub.env")" \
    "exclude=h1 secret="
expect_has "hostile: said" "ddpgen job: not left out: h3\]\|\|true is not a host name" "$ERR"
check "hostile: nothing ran" test ! -e "$T/hostile/pwned" -a \
    ! -e "$T/hostile/pwned2" -a ! -e "$T/hostile/pwned3" -a \
    ! -e "$T/hostile/pwned4"

# --- the nodes remembered as bad: the next script leaves them out ---------
# h-9's hyphen is why LSF's select takes each name in single quotes.
mkdir -p "$XDG_STATE_HOME/ddpgen"
chmod 0700 "$XDG_STATE_HOME" "$XDG_STATE_HOME/ddpgen"
(umask 077 && printf 'lsf h-9 %s a stall\nlsf bad]node %s a stall\n' \
    "$(($(date +%s) + 3600))" "$(($(date +%s) + 3600))" \
    >"$XDG_STATE_HOME/ddpgen/bad-nodes")
check "ddpgen, bad nodes remembered" "$DDPGEN" --site \
    "$srcdir/profiles/lsf.conf" -N 2 -n 2 --ddprank "$T/ddprank" train.py \
    >"$T/bad.sh" 2>"$T/bad.err"
expect_has "bad: the note" "leaving out 2 nodes remembered as bad" \
    "$(cat "$T/bad.err")"
expect_has "bad: the directive" "#BSUB -R \"select[hname!='h-9']\"" \
    "$(cat "$T/bad.sh")"
run_now bad "$T/bad.sh" STUB_DOCTOR_RC=8 STUB_VERDICT="preflight h2"
expect_eq "bad: bsub's arguments" "$ARGS" "-w
ended(7)
-R
select[hname!='h-9' && hname!='h2']"
finish
