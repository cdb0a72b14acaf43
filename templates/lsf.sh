{{! lsf.sh: the bsub script for LSF sites: the shell skeleton job.sh with
    the fragments of lsf/ (variables: ddpgen(1)) }}
{{>job}}
