{{! directives.sh: PBS Pro's #PBS lines; their values go through |pbs,
    qsub's own quoting (its make_argv) }}
#PBS -S /bin/bash
#PBS -N {{job_name|pbs|raw}}
#PBS -l select={{pbs_chunks}}{{?cpus_per_task}}:ncpus={{cpus_per_task}}{{/cpus_per_task}}{{?gpus_per_node}}:ngpus={{gpus_per_node}}{{/gpus_per_node}}{{?pbs_select}}:{{pbs_select|pbs|raw}}{{/pbs_select}}:mpiprocs=1
#PBS -l place=scatter{{?exclusive}}:excl{{/exclusive}}
{{?time}}
#PBS -l walltime={{time}}
{{/time}}
{{?partition}}
#PBS -q {{partition|pbs|raw}}
{{/partition}}
{{?account}}
#PBS -A {{account|pbs|raw}}
{{/account}}
{{?filesystems}}
#PBS -l filesystems={{filesystems|pbs|raw}}
{{/filesystems}}
#PBS -j oe
{{?output}}
#PBS -o {{output|pbs|raw}}
{{/output}}
