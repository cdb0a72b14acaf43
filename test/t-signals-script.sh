#!/bin/sh
# t-signals-script.sh: the checkpoint signals of a generated Slurm script
# that do not come as Slurm's time-limit warning (ddpgen(1), LONG
# TRAININGS), run by bash with stand-ins that run the training step's
# own wrapper, so its sentinel on the batch host is the one the job
# ships: a checkpoint asked for by hand (scancel -b, with and without a
# time limit), one sent to the step only (scancel without -b, sbatch
# --signal without B:), sbatch --signal=B:USR1, a training that does not
# stop before the job is ended, one that crashes after the checkpoint
# (its own status, not srun's 143), a warning while the doctor runs and
# one while setup lines run. t-requeue-script.sh covers the time limit and
# preemption; t-e2e-signals.sh runs two of these for real.
. "$(dirname "$0")/lib.sh"

command -v bash >/dev/null || skip "no bash"
command -v setsid >/dev/null || skip "no setsid"
stub=$T/bin
mkdir -p "$stub"
# srun: the doctor waits for doctor.go when STUB_DOCTOR_WAIT is set; the
# training step runs the job's wrapper in a process group of its own
# (step.pid), as task 0 on the batch host (STUB_NODE).
cat >"$stub/srun" <<'STUB'
#!/bin/bash
case " $* " in *" doctor "*)
	echo "srun doctor" >>"$STUB_LOG"
	if [ -n "${STUB_DOCTOR_WAIT:-}" ]; then
		: >"$STUB_DIR/doctor.started"
		while [ ! -e "$STUB_DIR/doctor.go" ]; do sleep 0.05; done
	fi
	exit 0 ;;
esac
echo "srun training" >>"$STUB_LOG"
while [ "$1" != /bin/bash ]; do shift; done
export SLURM_LOCALID=0 SLURMD_NODENAME=$STUB_NODE
# STUB_SRUN_RC: srun's own status once the task has ended, as when it
# ended the other tasks (SIGTERM, 143) after this one failed.
if [ -n "${STUB_SRUN_RC:-}" ]; then
	setsid "$@" &
	echo $! >"$STUB_DIR/step.pid"
	wait $!
	exit "$STUB_SRUN_RC"
fi
echo $$ >"$STUB_DIR/step.pid"
exec setsid "$@"
STUB
# The training (in ddprank's place): a worker with a handler that exits
# $STUB_TRAIN_RC when signalled, or ignores it (STUB_TRAIN_IGNORE).
cat >"$T/ddprank" <<'STUB'
#!/bin/bash
if [ -n "${STUB_TRAIN_IGNORE:-}" ]; then
	trap '' USR2
else
	trap 'echo "training got USR2" >>"$STUB_LOG"; exit "${STUB_TRAIN_RC:-0}"' USR2
