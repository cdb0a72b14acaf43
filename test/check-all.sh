#!/bin/sh
# test/check-all.sh: make check on this machine and, on a Debian 12
# machine, the same suite on Debian 13 in a chroot (test/debian13/
# chroot.sh), so that every run proves both releases ddpgen supports.
# The chroot is made (debootstrap, then deps.sh test inside) while this
# machine's suite runs, since making it mostly waits on the mirror and
# dpkg. Prints each part's summary and one line counting both; exit 0
# when both pass, 1 when either fails (or the chroot cannot be made).
#
# On Debian 13 itself, make check alone: this machine is that release.
# MAKE names make; TEST_JOBS and TEST_TIMEOUT reach both suites.
#
# The Debian 13 part is make check-stack: every test but those whose
# outcome cannot depend on the release's Slurm, torch, MPI or Python
# (STACK_FREE_TESTS in Makefile.in: quoting models, fuzzing, memory
# checkers, goldens, completion, packaging), which this machine's
# suite runs. That is what a second release has to prove, and the whole
# run fits CI's budget on 2 cores.

srcdir=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BUILDDIR:-$srcdir}
make=${MAKE:-make}
tmp=$BUILDDIR/test/tmp
mkdir -p "$tmp"

release=$(. /etc/os-release 2>/dev/null && echo "${ID:-}:${VERSION_ID:-}")
if [ "$release" = debian:13 ]; then
	echo "check-all: this machine is Debian 13: make check alone"
	exec $make check
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "check-all: the Debian 13 part needs root (debootstrap and namespaces); run as root, or make check for this machine alone" >&2
	exit 1
fi

# The chroot, in the background; its log says how far it got.
sh "$srcdir/test/debian13/chroot.sh" build >"$tmp/debian13-build.log" 2>&1 &
bpid=$!
trap 'kill "$bpid" 2>/dev/null' EXIT
trap 'exit 130' INT TERM

# summary LOG: the last "N passed, N failed, N skipped" line of LOG.
summary() {
	grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$1" | tail -n 1
}

here=$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-this machine}")
echo "=== $here: make check"
$make check 2>&1 | tee "$tmp/check-here.log"
s12=$(summary "$tmp/check-here.log")

echo "=== Debian 13 (trixie) in a chroot: the chroot"
if wait "$bpid"; then
	cat "$tmp/debian13-build.log"
	echo "=== Debian 13 (trixie) in a chroot: sh deps.sh test && ./configure && make check-stack"
	sh "$srcdir/test/debian13/chroot.sh" make check-stack 2>&1 |
	    tee "$tmp/check-debian13.log"
	s13=$(summary "$tmp/check-debian13.log")
else
	tail -n 30 "$tmp/debian13-build.log"
	echo "check-all: the Debian 13 chroot could not be made (log: $tmp/debian13-build.log)"
	s13=
fi
trap - EXIT

p=0 f=0 s=0 rc=0
for part in "$here:$s12" "Debian 13:$s13"; do
	name=${part%%:*} line=${part#*:}
	if [ -z "$line" ]; then
		echo "$name: no summary (the suite did not run to its end)"
		rc=1
		continue
	fi
	echo "$name: $line"
	set -- $line
	p=$((p + $1)) f=$((f + $3)) s=$((s + $5))
done
[ "$f" -eq 0 ] || rc=1
[ "$s" -eq 0 ] || echo "*** $s test(s) SKIPPED: see the SKIP lines above ***"
echo "$p passed, $f failed, $s skipped"
exit "$rc"
