#!/bin/sh
# t-e2e-slurm.sh: generated scripts run for real. One 3-node cluster of
# test/cluster comes up; for each shipped Slurm profile (through the
# test profiles in test/e2e, which change only what cannot exist here)
# "ddpgen ... >job.sh && sbatch --wait job.sh" trains test/train.py with
# hostile arguments, and check_job.py checks ranks, node order, master
# address, port, checksums and argv. Static and c10d rendezvous, iface
# and hostname discovery, a 1-node job, a job with 3 processes per node;
# then the faults: a node whose training fails, an interface the nodes
# do not have, a port already taken on the first node.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

cluster=$srcdir/test/cluster/cluster.sh
check_job=$srcdir/test/cluster/check_job.py

# --- what the test needs -------------------------------------------------------
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, daemons)"
for t in ip nsenter unshare setsid setpriv flock ss munged munge slurmctld \
    slurmd sbatch srun sinfo scontrol scancel torchrun python3 bash timeout; do
	command -v "$t" >/dev/null 2>&1 || skip "$t not found"
done
getent passwd munge >/dev/null || skip "no user munge"
ip netns list >/dev/null 2>&1 || skip "ip netns does not work"
unshare --net true 2>/dev/null || skip "cannot create network namespaces"
tpy=$(sed -n '1s/^#![[:space:]]*//p' "$(command -v torchrun)")
$tpy -c 'import torch.distributed' 2>/dev/null ||
    skip "torchrun's python ($tpy) cannot import torch.distributed"
[ -x "$DDPGEN" ] && [ -x "$DDPRANK" ] || skip "ddpgen and ddprank not built"
# An empty T would make every path below absolute.
[ -n "$T" ] && [ -d "$T" ] || { echo "FAIL: no temporary directory"; exit 1; }
T=$(cd "$T" && pwd)

# Nothing of the caller's may reach the jobs (sbatch exports the
# submitter's environment, and srun and ddprank read it): lib.sh's
# clean_env has removed it.  ddpgen finds the test profiles, which
# extend the shipped ones, and no profile of the user's.
DDPGEN_PROFILE_PATH=$srcdir/test/e2e:$srcdir/profiles
DDPGEN_TEMPLATE_PATH=$srcdir/templates
export DDPGEN_PROFILE_PATH DDPGEN_TEMPLATE_PATH

# --- the cluster ---------------------------------------------------------------
# munged runs as user munge and must reach its socket under $T.
chmod 0755 "$T"
CLUSTER_DIR=$T/cluster
export CLUSTER_DIR
# cori and plmt request 64 and 128 CPUs per task: nodes configured with
# 128 take both as shipped (the machine's own cores do not matter).
CLUSTER_CPUS=128
export CLUSTER_CPUS
listener=
cleanup() {
	[ -z "$listener" ] || kill "$listener" 2>/dev/null
	"$cluster" down
}
on_exit cleanup
trap 'exit 130' INT TERM HUP

timings=
timing() { timings="$timings$1 $2 s; "; echo "TIME: $1 $2 s"; }

t_start=$(date +%s)
if ! "$cluster" up 3; then
	fail "cluster.sh up"
	finish
fi
ok
eval "$("$cluster" env)"
. "$CLUSTER_DIR/cluster.vars"
timing "cluster up" $(($(date +%s) - t_start))

# --- arguments -----------------------------------------------------------------
# Arguments that break naive quoting, written once: with_args runs a
# command with them appended. Spaces, the empty string, command
# substitution, backticks, quotes and backslashes, globs, a newline,
# bytes that are not UTF-8, "--", torchrun's and ddprank's own options,
# UTF-8, a leading dash.
nl=$(printf 'line1\nline2')
notutf8=$(printf '\377\376 not utf-8')
utf8=$(printf 'caf\303\251 \316\273')
with_args() {
	"$@" --epochs=2 'two  words' '' '$(touch pwned)' '`touch pwned`' \
	    "it's \"quoted\" \\back\\slash\\" '*' '?' '[a-z]*' "$nl" \
	    "$notutf8" -- --nnodes=7 --nproc_per_node=9 --port=1 "$utf8" \
	    ' lead and trail ' '-h' '$HOME' '${PATH}' '!x' ';' '&&' '|' \
	    '>out' '\' "'" '"'
}
with_args printf '%s\0' >"$T/argv"
: >"$T/argv.none"

# The training script behind a path that needs quoting too.
sdir="$T/scripts 'q' \"d\" \$(touch pwned) $utf8"
mkdir -p "$sdir"
cp "$srcdir/test/train.py" "$sdir/train it's.py"
hostile_script="$sdir/train it's.py"
script=$srcdir/test/train.py

