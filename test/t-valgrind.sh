#!/bin/sh
# t-valgrind.sh: ddpgen for every shipped profile and format and on each
# error path, and every ddprank subcommand with scheduler variables set,
# succeeding and failing, under valgrind's memcheck: no error, nothing
# definitely or indirectly lost, and the exit status the path documents.
. "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null || skip "valgrind is not installed (Debian: valgrind)"
[ -x "$DDPGEN" ] && [ -x "$DDPRANK" ] || skip "ddpgen and ddprank are not built"
valgrind -q --error-exitcode=99 true >/dev/null 2>&1 ||
	skip "valgrind does not run here"

# lib.sh's clean_env keeps the caller's environment out; here ddpgen
# finds user profiles through HOME, an empty directory, so that path
# runs under memcheck too.
unset XDG_CONFIG_HOME
HOME=$T/home
export HOME
mkdir -p "$HOME"
me=$(hostname)
n=0

# vg WANT_STATUS [NAME=VALUE ...] PROGRAM ARG...: one run under memcheck,
# with the variables set; two at a time, checked by check_all at the end.
# valgrind's verdict comes from its log, not its exit status, so that it
# cannot be mistaken for the program's.
# shellcheck disable=SC2163 # export "$1": NAME=VALUE
vg() {
	n=$((n + 1))
	echo "$1" >"$T/want.$n"
	shift
	(
		while :; do
			case $1 in
			[A-Za-z_]*=*) export "$1"; shift ;;
			*) break ;;
			esac
		done
		echo "$*" | cut -c 1-120 >"$T/what.$n"
		valgrind --leak-check=full \
		    --errors-for-leak-kinds=definite,indirect \
		    --error-exitcode=99 --log-file="$T/vg.$n.log" "$@" \
		    >"$T/out.$n" 2>"$T/err.$n"
		echo $? >"$T/rc.$n"
	) &
	[ $((n % 2)) -ne 0 ] || wait
}

# memcheck_clean LOG: valgrind's LOG reports no error and no leak.
memcheck_clean() {
	grep -q 'ERROR SUMMARY: 0 errors' "$1" &&
	    ! grep -q 'definitely lost: [1-9]\|indirectly lost: [1-9]' "$1"
}

check_all() {
	wait
	i=0
	while [ $i -lt $n ]; do
		i=$((i + 1))
		log=$T/vg.$i.log what=$(cat "$T/what.$i")
		if ! check "$what: memcheck: $(grep -h 'ERROR SUMMARY\|definitely lost:\|indirectly lost:' "$log" | sed 's/^==[0-9]*== *//' | tr '\n' ' ')" \
		    memcheck_clean "$log"; then
			grep -A 14 'Invalid\|uninitialised\|definitely lost in\|indirectly lost in' \
			    "$log" | head -n 40
			continue
		fi
		expect_eq "$what: exit status" "$(cat "$T/rc.$i")" "$(cat "$T/want.$i")"
		[ "$(cat "$T/rc.$i")" = "$(cat "$T/want.$i")" ] ||
			sed 's/^/    stderr: /' "$T/err.$i" | head -n 5
	done
	echo "$n runs under valgrind"
}

cd "$T" || exit 1

# ddpgen: every shipped profile, every format it takes, to stdout and
# to a file.
for site in cori plmt slurm; do
	vg 0 "$DDPGEN" --site "$site" --nodes 2 --account m1 --env A='x y' \
	    train.py --lr 1
	vg 0 "$DDPGEN" --site "$site" -o "$T/job.sh" -S 'module load x' \
	    --nodes 2 --rdzv c10d --iface '^eth[0-9]$' train.py
done
for f in xml cmd ps; do
	vg 0 "$DDPGEN" --site hpcpack --nodes 3 --format "$f" --time 1:00:00 \
	    /app/run.py "it's"
done
vg 0 "$DDPGEN" --list-sites
vg 0 "$DDPGEN" --show-site plmt
vg 0 "$DDPGEN" --help
vg 0 "$DDPGEN" --version

