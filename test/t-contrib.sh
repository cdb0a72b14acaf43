#!/bin/sh
# t-contrib.sh: the Spack package and the EasyBuild easyconfigs of
# contrib/ parse (Python's ast) and agree with VERSION, the libraries
# configure requires, and the flags configure --help lists, so they
# cannot silently go stale (test/recipes.py).
. "$(dirname "$0")/lib.sh"

check "python3 installed" command -v python3 >/dev/null || finish
(cd "$T" && "$srcdir/configure" --help) >"$T/help"
expect_eq "configure --help" "$?" 0
python3 "$srcdir/test/recipes.py" "$srcdir" "$T/help"
expect_eq "recipes agree with the tree" "$?" 0
finish
