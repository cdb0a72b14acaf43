{{! directives.sh: Slurm's #SBATCH lines }}
#SBATCH --job-name={{job_name}}
#SBATCH --nodes={{nodes}}
#SBATCH --ntasks-per-node={{tasks_per_node}}
{{?exclusive}}
#SBATCH --exclusive
{{/exclusive}}
{{?gpus_per_node}}
#SBATCH --gpus-per-node={{gpus_per_node}}
{{/gpus_per_node}}
{{?cpus_per_task}}
#SBATCH --cpus-per-task={{cpus_per_task}}
{{/cpus_per_task}}
{{?time}}
#SBATCH --time={{time}}
{{/time}}
{{?partition}}
#SBATCH --partition={{partition}}
{{/partition}}
{{?account}}
#SBATCH --account={{account}}
{{/account}}
{{?qos}}
#SBATCH --qos={{qos}}
{{/qos}}
{{?constraint}}
#SBATCH --constraint={{constraint}}
{{/constraint}}
{{?output}}
#SBATCH --output={{output}}
{{/output}}
{{?exclude}}
#SBATCH --exclude={{exclude}}
{{/exclude}}
{{?requeue}}
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --signal=B:{{checkpoint_signal}}@{{signal_lead}}
{{/requeue}}
{{#container_sbatch}}
#SBATCH {{.}}
{{/container_sbatch}}
{{#sbatch_extra}}
#SBATCH {{.}}
{{/sbatch_extra}}
