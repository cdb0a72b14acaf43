# lib.sh: helpers sourced by the shell tests (test/t-*.sh).
# Each test runs with BUILDDIR and srcdir set by run-tests.sh.

: "${srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${BUILDDIR:=$srcdir}"
DDPGEN=$BUILDDIR/ddpgen
DDPRANK=$BUILDDIR/ddprank
# Every test works in its own scratch directory; without one it must not
# go on, or files meant for it would land in the current directory or /.
# T is absolute, so a test may cd and still name it (and XDG_CONFIG_HOME
# below, which ddpgen ignores when relative, holds).
mkdir -p "$BUILDDIR/test/tmp" &&
T=$(mktemp -d "$BUILDDIR/test/tmp/$(basename "$0" .sh).XXXXXX") &&
[ -n "$T" ] && [ -d "$T" ] && T=$(cd "$T" && pwd) && [ -n "$T" ] ||
	{ echo "cannot make a scratch directory"; exit 1; }

# on_exit COMMAND: run COMMAND (eval'd) when the test exits, before the
# scratch directory goes; hooks run in the order they were added.  The
# directory stays when KEEP_T is set.  Tests add hooks rather than set
# an EXIT trap of their own, which would replace this one.
exit_hooks=
on_exit() {
	exit_hooks="$exit_hooks
$1"
}
run_exit_hooks() {
	eval "$exit_hooks"
	[ -n "${KEEP_T:-}" ] || rm -rf "$T"
}
trap run_exit_hooks EXIT

# clean_env: nothing of the caller's environment that the programs or
# the jobs read may change a result: no scheduler, launcher, MPI or
# ddpgen variables, no profiles or templates of the user's, no bad nodes
# remembered for the user (the XDG directories are empty ones of the
# test's; HOME is left alone).  Run once here; a test sets what it needs
# after sourcing this file.
clean_env() {
	for v in $(env | awk -F= '/^(SLURM|SLURMD|SBATCH|SRUN|SALLOC|PET|TORCHELASTIC|DDPGEN|DDPTEST|CCP|PBS|LSB|OMPI|PMIX)_[A-Za-z0-9_]*=/ { print $1 }'); do
		unset "$v"
	done
	unset MASTER_ADDR MASTER_PORT NODE_RANK NNODES GLOO_SOCKET_IFNAME \
	    NCCL_SOCKET_IFNAME
	XDG_CONFIG_HOME=$T/config XDG_STATE_HOME=$T/state
	export XDG_CONFIG_HOME XDG_STATE_HOME
}
clean_env

failures=0
checks=0
failed_list=
# fd 9: the test's standard output, where failures are told, even from
# a check whose output the test redirects ("check ... cmd >/dev/null").
exec 9>&1

# One way to assert: every check of a test is a "check DESC CMD..." or
# an "expect_eq WHAT GOT WANT" (which is a check of [ GOT = WANT ]).
# Each counts once and, when it fails, records DESC (which names the
# check, or says what went wrong, with values) in a "FAIL: DESC (exit N)"
# line on the test's standard output; finish reports the count and
# fails the test when a check failed or none ran.  CMD is one command
# with its arguments: a pipeline or a compound command goes in a
# function of the test, or through "sh -c" or "eval".

# check DESC CMD...: CMD must exit 0.  check DESC ! CMD...: CMD must
# exit non-zero.  Returns 0 when the check passed, 1 when it failed, so
# a test may stop ("|| return", "|| exit") after a check it depends on.
check() {
	# A check's CMD may itself run checks.
	# shellcheck disable=SC3043 # dash and bash have local
	local _desc _st
	_desc=$1
	shift
	checks=$((checks + 1))
	if [ "$1" = "!" ]; then
		shift
		"$@" && { fail "$_desc (succeeded: $*)"; return 1; }
		return 0
	fi
	"$@"
	_st=$?
	[ "$_st" -eq 0 ] && return 0
	fail "$_desc (exit $_st)"
	return 1
}

# expect_eq WHAT GOT WANT: one check that GOT is exactly WANT.
expect_eq() {
	checks=$((checks + 1))
	[ "$2" = "$3" ] && return 0
	fail "$1: got [$2], want [$3]"
	return 1
}

# matches STRING PATTERN: STRING matches the case(1) glob PATTERN; a
# command, for check.
matches() {
	# shellcheck disable=SC2254 # a pattern, on purpose
	case $1 in
	$2)	return 0 ;;
	esac
	return 1
}

# contains STRING PART: STRING holds PART, taken literally; a command,
# for check.
contains() {
	case $1 in
	*"$2"*)	return 0 ;;
	esac
	return 1
}

# expect_has WHAT PART TEXT: TEXT holds PART; expect_lacks: it does not.
expect_has() {
	check "$1: no [$2] in [$3]" contains "$3" "$2"
}
expect_lacks() {
	check "$1: [$2] in [$3]" ! contains "$3" "$2"
}

# fail WHAT: records a failed check; check and expect_eq call it, a test
# asserts through them.  finish repeats the failures at the end, so a log
# whose tail is all that is shown (CI) still names them.
fail() {
	echo "FAIL: $*" >&9
	failures=$((failures + 1))
	failed_list="$failed_list
FAIL: $*"
}

# ok: gone; a check is "check DESC CMD...".  A test written for the old
# counter fails loudly rather than count nothing.
ok() { fail "ok is gone from lib.sh: assert with check DESC CMD..."; }

# skip REASON: ends the test as skipped, saying why on the last line.
skip() { echo "SKIP: $*"; exit 77; }

# finish: exit status from the failures seen; a test that checked
# nothing fails, so a test cannot pass vacuously.
finish() {
	[ -z "$failed_list" ] || printf 'failed checks:%s\n' "$failed_list"
	echo "$checks checks, $failures failures"
	[ "$checks" -gt 0 ] || { echo "no checks ran"; exit 1; }
	[ "$failures" -eq 0 ]
	exit
}

