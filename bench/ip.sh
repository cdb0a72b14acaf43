#!/bin/sh
# bench/ip.sh: the address of interface eth3, three ways, side by side:
# ddprank ip, the ip(8) pipeline, and the seed notes' ifconfig pipeline.
# Runs in a throwaway network namespace with an eth3 (needs root,
# iproute2, net-tools for ifconfig, hyperfine). Run by hand from the
# build tree: sh bench/ip.sh
set -eu
cd "$(dirname "$0")/.."
[ -x ./ddprank ] || { echo "build first: ./configure && make" >&2; exit 1; }
for t in hyperfine ip ifconfig; do
	command -v $t >/dev/null ||
	    { echo "needs $t (hyperfine, iproute2, net-tools)" >&2; exit 1; }
done

ns=ddpbench$$
work=$(mktemp -d)
trap 'ip netns del "$ns" 2>/dev/null; rm -rf "$work"' EXIT
cp ./ddprank "$work/ddprank"
ip netns add "$ns"
ip -n "$ns" link add eth3 type veth peer name eth3peer
ip -n "$ns" addr add 192.0.2.33/24 dev eth3
ip -n "$ns" link set eth3 up
ip -n "$ns" link set lo up

in_ns="ip netns exec $ns"
ddprank="$work/ddprank ip --iface '^eth3\$' -4"
iproute="ip -4 -o addr show eth3 | awk '{print \$4}' | cut -d/ -f1"
seed="ifconfig eth3 | egrep -o 'inet [0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}' | cut -d' ' -f2"

for c in "$ddprank" "$iproute" "$seed"; do
	got=$($in_ns sh -c "$c" 2>/dev/null)
	[ "$got" = 192.0.2.33 ] || { echo "disagree: [$c] gave [$got]" >&2; exit 1; }
done

$in_ns hyperfine -N --warmup 20 --runs 300 --export-json "$work/r.json" \
    "$work/ddprank ip --iface ^eth3\$ -4" \
    "sh -c \"$iproute\"" "sh -c \"$seed\"" >/dev/null 2>&1
python3 - "$work/r.json" <<'PY'
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
base = rs[0]["median"]
names = ["ddprank ip", "ip -4 -o addr | awk | cut", "ifconfig | egrep | cut"]
print("%-28s %10s %8s" % ("command", "median_ms", "ratio"))
for n, r in zip(names, rs):
    print("%-28s %10.2f %7.1fx" % (n, r["median"] * 1e3, r["median"] / base))
PY
