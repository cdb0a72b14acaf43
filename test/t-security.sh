#!/bin/sh
# t-security.sh: the attacks of the security review (issue 16), each
# played by a real second user against a real victim user, both made
# by this test (as root) and removed at its end, whatever happens. The
# victim runs ddprank exec as the tasks of an HPC Pack job would (the
# shared-directory exchange, CCP_* variables); the command it should
# run records its rank and master address. Each attack must fail closed,
# or be ignored with a warning: never may the victim's command run with
# the attacker's choice of master, nor the victim's files go.

mkdir -p "${BUILDDIR:-$(dirname "$0")/..}/test/tmp"
. "$(dirname "$0")/lib.sh"

need_root "it adds two users"
need_progs useradd userdel runuser mkfifo python3 ip
need_built ddprank
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

# The scratch directory stands for the cluster's shared file system:
# every user can reach it (out of the build tree, which may be where
# they cannot go), and its exchange base is root's, mode 1777, as an
# administrator makes it.
public_scratch
share=$T/share
base=$share/.ddprank
mkdir -p "$base" "$T/bin"
chmod 1777 "$share" "$base"
# A copy every user can run, whatever the modes above the build tree.
cp "$DDPRANK" "$T/bin/ddprank"
chmod 0755 "$T/bin" "$T/bin/ddprank"

two_users ddp

# The node: a network namespace with an interface d0, 10.77.0.1 (one end
# of a veth pair),
# which both users' processes share (other users' jobs on the node).
ns=ddpsec$$
ip netns add "$ns" 2>/dev/null || skip "cannot create network namespaces"
# shellcheck disable=SC2016 # expanded at exit
on_exit 'ip netns del "$ns" 2>/dev/null'
# setup_d0: the interface d0 and loopback, up.
setup_d0() {
	ip -n "$ns" link add d0 type veth peer name d1 &&
	    ip -n "$ns" addr add 10.77.0.1/24 dev d0 &&
	    ip -n "$ns" link set d1 up && ip -n "$ns" link set d0 up &&
	    ip -n "$ns" link set lo up
}
check "cannot set up interface d0" setup_d0 || finish

# as USER HOME COMMAND...: runs COMMAND as USER on the node, minimal
# environment.
as() {
	u=$1 h=$2
	shift 2
	ip netns exec "$ns" runuser -u "$u" -- env -i \
	    PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$h" "$@"
}
as_victim() { as "$victim" "$T/vhome" "$@"; }
as_attacker() { as "$attacker" "$T/ahome" "$@"; }

# task N JOBID NNODES [VAR=VALUE...]: the victim's task N of job JOBID,
# in the background; its exit status goes to $T/vhome/rc.N, stderr to
# err.N, and the command it runs writes "NODE_RANK MASTER_ADDR" to
# out.N.
task() {
	n=$1 job=$2 nn=$3
	shift 3
	rm -f "$T/vhome/out.$n" "$T/vhome/rc.$n" "$T/vhome/err.$n"
	as_victim CCP_JOBID="$job" CCP_TASKID="$n" "$@" sh -c '
		"$1" exec --exchange "dir:$2" --nnodes "$3" \
		    --exchange-timeout 4 --iface "^d0\$" --port "$4" -- \
		    sh -c "echo \"\$NODE_RANK \$MASTER_ADDR\" > \"\$HOME/out.$5\"" \
		    2>"$HOME/err.$5"
		echo $? > "$HOME/rc.$5"' task "$T/bin/ddprank" "${EXCH:-$base}" \
	    "$nn" "$PORT" "$n" &
}

# A port free at the start: the tasks' --port.
PORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])')
SECRET=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')

rc() { cat "$T/vhome/rc.$1" 2>/dev/null || echo none; }
out() { cat "$T/vhome/out.$1" 2>/dev/null || echo none; }
err() { cat "$T/vhome/err.$1" 2>/dev/null; }

# --- a forged entry in a pre-created run directory ---------------------------
# The run directory of job 4242 is predictable without a secret: the
# attacker makes it, sticky so the victim cannot replace the entry, and
# names their own address as task 1's.
as_attacker sh -c "mkdir -m 1777 '$base/4242-r0' &&
    printf 'ddprank-exchange 1\ntask 1\nhost evil\naddr 10.6.6.6\n' \
    > '$base/4242-r0/entry.t1'"
task 1 4242 2
task 2 4242 2
wait
for n in 1 2; do
	expect_eq "forged, no secret: task $n exits" "$(rc $n)" 7
	expect_eq "forged, no secret: task $n never runs the command" \
	    "$(out $n)" none
	check "forged, no secret: task $n says: $(err $n)" contains "$(err $n)" \
	    "exchange directory $base/4242-r0 is owned by uid $auid, not by you"
done

