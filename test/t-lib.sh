#!/bin/sh
# t-lib.sh: the assertion idiom of test/lib.sh itself. Small tests,
# written here and run as the real ones are, must count every check,
# fail when one check fails (naming it, with the command's status),
# pass only when all passed, and fail when no check ran.
. "$(dirname "$0")/lib.sh"

# mini NAME BODY: runs a test whose body is BODY, between the sourcing
# of lib.sh and finish; its output goes to $T/NAME.out, its status to rc.
mini() {
	printf '. "%s/test/lib.sh"\n%s\nfinish\n' "$srcdir" "$2" >"$T/$1.sh"
	BUILDDIR=$BUILDDIR srcdir=$srcdir sh "$T/$1.sh" >"$T/$1.out" 2>&1
	rc=$?
}
# said NAME LINE: the mini test NAME printed the line LINE.
said() { grep -qxF -- "$2" "$T/$1.out"; }

mini pass 'check "true passes" true
check "a negation" ! false
check "a glob" matches "hello world" "hello *"
check "a part" contains "a [b]* c" "[b]*"
expect_eq "equal" "a b" "a b"'
expect_eq "passing checks: status" "$rc" 0
check "passing checks: all five counted" said pass "5 checks, 0 failures"

mini fail 'check "true passes" true
check "grep finds x" grep -q x /dev/null
check "a negation" ! true
check "a glob" matches "hello" "world"
check "a part, not a pattern" contains "a b c" "a*"
expect_eq "equal" a b
check "after the failures" true'
expect_eq "failing checks: status" "$rc" 1
check "failing checks: all counted" said fail "7 checks, 5 failures"
check "failing check: named with its status" said fail "FAIL: grep finds x (exit 1)"
check "failing negation: named with its command" said fail \
    "FAIL: a negation (succeeded: true)"
check "failing glob: named" said fail "FAIL: a glob (exit 1)"
check "failing expect_eq: got and want" said fail "FAIL: equal: got [a], want [b]"
check "failures repeated at the end" said fail "failed checks:"
check "a passing check is not reported" ! grep -q "true passes" "$T/fail.out"

mini status 'check "exit 3" sh -c "exit 3"; echo "returned $?"
check "true" true; echo "returned $?"'
expect_eq "one failure: status" "$rc" 1
check "a failed check's status is kept" said status "FAIL: exit 3 (exit 3)"
check "a failed check returns 1" said status "returned 1"
check "a passing check returns 0" said status "returned 0"

mini quiet 'check "redirected" grep -q x /dev/null >/dev/null 2>&1'
expect_eq "a redirected check still tells its failure, and again at the end" \
    "$(grep -cxF "FAIL: redirected (exit 1)" "$T/quiet.out")" 2

mini oldok 'check "true" true
ok'
expect_eq "the old counter ok: fails the test" "$rc" 1

mini nested 'inner() { check "inner" true; false; }
check "outer" inner'
check "a check inside a check keeps the outer name" said nested \
    "FAIL: outer (exit 1)"
check "both counted" said nested "2 checks, 1 failures"

mini none ': nothing checked'
expect_eq "no checks: status" "$rc" 1
check "no checks: said" said none "no checks ran"

mini skipped 'need_progs no-such-program-here
check "not reached" false'
expect_eq "need_progs: skips" "$rc" 77
check "need_progs: says what is missing" said skipped \
    "SKIP: no-such-program-here not found"

# run-tests.sh: of TEST_SERIAL, one at a time, and the others fill in.
# a and b are serial, c is not: with three slots, a and c start, b only
# once a has ended; all three are counted.
mkdir -p "$T/rt/test"
for x in a b c; do
	printf 'echo "start %s" >>"%s/rt/log"\nsleep 2\necho "end %s" >>"%s/rt/log"\n' \
	    "$x" "$T" "$x" "$T" >"$T/rt/test/t-$x.sh"
done
(cd "$T/rt" && TEST_JOBS=3 TEST_SERIAL="test/t-a.sh test/t-b.sh" \
    BUILDDIR=$T/rt sh "$srcdir/test/run-tests.sh" test/t-a.sh test/t-b.sh \
    test/t-c.sh) >"$T/rt/out" 2>&1
expect_eq "run-tests: status" "$?" 0
check "run-tests: all three counted" \
    grep -qx '3 passed, 0 failed, 0 skipped' "$T/rt/out"
# at LINE: LINE's number in the log
at() { grep -nx "$1" "$T/rt/log" | cut -d: -f1; }
check "run-tests: b started after a ended" \
    test "$(at 'start b')" -gt "$(at 'end a')"
check "run-tests: c started beside a" \
    test "$(at 'start c')" -lt "$(at 'end a')"
finish
