#!/bin/sh
# bench/doctor.sh: what the preflight (ddprank doctor) adds to a job, on
# the namespace cluster of test/cluster at several node counts. Inside one
# batch job per count, REPEAT times: an empty step
# (srun -N N --ntasks-per-node=1 true), then the doctor step the generated
# scripts run. Prints the medians. Root; run by hand, not in make check.
#
# usage: sh bench/doctor.sh [NODES...]	(default: 3 16)

set -u
here=$(cd "$(dirname "$0")/.." && pwd)
cluster=$here/test/cluster/cluster.sh
ddprank=$here/ddprank
: "${REPEAT:=7}"
[ "$(id -u)" = 0 ] || { echo "bench/doctor.sh: must run as root" >&2; exit 1; }
[ -x "$ddprank" ] || { echo "bench/doctor.sh: build ddprank first" >&2; exit 1; }
[ $# -gt 0 ] || set -- 3 16

T=$(mktemp -d "$here/test/tmp/bench-doctor.XXXXXX") || exit 1
chmod 0755 "$T"
CLUSTER_DIR=$T/cluster
export CLUSTER_DIR
trap '"$cluster" down >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

# A private copy, so a rebuild during the run does no harm.
cp "$ddprank" "$T/ddprank"

# median: of the numbers on standard input, one per line.
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

cat >"$T/job.sh" <<EOF
#!/bin/bash
#SBATCH --output=$T/job-%j.out
for i in \$(seq $REPEAT); do
	t0=\$(date +%s%N)
	srun -N "\$SLURM_NNODES" -n "\$SLURM_NNODES" --ntasks-per-node=1 true
	t1=\$(date +%s%N)
	srun -N "\$SLURM_NNODES" -n "\$SLURM_NNODES" --ntasks-per-node=1 \\
	    --export=ALL "$T/ddprank" doctor --iface '^eth3\$' \\
	    --port 29123 --launcher sh >/dev/null || echo "doctor failed"
	t2=\$(date +%s%N)
	echo "TIMES \$(((t1 - t0) / 1000000)) \$(((t2 - t1) / 1000000))"
done
EOF

printf '%-6s %-14s %-14s %-14s\n' nodes "empty step" "doctor step" added
for n in "$@"; do
	"$cluster" up "$n" eth3 >/dev/null 2>&1 || {
		echo "bench/doctor.sh: cluster of $n nodes did not come up" >&2
		exit 1
	}
	eval "$("$cluster" env)"
	id=$(sbatch --parsable --wait -N "$n" "$T/job.sh") || {
		echo "bench/doctor.sh: job on $n nodes failed" >&2
		cat "$T/job-$id.out" >&2
		exit 1
	}
	out=$T/job-$id.out
	grep -q "doctor failed" "$out" && { cat "$out" >&2; exit 1; }
	e=$(awk '/^TIMES/ { print $2 }' "$out" | median)
	d=$(awk '/^TIMES/ { print $3 }' "$out" | median)
	a=$(awk '/^TIMES/ { print $3 - $2 }' "$out" | median)
	printf '%-6s %-14s %-14s %-14s\n' "$n" "$e ms" "$d ms" "$a ms"
	"$cluster" down >/dev/null 2>&1
done
