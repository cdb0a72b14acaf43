# launch-train.py: bench/launch.sh's training. Each rank writes, once
# past its first all-reduce, the time and its rank to
# $BENCH_DIR/rank.JOBID.RANK; importing torch is part of the time, as in
# any training. It marks its phases in ddprank's launch timeline.
import os
import time

try:  # the launch timeline's hook (ddprank(1), TIMELINE), under ddprank
    from ddprank_timeline import mark
except ImportError:
    def mark(phase):
        return False

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

mark("import")
dist.init_process_group("gloo")
mark("init")
t = torch.ones(1)
dist.all_reduce(t)
now = time.time()
mark("collective")
path = os.path.join(os.environ["BENCH_DIR"], "rank.%s.%d" % (
    os.environ["SLURM_JOB_ID"], dist.get_rank()))
with open(path, "w") as f:
    f.write("%.6f %d\n" % (now, int(t.item())))
dist.destroy_process_group()