# A job name Slurm takes (no control characters) that needs quoting in
# an #SBATCH line, which sbatch parses with rules of its own.
jobname=$(printf 'e2e '\''q'\'' "dq" $HOME $(id) `x` \\back #hash %%j ;&|<>*? caf\303\251')

# --- running a job -------------------------------------------------------------
# gen NAME DDPGEN-ARGS...: write $T/NAME/job.sh with ddpgen; the test
# environment's torchrun fix must not leak into it.
gen() {
	name=$1
	shift
	mkdir -p "$T/$name"
	if ! "$DDPGEN" "$@" >"$T/$name/job.sh" 2>"$T/$name/ddpgen.err"; then
		fail "$name: ddpgen failed: $(cat "$T/$name/ddpgen.err")"
		return 1
	fi
	checks=$((checks + 1))
	if grep -n -i -e sitecustomize -e redirects -e --tee \
	    -e PYTHONPATH "$T/$name/job.sh"; then
		fail "$name: the generated script mentions the test's torchrun workaround"
	fi
}

# submit NAME LIMIT: sbatch --wait the job in $T/NAME, from that
# directory, for at most LIMIT seconds. Sets JOBID, RC, STATE, SECS,
# OUT (the job's output file), NODES_OF (its nodes in Slurm's order)
# and FIRST.
submit() {
	name=$1
	JOBID= STATE= OUT= NODES_OF= FIRST=
	# train.py's lines, one file per rank: srun may tear long lines
	# in the job's output.
	rm -rf "$T/$name/ranks"
	mkdir -p "$T/$name/ranks"
	DDPTEST_DIR=$T/$name/ranks
	export DDPTEST_DIR
	t0=$(date +%s)
	(cd "$T/$name" && exec timeout "$2" sbatch --parsable --wait job.sh \
	    >sbatch.out 2>sbatch.err)
	RC=$?
	SECS=$(($(date +%s) - t0))
	timing "job $name" "$SECS"
	JOBID=$(sed -n '1{s/;.*//;p;}' "$T/$name/sbatch.out")
	if [ -z "$JOBID" ]; then
		fail "$name: no job id from sbatch: $(cat "$T/$name/sbatch.err")"
		return 1
	fi
	if [ "$RC" = 124 ]; then
		fail "$name: job $JOBID still running after $2 s"
		scancel "$JOBID"
	fi
	STATE=$("$cluster" state "$JOBID")
	OUT=$T/$name/ddp-$JOBID.out
	NODES_OF=$(grep "^JobId=$JOBID " "$CLUSTER_DIR/log/jobcomp.txt" |
	    sed -n 's/.* NodeList=\([^ ]*\) .*/\1/p')
	NODES_OF=$(scontrol show hostnames "$NODES_OF" | tr '\n' ' ')
	NODES_OF=${NODES_OF% }
	FIRST=${NODES_OF%% *}
}

show_logs() {
	echo "--- $OUT"
	grep -v -e '^\*\*\*' -e OMP_NUM_THREADS -e '^WARNING:torch' "$OUT" |
	    cut -c 1-600
	for f in "$T/$1/sbatch.err" "$CLUSTER_DIR"/log/slurm*.log; do
		[ -s "$f" ] || continue
		echo "--- $f"
		tail -n 10 "$f"
	done
}

# resolved NAME: the address NAME has for the nodes (their hosts file).
resolved() {
	awk -v h="$1" '{ for (i = 2; i <= NF; i++) if ($i == h) { print $1; exit } }' \
	    "$CLUSTER_DIR/etc/hosts"
}

# The training srun is the job's second step, after the preflight's.
train_step=1
# auto_port JOBID: the port ddprank(1) documents for --port auto in the
# training step, with the default range 20000-29999.
auto_port() { echo $((20000 + ($1 * 1009 + train_step) % 10000)); }

# expect_job NAME NODES PPN DISCOVERY RDZV JOBNAME ARGV-FILE: the job
# ran to completion on NODES nodes with PPN processes each, and every
# rank saw what it should. DISCOVERY is hostname or an interface name.
expect_job() {
	name=$1 nodes=$2 ppn=$3 disc=$4 rdzv=$5 jname=$6 argv=$7
	expect_eq "$name: sbatch --wait exit status" "$RC" 0
	expect_eq "$name: job $JOBID state" "$STATE" COMPLETED
	set -- $NODES_OF
	expect_eq "$name: number of nodes" "$#" "$nodes"
	if [ "$disc" = hostname ]; then
		addr=$(resolved "$FIRST")
		set -- --expect-unset GLOO_SOCKET_IFNAME \
		    --expect-unset NCCL_SOCKET_IFNAME
	else
		addr=$("$cluster" addr "$FIRST" "$disc")
		set -- --expect-env "GLOO_SOCKET_IFNAME=$disc" \
		    --expect-env "NCCL_SOCKET_IFNAME==$disc"
	fi
	port=$(auto_port "$JOBID")
	if [ "$rdzv" = c10d ]; then
		# torchrun hands its workers the host name of the agent
		# with group rank 0 and a port of its own; the endpoint
		# ddprank gave it shows in PET_RDZV_ENDPOINT.
		set -- "$@" --master-addr "$FIRST" \
		    --expect-env PET_RDZV_BACKEND=c10d \
		    --expect-env "PET_RDZV_ENDPOINT=$addr:$port" \
		    --expect-env "PET_RDZV_ID=$JOBID.$train_step" \
		    --expect-env "TORCHELASTIC_RUN_ID=$JOBID.$train_step"
	else
		set -- "$@" --master-addr "$addr" \
		    --expect-env "MASTER_PORT=$port" \
		    --expect-unset PET_RDZV_BACKEND
	fi
	# Every rank's line reached the job's output, if maybe torn.
	expect_eq "$name: DDPTEST lines in the job's output" \
	    "$(grep -a -o 'DDPTEST {' "$OUT" | wc -l)" $((nodes * ppn))
	checks=$((checks + 1))
	if ! python3 "$check_job" --nodes "$nodes" --procs-per-node "$ppn" \
	    --node-order "$NODES_OF" --argv-file "$argv" \
	    --expect-env "PET_MASTER_ADDR=$addr" \
	    --expect-env "PET_MASTER_PORT=$port" \
	    --expect-env "PET_NNODES=$nodes" \
	    --expect-env "SLURM_JOB_NAME=$jname" "$@" "$T/$name"/ranks/*; then
		fail "$name: check_job.py"
		show_logs "$name"
	fi
	checks=$((checks + 1))
	if [ -e "$T/$name/pwned" ] || [ -e "$T/pwned" ]; then
		fail "$name: an argument was run as a command"
	fi
}

# expect_failed NAME PATTERN WHAT: the job failed, within 60 s, and its
# output has a line matching the extended regex PATTERN.
expect_failed() {
	expect_eq "$1: job $JOBID state" "$STATE" FAILED
	checks=$((checks + 1))
	[ "$RC" != 0 ] || fail "$1: sbatch --wait exit status 0"
	checks=$((checks + 1))
	[ "$SECS" -le 60 ] || fail "$1: the job took $SECS s to fail"
	expect_output "$@"
}

# expect_output NAME PATTERN WHAT: the job's output has a line matching
# the extended regex PATTERN, which shows WHAT.
expect_output() {
	checks=$((checks + 1))
	if ! grep -a -q -E -e "$2" "$OUT"; then
		fail "$1: the output does not say $3 (no line matching $2)"
		show_logs "$1"
	fi
}

# expect_report_names NAME HOST: torchrun's failure report in the job's
# output names HOST, with the exit status 3 of train.py's failure.
expect_report_names() {
	checks=$((checks + 1))
	if ! awk -v h="$2" '$1 == "host" && $3 == h { at = NR }
	    $1 == "exitcode" && $3 == 3 && NR == at + 2 { f = 1 }
	    END { exit !f }' "$OUT"; then
		fail "$1: torchrun's report does not name $2 with exit status 3"
		show_logs "$1"
	fi
}

# --- cori: interface discovery (eth3), static rendezvous ---------------------------
# The hostile job name, the hostile script path and arguments.
if with_args gen cori -s e2e-cori -N 3 -t 3 -J "$jobname" "$hostile_script" &&
    submit cori 180; then
	expect_job cori 3 2 eth3 static "$jobname" "$T/argv"
	# sbatch read the #SBATCH line itself: the name it recorded.
	jc=$(grep "^JobId=$JOBID " "$CLUSTER_DIR/log/jobcomp.txt")
	jc=${jc#* Name=}
	expect_eq "cori: job name in the jobcomp record" "${jc%% JobState=*}" \
	    "$jobname"
fi

# --- plmt: interface discovery (nmn0, not what host names resolve to), c10d --------
if with_args gen plmt -s e2e-plmt -N 3 -t 3 -r c10d "$script" &&
    submit plmt 180; then
	expect_job plmt 3 2 nmn0 c10d ddp "$T/argv"
fi

# --- slurm: hostname discovery, static ---------------------------------------------
if with_args gen slurm -s e2e-slurm -N 3 -t 3 "$script" &&
    submit slurm 180; then
	expect_job slurm 3 2 hostname static ddp "$T/argv"
fi

# --- slurm: hostname discovery, c10d, 2 of the 3 nodes, 3 processes each -----------
if with_args gen slurm-c10d -s e2e-slurm -N 2 -n 3 -t 3 -r c10d "$script" &&
    submit slurm-c10d 180; then
	expect_job slurm-c10d 2 3 hostname c10d ddp "$T/argv"
fi

# --- plmt: one node, static --------------------------------------------------------
if gen plmt-1 -s e2e-plmt -N 1 -t 3 "$script" && submit plmt-1 180; then
	expect_job plmt-1 1 2 nmn0 static ddp "$T/argv.none"
fi

# --- fault: the training fails on the second node ----------------------------------
# train.py exits 3 on node rank 1 once the process group is up: the
# job must end FAILED, saying so.  The other nodes' ranks fail too
# (their peers are gone), so which node srun names first is a race;
# torchrun's failure report names the host and the exit status.
if gen fail-node -s e2e-cori -N 3 -t 3 -e DDPTEST_FAIL_NODE=1 "$script" &&
    submit fail-node 120; then
	expect_failed fail-node \
	    '^train\.py: rank [0-9]+ on node 1: failing on request' \
	    "that the training failed on node rank 1"
	expect_report_names fail-node node2
fi

# --- fault: the second node fails while the others wait for it ---------------------
# Node rank 1 exits before joining the process group, so the other
# nodes' ranks wait for it (gloo's timeout is 30 minutes); only srun
# --kill-on-bad-exit can end the job, once torchrun on node2 exits.
# Known to fail: torchrun 1.13 waits in its exit barrier for the other
# agents, 300 s, before it exits (agent/server/api.py, _invoke_run), so
# the job holds its nodes for 5 minutes or until its time limit.  Run
# with E2E_KNOWN_FAILURES=1.
if [ -n "${E2E_KNOWN_FAILURES:-}" ] &&
    gen fail-start -s e2e-slurm -N 3 -t 3 -e DDPTEST_FAIL_NODE=1 \
    -e DDPTEST_FAIL_AT=start "$script" && submit fail-start 120; then
	expect_failed fail-start \
	    '^srun: error: node2: task 1: Exited with exit code' "that node2 failed"
	expect_report_names fail-start node2
fi

# --- fault: the profile's interface does not exist on the nodes --------------------
if gen noib -s e2e-noib -N 3 -t 3 "$script" && submit noib 120; then
	expect_failed noib "no interface matches '\\^ib0\\$'" "which pattern failed"
	a3=$("$cluster" addr "$FIRST" eth3)
	an=$("$cluster" addr "$FIRST" nmn0)
	expect_output noib "interfaces: .*eth3 $a3.*nmn0 $an" \
	    "which interfaces exist"
fi

# --- fault: the port is taken on the first node ------------------------------------
port=23456
nsenter --net="/run/netns/ddp$ID-node1" "$tpy" -c '
import socket, sys, time
s = socket.socket()
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen()
time.sleep(300)' "$port" &
listener=$!
i=0
until [ -n "$(nsenter --net="/run/netns/ddp$ID-node1" ss -Hltn "sport = :$port")" ]; do
	i=$((i + 1))
	if [ $i -ge 50 ]; then
		fail "port-taken: no listener on port $port in node1"
		break
	fi
	sleep 0.2
done
if gen port-taken -s e2e-cori -N 3 -t 3 --port "$port" "$script" &&
    submit port-taken 120; then
	expect_eq "port-taken: first node" "$FIRST" node1
	expect_failed port-taken \
	    "port $port is already in use on $("$cluster" addr node1 eth3)" \
	    "that the port is taken"
fi
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null
listener=

# --- down leaves nothing -------------------------------------------------------------
t0=$(date +%s)
"$cluster" down
timing "cluster down" $(($(date +%s) - t0))
expect_eq "left after down" "$("$cluster" leftovers)" ""
left=$(for f in /proc/[0-9]*/cmdline; do
	case $(tr '\0' ' ' 2>/dev/null <"$f") in
	*"$T"*) echo "${f%/cmdline}" ;;
	esac
done)
expect_eq "processes naming the test directory left after down" "$left" ""

timing total $(($(date +%s) - t_start))
echo "timings: $timings"
finish
