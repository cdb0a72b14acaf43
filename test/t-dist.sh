#!/bin/sh
# t-dist.sh: make dist writes ddpgen-VERSION.tar.gz with every source
# file and no build product; unpacked in a directory outside any git
# tree, it configures, builds and passes the unit suites, t-golden and
# t-docs (the whole suite would take minutes), and makes the same
# tarball again from its MANIFEST.
. "$(dirname "$0")/lib.sh"

version=$(cat "$srcdir/VERSION")
name=ddpgen-$version
make -s -C "$BUILDDIR" dist DISTDIR="$T" >"$T/dist.log" 2>&1
expect_eq "make dist" "$?" 0
tarball=$T/$name.tar.gz
check "$name.tar.gz made: $(cat "$T/dist.log")" test -f "$tarball" || finish
tar -tzf "$tarball" | sed "s|^$name/||; /\/\$/d; /^\$/d" | sort >"$T/files"
check "the tarball holds no build products" ! grep -E \
    '(\.o|^ddpgen|^ddprank|^Makefile|config\.(h|log)|^test/tmp/.*|^test/check_[a-z]*)$' \
    "$T/files"
if [ -e "$srcdir/.git" ]; then
	(cd "$srcdir" && git ls-files) | sort >"$T/tracked"
	expect_eq "files git tracks missing from the tarball" \
	    "$(comm -23 "$T/tracked" "$T/files")" ""
fi
for f in MANIFEST configure Makefile.in VERSION debian/rules \
    contrib/modulefile.lua.in completion/_ddpgen test/golden/slurm/cori.out; do
	check "the tarball holds $f" grep -qx "$f" "$T/files"
done

# Outside any git tree: not under this one's test/tmp.
out=$(mktemp -d "${TMPDIR:-/tmp}/ddpgen-dist.XXXXXX") || exit 1
on_exit 'rm -rf "$out"'
tar -C "$out" -xzf "$tarball"
check "$out is outside any git tree" \
    ! git -C "$out/$name" rev-parse --git-dir >/dev/null 2>&1
cd "$out/$name" || exit 1
(./configure && make -j2) >"$T/build.log" 2>&1
expect_eq "configure && make in the unpacked tarball" "$?" 0
check "the build does not warn" ! grep -i 'warning:' "$T/build.log"
make -s unit-check >"$T/unit.log" 2>&1
expect_eq "unit suites in the unpacked tarball" "$?" 0
sh test/run-tests.sh test/t-golden.sh test/t-docs.sh >"$T/shell.log" 2>&1
expect_eq "t-golden and t-docs in the unpacked tarball" "$?" 0
cat "$T/unit.log" "$T/shell.log"

# A tarball's own dist, from its MANIFEST, is the same file list.
mkdir "$T/again"
make -s dist DISTDIR="$T/again" >/dev/null 2>&1
expect_eq "make dist from the tarball" "$?" 0
expect_eq "file list of the tarball's own dist" \
    "$(tar -tzf "$T/again/$name.tar.gz" | sed "s|^$name/||; /\/\$/d; /^\$/d" | sort)" \
    "$(cat "$T/files")"
finish
