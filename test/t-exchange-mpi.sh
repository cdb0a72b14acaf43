#!/bin/sh
# t-exchange-mpi.sh: ddprank exec --exchange mpi under a real mpirun.
# Four ranks on this machine are one node. Then, as root, the ranks run
# in a network namespace with three interfaces and each rank matches one
# of them with --iface (ranks 0 and 2 the same one): three "nodes" with
# distinct addresses, numbered by first appearance as in the seed notes,
# from a real MPI_Allgather, with no test seam in ddprank.
. "$(dirname "$0")/lib.sh"

T=$(cd "$T" && pwd)
command -v mpirun >/dev/null ||
	skip "Open MPI not installed (Debian packages openmpi-bin libopenmpi-dev)"
# ddprank itself when configured --with-mpi, else ddprank-mpi, which
# make check builds whenever Open MPI's pkg-config module is there.
rank=$DDPRANK
if "$rank" env --exchange mpi --exchange-timeout 0 2>&1 |
    grep -q 'without MPI'; then
	rank=$BUILDDIR/ddprank-mpi
	[ -x "$rank" ] || skip "ddprank-mpi not built: Open MPI's pkg-config" \
	    "module ompi-c is missing (Debian package libopenmpi-dev)"
fi

NS=ddprank-mpi$$
cleanup() {
	ip netns del "$NS" 2>/dev/null
}
on_exit cleanup
trap 'exit 1' HUP INT TERM

mpi() {
	timeout 60 mpirun --allow-run-as-root --oversubscribe "$@"
}
port=$((20000 + $$ % 10000))

# --- one machine, one node -------------------------------------------------
# Every rank resolves the same host name: one address, one node. Only
# rank 0 runs the command; the others say why they do not.
mpi -np 4 "$rank" exec --exchange mpi --port "$port" -- \
    sh -c 'echo "$OMPI_COMM_WORLD_RANK $NODE_RANK $NNODES $PET_NNODES"' \
    >"$T/out" 2>"$T/err"
expect_eq "one node: exit" "$?" 0
expect_eq "one node: output" "$(cat "$T/out")" "0 0 1 1"
expect_eq "one node: notes" "$(grep -o 'a lower MPI rank on this node' "$T/err" | wc -l)" 3

# env prints on every rank, the same thing.
mpi -np 2 "$rank" env --exchange mpi --port "$port" --format json \
    >"$T/out" 2>"$T/err"
expect_eq "env: exit" "$?" 0
expect_eq "env: lines" "$(sort -u "$T/out" | wc -l)" 1
check "env: $(cat "$T/out" "$T/err")" matches "$(head -n 1 "$T/out")" \
    '{"NODE_RANK":0,"NNODES":1,"MASTER_ADDR":"*","MASTER_PORT":'"$port"'}'

# --- three nodes in one namespace ------------------------------------------------
if [ "$(id -u)" != 0 ] || ! ip netns add "$NS" 2>/dev/null; then
	echo "not root or no ip netns: the multi-node numbering was not run"
	finish
fi
check "lo up" ip -n "$NS" link set lo up
# setup_eth I: the interface ethI, up, with 10.77.I.1.
setup_eth() {
	ip -n "$NS" link add "eth$1" type veth peer name "peer$1" &&
	ip -n "$NS" addr add "10.77.$1.1/24" dev "eth$1" &&
	ip -n "$NS" link set "eth$1" up &&
	ip -n "$NS" link set "peer$1" up
}
for i in 1 2 3; do
	check "cannot set up eth$i" setup_eth "$i"
done

# Rank r uses interface eth$((map[r])): ranks 0 and 2 share a node.
# Static rendezvous: with c10d, ddprank would refuse interfaces that the
# host name (the machine's, in this namespace) does not resolve to.
cat >"$T/rank.sh" <<'EOF'
#!/bin/sh
set -- 1 2 1 3
eval "i=\${$((OMPI_COMM_WORLD_RANK + 1))}"
exec "$RANK" exec --exchange mpi --iface "^eth$i\$" --port "$PORT" \
    $NNODES_OPT -- sh -c \
    'echo "$OMPI_COMM_WORLD_RANK $NODE_RANK $NNODES $MASTER_ADDR $GLOO_SOCKET_IFNAME $PET_NODE_RANK"'
EOF
chmod +x "$T/rank.sh"
in_ns() {
	ip netns exec "$NS" env RANK="$rank" PORT="$port" \
	    NNODES_OPT="${NNODES_OPT:-}" "$@"
}

in_ns mpirun --allow-run-as-root --oversubscribe -np 4 "$T/rank.sh" \
    >"$T/out" 2>"$T/err"
expect_eq "three nodes: exit" "$?" 0
expect_eq "three nodes: output" "$(sort "$T/out")" \
"0 0 3 10.77.1.1 eth1 0
1 1 3 10.77.1.1 eth2 1
3 2 3 10.77.1.1 eth3 2"
expect_eq "three nodes: notes" "$(grep -o 'a lower MPI rank on this node' "$T/err" | wc -l)" 1

# --nnodes that disagrees fails on every rank, before the command.
NNODES_OPT="--nnodes 2" in_ns mpirun --allow-run-as-root --oversubscribe \
    -np 4 "$T/rank.sh" >"$T/out" 2>"$T/err"
expect_eq "--nnodes 2: exit" "$?" 7
expect_eq "--nnodes 2: output" "$(cat "$T/out")" ""
check "--nnodes 2: message: $(cat "$T/err")" \
    grep -q '^ddprank: exchange: the 4 MPI processes are on 3 nodes (distinct addresses), not --nnodes 2$' \
    "$T/err"
finish
