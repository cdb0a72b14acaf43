{{! carry.sh: a checkpoint signal from outside this shell counts too }}
if [ -n "$ddpgen_warned$ddpgen_outside" ]; then
	ddpgen_carry_on "$ddpgen_rc"
fi
{{?leave_out}}
{{?hang}}
ddpgen_leave_out "$ddpgen_rc"
{{/hang}}
{{/leave_out}}
