#!/bin/bash
# cluster.sh: a real multi-node Slurm cluster on one machine, for tests.
# Each compute node is a network namespace with its own hostname and the
# site's interface names; munged, slurmctld and the slurmds are private to
# one state directory (CLUSTER_DIR) and touch no global configuration.
#
# usage: cluster.sh up [NODES [IFNAME,...]] | down | status | env |
#        addr NODE [IFNAME] | state JOBID | ended JOBID
# See test/cluster/README.md.

set -u

prog=cluster.sh
here=$(cd "$(dirname "$0")" && pwd)
self=$here/cluster.sh
srcdir=$(cd "$here/../.." && pwd)
: "${BUILDDIR:=$srcdir}"

# Tunables, each overridable from the environment.
: "${CLUSTER_PARTITIONS:=debug regular}"	# the first one is the default
: "${CLUSTER_FEATURES:=cpu,gpu,haswell,knl}"	# for profiles that pass -C
: "${CLUSTER_GPUS:=4}"			# per node, for the scheduler only
: "${CLUSTER_CPUS:=8}"			# per node, as configured (not real)
: "${CLUSTER_MEMORY:=16000}"		# MB per node, as configured
: "${CLUSTER_UP_TIMEOUT:=60}"		# seconds for the nodes to turn idle
# sbatch --wait polls every 2 s while MinJobAge/2 <= 2 and backs off to
# 8 s and 32 s otherwise (sbatch.c, _job_wait); a small MinJobAge keeps a
# 6 s job from costing 42 s.  Final states are kept in the jobcomp file
# (cluster.sh state JOBID) since slurmctld forgets the job soon after.
: "${CLUSTER_MIN_JOB_AGE:=5}"
# Lines appended to slurm.conf as they are: more partitions,
# preemption (t-e2e-requeue.sh). Empty by default.
: "${CLUSTER_CONF_EXTRA:=}"

# die MESSAGE: fail; during up, first undo what up did so far.
die() {
	echo "$prog: $*" >&2
	[ -z "${in_up:-}" ] || { in_up=; do_down; }
	exit 1
}
say() { echo "$prog: $*" >&2; }

# The directory holding one cluster.  Without CLUSTER_DIR, up makes a
# fresh one and points test/tmp/cluster.last at it for the other
# subcommands.
last_link=$BUILDDIR/test/tmp/cluster.last
cluster_dir() {
	if [ -n "${CLUSTER_DIR:-}" ]; then
		D=$CLUSTER_DIR
	elif [ "$1" = new ]; then
		mkdir -p "$BUILDDIR/test/tmp" || exit 1
		D=$(mktemp -d "$BUILDDIR/test/tmp/cluster.XXXXXX") || exit 1
		chmod 0755 "$D"
		ln -sfn "$D" "$last_link"
	elif [ -L "$last_link" ]; then
		D=$(readlink "$last_link")
	else
		die "no CLUSTER_DIR given and no $last_link"
	fi
	[ "$1" = old ] || mkdir -p "$D" || exit 1
	[ -d "$D" ] || die "$D: no such directory"
	D=$(cd "$D" && pwd)
}

# --- process bookkeeping ---------------------------------------------------

# starttime PID: the kernel's start time of PID, to tell a recycled pid
# from the one that was recorded.
starttime() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	set -- $s
	echo "${20}"
}

# record KIND NAME [EXTRA]: append one resource to the list down undoes.
record() { echo "$*" >>"$D/resources"; }

# alive PID START: the recorded process still runs.
alive() { [ "$(starttime "$1" 2>/dev/null)" = "$2" ]; }

# spawn NAME LOG CMD...: start a daemon in its own session, with a clean
# environment and no inherited descriptors, and record its pid.  The
# command chain (setsid, nsenter, unshare, sh) execs without forking, so
# $! is the daemon's own pid.
spawn() {
	local name=$1 log=$2
	shift 2
	setsid env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
	    SLURM_CONF="$D/etc/slurm.conf" "$@" </dev/null >>"$log" 2>&1 9>&- &
	record pid "$!" "$(starttime "$!")" "$name"
}

# --- down --------------------------------------------------------------------

# session_of PID START: the processes of the session PID leads (spawn
# made each daemon a session leader: slurmctld's slurmscriptd is in it),
# leaving out any that are older than the leader, which a recycled pid
# would give.
session_of() {
	local p s
	for p in $(ps -o pid= -s "$1" 2>/dev/null); do
		s=$(starttime "$p") || continue
		[ "$s" -ge "$2" ] && echo "$p"
	done
}

