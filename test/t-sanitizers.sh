#!/bin/sh
# t-sanitizers.sh: every unit suite, built with AddressSanitizer and
# UndefinedBehaviorSanitizer (configure --enable-sanitizers), must run
# clean; so must ddpgen and ddprank through the shell tests that drive
# them. The build is made in a private copy of the tree, so the objects
# of the tree under test are never rebuilt with other flags.
. "$(dirname "$0")/lib.sh"

cc=${CC:-cc}
printf 'int main(void) { return 0; }\n' >"$T/probe.c"
"$cc" -fsanitize=address,undefined -o "$T/probe" "$T/probe.c" \
    >"$T/probe.log" 2>&1 ||
	skip "$cc cannot build with -fsanitize=address,undefined"
"$T/probe" >/dev/null 2>&1 ||
	skip "sanitized programs do not run here (ASan needs its shadow memory)"

# copy_tree DIR: the sources of the tree under test, with uncommitted
# changes and new files that are not ignored; build products stay out.
copy_tree() {
	mkdir -p "$1"
	if git -C "$srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		# Files deleted but not yet committed are listed too: skip them.
		(cd "$srcdir" && git ls-files -z --cached --others \
		    --exclude-standard | grep -zv '^test/tmp/' |
		    xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh |
		    tar --null -T - -cf -) | tar -C "$1" -xf -
	else
		(cd "$srcdir" && tar --exclude=test/tmp --exclude='*.o' \
		    --exclude='test/check_*[!c]' -cf - configure Makefile.in \
		    VERSION src test profiles templates man completion) |
		    tar -C "$1" -xf -
		rm -f "$1/src/config.h"
	fi
}

tree=$T/tree
copy_tree "$tree"
check "copying the tree to $tree" test -x "$tree/configure" || finish
cd "$tree" || exit 1
check "configure --enable-sanitizers" \
    ./configure --enable-sanitizers CC="$cc" >"$T/configure.log" 2>&1 ||
	{ cat "$T/configure.log"; finish; }
suites=$(make -s --no-print-directory --eval 'print-checks: ; @echo $(CHECKS)' \
    print-checks)
echo "suites: $suites"
start=$(date +%s)
# shellcheck disable=SC2086
if ! check "the sanitizer build" make -j2 all $suites >"$T/build.log" 2>&1; then
	tail -n 40 "$T/build.log"
	finish
fi
echo "build: $(( $(date +%s) - start )) s"
# Sanitizers change what the compiler's flow analysis sees: say so, but
# the normal build is the one held to no warnings.
grep -i 'warning:' "$T/build.log" | sed 's/^/note: /'

# Reports go to files, one per process that has one, so that those of
# programs run by the shell tests are not lost in the tests' own output.
mkdir -p "$T/reports"
asan_base="halt_on_error=1:detect_leaks=1:log_path=$T/reports/asan"
ASAN_OPTIONS=$asan_base
UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$T/reports/ubsan"
# Check's 4 s per test is short for instrumented code.
CK_TIMEOUT_MULTIPLIER=10
export ASAN_OPTIONS UBSAN_OPTIONS CK_TIMEOUT_MULTIPLIER

for s in $suites; do
	name=${s#test/}
	ASAN_OPTIONS=$asan_base
	# check_hostlist asserts that a ten-million-host list costs under
	# 1 MB of RSS; ASan's quarantine of freed blocks would count too.
	[ "$name" = check_hostlist ] &&
		ASAN_OPTIONS=$asan_base:quarantine_size_mb=0:thread_local_quarantine_size_kb=0
	t0=$(date +%s)
	CK_VERBOSITY=normal "./$s" >"$T/$name.log" 2>&1
	rc=$?
	echo "$name: exit $rc, $(( $(date +%s) - t0 )) s: $(grep -a '^[0-9]*%:' "$T/$name.log")"
	expect_eq "$name exit status" "$rc" 0
	[ "$rc" -eq 0 ] || grep -a ':[EF]:' "$T/$name.log" | head -n 10
done
ASAN_OPTIONS=$asan_base

# The shell tests that run ddpgen and ddprank on hostile and broken
# input, and ddprank exec's watcher with its stall limit and ddprank
# verdict (t-hang-watch), against the sanitized programs. Their own
# verdicts are those of the normal build (make check runs them too);
# here only reports count.
for t in t-golden.sh t-ddpgen-cli.sh t-ddpgen-hostile.sh t-ddprank-eval.sh \
    t-hang-watch.sh; do
	[ -f "test/$t" ] || continue
	BUILDDIR=$tree srcdir=$tree sh "test/$t" >"$T/$t.log" 2>&1
	echo "$t on the sanitizer build: exit $?"
done

# One line per distinct problem: its kind and the first frame that is
# not the allocator's, with the number of reports; the first report in
# full; all of them kept in test/tmp for a closer look.
keep=$BUILDDIR/test/tmp/t-sanitizers.reports
if ! check "$(ls "$T/reports" | wc -l) sanitizer reports, all in $keep" \
    test -z "$(ls "$T/reports")"; then
	rm -rf "$keep"
	cp -R "$T/reports" "$keep"
	awk '/ERROR: |runtime error|leak of/ { kind = $0; sub(/^.*(ERROR: |==[0-9]+==)/, "", kind); want = 1; next }
	    want && / #[0-9]+ .* in / && !/libsanitizer|xmalloc\.c|util\.c|asan_|ubsan_|libio\// {
		sub(/^ *#[0-9]+ 0x[0-9a-f]+ in /, ""); print kind " @ " $0; want = 0 }' \
	    "$T"/reports/* | sed 's/ of [0-9]* byte(s) in [0-9]* object(s) allocated from://; s/ ([^)]*)$//' |
	    sort | uniq -c | sort -rn | head -n 30
	echo "--- first report:"
	head -n 30 "$(ls "$T"/reports/* | head -n 1)"
fi
finish
