#!/bin/sh
# bench/hostlist.sh: expanding big Slurm node lists with `ddprank hosts`,
# `scontrol show hostnames` and ClusterShell's `nodeset -e` side by side
# (median times and ratios), then the time and peak memory of finding this
# node's rank in a list of a million hosts. Run by hand from the build
# tree: sh bench/hostlist.sh   (see bench/README.md)
set -eu
cd "$(dirname "$0")/.."
[ -x ./ddprank ] || { echo "build first: ./configure && make" >&2; exit 1; }
need() {
	command -v "$1" >/dev/null 2>&1 ||
	    { echo "needs $1 (Debian package $2)" >&2; exit 1; }
}
need hyperfine hyperfine
need scontrol slurm-client
need nodeset clustershell
need python3 python3
need unshare util-linux
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 1; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# A private copy: a rebuild in the tree must not hit a run half-way.
cp ./ddprank "$out/ddprank"
ddprank=$out/ddprank

# scontrol needs a configuration even to expand a string.
cat >"$out/slurm.conf" <<'EOF'
ClusterName=bench
SlurmctldHost=localhost
NodeName=n1 CPUs=1 State=UNKNOWN
PartitionName=p Nodes=n1 Default=YES
EOF
SLURM_CONF=$out/slurm.conf
export SLURM_CONF

# A scattered allocation, as Slurm writes it for a busy machine: runs of
# 1..2*AVG hosts with gaps of 1..4, until N hosts (fixed seed).
fragmented() {
	awk -v n="$1" -v avg="$2" 'BEGIN {
		state = 7; h = 1; s = ""; left = n
		while (left > 0) {
			state = (state * 48271) % 2147483647
			len = 1 + int(state / 2147483647 * 2 * avg)
			if (len > left) len = left
			s = s (s == "" ? "" : ",") sprintf("%06d", h)
			if (len > 1) s = s "-" sprintf("%06d", h + len - 1)
			left -= len
			state = (state * 48271) % 2147483647
			h += len + 1 + int(state / 2147483647 * 4)
		}
		print "nid[" s "]"
	}'
}

# Slurm refuses a range of more than 65,536 hosts, hence three ranges.
set -- \
    "10k contiguous" "nid[000001-010000]" \
    "10k fragmented" "$(fragmented 10000 20)" \
    "10k mixed" "nid[000001-004000],gpu[0001-1000]-[1-4],cpu[0001-2000]" \
    "180k contiguous" \
	"nid[000001-060000],nid[060001-120000],nid[120001-180000]" \
    "180k fragmented" "$(fragmented 180000 60)" \
    "180k 2-D" "rack[01-90]-node[0001-2000]"

i=0
: >"$out/table"
while [ $# -gt 0 ]; do
	name=$1 list=$2
	shift 2
	i=$((i + 1))
	n=$("$ddprank" hosts "$list" | wc -l)
	s=$(scontrol show hostnames "$list" | wc -l)
	c=$(nodeset -c "$list")
	if [ "$n" -ne "$s" ] || [ "$n" -ne "$c" ]; then
		echo "$name: ddprank $n, scontrol $s, nodeset $c hosts" >&2
		exit 1
	fi
	echo "$name: $n hosts, expression of ${#list} bytes" >&2
	hyperfine -N --warmup 2 --min-runs 10 --export-json "$out/$i.json" \
	    "$ddprank hosts '$list'" \
	    "scontrol show hostnames '$list'" \
	    "nodeset -e '$list'" >/dev/null
	printf '%s\t%s\t%s\n' "$name" "$n" "$out/$i.json" >>"$out/table"
done

python3 - "$out/table" <<'PY'
import json, sys
print("%-16s %7s %9s %9s %9s %9s %9s" % ("list", "hosts", "ddprank",
      "scontrol", "nodeset", "scontrol/", "nodeset/"))
print("%-16s %7s %9s %9s %9s %9s %9s" % ("", "", "ms", "ms", "ms",
      "ddprank", "ddprank"))
for line in open(sys.argv[1]):
    name, n, path = line.rstrip("\n").split("\t")
    d, s, c = (r["median"] * 1e3 for r in json.load(open(path))["results"])
    print("%-16s %7s %9.2f %9.2f %9.2f %8.1fx %8.1fx" % (name, n, d, s, c,
          s / d, c / d))
PY

# This node's rank in a list of a million hosts, as on every node of a
# job: ddprank env reads the host name, so each run gets its own UTS
# namespace with the name of a host in the middle of the list.
# MASTER_ADDR is given because nid0000001 does not resolve here.
if [ "$(id -u)" -eq 0 ]; then
	ns="unshare --uts"
else
	ns="unshare --user --map-root-user --uts"
fi
rank() {	# LIST NODEID JSON
	# shellcheck disable=SC2016
	DDPRANK=$ddprank $ns sh -c '
		hostname nid0500000
		export SLURM_JOB_NODELIST="$1" SLURM_NODEID="$2" \
		    SLURM_JOB_ID=1 MASTER_ADDR=127.0.0.1
		unset SLURM_STEP_NODELIST SLURM_STEP_ID SLURM_STEPID \
		    SLURMD_NODENAME
		"$DDPRANK" env --scheduler slurm >/dev/null
		hyperfine -N --warmup 5 --min-runs 50 --export-json "$3" \
		    "$DDPRANK env --scheduler slurm" >/dev/null
		for i in 1 2 3 4 5; do
			/usr/bin/time -f %M "$DDPRANK" env --scheduler slurm \
			    2>&1 >/dev/null
		done | sort -n | sed -n 3p' sh "$1" "$2" "$3"
}
big_rss=$(rank 'nid[0000001-1000000]' 499999 "$out/big.json")
small_rss=$(rank 'nid[0499996-0500005]' 4 "$out/small.json")

# For scale: what expanding the same million hosts costs scontrol
# (16 ranges, under its 65,536 limit), before any grep for the rank.
mil=$(awk 'BEGIN { for (i = 0; i < 16; i++) printf "%snid[%07d-%07d]",
    i ? "," : "", i * 62500 + 1, (i + 1) * 62500 }')
hyperfine -N --warmup 1 --min-runs 10 --export-json "$out/sc.json" \
    "scontrol show hostnames '$mil'" >/dev/null
sc_rss=$(/usr/bin/time -f %M scontrol show hostnames "$mil" 2>&1 >/dev/null)

echo
python3 - "$out" "$big_rss" "$small_rss" "$sc_rss" <<'PY'
import json, sys
d = sys.argv[1]
def ms(f):
    return json.load(open(d + "/" + f))["results"][0]["median"] * 1e3
big, small, sc = ms("big.json"), ms("small.json"), ms("sc.json")
print("rank of nid0500000 (SLURM_NODEID checked)   median ms  peak RSS KB")
print("%-42s %10.2f %12s" % ("ddprank env, 1,000,000-host list", big,
      sys.argv[2]))
print("%-42s %10.2f %12s" % ("ddprank env, 10-host list", small,
      sys.argv[3]))
print("%-42s %10.2f %12s" % ("scontrol show hostnames, 1,000,000 hosts",
      sc, sys.argv[4]))
print("1M/10 hosts: time %.2fx, peak RSS %.2fx" % (big / small,
      int(sys.argv[2]) / int(sys.argv[3])))
PY
