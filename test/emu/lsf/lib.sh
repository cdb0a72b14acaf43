# lib.sh: what the LSF stand-ins of t-lsf-emulate.sh share (sourced by
# bash). No LSF server is packaged for Debian, so test/emu/lsf plays the
# parts of LSF a generated job meets: lsf-run dispatches the job (the
# batch shell on its first host), blaunch and jsrun start tasks on the
# job's hosts, bkill -s, bstatus and brequeue act on the job. The hosts
# are the network namespaces of a test/cluster cluster. Each stand-in
# reads its settings from emu.conf beside it (written by the test), so
# that nothing of the emulation enters the job's environment:
#   EMU_PREFIX   netns name before the host name (ddpID-)
#   EMU_HOSTS    the cluster's hosts file, bind-mounted on each host
#   EMU_DIR      the job's state: task process groups, status, log
#   EMU_NEVER    a host whose tasks blaunch never starts (RES gone)
#   EMU_KILL_INTERVAL  seconds between INT, TERM and KILL (brequeue);
#                LSF's JOB_TERMINATE_INTERVAL, 10 by default
# shellcheck disable=SC1091 # written by the test
. "$(dirname "${BASH_SOURCE[0]}")/emu.conf"

emu_log() {
	printf '%s\n' "$*" >>"$EMU_DIR/log"
}

# emu_on HOST PGFILE CWD COMMAND...: runs COMMAND on HOST (its network
# namespace, its host name, the cluster's /etc/hosts) in a session of its
# own, whose id is appended to PGFILE so the job's signals and its end
# reach it; waits and returns its status.
emu_on() {
	local host=$1 pgfile=$2 cwd=$3
	shift 3
	[ -e "/run/netns/$EMU_PREFIX$host" ] || {
		echo "test/emu/lsf: no host $host" >&2
		return 255
	}
	# shellcheck disable=SC2016 # expanded by that sh
	setsid -w nsenter --net="/run/netns/$EMU_PREFIX$host" \
	    unshare --uts --mount sh -c '
		echo "$$ $1" >>"$2"
		hostname "$1" && mount --bind "$3" /etc/hosts || exit 255
		cd "$4" || exit 255
		shift 4
		exec "$@"' sh "$host" "$pgfile" "$EMU_HOSTS" "$cwd" "$@"
}

# emu_signal SIG PGFILE: SIG to every process group listed.
emu_signal() {
	local pg host
	[ -f "$2" ] || return 0
	while read -r pg host; do
		kill -s "$1" -- "-$pg" 2>/dev/null || true
	done <"$2"
}

# emu_hosts: the job's hosts, once each, from LSB_MCPU_HOSTS.
emu_hosts() {
	local w i
	read -r -a w <<<"$LSB_MCPU_HOSTS"
	for ((i = 0; i < ${#w[@]}; i += 2)); do
		printf '%s\n' "${w[i]}"
	done
}
