#!/bin/sh
# t-ddprank-netns.sh: real interface discovery. A network namespace plays
# a compute node with the interfaces of the seed's machines (eth3 as on
# Cori, nmn0 as on Perlmutter); unshare gives it the host name of a node
# in the list and its own hosts file, so nothing on this machine changes.
. "$(dirname "$0")/lib.sh"

need_root "ip netns"
need_progs ip unshare
need_built ddprank

NS=ddprank-t$$
H=dr$$			# prefix of the host ends of the veth pairs
listener=
cleanup() {
	[ -z "$listener" ] || kill "$listener" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	ip link del "${H}a" 2>/dev/null
	ip link del "${H}b" 2>/dev/null
	ip link del "${H}c" 2>/dev/null
}
on_exit cleanup
trap 'exit 1' HUP INT TERM

ip netns add "$NS" 2>"$T/err" ||
	skip "needs root and ip netns: $(cat "$T/err")"

# veth NAME SUFFIX: a veth pair whose namespace end is called NAME.
veth() {
	ip link add "$H$2" type veth peer name "$H${2}n" &&
	ip link set "$H${2}n" netns "$NS" &&
	ip -n "$NS" link set "$H${2}n" name "$1" &&
	ip link set "$H$2" up
}
# setup_ns: the namespace's interfaces and addresses.
setup_ns() {
	veth eth3 a && veth nmn0 b && veth eth9 c &&
	ip -n "$NS" link set lo up &&
	ip -n "$NS" addr add 10.93.0.2/24 dev eth3 &&
	ip -n "$NS" link set eth3 up &&
	ip -n "$NS" addr add 10.94.0.2/24 dev nmn0 &&
	ip -n "$NS" addr add fd94::2/64 dev nmn0 nodad &&
	ip -n "$NS" link set nmn0 up &&
	ip -n "$NS" addr add 10.95.0.2/24 dev eth9
}
check "cannot set up the namespace" setup_ns || finish

# The names of the nodes: nid01 has an address on each network, the
# management one (nmn0's subnet) first.
cat >"$T/hosts" <<EOF
127.0.0.1 localhost
10.94.0.1 nid01
10.93.0.1 nid01
10.94.0.2 nid02
10.93.0.2 nid02
10.93.0.3 nid03
EOF
echo 'hosts: files' >"$T/nsswitch.conf"

# in_node HOST COMMAND...: COMMAND in the namespace, as host HOST, with
# the hosts file above and no DNS.
in_node() {
	ip netns exec "$NS" unshare --uts --mount sh -c '
		mount --bind "$1/hosts" /etc/hosts &&
		mount --bind "$1/nsswitch.conf" /etc/nsswitch.conf &&
		hostname "$2" && shift 2 && exec "$@"' _ "$T" "$@"
}

# run WHAT COMMAND...: status, stdout and stderr into $rc, $out, $err.
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}

# ddprank ip: what the batch shell runs for MASTER_ADDR.
run ip netns exec "$NS" "$DDPRANK" ip --iface '^eth3$' -4
expect_eq "ip eth3 -4" "$rc:$out:$err" "0:10.93.0.2:"
run ip netns exec "$NS" "$DDPRANK" ip --iface '^nmn0$' -6
expect_eq "ip nmn0 -6" "$rc:$out:$err" "0:fd94::2:"
run ip netns exec "$NS" "$DDPRANK" ip --iface '^nmn0$'
expect_eq "ip nmn0, either family" "$rc:$out" "0:10.94.0.2"
run ip netns exec "$NS" "$DDPRANK" ip --iface '^(nmn0|eth3)$' -4
expect_eq "ip: kernel order decides" "$rc:$out" "0:10.93.0.2"
run ip netns exec "$NS" "$DDPRANK" ip --iface 'nmn|eth[0-9]'
expect_eq "ip: partial match" "$rc:$out" "0:10.93.0.2"

run ip netns exec "$NS" "$DDPRANK" ip --iface '^hsn[0-3]$' -4
expect_eq "ip: no match status" "$rc:$out" "5:"
no_match_msg() {
	case $err in
	"ddprank: no interface matches '^hsn[0-3]\$'; interfaces: lo 127.0.0.1 ::1, eth3 10.93.0.2"*", nmn0 10.94.0.2 fd94::2"*", eth9 10.95.0.2 (down)") ;;
	*) return 1 ;;
	esac
}
check "ip: no match message: $err" no_match_msg
run ip netns exec "$NS" "$DDPRANK" ip --iface '^eth9$'
expect_eq "ip: down status" "$rc" 5
down_msg() {
	case $err in
	"ddprank: no interface matching '^eth9\$' is up with an IP address; interfaces: "*) ;;
	*) return 1 ;;
	esac
}
check "ip: down message: $err" down_msg
run ip netns exec "$NS" "$DDPRANK" ip --iface '^eth3$' -6
eth3_v6() {
	case $rc:$out in
	0:fe80::*%eth3) ;;	# only a link-local address, scoped
	5:) ;;			# autoconfiguration has not run yet
	*) return 1 ;;
	esac
}
check "ip eth3 -6: $rc:$out:$err" eth3_v6
run ip netns exec "$NS" "$DDPRANK" ip --iface '^eth3(' -4
expect_eq "ip: bad pattern" "$rc:$err" \
	"2:ddprank: --iface: bad pattern '^eth3(': missing closing parenthesis at offset 6"

