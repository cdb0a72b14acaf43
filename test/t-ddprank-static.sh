#!/bin/sh
# t-ddprank-static.sh: make ddprank-static links without a warning (no
# NSS, no dlopen), needs no library, and computes a rank, the master
# address and the port in an empty root directory that holds only the
# binary and an /etc/hosts, as in a container image without libraries
# (Pyxis mounts it there). Its own HMAC-SHA256 gives the port ddprank
# gives.
. "$(dirname "$0")/lib.sh"

need_root "chroot"
need_progs make chroot
need_built ddprank
CHROOT=$(command -v chroot)

# Relinked here (-W: as if ddprank.o had changed), so the link's own
# messages are seen even when the binary was already there.
make -C "$BUILDDIR" -s -W src/ddprank.o ddprank-static >"$T/make.out" 2>&1
expect_eq "make ddprank-static: status" "$?" 0
expect_eq "make ddprank-static: no warning" \
    "$(grep -i 'warning' "$T/make.out")" ""
S=$BUILDDIR/ddprank-static
check "statically linked" sh -c "file '$S' | grep -q 'statically linked'"

R=$T/root
mkdir -p "$R/bin" "$R/etc"
cp "$S" "$R/bin/ddprank"
printf '# the nodes\n10.9.0.1\tnid001 nid001.local\n10.9.0.2 nid002\n' \
    >"$R/etc/hosts"
K=000102030405060708090a0b0c0d0e0f

# run_in ENV... -- ARGS: ddprank in the empty root, with ENV only.
run_in() {
	_e=
	while [ "$1" != -- ]; do _e="$_e $1"; shift; done
	shift
	# shellcheck disable=SC2086 # the words of ENV
	env -i $_e "$CHROOT" "$R" /bin/ddprank "$@"
}

# Hostname discovery: node 1 of two finds node 0's address in /etc/hosts.
out=$(run_in SLURM_JOB_NODELIST='nid[001-002]' SLURMD_NODENAME=nid002 \
    SLURM_NODEID=1 SLURM_JOB_ID=4242 -- 2>&1)
expect_eq "rank in an empty root" "$out" "export NODE_RANK=1
export NNODES=2
export MASTER_ADDR=10.9.0.1
export MASTER_PORT=24242"

# The port from the secret: the same as ddprank's (libcrypto's HMAC).
want=$(env -i DDPRANK_SECRET=$K SLURM_JOB_ID=4242 "$DDPRANK" port)
expect_eq "port from the secret, as ddprank's" \
    "$(run_in DDPRANK_SECRET=$K SLURM_JOB_ID=4242 -- port)" "$want"

# A name /etc/hosts lacks: a clear error, not a guess.
out=$(run_in SLURM_JOB_NODELIST='nid[007-008]' SLURMD_NODENAME=nid008 \
    SLURM_NODEID=1 SLURM_JOB_ID=1 -- 2>&1)
st=$?
check "unknown name: fails" [ "$st" -ne 0 ]
check "unknown name: says which" contains "$out" "cannot resolve 'nid007'"

# No /etc/hosts at all (an image without one): the same error.
rm "$R/etc/hosts"
out=$(run_in SLURM_JOB_NODELIST='nid[001-002]' SLURMD_NODENAME=nid002 \
    SLURM_NODEID=1 SLURM_JOB_ID=1 -- 2>&1)
check "no /etc/hosts: says which" contains "$out" "cannot resolve 'nid001'"

# A master address given as a number (discovery = iface: the batch
# shell found it) resolves nothing.
expect_eq "numeric master in an empty root" \
    "$(run_in SLURM_JOB_NODELIST='nid[001-002]' SLURMD_NODENAME=nid002 \
    SLURM_NODEID=1 SLURM_JOB_ID=7 MASTER_ADDR=10.9.0.1 -- --format json)" \
    '{"NODE_RANK":1,"NNODES":2,"MASTER_ADDR":"10.9.0.1","MASTER_PORT":20007}'
finish