# With the job's secret the run directory's name cannot be guessed: the
# attacker's directory is not even looked at.
task 1 4242 2 DDPRANK_SECRET="$SECRET"
task 2 4242 2 DDPRANK_SECRET="$SECRET"
wait
expect_eq "forged, secret: task 1" "$(rc 1) $(out 1)" "0 0 10.77.0.1"
expect_eq "forged, secret: task 2" "$(rc 2) $(out 2)" "0 1 10.77.0.1"
expect_eq "forged, secret: the attacker's entry is left alone" \
    "$(ls "$base/4242-r0")" entry.t1

# --- junk, a FIFO, a huge file, a link, a foreign file in the run directory -----
# In a run directory of the victim's (say, left by a crashed run), none
# of these may stop the exchange: each is ignored, with a warning.
run=$base/4244-r0
as_victim sh -c "mkdir -m 0700 '$run' &&
    printf 'GET / HTTP/1.0\r\n' > '$run/entry.t3' &&
    mkfifo '$run/entry.t4' &&
    head -c 10000000 /dev/zero > '$run/entry.t5' &&
    ln -s /dev/zero '$run/entry.t6'"
printf 'ddprank-exchange 1\ntask 7\nhost evil\naddr 10.6.6.6\n' >"$run/entry.t7"
chown "$attacker:" "$run/entry.t7"
task 1 4244 2
task 2 4244 2
wait
expect_eq "junk: task 1" "$(rc 1) $(out 1)" "0 0 10.77.0.1"
expect_eq "junk: task 2" "$(rc 2) $(out 2)" "0 1 10.77.0.1"
for why in "entry.t3 (line 1: not a ddprank exchange entry)" \
    "entry.t4 (not a regular file)" "entry.t5 (larger than 1024 bytes)" \
    "entry.t6 (a symbolic link)" \
    "entry.t7 (owned by uid $auid, not by you)"; do
	check "junk: no warning '$why' in: $(err 1)" contains "$(err 1)" "$why"
done

# --- an attacker-owned base directory ----------------------------------------
# Made in a world-writable share before anyone else: its owner could
# swap any user's run directory, so no one else uses it.
as_attacker mkdir -m 1777 "$share/.ddprank2"
EXCH=$share/.ddprank2 task 1 4245 1 DDPRANK_SECRET="$SECRET"
wait
expect_eq "attacker's base: task exits" "$(rc 1)" 7
expect_eq "attacker's base: the command never runs" "$(out 1)" none
check "attacker's base says: $(err 1)" contains "$(err 1)" \
    "exchange directory $share/.ddprank2 is owned by uid $auid, neither you nor root"

# --- a symlinked run directory during cleanup -------------------------------------
# Job 4246's first run is predictable; the attacker points it at a
# private directory of the victim's, holding files with the names
# ddprank removes. The rerun's node 0 removes earlier runs: not these.
as_victim sh -c "mkdir -m 0700 '$T/vhome/precious' &&
    echo keep > '$T/vhome/precious/entry.t1' &&
    echo keep > '$T/vhome/precious/read.t1' &&
    echo keep > '$T/vhome/precious/data'"
as_attacker ln -s "$T/vhome/precious" "$base/4246-r0"
task 1 4246 1 CCP_RETRY_COUNT=1
wait
expect_eq "symlinked run: the rerun works" "$(rc 1) $(out 1)" "0 0 10.77.0.1"
expect_eq "symlinked run: the victim's files stay" \
    "$(ls "$T/vhome/precious" | tr '\n' ' ')" "data entry.t1 read.t1 "

# --- the port pre-bound on 127.0.0.1 -------------------------------------------
# torch's store binds the dual-stack wildcard, which a listener on
# 127.0.0.1 alone blocks: node 0 must see it before torchrun does,
# though its master address is another (d0's).
as_attacker "$PY" -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
open(sys.argv[2], "w").close()
time.sleep(60)' "$PORT" "$T/ahome/bound" &
squatter=$!
# shellcheck disable=SC2016 # expanded at exit
on_exit 'kill "$squatter" 2>/dev/null'
i=0
while [ ! -e "$T/ahome/bound" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
as_victim SLURM_JOB_ID=9 SLURM_JOB_NODELIST="$(hostname)" \
    MASTER_ADDR=10.77.0.1 "$T/bin/ddprank" exec --port "$PORT" -- \
    sh -c 'echo ran > "$HOME/out.port"' 2>"$T/port.err"
expect_eq "port taken on 127.0.0.1: exit" "$?" 6
expect_eq "port taken on 127.0.0.1: the command never runs" \
    "$(cat "$T/vhome/out.port" 2>/dev/null || echo none)" none
check "port taken says: $(cat "$T/port.err")" contains "$(cat "$T/port.err")" \
    "port $PORT is already in use on this host"
kill "$squatter" 2>/dev/null
wait

finish
