{{! local.sh: the script that runs a job on this machine, no scheduler: the
    shell skeleton job.sh with the fragments of local/ (variables:
    ddpgen(1)) }}
{{>job}}
