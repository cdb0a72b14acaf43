{{! requeue.sh: Flux's life cycle: flux batch --signal warns the job's
    processes, and a continuation job in the enclosing instance }}
# Long trainings (ddpgen(1), LONG TRAININGS). {{signal_lead}} s before the
# time limit, Flux sends the checkpoint signal to this shell and to every
# process of the job's runs, the training's workers included; once they
# have checkpointed and exited with status 0, the job submits its
# continuation, which starts when this job has ended (Flux cannot requeue
# a batch job). The counts cross to the continuation in the environment
# of its jobspec, which only its owner submits.
export DDPGEN_CHECKPOINT_SIGNAL={{checkpoint_signal}}
ddpgen_nproc={{nproc_per_node}}
ddpgen_max_requeues={{max_requeues}}
ddpgen_warned=''
# DDPGEN_RESTART_BASE: the continuations before this one; DDPGEN_LIMITS:
# those for the time limit; DDPGEN_FAILS: those after a stall or a
# failed preflight; DDPGEN_LAST: why the last one, when not the time
# limit. Only a continuation reads them.
ddpgen_base=0 ddpgen_limits=0 ddpgen_last=none ddpgen_fails=0
if [ -n "${DDPGEN_CONTINUED:-}" ]; then
	[[ ${DDPGEN_RESTART_BASE:-} =~ ^(0|[1-9][0-9]{0,5})$ ]] &&
	    ddpgen_base=$DDPGEN_RESTART_BASE
	[[ ${DDPGEN_LIMITS:-} =~ ^(0|[1-9][0-9]{0,5})$ ]] &&
	    ddpgen_limits=$DDPGEN_LIMITS
	[[ ${DDPGEN_FAILS:-} =~ ^(0|[1-9][0-9]{0,5})$ ]] &&
	    ddpgen_fails=$DDPGEN_FAILS
	ddpgen_last=time-limit
	[[ ${DDPGEN_LAST:-} =~ ^(hang|preflight)$ ]] && ddpgen_last=$DDPGEN_LAST
fi
export DDPGEN_RESTART_BASE=$ddpgen_base DDPGEN_LAST_STOP=$ddpgen_last
unset DDPGEN_CONTINUED DDPGEN_LIMITS DDPGEN_FAILS DDPGEN_LAST

# The trap only notes the warning: Flux has sent the signal to the
# workers already (ddprank starts the launcher with it ignored, so the
# workers, which install a handler, act on it, once). It may run once
# flux run has returned: the shell has nothing to do before.
# shellcheck disable=SC2317 # run by the trap
ddpgen_warning() {
	ddpgen_warned=1
}
# After the run: submit the continuation to the enclosing instance.
ddpgen_carry_on() {
	local rc=$1 say limits=$ddpgen_limits cont
	local procs=$((ddpgen_nodes * ddpgen_nproc)) p=processes n=nodes
	[ "$procs" -ne 1 ] || p=process
	[ "$ddpgen_nodes" -ne 1 ] || n=node
	say="ddpgen job: time limit: checkpoint signal sent to $procs $p on"
	say+=" $ddpgen_nodes $n"
	if [ "$rc" -ne 0 ]; then
		echo "$say; the training exited with status $rc: not continued" >&2
		return 0
	fi
	if [ "$limits" -ge "$ddpgen_max_requeues" ]; then
		echo "$say; not continued: $limits time-limit continuations" \
		    "already (max_requeues = $ddpgen_max_requeues)" >&2
		exit 124
	fi
	limits=$((limits + 1))
	if cont=$(ddpgen_submit "$limits" "$ddpgen_fails" time-limit \
	    "${ddpgen_exclude:-}"); then
		echo "$say; continuation job $cont submitted (restart $limits of at most $ddpgen_max_requeues)" >&2
		exit 0
	fi
	echo "$say; the continuation was not submitted" >&2
	exit 1
}
# ddpgen_submit LIMITS FAILS LAST EXCLUDE: the continuation, which makes
# its own secret, with the counts in its environment and without the
# nodes in EXCLUDE (--requires=-host:A,B, RFC 31's negated host
# operator, flux-submit(1) CONSTRAINTS; and DDPGEN_EXCLUDE for its own
# reruns). Prints its job id.
ddpgen_submit() {
	local req=()
	[ -z "$4" ] || req=(--requires="-host:$4")
	(unset DDPRANK_SECRET MASTER_ADDR
	export DDPGEN_CONTINUED=1 DDPGEN_LIMITS=$1 DDPGEN_FAILS=$2
	export DDPGEN_RESTART_BASE=$((ddpgen_base + 1))
	[ "$3" = time-limit ] || export DDPGEN_LAST=$3
	exec env ${4:+"DDPGEN_EXCLUDE=$4"} flux --parent batch --dependency="afterany:${FLUX_ENCLOSING_ID:?}" \
	    "${req[@]}" "$0")
}
{{?leave_out}}
{{>leave_out}}
# ddpgen_resubmit FAILS EXCLUDE: the rerun, a continuation (Flux cannot
# requeue a batch job).
ddpgen_resubmit() {
	ddpgen_submit "$ddpgen_limits" "$1" "$ddpgen_kind" "$2"
}
{{/leave_out}}
trap ddpgen_warning {{checkpoint_signal}}