fi
echo $$ >"$STUB_DIR/train.pid"
while :; do sleep 0.05 & wait $!; done
STUB
# scancel --signal: every process of the step (its process group).
cat >"$stub/scancel" <<'STUB'
#!/bin/bash
echo "scancel $*" >>"$STUB_LOG"
kill -USR2 -- "-$(cat "$STUB_DIR/step.pid")"
STUB
cat >"$stub/squeue" <<'STUB'
#!/bin/bash
echo "squeue $*" >>"$STUB_LOG"
case "$*" in
*%k*) printf '%s\n' "${STUB_COMMENT:-(null)}" ;;
*%L*) echo "${STUB_LEFT:-1:58}" ;;
esac
STUB
cat >"$stub/scontrol" <<'STUB'
#!/bin/bash
echo "scontrol $*" >>"$STUB_LOG"
case "$*" in
"-o show job"*) echo "JobId=7 TimeLimit=${STUB_LIMIT:-00:10:00} PreemptTime=${STUB_PREEMPT:-None} X=1" ;;
requeue*) exit 0 ;;
esac
STUB
chmod +x "$stub"/* "$T/ddprank"

check "ddpgen" "$DDPGEN" -N 2 -n 2 --ddprank "$T/ddprank" train.py >"$T/job.sh"
# A setup line that sends the warning itself, before the trap is set.
check "ddpgen -S" "$DDPGEN" -N 2 -n 2 --ddprank "$T/ddprank" \
    -S 'kill -USR2 $$' train.py >"$T/early.sh"

# waitfor FILE [PATTERN]: until FILE exists (and holds PATTERN), 20 s.
waitfor() {
	i=0
	while [ $i -lt 400 ]; do
		if [ -e "$1" ] && { [ -z "${2:-}" ] || grep -q -- "$2" "$1"; }; then
			return 0
		fi
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}
# start NAME JOB VAR=VALUE...: the job in the background ($job, its pid).
start() {
	name=$1 script=$2
	shift 2
	D=$T/$name
	mkdir -p "$D"
	(
		cd "$D" || exit 1
		exec env PATH="$stub:$PATH" STUB_DIR="$D" STUB_LOG="$D/log" \
		    STUB_NODE=node1 SLURMD_NODENAME=node1 SLURM_JOB_ID=7 \
		    SLURM_JOB_NUM_NODES=2 SLURM_NNODES=2 "$@" bash "$script"
	) 2>"$D/err" &
	job=$!
}
# end: waits for the job; sets RC, ERR, LOG.
end() {
	wait "$job"
	RC=$?
	ERR=$(cat "$D/err")
	LOG=$(cat "$D/log" 2>/dev/null)
}
started() { check "$name: the training started" waitfor "$D/train.pid"; }
# trapped PID: every child of PID (the step's wrapper: the sentinel and
# the training) catches USR2, by its SigCgt mask, for 20 s. bash sets
# the sentinel's trap a moment after the fork; a loaded machine
# stretched that past a second, and the signal then ended the sentinel
# instead of reaching its trap.
trapped() {
	i=0
	while [ $i -lt 400 ]; do
		! kids_catch_usr2 "$1" || return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}
kids_catch_usr2() {
	kids=$(ps -o pid= --ppid "$1") && [ -n "$kids" ] || return 1
	for k in $kids; do
		m=$(awk '/^SigCgt:/ { print $2 }' "/proc/$k/status" 2>/dev/null)
		[ -n "$m" ] && [ $((0x$m & 0x800)) -ne 0 ] || return 1
	done
}

# scancel -b --signal=USR2 on a job without a time limit: by hand,
# requeued, not counted, and said so.
# Slurm 22.05 gives such a job a year in %L (seen on the test cluster).
start hand "$T/job.sh" STUB_LIMIT=UNLIMITED STUB_LEFT=364-23:58:40
started
kill -USR2 "$job"
end
expect_eq "hand: status" "$RC" 0
expect_eq "hand: message" "$ERR" "ddpgen job: checkpoint asked for by hand (no time limit): checkpoint signal sent to 4 processes on 2 nodes; requeued (restart 1; checkpoints asked for by hand are not counted)"
expect_has "hand: state" "Comment=ddpgen restart=1 limits=0 base=0 last=by-hand" "$LOG"
expect_has "hand: the training got it" "training got USR2" "$LOG"

# The same an hour before the time limit.
start handtl "$T/job.sh" STUB_LEFT=1:00:00
started
kill -USR2 "$job"
end
expect_has "handtl: message" "checkpoint asked for by hand (time limit in 3600 s): checkpoint signal sent" "$ERR"
expect_has "handtl: not counted" "limits=0 base=0 last=by-hand" "$LOG"

# The next run after a checkpoint by hand sees the reason.
start handnext "$T/job.sh" SLURM_RESTART_COUNT=1 \
    STUB_COMMENT='ddpgen restart=1 limits=0 base=0 last=by-hand'
started
kill -USR2 "$job"
end
expect_has "handnext: count kept" "Comment=ddpgen restart=2 limits=1 base=0 last=time-limit" "$LOG"

# scancel --signal=USR2 without -b: the step only. The sentinel tells
# the shell, which does not requeue and says why, with status 124.
start outside "$T/job.sh"
started
check "outside: sentinel up" waitfor "$D/step.pid"
check "outside: the sentinel's and the training's traps set" \
    trapped "$(cat "$D/step.pid")"
kill -USR2 "-$(cat "$D/step.pid")"
end
expect_eq "outside: status" "$RC" 124
expect_eq "outside: message" "$ERR" "ddpgen job: the training got the checkpoint signal from outside this shell (scancel without -b, or sbatch --signal without B:); it stopped with status 0: not requeued (scancel -b --signal=USR2 7 asks for a checkpoint and a requeue)"
expect_lacks "outside: no requeue" "requeue" "$LOG"
expect_lacks "outside: no second signal" "scancel" "$LOG"

# The sentinel runs only on the batch host: on another node the shell
# learns nothing (the job ends as before, status 0).
start elsewhere "$T/job.sh" STUB_NODE=node2
started
sleep 1
kill -USR2 "-$(cat "$D/step.pid")"
end
expect_eq "elsewhere: status" "$RC" 0
expect_eq "elsewhere: no message" "$ERR" ""

# sbatch --signal=B:USR1@90: USR1 at the shell is the warning too; the
# training still gets the checkpoint signal, USR2.
start usr1 "$T/job.sh"
started
kill -USR1 "$job"
end
expect_eq "usr1: status" "$RC" 0
expect_eq "usr1: message" "$ERR" "ddpgen job: time limit in 118 s: checkpoint signal sent to 4 processes on 2 nodes; requeued (restart 1 of at most 3)"
expect_has "usr1: signal" "scancel --signal=USR2 7" "$LOG"

# A training that ignores the signal: Slurm ends the job (SIGTERM to the
# shell) and the shell says the training had not stopped.
start ignore "$T/job.sh" STUB_TRAIN_IGNORE=1
started
kill -USR2 "$job"
check "ignore: signal sent" waitfor "$D/log" "scancel --signal"
check "ignore: state read" waitfor "$D/log" "squeue -h -j 7 -o %L"
sleep 0.5
kill -TERM "$job"
end
expect_eq "ignore: status" "$RC" 143
check "ignore: message '$ERR'" expr "$ERR" : 'ddpgen job: time limit in 118 s: checkpoint signal sent to 4 processes on 2 nodes at [0-9][0-9]:[0-9][0-9]:[0-9][0-9]; the training had not stopped when the job was ended at [0-9][0-9]:[0-9][0-9]:[0-9][0-9] (SIGTERM)$' >/dev/null
kill -KILL "-$(cat "$D/step.pid")" 2>/dev/null

# A training that crashes after the checkpoint with status 3, srun
# having ended the other tasks (143): the job ends with the training's
# own status, which the first task's wrapper on this host wrote, and
# says it; the status directory is gone.
start crash "$T/job.sh" STUB_TRAIN_RC=3 STUB_SRUN_RC=143 TMPDIR="$T/crash"
started
kill -USR2 "$job"
end
expect_eq "crash: status" "$RC" 3
expect_eq "crash: message" "$ERR" "ddpgen job: time limit in 118 s: checkpoint signal sent to 4 processes on 2 nodes; the training exited with status 3: not requeued"
expect_lacks "crash: no requeue" "requeue" "$LOG"
check "crash: status directory removed" test -z "$(find "$T/crash" -name 'ddpgen.*')"

# A training killed by a signal on this host too: srun's status stands.
start crashsig "$T/job.sh" STUB_TRAIN_RC=143 STUB_SRUN_RC=143 TMPDIR="$T/crashsig"
started
kill -USR2 "$job"
end
expect_eq "crashsig: status" "$RC" 143
expect_has "crashsig: message" "the training exited with status 143: not requeued" "$ERR"

# Preempted while the doctor runs: the trap runs at once, the training
# is not started, the job requeues.
start doctor "$T/job.sh" STUB_DOCTOR_WAIT=1 STUB_PREEMPT=2026-12-01T10:00:00
check "doctor: the doctor runs" waitfor "$D/doctor.started"
kill -USR2 "$job"
check "doctor: the trap ran during the doctor" waitfor "$D/log" "scontrol -o show job"
: >"$D/doctor.go"
end
expect_eq "doctor: status" "$RC" 0
expect_eq "doctor: message" "$ERR" "ddpgen job: preemption during start-up: the training was not started; requeued (restart 1; preemptions are not counted)"
expect_lacks "doctor: no training" "srun training" "$LOG"
expect_lacks "doctor: no signal to a step" "scancel" "$LOG"

# The warning while a setup line runs, before the trap is set: noted,
# and the same.
start early "$T/early.sh" STUB_PREEMPT=2026-12-01T10:00:00
end
expect_eq "early: status" "$RC" 0
expect_eq "early: message" "$ERR" "ddpgen job: preemption during start-up: the training was not started; requeued (restart 1; preemptions are not counted)"
expect_lacks "early: no training" "srun training" "$LOG"
finish