# procs_of: the recorded daemons and their sessions, and every process
# living in one of the cluster's network namespaces (slurmstepd, jobs).
procs_of() {
	local kind a b c
	[ -f "$D/resources" ] || return 0
	while read -r kind a b c; do
		case $kind in
		pid)	session_of "$a" "$b" ;;
		netns)	[ -e "/run/netns/$a" ] && ip netns pids "$a" 2>/dev/null ;;
		esac
	done <"$D/resources"
}

# do_down: stop and delete what the resources list names.  A test's
# trap and an interrupted up may both run it: the lock on the directory
# makes the second wait for the first and then find nothing to do.
do_down() {
	local pids kind a b c i
	[ -f "$D/resources" ] || return 0
	exec 8<"$D"
	flock 8
	[ -f "$D/resources" ] || { exec 8<&-; return 0; }
	pids=$(procs_of | sort -un)
	[ -z "$pids" ] || kill -TERM $pids 2>/dev/null
	for i in $(seq 50); do
		pids=$(procs_of | sort -un)
		[ -n "$pids" ] || break
		sleep 0.2
	done
	if [ -n "$pids" ]; then
		say "killing what did not stop on SIGTERM: $pids"
		kill -KILL $pids 2>/dev/null
		sleep 0.5
	fi
	# Namespaces before links: the namespace end of each veth goes with
	# its namespace, the host end is deleted explicitly anyway.
	while read -r kind a b c; do
		[ "$kind" = netns ] && ip netns del "$a" 2>/dev/null
	done <"$D/resources"
	while read -r kind a b c; do
		case $kind in
		link)	ip link del "$a" 2>/dev/null ;;
		dir)	rm -rf "$a" ;;
		esac
	done <"$D/resources"
	mv "$D/resources" "$D/resources.down"
	rm -f "$D/up"
	exec 8<&-
	return 0
}

# --- up ----------------------------------------------------------------------

# subnet_free CIDR: no route or address of this machine overlaps CIDR.
subnet_free() {
	[ -z "$(ip -4 route show root "$1")" ] &&
	[ -z "$(ip -4 route show match "$1" | grep -v '^default')" ] &&
	! ip -4 -o addr show | grep -q " ${1%.0/24}\."
}

# pick_networks: one /24 per interface name, 10.(70+j).K.0/24, K the
# first index where every subnet is free and the controller port unused.
# Runs under the lock so that two clusters starting together differ.
pick_networks() {
	local k j ok
	for k in $(seq 1 254); do
		ok=1
		for j in $(seq 0 $((NIF - 1))); do
			subnet_free "10.$((70 + j)).$k.0/24" || { ok=0; break; }
		done
		[ $ok = 1 ] || continue
		PORT=$((17000 + k))
		[ -z "$(ss -Hltn "sport = :$PORT")" ] || continue
		K=$k
		return 0
	done
	die "no free 10.70-$((69 + NIF)).K.0/24 subnets"
}

# pick_id: a random name prefix no link or namespace uses yet.
pick_id() {
	while :; do
		ID=$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')
		ip link show "ddp${ID}b0" >/dev/null 2>&1 && continue
		set -- /run/netns/ddp"$ID"-*
		[ -e "$1" ] && continue
		return 0
	done
}

net_of() { echo "10.$((70 + $1)).$K"; }		# network j's first 3 octets
node_addr() { echo "$(net_of "$2").$((10 + $1))"; }	# node i, network j

make_networks() {
	local i j ns host ifname br
	for j in $(seq 0 $((NIF - 1))); do
		br=ddp${ID}b$j
		ip link add "$br" type bridge forward_delay 0 stp_state 0 ||
		    die "cannot create bridge $br"
		record link "$br"
		ip addr add "$(net_of "$j").1/24" dev "$br" &&
		ip link set "$br" up || die "cannot set up bridge $br"
	done
	for i in $(seq 1 "$NNODES"); do
		ns=ddp$ID-node$i
		ip netns add "$ns" || die "cannot create network namespace $ns"
		record netns "$ns"
		ip -n "$ns" link set lo up || die "cannot set lo up in $ns"
		for j in $(seq 0 $((NIF - 1))); do
			ifname=${IFNAMES[$j]}
			host=ddp${ID}n${i}i$j
			ip link add "$host" type veth peer name "$ifname" \
			    netns "$ns" || die "cannot create veth $host"
			record link "$host"
			ip link set "$host" master "ddp${ID}b$j" up &&
			ip -n "$ns" addr add "$(node_addr "$i" "$j")/24" \
			    dev "$ifname" &&
			ip -n "$ns" link set "$ifname" up ||
			    die "cannot set up $ifname in $ns"
		done
	done
}

