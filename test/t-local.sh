#!/bin/sh
# t-local.sh: local jobs for real: "ddpgen --site local train.py > run.sh;
# bash run.sh" on this machine, no scheduler, torch with gloo on the CPU.
# First, at once:
#   one    1 node, 1 process (no GPU here: the script says so), the
#          training's arguments byte for byte
#   two    1 node, -n 2
#   nodes  --nodes 2 -n 2: 4 ranks on 2 virtual nodes, node ranks 0 and 1
#          on this one host, the master 127.0.0.1 (ddprank's loopback
#          refusal lifted for local jobs alone)
#   fail   --nodes 2, node 1's ranks exit 3: the script names the node,
#          ends the other and exits non-zero, leaving nothing running
#   site   --local over a user's profile that extends slurm.conf with a
#          partition, env and a setup line: its environment, no scheduler
#   ref    examples/train_resumable.py on 2 nodes, uninterrupted
#   stall  --nodes 3 --hang-timeout 5, rank 1 hangs inside a collective at
#          step 5 (test/e2e/hang_train.py): the stall limit rehearsed,
#          the rank named with its stacks, the run ended, nothing left
# Then the life cycle rehearsed, both at once, each training slow (1 s a
# step) until its first restart:
#   time   --nodes 2 --time 1:30 --signal-lead 30: the warning 60 s in, a
#          checkpoint, the script running itself again with
#          DDPGEN_RESTART_COUNT 1 and DDPGEN_LAST_STOP time-limit
#   hand   -n 2, kill -USR2 the script once the training runs: the same,
#          DDPGEN_LAST_STOP by-hand
# both ending with parameters bit-identical to ref's, and no saved
# environment left in TMPDIR. About 100 s, mostly the rehearsal's
# waiting. No case depends on when the test acts: the warning comes 60 s
# after the training starts (torch 2.6 takes 3 s a process to import),
# and hand's signal once its training says it runs.
. "$(dirname "$0")/lib.sh"

need_torchrun
need_built ddpgen ddprank
need_progs setsid
command -v python3 >/dev/null || skip "needs python3"

DDPGEN_PROFILE_PATH=$srcdir/profiles
DDPGEN_TEMPLATE_PATH=$srcdir/templates
# Debian 12's torchrun needs the Python 3.11 fix of test/cluster.
PYTHONPATH=$srcdir/test/cluster${PYTHONPATH:+:$PYTHONPATH}
TMPDIR=$T/tmp
export DDPGEN_PROFILE_PATH DDPGEN_TEMPLATE_PATH PYTHONPATH TMPDIR
mkdir -p "$TMPDIR"
check_job=$srcdir/test/cluster/check_job.py
example=$srcdir/examples/train_resumable.py

# The training's first run 1 s a step, so that the warning finds it
# running; its restarts at full speed.
cat >"$T/slowfirst.py" <<EOF
import os, runpy, sys
if os.environ.get("DDPGEN_RESTART_COUNT", "0") == "0":
    sys.argv += ["--step-seconds", "1"]
sys.argv[0] = "$example"
runpy.run_path("$example", run_name="__main__")
EOF

# gen NAME DDPGEN-ARGS...: $T/NAME/run.sh, generated in $T/NAME with a
# copy of train.py there (so that its processes are told apart).
gen() {
	name=$1
	shift
	mkdir -p "$T/$name"
	cp "$srcdir/test/train.py" "$T/$name/train.py"
	(cd "$T/$name" && "$DDPGEN" "$@" >run.sh)
}

# run NAME [VAR=VALUE...]: bash run.sh in $T/NAME, its output in out and
# err, its status in rc.
run() {
	name=$1
	shift
	(cd "$T/$name" && env "$@" bash run.sh >out 2>err; echo $? >rc)
}

# Arguments a shell would mangle: blanks, quotes, $, globs, an empty one,
# a newline, bytes that are not UTF-8.
printf '%s\0' 'a b' "it's" '$HOME' '*' '' "$(printf 'x\ny')" \
    "$(printf '\377\001')" --lr=0.1 >"$T/argv"
set -- 'a b' "it's" '$HOME' '*' '' "$(printf 'x\ny')" \
    "$(printf '\377\001')" --lr=0.1

cat >"$T/mysite.conf" <<'EOF'
description = "a user's cluster, run here with --local"
extends = "slurm"
partition = "gpu"
account = "m1234"
env = {"DDPTEST_VAR=from-$DDPTEST_FROM"}
setup = {"export DDPTEST_FROM=setup"}
EOF

check "generate one" gen one --site local train.py "$@"
check "generate two" gen two --site local -n 2 train.py "$@"
check "generate nodes" gen nodes --site local --nodes 2 -n 2 train.py "$@"
check "generate fail" gen fail --site local --nodes 2 train.py
check "generate site" gen site --site "$T/mysite.conf" --local train.py
check "generate ref" gen ref --site local --nodes 2 "$example" \
    --checkpoint "$T/ref/ckpt.pt" --steps 100 --result "$T/ref/result"
check "generate stall" gen stall --site local --nodes 3 --hang-timeout 5 \
    "$srcdir/test/e2e/hang_train.py" --checkpoint "$T/stall/ckpt.pt" \
    --steps 1000 --result "$T/stall/result"
