#!/bin/sh
# t-security-flood.sh: the connection flood of issue 22's review, played
# by a real second user against a real victim (both made here, as root,
# and removed at the end). The victim's ddprank doctor runs as node 0 of
# a two-node Slurm job on a node (a network namespace) that the
# attacker's processes share, as on nodes that are not exclusive. The
# attacker finds node 0's listener in /proc/net/tcp by its uid column,
# opens 600 connections to it and holds them idle; only then does the
# victim's second node report, from the same address as the attacker.
# Node 0 must not fail, nor blame the good node: today's gather held 512
# connections each until the deadline and left the good node's in the
# backlog, so the report said FAIL connect n2 and --exclude=n2.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

need_root "it adds two users"
need_progs useradd userdel runuser python3 ip unshare hostname
need_built ddprank
need_netns
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

public_scratch
mkdir -p "$T/bin"
cp "$DDPRANK" "$T/bin/ddprank"
# The doctor checks that the launcher is on PATH; this one never runs.
printf '#!/bin/sh\nexit 0\n' >"$T/bin/torchrun"
chmod 0755 "$T/bin" "$T/bin/ddprank" "$T/bin/torchrun"

two_users ddpf

ns=ddpfl$$
ip netns add "$ns" 2>/dev/null || skip "cannot create network namespaces"
# shellcheck disable=SC2016 # expanded at exit
on_exit 'ip netns del "$ns" 2>/dev/null'
setup_d0() {
	ip -n "$ns" link add d0 type veth peer name d1 &&
	    ip -n "$ns" addr add 10.78.0.1/24 dev d0 &&
	    ip -n "$ns" link set d1 up && ip -n "$ns" link set d0 up &&
	    ip -n "$ns" link set lo up
}
check "cannot set up interface d0" setup_d0 || finish

SECRET=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
# node HOST OUT: the victim's ddprank doctor as host HOST (n1 is node 0)
# of job 4242's step 0, its report in OUT, its status in OUT.rc.
node() {
	ip netns exec "$ns" unshare --uts sh -c 'hostname "$1" || exit
	    exec runuser -u "$2" -- env -i PATH="$3:/usr/bin:/bin" \
	    HOME="$4" SLURM_JOB_ID=4242 SLURM_STEP_ID=0 \
	    SLURM_JOB_NODELIST="n[1-2]" MASTER_ADDR=10.78.0.1 \
	    DDPRANK_SECRET="$5" ddprank doctor --iface "^d0\$" --wait 20' \
	    sh "$1" "$victim" "$T/bin" "$T/vhome" "$SECRET" >"$2" 2>&1
	echo $? >"$2.rc"
}

# The attacker: waits for a listener of the victim's uid, floods it.
cat >"$T/flood.py" <<'EOF'
import socket, sys, time

uid, count, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]


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


end = time.time() + 60
ports = set()
while not ports and time.time() < end:
    ports = listeners()
    time.sleep(0.005)
held, made = [], 0
for port in sorted(ports):
    for _ in range(count):
        try:
            held.append(socket.create_connection(("10.78.0.1", port), 2))
            made += 1
        except OSError:
            pass
with open(ready + ".tmp", "w") as f:
    f.write("%s %d\n" % (" ".join(map(str, sorted(ports))), made))
import os
os.rename(ready + ".tmp", ready)
time.sleep(60)
EOF
chmod 0644 "$T/flood.py"

node n1 "$T/n1.out" &
lead=$!
ip netns exec "$ns" runuser -u "$attacker" -- env -i PATH=/usr/bin:/bin \
    "$PY" "$T/flood.py" "$vuid" 600 "$T/ahome/ready" &
flooder=$!
# shellcheck disable=SC2016 # expanded at exit
on_exit 'kill "$flooder" 2>/dev/null'
i=0
while [ ! -e "$T/ahome/ready" ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
read -r ports made <"$T/ahome/ready" || { ports='' made=0; }
echo "INFO: the attacker found [$ports] and held $made connections"
check "the attacker found no listener of the victim's" test -n "$ports"
check "the attacker made only [$made] of 600 connections" test "$made" -ge 500
node n2 "$T/n2.out"
wait "$lead"
kill "$flooder" 2>/dev/null
wait "$flooder" 2>/dev/null

report=$(cat "$T/n1.out")
expect_eq "flood: node 0's status: $report" "$(cat "$T/n1.out.rc")" 0
expect_eq "flood: node 2's status: $(cat "$T/n2.out")" "$(cat "$T/n2.out.rc")" 0
expect_has "flood: node 0's report" "ddprank doctor: no check failed" "$report"
expect_has "flood: node 0's report" "PASS connect: reached node 0" "$report"
expect_lacks "flood: node 0's report" "--exclude" "$report"
expect_lacks "flood: node 0's report" "FAIL" "$report"
finish
