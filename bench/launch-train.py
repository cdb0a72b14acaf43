# launch-train.py: bench/launch.sh's training. Each rank writes, once
# past its first all-reduce, the time and its rank to
# $BENCH_DIR/rank.JOBID.RANK; importing torch is part of the time, as in
# any training.
import os
import time

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
t = torch.ones(1)
dist.all_reduce(t)
now = time.time()
path = os.path.join(os.environ["BENCH_DIR"], "rank.%s.%d" % (
    os.environ["SLURM_JOB_ID"], dist.get_rank()))
with open(path, "w") as f:
    f.write("%.6f %d\n" % (now, int(t.item())))
dist.destroy_process_group()
