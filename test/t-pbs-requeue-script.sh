#!/bin/sh
# t-pbs-requeue-script.sh: what a generated PBS script does after a
# stall or a failed preflight (ddpgen(1), HANGS AND BAD NODES), run by
# bash with stand-ins for mpiexec, qsub, qstat and ddprank that log what
# they are asked: the verdict read, the continuation (qsub, its
# arguments checked byte for byte) with a chunk more per node to leave
# out and the nodes in its variables, the job that gets them keeping its
# other hosts (the training's node file), the failures counted in its
# variables up to max_failures (exit 125), a failure that was no stall,
# hostile node names, and the bad nodes remembered in the next script.
# t-pbs-emulate.sh runs the same on namespace nodes; this one is fast
# and runs everywhere bash does.
. "$(dirname "$0")/lib.sh"
. "$srcdir/test/emu/lib.sh"

# The stand-ins of test/emu/pbs-stub in $stub.
emu_stubs pbs
need_built ddpgen

# The polaris profile without its modules and binding, which are not here.
printf '%s\n' 'extends = "polaris"' 'description = "polaris, stubbed"' \
    'setup = {}' 'bind = none' >"$T/emu.conf"
check "ddpgen" "$DDPGEN" --site "$T/emu.conf" -N 2 -n 1 --hang-timeout 30 \
    --ddprank "$stub/ddprank" train.py >"$T/job.sh"
# The chunk of polaris's select statement, after its count.
chunk=:ngpus=4:system=polaris:mpiprocs=1

