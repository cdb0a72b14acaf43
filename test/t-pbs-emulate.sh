#!/bin/sh
# t-pbs-emulate.sh: PBS Pro job scripts (templates/pbs.sh) run as PBS
# would run them. No PBS server is packaged, so this test plays MoM on
# the nodes of a test/cluster cluster (network namespaces on a bridge,
# interface hsn0 as the polaris profile expects; its Slurm daemons are
# not used):
# - the batch shell runs on the first host of PBS_NODEFILE as OpenPBS's
#   MoM starts it (src/resmom/start_exec.c): the user's login shell
#   (-S /bin/bash), in the home directory, reading the path of the
#   job's copy of the script (mom_priv/jobs/ID.SC) on its standard
#   input, with the variables start_exec.c sets (HOME, LOGNAME, USER,
#   SHELL, PBS_JOBNAME, PBS_JOBID, PBS_QUEUE, PBS_JOBCOOKIE,
#   PBS_NODENUM, PBS_TASKNUM, PBS_MOMPORT, PBS_NODEFILE, NCPUS,
#   OMP_NUM_THREADS, PBS_ACCOUNT, PBS_ENVIRONMENT=PBS_BATCH,
#   ENVIRONMENT=BATCH, PBS_JOBDIR) over the job's variable list (qsub's
#   PBS_O_* of qsub(1B), and its -v); PBS_NODEFILE holds a line per
#   MPI slot (pbsdsh(1B)), so hosts repeat here (mpiprocs=2);
# - the per-node launchers are stand-ins in $T/bin: mpiexec (Cray PALS,
#   with the grammar and variables of ALCF's "Example Job Scripts" page)
#   and pbsdsh (pbsdsh(1B) of PBS Professional, 6 May 2020, and OpenPBS
#   src/cmds/pbsdsh.c), each starting commands in the nodes' namespaces
#   with that node's host name; qstat and qsub stand-ins for the
#   walltime and the continuation;
# - when the batch shell exits, the job ends: every process of the job
#   on every node (those whose environment holds its PBS_JOBCOOKIE) is
#   killed, as MoM kills the job's sessions.
# Cases: a real 2-node x 2-process DDP training for each launcher, with
# t-e2e-slurm.sh's checks (world size, every rank once, parameters in
# sync, hostile argv byte for byte); a node that never starts; a node
# whose training dies; the checkpoint timer and the qsub continuation
# (mpiexec and pbsdsh), and the end of the chain at max_requeues.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

T=$(cd "$T" && pwd)
cluster=$srcdir/test/cluster/cluster.sh
check_job=$srcdir/test/cluster/check_job.py
# MoM's PATH for jobs (its pbs_environment file), the stand-ins first.
JOB_PATH=$T/bin:/usr/sbin:/usr/bin:/sbin:/bin

need_cluster timeout pkill
need_torchrun
need_built ddpgen ddprank
mkdir -p "$T/home"
env -i PATH="$JOB_PATH" HOME="$T/home" bash -lc \
    'python3 -c "import torch.distributed"' 2>/dev/null ||
    skip "python3 of a login shell with PATH $JOB_PATH cannot import torch"

DDPGEN_PROFILE_PATH=$srcdir/profiles
DDPGEN_TEMPLATE_PATH=$srcdir/templates
export DDPGEN_PROFILE_PATH DDPGEN_TEMPLATE_PATH

# --- the nodes -------------------------------------------------------------------
cluster_up 3 hsn0
on_exit pbs_kill
addr1=$("$cluster" addr node1 hsn0)

# PBS_HOME, the same path on every host: aux/ID is the node file MoM
# writes on each (gen_nodefile_on_sister_mom, true by default in
# OpenPBS's mom_main.c), mom_priv/jobs/ID.SC the job's script.
PBS_HOME=$T/pbs
mkdir -p "$PBS_HOME/aux" "$PBS_HOME/mom_priv/jobs" "$T/bin" "$T/work"
export PBS_HOME ID CLUSTER_DIR

