#!/bin/sh
# deps.sh: install the Debian packages ddpgen needs that are missing.
#   sh deps.sh build   compiler and libraries
#   sh deps.sh test    those, plus what the test suite runs (Slurm, munge,
#                      PyTorch, mandoc, shellcheck, git, ...)
# Debian 12 (bookworm) and 13 (trixie); /etc/os-release says which, and
# so which names the packages have there.
set -eu

# shellcheck disable=SC1091 # the running system's, not ours
release=$(. /etc/os-release 2>/dev/null && echo "${ID:-?} ${VERSION_ID:-?}") ||
    release=unknown
case $release in
"debian 12")	clang_rt=libclang-rt-14-dev ;;
"debian 13")	clang_rt=libclang-rt-dev ;;
*)	echo "deps.sh: /etc/os-release: \"$release\" is not Debian 12 or 13, the releases ddpgen supports; install the packages named in deps.sh by hand" >&2
	exit 1 ;;
esac

# libhwloc-dev: the same name on Debian 12 (hwloc 2.9) and 13 (2.12).
build="gcc make pkg-config libconfuse-dev libpcre2-dev libssl-dev libhwloc-dev"
test="$build check mandoc shellcheck python3 python3-torch slurm-wlm slurm-client
munge iproute2 libxml2-utils util-linux procps valgrind libopenmpi-dev
openmpi-bin time clang $clang_rt bash-completion zsh fish tmux
dpkg-dev debhelper fakeroot lintian man-db lmod nftables charliecloud-runtime
git build-essential debootstrap"

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