# Host names resolve to the first interface's network (eth3 by default):
# a script that takes the master address from the hostname gets the
# eth3 address, one that asks for nmn0 gets another, so the two ways can
# be told apart.  NODE-IFNAME names every address for people.
write_hosts() {
	local i j
	{
		echo "127.0.0.1	localhost"
		echo "$(net_of 0).1	ctl"
		for i in $(seq 1 "$NNODES"); do
			printf '%s\tnode%s' "$(node_addr "$i" 0)" "$i"
			echo "	node$i-${IFNAMES[0]}"
			for j in $(seq 1 $((NIF - 1))); do
				printf '%s\tnode%s-%s\n' "$(node_addr "$i" "$j")" \
				    "$i" "${IFNAMES[$j]}"
			done
		done
	} >"$D/etc/hosts"
}

write_slurm_conf() {
	local i p gres def=YES nodes="node[1-$NNODES]"
	[ "$NNODES" -gt 1 ] || nodes=node1
	cat >"$D/etc/slurm.conf" <<EOF
# Written by test/cluster/cluster.sh: a private cluster for ddpgen's tests.
ClusterName=ddp$ID
# The controller runs in the host's network namespace; clients on the
# host and srun in the nodes reach it at the bridge address, so no name
# has to resolve.
SlurmctldHost=ctl($(net_of 0).1)
SlurmctldPort=$PORT
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MD/munge.socket.2
StateSaveLocation=$D/state
SlurmdSpoolDir=$RD/spool/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$D/etc/plugstack.conf
# No cgroups, no accounting: what works inside network namespaces.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$D/log/jobcomp.txt
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# Nodes report the configured sizes, not the machine's.
SlurmdParameters=config_overrides
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=2
# Fast failure and cleanup: tests wait for all of these.
MessageTimeout=10
KillWait=2
SlurmdTimeout=30
SlurmctldTimeout=30
InactiveLimit=0
Waittime=0
MinJobAge=$CLUSTER_MIN_JOB_AGE
EOF
	[ "$GPUS" -eq 0 ] || echo "GresTypes=gpu" >>"$D/etc/slurm.conf"
	for i in $(seq 1 "$NNODES"); do
		gres=
		[ "$GPUS" -eq 0 ] || gres=" Gres=gpu:$GPUS"
		echo "NodeName=node$i NodeAddr=$(node_addr "$i" 0)" \
		    "NodeHostname=node$i CPUs=$CLUSTER_CPUS Boards=1" \
		    "SocketsPerBoard=1 CoresPerSocket=$CLUSTER_CPUS" \
		    "ThreadsPerCore=1 RealMemory=$CLUSTER_MEMORY" \
		    "Features=$CLUSTER_FEATURES$gres State=UNKNOWN"
	done >>"$D/etc/slurm.conf"
	for p in $CLUSTER_PARTITIONS; do
		echo "PartitionName=$p Nodes=$nodes Default=$def" \
		    "MaxTime=INFINITE DefaultTime=30 State=UP"
		def=NO
	done >>"$D/etc/slurm.conf"
	[ -z "$CLUSTER_CONF_EXTRA" ] ||
	    printf '%s\n' "$CLUSTER_CONF_EXTRA" >>"$D/etc/slurm.conf"
	# cgroup/v1 stops slurmd from probing the machine's hybrid hierarchy.
	echo "CgroupPlugin=cgroup/v1" >"$D/etc/cgroup.conf"
	: >"$D/etc/plugstack.conf"
}

# make_gpus: GPUs that only exist for the scheduler, so that profiles
# asking for --gpus-per-node and the like are accepted.  slurmd drops a
# GPU without a device file, so each one is a character device in
# CLUSTER_DIR with /dev/null's numbers; jobs see CUDA_VISIBLE_DEVICES
# and no GPU.  Where mknod is not allowed the cluster has no GPUs.
make_gpus() {
	local n
	GPUS=$CLUSTER_GPUS
	: >"$D/etc/gres.conf"
	[ "$GPUS" -gt 0 ] || return 0
	mkdir -p "$D/dev"
	for n in $(seq 0 $((GPUS - 1))); do
		if ! mknod -m 0666 "$D/dev/gpu$n" c 1 3 2>/dev/null; then
			say "cannot mknod in $D/dev: no GPUs"
			GPUS=0
			return 0
		fi
	done
	echo "Name=gpu File=$D/dev/gpu[0-$((GPUS - 1))]" >"$D/etc/gres.conf"
}

