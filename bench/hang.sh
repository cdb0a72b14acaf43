#!/bin/sh
# bench/hang.sh: what the stall limit costs a training (bench/README.md).
#   1. one beat, the contract's pathlib.Path(DIR, RANK).touch(), in
#      microseconds (median of 20 rounds of 2,000), and as a share of a
#      100 ms step;
#   2. 200 steps of a 100 ms busy step, with and without the beat, under
#      ddprank exec --hang-timeout, three rounds of each in turn: the
#      median of each round, and the difference of their medians;
#   3. the watcher's own CPU time (its /proc look once a second) over a
#      training of 8 workers that beat every 100 ms for 30 s.
# The times from a stall to the job's end and from the end to the rerun
# running come from the cluster test: t-e2e-hang.sh's TIME lines; the
# last line puts the first beside what a user has without the limit,
# NCCL's watchdog (torch's default process-group timeout, 10 minutes).
# Run it on a quiet machine: a busy one's step times vary by more than
# the beat costs.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
ddprank=$here/ddprank
[ -x "$ddprank" ] || { echo "bench/hang.sh: build first (make)" >&2; exit 1; }
py=${PYTHON:-python3}
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-hang.XXXXXX")
trap 'rm -rf "$T"' EXIT
hostname >"$T/hosts"

echo "1. one beat"
"$py" - "$T" <<'EOF'
import os, pathlib, statistics, sys, time
d = pathlib.Path(sys.argv[1], "beat")
d.mkdir()
f = pathlib.Path(d, "0")
rounds = []
for _ in range(20):
    t = time.perf_counter()
    for _ in range(2000):
        f.touch()
    rounds.append((time.perf_counter() - t) / 2000)
m = statistics.median(rounds)
print(f"   {m * 1e6:.1f} us a beat, {m / 0.1 * 100:.4f} % of a 100 ms step")
EOF

# A worker: STEPS busy steps of 100 ms, beating or not; prints the
# median step time. The launcher starts N of them and waits.
cat >"$T/worker.py" <<'EOF'
import os, pathlib, statistics, sys, time
steps, beat = int(sys.argv[1]), sys.argv[2] == "1"
hb = os.environ.get("DDPGEN_HEARTBEAT") if beat else None
times = []
for _ in range(steps):
    t = time.perf_counter()
    while time.perf_counter() - t < 0.1:
        pass
    if hb:
        pathlib.Path(hb, os.environ["RANK"]).touch()
    times.append(time.perf_counter() - t)
if os.environ["RANK"] == "0":
    print(f"{statistics.median(times) * 1e3:.4f}")
EOF
cat >"$T/launcher.py" <<'EOF'
import os, subprocess, sys
n, steps, beat = int(sys.argv[1]), sys.argv[2], sys.argv[3]
here = os.path.dirname(os.path.abspath(__file__))
ps = [subprocess.Popen([sys.executable, os.path.join(here, "worker.py"),
                        steps, beat], env=dict(os.environ, RANK=str(r),
                                               LOCAL_RANK=str(r)))
      for r in range(n)]
# The watcher: the other process running ddprank exec's image.
me, cpu = os.getpid(), 0
for p in ps:
    p.wait()
for pid in os.listdir("/proc"):
    if not pid.isdigit() or int(pid) == me:
        continue
    try:
        cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        continue
    if cmd[0].endswith(b"/ddprank") and b"exec" in cmd and \
            os.environ.get("BENCH_TAG", "").encode() in cmd:
        cpu += int(stat[11]) + int(stat[12])
if os.environ.get("BENCH_WATCHER"):
    print(f"watcher {cpu / os.sysconf('SC_CLK_TCK'):.3f}")
EOF
run() {
	SLURM_JOB_ID=1 XDG_STATE_HOME=$T/state BENCH_TAG=$T \
	    DDPRANK_TIMELINE_WAIT=0 "$ddprank" exec \
	    --hostfile "$T/hosts" --port 1 --hang-timeout 60 -- \
	    "$py" "$T/launcher.py" "$@" "$T"
}
echo "2. a 100 ms step, median of 200, one worker, three rounds each"
without='' with=''
for _ in 1 2 3; do
	without="$without $(run 1 200 0 | tail -n 1)"
	with="$with $(run 1 200 1 | tail -n 1)"
done
echo "   without the beat:$without ms"
echo "   with it:         $with ms"
"$py" -c "import statistics, sys
a = statistics.median(map(float, sys.argv[1].split()))
b = statistics.median(map(float, sys.argv[2].split()))
print(f'   difference of the medians {(b - a) * 1e3:.1f} us, '
      f'{(b - a) / a * 100:.3f} % of the step')" "$without" "$with"
echo "3. the watcher's CPU over 30 s of 8 beating workers"
BENCH_WATCHER=1 run 8 300 1 | grep '^watcher' |
    sed 's/^watcher \(.*\)/   \1 s of CPU in 30 s/'
echo "4. a stall to the job's requeue (t-e2e-hang.sh's hang case, hang_timeout 10)"
log=$here/test/tmp/t-e2e-hang.sh.log
stall=$(sed -n 's/^TIME: hang: fault -> job requeued: \([0-9.]*\) s$/\1/p' \
    "$log" 2>/dev/null | tail -n 1)
if [ -n "$stall" ]; then
	echo "   $stall s, from $log; NCCL's watchdog alone: 600 s;" \
	    "ratio $("$py" -c "print(f'{$stall / 600:.3f}')")"
else
	echo "   no figure: run the cluster test first" \
	    "(sh test/run-tests.sh test/t-e2e-hang.sh)"
fi
