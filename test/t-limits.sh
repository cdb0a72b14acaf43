#!/bin/sh
# t-limits.sh: ddprank and ddpgen at sizes far beyond a real job's: node
# lists of a million hosts in each form, megabyte profiles, arguments of
# 100,000 characters, 10,000 --env options. Each case must either work
# or fail with a clear error (one "PROG: ..." line per problem), within
# its time limit and a memory cap, never by a signal; the time and the
# peak memory of each are printed.
. "$(dirname "$0")/lib.sh"

[ -x "$DDPGEN" ] && [ -x "$DDPRANK" ] || skip "ddpgen and ddprank are not built"
[ -x /usr/bin/time ] || skip "needs GNU time (Debian: time)"
command -v timeout >/dev/null || skip "needs timeout (coreutils)"
command -v python3 >/dev/null || skip "needs python3 to write the inputs"
# No profile of the user's: lib.sh's clean_env, and HOME an empty directory.
unset XDG_CONFIG_HOME
HOME=$T/home
export HOME
mkdir -p "$HOME"
me=$(hostname)
cd "$T" || exit 1

# Virtual memory cap for every case, in KB: a runaway allocation fails
# (and must fail cleanly: "out of memory") instead of taking the machine.
cap=4194304

# lim NAME WANT SECONDS CMD...: runs CMD (stdout to $T/out); WANT is ok
# (must succeed), err (must fail with a clear error) or any.
lim() {
	name=$1 want=$2 secs=$3
	shift 3
	# shellcheck disable=SC3045 # dash and bash have ulimit -v
	(ulimit -v "$cap"; exec /usr/bin/time -f '%e %M' -o "$T/time" \
	    timeout -k 5 "$secs" "$@") >"$T/out" 2>"$T/err"
	rc=$?
	# shellcheck disable=SC2046 # two fields: seconds, KB
	set -- $(tail -n 1 "$T/time" 2>/dev/null) ? ?
	printf '%-58s exit %3d %7s s %9s KB\n' "$name" "$rc" "$1" "$2"
	why=$(lim_fault)
	check "$name: $why" test -z "$why"
}

# lim_fault: what is wrong with lim's run of $name (exit $rc, wanted
# $want, within $secs), or nothing.
lim_fault() {
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "still running after $secs s"
		return
	fi
	if [ "$rc" -ge 128 ]; then
		echo "killed by signal $((rc - 128)): $(head -c 300 "$T/err")"
		return
	fi
	case $want,$rc in
	ok,0|any,0) [ ! -s "$T/err" ] ||
			echo "succeeded with stderr: $(head -c 300 "$T/err")" ;;
	err,0)	echo "succeeded; want a clear error" ;;
	ok,*)	echo "exit $rc: $(head -c 300 "$T/err")" ;;
	*)	# One "ddpgen: " or "ddprank: " line per problem.
		# Each line at most 4,096 bytes of message (ddpgen(1)
		# DIAGNOSTICS), and a few for the note of what was left out.
		if [ ! -s "$T/err" ] ||
		    grep -qv '^ddp\(gen\|rank\): ' "$T/err"; then
			echo "unclear error: $(head -c 300 "$T/err")"
		elif [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$T/err")" -gt 4200 ]; then
			echo "an error line of $(wc -c <"$T/err") bytes"
		else
			echo "    $(head -n 1 "$T/err" | cut -c 1-150) ($(wc -c <"$T/err") bytes)" >&2
		fi ;;
	esac
}

python3 - "$me" <<'EOF'
import sys
me = sys.argv[1]
M = 1000000
with open("hosts.1m", "w") as f:
    f.writelines("node%07d\n" % i for i in range(M))
    f.write(me + "\n")
with open("pbs.1m", "w") as f:
    f.writelines("node%07d\n" % i for i in range(M))
    f.write(me + "\n")
with open("pbs.slots", "w") as f:
    for i in range(10000):
        f.write(("n%05d\n" % i) * 64)
    f.write(me + "\n")
with open("ccp", "w") as f:
    f.write("%d %s %s 4" % (5001, " ".join("NODE%05d 4" % i for i in range(5000)), me))
with open("lsb", "w") as f:
    f.write("%s %s 4" % (" ".join("n%05d 4" % i for i in range(5000)), me))
with open("list.100k", "w") as f:
    s, i = [], 0
    while len(",".join(s)) < 100000:
        s.append("a%d" % i)
        i += 1
    f.write(",".join(s))
with open("long.100k", "w") as f:
    f.write("x" * 100000)
base = 'description = "big"\nscheduler = slurm\n'
with open("comments.conf", "w") as f:
    f.write(base + ("# " + "c" * 77 + "\n") * 13000)
with open("env.conf", "w") as f:
    f.write(base + "env = {" + ", ".join('"V%05d=%s"' % (i, "v" * 16)
                                         for i in range(40000)) + "}\n")
