#!/bin/sh
# t-requeue-script.sh: the long-training logic of a generated Slurm script
# (ddpgen(1), LONG TRAININGS), run by bash with stand-ins for srun,
# squeue, scontrol, scancel and sbatch that log what they are asked: the
# trap, the state read from the job's comment (also a hostile one), the
# requeue, the continuation where requeue is refused, max_requeues, a
# preemption, an array task, a training that fails after the warning.
# t-e2e-requeue.sh runs the same for real on a cluster; this one is fast
# and runs everywhere bash does.
. "$(dirname "$0")/lib.sh"
. "$srcdir/test/emu/lib.sh"

# The stand-ins of test/emu/slurm-stub in $stub; srun's is ddprank too.
emu_stubs slurm
cp "$stub/srun" "$T/ddprank"

check "ddpgen" "$DDPGEN" -N 2 -n 2 --ddprank "$T/ddprank" train.py >"$T/job.sh"

# run NAME VAR=VALUE...: the job with the warning after its start; sets
# RC, ERR (its stderr) and LOG (what the stand-ins were asked).
run() {
	name=$1
	shift
	STUB_DIR=$T/$name
	mkdir -p "$STUB_DIR"
	rm -f "$STUB_DIR/srun.pid"
	(
		cd "$STUB_DIR" || exit 1
		exec env PATH="$stub:$PATH" STUB_DIR="$STUB_DIR" \
		    STUB_LOG="$STUB_DIR/log" SLURM_JOB_ID=7 \
		    SLURM_JOB_NUM_NODES=2 SLURM_NNODES=2 "$@" bash "$T/job.sh"
	) 2>"$STUB_DIR/err" &
	job=$!
	i=0
	while [ ! -s "$STUB_DIR/srun.pid" ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	# The subshell exec'd env, which exec'd the batch shell: same pid.
	kill -USR2 "$job"
	wait "$job"
	RC=$?
	ERR=$(cat "$STUB_DIR/err")
	LOG=$(cat "$STUB_DIR/log")
}

run first
expect_eq "first: status" "$RC" 0
expect_eq "first: message" "$ERR" "ddpgen job: time limit in 118 s: checkpoint signal sent to 4 processes on 2 nodes; requeued (restart 1 of at most 3)"
expect_has "first: signal" "scancel --signal=USR2 7" "$LOG"
expect_has "first: state" "scontrol update jobid=7 Comment=ddpgen restart=1 limits=1 base=0 last=time-limit" "$LOG"
expect_has "first: requeue" "scontrol requeue 7" "$LOG"
expect_has "first: env" "srun env base=0 last=none sig=USR2" "$LOG"
expect_lacks "first: no state to read" "%k" "$LOG"

# The fourth warning: max_requeues (3) reached.
run limit SLURM_RESTART_COUNT=3 \
    STUB_COMMENT='ddpgen restart=3 limits=3 base=0 last=time-limit'
expect_eq "limit: status" "$RC" 124
expect_eq "limit: message" "$ERR" "ddpgen job: time limit in 118 s: checkpoint signal sent to 4 processes on 2 nodes; not requeued: 3 time-limit requeues already (max_requeues = 3)"
expect_lacks "limit: no requeue" "requeue" "$LOG"
expect_has "limit: env" "srun env base=0 last=time-limit" "$LOG"

# Requeue refused: the continuation, with the state in its comment and
# neither the restart count nor the array job id in its environment.
run cont STUB_REQUEUE_RC=1 SLURM_RESTART_COUNT=1 SLURM_ARRAY_JOB_ID=5 \
    SLURM_ARRAY_TASK_ID=2 \
    STUB_COMMENT='ddpgen restart=1 limits=1 base=0 last=time-limit'
expect_eq "cont: status" "$RC" 0
expect_eq "cont: message" "$ERR" "ddpgen job: time limit in 118 s: checkpoint signal sent to 4 processes on 2 nodes; requeue refused: continuation job 99 submitted (restart 2 of at most 3)"
expect_has "cont: array id" "scontrol requeue 5_2" "$LOG"
expect_has "cont: sbatch" "sbatch restart_count=unset array=unset task=2 cpus=unset conf=unset secret=unset inx=unset continued=1 --parsable --export=ALL,DDPGEN_CONTINUED=1 --dependency=afterany:7 --open-mode=append --output=/runs/my out.txt --comment=ddpgen restart=0 limits=2 base=2 last=time-limit fails=0 $T/job.sh" "$LOG"

# The same under SBATCH_EXPORT=NONE, from the user's shell or a setup
# line, with an array and a wait asked of sbatch, and SLURM_* variables
# left from the submission (sbatch -c 4): the continuation still knows
# itself, is one job, and gets no SLURM_* but SLURM_CONF.
run contnone STUB_REQUEUE_RC=1 SLURM_RESTART_COUNT=1 SBATCH_EXPORT=NONE \
    SBATCH_ARRAY_INX=1-4 SBATCH_WAIT=1 SLURM_CPUS_PER_TASK=4 \
    SLURM_TRES_PER_TASK=cpu:4 SLURM_CONF=/etc/slurm/x.conf \
    STUB_COMMENT='ddpgen restart=1 limits=1 base=0 last=time-limit'
expect_eq "contnone: status" "$RC" 0
expect_has "contnone: sbatch" "sbatch restart_count=unset array=unset task=unset cpus=unset conf=/etc/slurm/x.conf secret=unset inx=unset continued=1 --parsable --export=ALL,DDPGEN_CONTINUED=1 --dependency=afterany:7 " "$LOG"

# The job's own squeue, scontrol and scancel run without the options
# the environment gives them: the state is still read.
run ambient SLURM_RESTART_COUNT=1 SQUEUE_PARTITION=other SQUEUE_STATES=PD \
    SCANCEL_INTERACTIVE=1 SLURM_TIME_FORMAT=relative \
    STUB_COMMENT='ddpgen restart=1 limits=1 base=0 last=time-limit'
expect_has "ambient: state" "Comment=ddpgen restart=2 limits=2 base=0 last=time-limit" "$LOG"
expect_has "ambient: env" "srun env base=0 last=time-limit" "$LOG"

# A continuation's first run: the base and the reason from its comment.
run contrun DDPGEN_CONTINUED=1 \
    STUB_COMMENT='ddpgen restart=0 limits=2 base=2 last=time-limit'
expect_has "contrun: env" "srun env base=2 last=time-limit" "$LOG"
expect_has "contrun: state" "Comment=ddpgen restart=1 limits=3 base=2 last=time-limit" "$LOG"

# Preemption: not counted against max_requeues.
run pre STUB_PREEMPT=2026-12-01T10:00:00 SLURM_RESTART_COUNT=3 \
    STUB_COMMENT='ddpgen restart=3 limits=3 base=0 last=time-limit'
expect_eq "pre: status" "$RC" 0
expect_eq "pre: message" "$ERR" "ddpgen job: preemption: checkpoint signal sent to 4 processes on 2 nodes; requeued (restart 4; preemptions are not counted)"
expect_has "pre: state" "Comment=ddpgen restart=4 limits=3 base=0 last=preemption" "$LOG"

# Requeued by Slurm (a node failure): the count is not the one the comment
# expects.
run nodefail SLURM_RESTART_COUNT=2 \
    STUB_COMMENT='ddpgen restart=1 limits=1 base=0 last=time-limit'
expect_has "nodefail: env" "srun env base=0 last=requeued" "$LOG"

# A hostile comment (the owner's own --comment) neither runs nor counts.
run hostile SLURM_RESTART_COUNT=1 \
    STUB_COMMENT='ddpgen restart=$(touch pwned) limits=1e9 base=-1 last=../x restart=01 `touch pwned2`'
expect_eq "hostile: status" "$RC" 0
expect_has "hostile: env" "srun env base=0 last=requeued" "$LOG"
expect_has "hostile: state" "Comment=ddpgen restart=2 limits=1 base=0 last=time-limit" "$LOG"
check "hostile: a comment ran code" ! ls "$T"/hostile/pwned* 2>/dev/null

# One process on one node.
run one SLURM_JOB_NUM_NODES=1 SLURM_NNODES=1
expect_has "one: message" "sent to 2 processes on 1 node;" "$ERR"

# The training fails after the warning: no requeue, its status.
run failed STUB_TRAIN_RC=3
expect_eq "failed: status" "$RC" 3
expect_eq "failed: message" "$ERR" "ddpgen job: time limit in 118 s: checkpoint signal sent to 4 processes on 2 nodes; the training exited with status 3: not requeued"
expect_lacks "failed: no requeue" "requeue" "$LOG"
# A job no longer than the lead is not carried on, and ddpgen says so;
# asked for explicitly, it is an error.
out=$("$DDPGEN" -N 2 -t 2 --ddprank "$T/ddprank" train.py 2>"$T/short.err")
expect_eq "short: status" "$?" 0
expect_lacks "short: no requeue" "#SBATCH --requeue" "$out"
expect_eq "short: warning" "$(cat "$T/short.err")" "ddpgen: warning: time limit '2' is not longer than signal_lead (120 s): the job is not requeued"
"$DDPGEN" -N 2 -t 2 --requeue --ddprank "$T/ddprank" train.py \
    >/dev/null 2>"$T/short.err"
expect_eq "short --requeue: status" "$?" 2
expect_eq "short --requeue: message" "$(cat "$T/short.err")" "ddpgen: signal_lead: 120 s is not shorter than the time limit '2'"
finish
