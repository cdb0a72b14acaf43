# ddprank_timeline.py: the training's side of ddprank's launch timeline
# (ddprank(1), TIMELINE). ddprank exec puts this directory on PYTHONPATH
# and names the hook in DDPRANK_TIMELINE; a training marks the moments
# it passes:
#
#     from ddprank_timeline import mark
#     mark("import")        # after its imports (torch's among them)
#     mark("init")          # after init_process_group
#     mark("collective")    # after its first collective (all_reduce ...)
#
# Each call appends one line, "PHASE TIME LOCAL_RANK LOCAL_WORLD_SIZE",
# which node 0's report gathers. Without ddprank, or where the hook
# leads nowhere (a container with a PID namespace of its own), mark
# does nothing and raises nothing: the training never depends on it.

import os
import time

_PHASES = ("python", "import", "init", "collective")


def _target():
    """The hook's path, when it is ddprank's: /proc/PID/fd/N of its
    reporter, an anonymous file named ddprank-timeline."""
    path = os.environ.get("DDPRANK_TIMELINE")
    if not path:
        return None
    try:
        if not os.readlink(path).startswith("/memfd:ddprank-timeline"):
            return None
    except OSError:
        return None
    return path


def mark(phase):
    """Appends phase, now, to the hook; True when it was written."""
    if phase not in _PHASES:
        raise ValueError("ddprank_timeline.mark: %r is not one of %s"
                         % (phase, ", ".join(_PHASES)))
    path = _target()
    if path is None:
        return False
    line = "%s %.6f" % (phase, time.time())
    lr, lws = os.environ.get("LOCAL_RANK"), os.environ.get("LOCAL_WORLD_SIZE")
    if lr is not None and lws is not None and lr.isdigit() and lws.isdigit():
        line += " %s %s" % (lr, lws)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        os.write(fd, (line + "\n").encode())
    except OSError:
        return False
    finally:
        os.close(fd)
    return True
