#!/bin/sh
# t-modulefile.sh: the module files make install writes, loaded by Lmod
# (from Debian) in a clean shell, put ddpgen and ddprank on PATH and the
# man pages on MANPATH and change nothing else but Lmod's own records;
# the Lua file and the Tcl one alike (Lmod reads both), and unloading
# takes it all back.
. "$(dirname "$0")/lib.sh"

lmod_init=/usr/share/lmod/lmod/init/bash
check "Lmod installed (Debian package lmod)" test -f "$lmod_init" || finish

# A private copy, installed into its own prefix.
tree=$T/tree prefix=$T/prefix
mkdir -p "$tree"
(cd "$srcdir" && tar cf - configure Makefile.in VERSION src templates python \
    profiles man completion contrib/modulefile.lua.in \
    contrib/modulefile.tcl.in) | (cd "$tree" && tar xf -)
rm -f "$tree"/src/*.o "$tree/src/config.h"
(cd "$tree" && ./configure --prefix="$prefix" >/dev/null &&
    make -s -j2 install >/dev/null 2>&1)
expect_eq "make install of the copy" "$?" 0
version=$(cat "$srcdir/VERSION")

# in_lmod KIND: loads the KIND (lmod or tcl) module file in a clean
# bash; prints the environment before and after, and what ran.
cat >"$T/load.sh" <<'EOF2'
. "$LMOD_INIT" >/dev/null 2>&1 || { echo "cannot start Lmod"; exit 1; }
module use "$MODDIR" || exit 1
env | LC_ALL=C sort >"$OUT.before"
echo "system before: $(man -w man 2>&1)"
module load ddpgen || exit 1
env | LC_ALL=C sort >"$OUT.after"
echo "== version"; ddpgen --version
echo "== man"; man -w ddprank
echo "== which"; command -v ddprank
echo "== system"; man -w man 2>&1
module unload ddpgen || exit 1
env | LC_ALL=C sort >"$OUT.unloaded"
EOF2
for kind in lmod tcl; do
	env -i HOME="$T/home" PATH=/usr/bin:/bin LMOD_INIT="$lmod_init" \
	    MODDIR="$prefix/share/modulefiles/$kind" OUT="$T/$kind" \
	    bash --norc --noprofile "$T/load.sh" >"$T/$kind.log" 2>&1
	expect_eq "$kind: module use, load, unload" "$?" 0
	cat "$T/$kind.log"
	section() { sed -n "/^== $1\$/,/^== /p" "$T/$kind.log" | sed '1d;/^== /d'; }
	expect_eq "$kind: ddpgen --version" "$(section version)" "ddpgen $version"
	expect_eq "$kind: man -w ddprank" "$(section man)" \
	    "$prefix/share/man/man1/ddprank.1"
	expect_eq "$kind: ddprank on PATH" "$(section which)" "$prefix/bin/ddprank"
	# What changed, but Lmod's own records of what is loaded.
	lmodvars='^(LOADEDMODULES|_LMFILES_|_ModuleTable[A-Za-z0-9_]*|__LMOD_REF_COUNT_[A-Z_]*|LMOD_[A-Z_]*|MODULEPATH|__LMOD_STACK_[A-Z_]*)='
	changed=$(comm -3 "$T/$kind.before" "$T/$kind.after" |
	    sed 's/^\t//' | grep -Ev "$lmodvars" | sed 's/=.*//' | sort -u |
	    tr '\n' ' ')
	expect_eq "$kind: variables the module changes" "$changed" "MANPATH PATH "
	expect_eq "$kind: PATH" "$(grep '^PATH=' "$T/$kind.after")" \
	    "PATH=$prefix/bin:/usr/bin:/bin"
	# MANPATH was unset: man's default path must stay searched.
	expect_eq "$kind: MANPATH" "$(grep '^MANPATH=' "$T/$kind.after")" \
	    "MANPATH=$prefix/share/man::"
	expect_eq "$kind: a system page before and after" "$(section system)" \
	    "$(sed -n 's/^system before: //p' "$T/$kind.log")"
	expect_eq "$kind: MANPATH after unload" \
	    "$(grep -c '^MANPATH=' "$T/$kind.unloaded")" 0
	expect_eq "$kind: PATH after unload" "$(grep '^PATH=' "$T/$kind.unloaded")" \
	    "PATH=/usr/bin:/bin"
done
finish