check "generate time" gen time --site local --nodes 2 --time 1:30 \
    --signal-lead 30 "$T/slowfirst.py" --checkpoint "$T/time/ckpt.pt" \
    --steps 100 --result "$T/time/result"
check "generate hand" gen hand --site local -n 2 "$T/slowfirst.py" \
    --checkpoint "$T/hand/ckpt.pt" --steps 100 --result "$T/hand/result"
expect_has "site: no scheduler" "--scheduler local" \
    "$(cat "$T/site/run.sh")"
expect_lacks "site: its partition is dropped" "partition" \
    "$(cat "$T/site/run.sh")"

run one &
run two &
run nodes &
run fail DDPTEST_FAIL_NODE=1 &
run site &
run ref &
run stall DDPTEST_HANG=1:5 &
wait

rc() { cat "$T/$1/rc"; }
expect_eq "one: exit" "$(rc one)" 0
check "one: 1 rank, argv byte for byte" python3 "$check_job" --nodes 1 \
    --procs-per-node 1 --master-addr 127.0.0.1 --argv-file "$T/argv" \
    --expect-env PET_NNODES=1 "$T/one/out"
expect_has "one: no GPU, one process on the CPU" "ddpgen job: no GPU on this machine: one process per node, on the CPU" \
    "$(cat "$T/one/err")"
expect_eq "two: exit" "$(rc two)" 0
check "two: 2 ranks" python3 "$check_job" --nodes 1 --procs-per-node 2 \
    --argv-file "$T/argv" "$T/two/out"
expect_eq "nodes: exit" "$(rc nodes)" 0
check "nodes: 4 ranks on 2 virtual nodes" python3 "$check_job" --nodes 2 \
    --procs-per-node 2 --virtual-nodes --master-addr 127.0.0.1 \
    --argv-file "$T/argv" --expect-env PET_NNODES=2 \
    --expect-env GLOO_SOCKET_IFNAME=lo --expect-unset DDPRANK_SECRET \
    "$T/nodes/out"
check "fail: exit non-zero" test "$(rc fail)" -ne 0
expect_has "fail: the failed node named" "exited with status" \
    "$(cat "$T/fail/err")"
check "fail: nothing left running" ! pgrep -f "$T/fail/train.py"
expect_eq "site: exit" "$(rc site)" 0
check "site: the profile's env and setup" python3 "$check_job" --nodes 1 \
    --procs-per-node 1 --expect-env DDPTEST_VAR=from-setup "$T/site/out"
expect_eq "ref: exit" "$(rc ref)" 0
check "stall: exit non-zero" test "$(rc stall)" -ne 0
expect_has "stall: the rank named first" "ddprank: rank 1 on " \
    "$(cat "$T/stall/err")"
expect_has "stall: its stacks, in the collective" "rank 1:   File" \
    "$(grep 'in all_reduce' "$T/stall/err")"
expect_has "stall: the others' stacks" "rank 2:   File" \
    "$(cat "$T/stall/err")"
check "stall: not finished" test ! -e "$T/stall/result"
check "stall: nothing left running" ! pgrep -f "$srcdir/test/e2e/hang_train.py.*$T/stall"

# The rehearsal: both at once; hand's signal once its training runs.
run time &
tpid=$!
run hand &
hpid=$!
n=0
until grep -q 'resuming at step 0' "$T/hand/out" 2>/dev/null ||
    [ "$n" -ge 600 ] || ! kill -0 "$hpid" 2>/dev/null; do
	sleep 0.5
	n=$((n + 1))
done
pid=$(sed -n 's/^ddpgen job: process \([0-9][0-9]*\) .*/\1/p' "$T/hand/err" |
    head -n 1)
check "hand: the script's process id" test -n "$pid" &&
	check "hand: kill -USR2 the script" kill -USR2 "$pid"
wait "$tpid" "$hpid"

for c in time hand; do
	expect_eq "$c: exit" "$(rc "$c")" 0
	expect_has "$c: checkpointed" "checkpointed at step" "$(cat "$T/$c/out")"
	expect_eq "$c: the parameters of an uninterrupted run" \
	    "$(cat "$T/$c/result" 2>/dev/null)" "$(cat "$T/ref/result")"
done
expect_has "time: warned by the timer" "ddpgen job: time limit in 30 s: checkpoint signal sent to 2 processes on 2 nodes" \
    "$(cat "$T/time/err")"
expect_has "time: restarted, counted" "restarted as a requeue would be (restart 1 of at most 3)" \
    "$(cat "$T/time/err")"
expect_has "time: the restart knows itself" "restart 1, last stop time-limit, resuming at step" \
    "$(cat "$T/time/out")"
expect_has "hand: asked for by hand" "ddpgen job: checkpoint asked for by hand: checkpoint signal sent to 2 processes on 1 node" \
    "$(cat "$T/hand/err")"
expect_has "hand: restarted, not counted" "restarted as a requeue would be (restart 1; checkpoints asked for by hand are not counted)" \
    "$(cat "$T/hand/err")"
expect_has "hand: the restart knows itself" "restart 1, last stop by-hand, resuming at step" \
    "$(cat "$T/hand/out")"
expect_eq "no saved environment left in TMPDIR" \
    "$(find "$TMPDIR" -name 'ddpgen-env.*')" ""
finish
