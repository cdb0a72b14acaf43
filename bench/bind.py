"""bind.py DDPRANK PYTHON: the two measures of bench/bind.sh (see
bench/README.md): what binding costs at start, next to torch's import,
and a CPU-bound toy step with two workers, bound and not."""

import os
import statistics
import subprocess
import sys
import tempfile
import time

ddprank, py = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
ncpu = len(os.sched_getaffinity(0))
RUNS = int(os.environ.get("RUNS", "100"))
REPEAT = int(os.environ.get("REPEAT", "5"))


def median_ms(argv, env=None, runs=RUNS):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def start_cost():
    plan = subprocess.run([ddprank, "bind", "--explain", "--bind", "numa",
                           "-n", "2"], check=True, capture_output=True)
    env = dict(os.environ, LOCAL_RANK="0", LOCAL_WORLD_SIZE="2",
               DDPRANK_BIND_PLAN="1;numa;-;0/1/-/-;1/1/-/-")
    base = median_ms(["true"])
    step = median_ms([ddprank, "bind", "--", "true"], env)
    explain = median_ms([ddprank, "bind", "--explain", "--bind", "numa",
                         "-n", "2"])
    torch_ms = median_ms([py, "-c", "import torch"], runs=max(3, RUNS // 20))
    print("start-up (medians of %d runs; torch's import of %d):"
          % (RUNS, max(3, RUNS // 20)))
    print("  a worker's binding step (ddprank bind -- true): %.2f ms, "
          "true alone %.2f ms: %.2f ms more" % (step, base, step - base))
    print("  the node's plan (hwloc's topology; bind --explain): %.2f ms"
          % explain)
    print("  python -c 'import torch': %.0f ms" % torch_ms)
    print("  torch's import / the binding step's cost: %.0fx; / the plan's: "
          "%.0fx" % (torch_ms / max(step - base, 0.01), torch_ms / explain))
    return plan.stdout.decode()


def toy(mode, tmp):
    """Seconds of the slower of two workers' steps."""
    go = time.time() + 6.0
    procs, files = [], []
    for r in range(2):
        out = os.path.join(tmp, "%s.%d" % (mode, r))
        env = dict(os.environ, BIND_TOY_GO="%.3f" % go)
        env.pop("OMP_NUM_THREADS", None)
        argv = [py, os.path.join(here, "bind-toy.py"), out]
        if mode == "bound":
            env.update(LOCAL_RANK=str(r), LOCAL_WORLD_SIZE="2",
                       DDPRANK_BIND_PLAN=plan_wire)
            argv = [ddprank, "bind", "--"] + argv
        elif mode == "one-thread":
            env["OMP_NUM_THREADS"] = "1"
        procs.append(subprocess.Popen(argv, env=env))
        files.append(out)
    for p in procs:
        if p.wait() != 0:
            sys.exit("bind.py: a worker failed (%s)" % mode)
    return max(float(open(f).read()) for f in files)


def toy_bench():
    modes = ("bound", "one-thread", "all-threads")
    got = {m: [] for m in modes}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(REPEAT):
            for m in modes:
                got[m].append(toy(m, tmp))
    med = {m: statistics.median(got[m]) for m in modes}
    print("toy step, 2 workers on %d CPUs (median of %d; the slower worker):"
          % (ncpu, REPEAT))
    print("  bound (a CPU each, OMP_NUM_THREADS=1): %.2f s" % med["bound"])
    print("  unbound, OMP_NUM_THREADS=1 (torchrun's default): %.2f s, "
          "%.2fx bound's" % (med["one-thread"],
                             med["one-thread"] / med["bound"]))
    print("  unbound, every CPU each (no OMP_NUM_THREADS): %.2f s, "
          "%.2fx bound's" % (med["all-threads"],
                             med["all-threads"] / med["bound"]))


if ncpu < 2:
    sys.exit("bind.py: this machine gives %d CPU: two workers need two"
             % ncpu)
start_cost()
# One CPU each: the plan of bind = numa for two ranks, were this one NUMA
# domain; made by ddprank exec as a job would.
plan_wire = subprocess.run(
    [ddprank, "exec", "--hostfile", "/dev/stdin", "--port", "29999",
     "--bind", "numa", "-n", "2", "--", "sh", "-c",
     'printf %s "$DDPRANK_BIND_PLAN"'],
    input=(os.uname().nodename + "\n").encode(), check=True,
    capture_output=True).stdout.decode()
print("plan:", plan_wire)
toy_bench()
