{{! run.sh: ddpgen_launch, with jsrun or blaunch }}

# ddpgen_launch WORD...: runs the command WORD... once on every node, and
# returns the first failure, or 0. The command travels in DDPGEN_NODE,
# as bash code, so that no launcher's own quoting touches it.
ddpgen_launch() {
	local check
	# shellcheck disable=SC2016,SC2089 # expanded on the node
	check='if [ ! -x "$DDPRANK" ]; then echo "ddpgen job: ddprank not found at $DDPRANK on $(hostname)" >&2; exit 127; fi; exec '
	printf -v DDPGEN_NODE '%q ' "$@"
	DDPGEN_NODE=$check$DDPGEN_NODE
	# shellcheck disable=SC2090 # code, for bash -c
	export DDPGEN_NODE
	ddpgen_pids=() ddpgen_where=()
{{?lsf_jsrun}}
	# jsrun (IBM JSM): one resource set, one task, per node; it passes
	# the signals it gets on to its tasks.
	# shellcheck disable=SC2016 # expanded on the node
	jsrun --nrs "$ddpgen_nodes" --rs_per_host 1 --tasks_per_rs 1{{?cpus_per_task}} --cpu_per_rs {{cpus_per_task}}{{/cpus_per_task}}{{?gpus_per_node}} --gpu_per_rs {{gpus_per_node}}{{/gpus_per_node}} \
		--bind none /bin/bash -c 'exec /bin/bash -c "$DDPGEN_NODE"' &
	ddpgen_pids+=("$!") ddpgen_where+=("jsrun on ${ddpgen_hosts[*]}")
{{/lsf_jsrun}}
{{^lsf_jsrun}}
	# blaunch, as rsh would, on each node: its command is one line of
	# shell code. It ignores the checkpoint signal, which LSF sends to
	# each task itself.
	local host
	for host in "${ddpgen_hosts[@]}"; do
		# shellcheck disable=SC2016 # expanded on the node
		(trap '' {{checkpoint_signal}}; exec blaunch "$host" 'exec /bin/bash -c "$DDPGEN_NODE"') &
		ddpgen_pids+=("$!") ddpgen_where+=("blaunch on $host")
	done
{{/lsf_jsrun}}
	ddpgen_wait_all
}

# ddpgen_wait_all: waits for ddpgen_pids, and returns the status of the
# first that fails as soon as it does, naming it, or 0: once this shell
# exits, LSF ends the job's other tasks, which could wait for the failed
# one forever. The short sleeps let the shell run its traps.
ddpgen_wait_all() {
	local i rc left=${#ddpgen_pids[@]}
	while [ "$left" -gt 0 ]; do
		for i in "${!ddpgen_pids[@]}"; do
			! kill -0 "${ddpgen_pids[i]}" 2>/dev/null || continue
			rc=0
			wait "${ddpgen_pids[i]}" || rc=$?
			if [ "$rc" -ne 0 ]; then
				echo "ddpgen job: ${ddpgen_where[i]} exited with status $rc: ending the job" >&2
				return "$rc"
			fi
			unset 'ddpgen_pids[i]'
			left=$((left - 1))
		done
		[ "$left" -eq 0 ] || { sleep 1 & wait $! || true; }
	done
	return 0
}
