#!/bin/sh
# t-doctor.sh: the preflight on a real cluster. One test/cluster cluster
# comes up with a pair of nodes per fault; each fault is injected into
# one node (its namespaces only), and a generated script is submitted
# to the pair, all at once. In every case the report names the check
# and the node, the job ends within 15 s of its start (the scheduler's
# own times) and no training process started. A healthy 3-node job
# passes the doctor and trains. Then HPC Pack: the tasks of a generated
# job file run as its Linux agent would (t-hpcpack-emulate.sh), on two
# nodes, one of which sees the shared directory read-only.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

cluster=$srcdir/test/cluster/cluster.sh

# --- what the test needs -------------------------------------------------------
need_cluster sbatch scancel torchrun nft mknod timeout xmllint
need_built ddpgen ddprank
[ -n "$T" ] && [ -d "$T" ] || { echo "FAIL: no temporary directory"; exit 1; }
T=$(cd "$T" && pwd)

DDPGEN_PROFILE_PATH=$srcdir/test/e2e:$srcdir/profiles
DDPGEN_TEMPLATE_PATH=$srcdir/templates
export DDPGEN_PROFILE_PATH DDPGEN_TEMPLATE_PATH

# --- the cluster: 8 pairs of nodes, a third for one, and 3 healthy ones ------------
chmod 0755 "$T"
CLUSTER_DIR=$T/cluster
export CLUSTER_DIR
NODES=20
listener=
cleanup() {
	[ -z "$listener" ] || kill "$listener" 2>/dev/null
	"$cluster" down
}
on_exit cleanup
trap 'exit 130' INT TERM HUP

t_start=$(date +%s)
check "cluster.sh up" "$cluster" up "$NODES" eth3,nmn0 || finish
eval "$("$cluster" env)"
. "$CLUSTER_DIR/cluster.vars"
echo "TIME: cluster up $(($(date +%s) - t_start)) s"
script=$srcdir/test/train.py

ns() { echo "/run/netns/ddp$ID-node$1"; }
# The pid of node I's slurmd, whose mount namespace the node's jobs get.
slurmd_pid() { awk -v n="slurmd-node$1" '$1 == "pid" && $4 == n { print $2 }' \
    "$CLUSTER_DIR/resources"; }
in_node_mnt() { n=$1; shift; nsenter -t "$(slurmd_pid "$n")" -m "$@"; }

# --- the faults, each in one node ----------------------------------------------------
fault() { check "injecting the fault: $*" "$@"; }

# iface-missing, node2: no nmn0 (renamed), still connected.
fault ip -n "ddp$ID-node2" link set nmn0 down
fault ip -n "ddp$ID-node2" link set nmn0 name nmn9
fault ip -n "ddp$ID-node2" link set nmn9 up
# iface-down, node4.
fault ip -n "ddp$ID-node4" link set nmn0 down
# firewall, node6: its packets to the job's ports are dropped: the
# training's, and the range the doctor's own port is derived in.
fwport=23456
fault nsenter --net="$(ns 6)" nft -f - <<EOF
table inet ddptest {
	chain out {
		type filter hook output priority 0; policy accept;
		tcp dport { $fwport, 20000-29999 } drop
	}
}
EOF
# loopback, node8: its own name resolves to 127.0.1.1 there.
grep -v "	node8	" "$CLUSTER_DIR/etc/hosts" >"$T/hosts8"
printf '127.0.1.1\tnode8\n' >>"$T/hosts8"
fault in_node_mnt 8 mount --bind "$T/hosts8" /etc/hosts
# port-taken, node9 (node 0 of its pair).
takenport=23457
nsenter --net="$(ns 9)" python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen()
time.sleep(300)' "$takenport" &
listener=$!
# Up before the jobs start: on a loaded machine python binds late.
i=0
until nsenter --net="$(ns 9)" ss -Hltn "sport = :$takenport" | grep -q .; do
	i=$((i + 1))
	[ "$i" -lt 300 ] && kill -0 "$listener" 2>/dev/null || break
	sleep 0.1
