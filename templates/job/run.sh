{{! run.sh: after the secret, what starts a command on every node: the
    default preflight.sh and train.sh call ddpgen_run WORD..., which runs
    the command once on every node and returns the first failure's status,
    or 0; a back-end that keeps them defines it here }}