with open("setup.conf", "w") as f:
    f.write(base + "setup = {" + ", ".join('"%s"' % ("echo " + "s" * 95)
                                           for i in range(10000)) + "}\n")
with open("desc.conf", "w") as f:
    f.write('description = "%s"\nscheduler = slurm\n' % ("d" * 1000000))
with open("envargs", "w") as f:
    f.write("\n".join("--env\nE%05d=%s" % (i, "v" * 20) for i in range(10000)))
with open("envsame", "w") as f:
    f.write("\n".join("--env\nSAME=%d" % i for i in range(10000)))
EOF

long=$(cat long.100k)
echo "case                                                       status     time       memory"
# ddprank: a million hosts as a Slurm range, counted and printed, and
# this host found after them; 10^8, the limit, and beyond it.
lim "ddprank hosts nid[0000001-1000000]" ok 60 \
    "$DDPRANK" hosts 'nid[0000001-1000000]'
expect_eq "hosts: lines" "$(wc -l <out)" 1000000
expect_eq "hosts: last" "$(tail -n 1 out)" nid1000000
lim "ddprank env, 1,000,001 hosts (Slurm), this one last" ok 60 \
    env SLURM_JOB_NODELIST="nid[0000001-1000000],$me" SLURM_JOB_ID=1 \
    MASTER_ADDR=10.0.0.1 "$DDPRANK" env
expect_eq "env: rank" "$(grep NODE_RANK out)" "export NODE_RANK=1000000"
lim "ddprank env, 10^8 hosts (Slurm), this one last" ok 60 \
    env SLURM_JOB_NODELIST="nid[000000001-099999999],$me" SLURM_JOB_ID=1 \
    MASTER_ADDR=10.0.0.1 "$DDPRANK" env
expect_eq "env 10^8: rank" "$(grep NODE_RANK out)" "export NODE_RANK=99999999"
lim "ddprank env, 1,000,000 hosts (Slurm), this one absent" err 60 \
    env SLURM_JOB_NODELIST='nid[0000001-1000000]' SLURM_JOB_ID=1 \
    MASTER_ADDR=10.0.0.1 "$DDPRANK" env
lim "ddprank hosts nid[1-100000001] (beyond the limit)" err 60 \
    "$DDPRANK" hosts 'nid[1-100000001]'
lim "ddprank hosts, 16,384 products of [0-9]" err 60 \
    "$DDPRANK" hosts "$(python3 -c 'print("n" + "[0-9]" * 16384)')"
# The other node list forms: a hostfile and a PBS node file of a million
# distinct hosts, a PBS file of 10,000 nodes with 64 slots each, and
# CCP_NODES and LSB_MCPU_HOSTS near the 128 KB a variable may hold.
lim "ddprank env --hostfile, 1,000,001 hosts" ok 20 \
    env MASTER_ADDR=10.0.0.1 "$DDPRANK" env --hostfile hosts.1m --port 1
lim "ddprank env, PBS_NODEFILE of 1,000,001 hosts" ok 20 \
    env PBS_NODEFILE="$T/pbs.1m" PBS_JOBID=1 MASTER_ADDR=10.0.0.1 \
    "$DDPRANK" env
lim "ddprank env, PBS_NODEFILE of 10,001 hosts x 64 slots" ok 20 \
    env PBS_NODEFILE="$T/pbs.slots" PBS_JOBID=1 MASTER_ADDR=10.0.0.1 \
    "$DDPRANK" env
expect_eq "pbs slots: count" "$(grep NNODES out)" "export NNODES=10001"
lim "ddprank env, CCP_NODES of 5,001 hosts ($(wc -c <ccp) bytes)" ok 20 \
    env CCP_NODES="$(cat ccp)" CCP_JOBID=1 MASTER_ADDR=10.0.0.1 \
    "$DDPRANK" env
lim "ddprank env, LSB_MCPU_HOSTS of 5,001 hosts" ok 20 \
    env LSB_MCPU_HOSTS="$(cat lsb)" LSB_JOBID=1 MASTER_ADDR=10.0.0.1 \
    "$DDPRANK" env
# 100,000 characters: a list of names, one name, an address, a pattern,
# arguments for exec.
lim "ddprank hosts, a 100,000-character list" ok 20 \
    "$DDPRANK" hosts "$(cat list.100k)"
lim "ddprank hosts, a 100,000-character name" err 20 \
    "$DDPRANK" hosts "$(cat long.100k)"
lim "ddprank env, a 100,000-character MASTER_ADDR" ok 20 \
    env SLURM_JOB_NODELIST="$me" SLURM_JOB_ID=1 \
    MASTER_ADDR="$(cat long.100k)" "$DDPRANK" env --port 1
lim "ddprank ip, a 100,000-character --iface" err 20 \
    "$DDPRANK" ip --iface "$(cat long.100k)"
