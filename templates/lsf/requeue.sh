{{! requeue.sh: LSF's life cycle: bsub -wa/-wt warns this shell, bkill -s
    signals the tasks, brequeue requeues the job }}
# Long trainings (ddpgen(1), LONG TRAININGS). LSF sends URG, which every
# other process ignores, {{lsf_warn_time}} min before the run limit
# (bsub -wa/-wt); the trap sends {{checkpoint_signal}} once to the job's
# tasks on every node (bkill -s), and once the training processes have
# checkpointed and exited with status 0 the job requeues itself
# (brequeue, which LSF lets a job's owner do). The counts cross requeues
# in the job's external status (bstatus), which only its owner and LSF's
# administrators can set.
export DDPGEN_CHECKPOINT_SIGNAL={{checkpoint_signal}}
ddpgen_id=${LSB_JOBID:-}
if [ "${LSB_JOBINDEX:-0}" != 0 ]; then
	ddpgen_id="${ddpgen_id}[${LSB_JOBINDEX}]"
fi
ddpgen_nproc={{nproc_per_node}}
ddpgen_max_requeues={{max_requeues}}
ddpgen_warned=''
# ddpgen restart=R limits=T last=WHY fails=F: R requeues this script
# made, T of them for the run limit, F reruns after a stall or a failed
# preflight, over the chain.
ddpgen_restart=0 ddpgen_limits=0 ddpgen_last=none ddpgen_fails=0
ddpgen_read_state() {
	local w words
	read -r -a words <<<"$(bstatus "$ddpgen_id" 2>/dev/null |
	    sed -n 's/.*\(ddpgen restart=\)/\1/p' | head -n 1)" || true
	[ "${words[0]:-}" = ddpgen ] || return 0
	for w in "${words[@]}"; do
		[[ $w =~ ^(restart|limits|fails)=(0|[1-9][0-9]{0,5})$ ]] ||
		    [[ $w =~ ^(last)=(time-limit|hang|preflight)$ ]] ||
		    continue
		printf -v "ddpgen_${BASH_REMATCH[1]}" %s "${BASH_REMATCH[2]}"
	done
}
ddpgen_read_state
[ "$ddpgen_restart" -gt 0 ] || ddpgen_last=none
export DDPGEN_RESTART_BASE=$ddpgen_restart DDPGEN_LAST_STOP=$ddpgen_last

# The warning: signal the tasks once (the launcher ignores the signal,
# and so does this shell; a second one could find a worker exiting,
# after Python restored the default action, and kill it).
# shellcheck disable=SC2317 # run by the trap
ddpgen_warning() {
	[ -z "$ddpgen_warned" ] || return 0
	ddpgen_warned=1
	bkill -s {{checkpoint_signal}} "$ddpgen_id" >/dev/null 2>&1 || true
}
# After the tasks: requeue the job.
ddpgen_carry_on() {
	local rc=$1 say limits=$ddpgen_limits
	local procs=$((ddpgen_nodes * ddpgen_nproc)) p=processes n=nodes
	[ "$procs" -ne 1 ] || p=process
	[ "$ddpgen_nodes" -ne 1 ] || n=node
	say="ddpgen job: run limit in {{lsf_warn_time}} min: checkpoint signal sent to"
	say+=" $procs $p on $ddpgen_nodes $n"
	if [ "$rc" -ne 0 ]; then
		echo "$say; the training exited with status $rc: not requeued" >&2
		return 0
	fi
	if [ "$limits" -ge "$ddpgen_max_requeues" ]; then
		echo "$say; not requeued: $limits time-limit requeues" \
		    "already (max_requeues = $ddpgen_max_requeues)" >&2
		exit 124
	fi
	limits=$((limits + 1))
	if ! bstatus -d "ddpgen restart=$((ddpgen_restart + 1)) limits=$limits last=time-limit fails=$ddpgen_fails" "$ddpgen_id" >/dev/null 2>&1; then
		echo "$say; not requeued: bstatus could not record the restart count" >&2
		exit 1
	fi
	# brequeue kills this shell as it requeues the job: say it first,
	# and ignore INT and TERM.
	echo "$say; requeued (restart $limits of at most $ddpgen_max_requeues)" >&2
	trap '' INT TERM
	brequeue "$ddpgen_id" >/dev/null 2>&1 || {
		echo "ddpgen job: brequeue $ddpgen_id failed: not requeued" >&2
		exit 1
	}
	exit 0
}
{{?leave_out}}
{{>leave_out}}
# ddpgen_resubmit FAILS EXCLUDE: the rerun is a continuation, a job of its
# own, since a requeued job keeps its resource requirement: this script
# as bsub reads it (bsub < FILE), started once this job has ended (-w),
# without the nodes in EXCLUDE (-R "select[hname!='A' && hname!='B']",
# IBM Spectrum LSF 10.1, "Selection string"; a name in single quotes, as
# bsub's -R page asks of a hyphen), which also cross in
# DDPGEN_EXCLUDE (bsub passes the submitting environment on). The counts
# go into its external status (bstatus -d), as a requeue's do; it makes
# its own secret. Prints its job id.
ddpgen_resubmit() {
	local fails=$1 excl=$2 out id sel=() and="' && hname!='"
	# Quoted: bash 5.2 reads an unquoted & of the replacement as the match.
	[ -z "$excl" ] || sel=(-R "select[hname!='${excl//,/"$and"}']")
	out=$(unset DDPRANK_SECRET MASTER_ADDR
	    DDPGEN_EXCLUDE=$excl exec bsub -w "ended($ddpgen_id)" "${sel[@]}" <"$0") ||
	    return 1
	[[ $out =~ \<([0-9]+)\> ]] || return 1
	id=${BASH_REMATCH[1]}
	bstatus -d "ddpgen restart=$((ddpgen_restart + 1)) limits=$ddpgen_limits last=$ddpgen_kind fails=$fails" "$id" >/dev/null 2>&1 ||
	    return 1
	echo "$id"
}
{{/leave_out}}
trap ddpgen_warning URG
trap : {{checkpoint_signal}}