# daemons_alive: every daemon started so far still runs.
daemons_alive() {
	local kind a b c
	while read -r kind a b c; do
		[ "$kind" = pid ] || continue
		alive "$a" "$b" || { say "$c exited"; return 1; }
	done <"$D/resources"
}

# wait_for SECONDS WHAT CMD...: poll CMD until it succeeds, giving up
# early when a daemon has died.
wait_for() {
	local limit=$1 what=$2 t=0
	shift 2
	until "$@" >/dev/null 2>&1; do
		daemons_alive || return 1
		t=$((t + 1))
		if [ $t -gt $((limit * 5)) ]; then
			say "timed out after ${limit}s waiting for $what"
			return 1
		fi
		sleep 0.2
	done
}

start_munge() {
	local as="setpriv --reuid=munge --regid=munge --clear-groups"
	install -d -o munge -g munge -m 0755 "$MD"
	$as test -w "$MD" ||
	    die "user munge cannot reach $MD: make its parents searchable"
	head -c 1024 /dev/urandom >"$MD/munge.key"
	chown munge:munge "$MD/munge.key"
	chmod 0400 "$MD/munge.key"
	spawn munged "$D/log/munged.out" $as munged --foreground \
	    --socket="$MD/munge.socket.2" \
	    --key-file="$MD/munge.key" --pid-file="$MD/munged.pid" \
	    --log-file="$MD/munged.log" --seed-file="$MD/munged.seed"
	wait_for 10 munged munge -n -S "$MD/munge.socket.2"
}

start_slurmctld() {
	spawn slurmctld "$D/log/slurmctld.out" unshare --uts --mount sh -c \
	    'hostname ctl && mount --bind "$1" /etc/hosts && exec slurmctld -D -i' \
	    sh "$D/etc/hosts"
	wait_for 20 slurmctld scontrol ping
}

# slurmd finds its NodeName from the hostname, so each one runs with its
# own UTS namespace (and a mount namespace for the hosts file) inside its
# node's network namespace.  nsenter rather than "ip netns exec", which
# remounts /sys and breaks slurmd's cgroup detection.
start_slurmd() {
	local i=$1
	mkdir -p "$RD/spool/node$i"
	spawn "slurmd-node$i" "$D/log/slurmd-node$i.out" \
	    nsenter --net="/run/netns/ddp$ID-node$i" unshare --uts --mount \
	    sh -c 'hostname "$1" && mount --bind "$2" /etc/hosts &&
	    exec slurmd -D -N "$1"' sh "node$i" "$D/etc/hosts"
}

all_idle() {
	local n
	n=$(sinfo -h -N -o '%N %t' | awk '$2 == "idle"' | sort -u | wc -l)
	[ "$n" -eq "$NNODES" ]
}

