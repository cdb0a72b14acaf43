# e2e-lib.sh: what the end-to-end tests on the namespace Slurm cluster
# share (t-e2e-slurm.sh, t-e2e-field.sh). Source it after lib.sh, with
# cluster and check_job set; then e2e_up N brings up an N-node cluster
# (cleaned up at exit), gen and submit run jobs, expect_* check them and
# e2e_down checks that nothing is left.

need_cluster sbatch srun scancel timeout
need_torchrun
need_built ddpgen ddprank
# An empty T would make every path below absolute.
[ -n "$T" ] && [ -d "$T" ] || { echo "FAIL: no temporary directory"; exit 1; }
T=$(cd "$T" && pwd)

# Nothing of the caller's may reach the jobs (sbatch exports the
# submitter's environment, and srun and ddprank read it): lib.sh's
# clean_env has removed it.  ddpgen finds the test profiles, which
# extend the shipped ones, and no profile of the user's.
DDPGEN_PROFILE_PATH=$srcdir/test/e2e:$srcdir/profiles
DDPGEN_TEMPLATE_PATH=$srcdir/templates
export DDPGEN_PROFILE_PATH DDPGEN_TEMPLATE_PATH

# --- the cluster ---------------------------------------------------------------
# munged runs as user munge and must reach its socket under $T.
chmod 0755 "$T"
CLUSTER_DIR=$T/cluster
export CLUSTER_DIR
# cori and plmt request 64 and 128 CPUs per task: nodes configured with
# 128 take both as shipped (the machine's own cores do not matter).
CLUSTER_CPUS=128
export CLUSTER_CPUS
listener=
cleanup() {
	[ -z "$listener" ] || kill "$listener" 2>/dev/null
	"$cluster" down
}
on_exit cleanup
trap 'exit 130' INT TERM HUP

timings=
timing() { timings="$timings$1 $2 s; "; echo "TIME: $1 $2 s"; }

# e2e_up N [IFNAMES]: an N-node cluster (IFNAMES as for cluster.sh up),
# its environment in this shell.
e2e_up() {
	t_start=$(date +%s)
	check "cluster.sh up" "$cluster" up "$@" || finish
	eval "$("$cluster" env)"
	. "$CLUSTER_DIR/cluster.vars"
	timing "cluster up" $(($(date +%s) - t_start))
}

# --- running a job -------------------------------------------------------------
# gen NAME DDPGEN-ARGS...: write $T/NAME/job.sh with ddpgen; the test
# environment's torchrun fix must not leak into it.
gen() {
	name=$1
	shift
	mkdir -p "$T/$name"
	if ! check "$name: ddpgen failed" \
	    "$DDPGEN" "$@" >"$T/$name/job.sh" 2>"$T/$name/ddpgen.err"; then
		cat "$T/$name/ddpgen.err"
		return 1
	fi
	check "$name: the generated script mentions the test's torchrun workaround" \
	    ! grep -n -i -e sitecustomize -e redirects -e --tee \
	    -e PYTHONPATH "$T/$name/job.sh"
}

# submit NAME LIMIT [SBATCH-OPTION...]: sbatch --wait the job in $T/NAME,
# from that directory, for at most LIMIT seconds. Sets JOBID, RC, STATE, SECS,
# OUT (the job's output file), NODES_OF (its nodes in Slurm's order)
# and FIRST.
submit() {
	name=$1
	JOBID= STATE= OUT= NODES_OF= FIRST=
	# train.py's lines, one file per rank: srun may tear long lines
	# in the job's output.
	rm -rf "$T/$name/ranks"
	mkdir -p "$T/$name/ranks"
	DDPTEST_DIR=$T/$name/ranks
	export DDPTEST_DIR
	t0=$(date +%s)
	limit=$2
	shift 2
	(cd "$T/$name" && exec timeout "$limit" sbatch --parsable --wait "$@" \
	    job.sh >sbatch.out 2>sbatch.err)
	RC=$?
	SECS=$(($(date +%s) - t0))
	timing "job $name" "$SECS"
	JOBID=$(sed -n '1{s/;.*//;p;}' "$T/$name/sbatch.out")
	check "$name: no job id from sbatch: $(cat "$T/$name/sbatch.err")" \
	    test -n "$JOBID" || return 1
	check "$name: job $JOBID still running after $limit s" \
	    test "$RC" != 124 || scancel "$JOBID"
	STATE=$("$cluster" state "$JOBID")
	OUT=$T/$name/ddp-$JOBID.out
	NODES_OF=$(grep "^JobId=$JOBID " "$CLUSTER_DIR/log/jobcomp.txt" |
	    sed -n 's/.* NodeList=\([^ ]*\) .*/\1/p')
	NODES_OF=$(scontrol show hostnames "$NODES_OF" | tr '\n' ' ')
	NODES_OF=${NODES_OF% }
	FIRST=${NODES_OF%% *}
}

