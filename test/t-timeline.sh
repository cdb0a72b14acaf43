#!/bin/sh
# t-timeline.sh: the launch timeline of ddprank exec without a cluster:
# each node is a process of this machine with a host name of its own
# (unshare --uts), the node list a hostfile, node 0's address
# 127.0.0.1, and the launcher a stand-in that starts one "worker", a
# python that marks its phases through the hook (python/
# ddprank_timeline.py). Node 0's report is on its standard error.
#   slow      node2's training takes 2 s more to import: the report names
#             node2 and import; the others' phases are there
#   garbage   node2's training writes junk into the hook (bad lines, NUL
#             bytes, a line of 10 kB, 100 kB in all) and closes it: the
#             report still comes, says how many lines were refused and
#             that the rest was not read; node2's phases written before
#             the junk count; past the bound a mark goes nowhere
#   never     node2 never starts: node 0 reports alone within seconds
#             of its launcher's end, naming node2
#   secret    node2 has another secret: its line is refused, and node2
#             named as missing
#   late      a mark after the report goes nowhere (the helper says so),
#             and nothing blocks
#   silent    a training that never reaches a collective and runs on:
#             with DDPRANK_TIMELINE_WAIT=2 node 0's report comes while
#             it still runs (it looks, 6 s after its start), both nodes
#             in it, no collective
#   none      a one-node job whose launcher is no training (true): no
#             report, which would come after the command
#   off       DDPRANK_TIMELINE_WAIT=0: no report, no DDPRANK_TIMELINE
#   bad-wait  DDPRANK_TIMELINE_WAIT=soon: one line, exit 2
. "$(dirname "$0")/lib.sh"

need_built ddprank
need_progs unshare python3 timeout
[ -r /proc/self/stat ] || skip "needs /proc"
if [ "$(id -u)" = 0 ]; then
	uts="unshare --uts"
else
	uts="unshare --user --map-root-user --uts"
fi
# shellcheck disable=SC2086 # the command's words
$uts true 2>/dev/null || skip "cannot make UTS namespaces ($uts)"
cd "$T" || exit 1
printf 'node1\nnode2\n' >hosts
secret=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff

# The launcher: one worker, as torchrun would start it.
cat >launch <<'EOF'
#!/bin/sh
LOCAL_RANK=0 LOCAL_WORLD_SIZE=1
export LOCAL_RANK LOCAL_WORLD_SIZE
exec python3 "$@"
EOF
# The training: its phases, with what the case asks of this node.
cat >train.py <<'EOF'
import os, socket, sys, time
from ddprank_timeline import mark
case, host = sys.argv[1], socket.gethostname()
with open("env.%s.%s" % (case, host), "w") as f:
    f.write(os.environ.get("DDPRANK_TIMELINE", "-"))
if case == "slow" and host == "node2":
    time.sleep(2)
mark("import")
if case == "garbage" and host == "node2":
    with open(os.environ["DDPRANK_TIMELINE"], "ab") as f:
        f.write(b"import yesterday\ncollective \x00\n")
        f.write(b"x" * 10000 + b"\n")
        f.write((b"init 1.5e9 a b\n" * 7000)[:100000])
    time.sleep(0.5)
    print("after the bound: %s" % mark("init"))
if case == "silent":
    time.sleep(6)
    with open("silent.node1.err") as f:
        seen = "\nstart-up " in f.read()
    with open("seen.%s.%s" % (case, host), "w") as f:
        f.write("yes" if seen else "no")
    sys.exit(0)
mark("init")
mark("collective")
if case == "late":
    time.sleep(1.5)
    print("late mark: %s" % mark("collective"))
time.sleep(0.5)
EOF
chmod +x launch

# node CASE HOST [ENV...]: ddprank exec as node HOST of job CASE, in the
# background; standard error to CASE.HOST.err, the status to
# CASE.HOST.rc.
node() {
	c=$1 h=$2
	shift 2
	(
		# shellcheck disable=SC2086 # the command's words
		env SLURM_JOB_ID="$(printf %s "$c" | cksum | cut -c1-6)" \
		    MASTER_ADDR=127.0.0.1 DDPRANK_SECRET=$secret "$@" \
		    timeout 60 $uts sh -c 'hostname "$1" && shift && exec "$@"' \
		    sh "$h" "$DDPRANK" exec --hostfile hosts --port-range \
		    21000-21999 -- ./launch train.py "$c" \
		    >"$c.$h.out" 2>"$c.$h.err"
		echo $? >"$c.$h.rc"
	) &
}

