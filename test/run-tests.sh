#!/bin/sh
# run-tests.sh: runs each test program given, counts results, prints one
# summary line. Exit status 0 passes, 77 skips (its reason is the last
# line it printed, shown loudly), anything else fails.

srcdir=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BUILDDIR:-$srcdir}
export BUILDDIR srcdir
mkdir -p "$BUILDDIR/test/tmp"
pass=0 fail=0 skip=0
failed=
for t; do
	[ -e "$t" ] || continue
	name=${t#test/}
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
	secs=$(( $(date +%s) - start ))
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
done
[ "$skip" -eq 0 ] || echo "*** $skip test(s) SKIPPED: see the SKIP lines above ***"
[ "$fail" -eq 0 ] || echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
