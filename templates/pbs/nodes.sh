{{! nodes.sh: the job's hosts from PBS_NODEFILE, and OMP_NUM_THREADS }}

# The job's hosts, each once and in order: PBS_NODEFILE has a line per
# MPI slot, so a host repeats when a chunk asks for mpiprocs > 1.
if [ ! -r "${PBS_NODEFILE:-}" ]; then
	echo "ddpgen job: PBS_NODEFILE '${PBS_NODEFILE:-}' is not readable: run this script with qsub" >&2
	exit 2
fi
mapfile -t ddpgen_hosts < <(awk '!seen[$0]++' "$PBS_NODEFILE")
# shellcheck disable=SC2034 # pbsdsh's ddpgen_run reads it
ddpgen_pbs_nodefile=$PBS_NODEFILE

# The hosts to leave out (ddpgen(1), HANGS AND BAD NODES), this script's
# and those its continuation was given: PBS cannot keep a host from a
# job, which asked for a chunk more for each instead (gen-pbs.c). The
# job keeps the first of its other hosts, as many as its nodes, and
# every node reads a node file of those alone (DDPGEN_NODEFILE, a
# private file in the home directory, which every node sees).
ddpgen_skip={{pbs_exclude}}${DDPGEN_EXCLUDE:+,$DDPGEN_EXCLUDE}
if [ -n "$ddpgen_skip" ]; then
	ddpgen_keep=()
	for ddpgen_h in "${ddpgen_hosts[@]}"; do
		[[ ,$ddpgen_skip, == *",$ddpgen_h,"* ]] || ddpgen_keep+=("$ddpgen_h")
	done
	ddpgen_hosts=("${ddpgen_keep[@]:0:{{nodes}}}")
	if [ "${#ddpgen_hosts[@]}" -eq 0 ]; then
		echo "ddpgen job: no host of the job is left once $ddpgen_skip are left out" >&2
		exit 2
	fi
	DDPGEN_NODEFILE=$(mktemp "$HOME/.ddpgen-nodes.XXXXXXXXXX")
	trap 'rm -f "$DDPGEN_NODEFILE"' EXIT
	grep -Fx -f <(printf '%s\n' "${ddpgen_hosts[@]}") "$PBS_NODEFILE" \
	    >"$DDPGEN_NODEFILE" || true
	PBS_NODEFILE=$DDPGEN_NODEFILE
	export DDPGEN_NODEFILE
fi
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
