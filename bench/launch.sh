#!/bin/sh
# bench/launch.sh: launch latency on the namespace cluster of
# test/cluster, side by side: from the start of a job (its first line
# of work, a date) to every rank past its first all-reduce
# (bench/launch-train.py, Gloo, two processes per node), for
#   hand        a hand-written srun-direct script: srun starts the
#               processes, MASTER_ADDR from scontrol, RANK and the rest
#               from srun's variables
#   srun        ddpgen --launcher srun (srun-direct through ddprank)
#   torchrun    ddpgen's default, torchrun on each node
# each without and with the preflight (+pf: ddpgen's preflight step;
# the hand-written script's is the same ddprank doctor step, one task a
# node), and srun-direct with the launch timeline off (srun-tl0:
# DDPRANK_TIMELINE_WAIT=0; every other ddpgen job has it on, the
# default), at each node count. The jobs take turns (one of each
# variant, REPEAT times), so that a change of the machine's load falls
# on all of them alike. Prints, per node count, the median, fastest and
# slowest of each and the median's ratio to the hand-written script's,
# then node 0's launch timeline of the last srun and torchrun jobs.
# Root; run by hand, not in make check.
#
# usage: sh bench/launch.sh [NODES...]		(default: 2 3)
#
# DDPGEN and DDPRANK name the programs to measure (default: this
# tree's); the templates and shipped profiles are those of DDPGEN's
# tree, the test profile this tree's. VARIANTS picks some of the
# variants above (default: all), REPEAT the jobs of each (default 5).

set -u
here=$(cd "$(dirname "$0")/.." && pwd)
cluster=$here/test/cluster/cluster.sh
: "${DDPGEN:=$here/ddpgen}" "${DDPRANK:=$here/ddprank}" "${REPEAT:=5}"
: "${VARIANTS:=hand hand+pf srun srun+pf torchrun torchrun+pf srun-tl0}"
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
# ddprank's python hooks beside its copy, as in a build tree (ddprank(1),
# LIBUV and TIMELINE): a torch without libuv (Debian 13's) needs one.
if [ -d "$tree/python" ]; then
	mkdir "$T/python" && cp "$tree"/python/*.py "$T/python/" &&
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

# hand N PREFLIGHT: the hand-written script, as a user writes one for
# srun-direct; with PREFLIGHT 1, ddprank doctor first in a step of its
# own, as ddpgen's preflight runs it.
hand() {
	cat <<EOF
#!/bin/bash
#SBATCH --nodes=$1
#SBATCH --ntasks-per-node=2
#SBATCH --exclusive
#SBATCH --time=5
#SBATCH --output=hand-%j.out
date +%s.%N >"\$BENCH_DIR/start.\$SLURM_JOB_ID"
set -eu
export MASTER_ADDR=\$(scontrol show hostnames "\$SLURM_JOB_NODELIST" | head -n 1)
export MASTER_PORT=\$((20000 + SLURM_JOB_ID % 20000))
export OMP_NUM_THREADS=1
EOF
	[ "$2" = 0 ] || cat <<EOF
DDPRANK_SECRET=\$(od -An -N32 -tx1 /dev/urandom | tr -d ' \\n')
export DDPRANK_SECRET
srun --nodes=\$SLURM_NNODES --ntasks=\$SLURM_NNODES --ntasks-per-node=1 \\
    $T/ddprank doctor -p "\$MASTER_PORT" --launcher python3
unset DDPRANK_SECRET
EOF
	cat <<EOF
srun --kill-on-bad-exit=1 bash -c 'RANK=\$SLURM_PROCID LOCAL_RANK=\$SLURM_LOCALID \\
    WORLD_SIZE=\$SLURM_NTASKS LOCAL_WORLD_SIZE=2 exec python3 $T/train.py'
EOF
}

# script VARIANT N: writes the variant's job script as $T/VARIANT.sh.
script() {
	case $1 in
	hand) hand "$2" 0 >"$T/$1.sh" ;;
	hand+pf) hand "$2" 1 >"$T/$1.sh" ;;
	*)
		opt=--no-preflight
		case $1 in *+pf) opt= ;; esac
		case $1 in srun*) opt="$opt --launcher srun" ;; esac
		# The job's start: a setup line, which the job runs first;
		# the timeline's origin the same (ddprank(1), TIMELINE).
		# shellcheck disable=SC2086,SC2016 # opt: words or none; $: in the job
		"$T/ddpgen" -s e2e-slurm -N "$2" -t 5 $opt \
		    --ddprank "$T/ddprank" -o "$T/$1.sh" \
		    -S 'date +%s.%N >"$BENCH_DIR/start.$SLURM_JOB_ID"' \
		    -S 'export DDPGEN_JOB_START=$EPOCHREALTIME' \
		    "$T/train.py" ;;
	esac
}

for n in "$@"; do
	"$cluster" up "$n" eth3 >/dev/null 2>&1 || {
		echo "bench/launch.sh: cluster of $n nodes did not come up" >&2
		exit 1
	}
	eval "$("$cluster" env)"
	for v in $VARIANTS; do
		script "$v" "$n" || exit 1
		: >"$T/times.$v"
	done
	for i in $(seq "$REPEAT"); do
		for v in $VARIANTS; do
			tl=
			[ "$v" != srun-tl0 ] || tl=DDPRANK_TIMELINE_WAIT=0
			# shellcheck disable=SC2086 # tl: one word or none
			if ! id=$(cd "$T" && env $tl sbatch --parsable --wait \
			    "$v.sh") || ! elapsed "$id" $((n * 2)) \
			    >>"$T/times.$v"; then
				echo "bench/launch.sh: $v job $i on $n nodes" \
				    "failed" >&2
				cat "$T"/*-"$id".out >&2
				exit 1
			fi
			# Node 0's launch timeline, the last job's of each.
			[ ! -f "$T/ddp-$id.out" ] || sed -n 's/^[0-9]*: //
			    /^ddprank timeline:/,/^start-up /p' \
			    "$T/ddp-$id.out" >"$T/tl.$v"
		done
	done
	base=
	for v in $VARIANTS; do
		[ "$v" = hand ] && base=$(median <"$T/times.hand")
	done
	printf '%s nodes, %s jobs each\n' "$n" "$REPEAT"
	printf '%-12s %8s %8s %8s %6s\n' variant median fastest slowest ratio
	for v in $VARIANTS; do
		m=$(median <"$T/times.$v")
		printf '%-12s %6s s %6s s %6s s %6s\n' "$v" "$m" \
		    "$(sort -n "$T/times.$v" | head -1)" \
		    "$(sort -n "$T/times.$v" | tail -1)" \
		    "$(awk -v m="$m" -v b="${base:-0}" \
		    'BEGIN { if (b > 0) printf "%.2f", m / b; else print "-" }')"
	done
	# Where the time went: the launch timeline of the last srun and
	# torchrun jobs, and the slowest line of each ddpgen variant's.
	for v in srun torchrun; do
		[ ! -s "$T/tl.$v" ] || { echo "$v:"; cat "$T/tl.$v"; }
	done
	for v in $VARIANTS; do
		[ ! -s "$T/tl.$v" ] || printf '%-12s %s\n' "$v" \
		    "$(tail -n 1 "$T/tl.$v")"
	done
	rm -f "$T"/tl.*
	"$cluster" down >/dev/null 2>&1
done