# --- what a test needs ---------------------------------------------------------
# Each of these skips the test, saying why, when the machine lacks it.

# need_root WHY: root, for WHY.
need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root ($1)"
}

# public_scratch: T becomes a new scratch directory that every user can
# reach, for a test whose second user runs what is in it: the build tree
# may be where no other user can go (a root's clone in /root, mode 0700).
# It is made by mktemp under TMPDIR (or /tmp), root's, mode 0755; the
# test skips when a directory above it is not searchable by all. The
# old T goes; XDG_CONFIG_HOME follows.
public_scratch() {
	_pub=$(mktemp -d "${TMPDIR:-/tmp}/ddpgen-$(basename "$0" .sh).XXXXXX") &&
	    [ -n "$_pub" ] && [ -d "$_pub" ] && chmod 0755 "$_pub" &&
	    _pub=$(cd "$_pub" && pwd) && [ -n "$_pub" ] ||
		{ echo "cannot make a scratch directory in ${TMPDIR:-/tmp}"; exit 1; }
	rm -rf "$T"
	T=$_pub
	XDG_CONFIG_HOME=$T/config
	_d=$T
	while [ "$_d" != / ]; do
		_d=$(dirname "$_d")
		[ -n "$(find "$_d" -maxdepth 0 -perm -o=x)" ] ||
			skip "$_d (above the scratch directory $T) is not searchable by other users: set TMPDIR"
	done
}

# two_users PREFIX: a victim (PREFIXv$$) and an attacker (PREFIXa$$),
# real users made here and removed at exit, their homes $T/vhome and
# $T/ahome (0700, each user's own); sets victim, attacker, vuid and auid.
two_users() {
	victim=${1}v$$
	attacker=${1}a$$
	# shellcheck disable=SC2016 # expanded at exit
	on_exit 'userdel -f "$victim" >/dev/null 2>&1; userdel -f "$attacker" >/dev/null 2>&1'
	check "useradd $victim" useradd -M -d "$T/vhome" -s /bin/sh \
	    "$victim" || finish
	check "useradd $attacker" useradd -M -d "$T/ahome" -s /bin/sh \
	    "$attacker" || finish
	mkdir -p "$T/vhome" "$T/ahome"
	chown "$victim:" "$T/vhome"
	chown "$attacker:" "$T/ahome"
	chmod 0700 "$T/vhome" "$T/ahome"
	vuid=$(id -u "$victim")
	auid=$(id -u "$attacker")
}

# need_progs PROG...: each PROG on PATH.
need_progs() {
	for _p; do
		command -v "$_p" >/dev/null 2>&1 || skip "$_p not found"
	done
}

# need_built PROG...: the programs of this tree (ddpgen, ddprank) built.
need_built() {
	for _p; do
		[ -x "$BUILDDIR/$_p" ] || skip "$_p not built"
	done
}

# need_netns: network namespaces can be made (ip netns and unshare work).
need_netns() {
	need_progs ip unshare
	ip netns list >/dev/null 2>&1 || skip "ip netns does not work"
	unshare --net true 2>/dev/null || skip "cannot create network namespaces"
}

# need_cluster [PROG...]: what test/cluster/cluster.sh needs to bring up
# a Slurm cluster in network namespaces (root, its programs, user munge,
# network namespaces), plus each PROG the test runs on it.
need_cluster() {
	need_root "network namespaces, daemons"
	need_progs ip nsenter unshare setsid setpriv flock ss munged munge \
	    slurmctld slurmd sinfo scontrol python3 bash "$@"
	getent passwd munge >/dev/null || skip "no user munge"
	need_netns
}

# cluster_up N [IFNAMES]: N nodes of test/cluster/cluster.sh (after
# need_cluster) in CLUSTER_DIR=$T/cluster, brought down at exit, with
# cluster.vars read into this shell; the test ends, showing cluster.sh's
# output, when they do not come up. The emulation tests run their own
# scheduler's stand-ins on these nodes.
cluster_up() {
	chmod 0755 "$T"		# munged, as user munge, reaches CLUSTER_DIR
	CLUSTER_DIR=$T/cluster
	export CLUSTER_DIR
	# shellcheck disable=SC2016 # expanded at exit
	on_exit '"$srcdir/test/cluster/cluster.sh" down >/dev/null 2>&1'
	trap 'exit 130' INT TERM
	if ! check "cluster.sh up $*" "$srcdir/test/cluster/cluster.sh" up \
	    "$@" >"$T/up.log" 2>&1; then
		cat "$T/up.log"
		finish
	fi
	. "$CLUSTER_DIR/cluster.vars"
}

# need_torchrun: torchrun on PATH, whose python (of its #! line, which
# it runs under) imports torch.distributed; sets tpy to that python.
need_torchrun() {
	need_progs torchrun
	tpy=$(sed -n '1s/^#![[:space:]]*//p' "$(command -v torchrun)")
	$tpy -c 'import torch.distributed' 2>/dev/null ||
	    skip "torchrun's python ($tpy) cannot import torch.distributed"
	# torch_major, torch_minor: its version, as ddprank reads it.
	torch_version=$($tpy -c 'import torch.version as v; print(v.__version__)')
	torch_major=${torch_version%%.*}
	torch_minor=${torch_version#*.}
	torch_minor=${torch_minor%%.*}
}

# torch_at_least MAJOR MINOR: torchrun's torch is that version or later
# (need_torchrun first).
torch_at_least() {
	[ "$torch_major" -gt "$1" ] ||
	    { [ "$torch_major" -eq "$1" ] && [ "$torch_minor" -ge "$2" ]; }
}
