{{! pbs.sh: the qsub script for PBS Pro sites: the shell skeleton job.sh with
    the fragments of pbs/ (variables: ddpgen(1)) }}
{{>job}}