# env on node 1: the master is nid01's address in eth3's subnet, not the
# first one its name resolves to; the port comes from the job id.
slurm="SLURM_JOB_NODELIST=nid[01-03] SLURM_JOB_ID=4242"
run in_node nid02 env $slurm "$DDPRANK" env --iface '^eth3$'
expect_eq "env node 1" "$rc:$out:$err" "0:export NODE_RANK=1
export NNODES=3
export MASTER_ADDR=10.93.0.1
export MASTER_PORT=24242
export GLOO_SOCKET_IFNAME=eth3
export NCCL_SOCKET_IFNAME='=eth3':"
# Without --iface, the lowest of nid01's addresses, whatever the order
# the resolver gives them in (it differs between nodes).
run in_node nid03.cluster.example env $slurm "$DDPRANK" env --format json
expect_eq "env node 2, no interface, json" "$rc:$out:$err" \
	'0:{"NODE_RANK":2,"NNODES":3,"MASTER_ADDR":"10.93.0.1","MASTER_PORT":24242}:'

# env on node 0: the rule every node applies, its own name's address in
# nmn0's subnet (not simply its interface's, which no other node knows),
# and the port bound. The namespace has nid02's addresses: it is node 0
# of a list that starts with nid02.
run in_node nid02 env SLURM_JOB_NODELIST=nid02,nid01,nid03 SLURM_JOB_ID=4242 \
	"$DDPRANK" env --iface '^nmn0$' --port-range 30000-30099
expect_eq "env node 0" "$rc:$out:$err" "0:export NODE_RANK=0
export NNODES=3
export MASTER_ADDR=10.94.0.2
export MASTER_PORT=30042
export GLOO_SOCKET_IFNAME=nmn0
export NCCL_SOCKET_IFNAME='=nmn0':"

# MASTER_ADDR from the batch shell wins.
addr=$(ip netns exec "$NS" "$DDPRANK" ip --iface '^eth3$' -4)
run in_node nid03 env $slurm MASTER_ADDR="$addr" "$DDPRANK" env --iface '^nmn0$'
expect_eq "env: MASTER_ADDR given" "$(echo "$out" | sed -n 3p)" \
	"export MASTER_ADDR=10.93.0.2"

# A host name that is not listed: found by its addresses (nid02 resolves
# to 10.93.0.2, an address of eth3), else an error naming both.
run in_node login1 env $slurm "$DDPRANK" env --port 1
expect_eq "env: found by address" "$rc:$(echo "$out" | head -n 1)" \
	"0:export NODE_RANK=1"
run in_node login1 env SLURM_JOB_NODELIST='nid[04-05]' "$DDPRANK" env --port 1
expect_eq "env: not listed" "$rc:$out:$err" \
	"4::ddprank: host 'login1' is not in the node list 'nid[04-05]' (from SLURM_JOB_NODELIST)"

# SLURM_NODEID must agree with the host's place in the step's list.
run in_node nid02 env SLURM_STEP_NODELIST='nid[01-03]' SLURM_NODEID=2 \
	"$DDPRANK" env --port 1
expect_eq "env: SLURM_NODEID disagrees" "$rc:$err" \
	"4:ddprank: SLURM_NODEID is 2 but host 'nid02' is node 1 of the node list 'nid[01-03]' (from SLURM_STEP_NODELIST)"

# The interface must exist on every node, not only on node 0.
run in_node nid02 env $slurm "$DDPRANK" env --iface '^hsn0$'
expect_eq "env: no interface" "$rc" 5

# exec on node 0 with c10d: torchrun's variables. The node is named
# nid02 here, whose name resolves to its own eth3 address, as torchrun's
# c10d needs (torchrun gives the workers that name as MASTER_ADDR).
run in_node nid02 env SLURM_JOB_NODELIST=nid02,nid01,nid03 SLURM_JOB_ID=4242 \
	SLURM_STEP_ID=0 "$DDPRANK" exec --iface '^eth3$' \
	--rdzv c10d -- sh -c 'echo "$PET_NODE_RANK $PET_NNODES $PET_MASTER_ADDR:$PET_MASTER_PORT $PET_RDZV_BACKEND $PET_RDZV_ENDPOINT $PET_RDZV_ID $PET_RDZV_CONF $GLOO_SOCKET_IFNAME $PET_LOCAL_ADDR"'
port=$((20000 + 4242 * 1009 % 10000))
expect_eq "exec c10d node 0" "$rc:$out:$err" \
	"0:0 3 10.93.0.2:$port c10d 10.93.0.2:$port 4242.0 is_host=1 eth3 10.93.0.2:"
