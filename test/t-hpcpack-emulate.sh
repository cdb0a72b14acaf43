#!/bin/sh
# t-hpcpack-emulate.sh: HPC Pack job files run as the Linux node agent
# would run them (REFERENCE.md section 4). The nodes of a test/cluster
# cluster (network namespaces on a bridge, interface eth0 as the hpcpack
# profile expects; its Slurm daemons are not used) run one task each:
# the task's CommandLine, taken from the job XML with xmllint, is written
# into a script run by a non-login, non-interactive /bin/bash with a
# minimal PATH, in the task's WorkDirectory (a directory every node
# sees: the shared directory), stdout and stderr to the task's files,
# with HPC Pack's CCP_* variables and the lower-case Linux host name
# where CCP_NODES has NetBIOS upper case. The ddprank exchange in the
# shared directory, authenticated with a key file in the tasks' home
# (ddprank(1), SECURITY), gives torchrun its static rendezvous master
# and the port derived from the key; test/train.py
# trains over gloo with hostile arguments and check_job.py checks the
# result. Then a 3-node job whose third node never starts (exit 7 at the
# timeout, naming it), and its rerun (CCP_RETRY_COUNT=1) next to what
# the failed run left, each task seeing only its own node in CCP_NODES.
# Last, the notes' "nvcc: command not found": a launcher stand-in on a
# PATH that only a startup file sets, in /etc/bash.bashrc behind its PS1
# guard, in /etc/profile.d or in ~/.bashrc (each bind-mounted in the
# task's private mount namespace, or in the task's HOME): the default
# task shell finds it, login does not find the bash.bashrc one, and
# plain needs path and then does not find it either.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"
. "$srcdir/test/emu/lib.sh"

# --- what the test needs -------------------------------------------------------
# cluster.sh also starts Slurm, which this test leaves idle.
emu_setup hpcpack xmllint timeout
# The tasks' login shell must find a python with torch, as a site's
# /etc/profile would; HOME is an empty directory, as for a new user.
emu_login_torch "$TASK_PATH"

# --- the nodes -------------------------------------------------------------------
t0=$(date +%s)
cluster_up 3 eth0
addr1=$("$cluster" addr node1 eth0)

