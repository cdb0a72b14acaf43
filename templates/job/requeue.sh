{{! requeue.sh: the life cycle of a job that carries its training across
    time limits (requeue): its state, the warning's trap and ddpgen_carry_on
    RC, which requeues or continues the job. A back-end whose jobs do this
    honours the requeue key and has its own; none by default }}
