{{! leave_out.sh: ddpgen_leave_out RC, the rerun without the nodes ddprank
    verdict blames (ddpgen(1), HANGS AND BAD NODES), for a scheduler whose
    rerun is a continuation job of its own; its requeue.sh includes this
    and defines ddpgen_resubmit FAILS EXCLUDE, which submits the
    continuation with the exclusion in the scheduler's own syntax and the
    counts carried as its time-limit continuations carry them, and prints
    its id. The scheduler's state sets ddpgen_fails. }}
# After a step that failed: a stall, or a preflight that failed, which
# ddprank verdict judged (ddpgen_verdict), submits the job's continuation
# without the nodes it blames and those the chain already left out, from
# the last checkpoint, at most max_failures times over the chain.
# Anything else ends the job with the step's status.
ddpgen_max_failures={{max_failures}}
ddpgen_leave_out() {
	local rc=$1 fails=$ddpgen_fails say restart cont
	[ "$rc" -ne 0 ] || return 0
	case $ddpgen_kind in
	hang) say="ddpgen job: the training stalled" ;;
	preflight) say="ddpgen job: the preflight failed" ;;
	*) return 0 ;;
	esac
	if [ "$fails" -ge "$ddpgen_max_failures" ]; then
		echo "$say; not rerun: $fails failures already (max_failures = $ddpgen_max_failures)" >&2
		exit 125
	fi
	fails=$((fails + 1))
	restart="failure $fails of at most $ddpgen_max_failures"
	ddpgen_exclusion "$ddpgen_exclude,$ddpgen_bad"
	if [ -n "$ddpgen_bad" ]; then
		say="$say on $ddpgen_bad"
	else
		restart="$restart; no node to leave out"
	fi
	if cont=$(ddpgen_resubmit "$fails" "$ddpgen_exclude"); then
		if [ -n "$ddpgen_bad" ]; then
			echo "$say; continuation job $cont submitted without $ddpgen_bad ($restart)" >&2
		else
			echo "$say; continuation job $cont submitted ($restart)" >&2
		fi
		exit 0
	fi
	echo "$say; the continuation was not submitted" >&2
	exit 1
}
# ddpgen_exclusion LIST: the comma-separated LIST once each, in
# ddpgen_exclude (comma-separated) and ddpgen_nexclude. A name that is
# no host name (letters, digits, '.', '-', '_') is said and left out: no
# scheduler's syntax could keep it from being read as its own, and none
# reaches a command line but as one word.
ddpgen_exclusion() {
	local n names=()
	local -A seen=()
	ddpgen_exclude='' ddpgen_nexclude=0
	IFS=, read -r -a names <<<"$1" || true
	for n in "${names[@]}"; do
		if [ -z "$n" ] || [ -n "${seen[$n]+set}" ]; then
			continue
		fi
		seen[$n]=1
		if ! [[ $n =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]]; then
			printf 'ddpgen job: not left out: %q is not a host name\n' "$n" >&2
			continue
		fi
		ddpgen_exclude+=${ddpgen_exclude:+,}$n
		ddpgen_nexclude=$((ddpgen_nexclude + 1))
	done
}
# The nodes the chain leaves out: this script's, and those its
# continuations were given (DDPGEN_EXCLUDE).
ddpgen_exclusion {{exclude}}${DDPGEN_EXCLUDE:+,$DDPGEN_EXCLUDE}
unset DDPGEN_EXCLUDE
