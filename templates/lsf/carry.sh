{{! carry.sh: the requeue after the warning, or the rerun without the
    nodes ddprank verdict blames }}
{{>leave_out_carry}}
