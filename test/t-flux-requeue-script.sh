#!/bin/sh
# t-flux-requeue-script.sh: the long-training logic of a generated Flux
# script (ddpgen(1), LONG TRAININGS, Flux), run by bash with a flux
# stand-in that logs what it is asked: the warning Flux sends to the
# batch script's process group and to the training (here one "worker",
# a python process that installs its handler as the workers do), the
# continuation submitted to the enclosing instance with the state in its
# environment, max_requeues (exit 124), a training that fails after the
# warning, a hostile state, no warning at all. t-flux-emulate.sh runs the
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
finish
