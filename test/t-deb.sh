#!/bin/sh
# t-deb.sh: debian/ builds a package (dpkg-buildpackage -us -uc -b, in an
# unpacked dist tarball, never in the source tree) that lintian finds no
# error in and that installs both programs, the man pages, the profiles,
# the templates and the completions.  The package is then run as
# installed: its usr is laid over /usr (overlayfs, in a private mount
# namespace, so nothing of this machine changes), where the programs
# find their data under /usr/share/ddpgen as configure baked it in.
. "$(dirname "$0")/lib.sh"

command -v dpkg-buildpackage >/dev/null ||
	skip "dpkg-buildpackage not installed (Debian package dpkg-dev)"
version=$(cat "$srcdir/VERSION")
name=ddpgen-$version
check "make dist" make -s -C "$BUILDDIR" dist DISTDIR="$T" >"$T/dist.log" 2>&1 ||
	{ cat "$T/dist.log"; finish; }
mkdir "$T/build"
tar -C "$T/build" -xzf "$T/$name.tar.gz"
(cd "$T/build/$name" && DEB_BUILD_OPTIONS=nocheck \
    dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1
expect_eq "dpkg-buildpackage -us -uc -b" "$?" 0
deb=$(ls "$T/build/ddpgen_${version}_"*.deb 2>/dev/null)
check "a .deb built" test -f "$deb" || { tail -n 30 "$T/build.log"; finish; }
check "the build wrote no debian/ddpgen into the source tree" \
    test ! -e "$srcdir/debian/ddpgen"
check "the build wrote no debian/files into the source tree" \
    test ! -e "$srcdir/debian/files"

if command -v lintian >/dev/null; then
	lintian --fail-on error "$deb" >"$T/lintian.log" 2>&1
	expect_eq "lintian --fail-on error" "$?" 0
	expect_eq "lintian errors" "$(grep '^E:' "$T/lintian.log")" ""
else
	check "lintian installed (Debian package lintian)" false
fi

dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./||' >"$T/contents"
for f in usr/bin/ddpgen usr/bin/ddprank usr/share/man/man1/ddpgen.1.gz \
    usr/share/man/man1/ddprank.1.gz usr/share/man/man5/ddpgen-profile.5.gz \
    usr/share/ddpgen/profiles/cori.conf usr/share/ddpgen/profiles/hpcpack.conf \
    usr/share/ddpgen/profiles/plmt.conf usr/share/ddpgen/profiles/slurm.conf \
    usr/share/ddpgen/profiles/frontier.conf \
    usr/share/ddpgen/profiles/polaris.conf usr/share/ddpgen/templates/pbs.sh \
    usr/share/ddpgen/profiles/tuolumne.conf usr/share/ddpgen/templates/flux.sh \
    usr/share/ddpgen/templates/slurm.sh usr/share/ddpgen/templates/hpcpack.xml \
    usr/share/ddpgen/templates/hpcpack.cmd usr/share/ddpgen/templates/hpcpack.ps1 \
    usr/share/bash-completion/completions/ddpgen \
    usr/share/bash-completion/completions/ddprank \
    usr/share/zsh/vendor-completions/_ddpgen \
    usr/share/fish/vendor_completions.d/ddpgen.fish \
    usr/share/fish/vendor_completions.d/ddprank.fish \
    usr/share/doc/ddpgen/copyright; do
	check "the package holds $f" grep -qx "$f" "$T/contents"
done

# Installed: the package's usr over this machine's, in a private mount
# namespace (root's, or a user namespace's when not root).
mkdir "$T/root"
dpkg-deb -x "$deb" "$T/root"
ns="unshare -m"
[ "$(id -u)" -eq 0 ] || ns="unshare -rm"
cat >"$T/installed.sh" <<'EOF2'
mount --make-rprivate / && mount -t overlay overlay \
    -o "lowerdir=$1/usr:/usr" /usr || { echo "cannot lay the package over /usr"; exit 1; }
cd /
echo "== which"; command -v ddpgen; command -v ddprank
echo "== list-sites"; ddpgen --list-sites
echo "== man"; man -w ddpgen
echo "== hosts"; ddprank hosts 'n[1-3]'
echo "== job"; ddpgen --site cori --nodes 2 train.py | grep '^DDPRANK='
echo "== completion"
# The loader returns 124 once it has loaded a completion.
bash -c '. /usr/share/bash-completion/bash_completion || exit
    _completion_loader ddprank; complete -p ddprank'
EOF2
env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin HOME="$T/home" \
    XDG_CONFIG_HOME="$T/config" $ns sh "$T/installed.sh" "$T/root" \
    >"$T/installed.log" 2>&1
expect_eq "running the installed package" "$?" 0
cat "$T/installed.log"
section() { sed -n "/^== $1\$/,/^== /p" "$T/installed.log" | sed '1d;/^== /d'; }
expect_eq "installed programs" "$(section which)" "/usr/bin/ddpgen
/usr/bin/ddprank"
lists_cori() {
	section list-sites | grep -q '^cori .*(/usr/share/ddpgen/profiles/cori\.conf)$'
}
check "ddpgen --list-sites finds the installed profiles" lists_cori
expect_eq "man -w ddpgen" "$(section man)" /usr/share/man/man1/ddpgen.1.gz
expect_eq "ddprank hosts 'n[1-3]'" "$(section hosts)" "n1
n2
n3"
expect_eq "the job runs the installed ddprank" "$(section job)" \
    DDPRANK=/usr/bin/ddprank
expect_eq "bash-completion loads ddprank's completion" "$(section completion)" \
    "complete -F _ddprank ddprank"
finish
