#!/bin/sh
# t-lsf-requeue-script.sh: the long-training logic of a generated LSF
# script (ddpgen(1), LONG TRAININGS, LSF), run by bash with stand-ins
# for blaunch, bkill, bstatus and brequeue that log what they are asked:
# the warning's trap, the state read from the job's external status
# (also a hostile one), the requeue, max_requeues, an array element, a
# refused requeue or status, a training that fails after the warning.
# t-lsf-emulate.sh runs the same on namespace nodes; this one is fast
# and runs everywhere bash and python3 do.
. "$(dirname "$0")/lib.sh"
. "$srcdir/test/emu/lib.sh"

# The stand-ins of test/emu/lsf-stub in $stub; ddprank's beside it.
emu_stubs lsf
command -v python3 >/dev/null || skip "no python3"
mv "$stub/ddprank" "$T/ddprank"

check "ddpgen" "$DDPGEN" --site "$srcdir/profiles/lsf.conf" -N 2 -n 2 \
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
expect_has "first: state" "bstatus -d ddpgen restart=1 limits=1 last=time-limit 7" "$LOG"
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
expect_has "second: state" "bstatus -d ddpgen restart=2 limits=2 last=time-limit 7" "$LOG"

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
finish
