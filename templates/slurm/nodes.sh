{{! nodes.sh: the variables passed from sbatch's environment, the training
    step's CPUs and OMP_NUM_THREADS }}
{{?env_pass}}

# Passed from the environment sbatch was run in (ddpgen --env NAME), so
# that no value is written here.
ddpgen_pass() {
	if [ -z "${!1+set}" ]; then
		echo "ddpgen job: $1 is not in the job's environment: export it before sbatch, or with SBATCH_EXPORT=NONE submit with sbatch --export=$1" >&2
		exit 1
	fi
	export "${1?}"
}
{{#env_pass}}
ddpgen_pass {{.}}
{{/env_pass}}
{{/env_pass}}

# The CPUs of each task of the training step, given to srun explicitly:
# Slurm 22.05 does not pass a submit-time -c (SLURM_CPUS_PER_TASK) on to
# srun and 23.11 and later do, so the same job would bind otherwise on
# each. Every CPU the job holds on a node (the fewest, where nodes differ;
# SLURM_JOB_CPUS_PER_NODE, as "4(x2),8"), shared by the node's tasks; none
# where Slurm does not say, when srun chooses.
ddpgen_cpus='' ddpgen_c=${SLURM_JOB_CPUS_PER_NODE:-}
# shellcheck disable=SC2086 # split at the commas
for ddpgen_c in ${ddpgen_c//,/ }; do
	ddpgen_c=${ddpgen_c%%(*}
	case $ddpgen_c in ''|*[!0-9]*) ddpgen_cpus=''; break ;; esac
	if [ -z "$ddpgen_cpus" ] || [ "$ddpgen_c" -lt "$ddpgen_cpus" ]; then
		ddpgen_cpus=$ddpgen_c
	fi
done
ddpgen_cpus_opt=()
if [ -n "$ddpgen_cpus" ] && [ "$((ddpgen_cpus / {{tasks_per_node}}))" -ge 1 ]; then
	ddpgen_cpus=$((ddpgen_cpus / {{tasks_per_node}}))
	ddpgen_cpus_opt=(--cpus-per-task="$ddpgen_cpus")
	# srun 23.11 and later read a submit-time -c from these first, and
	# then say the step "may never run" when its count is larger.
	unset SLURM_CPUS_PER_TASK
	[[ ! ${SLURM_TRES_PER_TASK:-} =~ ^cpu[:=][0-9]+$ ]] || unset SLURM_TRES_PER_TASK
else
	ddpgen_cpus=${SLURM_CPUS_PER_TASK:-0}
fi

# torchrun sets OMP_NUM_THREADS=1 when it is unset: give each process its
# share of the CPUs of the task instead, as Slurm counts them at run time
# (-c given to sbatch included); without a count, torchrun's 1 for several
# processes on a node, whatever the launcher, so that srun-direct and
# DeepSpeed do not start that many processes of all the node's threads.
ddpgen_node_procs={{nproc_per_node}}
if [ -z "${OMP_NUM_THREADS:-}" ] && [ "$ddpgen_cpus" -gt 0 ] 2>/dev/null; then
	OMP_NUM_THREADS=$((ddpgen_cpus / {{procs_per_task}}))
	[ "$OMP_NUM_THREADS" -ge 1 ] || OMP_NUM_THREADS=1
	export OMP_NUM_THREADS
elif [ -z "${OMP_NUM_THREADS:-}" ] && [ "$ddpgen_node_procs" -gt 1 ]; then
	export OMP_NUM_THREADS=1
fi
