{{! directives.sh: LSF's #BSUB lines, whose values pass the bsub filter,
    which refuses what LSF cannot be told (quote.h); then the check that
    bash runs the script }}
{{?job_name}}
#BSUB -J {{job_name|bsub|raw}}
{{/job_name}}
{{?lsf_jsrun}}
#BSUB -nnodes {{nodes}}
{{/lsf_jsrun}}
{{^lsf_jsrun}}
#BSUB -n {{nodes}}
#BSUB -R "span[ptile=1]"
{{?exclusive}}
#BSUB -x
{{/exclusive}}
{{?gpus_per_node}}
#BSUB -gpu "num={{gpus_per_node}}"
{{/gpus_per_node}}
{{/lsf_jsrun}}
{{?lsf_exclude}}
#BSUB -R {{lsf_exclude|raw}}
{{/lsf_exclude}}
{{?time}}
#BSUB -W {{time}}
{{/time}}
{{?partition}}
#BSUB -q {{partition|bsub|raw}}
{{/partition}}
{{?account}}
#BSUB -P {{account|bsub|raw}}
{{/account}}
{{?output}}
#BSUB -o {{output|bsub|raw}}
{{/output}}
{{?requeue}}
#BSUB -wa URG
#BSUB -wt {{lsf_warn_time}}
{{/requeue}}
# bsub runs the script with the shell its first line names.
if [ -z "${BASH_VERSION:-}" ]; then
	echo "ddpgen job: this script needs bash; submit it as written (bsub < FILE)" >&2
	exit 2
fi
