"""hang_train.py: the training of t-e2e-hang.sh, examples/train_resumable.py
with faults put in from the environment:

    DDPTEST_HANG=RANK:STEP   that rank, at that step, calls all_reduce on
                             a group of two whose other rank never comes:
                             it waits inside the collective forever, the
                             others wait for it in the training's own
    DDPTEST_HANG_RUNS=all    in every run (default: the first alone,
                             DDPGEN_RESTART_COUNT 0, so the rerun ends)
    DDPTEST_NO_BEAT=1        the training keeps no heartbeat

Arguments are the example's. Each rank says when it hangs, for the
figures of bench/README.md.
"""

import os
import runpy
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
example = os.path.join(here, "..", "..", "examples", "train_resumable.py")

if os.environ.get("DDPTEST_NO_BEAT"):
    os.environ.pop("DDPGEN_HEARTBEAT", None)

hang = os.environ.get("DDPTEST_HANG")
first = os.environ.get("DDPGEN_RESTART_COUNT", "0") == "0"
if hang and (first or os.environ.get("DDPTEST_HANG_RUNS") == "all"):
    hang_rank, hang_step = (int(x) for x in hang.split(":"))

    import torch
    import torch.distributed as dist

    init = dist.init_process_group
    lonely = []

    def init_process_group(*args, **kwargs):
        init(*args, **kwargs)
        # Every rank makes the group, as new_group requires; the other
        # member never calls a collective on it.
        peer = (hang_rank + 1) % dist.get_world_size()
        lonely.append(dist.new_group(sorted({hang_rank, peer})))

    dist.init_process_group = init_process_group

    def hook(globs):
        # main's own globals: run_path hands back a copy.
        globs = globs["main"].__globals__
        batch = globs["batch"]

        def hanging_batch(step, rank):
            if rank == hang_rank and step == hang_step:
                os.write(1, f"hang_train: rank {rank} hangs at step "
                         f"{step} at {time.time():.6f}\n".encode())
                dist.all_reduce(torch.zeros(1), group=lonely[0])
            return batch(step, rank)
        globs["batch"] = hanging_batch
else:
    hook = None

sys.argv[0] = example
if hook is None:
    runpy.run_path(example, run_name="__main__")
else:
    globs = runpy.run_path(example, run_name="hang_train")
    hook(globs)
    sys.exit(globs["main"]())
