#!/bin/sh
# t-hang-script.sh: what a generated Slurm script does after a stall or a
# failed preflight (ddpgen(1), HANGS AND BAD NODES), run by bash with
# stand-ins for srun, squeue, scontrol, sbatch and ddprank that log what
# they are asked: the verdict read, the requeue with the blamed nodes
# added to the job's ExcNodeList, the count of failures in the job's
# comment and its budget (max_failures, exit status 125), a partition
# with no node to spare (no rerun), a rerun with
# no node to blame, the continuation with --exclude where requeue is
# refused, a failure that was no stall, the next run's DDPGEN_LAST_STOP,
# and a job without requeue. t-e2e-hang.sh runs the same for real on a
# cluster; this one is fast and runs everywhere bash does.
. "$(dirname "$0")/lib.sh"

command -v bash >/dev/null || skip "no bash"
stub=$T/bin
mkdir -p "$stub"
# srun: the preflight exits $STUB_DOCTOR_RC, the training $STUB_TRAIN_RC
# (143: ended by a watcher), and each logs what ddprank would pass on.
cat >"$stub/srun" <<'STUB'
#!/bin/bash
case " $* " in *" doctor "*)
	echo "srun doctor $*" >>"$STUB_LOG"
	exit "${STUB_DOCTOR_RC:-0}" ;;
