{{! slurm.sh: the sbatch script for Slurm sites: the shell skeleton job.sh with
    the fragments of slurm/ (variables: ddpgen(1)) }}
{{>job}}
