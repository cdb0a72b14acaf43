#!/bin/sh
# t-install.sh: make install (with DESTDIR, and for real into a prefix)
# puts every file where configure said, the installed ddpgen finds its
# profiles, templates and ddprank with no variable set, and make
# uninstall removes it all again.
. "$(dirname "$0")/lib.sh"

# A private copy configured for its own prefix, so the main tree's build
# is left alone.
tree=$T/tree prefix=$T/prefix
mkdir -p "$tree"
(cd "$srcdir" && tar cf - configure Makefile.in VERSION src templates \
    profiles python/sitecustomize.py python/ddprank_timeline.py man completion \
    contrib/modulefile.lua.in \
    contrib/modulefile.tcl.in) |
    (cd "$tree" && tar xf -)
rm -f "$tree"/src/*.o "$tree/src/config.h"
(cd "$tree" && ./configure --prefix="$prefix" --sysconfdir="$prefix/etc" \
    >/dev/null && make -s >/dev/null 2>&1)
expect_eq "build of the copy" "$?" 0

# Staged install: everything under DESTDIR, nothing at the prefix.
(cd "$tree" && make -s install DESTDIR="$T/stage" >/dev/null)
expect_eq "make install DESTDIR" "$?" 0
for f in bin/ddpgen bin/ddprank share/man/man1/ddpgen.1 \
    share/man/man1/ddprank.1 share/man/man5/ddpgen-profile.5 \
    share/ddpgen/profiles/cori.conf share/ddpgen/profiles/plmt.conf \
    share/ddpgen/profiles/slurm.conf share/ddpgen/profiles/hpcpack.conf \
    share/ddpgen/profiles/frontier.conf \
    share/ddpgen/profiles/polaris.conf share/ddpgen/templates/pbs.sh \
    share/ddpgen/profiles/tuolumne.conf share/ddpgen/templates/flux.sh \
    share/ddpgen/templates/slurm.sh share/ddpgen/templates/hpcpack.xml \
    share/ddpgen/templates/lsf.sh share/ddpgen/templates/job.sh \
    share/ddpgen/templates/job/train.sh share/ddpgen/templates/slurm/requeue.sh \
    share/ddpgen/templates/pbs/run.sh share/ddpgen/templates/lsf/run.sh \
    share/ddpgen/templates/flux/train.sh \
    share/ddpgen/templates/hpcpack.cmd share/ddpgen/templates/hpcpack.ps1 \
    share/ddpgen/python/sitecustomize.py \
    share/ddpgen/python/ddprank_timeline.py \
    share/bash-completion/completions/ddpgen \
    share/zsh/site-functions/_ddpgen \
    share/fish/vendor_completions.d/ddpgen.fish \
    share/fish/vendor_completions.d/ddprank.fish \
    share/modulefiles/lmod/ddpgen/$(cat "$srcdir/VERSION").lua \
    share/modulefiles/tcl/ddpgen/$(cat "$srcdir/VERSION"); do
	check "DESTDIR install has $f" test -f "$T/stage$prefix/$f"
done
expect_eq "bash completion for ddprank" \
    "$(readlink "$T/stage$prefix/share/bash-completion/completions/ddprank")" ddpgen
expect_eq "programs mode" "$(stat -c %a "$T/stage$prefix/bin/ddpgen")" 755
expect_eq "page mode" "$(stat -c %a "$T/stage$prefix/share/man/man1/ddpgen.1")" 644
check "DESTDIR install wrote nothing to the prefix" test ! -e "$prefix"

# Real install, then run from elsewhere with a clean environment.
(cd "$tree" && make -s install >/dev/null)
expect_eq "make install" "$?" 0
mkdir -p "$T/elsewhere"
out=$(cd "$T/elsewhere" && env -i PATH=/usr/bin:/bin HOME="$T/home" \
    "$prefix/bin/ddpgen" --site cori --nodes 2 train.py 2>&1)
expect_eq "installed ddpgen status" "$?" 0
# Every shell job, its skeleton and fragments found where they were
# installed.
for site in polaris lsf tuolumne; do
	(cd "$T/elsewhere" && env -i PATH=/usr/bin:/bin HOME="$T/home" \
	    "$prefix/bin/ddpgen" --site "$site" --nodes 2 train.py \
	    >"$T/$site.out" 2>&1)
	expect_eq "installed ddpgen: $site status" "$?" 0
	check "installed ddpgen: $site's job" grep -q '^DDPRANK_SECRET=' \
	    "$T/$site.out"
done
expect_eq "installed ddpgen uses the installed ddprank" \
    "$(printf '%s\n' "$out" | grep -c "^DDPRANK=$prefix/bin/ddprank\$")" 1
sites=$(env -i PATH=/usr/bin:/bin HOME="$T/home" "$prefix/bin/ddpgen" --list-sites)
lists_cori() {
	printf '%s\n' "$sites" | grep -q "^cori .*($prefix/share/ddpgen/profiles/cori.conf)"
}
check "installed --list-sites finds cori: $sites" lists_cori
# A site profile in sysconfdir shadows the shipped one of the same name.
mkdir -p "$prefix/etc/ddpgen/profiles"
printf 'extends = "cori"\naccount = "site-wide"\n' \
    >"$prefix/etc/ddpgen/profiles/cori.conf"
expect_eq "sysconfdir profile" "$(env -i PATH=/usr/bin:/bin HOME="$T/home" \
    "$prefix/bin/ddpgen" --site cori train.py | grep -c '^#SBATCH --account=site-wide$')" 1
rm -r "$prefix/etc/ddpgen"
if command -v man >/dev/null; then
	check "man finds ddpgen-profile(5)" \
	    env MANPATH="$prefix/share/man" man -w ddpgen-profile >/dev/null 2>&1
fi

(cd "$tree" && make -s uninstall >/dev/null)
expect_eq "make uninstall" "$?" 0
left=$(find "$prefix" ! -type d | sed "s|^$prefix/||")
expect_eq "files left after uninstall" "$left" ""
finish
