{{! start.sh: what the run starts with: where it came from (a restart runs
    the same file again), the time limit's timer, counted from here as a
    scheduler counts it from a job's start, and signals noted until their
    traps are set }}

ddpgen_timer='' ddpgen_alarms=0 ddpgen_envfile=''
trap 'ddpgen_alarms=$((ddpgen_alarms + 1))' ALRM
{{?requeue}}
# This shell's file, directory and arguments: a restart runs them again.
ddpgen_self='' ddpgen_dir=$PWD ddpgen_args=("$@")
if [ -f "$0" ] && [ -r "$0" ]; then
	ddpgen_self=$0
fi
# A checkpoint asked for by hand before the life cycle's trap is set:
# noted (ddpgen(1), LONG TRAININGS).
ddpgen_early=''
trap 'ddpgen_early=1' USR1 USR2
# The environment this run started with, which a restart starts with
# again, as a requeued job's does: in a file of this user's alone, made
# by the first run (DDPGEN_LOCAL_CONTINUED is this shell's process id
# in a restart) and removed by the last.
if [ "${DDPGEN_LOCAL_CONTINUED:-}" = "$$" ] && [ -f "${DDPGEN_LOCAL_ENV:-}" ] &&
    [ -O "$DDPGEN_LOCAL_ENV" ]; then
	ddpgen_envfile=$DDPGEN_LOCAL_ENV
else
	unset DDPGEN_LOCAL_CONTINUED
	ddpgen_envfile=$(umask 077 && mktemp "${TMPDIR:-/tmp}/ddpgen-env.XXXXXX")
	env -0 >"$ddpgen_envfile"
fi
unset DDPGEN_LOCAL_ENV
{{/requeue}}
# shellcheck disable=SC2317 # run by the trap
ddpgen_cleanup() {
	[ -z "$ddpgen_timer" ] || kill "$ddpgen_timer" 2>/dev/null || true
	[ -z "$ddpgen_envfile" ] || rm -f "$ddpgen_envfile"
}
trap ddpgen_cleanup EXIT
{{?time}}

# The time limit, {{time}} s from now: a timer of this shell's sends it
# SIGALRM {{?requeue}}{{signal_lead}} s before it, for the warning, and {{/requeue}}at the limit, when the
# training is ended as a scheduler ends a job.
ddpgen_shell=$$
# shellcheck disable=SC2317 # run in the background
ddpgen_timer_run() {
	local d s=''
	trap 'kill "$s" 2>/dev/null; exit 0' TERM
	for d; do
		sleep "$d" &
		s=$!
		wait "$s" || exit 0
		kill -s ALRM "$ddpgen_shell" 2>/dev/null || exit 0
	done
}
{{?requeue}}
ddpgen_timer_run $(({{time}} - {{signal_lead}})) {{signal_lead}} \
    </dev/null >/dev/null 2>&1 &
{{/requeue}}
{{^requeue}}
ddpgen_timer_run {{time}} </dev/null >/dev/null 2>&1 &
{{/requeue}}
ddpgen_timer=$!
{{/time}}
