"""bindprobe.py: a worker for test/t-e2e-bind.sh that only reports where
it runs: its host, LOCAL_RANK, the CPUs os.sched_getaffinity(0) gives,
OMP_NUM_THREADS, the binding's variables and its arguments, as one JSON
file per worker in $DDPTEST_DIR. No torch: the binding happens before
the training starts, so none is needed to see it."""

import json
import os
import socket
import sys

rec = {
    "host": socket.gethostname(),
    "local_rank": os.environ.get("LOCAL_RANK"),
    "affinity": sorted(os.sched_getaffinity(0)),
    "omp": os.environ.get("OMP_NUM_THREADS"),
    "plan": os.environ.get("DDPRANK_BIND_PLAN"),
    "argv": sys.argv[1:],
    "executable": sys.executable,
}
path = os.path.join(os.environ["DDPTEST_DIR"],
                    "%s.%s.json" % (rec["host"], rec["local_rank"]))
with open(path, "w") as f:
    json.dump(rec, f)
