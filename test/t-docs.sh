#!/bin/sh
# t-docs.sh: what exists is documented. Every long option of ddpgen and
# ddprank is in its man page, every profile key in ddpgen-profile(5),
# every template variable script.c and the back-ends (gen-*.c) set in
# ddpgen(1), and every exit status of src/exitcode.h in the EXIT STATUS
# section of the program that uses it.
. "$(dirname "$0")/lib.sh"

man=$srcdir/man
src=$srcdir/src
# rendered: the page as text, so markup does not hide a name.
rendered() { mandoc -Tascii -Owidth=250 "$man/$1" | sed 's/.\x08//g'; }
command -v mandoc >/dev/null || skip "mandoc not installed (Debian package mandoc)"

# documented PAGE WHAT NAME...: each NAME occurs in PAGE as a word.
documented() {
	page=$1 what=$2
	shift 2
	rendered "$page" >"$T/page"
	for n; do
		check "$page documents the $what $n" \
		    grep -qE -- "(^|[^A-Za-z0-9_-])$n([^A-Za-z0-9_-]|\$)" "$T/page"
	done
}

longopts() {
	sed -n '/longopts\[\] = {/,/^};/p' "$src/$1" |
	    sed -n 's/^[[:space:]]*{ "\([a-z0-9-]*\)".*/--\1/p'
}
gen_opts=$(longopts ddpgen.c)
check "can read ddpgen's long options" test "$(echo "$gen_opts" | wc -w)" -gt 20
# shellcheck disable=SC2086
documented ddpgen.1 option $gen_opts
rank_opts=$(longopts ddprank.c)
check "can read ddprank's long options" test "$(echo "$rank_opts" | wc -w)" -gt 10
# shellcheck disable=SC2086
documented ddprank.1 option $rank_opts

keys=$(sed -n '/keys\[\] = {/,/^};/p' "$src/profile-key.c" |
    sed -n 's/.*\.name = "\([a-z_]*\)".*/\1/p')
check "can read the profile keys" test "$(echo "$keys" | wc -w)" -gt 20
# shellcheck disable=SC2086
documented ddpgen-profile.5 "profile key" $keys

vars=$(grep -ho '\(tmpl\|script\)_set[a-z_]*(\(v\|rec\), "[a-z_]*"' \
    "$src/script.c" "$src"/gen-*.c | sed 's/.*"\(.*\)"/\1/' | sort -u)
check "can read the template variables" test "$(echo "$vars" | wc -w)" -gt 20
# shellcheck disable=SC2086
documented ddpgen.1 "template variable" $vars

# Exit statuses: ddpgen uses 0-3, ddprank all but 3.
status_section() {
	rendered "$1" | sed -n '/^EXIT STATUS/,/^[A-Z]/p'
}
# status_listed PAGE STATUS: the EXIT STATUS section of PAGE lists STATUS.
status_listed() {
	status_section "$1" | grep -qE "^ +$2( |\$)"
}
for s in 0 1 2 3; do
	check "ddpgen.1 EXIT STATUS lists $s" status_listed ddpgen.1 "$s"
done
for s in $(sed -n 's/.*= \([0-9]*\),.*/\1/p; s/.*= \([0-9]*\)[[:space:]]*\/\*.*/\1/p' \
    "$src/exitcode.h" | sort -un); do
	[ "$s" = 3 ] && continue
	check "ddprank.1 EXIT STATUS lists $s" status_listed ddprank.1 "$s"
done
finish
