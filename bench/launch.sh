#!/bin/sh
# bench/launch.sh: launch latency on the namespace cluster of
# test/cluster: from the start of a generated job (its first setup line)
# to every rank past its first all-reduce (bench/launch-train.py, Gloo,
# two processes per node), for one launcher at several node counts.
# REPEAT jobs per count; prints the median, fastest and slowest. Root;
# run by hand, not in make check.
#
# usage: sh bench/launch.sh [LAUNCHER [NODES...]]	(default: torchrun 2 3)
#
# LAUNCHER other than torchrun is passed as ddpgen --launcher, which a
# tree with the launcher table has. DDPGEN and DDPRANK name the programs
# to measure (default: this tree's); the templates and shipped profiles
# are those of DDPGEN's tree, the test profile this tree's.

set -u
here=$(cd "$(dirname "$0")/.." && pwd)
cluster=$here/test/cluster/cluster.sh
: "${DDPGEN:=$here/ddpgen}" "${DDPRANK:=$here/ddprank}" "${REPEAT:=5}"
launcher=${1:-torchrun}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- 2 3
[ "$(id -u)" = 0 ] || { echo "bench/launch.sh: must run as root" >&2; exit 1; }
for p in "$DDPGEN" "$DDPRANK"; do
	[ -x "$p" ] || { echo "bench/launch.sh: build $p first" >&2; exit 1; }
done
command -v torchrun >/dev/null ||
    { echo "bench/launch.sh: torchrun not on PATH" >&2; exit 1; }

T=$(mktemp -d "$here/test/tmp/bench-launch.XXXXXX") || exit 1
chmod 0755 "$T"
CLUSTER_DIR=$T/cluster
BENCH_DIR=$T/out
mkdir "$BENCH_DIR" && chmod 0777 "$BENCH_DIR"
export CLUSTER_DIR BENCH_DIR
trap '"$cluster" down >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

# Private copies, so a rebuild during the run does no harm; the test
# profile (hostname discovery, two processes per node) and templates.
cp "$DDPGEN" "$T/ddpgen" && cp "$DDPRANK" "$T/ddprank" &&
    cp "$here/bench/launch-train.py" "$T/train.py" || exit 1
tree=$(cd "$(dirname "$DDPGEN")" && pwd)
# ddprank's legacy-store hook beside its copy, as in a build tree
# (ddprank(1), LIBUV): a torch without libuv (Debian 13's) needs it.
if [ -f "$tree/python/sitecustomize.py" ]; then
	mkdir "$T/python" && cp "$tree/python/sitecustomize.py" "$T/python/" &&
	    chmod 0755 "$T/python" || exit 1
fi
DDPGEN_PROFILE_PATH=$here/test/e2e:$tree/profiles
DDPGEN_TEMPLATE_PATH=$tree/templates
export DDPGEN_PROFILE_PATH DDPGEN_TEMPLATE_PATH

# python3 in the job is torchrun's python (srun-direct runs python3),
# so every launcher runs the training under the same interpreter.
tpy=$(sed -n '1s/^#![[:space:]]*//p' "$(command -v torchrun)")
mkdir "$T/bin" && ln -s "$tpy" "$T/bin/python3" || exit 1
PATH=$T/bin:$PATH

# median: of the numbers on standard input, one per line.
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# elapsed JOBID NRANKS: seconds from the job's start to its last rank
# past the all-reduce; nothing if a rank is missing.
elapsed() {
	[ "$(find "$BENCH_DIR" -name "rank.$1.*" | wc -l)" -eq "$2" ] ||
	    return 1
	cat "$BENCH_DIR"/rank."$1".* | awk -v s="$(cat "$BENCH_DIR/start.$1")" \
	    '$1 > m { m = $1 } END { printf "%.2f\n", m - s }'
}

opt=
[ "$launcher" = torchrun ] || opt="--launcher $launcher"
printf '%-9s %-6s %-8s %-8s %-8s\n' launcher nodes median fastest slowest
for n in "$@"; do
	"$cluster" up "$n" eth3 >/dev/null 2>&1 || {
		echo "bench/launch.sh: cluster of $n nodes did not come up" >&2
		exit 1
	}
	eval "$("$cluster" env)"
	# The job's start: a setup line, which the job runs first.
	# shellcheck disable=SC2086,SC2016 # opt: two words or none; $: in the job
	"$T/ddpgen" -s e2e-slurm -N "$n" -t 5 --no-preflight $opt \
	    --ddprank "$T/ddprank" -o "$T/job.sh" \
	    -S 'date +%s.%N >"$BENCH_DIR/start.$SLURM_JOB_ID"' \
	    "$T/train.py" || exit 1
	: >"$T/times"
	for i in $(seq "$REPEAT"); do
		if ! id=$(cd "$T" && sbatch --parsable --wait job.sh) ||
		    ! elapsed "$id" $((n * 2)) >>"$T/times"; then
			echo "bench/launch.sh: job $i on $n nodes failed" >&2
			cat "$T"/ddp-*.out >&2
			exit 1
		fi
	done
	printf '%-9s %-6s %-8s %-8s %-8s\n' "$launcher" "$n" \
	    "$(median <"$T/times") s" "$(sort -n "$T/times" | head -1) s" \
	    "$(sort -n "$T/times" | tail -1) s"
	"$cluster" down >/dev/null 2>&1
done
