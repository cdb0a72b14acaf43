"""train.py: the training script the end-to-end tests launch with torchrun.

Trains a small DDP model on the CPU with gloo, then prints one line per
rank to stdout:

    DDPTEST {"rank": ..., "world_size": ..., "node_rank": ..., ...}

test/cluster/check_job.py reads those lines back.  The parameter
checksums agree on all ranks only if every rank joined the same process
group and took part in every gradient all-reduce; node_rank, hostname
and master_addr show how torchrun was started; argv_hex holds the
script's arguments byte for byte (each one as the hex of its original
bytes), so quoting bugs anywhere between the generator and here show.

It marks its phases in the launch timeline (import, init, collective)
when ddprank exec gave it the hook.

If DDPTEST_DIR names a directory, each rank also writes its line to
DDPTEST_DIR/rank-RANK.txt there (see report()).

If DDPTEST_FAIL_NODE equals this node's rank, every rank on the node
exits with status 3 once the process group is up (fault tests).  With
DDPTEST_FAIL_AT=start they exit before joining it instead: the other
nodes then wait for them, and only the launcher can end the job.
"""

import hashlib
import json
import os
import socket
import sys
import time

# The launch timeline's hook (ddprank(1), TIMELINE), which ddprank exec
# puts on the path; optional, as it is for any training. The test hook
# DDPTEST_SLOW_NODE=N makes node N's imports DDPTEST_SLOW seconds slower
# (t-e2e-timeline.sh).
try:
    from ddprank_timeline import mark
except ImportError:
    def mark(phase):
        return False
if os.environ.get("DDPTEST_SLOW_NODE", "-") == os.environ.get("GROUP_RANK"):
    time.sleep(float(os.environ.get("DDPTEST_SLOW", "5")))

import torch  # noqa: E402 (after the test's sleep)
import torch.distributed as dist  # noqa: E402
from torch.nn.parallel import DistributedDataParallel  # noqa: E402

mark("import")

STEPS = 5
MODEL_SEED = 1234
# Environment worth seeing in a failed test's output.
ENV_KEYS = ("MASTER_PORT", "LOCAL_WORLD_SIZE", "GLOO_SOCKET_IFNAME",
            "NCCL_SOCKET_IFNAME", "TORCHELASTIC_RUN_ID", "SLURM_JOB_ID",
            "SLURM_NODEID", "SLURM_PROCID", "SLURMD_NODENAME",
            "SLURM_CPUS_PER_TASK", "OMP_NUM_THREADS",
            # What the job was named and what ddprank handed torchrun:
            # with c10d, torchrun gives the workers its own MASTER_ADDR
            # and MASTER_PORT, so the endpoint shows only here.
            "SLURM_JOB_NAME", "SLURM_JOB_NODELIST", "PET_NNODES",
            "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT",
            "PET_RDZV_BACKEND", "PET_RDZV_ENDPOINT", "PET_RDZV_ID",
            # The restart count and last stop ddprank exec gives the
            # training (a continuation's, t-lsf-emulate.sh).
            "DDPGEN_RESTART_COUNT", "DDPGEN_LAST_STOP",
            # What the job script sets for the training: threads, and a
            # variable of the test's own (t-e2e-field.sh).
            "OMP_NUM_THREADS", "DDPTEST_VAR",
            # Set by ch-run in its container (t-e2e-container.sh).
            "CH_RUNNING",
            # What a launcher other than torchrun gave the worker.
            "RANK", "WORLD_SIZE", "LOCAL_RANK", "CROSS_RANK",
            "ACCELERATE_MIXED_PRECISION",
            # Present only if ddprank exec failed to drop the secret.
            "DDPRANK_SECRET")


def build_model():
    # The same seed on every rank: identical initial weights even before
    # DDP broadcasts rank 0's.
    torch.manual_seed(MODEL_SEED)
    return torch.nn.Sequential(
        torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))


def train(model, rank):
    gen = torch.Generator().manual_seed(1000 + rank)  # data differ by rank
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(STEPS):
        x = torch.randn(32, 8, generator=gen)
        y = x.sum(dim=1, keepdim=True)
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()


def checksums(module):
    digest = hashlib.sha256()
    total = 0.0
    for p in module.parameters():
        t = p.detach().cpu().contiguous()
        digest.update(t.numpy().tobytes())
        total += float(t.double().sum())
    return repr(total), digest.hexdigest()


def report(record):
    # One write(2) per line: lines from several ranks sharing one pipe
    # stay whole.
    data = ("DDPTEST " + json.dumps(record, sort_keys=True) + "\n").encode()
    # srun forwards a task's output in pieces of about a kilobyte, and
    # pieces from different nodes interleave in the job's output: a
    # longer line (long arguments) may arrive torn (seen with Slurm
    # 22.05).  So DDPTEST_DIR, when set, also gets each rank's line in a
    # file of its own.
    outdir = os.environ.get("DDPTEST_DIR")
    if outdir:
        path = os.path.join(outdir, "rank-%d.txt" % record["rank"])
        with open(path, "wb") as f:
            f.write(data)
    while data:
        data = data[os.write(1, data):]


def fail_if_asked(rank, node_rank):
    if os.environ.get("DDPTEST_FAIL_NODE", "") == node_rank != "":
        print("train.py: rank %d on node %s: failing on request "
              "(DDPTEST_FAIL_NODE)" % (rank, node_rank), file=sys.stderr)
        sys.stderr.flush()
        os._exit(3)


def main():
    torch.set_num_threads(1)
    # torchrun and srun-direct (ddprank) say GROUP_RANK; DeepSpeed's
    # launcher CROSS_RANK.
    node_rank = os.environ.get("GROUP_RANK", os.environ.get("CROSS_RANK", ""))
    fail_at = os.environ.get("DDPTEST_FAIL_AT", "up")
    if fail_at == "start":
        fail_if_asked(int(os.environ.get("RANK", "-1")), node_rank)
    dist.init_process_group(backend="gloo")
    mark("init")
    rank = dist.get_rank()
    if fail_at != "start":
        fail_if_asked(rank, node_rank)
    # DDP's constructor broadcasts rank 0's parameters: a collective.
    model = DistributedDataParallel(build_model())
    mark("collective")
    train(model, rank)
    psum, psha = checksums(model.module)
    report({
        "rank": rank,
        "world_size": dist.get_world_size(),
        "node_rank": int(node_rank) if node_rank.isdigit() else node_rank,
        "local_rank": int(os.environ.get("LOCAL_RANK", "-1")),
        "master_addr": os.environ.get("MASTER_ADDR"),
        "hostname": socket.gethostname(),
        "param_sum": psum,
        "param_sha256": psha,
        # os.fsencode undoes the surrogateescape decoding of argv.
        "argv_hex": [os.fsencode(a).hex() for a in sys.argv[1:]],
        "env": {k: os.environ[k] for k in ENV_KEYS if k in os.environ},
    })
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
