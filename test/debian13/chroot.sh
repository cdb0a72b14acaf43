#!/bin/sh
# test/debian13/chroot.sh: the test suite on Debian 13 (trixie), in a
# chroot made here with debootstrap from this machine's Debian mirror, as
# root. What it proves is the README's test command on a fresh trixie:
#
#   sh test/debian13/chroot.sh [-d DIR] build
#	debootstrap trixie into DIR (when not done yet), then the test
#	packages inside, by this tree's deps.sh test (when not done yet)
#   sh test/debian13/chroot.sh [-d DIR] check [TEST...]
#	build, then a fresh clone of this tree (with its uncommitted
#	changes) in DIR's /root/NAME (NAME: this tree's directory's, so
#	trees of other names may run at once), where the README's test command
#	runs: sh deps.sh test && ./configure && make check; with TESTs
#	(test/t-NAME.sh, test/check_NAME), make and those alone
#   sh test/debian13/chroot.sh [-d DIR] make TARGET
#	as check, with make TARGET for make check (check-all: check-stack)
#   sh test/debian13/chroot.sh [-d DIR] shell [CMD [ARG...]]
#	CMD (default: an interactive shell) inside DIR, as check runs
#   sh test/debian13/chroot.sh [-d DIR] clean
#	remove DIR (nothing can be mounted there but by a running command)
#
# DIR is DEBIAN13_ROOT, by default test/tmp/debian13 of the build tree;
# one chroot serves every command until clean. The mirror is the first
# Debian one of /etc/apt/sources.list and sources.list.d (DEBIAN13_MIRROR
# chooses another).
#
# Each command runs in new mount and PID namespaces (check and shell in a
# new network namespace too, with only loopback: the tests' clusters make
# their own, and neither they nor their veths meet the machine's).
# Inside, the chroot becomes the root by pivot_root, not chroot(2): the
# kernel lets a chrooted process neither create user namespaces (ch-run)
# nor set up mount namespaces as nsenter -m expects. /proc is the new PID
# namespace's, /sys and /dev the machine's (bound), /run, /dev/shm and
# /tmp private tmpfs. Nothing is mounted in the machine's namespace, and
# when the command ends, the PID namespace's first process ends and the
# kernel kills whatever the tests left behind, which frees the mount
# namespace and every mount in it: the cleanup holds whatever happens,
# with no umount to forget. Exit status: the command's; 1 when the
# chroot cannot be made; 2 for a usage error.
set -eu

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
BUILDDIR=${BUILDDIR:-$srcdir}
me=$srcdir/test/debian13/chroot.sh
name=$(basename "$srcdir")

die() {
	echo "chroot.sh: $*" >&2
	exit 1
}

# inside DIR NET CMD...: the part that runs as PID 1 of the new
# namespaces: the mounts, pivot_root into DIR, then CMD, reaping what
# the tests orphan (a zombie would look alive to a test waiting for its
# daemon to go) until CMD ends.
inside() {
	r=$1 net=$2
	shift 2
	mount --make-rprivate /
	mount --bind "$r" "$r"
	mount -t proc -o nosuid,nodev,noexec proc "$r/proc"
	mount --rbind /sys "$r/sys"
	mount --rbind /dev "$r/dev"
	mount -t tmpfs -o nosuid,nodev,mode=1777 tmpfs "$r/dev/shm"
	mount -t tmpfs -o nosuid,nodev,mode=0755 tmpfs "$r/run"
	mount -t tmpfs -o nosuid,nodev,mode=1777 tmpfs "$r/tmp"
	mkdir -p "$r/run/lock"
	[ "$net" = new ] || cp /etc/resolv.conf "$r/etc/resolv.conf"
	cd "$r"
	mkdir -p .oldroot
	pivot_root . .oldroot
	cd /
	umount -l /.oldroot
	rmdir /.oldroot
	[ "$net" = host ] || ip link set lo up ||
	    echo "chroot.sh: loopback is down in the new network namespace" >&2
	# Only what a login on the machine would have.
	# shellcheck disable=SC2016 # for the inner shell
	exec env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	    LANG=C.UTF-8 TERM="${TERM:-dumb}" ${TEST_TIMEOUT:+TEST_TIMEOUT=$TEST_TIMEOUT} ${TEST_JOBS:+TEST_JOBS=$TEST_JOBS} \
	    ${FUZZ_SECONDS:+FUZZ_SECONDS=$FUZZ_SECONDS} ${QP_N:+QP_N=$QP_N} \
	    ${KEEP_T:+KEEP_T=$KEEP_T} sh -c '
		trap "kill -TERM -1 2>/dev/null; (sleep 30; kill -KILL -1 2>/dev/null) &" TERM INT HUP
		"$@" <&0 &
		child=$!
		while :; do
			wait "$child"
			rc=$?
			kill -0 "$child" 2>/dev/null || exit "$rc"
		done' sh "$@"
}

