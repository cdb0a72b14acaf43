{{! directives.sh: a local job has no scheduler to read directives: what it
    is and how to run it }}
# A job for this machine, no scheduler (ddpgen(1), LOCAL JOBS): run it
# with "bash FILE". Each of its {{nodes}} node(s) is a virtual one here,
# its own ddprank with its own node rank; the master is on loopback.
