#!/bin/sh
# run.sh: builds the libFuzzer targets of test/fuzz and runs each for a
# while on its seed corpus (corpus/TARGET), then prints one line per
# target: executions, coverage (libFuzzer's cov and ft), corpus size and
# crashes. New corpus entries stay in OUTDIR, and so do crash inputs,
# until the target's next run.
#   sh test/fuzz/run.sh [-t SECONDS] [-o OUTDIR] [TARGET ...]
# FUZZ_FLAGS adds libFuzzer options, e.g. "-fork=1 -ignore_crashes=1" to
# go on past a known crash.
# Exits 0 without crashes, 1 with, 2 when a target does not build (a
# warning counts), 77 when clang cannot build libFuzzer
# programs. A crash input belongs in corpus/TARGET: every later run
# replays it first, so t-fuzz.sh fails until its bug is fixed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=60
out=${BUILDDIR:-$top}/test/tmp/fuzz
while getopts t:o: c; do
	case $c in
	t)	secs=$OPTARG ;;
	o)	out=$OPTARG ;;
	*)	echo "usage: sh run.sh [-t SECONDS] [-o OUTDIR] [TARGET ...]" >&2
		exit 2 ;;
	esac
done
shift $((OPTIND - 1))
# shellcheck disable=SC2046 # target names have no blanks
[ $# -gt 0 ] || set -- $(cd "$here" && ls fuzz_*.c | sed 's/\.c$//')

mkdir -p "$out"
out=$(cd "$out" && pwd)
sh "$here/build.sh" "$out" "$@" >"$out/build.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	tail -n 20 "$out/build.log"
	[ $rc -eq 77 ] && exit 77
	echo "run.sh: building the fuzz targets failed"
	exit 2
fi

# The fuzzers write temporary files and may read relative paths: keep
# both inside OUTDIR.
mkdir -p "$out/tmp" "$out/artifacts"
TMPDIR=$out/tmp
DDPGEN_FUZZ_PROFILES=$top/profiles
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TMPDIR DDPGEN_FUZZ_PROFILES UBSAN_OPTIONS

crashed=0
for t; do
	mkdir -p "$out/corpus/$t"
	dict=
	[ -f "$here/$t.dict" ] && dict=-dict=$here/$t.dict
	rm -f "$out/artifacts/$t-"*
	start=$(date +%s)
	(cd "$out/tmp" && "$out/$t" -max_total_time="$secs" -timeout=10 \
	    -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 -error_exitcode=99 \
	    -artifact_prefix="$out/artifacts/$t-" $dict ${FUZZ_FLAGS:-} \
	    "$out/corpus/$t" "$here/corpus/$t") >"$out/$t.log" 2>&1
	rc=$?
	took=$(( $(date +%s) - start ))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log")
	last=$(grep -a '^#[0-9]' "$out/$t.log" | tail -n 1)
	cov=$(printf '%s\n' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(printf '%s\n' "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
	# -fork=N prints no final statistics, only its progress lines.
	[ -n "$execs" ] || execs=$(printf '%s\n' "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
	crashes=$(find "$out/artifacts" -name "$t-*" | wc -l)
	echo "$t: $took s, ${execs:-?} execs, cov ${cov:-?}, ft ${ft:-?}," \
	    "corpus ${corp:-?}, crashes $crashes (exit $rc)"
	if [ $rc -ne 0 ] || [ "$crashes" -ne 0 ]; then
		crashed=1
		grep -a -A 30 '^==[0-9]*==ERROR\|runtime error\|^SUMMARY' \
		    "$out/$t.log" | head -n 40
		echo "log: $out/$t.log; inputs: $out/artifacts/$t-*"
	fi
done
exit $crashed
