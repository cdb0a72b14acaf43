#!/bin/sh
# t-e2e-container.sh: a real 2-node training in a container on the
# namespace Slurm cluster of test/cluster. Charliecloud (Debian's
# charliecloud-runtime) runs it from a directory image assembled here:
# the machine's /usr (torch, torchrun, python) bind-mounted, a copy of
# what /etc the loader needs. ddprank runs outside and execs ch-run per
# node ("container = charliecloud", ddpgen-profile(5)); check_job.py then
# checks world size, every rank once, parameters in sync and argv byte
# for byte, as t-e2e-slurm.sh does, and each rank's environment shows it
# ran inside ch-run (CH_RUNNING) with what ddprank set for torchrun.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

need_progs ch-run
cluster=$srcdir/test/cluster/cluster.sh
check_job=$srcdir/test/cluster/check_job.py
. "$srcdir/test/cluster/e2e-lib.sh"

# --- the image: a root directory with the host's /usr ------------------------------
# ch-run mounts /dev, /proc, /sys, /tmp, /etc/hosts, /etc/resolv.conf,
# /etc/passwd and /etc/group over what the image has (ch-run(1),
# "Bind-mounting"); the loader needs its cache and the alternatives
# links (libblas.so.3 is one).
img=$T/image
mkdir -p "$img/usr" "$img/dev" "$img/proc" "$img/sys" "$img/tmp" \
    "$img/home" "$img/mnt" "$img/run" "$img/var/tmp" "$img/root" \
    "$img/etc" "$img$srcdir"
for l in bin lib lib64 sbin; do
	[ ! -e "/$l" ] || ln -s "usr/$l" "$img/$l"
done
cp -a /etc/alternatives /etc/ld.so.cache /etc/ld.so.conf \
    /etc/ld.so.conf.d "$img/etc/"
for f in passwd group hosts resolv.conf nsswitch.conf; do
	[ ! -e "/etc/$f" ] || cp "/etc/$f" "$img/etc/$f"
	[ -e "$img/etc/$f" ] || : >"$img/etc/$f"
done
# ch-run needs $USER, which a batch job may lack.
: "${USER:=$(id -un)}"
export USER

# The test profile: the generic one, in the image, with the checkout
# (training script, sitecustomize.py, the job directories) mounted. ch-run
# binds the host's $TMPDIR (the cluster's, see cluster.sh env) at /tmp,
# and no mount can be made below that bind ("can't mkdir ... under
# existing bind-mount"): a checkout under /tmp is reached through /tmp
# itself, with the jobs' TMPDIR set to /tmp (tmp_jobs, after e2e_up).
case $srcdir/ in
/tmp/*)	mounts='"/usr"' tmp_jobs=1 ;;
*)	mounts="\"/usr\", \"$srcdir\"" tmp_jobs= ;;
esac
mkdir -p "$T/profiles"
cat >"$T/profiles/e2e-charliecloud.conf" <<CONF
description = "test: slurm and charliecloud on the test cluster"
extends = "e2e-slurm"
container = charliecloud
image = "$img"
container_mounts = {$mounts}
CONF
DDPGEN_PROFILE_PATH=$T/profiles:$DDPGEN_PROFILE_PATH

# Arguments that break naive quoting cross ch-run byte for byte.
nl=$(printf 'line1\nline2')
with_args() {
	"$@" --epochs=2 'two  words' '' '$(touch pwned)' "it's \"q\" \\b\\" \
	    '*' "$nl" -- --nnodes=7 '-h' '${PATH}' ';' '\' "'" '"'
}
with_args printf '%s\0' >"$T/argv"

# The checkpoint signal: ddprank exec starts the runtime with it
# ignored, and ch-run's command keeps it so (ddpgen-profile(5)).
# sigign: the SigIgn mask of a shell in the image, through ddprank exec.
sigign() {
	env -i USER="$USER" PATH=/usr/bin:/bin DDPGEN_CHECKPOINT_SIGNAL=USR2 \
	    SLURM_JOB_NODELIST="$(hostname)" MASTER_ADDR=127.0.0.1 "$DDPRANK" \
	    exec --port 29555 -- ch-run -b /usr:/usr "$img" -- /bin/sh -c \
	    'sed -n "s/^SigIgn:[[:space:]]*//p" /proc/self/status'
}
mask=$(sigign 2>"$T/sigign.err")
check "ddprank exec ch-run: $(cat "$T/sigign.err")" test -n "$mask"
expect_eq "USR2 ignored in the container" \
    "$(python3 -c 'import sys; print((int(sys.argv[1], 16) >> 11) & 1)' \
    "${mask:-0}")" 1

# The stall limit through ch-run, with TMPDIR set, which ch-run binds at
# the container's /tmp: a worker inside keeps the contract for three
# beats, then stops. ddprank, outside, reads its beats where it writes
# them, names it, takes its stacks and ends it. RANK is set by hand: no
# launcher but python.
mkdir -p "$T/hangtmp"
case $srcdir/ in
/tmp/*)	hang_bind= ;;
*)	hang_bind="-b $srcdir:$srcdir" ;;
esac
# shellcheck disable=SC2086 # hang_bind: two words or none
env -i USER="$USER" PATH=/usr/bin:/bin TMPDIR="$T/hangtmp" HOME="$T" \
    XDG_STATE_HOME="$T/state" SLURM_JOB_ID=99 \
    SLURM_JOB_NODELIST="$(hostname)" MASTER_ADDR=127.0.0.1 \
    DDPRANK_TIMELINE_WAIT=0 timeout 120 "$DDPRANK" exec --port 29556 \
    --hang-timeout 3 -- ch-run -b /usr:/usr $hang_bind "$img" -- \
    /usr/bin/env RANK=0 /usr/bin/python3 -c 'import os, pathlib, time
beat = pathlib.Path(os.environ["DDPGEN_HEARTBEAT"], os.environ["RANK"])
for i in range(3):
    beat.touch()
    time.sleep(0.5)
def stuck_in_the_container():
    time.sleep(600)
stuck_in_the_container()' >"$T/hang.out" 2>"$T/hang.err"
hang_rc=$?
check "ch-run stall: ended, not timed out ($hang_rc)" \
    test "$hang_rc" -ne 0 -a "$hang_rc" -ne 124
check "ch-run stall: named: $(cat "$T/hang.err")" grep -q \
    "rank 0 has not beaten for [0-9]* s (the stall limit is 3 s)" "$T/hang.err"
check "ch-run stall: its stacks" grep -q \
    "rank 0:   File .*line [0-9]* in stuck_in_the_container" "$T/hang.err"
# The watcher removes them once the launcher has ended: a moment later.
i=0
while [ -n "$(ls "$T/hangtmp")" ] && [ "$i" -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "ch-run stall: both heartbeat directories removed" \
    test -z "$(ls "$T/hangtmp")"

e2e_up 2
[ -z "$tmp_jobs" ] || TMPDIR=/tmp

# --- charliecloud: hostname discovery, static rendezvous ----------------------------
if with_args gen charliecloud -s e2e-charliecloud -N 2 -t 6 \
    "$srcdir/test/train.py" && submit charliecloud 180; then
	check "charliecloud: the node command runs ch-run" \
	    grep -q '^	ch-run -b /usr:/usr ' "$T/charliecloud/job.sh"
	expect_job charliecloud 2 2 hostname static ddp "$T/argv" \
	    --expect-env "CH_RUNNING=Weird Al Yankovic" \
	    --expect-env "PET_NNODES=2"
fi

e2e_down
finish
