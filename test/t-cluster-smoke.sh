#!/bin/sh
# t-cluster-smoke.sh: the cluster harness itself, with a hand-written
# sbatch script (no ddpgen): a 3-node cluster comes up, a torchrun job
# with 2 processes per node trains test/train.py over gloo on eth3 with
# hostile arguments, check_job.py agrees with the result, and after
# down nothing of the cluster is left.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

T=$(cd "$T" && pwd)
cluster=$srcdir/test/cluster/cluster.sh

# --- what the harness needs ---------------------------------------------------
need_cluster sbatch srun
# torchrun runs under the python of its #! line: that one needs torch.
need_torchrun

# --- the cluster -----------------------------------------------------------------
# munged runs as user munge and must reach its socket under $T.
chmod 0755 "$T"
CLUSTER_DIR=$T/cluster
export CLUSTER_DIR
# shellcheck disable=SC2016 # expanded at exit
on_exit '"$cluster" down'
trap 'exit 130' INT TERM

show_logs() {
	echo "--- $T/job.out"
	grep -v -e '^\*\*\*' -e OMP_NUM_THREADS -e '^WARNING:torch' "$T/job.out"
	for f in "$T/sbatch.err" "$CLUSTER_DIR"/log/*; do
		[ -s "$f" ] || continue
		echo "--- $f"
		tail -n 20 "$f"
	done
}

t0=$(date +%s)
check "cluster.sh up" "$cluster" up 3 || finish
t1=$(date +%s)
eval "$("$cluster" env)"

# --- the job ---------------------------------------------------------------------
# Arguments that break naive quoting: spaces, an empty one, command
# substitution, quotes and backslashes, a glob, a newline, bytes that are
# not UTF-8, torchrun's own option names, UTF-8.  Written once in bash
# quoting (the script) and once in printf form (the expectation).
printf '%s\0' '--epochs=2' 'two  words' '' '$(touch pwned)' \
    "it's \"quoted\" \\back\\slash" '*' "$(printf 'line1\nline2')" \
    "$(printf '\377\376 not utf-8')" '--nnodes=7' "$(printf 'caf\303\251')" \
    >"$T/argv"

{
	echo '#!/bin/bash'
	echo '#SBATCH --job-name=ddp-smoke'
	echo '#SBATCH --nodes=3'
	echo '#SBATCH --ntasks-per-node=1'
	echo '#SBATCH --time=3'
	printf '#SBATCH --output=%s/job.out\n' "$T"
	printf 'train=%s/test/train.py\n' "$srcdir"
	printf 'hook=%s/python\n' "$srcdir"
	cat <<'EOF'
set -eu
# The legacy-store hook that ddprank exec puts first on PYTHONPATH
# (ddprank(1), LIBUV): without it a torch built without libuv (Debian
# 13's 2.6) refuses torchrun's store; any other torch it leaves alone.
export PYTHONPATH=$hook${PYTHONPATH:+:$PYTHONPATH}
# The batch script runs on the first node: its eth3 address is the
# master address, where torchrun's node rank 0 hosts the store.
master=$(ip -4 -o addr show dev eth3 | awk '{ split($4, a, "/"); print a[1]; exit }')
export MASTER_ADDR=$master MASTER_PORT=$((20000 + SLURM_JOB_ID % 20000))
export GLOO_SOCKET_IFNAME=eth3
# What every node looks like: name, interfaces, what names resolve to.
srun --ntasks-per-node=1 sh -c 'echo "NODE $SLURM_NODEID $(hostname)" \
    "$(ip -4 -o addr show dev eth3 | awk "{ print \$4 }")" \
    "$(ip -4 -o addr show dev nmn0 | awk "{ print \$4 }")" \
    "$(getent hosts node1 | awk "{ print \$1 }")"'
srun --ntasks-per-node=1 --kill-on-bad-exit=1 bash -c \
    'exec torchrun --nnodes="$SLURM_NNODES" --nproc_per_node=2 \
        --node_rank="$SLURM_NODEID" --rdzv_backend=static \
        --master_addr="$MASTER_ADDR" --master_port="$MASTER_PORT" "$@"' \
    bash "$train" --epochs=2 'two  words' '' '$(touch pwned)' \
    'it'\''s "quoted" \back\slash' '*' $'line1\nline2' \
    $'\xff\xfe not utf-8' --nnodes=7 $'caf\xc3\xa9'
EOF
} >"$T/job.sh"

cd "$T" || exit 1
timeout 180 sbatch --parsable --wait job.sh >"$T/sbatch.out" 2>"$T/sbatch.err"
rc=$?
t2=$(date +%s)
jobid=$(sed -n '1{s/;.*//;p;}' "$T/sbatch.out")
expect_eq "sbatch --wait exit status" "$rc" 0
check "no job id from sbatch: $(cat "$T/sbatch.err")" test -n "$jobid" &&
    expect_eq "job $jobid state" "$("$cluster" state "$jobid")" COMPLETED
check "cluster.sh ended: job $jobid ended" "$cluster" ended "$jobid"
# A held job may still run; a job id nobody submitted has no final state.
held=$(sbatch --parsable --hold -o /dev/null --wrap true 2>&1)
check "cluster.sh ended: held job $held" ! "$cluster" ended "$held"
scancel "$held" 2>/dev/null
check "cluster.sh ended: job 999999" ! "$cluster" ended 999999

m1=$("$cluster" addr node1 eth3)
for i in 1 2 3; do
	expect_eq "node $i as the job saw it" \
	    "$(grep "^NODE $((i - 1)) " "$T/job.out")" \
	    "NODE $((i - 1)) node$i $("$cluster" addr node$i eth3)/24 $("$cluster" addr node$i nmn0)/24 $m1"
done
check "check_job.py" \
    python3 "$srcdir/test/cluster/check_job.py" --nodes 3 --procs-per-node 2 \
    --master-addr "$m1" --node-order "node1 node2 node3" \
    --argv-file "$T/argv" --expect-env GLOO_SOCKET_IFNAME=eth3 \
    "$T/job.out"
check "an argument was run as a command" test ! -e "$T/pwned"
[ "$failures" -eq 0 ] || show_logs
echo "cluster up in $((t1 - t0)) s, job in $((t2 - t1)) s"

# --- down leaves nothing -------------------------------------------------------------
. "$CLUSTER_DIR/cluster.vars"
"$cluster" down
expect_eq "left after down" "$("$cluster" leftovers)" ""

finish
