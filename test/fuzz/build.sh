#!/bin/sh
# build.sh: builds the libFuzzer targets of test/fuzz with clang, ASan and
# UBSan, in a directory of their own so the main tree's objects (built by
# gcc with other flags, and in use by others) are never touched.
#   sh test/fuzz/build.sh OUTDIR [TARGET ...]     (default: every target)
# Prints nothing on success but the targets built; exits 77 when clang
# cannot build a libFuzzer program (Debian: clang, libclang-rt-14-dev).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../src" && pwd)
out=${1:?usage: sh build.sh OUTDIR [TARGET ...]}
shift
# shellcheck disable=SC2046 # target names have no blanks
[ $# -gt 0 ] || set -- $(cd "$here" && ls fuzz_*.c | sed 's/\.c$//')
CC=${FUZZ_CC:-clang}

mkdir -p "$out/obj"
out=$(cd "$out" && pwd)
cd "$out"

printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ return d && n; }\n' \
    >probe.c
if ! "$CC" -fsanitize=fuzzer,address,undefined -o probe probe.c \
    >probe.log 2>&1; then
	echo "$CC cannot build libFuzzer targets (Debian: clang, libclang-rt-14-dev)"
	exit 77
fi

# config.h when the tree is not configured; a configured tree's
# src/config.h is found first, beside the sources.
cat >config.h <<'CONFIG'
#ifndef DDPGEN_CONFIG_H
#define DDPGEN_CONFIG_H
#define _GNU_SOURCE 1
#define DDPGEN_VERSION "fuzz"
#define DDPGEN_BINDIR "/nonexistent/bin"
#define DDPGEN_DATADIR "/nonexistent/share/ddpgen"
#define DDPGEN_SYSCONFDIR "/nonexistent/etc/ddpgen"
#endif
CONFIG

SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
# -Werror: clang sees some things gcc's build does not (a format string
# passed on without a format attribute), and the tree stays warning-free.
CFLAGS="-std=c11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Wformat=2
-Wmissing-prototypes -Wstrict-prototypes -Wshadow -Wpointer-arith
-Wwrite-strings -Werror -I$out -I$src
$(pkg-config --cflags libconfuse libpcre2-8 libcrypto)"
LIBS=$(pkg-config --libs libconfuse libpcre2-8 libcrypto)

# Every module but the two mains, instrumented for coverage; each target
# takes from the archive only what it calls.
objs=
for c in "$src"/*.c; do
	m=$(basename "$c" .c)
	# exchange-mpi.c needs <mpi.h>: the targets link the stub. mac-own.c
	# and resolve-files.c stand in for mac-openssl.c and resolve-libc.c
	# in ddprank-static only.
	case $m in ddpgen|ddprank|exchange-mpi|mac-own|resolve-files) continue ;; esac
	o=obj/$m.o
	# Rebuilt when its source or any header is newer.
	if [ ! -e "$o" ] || [ -n "$(find "$c" "$src"/*.h -newer "$o")" ]; then
		# shellcheck disable=SC2086
		"$CC" $CFLAGS $SAN -fsanitize=fuzzer-no-link -c -o "$o" "$c"
	fi
	objs="$objs $o"
done
rm -f libddp.a
# shellcheck disable=SC2086
ar rcs libddp.a $objs

for t; do
	# shellcheck disable=SC2086
	"$CC" $CFLAGS $SAN -fsanitize=fuzzer -o "$t" "$here/$t.c" libddp.a $LIBS
	echo "$out/$t"
done