# run NAME SCRIPT HOSTS [VAR=VALUE...]: SCRIPT as MoM runs it, HOSTS its
# PBS_NODEFILE lines; sets RC, ERR (its standard error), LOG (what the
# stand-ins were asked) and ARGS (qsub's arguments, a line each).
run() {
	name=$1 script=$2
	d=$T/$name
	mkdir -p "$d"
	# shellcheck disable=SC2086 # the hosts, split
	printf '%s\n' $3 >"$d/nodefile"
	shift 3
	: >"$d/log"
	(
		cd "$d" || exit 1
		exec env -i PATH="$stub:/usr/bin:/bin" HOME="$d" \
		    STUB_LOG="$d/log" STUB_DIR="$d" PBS_JOBID=7.pbs \
		    PBS_NODEFILE="$d/nodefile" PBS_O_WORKDIR="$d" "$@" \
		    bash "$script"
	) >"$d/out" 2>"$d/err"
	RC=$?
	# The job is over: its timers (the checkpoint signal's, the
	# shell's and each node's) go with it, as MoM ends its processes.
	for e in /proc/[0-9]*/environ; do
		grep -qz "^STUB_DIR=$d\$" "$e" 2>/dev/null || continue
		p=${e#/proc/}
		kill "${p%/environ}" 2>/dev/null
	done
	ERR=$(cat "$d/err")
	LOG=$(cat "$d/log")
	ARGS=$(tr '\0' '\n' 2>/dev/null <"$d/qsub.args")
}

# --- the preflight fails on h2: a continuation without it -------------------
run pre "$T/job.sh" "h1 h2" STUB_DOCTOR_RC=8 STUB_VERDICT="preflight h2"
expect_eq "pre: status" "$RC" 0
expect_eq "pre: message" "$ERR" "ddprank: a summary line
ddpgen job: the preflight failed on h2; continuation job 99.pbs submitted without h2 (failure 1 of at most 3)"
expect_lacks "pre: no training" "exec on" "$LOG"
expect_eq "pre: qsub's arguments" "$ARGS" "-W
depend=afterany:7.pbs
-l
select=3$chunk
-v
DDPGEN_RESTART_BASE=1,DDPGEN_TIME_LIMITS=0,DDPGEN_LAST_STOP=preflight,DDPGEN_FAILS=1,DDPGEN_EXCLUDE='h2'
$T/job.sh"

# --- the continuation, given three hosts, keeps h1 and h3, and stalls on
# h1: the count and the exclusion grow ----------------------------------------
run hang "$T/job.sh" "h1 h1 h2 h2 h3 h3" STUB_TRAIN_RC_NOW=143 \
    STUB_VERDICT="hang h1" DDPGEN_RESTART_BASE=1 DDPGEN_TIME_LIMITS=0 \
    DDPGEN_LAST_STOP=preflight DDPGEN_FAILS=1 DDPGEN_EXCLUDE=h2
expect_eq "hang: status" "$RC" 0
expect_eq "hang: message" "$ERR" "ddprank: a summary line
ddpgen job: the training stalled on h1; continuation job 99.pbs submitted without h1 (failure 2 of at most 3)"
expect_has "hang: h1 trains, told the last stop, with h2 left out" \
    "exec on h1 base=1 last=preflight nodes=h1 h3 " "$LOG"
expect_has "hang: h3 trains" "exec on h3 base=1 last=preflight nodes=h1 h3 " \
    "$LOG"
expect_lacks "hang: h2 does not" "on h2" "$LOG"
expect_eq "hang: qsub's arguments" "$ARGS" "-W
depend=afterany:7.pbs
-l
select=4$chunk
-v
DDPGEN_RESTART_BASE=2,DDPGEN_TIME_LIMITS=0,DDPGEN_LAST_STOP=hang,DDPGEN_FAILS=2,DDPGEN_EXCLUDE='h2,h1'
$T/job.sh"
check "hang: the node file removed" test -z "$(ls -A "$T/hang" | grep ddpgen)"

# --- max_failures (3) reruns already: exit 125, nothing submitted ----------
run budget "$T/job.sh" "h1 h2" STUB_TRAIN_RC_NOW=143 STUB_VERDICT="hang h1" \
    DDPGEN_RESTART_BASE=3 DDPGEN_LAST_STOP=hang DDPGEN_FAILS=3
expect_eq "budget: status" "$RC" 125
expect_eq "budget: message" "$ERR" "ddprank: a summary line
ddpgen job: the training stalled; not rerun: 3 failures already (max_failures = 3)"
expect_lacks "budget: no qsub" "qsub" "$LOG"

# --- a failure that is no stall: its status, nothing submitted ------------
run other "$T/job.sh" "h1 h2" STUB_TRAIN_RC_NOW=3
expect_eq "other: status" "$RC" 3
expect_lacks "other: no qsub" "qsub" "$LOG"

# --- qsub refuses: the job fails, saying so --------------------------------
run nosub "$T/job.sh" "h1 h2" STUB_DOCTOR_RC=8 STUB_VERDICT="preflight h2" \
    STUB_QSUB_RC=1
expect_eq "nosub: status" "$RC" 1
expect_has "nosub: message" "ddpgen job: the preflight failed on h2; the continuation was not submitted" "$ERR"

# --- hostile names, from the verdict and the variables: one word each, and
# none that is no host name reaches the select statement or -v -------------
# shellcheck disable=SC2016 # literally
run hostile "$T/job.sh" "h1 h2" STUB_TRAIN_RC_NOW=143 \
    STUB_VERDICT='hang h1,$(touch pwned) x,a"b,h3:ncpus=99+1,`touch pwned2`' \
    'DDPGEN_EXCLUDE=h9;touch pwned3,$(touch pwned4)'
expect_eq "hostile: status" "$RC" 0
expect_eq "hostile: qsub's arguments" "$ARGS" "-W
depend=afterany:7.pbs
-l
select=3$chunk
-v
DDPGEN_RESTART_BASE=1,DDPGEN_TIME_LIMITS=0,DDPGEN_LAST_STOP=hang,DDPGEN_FAILS=1,DDPGEN_EXCLUDE='h1'
$T/job.sh"
expect_has "hostile: said" "ddpgen job: not left out: h3:ncpus=99+1 is not a host name" "$ERR"
check "hostile: nothing ran" test ! -e "$T/hostile/pwned" -a \
    ! -e "$T/hostile/pwned2" -a ! -e "$T/hostile/pwned3" -a \
    ! -e "$T/hostile/pwned4"

# --- the nodes remembered as bad: the next script asks for a chunk more and
# leaves them out ------------------------------------------------------------
mkdir -p "$XDG_STATE_HOME/ddpgen"
chmod 0700 "$XDG_STATE_HOME" "$XDG_STATE_HOME/ddpgen"
(umask 077 && printf 'emu h9 %s a stall\nemu bad+node %s a stall\n' \
    "$(($(date +%s) + 3600))" "$(($(date +%s) + 3600))" \
    >"$XDG_STATE_HOME/ddpgen/bad-nodes")
check "ddpgen, bad nodes remembered" "$DDPGEN" --site "$T/emu.conf" -N 2 -n 1 --hang-timeout 30 \
    --ddprank "$stub/ddprank" train.py >"$T/bad.sh" 2>"$T/bad.err"
expect_has "bad: the note" "leaving out 2 nodes remembered as bad" \
    "$(cat "$T/bad.err")"
expect_has "bad: the directive" "#PBS -l select=3$chunk" "$(cat "$T/bad.sh")"
run bad "$T/bad.sh" "h1 h9 h2" STUB_TRAIN_RC_NOW=143 STUB_VERDICT="hang h2"
expect_has "bad: h9 left out" "exec on h1 base=0 last=none nodes=h1 h2 " "$LOG"
expect_eq "bad: qsub's arguments" "$ARGS" "-W
depend=afterany:7.pbs
-l
select=4$chunk
-v
DDPGEN_RESTART_BASE=1,DDPGEN_TIME_LIMITS=0,DDPGEN_LAST_STOP=hang,DDPGEN_FAILS=1,DDPGEN_EXCLUDE='h9,h2'
$T/bad.sh"
finish