# ddpgen: bad option values.
vg 2 "$DDPGEN" --nodes 0 train.py
vg 2 "$DDPGEN" --nodes x train.py
vg 2 "$DDPGEN" --time soon train.py
vg 2 "$DDPGEN" --port 70000 train.py
vg 2 "$DDPGEN" --rdzv etcd train.py
vg 2 "$DDPGEN" --env 'A B=1' train.py
vg 2 "$DDPGEN" --format bogus train.py
vg 2 "$DDPGEN" --site cori --format xml train.py
vg 2 "$DDPGEN" --iface '(' train.py
vg 2 "$DDPGEN" --job-name "$(printf 'a\nb')" train.py
vg 2 "$DDPGEN" --ddprank relative/ddprank train.py
vg 2 "$DDPGEN" --bogus train.py
vg 2 "$DDPGEN" --nodes 2
# Unknown site, a profile with several errors, a bad template.
vg 3 "$DDPGEN" --site nosuch train.py
vg 3 "$DDPGEN" --show-site nosuch
vg 3 "$DDPGEN" --site "$srcdir/test/golden/common/bad.conf" train.py
printf 'description = "x"\nscheduler = slurm\nextends = "nosuch"\n' >ext.conf
vg 3 "$DDPGEN" --site ./ext.conf train.py
printf '#!/bin/bash\n{{#args}}{{.}}\n' >unclosed.sh
vg 3 "$DDPGEN" --template "$T/unclosed.sh" train.py
printf '#!/bin/bash\n{{nosuch}}\n' >unknown.sh
vg 3 "$DDPGEN" --template "$T/unknown.sh" train.py
printf 'x' >bad.ext
vg 3 "$DDPGEN" --template "$T/bad.ext" train.py
vg 3 "$DDPGEN" --template "$T/missing.sh" train.py
# Unwritable output: no such directory, and a file where a directory
# should be (root may write anywhere else).
vg 1 "$DDPGEN" -o "$T/no/such/dir/job.sh" train.py
: >afile
vg 1 "$DDPGEN" -o "$T/afile/job.sh" train.py

# ddprank: each subcommand, with each scheduler's variables.
printf '%s slots=2\nother1\n' "$me" >hosts
printf '%s\n%s\nother2\n' "$me" "$me" >pbsnodes
vg 0 SLURM_JOB_NODELIST="$me" SLURM_JOB_ID=1234 SLURM_NODEID=0 \
    MASTER_ADDR=127.0.0.1 "$DDPRANK" env
vg 0 SLURM_STEP_NODELIST="$me" SLURM_JOB_ID=1234 SLURM_STEP_ID=2 \
    MASTER_ADDR=127.0.0.1 "$DDPRANK" env --format json --rdzv c10d
vg 0 SLURM_JOB_NODELIST="$me" SLURM_JOB_ID=1234 "$DDPRANK" env \
    --iface '^lo$'
vg 0 CCP_NODES="2 other 4 $me 4" CCP_JOBID=7 MASTER_ADDR=192.0.2.1 \
    "$DDPRANK" env
vg 0 PBS_NODEFILE="$T/pbsnodes" PBS_JOBID=88.server MASTER_ADDR=m \
    "$DDPRANK" env
vg 0 LSB_MCPU_HOSTS="other 2 $me 2" LSB_JOBID=9 MASTER_ADDR=m \
    "$DDPRANK" env --format json
vg 0 FLUX_JOB_ID=f2b FLUX_TASK_RANK=1 MASTER_ADDR=m \
    DDPRANK_FLUX_R='{"version":1,"execution":{"R_lite":[{"rank":"0-1","children":{"core":"0"}}],"nodelist":["other","'"$me"'"]}}' \
    "$DDPRANK" env
vg 0 MASTER_ADDR=m "$DDPRANK" env --hostfile hosts --port 29500
vg 127 SLURM_JOB_NODELIST="$me" SLURM_JOB_ID=1234 \
    MASTER_ADDR=127.0.0.1 "$DDPRANK" exec -- ./no-such-command
# The launchers' variables and flags (deepspeed's hostfile, accelerate's
# total), and srun-direct's per-task numbers.
vg 127 SLURM_JOB_NODELIST="$me" SLURM_JOB_ID=1234 MASTER_ADDR=127.0.0.1 \
    "$DDPRANK" exec --launcher deepspeed -- ./no-such-command x.py
vg 127 SLURM_JOB_NODELIST="$me" SLURM_JOB_ID=1234 MASTER_ADDR=127.0.0.1 \
    "$DDPRANK" exec --launcher accelerate --nproc-per-node 2 -- \
    ./no-such-command launch x.py
vg 127 SLURM_JOB_NODELIST="$me" SLURM_JOB_ID=1234 SLURM_LOCALID=1 \
    SLURM_STEP_NUM_TASKS=2 SLURM_STEP_NUM_NODES=1 MASTER_ADDR=127.0.0.1 \
    "$DDPRANK" exec --launcher srun -- ./no-such-command x.py
