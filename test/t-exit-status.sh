#!/bin/sh
# t-exit-status.sh: every exit status documented in ddpgen(1) and
# ddprank(1) is reached by a case below, with its message in the one
# option-error format "PROG: OPTION: what is wrong", the program's short
# name first (never argv[0]'s path).
. "$(dirname "$0")/lib.sh"

cd "$T" || exit 1
me=$(hostname)
printf 'other\n%s\n' "$me" >hosts
printf 'x\n' >notexec
printf 'description = "x"\nscheduler = slurm\nbogus = 1\n' >bad.conf
printf '#!/bin/bash\n{{nosuchvar}}\n' >bad.sh
tab=$(printf '\t')
seen=
stdout=out

# t STATUS PATTERN PROG ARGS...: PROG ARGS exits STATUS (PROG gen is
# ddpgen with --ddprank given, for jobs); on failure its
# first stderr line matches PATTERN (grep -E), then at most the usage.
# Standard output goes to $stdout.
t() {
	want=$1 pat=$2 prog=$3
	shift 3
	case $prog in
	gen)	bin=$DDPGEN prog=ddpgen
		set -- --ddprank /opt/ddpgen/bin/ddprank "$@" ;;
	ddpgen)	bin=$DDPGEN ;;
	*)	bin=$DDPRANK ;;
	esac
	MASTER_ADDR=m "$bin" "$@" >"$stdout" 2>err
	rc=$?
	head -n 1 err >err_first
	seen="$seen $prog:$rc"
	expect_eq "$prog $*: status" "$rc" "$want"
	[ "$want" -ne 0 ] || return
	check "$prog $*: stderr [$(cat err)] starts with [^$prog: $pat]" \
	    grep -Eq -- "^$prog: $pat" err_first
	check "$prog $*: one error line: $(cat err)" \
	    test "$(sed 1d err | grep -vc -e '^usage:' -e '^ ')" -eq 0
}

t 0 '' gen --nodes 2 train.py
t 1 "$T/nodir/job.sh" gen -o "$T/nodir/job.sh" train.py
t 2 "--nodes: '0' is not a number from 1" gen --nodes 0 train.py
t 2 "--bogus: unknown option$" ddpgen --bogus train.py
t 2 "-Z: unknown option$" ddpgen -Z train.py
t 2 "--site: needs a value$" ddpgen --site
t 2 "-s: needs a value$" ddpgen -s
t 2 "--list-sites: takes no value$" ddpgen --list-sites=x
t 2 "--s: ambiguous option$" ddpgen --s x train.py
t 2 "--list-sites: unexpected argument 'junk'$" ddpgen --list-sites junk
t 2 "--show-site: --account does not apply$" ddpgen --show-site cori -A m1
t 2 "--show-site: unexpected argument 'x'$" ddpgen --show-site cori x
t 2 "--env: 'A=a\\\\tb': control byte 0x09" gen -s hpcpack -f cmd \
    -e "A=a${tab}b" train.py
t 2 "--env: 'A=a\\\\x01b': control byte 0x01" gen -s hpcpack \
    -e "A=a$(printf '\001')b" train.py
t 2 "no training script given" gen
t 3 "unknown site 'nosuch'" gen --site nosuch train.py
t 3 "\./bad.conf:3: unknown key 'bogus'" gen --site ./bad.conf train.py
t 3 "$T/bad.sh:2: .*nosuchvar" gen -T "$T/bad.sh" train.py

t 0 '' ddprank hosts 'a[1-2]'
stdout=/dev/full
t 1 "" ddprank hosts a
stdout=out
t 2 "--bogus: unknown option$" ddprank --bogus
t 2 "-Z: unknown option$" ddprank env -Z
t 2 "--scheduler: needs a value$" ddprank env --scheduler
t 2 "--version: takes no value$" ddprank --version=1
t 2 "--scheduler: 'x' is not auto, slurm" ddprank env --scheduler x
t 2 "--rdzv: 'etcd' is not static or c10d$" ddprank env --rdzv etcd
t 2 "--format: 'xml' is not sh or json$" ddprank env --format xml
t 2 "--nnodes: '0' is not a number from 1" ddprank env --nnodes 0
t 2 "--port: " ddprank env --port x
t 2 "unexpected argument 'b'$" ddprank hosts a b
t 2 "hosts: --iface does not apply$" ddprank hosts --iface x
t 4 "no node list" ddprank env
t 5 "" ddprank ip --iface '^nonexistent0$'
t 6 "--port auto needs a job id" ddprank port
t 7 "--exchange dir: needs a job id" ddprank env --exchange dir:"$T/x" \
    --nnodes 1 --iface '^lo$' --port 47123
# 9: no binding plan: a topology hwloc cannot read; a worker's step
# without the plan exec hands over.
t 9 "hwloc cannot read the topology of nosuch\\.xml: " ddprank bind \
    --explain --topology nosuch.xml
t 9 "DDPRANK_BIND_PLAN is not set" ddprank bind -- true
t 2 "--bind: 'cores' is not none, numa or gpu" ddprank exec --bind cores \
    -- true
t 2 "--bind-reserve: '1-0' is not a CPU list" ddprank exec \
    --bind-reserve 1-0 -- true
t 2 "--bind: 'cores' is not none, numa or gpu" gen --bind cores train.py
t 126 "cannot execute '\./notexec'" ddprank exec --hostfile hosts --port 1 \
    -- ./notexec
t 127 "cannot execute '\./no-such-cmd'" ddprank exec --hostfile hosts \
    --port 1 -- ./no-such-cmd

# 8: a check of the doctor fails. Its report goes to standard output (the
# job's log), one line per check, and says which check failed.
printf '%s\n' "$me" >onehost
NCCL_SOCKET_IFNAM=eth3 "$DDPRANK" doctor --hostfile onehost --port 29977 \
    >report 2>err
rc=$?
seen="$seen ddprank:$rc"
expect_eq "ddprank doctor with NCCL_SOCKET_IFNAM: status" "$rc" 8
check "ddprank doctor: report lacks the env FAIL: $(cat report)" \
    grep -q '^FAIL env .*NCCL_SOCKET_IFNAM.*did you mean NCCL_SOCKET_IFNAME' report

# 8 from ddpgen: --check finds a training script that is not there. Its
# findings go to standard output, one line each.
"$DDPGEN" --site local nosuch.py >checked.sh
"$DDPGEN" --check checked.sh >report 2>err
rc=$?
seen="$seen ddpgen:$rc"
expect_eq "ddpgen --check of a job without its script: status" "$rc" 8
check "ddpgen --check: report lacks the script's FAIL: $(cat report)" \
    grep -q "^FAIL script: .*nosuch.py' does not exist here" report
expect_eq "ddpgen --check: nothing on standard error" "$(cat err)" ""

# Every status the man pages document was reached above.
for prog in ddpgen ddprank; do
	for st in $(sed -n '/^\.Sh EXIT STATUS/,/^\.Sh /s/^\.It \([0-9][0-9]*\)$/\1/p' \
	    "$srcdir/man/$prog.1"); do
		check "$prog: documented exit status $st tested" \
		    matches " $seen " "* $prog:$st *"
	done
done
finish
