{{! preflight.sh: through ddpgen_launch; where the job leaves nodes out,
    a failure goes to the verdict and the rerun without the nodes it
    blames (leave_out_preflight.sh) }}
{{?leave_out}}
ddpgen_rc=0
ddpgen_launch \
	{{preflight_command|raw}} || ddpgen_rc=$?
{{>leave_out_preflight}}
{{/leave_out}}
{{^leave_out}}
ddpgen_launch \
	{{preflight_command|raw}}
{{/leave_out}}
