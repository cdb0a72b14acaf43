# sitecustomize.py: ddprank exec's legacy-store hook (ddprank(1), LIBUV),
# and the launch timeline's first moment of a worker (ddprank(1),
# TIMELINE).
#
# torch 2.4 and later create every TCPStore with its libuv backend unless
# told use_libuv=False. A torch built without libuv (Debian 13's 2.6.0,
# Windows wheels) then refuses every store: "use_libuv was requested but
# PyTorch was build without libuv support" (pytorch issue 148283).
# torch reads USE_LIBUV=0 only in torch.distributed.rendezvous's env://
# and tcp:// handlers with an agent-less store; torchrun's static and c10d
# rendezvous, its dynamic rendezvous' store server and the workers'
# client of the agent's store pass no use_libuv and take no setting.
#
# So ddprank exec puts this directory first on PYTHONPATH, and this file
# gives TCPStore a constructor that, on exactly that refusal, builds the
# same store again with use_libuv=False: the legacy backend, which 1.13
# used and which every torch still has. A torch with libuv, a caller
# that asks for a backend, and any other error are left alone; a torch
# without use_libuv (before 2.4) is not touched at all.
#
# The patch is made when torch.distributed has been imported, by an
# import hook, so that a python that never imports it pays nothing.
# Whatever sitecustomize this one shadows is run afterwards, once.
#
# It is also ddprank exec's stack hook (ddprank(1), HANGS): in a worker
# (RANK is set) of a job with a stall limit (DDPGEN_HEARTBEAT names the
# node's heartbeat directory), faulthandler writes every thread's stack
# to stacks.PID there on SIGWINCH, whose default action is to do
# nothing: ddprank's watcher asks for them when a rank stalls, without
# ending anything, and reads them from there.

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_TARGET = "torch.distributed"
_REFUSAL = "without libuv support"


def _patch(dist):
    store = getattr(dist, "TCPStore", None)
    if store is None or getattr(store, "_ddprank_legacy", False):
        return
    if "use_libuv" not in (store.__init__.__doc__ or ""):
        return  # before torch 2.4: one backend, nothing to choose
    orig = store.__init__

    def __init__(self, *args, **kwargs):
        try:
            orig(self, *args, **kwargs)
        except RuntimeError as e:
            # use_libuv is the ninth parameter after self. A True that
            # the env:// and tcp:// handlers pass on from an unset
            # USE_LIBUV (srun-direct's workers) is torch's default, not
            # a choice of the caller's.
            chose = (len(args) >= 9 or "use_libuv" in kwargs and
                     not (kwargs["use_libuv"] is True and
                          "USE_LIBUV" not in os.environ))
            if _REFUSAL not in str(e) or chose:
                raise
            kwargs["use_libuv"] = False
            orig(self, *args, **kwargs)

    store.__init__ = __init__
    store._ddprank_legacy = True


class _Loader(importlib.abc.Loader):
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _patch(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname != _TARGET:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


def _chain():
    """Runs the first sitecustomize after this directory on sys.path."""
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = [os.path.abspath(d or ".") for d in sys.path]
    after = dirs[dirs.index(here) + 1:] if here in dirs else dirs
    for d in after:
        f = os.path.join(d, "sitecustomize.py")
        if d != here and os.path.isfile(f):
            spec = importlib.util.spec_from_file_location(
                "_ddprank_next_sitecustomize", f)
            try:
                spec.loader.exec_module(importlib.util.module_from_spec(spec))
            except Exception:
                pass
            return


def _timeline():
    """A worker's python has started: the launch timeline's phase
    "python" (ddprank_timeline.py, beside this file), for the workers
    a launcher starts (LOCAL_RANK set), not the launcher itself."""
    if "DDPRANK_TIMELINE" not in os.environ or "LOCAL_RANK" not in os.environ:
        return
    try:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        try:
            import ddprank_timeline
        finally:
            del sys.path[0]
        ddprank_timeline.mark("python")
    except Exception:
        pass


def _stacks():
    beat = os.environ.get("DDPGEN_HEARTBEAT")
    if not beat or "RANK" not in os.environ:
        return
    path = os.path.join(beat, "stacks.%d" % os.getpid())
    try:
        import faulthandler
        import signal
        f = open(path, "w")
        try:
            faulthandler.register(signal.SIGWINCH, file=f, all_threads=True,
                                  chain=True)
        except Exception:
            f.close()
            os.unlink(path)
            return
        sys._ddprank_stacks = f  # open for as long as the process lives
    except Exception:
        pass


# Once per process, however often another sitecustomize runs this file.
if not getattr(sys, "_ddprank_legacy_store", False):
    _timeline()
    sys._ddprank_legacy_store = True
    if _TARGET in sys.modules:
        _patch(sys.modules[_TARGET])
    else:
        sys.meta_path.insert(0, _Finder())
    _stacks()
    _chain()