up_failed() {
	local f
	say "up failed; last lines of the logs in $D/log:"
	for f in "$D"/log/*; do
		[ -s "$f" ] || continue
		echo "--- $f" >&2
		tail -n 5 "$f" >&2
	done
	in_up=
	do_down
	exit 1
}

check_tools() {
	local t
	[ "$(id -u)" = 0 ] || die "must run as root"
	for t in ip nsenter unshare setsid setpriv flock ss munged munge \
	    slurmctld slurmd sbatch sinfo scontrol; do
		command -v "$t" >/dev/null || die "$t not found"
	done
	getent passwd munge >/dev/null || die "no user munge"
}

do_up() {
	local i ifs
	NNODES=${1:-3}
	ifs=${2:-eth3,nmn0}
	case $NNODES in
	''|*[!0-9]*|0) die "bad node count: $NNODES" ;;
	esac
	[ "$NNODES" -le 200 ] || die "at most 200 nodes"
	IFS=, read -r -a IFNAMES <<<"$ifs"
	NIF=${#IFNAMES[@]}
	[ "$NIF" -ge 1 ] && [ "$NIF" -le 10 ] || die "bad interface list: $ifs"
	for i in "${IFNAMES[@]}"; do
		case $i in
		''|lo|*[!A-Za-z0-9_.-]*) die "bad interface name: $i" ;;
		esac
		[ ${#i} -le 15 ] || die "interface name too long: $i"
	done
	for i in CLUSTER_GPUS CLUSTER_CPUS CLUSTER_MEMORY CLUSTER_UP_TIMEOUT \
	    CLUSTER_MIN_JOB_AGE; do
		case ${!i} in ''|*[!0-9]*) die "$i is not a number: ${!i}" ;; esac
	done
	[ "$CLUSTER_CPUS" -ge 1 ] || die "CLUSTER_CPUS must be at least 1"
	[ -n "$CLUSTER_PARTITIONS" ] || die "CLUSTER_PARTITIONS is empty"
	check_tools
	cluster_dir new
	if [ -f "$D/up" ]; then
		die "a cluster is already up in $D: run down first"
	fi
	do_down			# leftovers of an up that was killed
	rm -rf "$D/etc" "$D/state" "$D/spool" "$D/log" "$D/run" "$D/munge" \
	    "$D/dev" "$D/tmp" "$D/resources.down"
	mkdir -p "$D/etc" "$D/state" "$D/spool" "$D/log" "$D/run"
	install -d -m 1777 "$D/tmp"
	: >"$D/resources"
	in_up=1
	trap up_failed HUP INT TERM

	# Choose names and subnets and claim them by creating the bridges
	# while holding a lock, so concurrent clusters never clash.  The
	# lock is the script file itself: nothing is created for it.
	exec 9<"$self"
	flock -w 60 9 || die "cannot lock $self"
	pick_id
	# munged refuses a socket below a group- or world-writable directory,
	# and unix socket paths (munge's, slurmstepd's in the spool) must be
	# short; a checkout can be anywhere, so those live under root's /run,
	# removed by down.
	RD=/run/ddp-$ID
	MD=$RD/munge
	install -d -m 0755 "$RD" "$RD/spool"
	record dir "$RD"
	pick_networks
	make_networks
	flock -u 9
	exec 9<&-

	write_hosts
	make_gpus
	write_slurm_conf
	{
		echo "ID=$ID"
		echo "K=$K"
		echo "PORT=$PORT"
		echo "RD=$RD"
		echo "NNODES=$NNODES"
		echo "IFNAMES='${IFNAMES[*]}'"
	} >"$D/cluster.vars"
	export SLURM_CONF=$D/etc/slurm.conf

	start_munge || up_failed
	start_slurmctld || up_failed
	for i in $(seq 1 "$NNODES"); do
		start_slurmd "$i"
	done
	wait_for "$CLUSTER_UP_TIMEOUT" "$NNODES idle nodes" all_idle ||
	    up_failed
	trap - HUP INT TERM
	in_up=
	touch "$D/up"
	say "$NNODES nodes up in $D"
	say "use it with: eval \"\$(CLUSTER_DIR=$D $self env)\""
}

# --- the other subcommands ---------------------------------------------------

load_vars() {
	[ -f "$D/cluster.vars" ] || die "no cluster in $D"
	. "$D/cluster.vars"
	read -r -a IFNAMES <<<"$IFNAMES"
	NIF=${#IFNAMES[@]}
}

do_env() {
	local q="'"
	load_vars
	# Single quotes around paths; a path holding one cannot be helped.
	case $D$here in *$q*) die "quote in path: $D" ;; esac
	echo "export CLUSTER_DIR='$D'"
	echo "export SLURM_CONF='$D/etc/slurm.conf'"
	echo "export CLUSTER_NODES='$(seq -f 'node%g' -s ' ' 1 "$NNODES")'"
	echo "export CLUSTER_IFNAMES='${IFNAMES[*]}'"
	echo "export CLUSTER_PARTITIONS='$CLUSTER_PARTITIONS'"
	# The torchrun fix for the jobs: sbatch exports the submitter's
	# environment, so jobs import sitecustomize.py from here.
	echo "export PYTHONPATH='$here'\"\${PYTHONPATH:+:\$PYTHONPATH}\""
	# A per-cluster TMPDIR, as many sites give jobs: torchrun leaves
	# torchelastic_* directories behind, and they go with CLUSTER_DIR.
	echo "export TMPDIR='$D/tmp'"
}

do_addr() {
	local node=${1:-} ifname=${2:-} i j
	load_vars
	i=${node#node}
	case $i in ''|*[!0-9]*) die "no such node: $node" ;; esac
	[ "$i" -ge 1 ] && [ "$i" -le "$NNODES" ] || die "no such node: $node"
	[ -n "$ifname" ] || ifname=${IFNAMES[0]}
	for j in $(seq 0 $((NIF - 1))); do
		[ "${IFNAMES[$j]}" = "$ifname" ] || continue
		node_addr "$i" "$j"
		return 0
	done
	die "no interface $ifname"
}

do_status() {
	local kind a b c rc=0
	if [ ! -f "$D/resources" ]; then
		echo "down ($D)"
		return 1
	fi
	load_vars
	echo "cluster ddp$ID in $D: $NNODES nodes, interfaces ${IFNAMES[*]}"
	while read -r kind a b c; do
		case $kind in
		pid)	if alive "$a" "$b"; then echo "$c: pid $a"
			else echo "$c: not running"; rc=1; fi ;;
		netns)	[ -e "/run/netns/$a" ] || { echo "$a: missing"; rc=1; } ;;
		esac
	done <"$D/resources"
	SLURM_CONF=$D/etc/slurm.conf sinfo -N -o '%N %P %t' || rc=1
	return $rc
}

# state JOBID: the job's final state from the jobcomp file, waiting a
# little for the line in case the job has only just ended.
do_state() {
	local id=${1:-} t line
	case $id in ''|*[!0-9]*) die "usage: $prog state JOBID" ;; esac
	for t in $(seq 25); do
		# A requeued job has one line per run: the last one counts.
		line=$(grep "^JobId=$id " "$D/log/jobcomp.txt" 2>/dev/null | tail -n 1)
		if [ -n "$line" ]; then
			line=${line#* JobState=}
			echo "${line%% *}"
			return 0
		fi
		sleep 0.2
	done
	die "job $id has not ended"
}

# ended JOBID: exit 0 once the job has ended for good, 1 while it may
# still run. The state slurmctld shows decides while it knows the job;
# an empty answer (a job forgotten after MinJobAge, or an scontrol that
# timed out on loaded cores) is an end only if the jobcomp file's last
# line for the job is a final state: a requeued run's line is not.
is_final() {
	case $1 in
	BOOT_FAIL|CANCELLED|COMPLETED|DEADLINE|FAILED|NODE_FAIL|\
	OUT_OF_MEMORY|PREEMPTED|TIMEOUT) return 0 ;;
	esac
	return 1
}
do_ended() {
	local id=${1:-} st line
	case $id in ''|*[!0-9]*) die "usage: $prog ended JOBID" ;; esac
	st=$(scontrol -o show job "$id" 2>/dev/null | tr ' ' '\n' |
	    sed -n 's/^JobState=//p')
	if [ -n "$st" ]; then
		is_final "$st"
		return
	fi
	line=$(grep "^JobId=$id " "$D/log/jobcomp.txt" 2>/dev/null | tail -n 1)
	line=${line#* JobState=}
	is_final "${line%% *}"
}

# leftovers: after down, one line per thing the cluster left behind: a
# recorded daemon still alive, a process naming the cluster directory,
# a namespace, link or directory of the cluster. Nothing means clean.
do_leftovers() {
	local kind a b c f
	[ -f "$D/resources.down" ] || die "$D: the cluster is not down"
	while read -r kind a b c; do
		case $kind in
		pid)	! alive "$a" "$b" || echo "daemon $c: pid $a" ;;
		netns)	[ ! -e "/run/netns/$a" ] || echo "namespace $a" ;;
		link)	! ip link show "$a" >/dev/null 2>&1 || echo "link $a" ;;
		dir)	[ ! -e "$a" ] || echo "directory $a" ;;
		esac
	done <"$D/resources.down"
	for f in /proc/[0-9]*/cmdline; do
		case $(tr '\0' ' ' 2>/dev/null <"$f") in
		*"$D"*) echo "process ${f%/cmdline}" ;;
		esac
	done
	return 0
}

usage() {
	echo "usage: $prog up [NODES [IFNAME,...]] | down | status | env |" \
	    "addr NODE [IFNAME] | state JOBID | ended JOBID | leftovers"
}

cmd=${1:-}
[ $# -eq 0 ] || shift
case $cmd in
up)	do_up "$@" ;;
down)	cluster_dir old; do_down ;;
status)	cluster_dir old; do_status ;;
env)	cluster_dir old; do_env ;;
addr)	cluster_dir old; do_addr "$@" ;;
state)	cluster_dir old; do_state "$@" ;;
ended)	cluster_dir old; do_ended "$@" ;;
leftovers) cluster_dir old; do_leftovers ;;
-h|--help|help) usage ;;
*)	usage >&2; exit 2 ;;
esac
