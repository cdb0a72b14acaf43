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
# - the per-node launchers are stand-ins (test/emu/pbs, in $T/bin):
#   mpiexec (Cray PALS, with the grammar and variables of ALCF's
#   "Example Job Scripts" page) and pbsdsh (pbsdsh(1B) of PBS Professional, 6 May 2020, and OpenPBS
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
# (mpiexec and pbsdsh), and the end of the chain at max_requeues; the
# rerun without a bad node (ddpgen(1), HANGS AND BAD NODES): with requeue,
# a preflight that fails on a node that never starts submits the
# continuation with a chunk more and the node in its variables (qsub's
# arguments byte for byte), and that continuation, given the bad node
# among its hosts, trains on the others (each launcher).

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"
. "$srcdir/test/emu/lib.sh"

# The stand-ins (test/emu/pbs) in $T/bin.
emu_setup pbs timeout pkill
need_torchrun
# MoM's PATH for jobs (its pbs_environment file), the stand-ins first.
JOB_PATH=$T/bin:$TASK_PATH
emu_login_torch "$JOB_PATH"

# --- the nodes -------------------------------------------------------------------
cluster_up 4 hsn0
on_exit pbs_kill
addr1=$("$cluster" addr node1 hsn0)

# PBS_HOME, the same path on every host: aux/ID is the node file MoM
# writes on each (gen_nodefile_on_sister_mom, true by default in
# OpenPBS's mom_main.c), mom_priv/jobs/ID.SC the job's script.
PBS_HOME=$T/pbs
mkdir -p "$PBS_HOME/aux" "$PBS_HOME/mom_priv/jobs"
export PBS_HOME ID CLUSTER_DIR

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

# Arguments that break naive quoting, as t-e2e-slurm.sh's.
nl=$(printf 'line1\nline2')
set -- --epochs=2 'two  words' '' '$(touch pwned)' '`touch pwned`' \
    "it's \"quoted\" \\back\\slash\\" '*' "$nl" \
    "$(printf '\377\376 not utf-8')" -- --nnodes=7 --port=1 \
    "$(printf 'caf\303\251')" '-h' '$HOME' '!x' ';' '>out' '\' "'" '"'
emu_argv "$@"
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
	expect_eq "$name: exit status" "$rc" 0 || emu_show "$T/$name.out"
	check "$name: check_job.py" python3 "$check_job" --nodes 2 \
	    --procs-per-node 2 --argv-file "$T/argv" \
	    --master-addr "$addr1" --node-order "node1 node2" \
	    --expect-env GLOO_SOCKET_IFNAME=hsn0 --expect-env PET_NNODES=2 \
	    "$T"/ranks/rank-*.txt || emu_show "$T/$name.out"
	check "$name: an argument was run as a command" \
	    test ! -e "$T/work/pwned" -a ! -e "$T/home/pwned"
	check "$name: the doctor's report" grep -q '^ddprank doctor: no check failed$' \
	    "$T/$name.out" || emu_show "$T/$name.out"
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
	    emu_show "$T/$name.out"
	check "$name: no training started" ! grep -q '^DDPTEST' "$T/$name.out"
	check "$name: ended in $secs s" test "$secs" -le 60
	echo "$name: ${secs} s"

	# --- the same with requeue: the rerun without node3 ------------------------
	# node3 never starts: the preflight names it (node2 reached node 0, so
	# node3 is to blame), ddprank verdict blames it, and the job submits
	# its continuation with a chunk more (PBS cannot keep a host out) and
	# node3 in its variables. The continuation is given node3 again,
	# among four hosts, and trains on the other three.
	jobid=$((jobid + 1))
	name=$launcher-leave
	sed 's/^requeue = false$/requeue = true/' "$conf" >"$T/emu-rq.conf"
	gen "$name" "$T/emu-rq.conf" -N 3 -n 1 "$T/work/train.py"
	touch "$PBS_HOME/down.node3"
	run_job "$name" "$jobid" "node1 node2 node3"
	expect_eq "$name: exit status" "$rc" 0 || emu_show "$T/$name.out"
	check "$name: says it reran" grep -q \
	    '^ddpgen job: the preflight failed on node3; continuation job 9999.pbs submitted without node3 (failure 1 of at most 3)$' \
	    "$T/$name.out" || emu_show "$T/$name.out"
	check "$name: no training started" ! grep -q '^DDPTEST' "$T/$name.out"
	tr '\0' '\n' <"$PBS_HOME/qsub.args.$jobid.pbs" >"$T/qsub.args"
	expect_eq "$name: the continuation's qsub" "$(cat "$T/qsub.args")" \
