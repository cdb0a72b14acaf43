"""train_resumable.py: a DDP training that outlives its job.

Run by torchrun (through a ddpgen Slurm script, see ddpgen(1), LONG
TRAININGS):

    python3 train_resumable.py --checkpoint DIR/ckpt.pt [--steps N]
        [--every K] [--step-seconds S] [--result FILE]

The contract it follows:

- ddprank starts torchrun with the checkpoint signal ignored and names it
  in DDPGEN_CHECKPOINT_SIGNAL (USR2); this script installs a handler for
  it first thing, before it imports torch, which only sets a flag, and
  ignores the signal again once it has checkpointed.
- At every step the ranks agree (an all-reduce of the flag) whether any of
  them got the signal, so they all stop after the same step. Rank 0 then
  writes the checkpoint (to a temporary file, renamed into place) and
  every rank exits with status 0: "checkpointed, please requeue".
- It also checkpoints every --every steps, so a node failure loses at
  most that many steps.
- On start it resumes from the checkpoint if there is one. The restart
  count (DDPGEN_RESTART_COUNT) and the reason the last run stopped
  (DDPGEN_LAST_STOP) are only printed: the checkpoint decides.
- Once a step it beats: it touches the file of its RANK in the directory
  DDPGEN_HEARTBEAT names, which ddprank sets when the job has a stall
  limit (hang_timeout; ddpgen(1), HANGS AND BAD NODES). A rank that has
  beaten and then not for the limit is a stall: the job takes every
  rank's stacks, names the node to blame and reruns without it, from the
  last checkpoint. Without the variable the line does nothing.

The data of step s on rank r depend only on (s, r), the model's initial
weights on a fixed seed, and the checkpoint holds the model, the
optimizer (momentum) and the step, and DDP keeps its gradient buckets:
an interrupted training ends with parameters bit-identical to an
uninterrupted one. Rank 0 writes their
SHA-256 to --result at the end.
"""

import argparse
import hashlib
import os
import pathlib
import signal
import sys
import time

stop_requested = False


def say(line):
    # One write(2) per line: the ranks of a node share one pipe.
    os.write(1, f"train_resumable: {line}\n".encode())


def on_signal(signum, frame):
    global stop_requested
    stop_requested = True
    # When the handler ran, for measuring the delivery (bench/README.md).
    say(f"rank {os.environ.get('RANK')} got signal {signum} at "
        f"{time.time():.6f}")


# The handler comes before torch is imported, which takes seconds (3 s a
# process for torch 2.6 on a quiet core, far more on a loaded one): the
# signal is ignored until then, and a warning that comes during the
# import would be lost. Slurm may send it up to a minute early.
SIGNUM = getattr(signal, "SIG" + os.environ.get("DDPGEN_CHECKPOINT_SIGNAL",
                                                "USR2"))
signal.signal(SIGNUM, on_signal)

import torch  # noqa: E402 (after the handler, above)
import torch.distributed as dist  # noqa: E402
from torch.nn.parallel import DistributedDataParallel  # noqa: E402


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--step-seconds", type=float, default=0.0)
    ap.add_argument("--result")
    return ap.parse_args()


def build(world):
    torch.manual_seed(1234)
    model = torch.nn.Sequential(
        torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    # DDP rebuilds its gradient buckets after the first step, in the
    # order the gradients became ready; the first step of a resumed run
    # would then sum them in another order and differ in the last bits.
    # find_unused_parameters=True keeps the buckets as first built.
    ddp = DistributedDataParallel(model, find_unused_parameters=True)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01, momentum=0.9)
    return model, ddp, opt


def batch(step, rank):
    gen = torch.Generator().manual_seed(step * 1000 + rank)
    x = torch.randn(32, 8, generator=gen)
    return x, x.sum(dim=1, keepdim=True)


def save(path, model, opt, step):
    tmp = f"{path}.tmp"
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                "step": step}, tmp)
    os.replace(tmp, path)


def load(path, model, opt):
    if not os.path.exists(path):
        return 0
    state = torch.load(path)
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    return state["step"]


def digest(model):
    h = hashlib.sha256()
    for p in model.parameters():
        h.update(p.detach().contiguous().numpy().tobytes())
    return h.hexdigest()


def main():
    args = parse_args()
    signum = SIGNUM
    heartbeat = os.environ.get("DDPGEN_HEARTBEAT")
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    model, ddp, opt = build(world)
    step = load(args.checkpoint, model, opt)
    if rank == 0:
        say(f"restart {os.environ.get('DDPGEN_RESTART_COUNT', '0')}, "
            f"last stop {os.environ.get('DDPGEN_LAST_STOP', 'none')}, "
            f"resuming at step {step} of {args.steps}")
    while step < args.steps:
        flag = torch.tensor([1 if stop_requested else 0])
        dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        if flag.item():
            # Python restores the default action (death) while it exits.
            signal.signal(signum, signal.SIG_IGN)
            if rank == 0:
                save(args.checkpoint, model, opt, step)
                say(f"checkpointed at step {step}")
            dist.barrier()
            dist.destroy_process_group()
            return 0
        x, y = batch(step, rank)
        opt.zero_grad()
        torch.nn.functional.mse_loss(ddp(x), y).backward()
        opt.step()
        step += 1
        if step % args.every == 0 and rank == 0:
            save(args.checkpoint, model, opt, step)
        time.sleep(args.step_seconds)
        if heartbeat:  # the contract: one beat a step
            pathlib.Path(heartbeat, os.environ["RANK"]).touch()
    # Done: a warning now has nothing left to save, and would kill the
    # process while it exits, when Python restores the default action.
    signal.signal(signum, signal.SIG_IGN)
    if rank == 0:
        save(args.checkpoint, model, opt, step)
        say(f"done at step {step}")
        if args.result:
            with open(args.result, "w") as f:
                f.write(digest(model) + "\n")
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
