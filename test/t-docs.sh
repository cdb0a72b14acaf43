#!/bin/sh
# t-docs.sh: what exists is documented. Every long option of ddpgen and
# ddprank is in its man page, every profile key in ddpgen-profile(5),
# every template variable script.c sets in ddpgen(1), and every exit
# status of src/exitcode.h in the EXIT STATUS section of the program
# that uses it.
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
		checks=$((checks + 1))
		grep -qE -- "(^|[^A-Za-z0-9_-])$n([^A-Za-z0-9_-]|\$)" "$T/page" ||
		    fail "$page does not document the $what $n"
	done
}

longopts() {
	sed -n '/longopts\[\] = {/,/^};/p' "$src/$1" |
	    sed -n 's/^[[:space:]]*{ "\([a-z0-9-]*\)".*/--\1/p'
}
gen_opts=$(longopts ddpgen.c)
checks=$((checks + 1))
[ "$(echo "$gen_opts" | wc -w)" -gt 20 ] || fail "cannot read ddpgen's long options"
# shellcheck disable=SC2086
documented ddpgen.1 option $gen_opts
rank_opts=$(longopts ddprank.c)
checks=$((checks + 1))
[ "$(echo "$rank_opts" | wc -w)" -gt 10 ] || fail "cannot read ddprank's long options"
# shellcheck disable=SC2086
documented ddprank.1 option $rank_opts

keys=$(sed -n '/keys\[\] = {/,/^};/p' "$src/profile.c" |
    sed -n 's/.*\.name = "\([a-z_]*\)".*/\1/p')
checks=$((checks + 1))
[ "$(echo "$keys" | wc -w)" -gt 20 ] || fail "cannot read the profile keys"
# shellcheck disable=SC2086
documented ddpgen-profile.5 "profile key" $keys

vars=$(grep -ho 'tmpl_set[a-z_]*(\(v\|rec\), "[a-z_]*"' "$src/script.c" |
    sed 's/.*"\(.*\)"/\1/' | sort -u)
vars="$vars $(grep -ho 'script_set_[a-z]*(\(v\|rec\), "[a-z_]*"' "$src/script.c" |
    sed 's/.*"\(.*\)"/\1/' | sort -u)"
checks=$((checks + 1))
[ "$(echo "$vars" | wc -w)" -gt 20 ] || fail "cannot read the template variables"
# shellcheck disable=SC2086
documented ddpgen.1 "template variable" $vars

# Exit statuses: ddpgen uses 0-3, ddprank all but 3.
status_section() {
	rendered "$1" | sed -n '/^EXIT STATUS/,/^[A-Z]/p'
}
for s in 0 1 2 3; do
	checks=$((checks + 1))
	status_section ddpgen.1 | grep -qE "^ +$s( |\$)" ||
	    fail "ddpgen.1 EXIT STATUS lacks $s"
done
for s in $(sed -n 's/.*= \([0-9]*\),.*/\1/p; s/.*= \([0-9]*\)[[:space:]]*\/\*.*/\1/p' \
    "$src/exitcode.h" | sort -un); do
	[ "$s" = 3 ] && continue
	checks=$((checks + 1))
	status_section ddprank.1 | grep -qE "^ +$s( |\$)" ||
	    fail "ddprank.1 EXIT STATUS lacks $s"
done
finish
