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

. "$srcdir/test/cluster/e2e-lib.sh"
# hsn0 and hsn1 for plmt's NCCL and Gloo sockets (comm_iface).
e2e_up 3 eth3,nmn0,hsn0,hsn1

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

# --- cori: interface discovery (eth3), static rendezvous ---------------------------
# The hostile job name, the hostile script path and arguments.
if with_args gen cori -s e2e-cori -N 3 -t 6 -J "$jobname" "$hostile_script" &&
    submit cori 180; then
	expect_job cori 3 2 eth3 static "$jobname" "$T/argv"
	# sbatch read the #SBATCH line itself: the name it recorded.
	jc=$(grep "^JobId=$JOBID " "$CLUSTER_DIR/log/jobcomp.txt")
	jc=${jc#* Name=}
	expect_eq "cori: job name in the jobcomp record" "${jc%% JobState=*}" \
	    "$jobname"
fi

# --- cori: interface discovery (eth3, where host names resolve too), c10d ----------
# (plmt's nmn0 with c10d is refused: t-e2e-field.sh.)
if with_args gen cori-c10d -s e2e-cori -N 3 -t 6 -r c10d "$script" &&
    submit cori-c10d 180; then
	expect_job cori-c10d 3 2 eth3 c10d ddp "$T/argv"
fi

# --- slurm: hostname discovery, static ---------------------------------------------
if with_args gen slurm -s e2e-slurm -N 3 -t 6 "$script" &&
    submit slurm 180; then
	expect_job slurm 3 2 hostname static ddp "$T/argv"
fi

# --- slurm: hostname discovery, c10d, 2 of the 3 nodes, 3 processes each -----------
if with_args gen slurm-c10d -s e2e-slurm -N 2 -n 3 -t 6 -r c10d "$script" &&
    submit slurm-c10d 180; then
	expect_job slurm-c10d 2 3 hostname c10d ddp "$T/argv"
fi

# --- plmt: one node, static --------------------------------------------------------
# The store on nmn0, the sockets on hsn0 and hsn1 (comm_iface).
if gen plmt-1 -s e2e-plmt -N 1 -t 6 "$script" && submit plmt-1 180; then
	expect_job plmt-1 1 2 nmn0/hsn0,hsn1 static ddp "$T/argv.none"
fi

# --- plmt: two nodes, Gloo's all-reduce over hsn0 --------------------------------------
if gen plmt-2 -s e2e-plmt -N 2 -t 6 "$script" && submit plmt-2 180; then
	expect_job plmt-2 2 2 nmn0/hsn0,hsn1 static ddp "$T/argv.none"
fi

# --- fault: the training fails on the second node ----------------------------------
# train.py exits 3 on node rank 1 once the process group is up: the
# job must end FAILED, saying so.  The other nodes' ranks fail too
# (their peers are gone), so which node srun names first is a race;
# torchrun's failure report names the host and the exit status.
if gen fail-node -s e2e-cori -N 3 -t 6 -e DDPTEST_FAIL_NODE=1 "$script" &&
    submit fail-node 120; then
	expect_failed fail-node \
	    '^([0-9]+: )?train\.py: rank [0-9]+ on node 1: failing on request' \
	    "that the training failed on node rank 1"
	expect_report_names fail-node node2
fi

# --- fault: the second node fails while the others wait for it ---------------------
# Node rank 1 exits before joining the process group, so the other
# nodes' ranks wait for it (gloo's timeout is 30 minutes); only srun
# --kill-on-bad-exit can end the job, once torchrun on node2 exits.
# torchrun 1.13 would wait in its exit barrier for the other agents,
# 300 s (agent/server/api.py, _invoke_run), holding the job until its
# 3-minute time limit (state TIMEOUT); ddprank's watcher ends it, naming
# the node. The bound, 240 s, is far above the watcher's 20 s grace and
# below the barrier's 300 s. torch 2.x's torchrun waits in no barrier
# after a failure and reports it itself (its "exitcode : 3" of node2's
# rank) before the watcher's grace is over: either says it.
if gen fail-start -s e2e-slurm -N 3 -t 6 -e DDPTEST_FAIL_NODE=1 \
    -e DDPTEST_FAIL_AT=start "$script" && submit fail-start 240; then
	expect_eq "fail-start: job $JOBID state" "$STATE" FAILED
	expect_output fail-start \
	    '^([0-9]+: )?(ddprank: node2: a training process, (local rank [01] \()?pid [0-9]+\)?, exited with status 3 and torchrun has no restarts left \(0 of 0 used\)|  exitcode +: 3 \(pid: [0-9]+\))' \
	    "that a worker on node2 failed"
	expect_output fail-start '^srun: error: node2: task 1: ' \
	    "that srun ended the step for node2"
fi

# --- fault: the profile's interface does not exist on the nodes --------------------
if gen noib -s e2e-noib -N 3 -t 6 "$script" && submit noib 120; then
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
# listening: the listener is up in node1.
listening() {
	[ -n "$(nsenter --net="/run/netns/ddp$ID-node1" ss -Hltn "sport = :$port")" ]
}
i=0
until listening || [ $i -ge 50 ]; do
	i=$((i + 1))
	sleep 0.2
done
check "port-taken: no listener on port $port in node1" listening
if gen port-taken -s e2e-cori -N 3 -t 6 --port "$port" "$script" &&
    submit port-taken 120; then
	expect_eq "port-taken: first node" "$FIRST" node1
	expect_failed port-taken \
	    "port $port is already in use on $("$cluster" addr node1 eth3)" \
	    "that the port is taken"
fi
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null
listener=

e2e_down
finish