esac
echo "srun train base=$DDPGEN_RESTART_BASE last=$DDPGEN_LAST_STOP" >>"$STUB_LOG"
exit "${STUB_TRAIN_RC:-0}"
STUB
# ddprank verdict: STUB_VERDICT on standard output, its summary on
# standard error, as ddprank prints them.
cat >"$stub/ddprank" <<'STUB'
#!/bin/bash
[ "$1" = verdict ] || exit 0
echo "ddprank $*" >>"$STUB_LOG"
echo "ddprank: a summary line" >&2
echo "${STUB_VERDICT:-none}"
STUB
cat >"$stub/squeue" <<'STUB'
#!/bin/bash
echo "squeue $*" >>"$STUB_LOG"
case "$*" in *%k*) printf '%s\n' "${STUB_COMMENT:-(null)}" ;; esac
STUB
cat >"$stub/scontrol" <<'STUB'
#!/bin/bash
echo "scontrol $*" >>"$STUB_LOG"
case "$*" in
"-o show job"*) echo "JobId=7 Partition=${STUB_PART:-} ExcNodeList=${STUB_EXC:-(null)} X=1" ;;
"show hostnames"*) echo "$3" | tr , '\n' ;;
"show job"*) echo "   StdOut=/runs/out.txt" ;;
requeue*) exit "${STUB_REQUEUE_RC:-0}" ;;
esac
STUB
# sinfo: the partition's nodes that can run a job, STUB_SINFO.
cat >"$stub/sinfo" <<'STUB'
#!/bin/bash
echo "sinfo $*" >>"$STUB_LOG"
printf '%s\n' ${STUB_SINFO:-}
STUB
cat >"$stub/sbatch" <<'STUB'
#!/bin/bash
echo "sbatch $*" >>"$STUB_LOG"
echo 99
STUB
chmod +x "$stub"/*

gen() {
	"$DDPGEN" -N 2 -n 2 --ddprank "$stub/ddprank" "$@" train.py
}
check "ddpgen" gen --hang-timeout 30 >"$T/job.sh"
check "ddpgen without requeue" gen --hang-timeout 30 --no-requeue \
    >"$T/norq.sh"

# run NAME SCRIPT VAR=VALUE...: the job; sets RC, ERR (its standard
# error) and LOG (what the stand-ins were asked).
run() {
	name=$1 script=$2
	shift 2
	mkdir -p "$T/$name"
	(
		cd "$T/$name" || exit 1
		exec env PATH="$stub:$PATH" STUB_LOG="$T/$name/log" \
		    SLURM_JOB_ID=7 SLURM_JOB_NUM_NODES=2 SLURM_NNODES=2 "$@" \
		    bash "$script"
	) 2>"$T/$name/err"
	RC=$?
	ERR=$(cat "$T/$name/err")
	LOG=$(cat "$T/$name/log")
}

# A stall that names node3, in a job that already left out node9.
run hang "$T/job.sh" STUB_TRAIN_RC=143 STUB_VERDICT="hang node3" \
    STUB_EXC=node9
expect_eq "hang: status" "$RC" 0
expect_eq "hang: message" "$ERR" "ddprank: a summary line
ddpgen job: the training stalled on node3; requeued without node3 (failure 1 of at most 3)"
expect_has "hang: verdict" "ddprank verdict --site slurm --remember 86400" "$LOG"
expect_has "hang: state" "scontrol update jobid=7 Comment=ddpgen restart=1 limits=0 base=0 last=hang fails=1" "$LOG"
expect_has "hang: requeue" "scontrol requeue 7" "$LOG"
expect_has "hang: exclusion after the requeue" "scontrol requeue 7
scontrol update jobid=7 ExcNodeList=node9,node3" "$LOG"

# The partition has no node to spare: leaving node2 out would leave the
# job waiting for ever; it ends with the step's status.
run room "$T/job.sh" STUB_TRAIN_RC=143 STUB_VERDICT="hang node2" \
    STUB_PART=p STUB_SINFO="node1 node2"
expect_eq "room: status" "$RC" 143
expect_eq "room: message" "$ERR" "ddprank: a summary line
ddpgen job: the training stalled on node2; not rerun: its partition has 1 of the 2 nodes it needs outside node2"
expect_has "room: sinfo asked" "sinfo -h -N -p p -t idle,alloc,mix,comp -o %N" "$LOG"
expect_lacks "room: no requeue" "requeue" "$LOG"

# Its next run: the reason and the count cross.
run next "$T/job.sh" SLURM_RESTART_COUNT=1 \
    STUB_COMMENT='ddpgen restart=1 limits=0 base=0 last=hang fails=1'
expect_eq "next: status" "$RC" 0
expect_has "next: env" "srun train base=0 last=hang" "$LOG"
expect_lacks "next: no requeue" "requeue" "$LOG"

# The budget: max_failures (3) reruns already.
run budget "$T/job.sh" SLURM_RESTART_COUNT=3 STUB_TRAIN_RC=143 \
    STUB_VERDICT="hang node4" \
    STUB_COMMENT='ddpgen restart=3 limits=0 base=0 last=hang fails=3'
expect_eq "budget: status" "$RC" 125
expect_eq "budget: message" "$ERR" "ddprank: a summary line
ddpgen job: the training stalled; not rerun: 3 failures already (max_failures = 3)"
expect_lacks "budget: no requeue" "requeue" "$LOG"

# A stall with no node to blame: rerun as it is, counted.
run nobody "$T/job.sh" STUB_TRAIN_RC=143 STUB_VERDICT=hang
expect_eq "nobody: message" "$ERR" "ddprank: a summary line
ddpgen job: the training stalled; requeued (failure 1 of at most 3; no node to leave out)"
expect_lacks "nobody: no exclusion" "ExcNodeList=" "$LOG"

# Requeue refused: the continuation leaves the nodes out.
run cont "$T/job.sh" STUB_TRAIN_RC=143 STUB_VERDICT="hang node3" \
    STUB_REQUEUE_RC=1
expect_eq "cont: status" "$RC" 0
expect_has "cont: message" "ddpgen job: the training stalled on node3; requeue refused: continuation job 99 submitted (failure 1 of at most 3)" "$ERR"
expect_has "cont: sbatch" "--output=/runs/out.txt --exclude=node3 --comment=ddpgen restart=0 limits=0 base=1 last=hang fails=1 $T/job.sh" "$LOG"

# The preflight fails on node2: the training never starts.
run pre "$T/job.sh" STUB_DOCTOR_RC=8 STUB_VERDICT="preflight node2"
expect_eq "pre: status" "$RC" 0
expect_eq "pre: message" "$ERR" "ddprank: a summary line
ddpgen job: the preflight failed on node2; requeued without node2 (failure 1 of at most 3)"
expect_has "pre: doctor records" "--record" "$LOG"
expect_lacks "pre: no training" "srun train" "$LOG"
expect_has "pre: state" "last=preflight fails=1" "$LOG"

# A failure that was no stall: the job ends with the training's status.
run other "$T/job.sh" STUB_TRAIN_RC=3
expect_eq "other: status" "$RC" 3
expect_lacks "other: no requeue" "requeue" "$LOG"
expect_has "other: verdict asked" "ddprank verdict" "$LOG"

# Without requeue: the verdict's line, then the step's status.
run norq "$T/norq.sh" STUB_TRAIN_RC=143 STUB_VERDICT="hang node3"
expect_eq "norq: status" "$RC" 143
expect_eq "norq: message" "$ERR" "ddprank: a summary line"
expect_lacks "norq: no requeue" "requeue" "$LOG"
expect_lacks "norq: doctor does not record" "--record" "$LOG"

# A hostile comment neither runs nor counts.
run hostile "$T/job.sh" SLURM_RESTART_COUNT=1 STUB_TRAIN_RC=143 \
    STUB_VERDICT="hang node3" \
    STUB_COMMENT='ddpgen restart=1 fails=$(touch pwned) fails=-1 last=x'
expect_has "hostile: counted from 0" "last=hang fails=1" "$LOG"
check "hostile: a comment ran code" ! ls "$T"/hostile/pwned 2>/dev/null
finish
