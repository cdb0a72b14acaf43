{{! preflight.sh: ddprank doctor, one flux run task per node; where the
    job leaves nodes out, a failure goes to the verdict and the rerun
    without the nodes it blames (leave_out_preflight.sh) }}
{{?leave_out}}
ddpgen_rc=0
flux run -N "$ddpgen_nodes" --tasks-per-node=1 \
	{{preflight_command|raw}} || ddpgen_rc=$?
{{>leave_out_preflight}}
{{/leave_out}}
{{^leave_out}}
flux run -N "$ddpgen_nodes" --tasks-per-node=1 \
	{{preflight_command|raw}}
{{/leave_out}}
