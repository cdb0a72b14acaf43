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
# ddpgen variables, no profiles or templates of the user's (the XDG
# directory is an empty one of the test's; HOME is left alone).  Run
# once here; a test sets what it needs after sourcing this file.
clean_env() {
	for v in $(env | awk -F= '/^(SLURM|SLURMD|SBATCH|SRUN|SALLOC|PET|TORCHELASTIC|DDPGEN|DDPTEST|CCP|PBS|LSB|OMPI|PMIX)_[A-Za-z0-9_]*=/ { print $1 }'); do
		unset "$v"
	done
	unset MASTER_ADDR MASTER_PORT NODE_RANK NNODES GLOO_SOCKET_IFNAME \
	    NCCL_SOCKET_IFNAME
	XDG_CONFIG_HOME=$T/config
	export XDG_CONFIG_HOME
}
clean_env

failures=0
checks=0
failed_list=

# fail WHAT: one failed check.  finish repeats them all at the end, so
# a log whose tail is all that is shown (CI) still names them.
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
	failed_list="$failed_list
FAIL: $*"
}
ok() { checks=$((checks + 1)); }

# skip REASON: ends the test as skipped, saying why on the last line.
skip() { echo "SKIP: $*"; exit 77; }

# expect_eq WHAT GOT WANT
expect_eq() {
	checks=$((checks + 1))
	[ "$2" = "$3" ] || fail "$1: got [$2], want [$3]"
}

# finish: exit status from the failures seen; a test that checked
# nothing fails, so a test cannot pass vacuously.
finish() {
	[ -z "$failed_list" ] || printf 'failed checks:%s\n' "$failed_list"
	echo "$checks checks, $failures failures"
	[ "$checks" -gt 0 ] || { echo "no checks ran"; exit 1; }
	[ "$failures" -eq 0 ]
	exit
}