show_logs() {
	echo "--- $OUT"
	grep -v -e '^\*\*\*' -e OMP_NUM_THREADS -e '^WARNING:torch' "$OUT" |
	    cut -c 1-600
	for f in "$T/$1/sbatch.err" "$CLUSTER_DIR"/log/slurm*.log; do
		[ -s "$f" ] || continue
		echo "--- $f"
		tail -n 10 "$f"
	done
}

# resolved NAME: the address NAME has for the nodes (their hosts file).
resolved() {
	awk -v h="$1" '{ for (i = 2; i <= NF; i++) if ($i == h) { print $1; exit } }' \
	    "$CLUSTER_DIR/etc/hosts"
}

# The training srun is the job's second step, after the preflight's.
train_step=1

# auto_port NAME [VAR]: the port of job NAME. ddprank(1) derives it from
# the job's secret, which only the job knows (the batch shell makes it
# and ddprank exec drops it): it is the one rank 0 saw in VAR (torchrun's
# PET_MASTER_PORT unless given), which check_job.py then expects of every
# rank, and it must be in the default range 20000-29999.
auto_port() {
	python3 -c '
import json, sys
for path in sys.argv[2:]:
    for line in open(path, encoding="utf-8", errors="replace"):
        at = line.find("DDPTEST ")
        if at >= 0:
            print(json.loads(line[at + 8:])["env"].get(sys.argv[1], ""))
            sys.exit(0)' "${2:-PET_MASTER_PORT}" "$T/$1"/ranks/* 2>/dev/null
}

