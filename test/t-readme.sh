#!/bin/sh
# t-readme.sh: the README's two quick-start command lines are what they
# claim: .ci/run runs exactly the test command, and the build command,
# run in a fresh copy of the tree, builds and prints a job for a shipped
# profile.
. "$(dirname "$0")/lib.sh"

readme=$srcdir/README.md
# The quick-start lines are the indented lines that start with "sh deps.sh".
build=$(sed -n 's/^    \(sh deps\.sh build .*\)$/\1/p' "$readme")
testcmd=$(sed -n 's/^    \(sh deps\.sh test .*\)$/\1/p' "$readme")
check "README has the quick-start build line" test -n "$build"
check "README has the quick-start test line" test -n "$testcmd"
ci=$(grep -v '^#' "$srcdir/.ci/run" | grep -v '^set -e$' |
    grep -v '^cd "\$(dirname "\$0")/\.\."$' | grep -v '^$')
expect_eq ".ci/run runs the README's test command" "$ci" "$testcmd"

tree=$T/tree
mkdir -p "$tree"
(cd "$srcdir" && tar cf - configure Makefile.in VERSION deps.sh src \
    templates profiles man completion) | (cd "$tree" && tar xf -)
rm -f "$tree"/src/*.o "$tree/src/config.h"
(cd "$tree" && sh -c "$build") >"$T/out" 2>"$T/err"
expect_eq "README build command status" "$?" 0
check "README build command prints a cori job: $(tail -5 "$T/err")" \
    grep -q '^#SBATCH --constraint=haswell$' "$T/out"
check "the cori job finds the master on eth3" \
    grep -q "ip --first-node --iface '\^eth3\\$' -4" "$T/out"
finish
