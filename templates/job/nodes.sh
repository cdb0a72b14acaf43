{{! nodes.sh: after the environment, before the master address: the job's
    nodes, the variables passed from the submitting shell (env_pass), the
    CPUs and OMP_NUM_THREADS; nothing by default }}
