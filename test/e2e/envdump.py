"""envdump.py: the training script of t-e2e-env.sh. Started by torchrun
like a real one, it records its environment as JSON in the directory
given as its argument (one file per node and rank) and imports no torch,
so a job costs little."""

import json
import os
import socket
import sys

path = os.path.join(sys.argv[1], "%s.%s.json" % (socket.gethostname(),
                                                 os.environ.get("RANK", "x")))
with open(path, "w") as f:
    json.dump(dict(os.environ), f)
