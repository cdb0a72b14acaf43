{{! nodes.sh: the job's hosts from PBS_NODEFILE, and OMP_NUM_THREADS }}

# The job's hosts, each once and in order: PBS_NODEFILE has a line per
# MPI slot, so a host repeats when a chunk asks for mpiprocs > 1.
if [ ! -r "${PBS_NODEFILE:-}" ]; then
	echo "ddpgen job: PBS_NODEFILE '${PBS_NODEFILE:-}' is not readable: run this script with qsub" >&2
	exit 2
fi
mapfile -t ddpgen_hosts < <(awk '!seen[$0]++' "$PBS_NODEFILE")
ddpgen_nodes=${#ddpgen_hosts[@]}

# torchrun keeps an OMP_NUM_THREADS it finds, and PBS sets it to the
# chunk's ncpus: give each process its share instead, unless the
# profile or the user chose a value.
if [ -n "${NCPUS:-}" ] && [ "${OMP_NUM_THREADS:-}" = "$NCPUS" ] &&
    [ "$NCPUS" -gt 0 ] 2>/dev/null; then
	OMP_NUM_THREADS=$((NCPUS / {{nproc_per_node}}))
	[ "$OMP_NUM_THREADS" -ge 1 ] || OMP_NUM_THREADS=1
	export OMP_NUM_THREADS
fi
