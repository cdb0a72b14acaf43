{{! start.sh: a warning before the trap is set, and no heterogeneous job }}
{{?requeue}}
# A warning before the trap below is set (a preemption while setup lines
# run) would end this shell: note it (ddpgen(1), LONG TRAININGS).
ddpgen_early=''
trap 'ddpgen_early=1' USR1 USR2
{{/requeue}}

# A heterogeneous job (sbatch ... : ...) would give srun the nodes of its
# first component only, and train on part of the job: refuse it.
if [ -n "${SLURM_HET_SIZE:-}${SLURM_PACK_SIZE:-}" ]; then
	echo "ddpgen job: a heterogeneous job (${SLURM_HET_SIZE:-${SLURM_PACK_SIZE:-}} components) is not supported; submit it without ':'" >&2
	exit 2
fi
