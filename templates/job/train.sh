{{! train.sh: the training, ddprank exec on every node; in a job that
    carries on (requeue), with its status in ddpgen_rc }}

# One ddprank per node, which execs the launcher with its node rank,
# node count, master address and port set. Single quotes keep a $ of
# the training's arguments literal.
{{?requeue}}
ddpgen_rc=0
# shellcheck disable=SC2016
ddpgen_run {{node_command|raw}} &
# The shell runs its trap only while it waits: wait again after one.
ddpgen_pid=$!
while :; do
	ddpgen_rc=0
	wait "$ddpgen_pid" || ddpgen_rc=$?
	kill -0 "$ddpgen_pid" 2>/dev/null || break
done
{{/requeue}}
{{^requeue}}
# shellcheck disable=SC2016
ddpgen_run {{node_command|raw}}
{{/requeue}}
