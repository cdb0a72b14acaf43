{{! after_master.sh: the checkpoint signal's time is the job's own }}
# The time of the checkpoint signal is this job's own, never inherited
# (qsub -V passes the submitting shell's environment).
unset DDPGEN_WARN_AT