done
check "port-taken: the listener on node9 is up" kill -0 "$listener"
# launcher-missing, node12: every torchrun on PATH hidden by /dev/null.
IFS_=$IFS; IFS=:
for d in $PATH; do
	[ -f "$d/torchrun" ] && fault in_node_mnt 12 mount --bind /dev/null \
	    "$d/torchrun"
done
IFS=$IFS_
# gpus, node15 and node16: a /dev of device nodes made with mknod, two
# GPUs on node15 and one on node16, in the nodes' mount namespaces.
make_dev() {
	d=$T/dev$1
	mkdir -p "$d/pts" "$d/shm" && chmod 1777 "$d/shm" &&
	mknod -m 666 "$d/null" c 1 3 && mknod -m 666 "$d/zero" c 1 5 &&
	mknod -m 666 "$d/full" c 1 7 && mknod -m 666 "$d/random" c 1 8 &&
	mknod -m 666 "$d/urandom" c 1 9 && mknod -m 666 "$d/tty" c 5 0 &&
	mknod -m 666 "$d/nvidiactl" c 195 255 || return 1
	for g in $(seq 0 $(($2 - 1))); do
		mknod -m 666 "$d/nvidia$g" c 195 "$g" || return 1
	done
	in_node_mnt "$1" sh -c 'mount --rbind /dev/pts "$1/pts" &&
	    mount --rbind /dev/shm "$1/shm" && mount --rbind "$1" /dev' sh "$d"
}
fault make_dev 15 2
fault make_dev 16 1

# --- the jobs, submitted together -------------------------------------------------
# gen NAME DDPGEN-ARGS...: $T/NAME/job.sh.
gen() {
	name=$1
	shift
	mkdir -p "$T/$name/ranks"
	check "$name: ddpgen" \
	    "$DDPGEN" "$@" >"$T/$name/job.sh" 2>"$T/$name/ddpgen.err" ||
	    cat "$T/$name/ddpgen.err"
}
# submit NAME NODELIST [ENV...]: start sbatch --wait in the background.
pids=
submit() {
	name=$1 nodes=$2
	shift 2
	(cd "$T/$name" && env DDPTEST_DIR="$T/$name/ranks" "$@" \
	    timeout 120 sbatch --parsable --wait -w "$nodes" job.sh \
	    >sbatch.out 2>sbatch.err; echo $? >rc) &
	pids="$pids $!"
}

gen iface-missing -s e2e-slurm -N 2 -t 2 -i '^nmn0$' "$script"
submit iface-missing node1,node2
gen iface-down -s e2e-slurm -N 2 -t 2 -i '^nmn0$' "$script"
submit iface-down node3,node4
# Three nodes: node20 reaches node 0, so node6 is the one to blame; of
# two, neither could tell whose fault the lost connection is.
gen firewall -s e2e-slurm -N 3 -t 2 -i '^eth3$' -P "$fwport" "$script"
submit firewall node5,node6,node20
gen loopback -s e2e-slurm -N 2 -t 2 "$script"
submit loopback node7,node8
gen port-taken -s e2e-slurm -N 2 -t 2 -i '^eth3$' -P "$takenport" "$script"
submit port-taken node9,node10
gen launcher -s e2e-slurm -N 2 -t 2 -i '^eth3$' "$script"
submit launcher node11,node12
gen env-typo -s e2e-slurm -N 2 -t 2 -i '^eth3$' -e NCCL_SOCKET_IFNAM=eth3 \
    "$script"
submit env-typo node13,node14
gen gpus -s e2e-slurm -N 2 -t 2 -G 2 -i '^eth3$' "$script"
submit gpus node15,node16
gen healthy -s e2e-slurm -N 3 -t 6 -i '^eth3$' "$script"
submit healthy node17,node18,node19
# HPC Pack, node14: the shared directory is read-only in its mount
# namespace. Each task runs its CommandLine with bash, as the agent does,
# inside its node's namespaces, with HPC Pack's variables.
share=$T/share
mkdir -p "$share" "$T/hpcpack/ranks"
fault in_node_mnt 14 sh -c 'mount --bind "$1" "$1" &&
    mount -o remount,bind,ro "$1"' sh "$share"
