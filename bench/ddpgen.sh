#!/bin/sh
# bench/ddpgen.sh: whole-process time of ddpgen generating a job for each
# shipped profile (median of many runs, with hyperfine), against the
# target of 5 ms. Run by hand from the build tree: sh bench/ddpgen.sh
set -eu
cd "$(dirname "$0")/.."
[ -x ./ddpgen ] || { echo "build first: ./configure && make" >&2; exit 1; }
command -v hyperfine >/dev/null ||
    { echo "needs hyperfine (Debian package hyperfine)" >&2; exit 1; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for site in cori plmt slurm hpcpack; do
	hyperfine -N --warmup 20 --runs 500 --export-json "$out/$site.json" \
	    "./ddpgen --site $site --nodes 4 --ddprank /opt/ddpgen/bin/ddprank train.py --epochs 3" \
	    >/dev/null 2>&1
done
printf '%-8s %10s %10s %10s\n' site median_ms mean_ms max_ms
for site in cori plmt slurm hpcpack; do
	python3 - "$out/$site.json" "$site" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print("%-8s %10.2f %10.2f %10.2f" % (sys.argv[2], r["median"] * 1e3,
      r["mean"] * 1e3, r["max"] * 1e3))
PY
done
echo "target: median under 5 ms per job"
