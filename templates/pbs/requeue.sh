{{! requeue.sh: PBS's life cycle: a timer of the shell's and every node's
    before the walltime, and a continuation job (qsub -W depend=afterany) }}
# Long trainings (ddpgen(1), LONG TRAININGS). PBS sends no signal before
# the walltime: this shell and every node arm their own timer for
# {{signal_lead}} s before it, counted from now, when the job has
# started. On each node the timer sends the checkpoint signal to the
# launcher's children, the training processes; once they have
# checkpointed and exited with status 0, this shell submits the job's
# continuation (qsub -W depend=afterany). The counts cross to it in its
# own variables (qsub -v), which only its owner can set.
export DDPGEN_CHECKPOINT_SIGNAL={{checkpoint_signal}}
ddpgen_max_requeues={{max_requeues}}
ddpgen_lead={{signal_lead}}
ddpgen_warned=''
ddpgen_count() {
	local v=${!1:-0}
	[[ $v =~ ^(0|[1-9][0-9]{0,5})$ ]] || v=0
	echo "$v"
}
ddpgen_base=$(ddpgen_count DDPGEN_RESTART_BASE)
ddpgen_limits=$(ddpgen_count DDPGEN_TIME_LIMITS)
ddpgen_fails=$(ddpgen_count DDPGEN_FAILS)
case ${DDPGEN_LAST_STOP:-} in
time-limit|hang|preflight) ;;
*) DDPGEN_LAST_STOP=none ;;
esac
[ "$ddpgen_base" -gt 0 ] || DDPGEN_LAST_STOP=none
export DDPGEN_RESTART_BASE=$ddpgen_base DDPGEN_LAST_STOP
unset DDPGEN_FAILS

# PBS's [[H:]M:]S as seconds; "" for anything else.
ddpgen_seconds() {
	local h=0 m=0 s t=${1%%.*}
	IFS=: read -r h m s <<<"$t"
	if [ -z "$s" ]; then s=$m m=$h h=0; fi
	if [ -z "$s" ]; then s=$m m=0; fi
	[[ "$h$m$s" =~ ^[0-9]+$ ]] || return 0
	echo $(( (10#$h * 60 + 10#$m) * 60 + 10#$s ))
}
# The walltime the job got (qsub -l walltime= beats this script's).
ddpgen_wall=$(qstat -f "$PBS_JOBID" 2>/dev/null |
    sed -n 's/^ *Resource_List\.walltime = //p') || ddpgen_wall=
[ -n "$ddpgen_wall" ] || ddpgen_wall={{time}}
ddpgen_wall=$(ddpgen_seconds "$ddpgen_wall")
if [ -n "$ddpgen_wall" ] && [ "$ddpgen_wall" -gt "$ddpgen_lead" ]; then
	DDPGEN_WARN_AT=$(( $(date +%s) + ddpgen_wall - ddpgen_lead ))
	export DDPGEN_WARN_AT
	trap 'ddpgen_warned=1' {{checkpoint_signal}}
	(sleep $((ddpgen_wall - ddpgen_lead)) && kill -s {{checkpoint_signal}} $$) \
	    </dev/null >/dev/null 2>&1 &
else
	echo "ddpgen job: walltime '${ddpgen_wall:-unknown}' s is not longer than signal_lead ($ddpgen_lead s): no checkpoint signal, no continuation" >&2
fi
# After the training: submit the continuation.
ddpgen_carry_on() {
	local rc=$1 cont say
	local n=nodes
	[ "$ddpgen_nodes" -ne 1 ] || n=node
	say="ddpgen job: time limit in $ddpgen_lead s: checkpoint signal sent to the training on $ddpgen_nodes $n"
	if [ "$rc" -ne 0 ]; then
		echo "$say; the training exited with status $rc: not continued" >&2
		return 0
	fi
	if [ "$ddpgen_limits" -ge "$ddpgen_max_requeues" ]; then
		echo "$say; not continued: $ddpgen_limits time-limit continuations already (max_requeues = $ddpgen_max_requeues)" >&2
		exit 124
	fi
	if cont=$(ddpgen_submit $((ddpgen_limits + 1)) "$ddpgen_fails" \
	    time-limit "${ddpgen_exclude:-}" "${ddpgen_nexclude:-0}"); then
		echo "$say; continuation job $cont submitted (restart $((ddpgen_limits + 1)) of at most $ddpgen_max_requeues)" >&2
		exit 0
	fi
	echo "$say; the continuation was not submitted" >&2
	exit 1
}
# ddpgen_submit LIMITS FAILS LAST EXCLUDE N: the continuation, with the
# counts in its variables (qsub -v; FAILS and EXCLUDE, the N nodes to
# leave out, once there are any) and, to leave them out, a chunk more
# for each (qsub -l select beats the script's). A value of -v with a
# comma goes between quotes (qsub(1B), -v). Prints its job id.
ddpgen_submit() {
	local vars="DDPGEN_RESTART_BASE=$((ddpgen_base + 1)),DDPGEN_TIME_LIMITS=$1,DDPGEN_LAST_STOP=$3"
	local sel=()
	[ "$2" -eq 0 ] || vars+=",DDPGEN_FAILS=$2"
	if [ -n "$4" ]; then
		vars+=",DDPGEN_EXCLUDE='$4'"
		sel=(-l "select=$(({{nodes}} + $5))$ddpgen_chunk")
	fi
	# qsub reads the script's directives with the prefix PBS_DPREFIX
	# names, which this job's environment may hold: the continuation's
	# are #PBS lines.
	(unset PBS_DPREFIX
	exec qsub -W depend=afterany:"$PBS_JOBID" "${sel[@]}" -v "$vars" "$0")
}
# A chunk of the job's select statement, after its count.
ddpgen_chunk={{?cpus_per_task}}:ncpus={{cpus_per_task}}{{/cpus_per_task}}{{?gpus_per_node}}:ngpus={{gpus_per_node}}{{/gpus_per_node}}{{?pbs_select}}:{{pbs_select}}{{/pbs_select}}:mpiprocs=1
{{?leave_out}}
{{>leave_out}}
# ddpgen_resubmit FAILS EXCLUDE: the rerun, a continuation.
ddpgen_resubmit() {
	ddpgen_submit "$ddpgen_limits" "$1" "$ddpgen_kind" "$2" "$ddpgen_nexclude"
}
{{/leave_out}}