# Named nid01, its name resolves to addresses of other nodes: the
# workers would get the wrong MASTER_ADDR from torchrun, so c10d with
# --iface is refused; so is static, since node 0 no longer takes its own
# interface's address: the others would connect to 10.93.0.1.
run in_node nid01 env $slurm SLURM_STEP_ID=0 "$DDPRANK" exec --iface '^eth3$' \
	--rdzv c10d -- true
expect_eq "exec c10d, name elsewhere" "$rc:$err" \
	"5:ddprank: --rdzv c10d: torchrun gives the workers this node's host name 'nid01' as MASTER_ADDR, which resolves to 10.94.0.1 10.93.0.1, not to 10.93.0.2 of interface eth3; use --rdzv static with --iface (cannot tell which python runs 'true'; torchrun 2.3 and later take PET_LOCAL_ADDR instead)"
# torch 2.3 and later give the workers PET_LOCAL_ADDR instead of the
# host name: ddprank asks the launcher's python for torch's version
# (torch/version.py, without importing torch) and lets c10d through.
for v in 1.13.1 2.6.0; do
	mkdir -p "$T/torch-$v/torch"
	: >"$T/torch-$v/torch/__init__.py"
	echo "__version__ = '$v'" >"$T/torch-$v/torch/version.py"
done
printf '#!/usr/bin/python3\nimport os\nprint(os.environ["PET_LOCAL_ADDR"])\n' \
    >"$T/torchrun"
chmod +x "$T/torchrun"
# (Node 0 named nid02, whose name resolves to its own eth3 address, and
# the interface nmn0: the master address is its own, the name not on
# nmn0; named nid01, its name leads to another host, which no torch
# mends.)
run in_node nid02 env SLURM_JOB_NODELIST=nid02,nid01,nid03 SLURM_JOB_ID=4242 \
	SLURM_STEP_ID=0 PYTHONPATH="$T/torch-2.6.0" \
	"$DDPRANK" exec --iface '^nmn0$' --rdzv c10d -- "$T/torchrun"
expect_eq "exec c10d, name elsewhere, torch 2.6" "$rc:$out:$err" \
	"0:10.94.0.2:"
run in_node nid01 env $slurm SLURM_STEP_ID=0 PYTHONPATH="$T/torch-1.13.1" \
	"$DDPRANK" exec --iface '^eth3$' --rdzv c10d -- "$T/torchrun"
expect_eq "exec c10d, name elsewhere, torch 1.13" "$rc:$err" \
	"5:ddprank: --rdzv c10d: torchrun gives the workers this node's host name 'nid01' as MASTER_ADDR, which resolves to 10.94.0.1 10.93.0.1, not to 10.93.0.2 of interface eth3; use --rdzv static with --iface ('$T/torchrun' runs torch 1.13; torchrun 2.3 and later take PET_LOCAL_ADDR instead)"
run in_node nid01 env $slurm SLURM_STEP_ID=0 "$DDPRANK" exec --iface '^eth3$' \
	--rdzv static -- true
expect_eq "exec static, name elsewhere" "$rc:$err" \
	"6:ddprank: node 0 cannot host the rendezvous: cannot bind port 20178: 10.93.0.1 is not an address of this host"

# A port already taken on node 0: exit 6 and a way out.
ip netns exec "$NS" python3 -c '
import socket, sys
s = socket.socket()
s.bind(("10.93.0.2", 24242))
s.listen(1)
open(sys.argv[1], "w").close()
s.accept()
' "$T/listening" &
listener=$!
i=0
while [ ! -e "$T/listening" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
# Node 0 is nid02, whose addresses the namespace has.
slurm0="SLURM_JOB_NODELIST=nid02,nid01,nid03 SLURM_JOB_ID=4242"
run in_node nid02 env $slurm0 "$DDPRANK" env --iface '^eth3$'
expect_eq "port taken" "$rc:$out:$err" \
	"6::ddprank: node 0 cannot host the rendezvous: port 24242 is already in use on 10.93.0.2; choose another with --port N"
run in_node nid02 env $slurm0 "$DDPRANK" exec --iface '^eth3$' -- true
expect_eq "port taken, exec" "$rc" 6
run in_node nid02 env $slurm0 "$DDPRANK" env --iface '^eth3$' --port 24243
expect_eq "port taken, --port N" "$rc" 0
# Other nodes do not bind anything.
run in_node nid02 env $slurm "$DDPRANK" env --iface '^eth3$'
expect_eq "port taken, node 1" "$rc" 0
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null
listener=

# Node 0 must own MASTER_ADDR.
run in_node nid01 env $slurm MASTER_ADDR=10.93.0.77 "$DDPRANK" env
expect_eq "MASTER_ADDR not here" "$rc:$err" \
	"6:ddprank: node 0 cannot host the rendezvous: cannot bind port 24242: 10.93.0.77 is not an address of this host"
finish