printf '%s\n' 'extends = "hpcpack"' "shared_dir = \"$share\"" \
    'iface = "^eth3$"' 'launcher = {"torchrun"}' >"$T/hp.conf"
check "hpcpack: ddpgen" \
    "$DDPGEN" -s "$T/hp.conf" -N 2 --ddprank "$DDPRANK" -o "$T/hpcpack/job.xml" \
    "$script"
# The task's code is in the job variable DDPGEN_TASK.
hp_code=$(xmllint --xpath "string(//*[local-name()='Variable']
    [*[local-name()='Name']='DDPGEN_TASK']/*[local-name()='Value'])" \
    "$T/hpcpack/job.xml")
check "hpcpack: no doctor in the task's code: $hp_code" \
    contains "$hp_code" " doctor "
hp_task() {
	i=$1 node=$2
	xmllint --xpath "string(//*[local-name()='Task'][$i]/@CommandLine)" \
	    "$T/hpcpack/job.xml" >"$T/hpcpack/task$i.cmd"
	(
		s=$(date +%s)
		nsenter -t "$(slurmd_pid "$node")" -m -n -u \
		    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$T" \
		    DDPGEN_TASK="$hp_code" \
		    DDPTEST_DIR="$T/hpcpack/ranks" CCP_JOBID=4242 \
		    CCP_TASKID="$i" CCP_NODES="1 NODE$node 4" \
		    CCP_WORKDIR="$share" \
		    timeout 60 bash "$T/hpcpack/task$i.cmd" \
		    >"$T/hpcpack/out$i" 2>&1
		echo "$? $(($(date +%s) - s))" >"$T/hpcpack/rc$i"
	) &
	pids="$pids $!"
}
hp_task 1 13
hp_task 2 14

t0=$(date +%s)
# shellcheck disable=SC2086
wait $pids
echo "TIME: all jobs $(($(date +%s) - t0)) s"

# --- what each job did ---------------------------------------------------------------
# seconds HH:MM:SS-style jobcomp time to epoch.
epoch() { date -d "$(echo "$1" | tr T ' ')" +%s; }

# job NAME: sets JOBID, RC, OUT (its output) and LEN (its run time in
# seconds, from the jobcomp file's StartTime and EndTime).
job() {
	name=$1
	JOBID=$(sed -n '1{s/;.*//;p;}' "$T/$name/sbatch.out")
	RC=$(cat "$T/$name/rc")
	OUT=$T/$name/ddp-$JOBID.out
	LEN=
	check "$name: no job id: $(cat "$T/$name/sbatch.err")" \
	    test -n "$JOBID" || return 1
	"$cluster" state "$JOBID" >/dev/null
	line=$(grep "^JobId=$JOBID " "$CLUSTER_DIR/log/jobcomp.txt")
	s=$(echo "$line" | sed -n 's/.* StartTime=\([^ ]*\).*/\1/p')
	e=$(echo "$line" | sed -n 's/.* EndTime=\([^ ]*\).*/\1/p')
	[ -n "$s" ] && [ -n "$e" ] && LEN=$(($(epoch "$e") - $(epoch "$s")))
	echo "TIME: job $name $LEN s (exit $RC)"
}

# within SECS LEN: LEN is a number of seconds, at most SECS.
within() { [ -n "$2" ] && [ "$2" -le "$1" ]; }

# failed NAME PATTERN...: the job failed with the doctor's status within
# 15 s, its output holds every pattern (fixed strings), and no training
# process wrote a line.
failed() {
	name=$1
	shift
	job "$name" || return
	expect_eq "$name: exit status" "$RC" 8
	check "$name: the job took [$LEN] s, not at most 15" within 15 "$LEN"
	for p in "$@"; do
		check "$name: no '$p' in the output" grep -qF -e "$p" "$OUT"
	done
	check "$name: a training process started (a rank's file)" \
	    test -z "$(ls "$T/$name/ranks")"
	check "$name: a training process started (a line)" \
	    ! grep -q DDPTEST "$OUT"
	grep -q 'FAIL' "$OUT" || sed 's/^/    /' "$OUT"
}

