# sitecustomize.py: test-environment fix for torchrun under Python 3.11.
#
# Debian 12's python3-torch (1.13.1) crashes in torchrun before it starts
# any worker: Std.from_str("0") looks the value up by iterating the
# IntFlag, and Python 3.11 no longer yields the zero member (NONE) nor
# aliases such as ALL, so it returns None and to_map() fails with
# "'NoneType' object has no attribute 'get'".  Std(int(v)) is the lookup
# that was meant.
#
# The cluster harness puts this directory on PYTHONPATH (cluster.sh env);
# sbatch exports the submitter's environment, so every python started by
# a job imports this file.  The generated scripts are not changed.
#
# Importing torch here would slow every python start, so the patch is
# applied by an import hook when torch's elastic multiprocessing API is
# first imported.  Whatever sitecustomize this one shadows (Debian's
# installs the apport hook) is run afterwards.

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_TARGET = "torch.distributed.elastic.multiprocessing.api"


def _patch(mod):
    std = getattr(mod, "Std", None)
    if std is None or getattr(std, "_ddptest_patched", False):
        return
    if std.from_str("0") is not None:
        return  # a torch or a python that does not have the bug

    orig = std.from_str.__func__

    def from_str(cls, vm):
        def to_std(v):
            return cls(int(v))

        if mod.re.match(mod._VALUE_REGEX, vm):
            return to_std(vm)
        if mod.re.match(mod._MAPPING_REGEX, vm):
            return {int(i): to_std(v)
                    for i, v in (m.split(":") for m in vm.split(","))}
        return orig(cls, vm)  # raises the original ValueError

    std.from_str = classmethod(from_str)
    std._ddptest_patched = True


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
    """Run the sitecustomize this file shadows, if any."""
    here = os.path.dirname(os.path.abspath(__file__))
    for d in sys.path:
        if os.path.abspath(d or ".") == here:
            continue
        f = os.path.join(d or ".", "sitecustomize.py")
        if os.path.isfile(f):
            spec = importlib.util.spec_from_file_location(
                "_ddptest_next_sitecustomize", f)
            try:
                spec.loader.exec_module(importlib.util.module_from_spec(spec))
            except Exception:
                pass
            return


if _TARGET in sys.modules:
    _patch(sys.modules[_TARGET])
else:
    sys.meta_path.insert(0, _Finder())
_chain()
