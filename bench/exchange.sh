#!/bin/sh
# exchange.sh: the shared-directory exchange of ddprank at 16, 256 and
# 1,024 simulated nodes: processes of this machine, each running the
# exchange (bench/exchange-node.c, linked from this tree's objects) with
# a fake host name and address, all in one directory on local disk,
# authenticated with a secret as an HPC Pack job is. The nodes start
# their exchanges together, once every process is up. Per size: the time
# from the last node's start to every node holding the full table
# ("start"), the same from the last entry written ("entry"), the time
# node 0 then takes to see every node's read marker and remove the
# directory ("clean"), the openat and read calls per node, and the CPU
# time per node (user and system) in the exchange.
#	sh bench/exchange.sh [NNODES ...]
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- 16 256 1024
[ -f "$top/src/exchange.o" ] || { echo "exchange.sh: build the tree first" \
    "(./configure && make)" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/ddpgen-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
# The node program, private: a rebuild in the tree does it no harm. It
# links the exchange's objects and what they use, those of them this
# tree has (so that an older tree, with the exchange in one file, can be
# measured too).
objs=
for o in exchange exchange-dir exchange-table exchange-msg exchange-clean \
    exchange-nompi sdir auth mac-openssl util xmalloc netif rx resolve-libc \
    scheduler vocab; do
	[ ! -f "$top/src/$o.o" ] || objs="$objs $top/src/$o.o"
done
# shellcheck disable=SC2086 # paths without blanks, one a word
${CC:-cc} -O2 -g -std=c11 -I"$top/src" -o "$T/node" \
    "$top/bench/exchange-node.c" $objs -lcrypto -lpcre2-8 \
    -Wl,--wrap=openat,--wrap=read
secret=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
mkdir -m 0700 "$T/base"

printf '%6s %10s %10s %10s %11s %11s %10s\n' nodes "start (s)" \
    "entry (s)" "clean (s)" "opens/node" "reads/node" "CPU (ms)"
for n in "$@"; do
	out=$T/out.$n
	: >"$out"
	: >"$T/ready"
	i=1 pids=
	while [ "$i" -le "$n" ]; do
		"$T/node" "$T/base" "bench$n" "$n" "$i" "$secret" "$T/ready" \
		    >>"$out" &
		pids="$pids $!"
		i=$((i + 1))
	done
	while [ "$(wc -c <"$T/ready")" -lt "$n" ]; do
		sleep 0.1
	done
	# shellcheck disable=SC2086 # one pid a word
	kill -USR1 $pids
	wait
	# Columns: TASK START PUBLISHED END OPENS READS XC CPU. Node 0 is the
	# node of task 1 (the entries have task ids); its end includes the
	# cleanup, the others' do not.
	awk -v n="$n" '
	$7 != 0 { bad++ }
	{
		if ($2 > start) start = $2
		if ($3 > entry) entry = $3
		opens += $5; reads += $6; cpu += $8
	}
	$1 == 1 { end0 = $4; next }
	{ if ($4 > table) table = $4 }
	END {
		if (bad > 0 || NR != n) {
			printf "exchange.sh: %d nodes of %d failed\n", \
			    bad + n - NR, n > "/dev/stderr"
			exit 1
		}
		if (end0 > table) clean = end0 - table
		printf "%6d %10.3f %10.3f %10.3f %11.1f %11.1f %10.3f\n", n, \
		    table - start, table - entry, clean, opens / n, \
		    reads / n, 1000 * cpu / n
	}' "$out"
done