"-W
depend=afterany:$jobid.pbs
-l
select=4:system=polaris:mpiprocs=1
-v
DDPGEN_RESTART_BASE=1,DDPGEN_TIME_LIMITS=0,DDPGEN_LAST_STOP=preflight,DDPGEN_FAILS=1,DDPGEN_EXCLUDE='node3'
$PBS_HOME/mom_priv/jobs/$jobid.pbs.SC"
	echo "$name: ${secs} s"
	jobid=$((jobid + 1))
	rm -rf "$T/ranks"
	mkdir -p "$T/ranks"
	cp "$T/$name.sh" "$T/$name-cont.sh"
	# qsub -v's variables, its quotes taken off as qsub does.
	run_job "$name-cont" "$jobid" "node1 node3 node2 node4" \
	    DDPGEN_RESTART_BASE=1 DDPGEN_TIME_LIMITS=0 \
	    DDPGEN_LAST_STOP=preflight DDPGEN_FAILS=1 DDPGEN_EXCLUDE=node3 \
	    DDPTEST_DIR="$T/ranks"
	rm -f "$PBS_HOME/down.node3"
	expect_eq "$name-cont: exit status" "$rc" 0 ||
	    emu_show "$T/$name-cont.out"
	check "$name-cont: trained on node1, node2 and node4" python3 \
	    "$check_job" --nodes 3 --procs-per-node 1 \
	    --node-order "node1 node2 node4" "$T"/ranks/rank-*.txt ||
	    emu_show "$T/$name-cont.out"
	check "$name-cont: the node file gone" \
	    test -z "$(find "$T/home" -name '.ddpgen-nodes.*')"
	echo "$name-cont: ${secs} s"

	# --- a node that dies -------------------------------------------------------
	jobid=$((jobid + 1))
	name=$launcher-dies
	gen "$name" "$conf" -N 2 -n 2 "$T/work/train.py"
	run_job "$name" "$jobid" "node1 node2" DDPTEST_FAIL_NODE=1
	check "$name: failed" test "$rc" -ne 0 -a "$rc" -ne 124
	check "$name: the training says node 1 failed" \
	    grep -q 'rank [0-9]* on node 1: failing on request' "$T/$name.out" ||
	    emu_show "$T/$name.out"
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
expect_eq "$name: exit status" "$rc" 0 || emu_show "$T/$name.out"
check "$name: the workers got the signal" \
    grep -q 'train_resumable: rank [0-9] got signal' "$T/$name.out"
check "$name: a checkpoint" test -s "$T/work/ckpt.pt"
check "$name: the restart count reached the training" \
    grep -q 'restart 1, last stop time-limit' "$T/$name.out" ||
    emu_show "$T/$name.out"
check "$name: says it continued" grep -q \
    '^ddpgen job: time limit in 90 s: checkpoint signal sent to the training on 2 nodes; continuation job 9999.pbs submitted (restart 2 of at most 3)$' \
    "$T/$name.out" || emu_show "$T/$name.out"
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
expect_eq "$name: exit status" "$rc" 0 || emu_show "$T/$name.out"
check "$name: the workers got the signal" \
    grep -q 'train_resumable: rank [0-9] got signal' "$T/$name.out"
check "$name: a first run" \
    grep -q 'restart 0, last stop none' "$T/$name.out" || emu_show "$T/$name.out"
tr '\0' '\n' <"$PBS_HOME/qsub.args.$jobid.pbs" >"$T/qsub.args"
check "$name: the continuation's counts" grep -qx \
    'DDPGEN_RESTART_BASE=1,DDPGEN_TIME_LIMITS=1,DDPGEN_LAST_STOP=time-limit' \
    "$T/qsub.args"
expect_eq "$name: the continuation's directives" \
    "$(cat "$PBS_HOME/qsub.prefix.$jobid.pbs" 2>&1)" "#PBS"

jobid=$timer_max name=timer-max
run_wait "$name"
expect_eq "$name: exit status" "$rc" 124 || emu_show "$T/$name.out"
check "$name: says why" grep -q '^ddpgen job: time limit in 90 s: checkpoint signal sent to the training on 1 node; not continued: 3 time-limit continuations already (max_requeues = 3)$' \
    "$T/$name.out" || emu_show "$T/$name.out"
check "$name: no qsub" test ! -e "$PBS_HOME/qsub.args.$jobid.pbs"
finish
