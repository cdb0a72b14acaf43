{{! flux.sh: the flux batch script for Flux sites: the shell skeleton job.sh with
    the fragments of flux/ (variables: ddpgen(1)) }}
{{>job}}
