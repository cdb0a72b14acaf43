#!/bin/sh
# t-security-ports.sh: the port race of issue 22's review, on the
# namespace Slurm cluster (test/cluster), between two real users made
# here (as root) and removed at the end. The victim submits a generated
# two-node job with the preflight, with sbatch, as itself; the attacker,
# on the job's first node (its network namespace), watches what another
# user can see: /proc/net/tcp and tcp6, whose uid column names the
# victim's listeners, and the job's output, which Slurm creates 0644.
# The training port derives from the job's secret; the attacker must
# not learn it before the training binds it: no listener of the
# victim's is on it while the doctor runs, and no line the doctor
# prints names it. Today's doctor listened on the training's port and
# printed it on the output's first line, seconds before torchrun bound
# it (whoever took it then had the rendezvous, and with c10d code
# execution in the job; t-c10d-shared.sh covers c10d's refusal).

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

need_cluster sbatch timeout
need_progs useradd userdel runuser
need_torchrun
need_built ddpgen ddprank
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

# The users run what is in T: not under a root's clone in /root (0700).
public_scratch
cluster_up 2 eth3
eval "$("$srcdir/test/cluster/cluster.sh" env)"

victim=ddppv$$
attacker=ddppa$$
# shellcheck disable=SC2016 # expanded at exit
on_exit 'userdel -f "$victim" >/dev/null 2>&1; userdel -f "$attacker" >/dev/null 2>&1'
check "useradd $victim" useradd -M -d "$T/vjob" -s /bin/sh "$victim" || finish
check "useradd $attacker" useradd -M -d "$T/ahome" -s /bin/sh "$attacker" ||
	finish
vuid=$(id -u "$victim")

# The victim's job directory, readable by others as a home or project
# directory often is; ddprank where every user can run it.
mkdir -p "$T/bin" "$T/vjob/ranks" "$T/vjob/tmp" "$T/ahome"
cp "$DDPRANK" "$T/bin/ddprank"
# With the legacy-store hook beside it, as in a build tree (ddprank(1),
# LIBUV): Debian 13's torch needs it.
mkdir -p "$T/bin/python"
cp "$srcdir/python/sitecustomize.py" "$T/bin/python/"
chmod 0755 "$T/bin" "$T/bin/ddprank" "$T/bin/python"
chmod 0644 "$T/bin/python/sitecustomize.py"
cp "$srcdir/test/train.py" "$T/vjob/train.py"
DDPGEN_PROFILE_PATH=$srcdir/test/e2e:$srcdir/profiles \
DDPGEN_TEMPLATE_PATH=$srcdir/templates \
    "$DDPGEN" -s e2e-slurm -N 2 -t 10 --no-requeue --ddprank "$T/bin/ddprank" \
    -o "$T/vjob/job.sh" train.py 2>"$T/ddpgen.err"
expect_eq "ddpgen: $(cat "$T/ddpgen.err")" "$?" 0
check "the job has no preflight" grep -q " doctor " "$T/vjob/job.sh"
chown -R "$victim:" "$T/vjob"
chmod 0755 "$T/vjob"
chown "$attacker:" "$T/ahome"
chmod 0700 "$T/ahome"

# The attacker's watch, on node1: every listener of the victim's uid when
# first seen, and whether a ddprank doctor of the victim's was running
# then; every line of the job's output when first read. Until the stop
# file appears.
cat >"$T/watch.py" <<'EOF'
import glob, os, sys, time

uid, outdir, log, stop = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]


def listeners():
    found = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            w = line.split()
            if w[3] == "0A" and int(w[7]) == uid:
                found.add(int(w[1].rsplit(":", 1)[1], 16))
    return found


def doctor_alive():
    for d in glob.glob("/proc/[0-9]*"):
        try:
            if os.stat(d).st_uid != uid:
                continue
            with open(d + "/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if len(argv) > 1 and argv[0].endswith(b"ddprank") and \
                argv[1] == b"doctor":
            return True
    return False


seen, lines = set(), 0
with open(log, "w", buffering=1) as out:
    while not os.path.exists(stop):
        for port in listeners() - seen:
            seen.add(port)
            out.write("listen %d %s\n" % (port, "doctor" if doctor_alive()
                                          else "-"))
        for path in glob.glob(os.path.join(outdir, "ddp-*.out")):
            try:
                with open(path) as f:
                    text = f.read().splitlines()
            except OSError:
                continue
            for line in text[lines:]:
                out.write("output %s\n" % line)
            lines = max(lines, len(text))
        time.sleep(0.002)
EOF
chmod 0644 "$T/watch.py"
nsenter --net="/run/netns/ddp$ID-node1" runuser -u "$attacker" -- \
    env -i PATH=/usr/bin:/bin "$PY" "$T/watch.py" "$vuid" "$T/vjob" \
    "$T/ahome/watch.log" "$T/stop" &
watcher=$!
# shellcheck disable=SC2016 # expanded at exit
on_exit 'touch "$T/stop"; kill "$watcher" 2>/dev/null'
i=0
while [ ! -e "$T/ahome/watch.log" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done

# The victim submits, as itself.
runuser -u "$victim" -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    HOME="$T/vjob" SLURM_CONF="$SLURM_CONF" PYTHONPATH="$PYTHONPATH" \
    TMPDIR="$T/vjob/tmp" DDPTEST_DIR="$T/vjob/ranks" \
    sh -c 'cd "$1" && exec timeout 300 sbatch --parsable --wait \
    -w node1,node2 job.sh' sh "$T/vjob" >"$T/sbatch.out" 2>"$T/sbatch.err"
rc=$?
touch "$T/stop"
wait "$watcher"
jobid=$(sed -n '1{s/;.*//;p;}' "$T/sbatch.out")
out=$T/vjob/ddp-$jobid.out
expect_eq "the job's status: $(cat "$T/sbatch.err" "$out" 2>/dev/null)" "$rc" 0

port=$(cat "$T/vjob/ranks"/* 2>/dev/null |
    sed -n 's/.*"MASTER_PORT": "\([0-9]*\)".*/\1/p' | sort -u)
n=$(cat "$T/vjob/ranks"/* 2>/dev/null | grep -c "\"MASTER_PORT\": \"$port\"")
check "4 ranks should train on one port [$port], $n do" test "$n" = 4
[ -n "$port" ] || finish
sed 's/^/    /' "$T/ahome/watch.log"

# What the attacker learnt while the doctor ran: its listeners, and the
# doctor's lines of the output (every line before the training's).
check "the doctor listened on the training's port $port" \
    ! grep -qx "listen $port doctor" "$T/ahome/watch.log"
check "the doctor's output names the training's port $port" \
    ! grep -E "^output (ddprank doctor:|PASS|WARN|FAIL).*\<$port\>" \
    "$T/ahome/watch.log"
check "the doctor's report is not in the output" \
    grep -q "^output ddprank doctor: no check failed$" "$T/ahome/watch.log"
# The doctor's own listener, when the watch caught it (it lives only
# until the other node has reported): another port.
doc=$(sed -n 's/^listen \([0-9]*\) doctor$/\1/p' "$T/ahome/watch.log" |
    head -n 1)
echo "INFO: the doctor's listener seen: [${doc:-none}], the training's port $port"
finish
