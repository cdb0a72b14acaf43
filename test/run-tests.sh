#!/bin/sh
# run-tests.sh: runs each test program given, counts results, prints one
# summary line. Exit status 0 passes, 77 skips (its reason is the last
# line it printed, shown loudly), anything else fails.
#
# TEST_JOBS (default 1) tests run at once, each started in the order
# given and reported when it ends; every test makes its own directory,
# cluster and names, so none waits for another. TEST_TIMEOUT (default
# 1200) seconds end a test that hangs. Of the tests named in TEST_SERIAL
# (paths as given, blank-separated) at most one runs at a time: while
# one runs, the next test not named there starts in its turn's place.

srcdir=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BUILDDIR:-$srcdir}
export BUILDDIR srcdir
mkdir -p "$BUILDDIR/test/tmp"
res=$(mktemp -d "$BUILDDIR/test/tmp/run-tests.XXXXXX") || exit 1
trap 'rm -rf "$res"' EXIT
trap 'exit 130' INT TERM
jobs=${TEST_JOBS:-1}
case $jobs in ''|*[!0-9]*|0) echo "run-tests.sh: TEST_JOBS: want a number above 0, not '$jobs'" >&2; exit 2 ;; esac

# one T N: runs test T, writes "RC SECS" to $res/N when it ends.
one() {
	t=$1 name=${1#test/}	# in a subshell when TEST_JOBS > 1
	log="$BUILDDIR/test/tmp/${name}.log"
	start=$(date +%s)
	# A test that hangs fails by name after TEST_TIMEOUT seconds (TERM,
	# so a cluster test still takes its cluster down), not the whole run.
	case $t in
	*.sh)	timeout -k 60 "${TEST_TIMEOUT:-1200}" sh "$t" >"$log" 2>&1 ;;
	*)	CK_VERBOSITY=${CK_VERBOSITY:-normal} timeout -k 60 \
		    "${TEST_TIMEOUT:-1200}" "./$t" >"$log" 2>&1 ;;
	esac
	rc=$?
	[ "$rc" -ne 124 ] || echo "TIMEOUT: $name did not end within ${TEST_TIMEOUT:-1200} s" >>"$log"
	echo "$rc $(( $(date +%s) - start ))" >"$res/$2.tmp" && mv "$res/$2.tmp" "$res/$2"
}

pass=0 fail=0 skip=0
failed=

# report T N: the result line of test T, from $res/N.
report() {
	name=${1#test/}
	log="$BUILDDIR/test/tmp/${name}.log"
	read -r rc secs <"$res/$2"
	case $rc in
	0)	pass=$((pass + 1)); echo "PASS: $name (${secs}s)" ;;
	77)	skip=$((skip + 1))
		echo "SKIP: $name: $(tail -n 1 "$log")" ;;
	*)	fail=$((fail + 1)); failed="$failed $name"
		echo "FAIL: $name (exit $rc, ${secs}s); failed checks, then last lines of $log:"
		grep '^FAIL: ' "$log" | head -n 20 | sed 's/^/    /'
		echo "    ..."
		tail -n 30 "$log" | sed 's/^/    /' ;;
	esac
}

# serial T: T is one of TEST_SERIAL.
serial() {
	case " $TEST_SERIAL " in *" $1 "*) return 0 ;; esac
	return 1
}

# reap: reports every test that has ended and not been reported; sets
# running to the number still running, and serial_busy when one of
# TEST_SERIAL is among them.
reap() {
	k=0 serial_busy=''
	for s in $started; do
		k=$((k + 1))
		[ -e "$res/$k" ] || ! serial "$s" || serial_busy=1
		[ ! -e "$res/$k.seen" ] || continue
		[ -e "$res/$k" ] || continue
		report "$s" "$k"
		: >"$res/$k.seen"
	done
	running=$(( n - $(ls "$res" | grep -c '\.seen$') ))
}

# next: sets t to the first of $pending that may start now, as the last
# reap left serial_busy (empty when none may), and takes it out of
# $pending.
next() {
	t='' rest=''
	for p in $pending; do
		if [ -z "$t" ] && { [ -z "$serial_busy" ] || ! serial "$p"; }; then
			t=$p
		else
			rest="$rest $p"
		fi
	done
	pending=$rest
}

n=0 started='' running=0 pending='' serial_busy=''
for t; do
	[ -e "$t" ] && pending="$pending $t"
done
while [ -n "$pending" ]; do
	if [ "$jobs" -eq 1 ]; then
		next
		n=$((n + 1)); started="$started $t"
		one "$t" "$n"
		reap
		continue
	fi
	reap
	t=
	[ "$running" -ge "$jobs" ] || next
	if [ -z "$t" ]; then
		sleep 1
		continue
	fi
	n=$((n + 1)); started="$started $t"
	one "$t" "$n" &
done
while reap; [ "$running" -gt 0 ]; do
	sleep 1
done
wait
[ "$skip" -eq 0 ] || echo "*** $skip test(s) SKIPPED: see the SKIP lines above ***"
[ "$fail" -eq 0 ] || echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
