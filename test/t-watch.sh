#!/bin/sh
# t-watch.sh: ddprank exec ends a torchrun whose workers failed with no
# restarts left, instead of letting it hold the job in its 300 s exit
# barrier (torchrun itself or python3 -m torch.distributed.run), and
# leaves alone a torchrun whose workers succeeded or that restarts them. test/fake-torchrun.py plays torchrun 1.13's agent; the
# cluster case with the real torchrun is in t-e2e-slurm.sh (fail-start).
. "$(dirname "$0")/lib.sh"

need_built
[ -x /usr/bin/python3 ] || skip "needs /usr/bin/python3"
[ -r /proc/self/stat ] || skip "needs /proc"
me=$(hostname)
cd "$T" || exit 1
printf '%s\n' "$me" >hosts
mkdir bin
cp "$srcdir/test/fake-torchrun.py" bin/torchrun
chmod +x bin/torchrun
# A site's wrapper named torchrun that waits for every child it has
# (os.wait until there is none): the watcher must not be one of them.
mkdir wrap
cat >wrap/torchrun <<EOF
#!/usr/bin/python3
import os, sys
if os.fork() == 0:
    os.execv("$T/bin/torchrun", ["torchrun"] + sys.argv[1:])
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
EOF
chmod +x wrap/torchrun
# torchrun as a module, as HPC Pack's profile starts it:
# python3 -m torch.distributed.run (a "torch" of the fake alone).
mkdir -p mod/torch/distributed
: >mod/torch/__init__.py
: >mod/torch/distributed/__init__.py
cp "$srcdir/test/fake-torchrun.py" mod/torch/distributed/run.py

# run NAME ARGS...: ddprank exec runs the fake torchrun with ARGS, in
# the background; the status goes to NAME.rc, standard error to NAME.err.
# A bound far above the watcher's 20 s grace and far below the barrier.
run() {
	name=$1
	shift
	dir=bin
	[ "$name" != wrapper ] || dir=wrap
	set -- "$T/$dir/torchrun" "$@"
	[ "$name" != module ] ||
	    { shift; set -- /usr/bin/python3 -m torch.distributed.run "$@"; }
	(
		PYTHONPATH=$T/mod timeout -s HUP 200 "$DDPRANK" exec \
		    --hostfile hosts --port 1 -- "$@" 2>"$name.err"
		echo $? >"$name.rc"
	) &
}

# A worker exits 3 and no restart is left: ended, saying where and why.
run fail 0,3
# A worker exits 3 at once, before its environment could be read:
# argv's count (none: 0) says no restart is left.
run fast fast3
# Both workers succeed; torchrun waits 35 s in its barrier (another
# node's rank 0 saving): it must not be ended.
run ok 0,0 35
# A worker fails with a restart left: torchrun restarts the group,
# which succeeds, and waits 35 s in its barrier.
run restart --max-restarts=1 3 35
# As fast3, with a restart left that argv alone tells.
run fast-restart --max-restarts=1 fast3 35
# Through the wrapper, whose os.wait loop ends with its last child.
run wrapper 0 3
# As fail, torchrun run as python3 -m torch.distributed.run.
run module 0,3
wait

expect_eq "fail: killed (SIGKILL) after SIGTERM was ignored" \
    "$(cat fail.rc)" 137
check "fail: the message names the node, the local rank and the status" \
    grep -q "^ddprank: $me: a training process, local rank 1 (pid [0-9]*), exited with status 3 and torchrun has no restarts left (0 of 0 used)" fail.err
expect_eq "module: killed (SIGKILL) after SIGTERM was ignored" \
    "$(cat module.rc)" 137
check "module: the message names the node, the local rank and the status" \
    grep -q "^ddprank: $me: a training process, local rank 1 (pid [0-9]*), exited with status 3 and torchrun has no restarts left (0 of 0 used)" module.err
expect_eq "fast: killed" "$(cat fast.rc)" 137
check "fast: the message names the status" \
    grep -q "^ddprank: $me: .* exited with status 3 and torchrun has no restarts left (0 of 0 used)" fast.err
for c in ok restart fast-restart wrapper; do
	expect_eq "$c: torchrun's own exit status" "$(cat $c.rc)" 0
	check "$c: ddprank says nothing" ! grep -q "^ddprank:" $c.err
done
finish