failed iface-missing "FAIL iface node2: no interface matches '^nmn0\$'" \
    "--exclude=node2"
failed iface-down "FAIL connect node4: no findings reached node 0" \
    "FAIL iface node4: no interface matching '^nmn0\$' is up" \
    "--exclude=node4"
failed firewall "FAIL connect node6: no findings reached node 0" \
    "--exclude=node6"
failed loopback "FAIL resolve node8: 'node8' resolves to the loopback address 127.0.1.1" \
    "--exclude=node8"
failed port-taken "FAIL port node9: port $takenport is already in use" \
    "--exclude=node9"
# node10, which cannot report to node 0, is not to blame for it.
check "port-taken: node10 blames itself" \
    ! grep -q -e '--exclude=.*node10' "$OUT"
failed launcher "FAIL launcher node12: 'torchrun' not found on PATH=" \
    "--exclude=node12"
failed env-typo "FAIL env node[13-14]: first: NCCL_SOCKET_IFNAM is not a known variable: did you mean NCCL_SOCKET_IFNAME?"
failed gpus "FAIL gpus node16: 1 GPU device node (/dev/nvidiaN) for 2 GPUs requested" \
    "--exclude=node16"

# The healthy job: the doctor passes, and its report never shows the
# port the training then uses, the job's secret (t-security-ports.sh).
if job healthy; then
	expect_eq "healthy: exit status" "$RC" 0
	check "healthy: the doctor did not pass: $(cat "$OUT")" \
	    grep -q "^ddprank doctor: no check failed$" "$OUT"
	check "healthy: the first line: $(head -n 1 "$OUT")" grep -q \
	    "^ddprank doctor: 3 nodes, master .*, secret port$" "$OUT"
	port=$(cat "$T/healthy/ranks"/* 2>/dev/null |
	    sed -n 's/.*"MASTER_PORT": "\([0-9]*\)".*/\1/p' | sort -u)
	n=$(cat "$T/healthy/ranks"/* 2>/dev/null | grep -c "\"MASTER_PORT\": \"$port\"")
	check "healthy: 6 ranks should use one port [$port], $n do" \
	    test "$n" = 6
	check "healthy: the doctor's report shows the training's port $port" \
	    ! grep -E "^(ddprank doctor:|PASS|WARN|FAIL).*\<$port\>" "$OUT"
fi

# HPC Pack: both tasks fail with the doctor's status within 15 s; task
# 1's report names task 2, whose findings never came; task 2's own names
# the shared directory and its node; no training process started.
for i in 1 2; do
	read -r rc secs <"$T/hpcpack/rc$i"
	echo "TIME: hpcpack task $i $secs s (exit $rc)"
	expect_eq "hpcpack: task $i exit status" "$rc" 8
	check "hpcpack: task $i took $secs s, not at most 15" test "$secs" -le 15
done
hp_expect() {
	check "hpcpack: no '$2' in task $1's output: $(cat "$T/hpcpack/out$1")" \
	    grep -qF -e "$2" "$T/hpcpack/out$1"
}
hp_expect 1 "FAIL connect task2: no findings reached node 0 through the shared directory"
# The exchange directory, or its parent when task 1 has not made it yet.
hp_expect 2 "FAIL shared node14: $share"
hp_expect 2 ": cannot create a file: Read-only file system"
check "hpcpack: a training process started (a rank's file)" \
    test -z "$(ls "$T/hpcpack/ranks")"
check "hpcpack: a training process started (a line)" \
    ! grep -q DDPTEST "$T"/hpcpack/out*

kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null
listener=
echo "TIME: total $(($(date +%s) - t_start)) s"
finish
