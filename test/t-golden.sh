#!/bin/sh
# t-golden.sh: ddpgen's output for fixed profiles and arguments, compared
# with diff -u against test/golden/DIR/NAME.out (stdout), NAME.err
# (stderr, default empty) and NAME.rc (exit status, default 0). NAME.args
# holds the arguments, one per line. DIR is one per scheduler, as
# mandoc's regress/ has one per macro: slurm, pbs, lsf, flux, hpcpack and
# local each hold the cases that generate for that scheduler (the --site
# profile's, slurm by default; --local's is local), its errors among
# them; common holds those that stop before a scheduler matters (a bad
# command-line value, no script, an unknown site, a profile that does
# not load). ddpgen runs in the case's DIR, so the profiles there are
# named ./NAME.conf. UPDATE_GOLDEN=1 rewrites the expected files.
. "$(dirname "$0")/lib.sh"

# deps.sh installs shellcheck: without it the scripts go unchecked.
check "shellcheck installed" command -v shellcheck >/dev/null || finish
g=$srcdir/test/golden
check "every case is in a directory" \
    test -z "$(find "$g" -maxdepth 1 -type f -name '*.args')"
for args in "$g"/*/*.args; do
	d=$(dirname "$args")
	dir=$(basename "$d")
	name=$(basename "$args" .args)
	set --
	while IFS= read -r a; do
		set -- "$@" "$a"
	done <"$args"
	(cd "$d" && "$DDPGEN" --ddprank /opt/ddpgen/bin/ddprank "$@") \
	    >"$T/out" 2>"$T/err"
	echo $? >"$T/rc"
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$T/out" "$d/$name.out"
		[ ! -s "$T/err" ] || cp "$T/err" "$d/$name.err"
		[ "$(cat "$T/rc")" = 0 ] || cp "$T/rc" "$d/$name.rc"
		check "$dir/$name: copied" test -f "$d/$name.out"
		continue
	fi
	[ -f "$d/$name.err" ] || : >"$T/want.err"
	[ -f "$d/$name.rc" ] || echo 0 >"$T/want.rc"
	for part in out err rc; do
		want=$d/$name.$part
		[ -f "$want" ] || want=$T/want.$part
		check "$dir/$name.$part as expected" diff -u "$want" "$T/$part"
	done
	# Every job a shell scheduler's profile produces is clean shell;
	# HPC Pack's are XML, cmd and PowerShell, and common's cases fail.
	# A user's setup line may source a file of the cluster's, which is
	# not there to follow (SC1091).
	case $dir in
	hpcpack|common) ;;
	*)
		[ "$(cat "$T/rc")" = 0 ] || continue
		check "$dir/$name: bash -n" bash -n "$T/out"
		expect_eq "$dir/$name: shellcheck" \
		    "$(shellcheck -s bash -e SC1091 "$T/out" 2>&1)" "" ;;
	esac
done
finish