# enter NET CMD...: CMD in the chroot (NET: new or host). TERM, INT or
# HUP here kill unshare, whose death TERMs the namespaces' first process,
# which TERMs every process inside (tests run their exit hooks), and 30 s
# later KILLs what is left; when it ends, the kernel ends the rest.
enter() {
	_net=$1
	shift
	set -- --mount --pid --fork --kill-child=TERM -- sh "$me" __inside "$root" "$_net" "$@"
	[ "$_net" = host ] || set -- --net "$@"
	unshare "$@" <&0 &
	_upid=$!
	trap 'kill -KILL "$_upid" 2>/dev/null' TERM INT HUP
	wait "$_upid"
	_st=$?
	trap - TERM INT HUP
	return "$_st"
}

# enter_tty NET CMD...: the same for an interactive CMD, in the
# foreground, where the terminal's signals are its own.
enter_tty() {
	_net=$1
	shift
	set -- --mount --pid --fork --kill-child -- sh "$me" __inside "$root" "$_net" "$@"
	[ "$_net" = host ] || set -- --net "$@"
	unshare "$@"
}

# mirror: the machine's Debian mirror and its security one (or nothing).
mirror() {
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	    /etc/apt/sources.list.d/*.sources 2>/dev/null |
	    awk '/^[ \t]*deb[ \t]/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z+]+:\/\//) { print $i; break } }
		/^URIs:/ { for (i = 2; i <= NF; i++) print $i }'
}

now() { date +%s; }

# ours: DIR is absent, empty, or a chroot this script made: what build and
# clean may remove (never a directory given by mistake, such as /).
ours() {
	[ ! -e "$root" ] || [ -e "$root/.ddpgen-chroot" ] ||
	    [ -z "$(ls -A "$root" 2>/dev/null)" ] ||
		die "$root: not a chroot of chroot.sh (no .ddpgen-chroot), not removed"
}

build() {
	[ "$(id -u)" -eq 0 ] || die "the chroot is made as root"
	command -v debootstrap >/dev/null ||
		die "debootstrap not found (sh deps.sh test installs it)"
	if [ ! -e "$root/.ddpgen-debootstrap" ]; then
		uris=$(mirror)
		m=${DEBIAN13_MIRROR:-$(echo "$uris" | grep -m 1 '/debian/*$' || :)}
		[ -n "$m" ] || die "no Debian mirror in /etc/apt/sources.list*: set DEBIAN13_MIRROR"
		sec=$(echo "$uris" | grep -m 1 '/debian-security/*$' || :)
		ours
		rm -rf "$root"
		mkdir -p "$root"
		touch "$root/.ddpgen-chroot"
		t0=$(now)
		echo "chroot.sh: debootstrap trixie $root $m"
		debootstrap trixie "$root" "$m" >"$root.debootstrap.log" 2>&1 ||
			{ tail -n 20 "$root.debootstrap.log"; die "debootstrap failed: $root.debootstrap.log"; }
		{
			echo "Types: deb"
			echo "URIs: $m"
			echo "Suites: trixie trixie-updates"
			echo "Components: main"
			echo "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
			if [ -n "$sec" ]; then
				echo
				echo "Types: deb"
				echo "URIs: $sec"
				echo "Suites: trixie-security"
				echo "Components: main"
				echo "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
			fi
		} >"$root/etc/apt/sources.list.d/debian.sources"
		rm -f "$root/etc/apt/sources.list"
		# The host name resolves, as the Debian installer makes it.
		printf '127.0.1.1\t%s\n' "$(hostname)" >>"$root/etc/hosts"
		# Packages install, their daemons do not start (munge, slurm).
		printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
		chmod 0755 "$root/usr/sbin/policy-rc.d"
		echo "debootstrap: $(( $(now) - t0 )) s"
		touch "$root/.ddpgen-debootstrap"
	fi
	if [ ! -e "$root/.ddpgen-deps" ] ||
	    ! cmp -s "$srcdir/deps.sh" "$root/.ddpgen-deps"; then
		cp "$srcdir/deps.sh" "$root/root/deps.sh"
		t0=$(now)
		enter host sh -c 'cd /root && sh deps.sh test' ||
			die "deps.sh test failed inside the chroot"
		echo "deps.sh test: $(( $(now) - t0 )) s"
		cp "$srcdir/deps.sh" "$root/.ddpgen-deps"
	fi
}

# copy: a fresh clone of this tree in the chroot's /root/$name, with the
# uncommitted changes and new files that git does not ignore.
copy() {
	dst=$root/root/$name
	rm -rf "$dst"
	if git -C "$srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git clone -q --no-local --no-hardlinks "$srcdir" "$dst"
		# shellcheck disable=SC2016 # for the inner shell
		(cd "$srcdir" && git ls-files -z --cached --others \
		    --exclude-standard | grep -zv '^test/tmp/' |
		    xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh |
		    tar --null -T - -cf -) | tar -C "$dst" -xf -
	else
		mkdir -p "$dst"
		(cd "$srcdir" && tar --exclude=./test/tmp --exclude='*.o' \
		    --exclude='./test/check_*[!c]' -cf - .) | tar -C "$dst" -xf -
		rm -f "$dst/src/config.h" "$dst/Makefile"
	fi
}

# main ARG...: the whole command line; called from one line, the
# file's last, so that sh has read all of it before anything runs (a
# change to this file during a run cannot reach the running one).
main() {
	root=${DEBIAN13_ROOT:-$BUILDDIR/test/tmp/debian13}
	if [ "${1:-}" = -d ]; then
		[ $# -ge 2 ] || { echo "chroot.sh: -d needs a directory" >&2; exit 2; }
		root=$2
		shift 2
	fi
	case $root in
	/*)	;;
	*)	root=$(pwd)/$root ;;
	esac

	case ${1:-} in
	__inside)
		shift
		inside "$@" ;;
	build)
		build ;;
	check|make)
		target=check
		if [ "$1" = make ]; then
			[ $# -eq 2 ] || { echo "chroot.sh: make needs one TARGET" >&2; exit 2; }
			target=$2
			shift
		fi
		shift
		build
		copy
		t0=$(now)
		set +e
		if [ $# -eq 0 ]; then
			# shellcheck disable=SC2016 # for the inner shell
			enter new sh -c 'cd "/root/$1" && sh deps.sh test && ./configure && make "$2"' sh "$name" "$target"
		else
			# shellcheck disable=SC2016 # for the inner shell
			enter new sh -c 'cd "/root/$1" && shift && sh deps.sh test && ./configure >/dev/null &&
			    make -s all $(for t; do case $t in test/check_*) echo "$t" ;; esac; done) &&
			    { [ ! -e test/t-exchange-mpi.sh ] || make -s ddprank-mpi 2>/dev/null || :; } &&
			    sh test/run-tests.sh "$@"' sh "$name" "$@"
		fi
		rc=$?
		echo "debian 13 suite: $(( $(now) - t0 )) s, exit $rc"
		exit "$rc" ;;
	shell)
		shift
		[ -e "$root/.ddpgen-debootstrap" ] || die "$root: no chroot (run build first)"
		if [ $# -gt 0 ]; then
			enter new "$@"
		else
			enter_tty new sh -l
		fi ;;
	clean)
		ours
		rm -rf "$root" "$root.debootstrap.log" ;;
	*)
		echo "usage: sh test/debian13/chroot.sh [-d DIR] build|check [TEST...]|make TARGET|shell [CMD...]|clean" >&2
		exit 2 ;;
	esac
}

main "$@"; exit $?