# expect_job NAME NODES PPN DISCOVERY RDZV JOBNAME ARGV-FILE [CHECK...]:
# the job ran to completion on NODES nodes with PPN processes each, and
# every rank saw what it should, and what the check_job.py options CHECK
# add. DISCOVERY is hostname, an interface name, or IFACE/SOCKIF when the
# job set the socket interface names to SOCKIF itself. RDZV is static,
# c10d, or none for a launcher other than torchrun (launcher.h): no PET_*
# variable reaches the training, and MASTER_PORT is the job's port.
expect_job() {
	name=$1 nodes=$2 ppn=$3 disc=$4 rdzv=$5 jname=$6 argv=$7
	shift 7
	expect_eq "$name: sbatch --wait exit status" "$RC" 0
	expect_eq "$name: job $JOBID state" "$STATE" COMPLETED
	n=0
	for h in $NODES_OF; do n=$((n + 1)); done
	expect_eq "$name: number of nodes" "$n" "$nodes"
	if [ "$disc" = hostname ]; then
		addr=$(resolved "$FIRST")
		set -- "$@" --expect-unset GLOO_SOCKET_IFNAME \
		    --expect-unset NCCL_SOCKET_IFNAME
	else
		# IFACE/SOCKIF: the address of IFACE, the socket interface
		# names SOCKIF that the job set itself.
		# SOCKIF may be a list, "hsn0,hsn1": Gloo takes the first.
		sockif=${disc#*/}
		addr=$("$cluster" addr "$FIRST" "${disc%/*}")
		set -- "$@" --expect-env "GLOO_SOCKET_IFNAME=${sockif%%,*}" \
		    --expect-env "NCCL_SOCKET_IFNAME==$sockif"
	fi
	if [ "$rdzv" = none ]; then
		port=$(auto_port "$name" MASTER_PORT)
	else
		port=$(auto_port "$name")
		set -- "$@" --expect-env "PET_MASTER_ADDR=$addr" \
		    --expect-env "PET_MASTER_PORT=$port" \
		    --expect-env "PET_NNODES=$nodes"
	fi
	check "$name: port '$port' not in 20000-29999" \
	    matches "$port" "2[0-9][0-9][0-9][0-9]"
	if [ "$rdzv" = none ]; then
		set -- "$@" --master-addr "$addr" \
		    --expect-env "MASTER_PORT=$port" \
		    --expect-unset PET_NNODES --expect-unset PET_MASTER_ADDR
	elif [ "$rdzv" = c10d ]; then
		# torchrun hands its workers the host name of the agent
		# with group rank 0 (torch 2.3 and later: its --local-addr,
		# PET_LOCAL_ADDR, which ddprank sets with an interface) and
		# a port of its own; the endpoint ddprank gave it shows in
		# PET_RDZV_ENDPOINT.
		c10d_master=$FIRST
		[ "$disc" = hostname ] || ! torch_at_least 2 3 ||
		    c10d_master=$addr
		set -- "$@" --master-addr "$c10d_master" \
		    --expect-env PET_RDZV_BACKEND=c10d \
		    --expect-env "PET_RDZV_ENDPOINT=$addr:$port" \
		    --expect-env "PET_RDZV_ID=$JOBID.$train_step" \
		    --expect-env "TORCHELASTIC_RUN_ID=$JOBID.$train_step"
	else
		set -- "$@" --master-addr "$addr" \
		    --expect-env "MASTER_PORT=$port" \
		    --expect-unset PET_RDZV_BACKEND
	fi
	# Every rank's line reached the job's output, if maybe torn.
	expect_eq "$name: DDPTEST lines in the job's output" \
	    "$(grep -a -o 'DDPTEST {' "$OUT" | wc -l)" $((nodes * ppn))
	if ! check "$name: check_job.py" \
	    python3 "$check_job" --nodes "$nodes" --procs-per-node "$ppn" \
	    --node-order "$NODES_OF" --argv-file "$argv" \
	    --expect-unset DDPRANK_SECRET \
	    --expect-env "SLURM_JOB_NAME=$jname" "$@" "$T/$name"/ranks/*; then
		show_logs "$name"
	fi
	check "$name: an argument was run as a command (in the job's directory)" \
	    test ! -e "$T/$name/pwned"
	check "$name: an argument was run as a command (in the test's)" \
	    test ! -e "$T/pwned"
}

# expect_failed NAME PATTERN WHAT: the job failed, within 60 s, and its
# output has a line matching the extended regex PATTERN.
expect_failed() {
	expect_eq "$1: job $JOBID state" "$STATE" FAILED
	check "$1: sbatch --wait exit status 0" test "$RC" != 0
	check "$1: the job took $SECS s to fail" test "$SECS" -le 60
	expect_output "$@"
}

# expect_output NAME PATTERN WHAT: the job's output has a line matching
# the extended regex PATTERN, which shows WHAT.
expect_output() {
	check "$1: the output does not say $3 (no line matching $2)" \
	    grep -a -q -E -e "$2" "$OUT" || show_logs "$1"
}

# expect_report_names NAME HOST: torchrun's failure report in the job's
# output names HOST, with the exit status 3 of train.py's failure.
expect_report_names() {
	# Each line may start with srun --label's "TASK: ".
	check "$1: torchrun's report does not name $2 with exit status 3" \
	    awk -v h="$2" '{ sub(/^[0-9]+: /, "") }
	    $1 == "host" && $3 == h { at = NR }
	    $1 == "exitcode" && $3 == 3 && NR == at + 2 { f = 1 }
	    END { exit !f }' "$OUT" || show_logs "$1"
}

# e2e_down: the cluster goes, leaving nothing; then the timings.
e2e_down() {
	t0=$(date +%s)
	"$cluster" down
	timing "cluster down" $(($(date +%s) - t0))
	expect_eq "left after down" "$("$cluster" leftovers)" ""
	left=$(for f in /proc/[0-9]*/cmdline; do
		case $(tr '\0' ' ' 2>/dev/null <"$f") in
		*"$T"*) echo "${f%/cmdline}" ;;
		esac
	done)
	expect_eq "processes naming the test directory left after down" "$left" ""

	timing total $(($(date +%s) - t_start))
	echo "timings: $timings"
}
