#!/bin/sh
# t-man.sh: every man page is clean under mandoc -Tlint, and the commands
# in their EXAMPLES sections print what the pages say they print.
. "$(dirname "$0")/lib.sh"

command -v mandoc >/dev/null || skip "mandoc not installed (Debian package mandoc)"
for page in "$srcdir"/man/*.[1-9]; do
	out=$(mandoc -Tlint -W warning "$page" 2>&1)
	expect_eq "mandoc -Tlint $(basename "$page")" "$out" ""
	if grep -q '^\.Sh EXAMPLES' "$page"; then
		check "examples of $(basename "$page")" \
		    python3 "$srcdir/test/man-examples.py" "$BUILDDIR" "$page"
	fi
done
finish
