{{! run.sh: ddpgen_run, with Cray PALS's mpiexec or pbsdsh }}

# What each node runs before ddprank: the check that ddprank is there,
# the submitting directory, and the node's own checkpoint timer.
# shellcheck disable=SC2016
ddpgen_node='if [ ! -x "$1" ]; then echo "ddpgen job: ddprank not found at $1 on $(hostname)" >&2; exit 127; fi
cd "${PBS_O_WORKDIR:-.}" || exit
if [ -n "${DDPGEN_NODEFILE:-}" ]; then export PBS_NODEFILE=$DDPGEN_NODEFILE; fi
if [ -n "${DDPGEN_WARN_AT:-}" ]; then (sleep $((DDPGEN_WARN_AT - $(date +%s))) && pkill -"$DDPGEN_CHECKPOINT_SIGNAL" -P $$) </dev/null >/dev/null 2>&1 & fi
exec "$@"'
{{?pbs_mpiexec}}

# One process per host with Cray PALS's mpiexec, which passes this
# shell's environment on; it ends every node's process when one fails.
ddpgen_run() {
	mpiexec -n "$ddpgen_nodes" --ppn 1 /bin/bash -c "$ddpgen_node" ddprank "$@"
}
{{/pbs_mpiexec}}
{{^pbs_mpiexec}}

# One task per host with pbsdsh -n (the index of the host's first line
# in PBS_NODEFILE). A task gets the job's variables, not this shell's:
# what this shell exported crosses in a file of a directory of its own
# in the home directory (mode 0700), and each task's exit status comes
# back there, since pbsdsh's own is 0. The first failure ends the job,
# and PBS then ends the other nodes' tasks.
ddpgen_dir=$(mktemp -d "$HOME/.ddpgen-pbs.XXXXXXXXXX")
trap 'rm -rf "$ddpgen_dir" ${DDPGEN_NODEFILE:+"$DDPGEN_NODEFILE"}' EXIT
ddpgen_exports() {
	local n
	for n in $(compgen -e); do
		case $n in
		PBS_*|HOSTNAME|HOME|PWD|OLDPWD|SHLVL|TMPDIR|NCPUS|ENVIRONMENT|_) ;;
		# readonly in bash: a declaration would fail
		SHELLOPTS|BASHOPTS|BASH_*|EUID|UID|PPID) ;;
		*) declare -p "$n" ;;
		esac
	done
}
export DDPGEN_NODE=$ddpgen_node
(umask 077 && ddpgen_exports >"$ddpgen_dir/env")
# shellcheck disable=SC2016
ddpgen_task='d=$1 i=$2; shift 2; . "$d/env" || exit; /bin/bash -c "$DDPGEN_NODE" ddprank "$@"; rc=$?; echo "$rc" >"$d/rc.$i"; exit "$rc"'
ddpgen_run() {
	local i=0 idx=0 host line rc p failed frc pids=()
	local -A first
	while IFS= read -r line; do
		[ -n "${first[$line]+set}" ] || first[$line]=$idx
		idx=$((idx + 1))
	done <"$ddpgen_pbs_nodefile"
	rm -f "$ddpgen_dir"/rc.*
	# pbsdsh's index is of the job's own node file, which this shell's
	# PBS_NODEFILE is not once hosts are left out.
	for host in "${ddpgen_hosts[@]}"; do
		PBS_NODEFILE=$ddpgen_pbs_nodefile \
		    pbsdsh -n "${first[$host]}" -- /bin/bash -c "$ddpgen_task" \
		    ddpgen "$ddpgen_dir" "$i" "$@" &
		pids+=($!)
		i=$((i + 1))
	done
	while :; do
		failed='' frc=0
		for ((i = 0; i < ddpgen_nodes; i++)); do
			rc=$(cat "$ddpgen_dir/rc.$i" 2>/dev/null) || continue
			[ "$rc" != 0 ] || continue
			failed+="${failed:+, }node $i (${ddpgen_hosts[$i]}) status $rc"
			[ "$frc" != 0 ] || frc=$rc
		done
		if [ -n "$failed" ]; then
			echo "ddpgen job: failed: $failed" >&2
			return "$frc"
		fi
		if [ "$(find "$ddpgen_dir" -name 'rc.*' | wc -l)" -eq "$ddpgen_nodes" ]; then
			return 0
		fi
		# Every pbsdsh gone, and a task said nothing: it never ran.
		for p in "${pids[@]}"; do
			kill -0 "$p" 2>/dev/null && break
		done
		if ! kill -0 "$p" 2>/dev/null; then
			echo "ddpgen job: a node's task ended without a status (pbsdsh could not start it)" >&2
			return 1
		fi
		sleep 1
	done
}
{{/pbs_mpiexec}}
