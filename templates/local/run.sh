{{! run.sh: ddpgen_run, which starts the command once per virtual node and
    waits for them; the time limit, and the signals that end the run }}

# ddpgen_run WORD...: the command once per node, in a session of its own
# whose process group signals reach, DDPGEN_LOCAL_NODE its node rank and,
# where the GPUs are shared out, its own in the visibility variable. The
# first node to fail ends the others, as srun's --kill-on-bad-exit does;
# the status is the first failure's, or 0.
ddpgen_run() {
	local i p rc=0 first=0 live pids=()
	ddpgen_running=1
	for ((i = 0; i < ddpgen_nodes; i++)); do
		(
			export DDPGEN_LOCAL_NODE=$i
			if [ -n "$ddpgen_share" ]; then
				IFS=,
				export "$ddpgen_visible=${ddpgen_devs[*]:i * ddpgen_share:ddpgen_share}"
			fi
			exec setsid "$@"
		) &
		pids+=("$!")
		ddpgen_groups+=("$!")
	done
	while :; do
		live=0
		for i in "${!pids[@]}"; do
			p=${pids[$i]}
			[ -n "$p" ] || continue
			if kill -0 "$p" 2>/dev/null; then
				live=1
				continue
			fi
			rc=0
			wait "$p" || rc=$?
			pids[i]=''
			if [ "$rc" -ne 0 ] && [ "$first" -eq 0 ]; then
				first=$rc
				[ -n "$ddpgen_stop$ddpgen_timed_out" ] ||
				    echo "ddpgen job: node $i exited with status $rc: ending the others" >&2
				ddpgen_end_nodes TERM
			fi
		done
		[ "$live" -eq 1 ] || break
		if [ -n "$ddpgen_kill_at" ] && [ "$SECONDS" -ge "$ddpgen_kill_at" ]; then
			ddpgen_signal_nodes KILL
		fi
		# The shell runs a trap only while it waits.
		sleep 1 &
		wait "$!" || true
	done
	ddpgen_running=''
	return "$first"
}

# SIGINT (ctrl-C), SIGTERM, SIGHUP, and SIGUSR1 and SIGUSR2 where the
# job does not carry on (requeue), end the training: the nodes run in
# sessions of their own, which the terminal's signals do not reach.
ddpgen_running=''
# shellcheck disable=SC2317 # run by the traps
ddpgen_interrupt() {
	if [ -z "$ddpgen_running" ]; then
		exit $((128 + $2))
	fi
	[ -n "$ddpgen_stop" ] || echo "ddpgen job: SIG$1: ending the training" >&2
	ddpgen_stop=$((128 + $2))
	ddpgen_end_nodes "$1"
}
trap 'ddpgen_interrupt INT 2' INT
trap 'ddpgen_interrupt TERM 15' TERM
trap 'ddpgen_interrupt HUP 1' HUP
{{^requeue}}
trap 'ddpgen_interrupt USR1 10' USR1
trap 'ddpgen_interrupt USR2 12' USR2
{{/requeue}}

# The timer's SIGALRM: {{?requeue}}the warning, then {{/requeue}}the time limit, which ends
# the training as a scheduler ends a job.
ddpgen_alarm() {
	ddpgen_alarms=$((ddpgen_alarms + 1))
{{?requeue}}
	if [ "$ddpgen_alarms" -eq 1 ]; then
		ddpgen_warning time-limit
		return 0
	fi
{{/requeue}}
	ddpgen_timed_out=1
	if [ "${#ddpgen_groups[@]}" -eq 0 ]; then
		echo "ddpgen job: time limit{{?time}} ({{time}} s){{/time}} during start-up: the training was not started" >&2
		exit 124
	fi
	echo "ddpgen job: time limit{{?time}} ({{time}} s){{/time}}: the training is ended (SIGTERM, SIGKILL 30 s later)" >&2
	ddpgen_end_nodes TERM
}
ddpgen_i=$ddpgen_alarms ddpgen_alarms=0
trap ddpgen_alarm ALRM
for ((; ddpgen_i > 0; ddpgen_i--)); do
	ddpgen_alarm
done
