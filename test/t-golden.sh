#!/bin/sh
# t-golden.sh: ddpgen's output for fixed profiles and arguments, compared
# with diff -u against test/golden/NAME.out (stdout), NAME.err (stderr,
# default empty) and NAME.rc (exit status, default 0). NAME.args holds
# the arguments, one per line; ddpgen runs in test/golden, so profiles
# there are named ./NAME.conf. UPDATE_GOLDEN=1 rewrites the expected files.
. "$(dirname "$0")/lib.sh"

# deps.sh installs shellcheck: without it the scripts go unchecked.
check "shellcheck installed" command -v shellcheck >/dev/null || finish
g=$srcdir/test/golden
for args in "$g"/*.args; do
	name=$(basename "$args" .args)
	set --
	while IFS= read -r a; do
		set -- "$@" "$a"
	done <"$args"
	(cd "$g" && "$DDPGEN" --ddprank /opt/ddpgen/bin/ddprank "$@") \
	    >"$T/out" 2>"$T/err"
	echo $? >"$T/rc"
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$T/out" "$g/$name.out"
		[ ! -s "$T/err" ] || cp "$T/err" "$g/$name.err"
		[ "$(cat "$T/rc")" = 0 ] || cp "$T/rc" "$g/$name.rc"
		check "$name: copied" test -f "$g/$name.out"
		continue
	fi
	[ -f "$g/$name.err" ] || : >"$T/want.err"
	[ -f "$g/$name.rc" ] || echo 0 >"$T/want.rc"
	for part in out err rc; do
		want=$g/$name.$part
		[ -f "$want" ] || want=$T/want.$part
		check "$name.$part as expected" diff -u "$want" "$T/$part"
	done
	# Every script the shipped Slurm and Flux profiles produce is clean
	# shell.
	case $name in
	*.sh|slurm*|cori*|plmt*|pbs*|polaris*|flux*|tuolumne*|lsf*|frontier*)
		[ "$(cat "$T/rc")" = 0 ] || continue
		check "$name: bash -n" bash -n "$T/out"
		expect_eq "$name: shellcheck" \
		    "$(shellcheck -s bash "$T/out" 2>&1)" "" ;;
	esac
done
finish