lim "ddprank exec, 10 arguments of 100,000 characters" ok 20 \
    env SLURM_JOB_NODELIST="$me" SLURM_JOB_ID=1 MASTER_ADDR=127.0.0.1 \
    "$DDPRANK" exec --port 1 -- true "$long" "$long" "$long" "$long" "$long" \
    "$long" "$long" "$long" "$long" "$long"

# ddpgen: a million nodes (the limit) for Slurm, whose script does not
# grow with them, and 100,000 HPC Pack tasks, which it does.
lim "ddpgen --nodes 1000000 (Slurm)" ok 60 \
    "$DDPGEN" --nodes 1000000 train.py
# shellcheck disable=SC2046
set -- $(cat time)
check "ddpgen --nodes 1000000 (Slurm): $2 KB for a $(wc -c <out)-byte script" \
    test "${2:-0}" -lt 262144
lim "ddpgen --site hpcpack --nodes 100000" ok 60 \
    "$DDPGEN" --site hpcpack --nodes 100000 train.py
expect_eq "hpcpack tasks" "$(grep -c '<Task ' out)" 100000
# Megabyte profiles.
for p in comments env setup desc; do
	lim "ddpgen, $(wc -c <$p.conf)-byte profile ($p)" ok 60 \
	    "$DDPGEN" --site ./$p.conf train.py
done
lim "ddpgen --show-site, 1 MB of env" ok 60 "$DDPGEN" --show-site ./env.conf
# 100,000-character values of everything that reaches the script.
lim "ddpgen, 8 training arguments of 100,000 characters" ok 20 \
    "$DDPGEN" train.py "$long" "$long" "$long" "$long" "$long" "$long" \
    "$long" "$long"
lim "ddpgen, 100,000-character --job-name --account --env --setup" ok 20 \
    "$DDPGEN" --job-name "$long" --account "$long" --env "V=$long" \
    --setup "$long" train.py
lim "ddpgen, 100,000-character --iface" any 20 \
    "$DDPGEN" --iface "$long" train.py
lim "ddpgen, 10,000-character --iface" ok 20 \
    "$DDPGEN" --iface "$(cut -c 1-10000 long.100k)" train.py
# HPC Pack holds a job's variables, which carry the task's command, to
# 2,048 characters: refused, naming the limit (t-hpcpack-limits.sh).
lim "ddpgen --site hpcpack, 100,000-character argument" err 20 \
    "$DDPGEN" --site hpcpack --nodes 4 train.py "$long"
lim "ddpgen --time of 100,000 characters" err 20 \
    "$DDPGEN" --time "$long" train.py
# 10,000 --env options, distinct and all of one name.
lim "ddpgen, 10,000 --env options" ok 30 \
    sh -c 'IFS="
"; exec "$0" $(cat envargs) train.py' "$DDPGEN"
expect_eq "10,000 --env: exports" "$(grep -c '^export E' out)" 10000
lim "ddpgen, 10,000 --env options of one name" ok 30 \
    sh -c 'IFS="
"; exec "$0" $(cat envsame) train.py' "$DDPGEN"
expect_eq "--env SAME: exports" "$(grep '^export SAME' out)" "export SAME=9999"

# Endless input, as each kind of file read (profiles, templates, node
# files: ddpgen(1) and ddprank(1), FILES): one line at the limit, under a
# cap a runaway read meets within a second or two.
cap=1048576
ln -s /dev/zero zero.sh
lim "ddpgen -s /dev/zero" err 20 "$DDPGEN" -s /dev/zero train.py
expect_eq "-s /dev/zero: message" "$(cat err)" \
    "ddpgen: /dev/zero: larger than 4 MiB"
# A site looked up by name, or extended, is a regular file: one of 5 MB.
{ echo 'description = "z"'; yes '# comment' | head -c 5000000; } >big.conf
printf 'description = "z"\nextends = "%s"\n' "$T/big.conf" >ext.conf
lim "ddpgen, extends a 5 MB profile" err 20 "$DDPGEN" -s ./ext.conf train.py
expect_eq "extends 5 MB: message" "$(cat err)" \
    "ddpgen: ./ext.conf:2: extends: $T/big.conf: larger than 4 MiB"
lim "ddpgen -T, a template linked to /dev/zero" err 20 \
    "$DDPGEN" -T ./zero.sh train.py
expect_eq "-T zero.sh: message" "$(cat err)" \
    "ddpgen: ./zero.sh: larger than 1 MiB"
lim "ddprank hosts -f /dev/zero" err 20 "$DDPRANK" hosts -f /dev/zero
expect_eq "hosts -f /dev/zero: message" "$(cat err)" \
    "ddprank: /dev/zero: larger than 128 MiB"
lim "ddprank hosts -s pbs, PBS_NODEFILE=/dev/zero" err 20 \
    env PBS_NODEFILE=/dev/zero PBS_JOBID=1 "$DDPRANK" hosts -s pbs
expect_eq "PBS_NODEFILE=/dev/zero: message" "$(cat err)" \
    "ddprank: /dev/zero: larger than 128 MiB"
finish