# The shared directory: the namespaces share this machine's file system.
# Its exchange base is made by an administrator: root's, mode 1777.
share=$T/share
mkdir -p "$share/.ddprank"
chmod 1777 "$share/.ddprank"
# The user's key, 0600 in a 0700 directory of the home every node sees.
mkdir -m 0700 "$T/home/.ddprank"
(umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' \
    >"$T/home/.ddprank/key")
cp "$srcdir/test/train.py" "$share/train.py"

# Test profiles: the shipped hpcpack one with this shared directory, and
# one with a short exchange timeout for the node that never comes.
cat >"$T/emu.conf" <<EOF
extends = "hpcpack"
description = "hpcpack, emulated on namespaces"
shared_dir = "$share"
exchange_timeout = 60
EOF
sed 's/^exchange_timeout = .*/exchange_timeout = 3/' "$T/emu.conf" \
    >"$T/emu-short.conf"
# There the exchange's own timeout is under test, not the preflight's
# (t-doctor.sh), which would stop the tasks first.
echo 'preflight = no' >>"$T/emu-short.conf"

# Arguments that break naive quoting (XML cannot carry bytes that are not
# UTF-8, so ddpgen refuses those): written once as ddpgen's arguments and
# once NUL-separated for check_job.py.
set -- '--epochs=2' 'two  words' '' '$(touch pwned)' \
    "it's \"quoted\" \\back\\slash" '*' "$(printf 'line1\nline2')" \
    '--nnodes=7' "$(printf 'caf\303\251')" '%PATH% & <tag> !x!' '~'
emu_argv "$@"

# gen NAME NODES NPROC PROFILE: the job file $T/NAME.xml.
gen() {
	g_name=$1 g_nodes=$2 g_nproc=$3 g_site=$4
	shift 4
	"$DDPGEN" --site "$g_site" --nodes "$g_nodes" \
	    --nproc-per-node "$g_nproc" --ddprank "$DDPRANK" \
	    -o "$T/$g_name.xml" "$share/train.py" "$@" 2>"$T/$g_name.gen.err"
}

# task_attr JOB I ATTR: attribute ATTR of task I of job file JOB.
task_attr() {
	xmllint --xpath "string(//*[local-name()='Task'][$2]/@$3)" "$T/$1.xml"
}

# job_env JOB: the job's variables, NAME=VALUE one a line (xmllint ends
# each with a newline; none of the values ddpgen writes here holds one).
job_env() {
	V="//*[local-name()='Variable']"
	n=$(xmllint --xpath "count($V)" "$T/$1.xml") k=1
	while [ "$k" -le "$n" ]; do
		xmllint --xpath "concat(string(${V}[$k]/*[local-name()='Name']), \
		    '=', string(${V}[$k]/*[local-name()='Value']))" "$T/$1.xml"
		k=$((k + 1))
	done
}

# Extra bind mounts in the tasks' mount namespace ("SRC:DST ...") and
# the tasks' HOME: the startup-file cases change them.
binds=
task_home=$T/home

# run_task JOB I JOBID NODES_VAR [VAR=VALUE...]: task I of job JOB on
# node I, in the background, as the agent would start it, with the job's
# variables in its environment.
run_task() {
	rjob=$1 i=$2 jobid=$3 ccp_nodes=$4
	shift 4
	job_env "$rjob" >"$T/$rjob.env"
	while IFS= read -r nv; do
		set -- "$nv" "$@"
	done <"$T/$rjob.env"
	cmdline=$(task_attr "$rjob" "$i" CommandLine)
	wd=$(task_attr "$rjob" "$i" WorkDirectory)
	out=$(task_attr "$rjob" "$i" StdOutFilePath)
	err=$(task_attr "$rjob" "$i" StdErrFilePath)
	case $out in /*) ;; *) out=$wd/$out ;; esac
	case $err in /*) ;; *) err=$wd/$err ;; esac
	printf '%s\n' "$cmdline" >"$T/$rjob.task$i.sh"
	timeout 120 nsenter --net="/run/netns/ddp$ID-node$i" \
	    unshare --uts --mount sh -c '
		hostname "$1" && mount --bind "$2" /etc/hosts || exit
		for b in $4; do mount --bind "${b%%:*}" "${b#*:}" || exit; done
		cd "$3" && shift 4 && exec "$@"' sh "node$i" \
	    "$CLUSTER_DIR/etc/hosts" "$wd" "$binds" \
	    env -i PATH=$TASK_PATH HOME="$task_home" \
	    PYTHONPATH="$srcdir/test/cluster" CCP_JOBID="$jobid" \
	    CCP_TASKID="$i" CCP_TASKINSTANCEID=0 CCP_NODES="$ccp_nodes" \
	    CCP_NUMCPUS=4 CCP_JOBNAME=ddp CCP_WORKDIR="$wd" "$@" \
	    /bin/bash "$T/$rjob.task$i.sh" >"$out" 2>"$err" &
	eval "pid$i=\$!"
}

# wait_tasks N: waits for tasks 1..N; their exit statuses in $rcs.
wait_tasks() {
	rcs=
	for i in $(seq "$1"); do
		eval "wait \$pid$i"
		rcs="$rcs${rcs:+ }$?"
	done
}

# check_run NAME NODES NPROC JOBID: every task succeeded, the training
# is whole, with task 1's node (node1) as the static rendezvous master on
# the port derived from the key and the job id, and the exchange
# directory is gone.
check_run() {
	expect_eq "$1: task exit statuses" "$rcs" \
	    "$(seq -s ' ' "$2" | sed 's/[0-9]*/0/g')"
	port=$(env -i DDPRANK_SECRET="$(cat "$T/home/.ddprank/key")" \
	    CCP_JOBID="$4" "$DDPRANK" port)
	check "$1: check_job.py" \
	    python3 "$check_job" --nodes "$2" --procs-per-node "$3" \
	    --argv-file "$T/argv" --expect-env GLOO_SOCKET_IFNAME=eth0 \
	    --expect-env PET_NNODES="$2" \
	    --expect-env PET_MASTER_ADDR="$addr1" \
	    --expect-env PET_MASTER_PORT="$port" \
	    "$share"/ddp.[0-9]*.out ||
	    emu_show "$share"/ddp.*
	expect_eq "$1: exchange directory removed" \
	    "$(ls "$share/.ddprank")" ""
	rm -f "$share"/ddp.*
}

jobid=$((1000 + $$ % 9000))

# --- 2 nodes, 2 processes each, every task sees both nodes ---------------------------
gen full 2 2 "$T/emu.conf" "$@"
expect_eq "ddpgen 2 nodes" "$?" 0
expect_eq "job file: tasks" \
    "$(xmllint --xpath "count(//*[local-name()='Task'])" "$T/full.xml")" 2
expect_eq "job file: work directory" "$(task_attr full 2 WorkDirectory)" \
    "$share"
expect_eq "job file: no test workaround in it" \
    "$(grep -c -e sitecustomize -e PYTHONPATH "$T/full.xml")" 0
t1=$(date +%s)
run_task full 1 "$jobid" "2 NODE1 4 NODE2 4"
run_task full 2 "$jobid" "2 NODE1 4 NODE2 4"
wait_tasks 2
t2=$(date +%s)
check_run "2 nodes" 2 2 "$jobid"
check "an argument was run as a command" test ! -e "$share/pwned"

# --- a node that never starts ------------------------------------------------------
# 3 nodes, a short timeout; the third never starts: the other two stop
# at the timeout, naming it, and leave the job's directory behind.
jobid=$((jobid + 1))
gen short 3 1 "$T/emu-short.conf" "$@"
run_task short 1 "$jobid" "1 NODE1 4"
run_task short 2 "$jobid" "1 NODE2 4"
wait_tasks 2
t3=$(date +%s)
expect_eq "missing node: exit statuses" "$rcs" "7 7"
addr2=$("$cluster" addr node2 eth0)
# The run directory's name: the job id, the run, and 32 hex digits of
# the key's HMAC, which no one else can know in advance.
run=$(ls "$share/.ddprank")
check "missing node: run directory name '$run'" \
    matches "$run" "$jobid-r0-????????????????????????????????"
for i in 1 2; do
	expect_eq "missing node: message on node $i" \
	    "$(cat "$share/ddp.$i.err")" \
	    "ddprank: exchange in $share/.ddprank/$run timed out after 3 s: 2 of 3 nodes arrived; missing task ids 3; arrived: task 1 node1 ($addr1), task 2 node2 ($addr2)"
	expect_eq "missing node: node $i did not start torchrun" \
	    "$(cat "$share/ddp.$i.out")" ""
done
# The profile's 3 s timeout, not the 300 s default; the bound leaves
# room for the generation and two login shells on loaded cores (13 s
# with three cluster tests at once on 2 cores, torch 2.6).
check "missing node: took $((t3 - t2)) s" test $((t3 - t2)) -le 60
# The collector's mark too: task 1's node collects from its start.
expect_eq "missing node: the directory stays" \
    "$(ls "$share/.ddprank/$run" | tr '\n' ' ')" "collector entry.t1 entry.t2 "
rm -f "$share"/ddp.*

# --- its rerun: 3 nodes, each task seeing only its own node ------------------------
# HPC Pack reruns the same job file with CCP_RETRY_COUNT=1; the failed
# run's directory does not mix in, and node 0 removes it.
for i in 1 2 3; do
	run_task short "$i" "$jobid" "1 NODE$i 4" CCP_RETRY_COUNT=1
done
wait_tasks 3
t4=$(date +%s)
check_run "rerun, own node only" 3 1 "$jobid"

# --- where the site sets PATH ---------------------------------------------------
# A launcher stand-in in a directory only a startup file puts on PATH.
mkdir -p "$T/site/bin" "$T/profile.d" "$T/skel"
mv "$T/bin/ddp-launcher" "$T/site/bin/"
# The site's file, as Debian ships /etc/bash.bashrc: the PS1 guard first.
{
	echo '# System-wide .bashrc file for interactive bash(1) shells.'
	echo '[ -z "$PS1" ] && return'
	echo "PATH=$T/site/bin:\$PATH"
} >"$T/bash.bashrc"
cp -p /etc/profile.d/*.sh "$T/profile.d/" 2>/dev/null
echo "PATH=$T/site/bin:\$PATH" >"$T/profile.d/zz-site.sh"
# A home as new accounts get it on Debian (~/.profile reads ~/.bashrc),
# with the usual guard at the top of ~/.bashrc.
printf '%s\n' 'if [ -n "$BASH_VERSION" ] && [ -f "$HOME/.bashrc" ]; then' \
    '	. "$HOME/.bashrc"' 'fi' >"$T/skel/.profile"
printf '%s\n' 'case $- in *i*) ;; *) return ;; esac' \
    "PATH=$T/site/bin:\$PATH" >"$T/skel/.bashrc"

# start_case NAME SHELL: a one-node job of the stand-in in task_shell
# SHELL ("" for the default), run as the agent would; its exit status in
# $rcs, its output in $T/NAME.out and .err.
start_case() {
	{
		echo 'extends = "hpcpack"'
		echo "shared_dir = \"$share\""
		echo 'exchange_timeout = 20'
		echo 'launcher = {"ddp-launcher"}'
		# The startup files are under test, not the preflight's own
		# launcher check, which would stop the task first.
		echo 'preflight = no'
		[ -z "$2" ] || echo "task_shell = $2"
		[ "$2" != plain ] || echo "path = \"$TASK_PATH\""
	} >"$T/$1.conf"
	gen "$1" 1 1 "$T/$1.conf" --case "$1"
	expect_eq "$1: ddpgen" "$?" 0
	jobid=$((jobid + 1))
	run_task "$1" 1 "$jobid" "1 NODE1 4"
	wait_tasks 1
	mv "$share/ddp.1.out" "$T/$1.out"
	mv "$share/ddp.1.err" "$T/$1.err"
}

# found NAME: the stand-in ran, and bash's job-control notice is gone.
found() {
	expect_eq "$1: exit status" "$rcs" 0
	expect_eq "$1: the launcher ran" "$(cat "$T/$1.out")" \
	    "stand-in launcher ran: --nproc_per_node=1 $share/train.py --case $1"
	expect_eq "$1: no job-control notice" \
	    "$(grep -c -e 'job control' -e 'terminal process group' \
	    "$T/$1.err")" 0
}

# not_found NAME: the task stopped, naming the launcher.
not_found() {
	expect_eq "$1: exit status" "$rcs" 127
	expect_eq "$1: message" "$(tail -n 1 "$T/$1.err")" \
	    "ddprank: cannot execute 'ddp-launcher': No such file or directory"
}

binds="$T/bash.bashrc:/etc/bash.bashrc"
start_case bashrc-default ""
found bashrc-default
start_case bashrc-login login
not_found bashrc-login
start_case bashrc-interactive interactive
found bashrc-interactive
binds="$T/profile.d:/etc/profile.d"
start_case profiled-default ""
found profiled-default
binds=''
task_home=$T/skel
start_case homerc-default ""
found homerc-default
binds="$T/bash.bashrc:/etc/bash.bashrc $T/profile.d:/etc/profile.d"
start_case plain plain
not_found plain
task_home=$T/home binds=''
printf 'extends = "hpcpack"\ntask_shell = plain\n' >"$T/plain-nopath.conf"
"$DDPGEN" --site "$T/plain-nopath.conf" --ddprank "$DDPRANK" /x.py \
    >/dev/null 2>"$T/plain-nopath.err"
expect_eq "plain without path: exit status" "$?" 3
expect_eq "plain without path: message" "$(cat "$T/plain-nopath.err")" \
    "ddpgen: $T/plain-nopath.conf:2: task_shell: 'plain' needs path (the \
node agent's PATH is minimal)"
t5=$(date +%s)

echo "cluster up in $((t1 - t0)) s; 2x2 job $((t2 - t1)) s; timeout case" \
    "$((t3 - t2)) s; 3x1 rerun $((t4 - t3)) s; startup files $((t5 - t4)) s"
finish
