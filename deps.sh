#!/bin/sh
# deps.sh: install the Debian packages ddpgen needs that are missing.
#   sh deps.sh build   compiler and libraries
#   sh deps.sh test    those, plus what the test suite runs (Slurm, munge,
#                      PyTorch, mandoc, shellcheck, ...)
set -eu

build="gcc make pkg-config libconfuse-dev libpcre2-dev libssl-dev"
test="$build check mandoc shellcheck python3 python3-torch slurm-wlm slurm-client
munge iproute2 libxml2-utils util-linux procps valgrind libopenmpi-dev
openmpi-bin time clang libclang-rt-14-dev bash-completion zsh fish tmux
dpkg-dev debhelper fakeroot lintian man-db lmod nftables charliecloud-runtime"

case ${1:-build} in
build)	want=$build ;;
test)	want=$test ;;
*)	echo "usage: sh deps.sh build|test" >&2; exit 2 ;;
esac

missing=
for p in $want; do
	dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null |
	    grep -q '^install ok installed$' || missing="$missing $p"
done
[ -n "$missing" ] || exit 0

echo "deps.sh: installing$missing"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
# shellcheck disable=SC2086
$sudo apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends $missing >/dev/null
