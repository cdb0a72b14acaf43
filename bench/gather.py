#!/usr/bin/env python3
"""bench/gather.py: node 0's side of the gather (the launch timeline's,
which is the doctor's) at N simulated nodes, on this machine.

Node 0 is a real `ddprank exec` of a job of N hosts (a hostfile, this
process's host name sim0 in a UTS namespace of its own, no secret),
whose launcher marks its first collective at once and then waits, so
that node 0's reporter waits for the N - 1 other nodes' lines. The other
nodes are connections of this script, each from an address of its own
(127.1.X.Y, as nodes have theirs), all started together: each sends one
node's line and waits for node 0's "ok". Prints, per N: the time from
the first connection to the last "ok", the reporter's CPU time over the
gather, how many lines node 0's report counts as missing, and the
connections that did not get their "ok" on their first try. The
senders' own work (Python) shares this machine's cores with node 0,
which a cluster's nodes do not.

    sudo python3 bench/gather.py [N ...]	# default: 256 1024 4096

Root (a UTS namespace, and addresses of 127.0.0.0/8 as sources); run
by hand, not in make check. DDPRANK names the program (default: this
tree's, with its python/ beside it).
"""

import asyncio
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DDPRANK = os.environ.get("DDPRANK", os.path.join(HERE, "ddprank"))
TRAIN_PORT = 24000

LAUNCH = """import os, sys, time
from ddprank_timeline import mark
mark("collective")
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(os.environ.get("DDPRANK_TIMELINE", ""))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(600)
"""


def reporter_port(pids):
    """The port one of pids listens on, other than the training's."""
    inodes = {}
    for pid in pids:
        try:
            for fd in os.listdir("/proc/%d/fd" % pid):
                link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
                m = re.match(r"socket:\[(\d+)\]", link)
                if m:
                    inodes[m.group(1)] = pid
        except OSError:
            continue
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            w = line.split()
            if w[3] == "0A" and w[9] in inodes:
                port = int(w[1].split(":")[1], 16)
                if port != TRAIN_PORT:
                    return port, inodes[w[9]]
    return None, None


def cpu(pid):
    with open("/proc/%d/stat" % pid) as f:
        w = f.read()
    w = w[w.rindex(")") + 2:].split()
    return (int(w[11]) + int(w[12])) / os.sysconf("SC_CLK_TCK")


async def send(i, port, t, stats):
    src = "127.1.%d.%d" % (i // 250, i % 250 + 1)
    msg = ("ddprank-timeline 1\nnode %d sim%d done 0 0 step=%.6f "
           "ddprank=%.6f rank=%.6f exec=%.6f collective=%.6f\nend\n"
           % (i, i, t, t, t, t, t)).encode()
    for attempt in range(100):
        try:
            r, w = await asyncio.open_connection("127.0.0.1", port,
                                                 local_addr=(src, 0))
            w.write(msg)
            await w.drain()
            ack = await r.readexactly(3)
            w.close()
            if ack == b"ok\n":
                stats["retried"] += attempt > 0
                return time.monotonic()
        except (OSError, asyncio.IncompleteReadError):
            pass
        await asyncio.sleep(0.2)
    stats["failed"] += 1
    return None


async def senders(n, port):
    stats = {"retried": 0, "failed": 0}
    t = time.time()
    t0 = time.monotonic()
    done = await asyncio.gather(*(send(i, port, t, stats)
                                  for i in range(1, n)))
    last = max(d for d in done if d is not None) if any(done) else t0
    return last - t0, stats


def one(n):
    d = tempfile.mkdtemp(prefix="ddpgen-gather.")
    with open(os.path.join(d, "hosts"), "w") as f:
        f.write("".join("sim%d\n" % i for i in range(n)))
    with open(os.path.join(d, "launch.py"), "w") as f:
        f.write(LAUNCH)
    ready = os.path.join(d, "ready")
    env = dict(os.environ, SLURM_JOB_ID="777", MASTER_ADDR="127.0.0.1",
               DDPRANK_TIMELINE_WAIT="120", LOCAL_RANK="0",
               LOCAL_WORLD_SIZE="1")
    env.pop("DDPRANK_SECRET", None)
    err = open(os.path.join(d, "err"), "w+")
    p = subprocess.Popen(
        ["unshare", "--uts", "sh", "-c", 'hostname sim0 && exec "$@"', "sh",
         DDPRANK, "exec", "--hostfile", "hosts", "-p", str(TRAIN_PORT),
         "--", sys.executable, "launch.py", ready],
        cwd=d, env=env, stderr=err, stdout=subprocess.DEVNULL)
    for _ in range(300):
        if os.path.exists(ready):
            break
        time.sleep(0.1)
    # The reporter: the process whose file the hook is.
    port = rep = None
    m = re.match(r"/proc/(\d+)/fd/", open(ready).read()) \
        if os.path.exists(ready) else None
    for _ in range(50 if m else 0):
        port, rep = reporter_port([int(m.group(1))])
        if port:
            break
        time.sleep(0.1)
    if port is None:
        p.kill()
        sys.exit("bench/gather.py: node 0's reporter does not listen")
    c0 = cpu(rep)
    took, stats = asyncio.run(senders(n, port))
    c1 = cpu(rep)
    report = ""
    for _ in range(100):
        err.seek(0)
        report = err.read()
        if "\nstart-up " in report:
            break
        time.sleep(0.1)
    p.kill()
    p.wait()
    subprocess.run(["rm", "-rf", d])
    m = re.search(r"no timeline from .* \((\d+) nodes?\)", report)
    print("%6d %10.3f %12.1f %8s %8d %7d" % (
        n, took, (c1 - c0) * 1000, m.group(1) if m else "0",
        stats["retried"], stats["failed"]))
    sys.stdout.flush()


def main():
    ns = [int(a) for a in sys.argv[1:]] or [256, 1024, 4096]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    print("%6s %10s %12s %8s %8s %7s" % ("nodes", "gather (s)",
          "node 0 (ms)", "missing", "retried", "failed"))
    for n in ns:
        one(n)


if __name__ == "__main__":
    main()