# report CASE: node 0's report, once its reporter has written it.
report() {
	i=0
	while ! grep -q '^start-up ' "$1.node1.err" 2>/dev/null &&
	    [ "$i" -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	cat "$1.node1.err"
}

t0=$(date +%s)
node slow node1
node slow node2
node garbage node1
node garbage node2
node never node1
node secret node1
node secret node2 DDPRANK_SECRET=ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100
node late node1
node late node2
node silent node1 DDPRANK_TIMELINE_WAIT=2
node silent node2 DDPRANK_TIMELINE_WAIT=2
node off node1 DDPRANK_TIMELINE_WAIT=0
node off node2 DDPRANK_TIMELINE_WAIT=0
node bad-wait node1 DDPRANK_TIMELINE_WAIT=soon
printf 'node1\n' >onehost
# shellcheck disable=SC2086 # the command's words
env SLURM_JOB_ID=4711 MASTER_ADDR=127.0.0.1 DDPRANK_SECRET=$secret \
    timeout 60 $uts sh -c 'hostname node1 && exec "$@"' sh "$DDPRANK" exec \
    --hostfile onehost --port-range 21000-21999 -- true 2>none.err &
wait

r=$(report slow)
expect_has "slow: a report" "ddprank timeline: 2 nodes, start-up" "$r"
expect_has "slow: node2's import named" "; slowest: node2 import " "$r"
for p in "step start" "task to ddprank" "node list and rank" \
    "ddprank to launcher" "launcher to python" import "process group" \
    "first collective"; do
	check "slow: phase $p in the report" matches "$r" "*
$p *"
done
expect_lacks "slow: nothing missing" "no timeline from" "$r"
check "slow: the hook is a path of /proc" \
    matches "$(cat env.slow.node1)" "/proc/[0-9]*/fd/[0-9]*"

r=$(report garbage)
expect_has "garbage: a report" "ddprank timeline: 2 nodes" "$r"
check "garbage: the junk counted" matches "$r" "*
node2: [0-9]* lines of the training's hook ignored, and everything after its first 64 KiB
*"
check "garbage: node2's import counted" matches "$r" "*
import  *"
expect_lacks "garbage: nothing missing" "no timeline from" "$r"
expect_eq "garbage: past its bound the hook leads nowhere" \
    "$(cat garbage.node2.out)" "after the bound: False"

r=$(report never)
expect_has "never: node2 missing" "no timeline from node2 (1 node)" "$r"
check "never: node 0's own phases" matches "$r" "*
first collective *node1
*"

r=$(report secret)
expect_has "secret: node2's line refused" "no timeline from node2 (1 node)" "$r"

r=$(report late)
expect_has "late: a report" "ddprank timeline: 2 nodes" "$r"
expect_eq "late: a mark after the end goes nowhere" \
    "$(cat late.node1.out late.node2.out)" "late mark: False
late mark: False"

r=$(cat silent.node1.err)
expect_has "silent: a report" "ddprank timeline: 2 nodes" "$r"
expect_lacks "silent: nothing missing" "no timeline from" "$r"
expect_lacks "silent: no collective phase" "
first collective" "$r"
# Before its collective, or (on loaded cores) before its python started.
check "silent: the wait named" matches "$r" "*
node1: no * within 2 s
*"
expect_eq "silent: the report came while the trainings ran" \
    "$(cat seen.silent.node1 seen.silent.node2)" "yesyes"

expect_eq "none: no report" "$(cat none.err)" ""

expect_eq "off: no DDPRANK_TIMELINE" "$(cat env.off.node1 env.off.node2)" "--"
expect_eq "off: nothing on standard error" "$(cat off.node1.err off.node2.err)" ""

expect_eq "bad-wait: exit status" "$(cat bad-wait.node1.rc)" 2
expect_eq "bad-wait: one line" "$(cat bad-wait.node1.err)" \
    "ddprank: DDPRANK_TIMELINE_WAIT: 'soon' is not a number of seconds from 0 (off) to 86400"

for c in slow garbage never secret late silent off; do
	for h in node1 node2; do
		[ -f "$c.$h.rc" ] || continue
		expect_eq "$c: $h's status" "$(cat "$c.$h.rc")" 0
	done
done
echo "TIME: all cases $(($(date +%s) - t0)) s"
finish
