#!/bin/sh
# t-doctor-names.sh: field report 3, failure 1, as a user meets it, on a
# 4-node test/cluster cluster whose host names resolve to eth3 while
# --iface asks for nmn0 (the case --iface exists for).
#   names       README's "When a job hangs": srun ... ddprank doctor
#               --iface '^nmn0$' in a healthy allocation passes, and
#               ddprank env gives every node the same MASTER_ADDR (node 0
#               gave its nmn0 address, the others its name's eth3 one:
#               the doctor failed and blamed node 2)
#   held        the training's port held on node 0: node 0 is to blame;
#               the other node still reports to it, on the doctor's own
#               port, and does not name itself
#   unresolved  node 4 cannot resolve node 3, its master's name: node 4
#               does not name itself in --exclude
#   comm-iface  a generated job whose comm_iface matches no interface
#               (plmt's hsn, which this cluster lacks): the preflight says
#               so, where ddprank exec would exit 5 (rough edge 5)
#   salloc      a generated job with --iface run under salloc (rough edge
#               6): its shell runs on this host, not on the first node,
#               and says so, instead of a bare "no interface matches"

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

cluster=$srcdir/test/cluster/cluster.sh
check_job=$srcdir/test/cluster/check_job.py

. "$srcdir/test/cluster/e2e-lib.sh"
e2e_up 4 eth3,nmn0

# The pid of node I's slurmd, whose mount namespace the node's jobs get.
slurmd_pid() { awk -v n="slurmd-node$1" '$1 == "pid" && $4 == n { print $2 }' \
    "$CLUSTER_DIR/resources"; }

# job NAME NODES BODY: a hand-written batch script running BODY.
job() {
	mkdir -p "$T/$1"
	{
		echo '#!/bin/bash'
		echo '#SBATCH --nodes=2'
		echo '#SBATCH --ntasks-per-node=1'
		echo '#SBATCH --output=ddp-%j.out'
		echo 'unset MASTER_ADDR'
		printf '%s\n' "$3"
	} >"$T/$1/job.sh"
	submit "$1" 90 -w "$2"
}

eth3_1=$(resolved node1)
nmn0_1=$("$cluster" addr node1 nmn0)
check "node1's eth3 and nmn0 addresses differ [$eth3_1] [$nmn0_1]" \
    test -n "$eth3_1" -a -n "$nmn0_1" -a "$eth3_1" != "$nmn0_1"

# --- names: the README's doctor command in a healthy allocation -----------------
job names node1,node2 "
srun -N2 --ntasks-per-node=1 --label $DDPRANK env --iface '^nmn0\$'
echo \"env: \$?\"
srun -N2 --ntasks-per-node=1 $DDPRANK doctor --iface '^nmn0\$'
echo \"doctor: \$?\""
if [ -n "$JOBID" ]; then
	expect_output names '^env: 0$' "that ddprank env succeeded"
	expect_eq "names: the master address of each node" \
	    "$(grep -a -E '^[01]: export MASTER_ADDR=' "$OUT" | sort)" \
	    "0: export MASTER_ADDR=$eth3_1
1: export MASTER_ADDR=$eth3_1"
	expect_eq "names: Gloo's interface on each node" \
	    "$(grep -a -c -E '^[01]: export GLOO_SOCKET_IFNAME=nmn0$' "$OUT")" 2
	expect_output names '^doctor: 0$' "that the doctor passed"
	expect_output names "^ddprank doctor: 2 nodes, master $eth3_1 port " \
	    "the master address every node uses"
	expect_output names '^ddprank doctor: no check failed$' \
	    "that no check failed"
	check "names: a node is blamed" ! grep -q -- --exclude "$OUT"
fi

# --- held: the port taken on node 0 ----------------------------------------------
heldport=23458
nsenter --net="/run/netns/ddp$ID-node1" python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen()
time.sleep(120)' "$heldport" &
listener=$!
# The listener must be up before the job starts (no fixed sleep).
i=0
until nsenter --net="/run/netns/ddp$ID-node1" ss -Hltn "sport = :$heldport" |
    grep -q .; do
	i=$((i + 1))
	[ "$i" -lt 300 ] && kill -0 "$listener" 2>/dev/null || break
	sleep 0.1
done
check "held: the listener on node1 is up" kill -0 "$listener"
job held node1,node2 "
srun -N2 --ntasks-per-node=1 $DDPRANK doctor --iface '^nmn0\$' --port $heldport
echo \"doctor: \$?\""
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null
listener=
if [ -n "$JOBID" ]; then
	expect_output held '^doctor: 8$' "that the doctor failed"
	expect_output held "^FAIL port node1: .*port $heldport" \
	    "that node 0's port is taken"
	expect_output held '^--exclude=node1$' "that node 0 is to blame"
	check "held: node2 blames itself" ! grep -q -- '--exclude=.*node2' "$OUT"
	# The doctor gathers on a port of its own (issue 22): node 2
	# reaches node 0 although the training's port is taken there.
	expect_output held "^PASS connect: reached node 0 at " \
	    "that node2 reported to node 0 on the doctor's own port"
fi

# --- unresolved: node 4 cannot resolve its master's name --------------------------
grep -v "	node3	" "$CLUSTER_DIR/etc/hosts" >"$T/hosts4"
check "unresolved: hiding node3 from node4" nsenter -t "$(slurmd_pid 4)" -m \
    mount --bind "$T/hosts4" /etc/hosts
job unresolved node3,node4 "
srun -N2 --ntasks-per-node=1 $DDPRANK doctor --iface '^nmn0\$'
echo \"doctor: \$?\""
if [ -n "$JOBID" ]; then
	expect_output unresolved '^doctor: 8$' "that the doctor failed"
	expect_output unresolved "^FAIL nodes node4: master address: .*node3" \
	    "that node4 cannot resolve node3"
	check "unresolved: node4 blames itself" \
	    ! grep -q -- '--exclude=.*node4' "$OUT"
fi

# --- comm-iface: what exec would refuse, the preflight finds -----------------------
if gen comm-iface -s e2e-plmt -N 2 -t 2 "$srcdir/test/train.py" &&
    submit comm-iface 90 -w node1,node2; then
	expect_failed comm-iface \
	    "^FAIL iface node\\[1-2\\]: first: --comm-iface: no interface matches '\\^hsn\\[0-9\\]\\+\\\$'" \
	    "that no interface matches comm_iface"
	check "comm-iface: a training process started" \
	    test -z "$(ls "$T/comm-iface/ranks")"
fi

# --- salloc: the batch shell on the host salloc was started on --------------------
gen salloc -s e2e-slurm -N 2 -t 2 -i '^nmn0$' "$srcdir/test/train.py"
if [ -s "$T/salloc/job.sh" ]; then
	(cd "$T/salloc" && timeout 90 salloc -N 2 -w node1,node2 -t 2 \
	    bash job.sh >out 2>&1)
	expect_eq "salloc: exit status ($(cat "$T/salloc/out"))" "$?" 4
	me=$(hostname)
	check "salloc: the job does not say where its shell ran: $(cat "$T/salloc/out")" \
	    grep -q "ddprank: --first-node: this runs on '${me%%.*}', no node of the job, not on node 0 'node1' of the node list 'node\[1-2\]'.*salloc on the host it was started on" \
	    "$T/salloc/out"
fi

e2e_down
finish
