{{! requeue.sh: Slurm's life cycle: sbatch --signal warns this shell, which
    passes the signal to the step, and requeues the job (scontrol requeue)
    or submits its continuation }}
# Long trainings (ddpgen(1), LONG TRAININGS). Slurm signals this shell
# {{signal_lead}} s before the time limit, and on preemption where the
# site sends the signal; the trap passes it on to every training
# process, and once they have checkpointed and exited with status 0 the
# job requeues itself, or submits its continuation where requeue is
# refused. The counts cross requeues in the job's comment, which only
# its owner and Slurm's administrators can set.
export DDPGEN_CHECKPOINT_SIGNAL={{checkpoint_signal}}
# The Slurm commands this shell runs for itself also take options from
# the environment, which the user's shell, the site or a setup line may
# set: SQUEUE_PARTITION or SQUEUE_STATES hide this job from squeue,
# SCANCEL_BATCH or SCANCEL_INTERACTIVE change what scancel does,
# SLURM_TIME_FORMAT how scontrol prints PreemptTime, SLURM_CLUSTERS
# which cluster they ask. They run without them; the training keeps
# them (shell functions do not cross srun).
ddpgen_own() {
	(unset "${!SQUEUE_@}" "${!SCANCEL_@}" "${!SCONTROL_@}" "${!SINFO_@}" \
	    SLURM_CLUSTERS SLURM_TIME_FORMAT
	exec "$@")
}
# shellcheck disable=SC2317 # called by name
squeue() { ddpgen_own squeue "$@"; }
# shellcheck disable=SC2317
scancel() { ddpgen_own scancel "$@"; }
# shellcheck disable=SC2317
scontrol() { ddpgen_own scontrol "$@"; }
{{?leave_out}}
# shellcheck disable=SC2317
sinfo() { ddpgen_own sinfo "$@"; }
{{/leave_out}}
ddpgen_id=${SLURM_JOB_ID:-}
if [ -n "${SLURM_ARRAY_JOB_ID:-}" ] && [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
	ddpgen_id=${SLURM_ARRAY_JOB_ID}_$SLURM_ARRAY_TASK_ID
fi
ddpgen_nodes=${SLURM_JOB_NUM_NODES:-{{nodes}}}
ddpgen_nproc={{nproc_per_node}}
ddpgen_max_requeues={{max_requeues}}
{{?leave_out}}
ddpgen_max_failures={{max_failures}}
{{/leave_out}}
ddpgen_warned='' ddpgen_what='' ddpgen_srun='' ddpgen_tmp=''
ddpgen_why='' ddpgen_outside='' ddpgen_sent_at=''
# ddpgen restart=R limits=T base=B last=WHY fails=F: R is
# SLURM_RESTART_COUNT after the last requeue this script made, T the
# time-limit requeues, B the restarts before this job's continuation and
# F the reruns after a stall or a failed preflight, over the whole chain.
ddpgen_restart=0 ddpgen_limits=0 ddpgen_base=0 ddpgen_last=none
ddpgen_fails=0
ddpgen_read_state() {
	local w words
	read -r -a words <<<"$(squeue -h -j "$ddpgen_id" -o %k 2>/dev/null)" ||
	    true
	[ "${words[0]:-}" = ddpgen ] || return 0
	for w in "${words[@]}"; do
		[[ $w =~ ^(restart|limits|base|fails)=(0|[1-9][0-9]{0,5})$ ]] ||
		    [[ $w =~ ^(last)=(time-limit|preemption|by-hand|hang|preflight)$ ]] ||
		    continue
		printf -v "ddpgen_${BASH_REMATCH[1]}" %s "${BASH_REMATCH[2]}"
	done
}
ddpgen_count=${SLURM_RESTART_COUNT:-0}
[[ $ddpgen_count =~ ^(0|[1-9][0-9]{0,5})$ ]] || ddpgen_count=0
# A first run has no state: it does not ask slurmctld.
if [ "$ddpgen_count" -gt 0 ] || [ -n "${DDPGEN_CONTINUED:-}" ]; then
	ddpgen_read_state
fi
# A requeue this script did not make: a node failure, an administrator.
if [ "$ddpgen_count" -gt 0 ] && [ "$ddpgen_count" -ne "$ddpgen_restart" ]; then
	ddpgen_last=requeued
fi
export DDPGEN_RESTART_BASE=$ddpgen_base DDPGEN_LAST_STOP=$ddpgen_last

# The trap: signal every process of the training step once (ddprank
# starts the launcher with the signal ignored, so only the workers, which
# install a handler, act on it; a second one could find a worker exiting,
# after Python restored the default action, and kill it). USR1 and USR2
# both count, whichever sbatch --signal=B: names. Before the training
# step exists there is nothing to signal: the training is not started.
# shellcheck disable=SC2317 # run by the trap
ddpgen_warning() {
	[ -z "$ddpgen_warned" ] || return 0
	ddpgen_warned=1
	printf -v ddpgen_sent_at '%(%H:%M:%S)T' -1
	trap ddpgen_ended TERM
	ddpgen_what_warning
	# Last: the sentinel's SIGURG comes back at once, and a trap that
	# interrupts a command substitution in bash 5.2 can lose its status.
	# Sent to the step from outside as well (scancel --full): once.
	if [ -n "$ddpgen_srun" ] && [ -z "$ddpgen_outside" ]; then
		scancel --signal={{checkpoint_signal}} "$ddpgen_id" 2>/dev/null || true
	fi
	ddpgen_outside=''
}
# Sets ddpgen_what and ddpgen_why: a preemption, the time limit, or a
# checkpoint asked for by hand: Slurm warns at most 60 s early, so a
# signal with more time left, or with no time limit, came from
# scancel -b --signal.
# shellcheck disable=SC2317
ddpgen_what_warning() {
	local info left s
	info=$(scontrol -o show job "$ddpgen_id" 2>/dev/null) || info=
	if [[ $info =~ PreemptTime=[0-9] ]]; then
		ddpgen_what=preemption ddpgen_why=preemption
		return 0
	fi
	left=$(squeue -h -j "$ddpgen_id" -o %L 2>/dev/null) || left=
	s=$(ddpgen_seconds "$left") || s="?"
	# squeue gives a job without a limit a year or so.
	[[ ! $info =~ TimeLimit=UNLIMITED ]] || s="?"
	if [ "$s" = "?" ] || [ "$s" -gt $(({{signal_lead}} + 60)) ]; then
		ddpgen_why=by-hand
		ddpgen_what="checkpoint asked for by hand (no time limit)"
		[ "$s" = "?" ] ||
		    ddpgen_what="checkpoint asked for by hand (time limit in $s s)"
		return 0
	fi
	ddpgen_what="time limit in $s s" ddpgen_why=time-limit
}
# The sentinel of the training step (below) saw the checkpoint signal:
# this shell's own, or one sent to the step from outside (scancel
# without -b, sbatch --signal without B:), which this shell did not ask
# for and does not carry on from.
# shellcheck disable=SC2317
ddpgen_step_signalled() {
	[ -z "$ddpgen_warned" ] || return 0
	[ -z "$ddpgen_outside" ] || return 0
	ddpgen_outside=1
	printf -v ddpgen_sent_at '%(%H:%M:%S)T' -1
	trap ddpgen_ended TERM
}
# Slurm ends the job (the time limit, the end of a preemption's grace
# time, scancel) while the training still runs after the signal.
# shellcheck disable=SC2317
ddpgen_ended() {
	local at
	printf -v at '%(%H:%M:%S)T' -1
	echo "$(ddpgen_say) at $ddpgen_sent_at; the training had not stopped when the job was ended at $at (SIGTERM)" >&2
	[ -z "$ddpgen_tmp" ] || rm -rf "$ddpgen_tmp"
	exit 143
}
# The first words of every message after a warning.
# shellcheck disable=SC2317
ddpgen_say() {
	local procs=$((ddpgen_nodes * ddpgen_nproc)) p=processes n=nodes
	[ "$procs" -ne 1 ] || p=process
	[ "$ddpgen_nodes" -ne 1 ] || n=node
	if [ -n "$ddpgen_outside" ]; then
		echo "ddpgen job: the training got the checkpoint signal from outside this shell (scancel without -b, or sbatch --signal without B:)"
	elif [ -z "$ddpgen_srun" ]; then
		echo "ddpgen job: ${ddpgen_what:-warning} during start-up: the training was not started"
	else
		echo "ddpgen job: ${ddpgen_what:-warning}: checkpoint signal sent to $procs $p on $ddpgen_nodes $n"
	fi
}
# Slurm's [D-]H:M:S, M:S or S as seconds; "?" for anything else.
# shellcheck disable=SC2317
ddpgen_seconds() {
	local d=0 h=0 m=0 s=0 t=$1
	case $t in *-*) d=${t%%-*} t=${t#*-} ;; esac
	IFS=: read -r h m s <<<"$t"
	if [ -z "$s" ]; then s=$m m=$h h=0; fi
	if [ -z "$s" ]; then s=$m m=0; fi
	if [[ "$d$h$m$s" =~ ^[0-9]+$ ]]; then
		echo $(( ((10#$d * 24 + 10#$h) * 60 + 10#$m) * 60 + 10#$s ))
	else
		echo "?"
	fi
}
# After the step: requeue the job, or submit its continuation.
ddpgen_carry_on() {
	local rc=$1 say restart limits=$ddpgen_limits why=$ddpgen_why
	trap '' TERM
	say=$(ddpgen_say)
	if [ "$rc" -ne 0 ]; then
		echo "$say; the training exited with status $rc: not requeued" >&2
		return 0
	fi
	if [ -n "$ddpgen_outside" ]; then
		echo "$say; it stopped with status 0: not requeued (scancel -b --signal={{checkpoint_signal}} $ddpgen_id asks for a checkpoint and a requeue)" >&2
		exit 124
	fi
	if [ "$why" = by-hand ]; then
		restart="restart $((ddpgen_base + ddpgen_count + 1)); checkpoints asked for by hand are not counted"
	elif [ "$why" = time-limit ]; then
		if [ "$limits" -ge "$ddpgen_max_requeues" ]; then
			echo "$say; not requeued: $limits time-limit requeues" \
			    "already (max_requeues = $ddpgen_max_requeues)" >&2
			exit 124
		fi
		limits=$((limits + 1))
		restart="restart $limits of at most $ddpgen_max_requeues"
	else
		restart="restart $((ddpgen_base + ddpgen_count + 1)); preemptions are not counted"
	fi
	scontrol update jobid="$ddpgen_id" Comment="ddpgen restart=$((ddpgen_count + 1)) limits=$limits base=$ddpgen_base last=$why fails=$ddpgen_fails" 2>/dev/null || true
	# Requeueing ends this shell: say it first, and ignore the TERM.
	if scontrol requeue "$ddpgen_id" 2>/dev/null; then
		echo "$say; requeued ($restart)" >&2
		exit 0
	fi
	ddpgen_continue "$say" "$restart" "$limits" "$why" "$ddpgen_fails"
}
# ddpgen_continue SAY RESTART LIMITS WHY FAILS [EXCLUDE]: submits the
# continuation where requeue is refused, and exits.
ddpgen_continue() {
	local say=$1 restart=$2 limits=$3 why=$4 fails=$5 excl=${6:-} cont
	# The continuation, a job of its own, gets this job's environment
	# without its SLURM_* variables but SLURM_CONF and the array task's
	# (for the training): Slurm sets its own, and one left over (the
	# SLURM_CPUS_PER_TASK of a submit-time -c) would mislead its srun.
	# It makes its own master address and secret. Its options beat any
	# SBATCH_* variable here (SBATCH_EXPORT=NONE would lose
	# DDPGEN_CONTINUED and with it the counts, SBATCH_OPEN_MODE=truncate
	# the output); SBATCH_ARRAY_INX or SBATCH_WAIT would make it an
	# array, or wait for it here.
	if cont=$(ddpgen_job=$SLURM_JOB_ID
	    for v in "${!SLURM_@}"; do
		case $v in
		SLURM_CONF|SLURM_ARRAY_TASK_*) ;;
		*) unset "$v" ;;
		esac
	    done
	    unset DDPRANK_SECRET MASTER_ADDR SBATCH_ARRAY_INX SBATCH_WAIT
	    ddpgen_out=$(scontrol show job "$ddpgen_id" | sed -n 's/^ *StdOut=//p')
	    sbatch --parsable --export=ALL,DDPGEN_CONTINUED=1 \
	    --dependency="afterany:$ddpgen_job" --open-mode=append \
	    --output="$ddpgen_out" ${excl:+"--exclude=$excl"} \
	    --comment="ddpgen restart=0 limits=$limits base=$((ddpgen_base + ddpgen_count + 1)) last=$why fails=$fails" \
	    "$0"); then
		echo "$say; requeue refused: continuation job $cont submitted ($restart)" >&2
		exit 0
	fi
	echo "$say; requeue refused and the continuation not submitted" >&2
	exit 1
}
{{?leave_out}}
# After a step that failed: a stall, or a preflight that failed, which
# ddprank verdict judged (ddpgen_verdict), reruns the job without the
# nodes it blames, from the last checkpoint, at most max_failures times
# over the chain. Slurm lets a pending job's ExcNodeList be set, not a
# running one's: the job is requeued first, then given the list while
# this shell, ignoring the TERM the requeue sends, still runs. Anything
# else ends the job with the step's status.
ddpgen_leave_out() {
	local rc=$1 fails=$ddpgen_fails excl say restart tries=10
	[ "$rc" -ne 0 ] || return 0
	case $ddpgen_kind in
	hang) say="ddpgen job: the training stalled" ;;
	preflight) say="ddpgen job: the preflight failed" ;;
	*) return 0 ;;
	esac
	trap '' TERM
	if [ "$fails" -ge "$ddpgen_max_failures" ]; then
		echo "$say; not rerun: $fails failures already (max_failures = $ddpgen_max_failures)" >&2
		exit 125
	fi
	fails=$((fails + 1))
	restart="failure $fails of at most $ddpgen_max_failures"
	excl=$(ddpgen_exclusion)
	if [ -n "$ddpgen_bad" ]; then
		say="$say on $ddpgen_bad"
	else
		restart="$restart; no node to leave out"
	fi
	# A job its partitions cannot hold without the nodes would wait
	# for ever: it ends with the step's status instead.
	if ! ddpgen_room "$excl"; then
		echo "$say; not rerun: its partition has $ddpgen_left of the $ddpgen_nodes nodes it needs outside $excl" >&2
		return 0
	fi
	scontrol update jobid="$ddpgen_id" Comment="ddpgen restart=$((ddpgen_count + 1)) limits=$ddpgen_limits base=$ddpgen_base last=$ddpgen_kind fails=$fails" 2>/dev/null || true
	if scontrol requeue "$ddpgen_id" 2>/dev/null; then
		while [ -n "$excl" ] && [ "$tries" -gt 0 ]; do
			scontrol update jobid="$ddpgen_id" ExcNodeList="$excl" 2>/dev/null && break
			tries=$((tries - 1))
			sleep 0.5
		done
		if [ -n "$ddpgen_bad" ]; then
			echo "$say; requeued without $ddpgen_bad ($restart)" >&2
		else
			echo "$say; requeued ($restart)" >&2
		fi
		exit 0
	fi
	ddpgen_continue "$say" "$restart" "$ddpgen_limits" "$ddpgen_kind" "$fails" "$excl"
}
# ddpgen_room EXCLUDE: whether the job's partitions have ddpgen_nodes
# nodes that can run it (idle, allocated, mixed or completing) outside
# EXCLUDE, their count in ddpgen_left; yes when Slurm does not say.
ddpgen_left=''
ddpgen_room() {
	local part nodes n=0
	[ -n "$1" ] || return 0
	part=$(scontrol -o show job "$ddpgen_id" 2>/dev/null | tr ' ' '\n' |
	    sed -n 's/^Partition=//p') || part=''
	[ -n "$part" ] || return 0
	nodes=$(sinfo -h -N -p "$part" -t idle,alloc,mix,comp -o %N 2>/dev/null) ||
	    return 0
	if [ -n "$nodes" ]; then
		n=$(sort -u <<<"$nodes" |
		    grep -cvxF -f <(scontrol show hostnames "$1" 2>/dev/null)) ||
		    true
	fi
	ddpgen_left=${n:-0}
	[ "$ddpgen_left" -ge "$ddpgen_nodes" ]
}
# The nodes the job leaves out: those it already did (ExcNodeList) and
# those ddprank verdict blamed, as one comma-separated list.
ddpgen_exclusion() {
	local old
	old=$(scontrol -o show job "$ddpgen_id" 2>/dev/null | tr ' ' '\n' |
	    sed -n 's/^ExcNodeList=//p') || old=''
	[ "$old" != "(null)" ] || old=''
	old=${old:+$old,}$ddpgen_bad
	echo "${old%,}"
}
{{/leave_out}}
# ddpgen_step COMMAND...: the training step, run in the background,
# writes srun's status in the status directory: a trap that runs while
# the step ends can make bash 5.2 lose it (wait gives -1).
ddpgen_step() {
	local rc=0
	trap : USR1 USR2 URG
	"$@" || rc=$?
	[ -z "$ddpgen_tmp" ] || { echo "$rc" >"$ddpgen_tmp/srun"; } 2>/dev/null ||
	    true
	return "$rc"
}
# Takes srun's status from the status directory and removes it; after a
# warning, a training that crashed on this host with a status of its own
# (1 to 127) ends the job with it rather than with the signal srun
# reports for the tasks it ended.
ddpgen_own_status() {
	local s='' r=''
	if [ -n "$ddpgen_tmp" ]; then
		{ read -r r <"$ddpgen_tmp/srun"; } 2>/dev/null || r=''
		{ read -r s <"$ddpgen_tmp/status"; } 2>/dev/null || s=''
		rm -rf "$ddpgen_tmp"
	fi
	if [[ $r =~ ^(0|[1-9][0-9]{0,2})$ ]] && [ "$r" -le 255 ]; then
		ddpgen_rc=$r
	fi
	if [ -n "$ddpgen_warned$ddpgen_outside" ] &&
	    [ "$ddpgen_rc" -gt 128 ] && [[ $s =~ ^[1-9][0-9]{0,2}$ ]] &&
	    [ "$s" -lt 128 ]; then
		ddpgen_rc=$s
	fi
}
# ddpgen_wait PID: waits for a step, its status in ddpgen_rc. The shell
# runs a trap only while it waits, and a trap that interrupts a wait
# for a step that is ending can lose the step's status (bash 5.2's
# "wait_for: No record of process"): it waits for a sleep instead.
ddpgen_wait() {
	while kill -0 "$1" 2>/dev/null; do
		sleep 1 &
		wait "$!" || true
	done
	ddpgen_rc=0
	wait "$1" || ddpgen_rc=$?
}
# The training step's sentinel tells this shell when the step gets the
# checkpoint signal: on this node, the first task's wrapper stays, the
# launcher's parent, with the sentinel as its other child (a child of
# the launcher would be taken for a worker by ddprank's watcher, an
# orphan escapes proctrack/linuxproc). Its traps run once the launcher
# has ended, and reset in the launcher.
export DDPGEN_SHELL_PID=$$ DDPGEN_SHELL_NODE=${SLURMD_NODENAME:-}
trap ddpgen_warning USR1 USR2
trap ddpgen_step_signalled URG
[ -z "$ddpgen_early" ] || ddpgen_warning