# onnode HOST CMD...: CMD on HOST (nodeK), in its namespaces, with its
# host name and the cluster's hosts file, in the environment given.
cat >"$T/bin/onnode" <<'EOF'
#!/bin/sh
h=$1
shift
[ -e "$PBS_HOME/down.$h" ] && exec sleep 100000
exec nsenter --net="/run/netns/ddp$ID-$h" unshare --uts --mount sh -c '
	hostname "$1" && mount --bind "$2" /etc/hosts || exit
	shift 2 && exec "$@"' sh "$h" "$CLUSTER_DIR/etc/hosts" "$@"
EOF

# The mpiexec stand-in (Cray PALS, as ALCF's "Example Job Scripts" page
# uses it: mpiexec -n N --ppn P [--depth=D] [--cpu-bind B] [--env N=V]
# PROGRAM ARGS). The hosts are PBS_NODEFILE's, each once, in order; P
# ranks on each of the first N/P. Every rank gets mpiexec's environment
# (the page exports MPICH_GPU_SUPPORT_ENABLED before mpiexec for the
# ranks), --env's and PMI_RANK, PMI_LOCAL_RANK (the page's
# set_affinity_gpu_polaris.sh reads them). Unconfirmed for PALS and
# assumed as MPICH's mpiexec does: a rank that fails ends the others,
# and mpiexec exits with its status.
cat >"$T/bin/mpiexec" <<'EOF'
#!/bin/bash
n='' ppn=1 envs=()
while [ $# -gt 0 ]; do
	case $1 in
	-n|-np) n=$2; shift 2 ;;
	--ppn|-ppn) ppn=$2; shift 2 ;;
	--ppn=*) ppn=${1#*=}; shift ;;
	--depth|-d|--cpu-bind) shift 2 ;;
	--depth=*|--cpu-bind=*) shift ;;
	--env|-env) envs+=("$2"); shift 2 ;;
	-*) echo "mpiexec: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ -n "$n" ] && [ $# -gt 0 ] || { echo "mpiexec: usage" >&2; exit 2; }
mapfile -t hosts < <(awk '!seen[$0]++' "$PBS_NODEFILE")
if [ $((n / ppn)) -gt ${#hosts[@]} ]; then
	echo "mpiexec: $n ranks at $ppn per node need more than ${#hosts[@]} nodes" >&2
	exit 1
fi
pids=()
for ((r = 0; r < n; r++)); do
	env "${envs[@]}" PMI_RANK=$r PMI_LOCAL_RANK=$((r % ppn)) \
	    "$(dirname "$0")/onnode" "${hosts[$((r / ppn))]}" "$@" &
	pids+=($!)
done
rc=0
while [ ${#pids[@]} -gt 0 ]; do
	wait -n -p done "${pids[@]}"
	st=$?
	left=()
	for p in "${pids[@]}"; do [ "$p" = "$done" ] || left+=("$p"); done
	pids=("${left[@]}")
	if [ "$st" -ne 0 ] && [ "$rc" -eq 0 ]; then
		rc=$st
		echo "mpiexec: a rank exited with status $st: ending the others" >&2
		for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	fi
done
exit "$rc"
EOF

# The pbsdsh stand-in (pbsdsh(1B), PBS Professional, 6 May 2020; OpenPBS
# src/cmds/pbsdsh.c): pbsdsh [-c copies | -n index] [-s] [-v] [-o] --
# PROGRAM ARGS; "not executing under PBS" without PBS_ENVIRONMENT; one
# task per line of PBS_NODEFILE (or the index-th line, from 0); a task
# gets the job's variable list, not pbsdsh's environment, with HOME,
# PBS_JOBNAME, PBS_JOBID, PBS_QUEUE, PBS_JOBCOOKIE, PBS_NODENUM,
# PBS_TASKNUM (%8.8X), PBS_MOMPORT, OMP_NUM_THREADS, NCPUS and
# PBS_NODEFILE (start_exec.c's task environment), started in the home
# directory (start_exec.c: "change working directory to PBS_JOBDIR or
# to User's Home"); pbsdsh prints a failed task's status and exits 0
# itself.
cat >"$T/bin/pbsdsh" <<'EOF'
#!/bin/bash
[ -n "${PBS_ENVIRONMENT:-}" ] || { echo "$0: not executing under PBS" >&2; exit 1; }
one='' copies=''
while getopts c:n:svo o; do
	case $o in
	c) copies=$OPTARG ;;
	n) one=$OPTARG ;;
	s|v|o) ;;
	*) echo "Usage: pbsdsh [-c copies][-s][-v][-o] -- program [args...]" >&2; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
