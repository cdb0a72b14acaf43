{{! preflight.sh: ddprank doctor, one flux run task per node }}
flux run -N "$ddpgen_nodes" --tasks-per-node=1 \
	{{preflight_command|raw}}
