#!/bin/sh
# t-fuzz.sh: each libFuzzer target of test/fuzz (hostlist, profile,
# template, node lists, exchange entries) for FUZZ_SECONDS (30) from its
# seed corpus, which holds every crash found so far: no crash, no leak,
# no sanitizer report. `make fuzz FUZZTIME=600` runs them longer.
. "$(dirname "$0")/lib.sh"

command -v "${FUZZ_CC:-clang}" >/dev/null ||
	skip "clang is not installed (Debian: clang, libclang-rt-14-dev)"
# A fixed seed: the same build tries the same inputs in the same order,
# so CI replays a prefix of what passed here (how long a prefix depends
# on the machine's speed, as runs stop on time); a new seed in
# FUZZ_FLAGS (or make fuzz) explores further.
FUZZ_FLAGS=${FUZZ_FLAGS:--seed=20261130}
export FUZZ_FLAGS
sh "$srcdir/test/fuzz/run.sh" -t "${FUZZ_SECONDS:-30}" -o "$T/fuzz"
rc=$?
[ "$rc" -ne 77 ] ||
	skip "clang cannot build libFuzzer targets (Debian: libclang-rt-14-dev)"
if [ "$rc" -ne 0 ]; then
	keep=$BUILDDIR/test/tmp/t-fuzz.artifacts
	rm -rf "$keep"
	cp -R "$T/fuzz/artifacts" "$keep" 2>/dev/null &&
		echo "crash inputs kept in $keep"
fi
# run.sh exits 1 for a crash, 2 for a failed build.
check "fuzz targets: the build works (if not, see the lines above)" \
    test "$rc" -ne 2 &&
    expect_eq "fuzz targets: no crash" "$rc" 0
finish
