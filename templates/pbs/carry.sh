{{! carry.sh: the continuation after the checkpoint timer, or the rerun
    without the nodes ddprank verdict blames }}
{{>leave_out_carry}}
