#!/bin/sh
# t-libuv-hook.sh: python/sitecustomize.py, the legacy-store hook that
# ddprank exec puts first on PYTHONPATH (ddprank(1), LIBUV), against a
# stand-in torch.distributed whose TCPStore refuses the libuv backend as
# a torch built without libuv does (Debian 13's 2.6.0): a store made
# without a choice of backend, or with the use_libuv=True that the
# env:// handler passes on from an unset USE_LIBUV, is made again with
# use_libuv=False; a caller's own choice, any other error and a torch
# before 2.4 (no use_libuv) are left alone; the sitecustomize it
# shadows still runs. The real torch 2.6 runs it in the end-to-end
# tests of Debian 13's suite.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "needs python3"

# fake DIR DOC: a package torch.distributed in DIR whose TCPStore's
# constructor's docstring is DOC (pybind's signature, in torch), recording the use_libuv each attempt got.
fake() {
	mkdir -p "$1/torch/distributed"
	: >"$1/torch/__init__.py"
	cat >"$1/torch/distributed/__init__.py" <<EOF
tries = []


class TCPStore:
    def __init__(self, host_name, port=None, world_size=None,
                 is_master=False, timeout=None, wait_for_workers=True,
                 multi_tenant=False, master_listen_fd=None,
                 use_libuv=None):
        "$2"
        tries.append(use_libuv)
        if host_name == "bad":
            raise RuntimeError("something else")
        if use_libuv is not False:
            raise RuntimeError("use_libuv was requested but PyTorch was "
                               "build without libuv support")
EOF
}
fake "$T/new" 'TCPStore(host_name, port, ..., use_libuv=True)'
fake "$T/old" 'TCPStore(host_name, port, ...)'
# The sitecustomize the hook shadows (Debian's apport hook, say).
mkdir -p "$T/next"
echo 'import os; os.environ["NEXT_RAN"] = "1"' >"$T/next/sitecustomize.py"

# try TORCHDIR [VAR=VALUE...] -- PYTHON: PYTHON after the hook, printing
# what it prints and the attempts' use_libuv values.
try() {
	d=$1
	shift
	env -i PATH="$PATH" PYTHONPATH="$srcdir/python:$d:$T/next" "$@" \
	    python3 -c '
import sys
import torch.distributed as dist
try:
    exec(sys.argv[1])
    print("made", dist.tries)
except RuntimeError as e:
    print("refused", dist.tries, str(e)[:20])
' "$code"
}

code='dist.TCPStore("h", 1)'
expect_eq "no backend chosen: made again with the legacy one" \
    "$(try "$T/new")" "made [None, False]"
code='dist.TCPStore(host_name="h", port=1, use_libuv=True)'
expect_eq "env:// with USE_LIBUV unset: torch's default, made again" \
    "$(try "$T/new")" "made [True, False]"
expect_eq "USE_LIBUV=1 set: the user's choice stands" \
    "$(try "$T/new" USE_LIBUV=1)" "refused [True] use_libuv was reques"
code='dist.TCPStore("h", 1, 2, False, None, True, False, None, True)'
expect_eq "use_libuv given by position: the caller's choice stands" \
    "$(try "$T/new")" "refused [True] use_libuv was reques"
code='dist.TCPStore("h", 1, use_libuv=False)'
expect_eq "the legacy backend asked for: one attempt" \
    "$(try "$T/new")" "made [False]"
code='dist.TCPStore("bad", 1)'
expect_eq "another error: not retried" \
    "$(try "$T/new")" "refused [None] something else"
code='dist.TCPStore("h", 1)'
expect_eq "a torch before 2.4 (no use_libuv): not touched" \
    "$(try "$T/old")" "refused [None] use_libuv was reques"
code='import os; print(os.environ.get("NEXT_RAN"))'
expect_eq "the shadowed sitecustomize runs" \
    "$(try "$T/new" | head -n 1)" 1
finish
