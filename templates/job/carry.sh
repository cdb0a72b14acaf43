{{! carry.sh: after the training of a job that carries on (requeue):
    ddpgen_carry_on when the scheduler warned; the job then exits with
    ddpgen_rc }}
if [ -n "$ddpgen_warned" ]; then
	ddpgen_carry_on "$ddpgen_rc"
fi
