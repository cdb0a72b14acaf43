{{! carry.sh: after the training: run again, as a requeue would, or end }}
ddpgen_carry_on "$ddpgen_rc"
