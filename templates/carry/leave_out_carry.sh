{{! leave_out_carry.sh: the carry of a scheduler whose jobs leave nodes
    out (leave_out.sh): its continuation after the warning, else the
    rerun without the nodes ddprank verdict blames }}
if [ -n "$ddpgen_warned" ]; then
	ddpgen_carry_on "$ddpgen_rc"
fi
{{?leave_out}}
ddpgen_leave_out "$ddpgen_rc"
{{/leave_out}}