vg 0 "$DDPRANK" hosts 'nid[001-004,010],login[1-2]'
vg 0 SLURM_JOB_NODELIST='n[1-3]' "$DDPRANK" hosts
vg 0 "$DDPRANK" hosts --hostfile hosts
vg 0 "$DDPRANK" ip --iface '^lo$'
vg 0 "$DDPRANK" ip --iface '^lo$' -4
vg 0 SLURM_JOB_ID=42 SLURM_STEP_ID=1 "$DDPRANK" port --port-range 30000-30099
vg 0 "$DDPRANK" port --port 29500
vg 0 "$DDPRANK" --help
vg 0 "$DDPRANK" --version
# The preflight: one node; two, the second never reporting; a mistyped
# variable, in JSON; HPC Pack's directory, the second task missing.
vg 0 SLURM_JOB_NODELIST="$me" SLURM_JOB_ID=7 "$DDPRANK" doctor \
    --iface '^lo$' --port 29513 --launcher sh
vg 8 SLURM_JOB_NODELIST="$me,n2" SLURM_JOB_ID=7 MASTER_ADDR=127.0.0.1 \
    "$DDPRANK" doctor --port 29514 --launcher sh --wait 1
vg 8 SLURM_JOB_NODELIST="$me" SLURM_JOB_ID=7 NCCL_SOCKET_IFNAM=x \
    "$DDPRANK" doctor --iface '^lo$' --port 29515 --launcher sh --format json
vg 8 CCP_JOBID=8 CCP_TASKID=1 "$DDPRANK" doctor --exchange "dir:$T/xch3" \
    --nnodes 2 --wait 1 --iface '^lo$' --port 29516 --launcher sh
# The shared-directory exchange of HPC Pack jobs: alone, and waiting in
# vain for a second node.
mkdir xch1 xch2
vg 0 CCP_JOBID=5 CCP_TASKID=1 "$DDPRANK" env --exchange "dir:$T/xch1" \
    --nnodes 1 --iface '^lo$' --port 29511
# Authenticated, with the job's secret, and the port derived from it.
vg 0 CCP_JOBID=5 CCP_TASKID=1 DDPRANK_SECRET=000102030405060708090a0b0c0d0e0f \
    "$DDPRANK" env --exchange "dir:$T/xch1" --nnodes 1 --iface '^lo$'
vg 2 DDPRANK_SECRET=0123 SLURM_JOB_ID=42 "$DDPRANK" port
# Two nodes need an address the other can reach: not loopback.
ifc=$(ip -o -4 addr show 2>/dev/null | awk '$2 != "lo" { print $2; exit }')
if [ -n "$ifc" ]; then
	vg 7 CCP_JOBID=6 CCP_TASKID=1 "$DDPRANK" env --exchange "dir:$T/xch2" \
	    --nnodes 2 --exchange-timeout 1 --iface "^$ifc\$" --port 29512
else
	echo "note: no interface but lo; the exchange timeout is not run"
fi
# exec itself replaces the process, so its success is not checked here;
# the step before the exec is (ddprank exec -- ./no-such-command).

# ddprank: failures.
vg 4 "$DDPRANK" env
vg 4 SLURM_JOB_NODELIST='n[1-' "$DDPRANK" env
vg 4 SLURM_JOB_NODELIST='nowhere1,nowhere2' SLURM_JOB_ID=1 \
    MASTER_ADDR=m "$DDPRANK" env
vg 4 SLURM_JOB_NODELIST="$me" SLURM_NODEID=x "$DDPRANK" env
vg 4 CCP_NODES="3 a 1" "$DDPRANK" env
vg 4 PBS_NODEFILE="$T/missing" "$DDPRANK" env
vg 4 LSB_MCPU_HOSTS="a" "$DDPRANK" env
vg 4 FLUX_JOB_ID=f2b DDPRANK_FLUX_R='{"version":1,"execution":{"nodelist":["a"],"nodelist":[]}}' \
    "$DDPRANK" env
printf 'a\na\n' >dup
vg 4 "$DDPRANK" env --hostfile dup
vg 2 "$DDPRANK" hosts 'n[1-2'
vg 5 "$DDPRANK" ip --iface '^no-such-interface$'
vg 6 SLURM_JOB_NODELIST="$me" "$DDPRANK" env --iface '^lo$'
vg 6 "$DDPRANK" port
vg 2 "$DDPRANK" ip --iface '('
vg 2 "$DDPRANK" ip
vg 2 "$DDPRANK" env --port 0
vg 2 "$DDPRANK" env --port-range 9-1
vg 2 "$DDPRANK" env --scheduler nosuch
vg 2 "$DDPRANK" env --format xml
vg 2 "$DDPRANK" hosts a b
vg 2 "$DDPRANK" exec
vg 2 "$DDPRANK" --bogus
vg 2 "$DDPRANK" env --port
vg 2 "$DDPRANK" port --iface x
vg 2 "$DDPRANK" env --exchange bogus
vg 2 "$DDPRANK" env --exchange dir:relative
vg 2 "$DDPRANK" env --exchange-timeout 5

check_all
finish
