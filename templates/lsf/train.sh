{{! train.sh: through ddpgen_launch, its status in ddpgen_rc }}

# One task per node; each runs ddprank, which execs the launcher with its
# node rank, node count, master address and port set.
ddpgen_rc=0
ddpgen_launch \
	{{node_command|raw}} || ddpgen_rc=$?
{{^requeue}}
exit "$ddpgen_rc"
{{/requeue}}