mapfile -t lines <"$PBS_NODEFILE"
cd "$HOME" || exit 1
if [ -n "$one" ]; then idx=("$one"); else idx=($(seq 0 $((${copies:-${#lines[@]}} - 1)))); fi
pids=()
for i in "${idx[@]}"; do
	h=${lines[$((i % ${#lines[@]}))]}
	mapfile -t vars <"$PBS_HOME/$PBS_JOBID.vars"
	"$(dirname "$0")/onnode" "$h" env -i "${vars[@]}" HOME="$HOME" \
	    PATH="$MOM_PATH" PBS_JOBNAME="$PBS_JOBNAME" PBS_JOBID="$PBS_JOBID" \
	    PBS_QUEUE="$PBS_QUEUE" PBS_JOBCOOKIE="$PBS_JOBCOOKIE" \
	    PBS_NODENUM="${h#node}" PBS_TASKNUM="$(printf %8.8X $((i + 2)))" \
	    PBS_MOMPORT=15003 OMP_NUM_THREADS=2 NCPUS=2 \
	    PBS_NODEFILE="$PBS_NODEFILE" "$@" &
	pids+=($!)
done
for i in "${!pids[@]}"; do
	wait "${pids[$i]}"
	st=$?
	[ "$st" -eq 0 ] || printf 'pbsdsh: task 0x%08X exit status %d\n' "$i" "$st"
done
exit 0
EOF

# qstat -f ID (qstat(1B)): the walltime line is all the script reads.
cat >"$T/bin/qstat" <<'EOF'
#!/bin/sh
[ "$1" = -f ] && [ "$2" = "$PBS_JOBID" ] || exit 1
echo "Job Id: $PBS_JOBID"
echo "    Resource_List.walltime = $PBS_TEST_WALLTIME"
EOF

# qsub (qsub(1B)): records its arguments, NUL-separated, and the
# directive prefix it would read (PBS_DPREFIX), for the job that ran it
# ($PBS_HOME/qsub.args.ID, qsub.prefix.ID), and prints a job id, as the
# continuation's submission.
cat >"$T/bin/qsub" <<'EOF'
#!/bin/sh
for a; do printf '%s\0' "$a"; done >"$PBS_HOME/qsub.args.$PBS_JOBID"
echo "${PBS_DPREFIX:-#PBS}" >"$PBS_HOME/qsub.prefix.$PBS_JOBID"
echo "9999.pbs"
EOF
chmod 0755 "$T/bin"/*
# The login shell's /etc/profile sets PATH anew: the stand-ins come first
# by the user's ~/.bash_profile, as a site's module setup would put them.
echo "PATH=$T/bin:\$PATH" >"$T/home/.bash_profile"

# pbs_kill [JOBID]: the end of job JOBID (each process whose
# environment holds its cookie is killed), or of every test job.
pbs_kill() {
	for e in /proc/[0-9]*/environ; do
		grep -qz "^PBS_JOBCOOKIE=ddptest$$-${1:-}" "$e" 2>/dev/null ||
		    continue
		p=${e#/proc/}
		kill -9 "${p%/environ}" 2>/dev/null
	done
}

# run_job NAME JOBID HOSTS [VAR=VALUE...]: job NAME ($T/NAME.sh) as
# MoM runs it, HOSTS its PBS_NODEFILE lines ("node1 node1 node2
# node2"), the VARs in its variable list (qsub -v); at most 180 s. Its
# output in $T/NAME.out, its status in $rc, its duration in $secs. Jobs
# may run at once (run_bg), each with a cookie of its own.
run_job() {
	rname=$1 rjob=$2.pbs hosts=$3
	shift 3
	# shellcheck disable=SC2086 # the hosts, split
	printf '%s\n' $hosts >"$PBS_HOME/aux/$rjob"
	install -m 0700 "$T/$rname.sh" "$PBS_HOME/mom_priv/jobs/$rjob.SC"
	{
		echo "PBS_O_HOME=$T/home"
		echo "PBS_O_LOGNAME=root"
		echo "PBS_O_PATH=$JOB_PATH"
		echo "PBS_O_SHELL=/bin/bash"
		echo "PBS_O_HOST=login1"
		echo "PBS_O_WORKDIR=$T/work"
		echo "PBS_O_SYSTEM=Linux"
		echo "PBS_O_QUEUE=debug"
		echo "PYTHONPATH=$srcdir/test/cluster"
		for v; do echo "$v"; done
	} >"$PBS_HOME/$rjob.vars"
	mapfile_vars=$(cat "$PBS_HOME/$rjob.vars")
	t0=$(date +%s)
	# shellcheck disable=SC2086 # one variable a line, none with blanks
	printf '%s\n' "$PBS_HOME/mom_priv/jobs/$rjob.SC" |
	    (cd "$T/home" && IFS='
' && exec timeout 180 env -i $mapfile_vars PATH="$JOB_PATH" MOM_PATH="$JOB_PATH" \
	    HOME="$T/home" LOGNAME=root USER=root SHELL=/bin/bash \
	    PBS_JOBNAME=ddp PBS_JOBID="$rjob" PBS_QUEUE=debug \
	    PBS_JOBCOOKIE="ddptest$$-$rjob" PBS_NODENUM=0 PBS_TASKNUM=1 \
	    PBS_MOMPORT=15003 PBS_NODEFILE="$PBS_HOME/aux/$rjob" NCPUS=4 \
	    OMP_NUM_THREADS=4 PBS_ACCOUNT=proj PBS_ENVIRONMENT=PBS_BATCH \
	    ENVIRONMENT=BATCH PBS_JOBDIR="$T/home" PBS_HOME="$PBS_HOME" \
	    ID="$ID" CLUSTER_DIR="$CLUSTER_DIR" \
	    PBS_TEST_WALLTIME="${PBS_TEST_WALLTIME:-00:10:00}" \
	    "$T/bin/onnode" "${hosts%% *}" /bin/bash -l) >"$T/$rname.out" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	pbs_kill "$rjob"
}
# run_bg NAME JOBID HOSTS [VAR=VALUE...]: run_job in the background;
# run_wait NAME then sets rc and secs.
run_bg() {
	(run_job "$@"; echo "$rc $secs" >"$T/$1.rc") &
}
run_wait() {
	while [ ! -s "$T/$1.rc" ]; do sleep 1; done
	read -r rc secs <"$T/$1.rc"
}

show() {
	grep -v -e OMP_NUM_THREADS -e '^\*\*\*' -e '^WARNING:torch' "$1" |
	    tail -n 25
}

# Arguments that break naive quoting, as t-e2e-slurm.sh's.
nl=$(printf 'line1\nline2')
set -- --epochs=2 'two  words' '' '$(touch pwned)' '`touch pwned`' \
    "it's \"quoted\" \\back\\slash\\" '*' "$nl" \
    "$(printf '\377\376 not utf-8')" -- --nnodes=7 --port=1 \
    "$(printf 'caf\303\251')" '-h' '$HOME' '!x' ';' '>out' '\' "'" '"'
for a; do printf '%s\0' "$a"; done >"$T/argv"
cp "$srcdir/test/train.py" "$T/work/train.py"

# The polaris profile with what cannot exist here: no modules, no GPUs
# (and so no binding to them: t-e2e-bind.sh binds).
emu_conf() {
	{
		echo 'extends = "polaris"'
		echo "description = \"polaris, emulated ($1)\""
		echo 'setup = {}'
		echo 'gpus_per_node = 0'
		echo 'bind = none'
		echo 'account = "proj"'
		echo "pbs_launcher = $1"
		shift
		for l; do echo "$l"; done
	} >"$T/emu-$launcher.conf"
}

# gen NAME CONF DDPGEN-ARGS...: $T/NAME.sh
gen() {
	g=$1 c=$2
	shift 2
	check "$g: ddpgen" "$DDPGEN" --site "$c" --ddprank "$DDPRANK" \
	    -o "$T/$g.sh" "$@"
}

jobid=$((1000 + $$ % 9000))
for launcher in mpiexec pbsdsh; do
	emu_conf "$launcher" 'requeue = false'
	conf=$T/emu-$launcher.conf

	# --- 2 nodes, 2 processes each, hosts repeated in PBS_NODEFILE ---------
	jobid=$((jobid + 1))
	name=$launcher-2x2
	rm -rf "$T/ranks"
	mkdir -p "$T/ranks"
	# The script by a relative path: the job and every node go to
	# PBS_O_WORKDIR, where qsub ran.
	gen "$name" "$conf" -N 2 -n 2 train.py "$@"
	check "$name: no test workaround in the script" \
	    ! grep -q -e sitecustomize -e PYTHONPATH "$T/$name.sh"
	run_job "$name" "$jobid" "node1 node1 node2 node2" DDPTEST_DIR="$T/ranks"
	expect_eq "$name: exit status" "$rc" 0 || show "$T/$name.out"
	check "$name: check_job.py" python3 "$check_job" --nodes 2 \
	    --procs-per-node 2 --argv-file "$T/argv" \
	    --master-addr "$addr1" --node-order "node1 node2" \
	    --expect-env GLOO_SOCKET_IFNAME=hsn0 --expect-env PET_NNODES=2 \
	    "$T"/ranks/rank-*.txt || show "$T/$name.out"
	check "$name: an argument was run as a command" \
	    test ! -e "$T/work/pwned" -a ! -e "$T/home/pwned"
	check "$name: the doctor's report" grep -q '^ddprank doctor: no check failed$' \
	    "$T/$name.out" || show "$T/$name.out"
	echo "$name: ${secs} s"

	# --- a node that never starts ---------------------------------------------
	# node3's launch is lost (nothing runs there, nothing is said): the
	# preflight on node 0 names it within its wait, and the job ends.
	jobid=$((jobid + 1))
	name=$launcher-nostart
	gen "$name" "$conf" -N 3 -n 1 "$T/work/train.py"
	touch "$PBS_HOME/down.node3"
	run_job "$name" "$jobid" "node1 node2 node3"
	rm -f "$PBS_HOME/down.node3"
	check "$name: failed" test "$rc" -ne 0 -a "$rc" -ne 124
	check "$name: names node3" grep -q 'node3' "$T/$name.out" ||
	    show "$T/$name.out"
	check "$name: no training started" ! grep -q '^DDPTEST' "$T/$name.out"
	check "$name: ended in $secs s" test "$secs" -le 60
	echo "$name: ${secs} s"

	# --- a node that dies -------------------------------------------------------
	jobid=$((jobid + 1))
	name=$launcher-dies
	gen "$name" "$conf" -N 2 -n 2 "$T/work/train.py"
	run_job "$name" "$jobid" "node1 node2" DDPTEST_FAIL_NODE=1
	check "$name: failed" test "$rc" -ne 0 -a "$rc" -ne 124
	check "$name: the training says node 1 failed" \
	    grep -q 'rank [0-9]* on node 1: failing on request' "$T/$name.out" ||
	    show "$T/$name.out"
	check "$name: ended in $secs s" test "$secs" -le 90
	[ "$launcher" = mpiexec ] || check "$name: the script names the failed nodes" \
	    grep -q '^ddpgen job: failed: node [01] (node[12]) status [1-9]' \
	    "$T/$name.out"
	echo "$name: ${secs} s"
done

# --- the checkpoint timer and the continuation ------------------------------------
# A walltime of 160 s and signal_lead 90: 70 s after the start (time
# for the workers to install their handler first, even on a loaded
# machine: with torch 2.6 and three cluster tests at once on 2 cores,
# 40 s was not always enough; a signal before that is lost, by the
# contract) every node's
# timer sends USR2 to its training processes, which checkpoint and exit
# 0; the batch shell then submits the continuation with qsub. The three
# jobs run at once.
launcher=mpiexec
emu_conf mpiexec 'requeue = true' 'signal_lead = 90' 'preflight = false'
cp "$srcdir/examples/train_resumable.py" "$T/work/"
launcher=pbsdsh
emu_conf pbsdsh 'requeue = true' 'signal_lead = 90' 'preflight = false'
launcher=mpiexec
timer=$((jobid + 1)) timer_pbsdsh=$((jobid + 2)) timer_max=$((jobid + 3))
gen timer "$T/emu-mpiexec.conf" -N 2 -n 2 -t 30 "$T/work/train_resumable.py" \
    --checkpoint "$T/work/ckpt.pt" --steps 200 --step-seconds 1 --every 50
# The job's environment names another directive prefix (PBS_DPREFIX):
# the continuation's qsub still reads #PBS lines.
gen timer-pbsdsh "$T/emu-pbsdsh.conf" -N 2 -n 1 -t 30 \
    "$T/work/train_resumable.py" --checkpoint "$T/work/ckpt-pbsdsh.pt" \
    --steps 200 --step-seconds 1 --every 50
# The last allowed continuation ran: the next warning ends the chain.
gen timer-max "$T/emu-mpiexec.conf" -N 1 -n 1 -t 30 \
    "$T/work/train_resumable.py" --checkpoint "$T/work/ckpt-max.pt" \
    --steps 200 --step-seconds 1 --every 50
PBS_TEST_WALLTIME=00:02:40 run_bg timer "$timer" "node1 node2" \
    DDPGEN_RESTART_BASE=1 DDPGEN_TIME_LIMITS=1 DDPGEN_LAST_STOP=time-limit
PBS_TEST_WALLTIME=00:02:40 run_bg timer-pbsdsh "$timer_pbsdsh" "node1 node2" \
    'PBS_DPREFIX=#QQQ'
PBS_TEST_WALLTIME=00:02:40 run_bg timer-max "$timer_max" "node1" \
    DDPGEN_RESTART_BASE=3 DDPGEN_TIME_LIMITS=3 DDPGEN_LAST_STOP=time-limit

jobid=$timer name=timer
run_wait "$name"
expect_eq "$name: exit status" "$rc" 0 || show "$T/$name.out"
check "$name: the workers got the signal" \
    grep -q 'train_resumable: rank [0-9] got signal' "$T/$name.out"
check "$name: a checkpoint" test -s "$T/work/ckpt.pt"
check "$name: the restart count reached the training" \
    grep -q 'restart 1, last stop time-limit' "$T/$name.out" ||
    show "$T/$name.out"
check "$name: says it continued" grep -q \
    '^ddpgen job: time limit in 90 s: checkpoint signal sent to the training on 2 nodes; continuation job 9999.pbs submitted (restart 2 of at most 3)$' \
    "$T/$name.out" || show "$T/$name.out"
tr '\0' '\n' <"$PBS_HOME/qsub.args.$jobid.pbs" >"$T/qsub.args"
expect_eq "$name: the continuation's qsub" "$(cat "$T/qsub.args")" \
"-W
depend=afterany:$jobid.pbs
-v
DDPGEN_RESTART_BASE=2,DDPGEN_TIME_LIMITS=2,DDPGEN_LAST_STOP=time-limit
$PBS_HOME/mom_priv/jobs/$jobid.pbs.SC"
check "$name: ended before the walltime ($secs s)" test "$secs" -lt 160

# The same with pbsdsh: the time crosses in the environment file.
jobid=$timer_pbsdsh name=timer-pbsdsh
run_wait "$name"
expect_eq "$name: exit status" "$rc" 0 || show "$T/$name.out"
check "$name: the workers got the signal" \
    grep -q 'train_resumable: rank [0-9] got signal' "$T/$name.out"
check "$name: a first run" \
    grep -q 'restart 0, last stop none' "$T/$name.out" || show "$T/$name.out"
tr '\0' '\n' <"$PBS_HOME/qsub.args.$jobid.pbs" >"$T/qsub.args"
check "$name: the continuation's counts" grep -qx \
    'DDPGEN_RESTART_BASE=1,DDPGEN_TIME_LIMITS=1,DDPGEN_LAST_STOP=time-limit' \
    "$T/qsub.args"
expect_eq "$name: the continuation's directives" \
    "$(cat "$PBS_HOME/qsub.prefix.$jobid.pbs" 2>&1)" "#PBS"

jobid=$timer_max name=timer-max
run_wait "$name"
expect_eq "$name: exit status" "$rc" 124 || show "$T/$name.out"
check "$name: says why" grep -q '^ddpgen job: time limit in 90 s: checkpoint signal sent to the training on 1 node; not continued: 3 time-limit continuations already (max_requeues = 3)$' \
    "$T/$name.out" || show "$T/$name.out"
check "$name: no qsub" test ! -e "$PBS_HOME/qsub.args.$jobid.pbs"
finish
