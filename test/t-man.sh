#!/bin/sh
# t-man.sh: every man page is clean under mandoc -Tlint and as rendered
# (test/man-rendered.py: the slips -Tlint does not see), --list-sites
# names every scheduler, and the commands in their EXAMPLES sections
# print what the pages say they print.
. "$(dirname "$0")/lib.sh"

command -v mandoc >/dev/null || skip "mandoc not installed (Debian package mandoc)"
for page in "$srcdir"/man/*.[1-9]; do
	out=$(mandoc -Tlint -W warning "$page" 2>&1)
	expect_eq "mandoc -Tlint $(basename "$page")" "$out" ""
	check "rendered $(basename "$page")" \
	    python3 "$srcdir/test/man-rendered.py" "$page"
	if grep -q '^\.Sh EXAMPLES' "$page"; then
		check "examples of $(basename "$page")" \
		    python3 "$srcdir/test/man-examples.py" "$BUILDDIR" "$page"
	fi
done
# --list-sites prints each site's scheduler: its description names every
# word of the profile's scheduler key.
scheds=$(sed -n 's/^\.It Ic scheduler No = Cm //p' \
    "$srcdir/man/ddpgen-profile.5" | tr -d '|')
mandoc -Tascii -Owidth=250 "$srcdir/man/ddpgen.1" | sed 's/.\x08//g' |
    sed -n '/^ *--list-sites$/{n;p;}' >"$T/list-sites"
check "scheduler key words found" test -n "$scheds"
for s in $scheds; do
	check "--list-sites names $s: $(cat "$T/list-sites")" \
	    grep -qw "$s" "$T/list-sites"
done
finish
