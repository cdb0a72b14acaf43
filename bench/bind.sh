#!/bin/sh
# bench/bind.sh: what the binding costs at start, next to torch's import,
# and a CPU-bound toy step with two workers, bound and not, on this
# machine (bench/README.md). Run by hand, not in make check.
#
# usage: sh bench/bind.sh	(RUNS, REPEAT, BIND_TOY_STEPS from the
#				 environment; PYTHON: the python with torch)

set -u
here=$(cd "$(dirname "$0")/.." && pwd)
: "${DDPRANK:=$here/ddprank}"
[ -x "$DDPRANK" ] || { echo "bench/bind.sh: build $DDPRANK first" >&2; exit 1; }
if [ -z "${PYTHON:-}" ]; then
	PYTHON=python3
	command -v torchrun >/dev/null &&
	    PYTHON=$(sed -n '1s/^#![[:space:]]*//p' "$(command -v torchrun)")
fi
$PYTHON -c 'import torch' 2>/dev/null ||
    { echo "bench/bind.sh: $PYTHON cannot import torch" >&2; exit 1; }
# A private copy, so a rebuild during the run does no harm.
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cp "$DDPRANK" "$T/ddprank"
python3 "$here/bench/bind.py" "$T/ddprank" "$PYTHON"
