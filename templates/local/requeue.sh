{{! requeue.sh: the life cycle rehearsed: this shell's timer warns before
    the time limit, a signal to this shell asks for a checkpoint by hand,
    and once the training has checkpointed and exited with status 0 the
    shell runs itself again, as a requeue would }}
# Long trainings (ddpgen(1), LONG TRAININGS), rehearsed on this machine
# as a scheduler runs them: the checkpoint signal reaches every training
# process {{signal_lead}} s before the time limit, or at once when this shell
# gets {{checkpoint_signal}} (kill -{{checkpoint_signal}} PID, the process id it prints); once
# the training has checkpointed and exited with status 0, this shell
# runs itself again from the start, as a requeue would: the environment
# it started with, the setup lines, a new secret, the same process id,
# DDPGEN_RESTART_COUNT one higher and DDPGEN_LAST_STOP saying why; at
# most max_requeues ({{max_requeues}}) times for the time limit.
export DDPGEN_CHECKPOINT_SIGNAL={{checkpoint_signal}}
ddpgen_max_requeues={{max_requeues}}
ddpgen_warned='' ddpgen_why='' ddpgen_what='' ddpgen_sent_at=''
ddpgen_count() {
	local v=${!1:-0}
	[[ $v =~ ^(0|[1-9][0-9]{0,5})$ ]] || v=0
	echo "$v"
}
# The counts of the runs before this one, which this shell gave itself.
ddpgen_restarts=0 ddpgen_limits=0
if [ -n "${DDPGEN_LOCAL_CONTINUED:-}" ]; then
	ddpgen_restarts=$(ddpgen_count DDPGEN_LOCAL_RESTARTS)
	ddpgen_limits=$(ddpgen_count DDPGEN_LOCAL_LIMITS)
	case ${DDPGEN_LAST_STOP:-} in
	time-limit|by-hand) ;;
	*) DDPGEN_LAST_STOP=requeued ;;
	esac
else
	DDPGEN_LAST_STOP=none
fi
[ "$ddpgen_restarts" -gt 0 ] || DDPGEN_LAST_STOP=none
unset DDPGEN_LOCAL_CONTINUED DDPGEN_LOCAL_LIMITS
export DDPGEN_LOCAL_RESTARTS=$ddpgen_restarts DDPGEN_LAST_STOP \
    DDPGEN_RESTART_BASE=0
if [ -n "$ddpgen_self" ]; then
	echo "ddpgen job: process $$ (kill -{{checkpoint_signal}} $$ asks the training for a checkpoint)" >&2
else
	echo "ddpgen job: not run from a file (bash FILE): a checkpoint ends the run, which cannot run itself again" >&2
fi

# The warning: the checkpoint signal, once, to every process of the
# training (ddprank starts the launcher with the signal ignored, so only
# the workers, which install a handler, act on it). Before the training
# has started there is nothing to signal: it is not started.
ddpgen_warning() {
	[ -z "$ddpgen_warned" ] || return 0
	ddpgen_warned=1 ddpgen_why=$1
	printf -v ddpgen_sent_at '%(%H:%M:%S)T' -1
	if [ "$1" = time-limit ]; then
		ddpgen_what="time limit in {{signal_lead}} s"
	else
		ddpgen_what="checkpoint asked for by hand"
	fi
	ddpgen_signal_nodes {{checkpoint_signal}}
}
trap 'ddpgen_warning by-hand' USR1 USR2
# The first words of every message after a warning.
ddpgen_say() {
	local procs=$((ddpgen_nodes * ddpgen_nproc)) p=processes n=nodes
	[ "$procs" -ne 1 ] || p=process
	[ "$ddpgen_nodes" -ne 1 ] || n=node
	if [ "${#ddpgen_groups[@]}" -eq 0 ]; then
		echo "ddpgen job: $ddpgen_what during start-up: the training was not started"
	else
		echo "ddpgen job: $ddpgen_what: checkpoint signal sent to $procs $p on $ddpgen_nodes $n at $ddpgen_sent_at"
	fi
}
# After the training: run again, as a requeue would, or end.
ddpgen_carry_on() {
	local rc=$1 say restart limits=$ddpgen_limits
	[ -n "$ddpgen_warned" ] || return 0
	say=$(ddpgen_say)
	if [ -n "$ddpgen_timed_out" ]; then
		echo "$say; the training had not stopped at the time limit: not restarted" >&2
		exit 124
	fi
	if [ "$rc" -ne 0 ]; then
		echo "$say; the training exited with status $rc: not restarted" >&2
		return 0
	fi
	if [ "$ddpgen_why" = time-limit ]; then
		if [ "$limits" -ge "$ddpgen_max_requeues" ]; then
			echo "$say; not restarted: $limits time-limit restarts" \
			    "already (max_requeues = $ddpgen_max_requeues)" >&2
			exit 124
		fi
		limits=$((limits + 1))
		restart="restart $limits of at most $ddpgen_max_requeues"
	else
		restart="restart $((ddpgen_restarts + 1)); checkpoints asked for by hand are not counted"
	fi
	if [ -z "$ddpgen_self" ]; then
		echo "$say; not restarted: this script was not run from a file (bash FILE)" >&2
		exit 1
	fi
	echo "$say; restarted as a requeue would be ($restart)" >&2
	ddpgen_again "$limits"
}
# This shell again, the same process, with the environment it started
# with and the counts.
ddpgen_again() {
	local e=()
	[ -z "$ddpgen_timer" ] || kill "$ddpgen_timer" 2>/dev/null || true
	trap - EXIT
	mapfile -d '' -t e <"$ddpgen_envfile"
	cd "$ddpgen_dir"
	exec env -i -- "${e[@]}" DDPGEN_LOCAL_CONTINUED=$$ \
	    DDPGEN_LOCAL_ENV="$ddpgen_envfile" \
	    DDPGEN_LOCAL_RESTARTS=$((ddpgen_restarts + 1)) \
	    DDPGEN_LOCAL_LIMITS="$1" DDPGEN_LAST_STOP="$ddpgen_why" \
	    "$BASH" -- "$ddpgen_self" "${ddpgen_args[@]}"
}
[ -z "$ddpgen_early" ] || ddpgen_warning by-hand
