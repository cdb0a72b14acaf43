#!/usr/bin/python3
# fake-torchrun.py: what t-watch.sh's "torchrun" does, modelled on
# torch 1.13's agent (torch/distributed/elastic/agent/server/api.py,
# _invoke_run): it starts its workers as subprocesses with
# TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_MAX_RESTARTS and LOCAL_RANK,
# reaps them only when it polls, every 5 s (run.py's --monitor_interval
# default), restarts the group while restarts remain, and then waits in
# an exit barrier that SIGTERM does not end (the real one blocks in the
# store, where Python's handler cannot run).
# Usage: torchrun [--max-restarts=N] CODE[,CODE...] [BARRIER_SECONDS]
# One worker per CODE, run N+1 times at most: a worker exits CODE after
# a second; "fast3" exits 3 at once (before it could be looked at).
import os, signal, subprocess, sys, time

args = sys.argv[1:]
max_restarts = 0
if args[0].startswith("--max-restarts="):
    max_restarts = int(args.pop(0).split("=", 1)[1])
codes = args[0].split(",")
barrier = float(args[1]) if len(args) > 1 else 600
count = 0
while True:
    procs = []
    for local, code in enumerate(codes):
        env = dict(os.environ, TORCHELASTIC_RESTART_COUNT=str(count),
                   TORCHELASTIC_MAX_RESTARTS=str(max_restarts),
                   LOCAL_RANK=str(local))
        if code.startswith("fast"):
            cmd = ["/bin/sh", "-c", "exit " + code[4:]]
        else:
            cmd = ["/bin/sh", "-c", "sleep 1; exit " + code]
        procs.append(subprocess.Popen(cmd, env=env))
    while True:
        time.sleep(5)
        rcs = [p.poll() for p in procs]
        if any(rc not in (None, 0) for rc in rcs) or all(rc == 0 for rc in rcs):
            break
    for p in procs:
        if p.poll() is None:
            p.terminate()
            p.wait()
    failed = any(rc not in (None, 0) for rc in rcs)
    if failed and count < max_restarts:
        count += 1
        codes = ["0"] * len(codes)
        continue
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print("fake torchrun: in the exit barrier", file=sys.stderr, flush=True)
    time.sleep(barrier)
    sys.exit(1 if failed else 0)
