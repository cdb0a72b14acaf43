#!/bin/sh
# t-hang-watch.sh: ddprank exec --hang-timeout on one machine, with
# python workers that keep the contract (ddprank(1), HANGS) and no torch:
# each launcher's shape (torchrun's children, deepspeed's grandchildren,
# srun-direct's launcher that is the worker) has a stalled rank named,
# every worker's stacks printed with its node and rank, a record that
# ddprank verdict judges; a worker without the stack hook gives its
# stacks on SIGABRT; a slow worker that beats, and one that never beats,
# are left alone. The cluster case with torch is t-e2e-hang.sh.
. "$(dirname "$0")/lib.sh"

need_built
[ -x /usr/bin/python3 ] || skip "needs /usr/bin/python3"
[ -r /proc/self/stat ] || skip "needs /proc"
me=$(hostname)
cd "$T" || exit 1
printf '%s\n' "$me" >hosts

# worker.py MODE: beats every 0.1 s for 60 steps; "hang RANK" stops
# beating at step 10 on that rank (in a function of its own, for the
# stacks), "slow" beats every 1.5 s for 4 steps, "none" never beats
# (5 s), "nohook" hangs as "hang 0" after taking its stack hook away.
cat >worker.py <<'EOF'
import os, pathlib, sys, time
rank = os.environ["RANK"]
hb = os.environ.get("DDPGEN_HEARTBEAT")
mode = sys.argv[1:]
with open(os.environ["HB_NOTE"], "a") as f:
    f.write(hb + "\n")
def stuck_here():
    while True:
        time.sleep(100)
if mode[0] == "nohook":
    os.unlink(os.path.join(hb, "stacks.%d" % os.getpid()))
    mode = ["hang", "0"]
steps, pause = (4, 1.5) if mode[0] == "slow" else (60, 0.1)
for i in range(steps):
    if mode[0] == "hang" and rank == mode[1] and i == 10:
        stuck_here()
    time.sleep(pause)
    if mode[0] != "none":
        pathlib.Path(hb, rank).touch()
if mode[0] == "none":
    time.sleep(5)
EOF
# launcher.py DEPTH MODE...: starts ranks 0 and 1, as children (1) or
# grandchildren through a process without RANK (2); 0: is rank 0 itself.
cat >launcher.py <<'EOF'
import os, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
depth, mode = sys.argv[1], sys.argv[2:]
if depth == "0":
    os.environ.update(RANK="0", LOCAL_RANK="0")
    os.execv(sys.executable, [sys.executable, os.path.join(here, "worker.py")]
             + mode)
if depth == "2" and "RANK" not in os.environ:
    os.environ["RANK"] = "-"
    os.execv(sys.executable, [sys.executable, __file__, "2"] + mode)
os.environ.pop("RANK", None)
ps = [subprocess.Popen([sys.executable, os.path.join(here, "worker.py")]
                       + mode, env=dict(os.environ, RANK=str(r),
                                        LOCAL_RANK=str(r)))
      for r in range(2)]
sys.exit(max(p.wait() for p in ps))
EOF

# run NAME JOBID ARGS...: ddprank exec with a 2 s limit, in the
# background: NAME.rc, NAME.err; then ddprank verdict's NAME.verdict
# and NAME.summary for that job id.
run() {
	name=$1 job=$2
	shift 2
	(
		HB_NOTE=$T/$name.hb SLURM_JOB_ID=$job timeout -s KILL 120 \
		    "$DDPRANK" exec \
		    --hostfile hosts --port 1 --hang-timeout 2 -- \
		    /usr/bin/python3 "$T/launcher.py" "$@" 2>"$name.err"
		echo $? >"$name.rc"
		SLURM_JOB_ID=$job "$DDPRANK" verdict --hostfile hosts \
		    --site t --remember 3600 >"$name.verdict" 2>"$name.summary"
	) &
}
run tree 1 1 hang 1
run deep 2 2 hang 0
run direct 3 0 hang 0
run nohook 4 1 nohook
run slow 5 1 slow
run none 6 1 none
wait

# stalled NAME RANK [VERDICT]: the watcher's line, the rank's stacks
# labelled, the kill, the verdict (default: this node).
stalled() {
	check "$1: no stall line" grep -q \
	    "^ddprank: $me: rank $2 has not beaten for [0-9]* s (the stall limit is 2 s): taking every local worker's stacks, then ending the training in 10 s$" "$1.err"
	check "$1: no stack of rank $2 where it hangs" grep -q \
	    "^ddprank: $me: rank $2:   File \".*worker.py\", line [0-9]* in stuck_here$" "$1.err"
	check "$1: the launcher was not ended" test "$(cat "$1.rc")" -ne 0
	check "$1: verdict: $(cat "$1.verdict")" grep -qx "${3:-hang $me}" \
	    "$1.verdict"
}
stalled tree 1
check "tree: no stack of rank 0" grep -q \
    "^ddprank: $me: rank 0:   File \".*worker.py\", line [0-9]* in <module>$" tree.err
check "tree: summary: $(cat tree.summary)" grep -q \
    "^ddprank: rank 1 on $me has not beaten for [0-9]* s; it is in stuck_here (worker.py:[0-9]*); 1 other rank still beats$" \
    tree.summary
stalled deep 0
check "deep: the process without RANK is no worker" ! grep -q \
    "rank -" deep.err
# One rank alone: nothing to compare it with, no node stands out.
stalled direct 0 hang
check "direct: one worker" test "$(grep -c 'its stacks:$' direct.err)" -eq 1
check "nohook: no SIGABRT line" grep -q \
    "^ddprank: $me: rank 0 (pid [0-9]*): SIGABRT, for the stacks Python prints on it (PYTHONFAULTHANDLER)$" nohook.err
check "nohook: no stacks from faulthandler" grep -q \
    "^Fatal Python error: Aborted" nohook.err
check "nohook: rank 0 said it had no hook" grep -q \
    "rank 0 (local rank 0, pid [0-9]*) has not beaten .*; no stack hook in it" \
    nohook.err
for c in slow none; do
	expect_eq "$c: status" "$(cat "$c.rc")" 0
	check "$c: judged: $(cat "$c.err")" ! grep -q 'beaten' "$c.err"
	expect_eq "$c: verdict" "$(cat "$c.verdict")" none
done
# The records are gone; the nodes blamed are remembered.
check "records left: $(ls "$XDG_STATE_HOME/ddpgen/jobs")" test -z \
    "$(ls "$XDG_STATE_HOME/ddpgen/jobs")"
check "not remembered" grep -q "^t $me [0-9]* a training stalled on it" \
    "$XDG_STATE_HOME/ddpgen/bad-nodes"
# No heartbeat directory is left behind.
for d in $(sort -u ./*.hb); do
	check "$d: left behind" test ! -e "$d"
done
finish
