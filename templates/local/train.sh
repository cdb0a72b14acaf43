{{! train.sh: the training, ddprank exec on every virtual node, its status
    in ddpgen_rc; the run ends here when a signal or the time limit
    ended it }}

# One ddprank per node, which execs the launcher with its node rank,
# node count, master address and port set. Single quotes keep a $ of
# the training's arguments literal.
ddpgen_rc=0
{{?requeue}}
# Warned before the training started: its last checkpoint stands.
if [ -z "$ddpgen_warned" ]; then
	# shellcheck disable=SC2016
	ddpgen_run {{node_command|raw}} || ddpgen_rc=$?
fi
{{/requeue}}
{{^requeue}}
# shellcheck disable=SC2016
ddpgen_run {{node_command|raw}} || ddpgen_rc=$?
{{/requeue}}
{{?hang}}
ddpgen_verdict
{{/hang}}
[ -z "$ddpgen_stop" ] || exit "$ddpgen_stop"
{{^requeue}}
[ -z "$ddpgen_timed_out" ] || exit 124
exit "$ddpgen_rc"
{{/requeue}}
