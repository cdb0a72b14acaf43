"""bind-toy.py SECONDS_FILE: a CPU-bound toy training step for
bench/bind.sh: import torch, then STEPS steps of a matrix product on
torch's threads (OMP_NUM_THREADS, else every CPU the process may use),
and write the seconds the steps took to SECONDS_FILE."""

import os
import sys
import time

import torch

threads = int(os.environ.get("OMP_NUM_THREADS") or len(os.sched_getaffinity(0)))
torch.set_num_threads(threads)
steps = int(os.environ.get("BIND_TOY_STEPS", "40"))
a = torch.randn(384, 384)
b = torch.randn(384, 384)
# Both workers start their steps together, as DDP's first all-reduce
# would have them.
go = float(os.environ["BIND_TOY_GO"])
while time.time() < go:
    time.sleep(0.001)
t0 = time.perf_counter()
for _ in range(steps):
    for _ in range(8):
        c = a @ b
    a = c / c.norm()
with open(sys.argv[1], "w") as f:
    f.write("%.6f\n" % (time.perf_counter() - t0))
