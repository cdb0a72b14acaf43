#!/bin/sh
# t-bind.sh: the binding without a cluster (ddprank(1), BINDING): ddprank
# bind --explain over the centres' hwloc XML topologies of test/topo/,
# word for word; the plans a node cannot hold, one line and status 9;
# exec handing the plan over; a worker's binding step on this machine
# (its CPUs read back, OMP_NUM_THREADS, the launcher's python,
# DeepSpeed's --local_rank put back); the doctor's bind check, a bound
# process off its plan a warning naming its rank and process; and what
# ddpgen writes for each launcher and container.
. "$(dirname "$0")/lib.sh"

topo=$srcdir/test/topo
cd "$T" || exit 1
need_progs python3 taskset
me=$(hostname)
printf '%s\n' "$me" >onehost

# explain NAME ARGS...: the plan of test/topo/NAME.xml, without the host.
explain() {
	name=$1
	shift
	"$DDPRANK" bind --explain --topology "$topo/$name.xml" "$@" >out 2>err
	echo "$?" >rc
	sed "s/^$me //" out
}

# --- the centres' maps, as ddprank prints them ---------------------------------------
got=$(explain frontier --bind gpu --bind-reserve 0,8,16,24,32,40,48,56 -n 8)
expect_eq "frontier: status" "$(cat rc)" 0
expect_eq "frontier: the plan" "$got" "rank 0: cpus 49-55,113-119 (7 cores, NUMA 3), GPU 0 (0000:c1:00.0), NIC hsn0 (cxi0)
rank 1: cpus 57-63,121-127 (7 cores, NUMA 3), GPU 1 (0000:c6:00.0), NIC hsn0 (cxi0)
rank 2: cpus 17-23,81-87 (7 cores, NUMA 1), GPU 2 (0000:c9:00.0), NIC hsn1 (cxi1)
rank 3: cpus 25-31,89-95 (7 cores, NUMA 1), GPU 3 (0000:ce:00.0), NIC hsn1 (cxi1)
rank 4: cpus 1-7,65-71 (7 cores, NUMA 0), GPU 4 (0000:d1:00.0), NIC hsn2 (cxi2)
rank 5: cpus 9-15,73-79 (7 cores, NUMA 0), GPU 5 (0000:d6:00.0), NIC hsn2 (cxi2)
rank 6: cpus 33-39,97-103 (7 cores, NUMA 2), GPU 6 (0000:d9:00.0), NIC hsn3 (cxi3)
rank 7: cpus 41-47,105-111 (7 cores, NUMA 2), GPU 7 (0000:de:00.0), NIC hsn3 (cxi3)"
# Without -n: one rank per GPU, gpu the policy.
got=$(explain perlmutter)
expect_eq "perlmutter: the plan" "$got" "rank 0: cpus 48-63,112-127 (16 cores, NUMA 3), GPU 0 (0000:03:00.0), NIC hsn0 (cxi0)
rank 1: cpus 32-47,96-111 (16 cores, NUMA 2), GPU 1 (0000:41:00.0), NIC hsn1 (cxi1)
rank 2: cpus 16-31,80-95 (16 cores, NUMA 1), GPU 2 (0000:82:00.0), NIC hsn2 (cxi2)
rank 3: cpus 0-15,64-79 (16 cores, NUMA 0), GPU 3 (0000:c1:00.0), NIC hsn3 (cxi3)"
# CUDA_VISIBLE_DEVICES reorders: device 0 is GPU 3, and its rank takes
# GPU 3's cores.
got=$(CUDA_VISIBLE_DEVICES=3,2,1,0 explain perlmutter | head -n 1)
expect_eq "perlmutter, devices reversed: rank 0" "$got" "rank 0: cpus 0-15,64-79 (16 cores, NUMA 0), GPU 3 (0000:c1:00.0), NIC hsn3 (cxi3)"
got=$(LOCAL_WORLD_SIZE=2 explain cpuonly --bind numa)
expect_eq "cpuonly: two ranks, a socket each" "$got" "rank 0: cpus 0-63,128-191 (64 cores, NUMA 0), GPU none, NIC hsn0 (cxi0)
rank 1: cpus 64-127,192-255 (64 cores, NUMA 4), GPU none, NIC none"
got=$(explain polaris --bind none)
expect_eq "bind none explains itself" "$got" "$me: bind none: the workers run where their launcher and the scheduler put them"

# --- plans a node cannot hold: one line, status 9 ----------------------------------
# fails STATUS MESSAGE COMMAND...: COMMAND exits STATUS with one line
# on standard error, MESSAGE.
fails() {
	want=$1 msg=$2
	shift 2
	"$@" >out 2>err
	expect_eq "$*: status" "$?" "$want"
	expect_eq "$*: message" "$(cat err)" "$msg"
}
fails 9 "ddprank: hwloc sees no GPU on this node: bind = gpu gives each local rank its own (bind = numa binds the cores alone)" \
    "$DDPRANK" bind --explain --topology "$topo/nogpu.xml"
fails 9 "ddprank: 8 local ranks but 4 GPUs on this node: bind = gpu gives each rank its own" \
    "$DDPRANK" bind --explain --topology "$topo/perlmutter.xml" -n 8
fails 9 "ddprank: the job sees 2 of this node's 4 GPUs: bind = gpu needs every GPU of the node visible (a whole node), as it cannot tell which ones these are" \
    env CUDA_VISIBLE_DEVICES=0,1 "$DDPRANK" bind --explain \
    --topology "$topo/perlmutter.xml" -n 2
fails 9 "ddprank: CUDA_VISIBLE_DEVICES: 'GPU-5d2e' is not a device number: bind = gpu maps numbers to the node's GPUs in PCI bus order" \
    env CUDA_VISIBLE_DEVICES=GPU-5d2e "$DDPRANK" bind --explain \
    --topology "$topo/perlmutter.xml"
printf '<topology>\n' >broken.xml
check "a broken topology: status 9" ! "$DDPRANK" bind --explain \
    --topology broken.xml 2>err
check "a broken topology: hwloc's line" \
    grep -q '^ddprank: hwloc cannot read the topology of broken.xml' err
ncpu=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
# This task's CPUs, narrowed below the plan's: Slurm's -c.
fails 9 "ddprank: local rank 1's CPUs 1 are not all among this task's, 0: ask for whole nodes and every CPU (--exclusive, -c), or set bind = none" \
    taskset -c 0 "$DDPRANK" bind --explain --bind numa -n 2

# --- exec hands the plan over ------------------------------------------------------
"$DDPRANK" exec --hostfile onehost --port 29871 --bind numa -n 2 \
    --bind-nic-var DDPTEST_NIC -- sh -c 'printf "%s\n" "$DDPRANK_BIND_PLAN"' \
    >plan 2>err
expect_eq "exec: status" "$?" 0
check "exec: the plan: $(cat plan) $(cat err)" \
    grep -Eq '^1;numa;DDPTEST_NIC;0/1/-/[^;]*;1/1/-/[^;]*$' plan
"$DDPRANK" exec --hostfile onehost --port 29871 -- \
    sh -c 'printf "[%s]\n" "${DDPRANK_BIND_PLAN-unset}"' >plan 2>err
expect_eq "exec without --bind: no plan" "$(cat plan)" "[unset]"
fails 9 "ddprank: NUMA domain 0 has $ncpu free cores for $((ncpu + 1)) local ranks" \
    "$DDPRANK" exec --hostfile onehost --port 29871 --bind numa \
    -n $((ncpu + 1)) -- true

# --- a worker's binding step, as a launcher runs it --------------------------------
cat >probe.py <<'PY'
import os, sys
print(sorted(os.sched_getaffinity(0)), os.environ["OMP_NUM_THREADS"],
      os.environ.get("DDPTEST_NIC"), sys.argv[1:])
PY
# launch ARGS...: ddprank bind ARGS as a python launcher's worker of
# local rank 1 of 2, under the plan exec made above.
plan='1;numa;DDPTEST_NIC;0/1/-/-;1/1/-/mlx5_1'
launch() {
	LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 DDPRANK_BIND_PLAN=$plan python3 -c '
import subprocess, sys
sys.exit(subprocess.run(sys.argv[1:]).returncode)' "$DDPRANK" bind "$@"
}
expect_eq "worker: bound, its python, the NIC" \
    "$(launch --python -- probe.py a 2>&1)" "[1] 1 mlx5_1 ['a']"
expect_eq "worker: DeepSpeed's --local_rank after the script" \
    "$(launch --python --local-rank-arg -- probe.py a 2>&1)" \
    "[1] 1 mlx5_1 ['--local_rank=1', 'a']"
expect_eq "worker: a program of its own" \
    "$(launch -- python3 probe.py b 2>&1)" "[1] 1 mlx5_1 ['b']"
out=$(LOCAL_RANK=1 LOCAL_WORLD_SIZE=3 DDPRANK_BIND_PLAN=$plan \
    "$DDPRANK" bind -- true 2>&1)
expect_eq "worker: more workers than the plan ranks" "$out" \
    "ddprank: the launcher started 3 workers on this node and the plan has 2 ranks (--nproc-per-node)"
out=$(LOCAL_RANK=1 DDPRANK_BIND_PLAN=$plan sh -c \
    '"$1" bind --python -- probe.py; echo "$?"' sh "$DDPRANK" 2>&1)
check "worker: a launcher that is no python: $out" \
    matches "$out" "ddprank: the launcher's program 'sh' (the first word of process * command line) is not a python, *
9"
out=$(LOCAL_RANK=0 DDPRANK_BIND_PLAN='1;gpu;-;x/1/-/-' "$DDPRANK" bind -- \
    true 2>&1)
expect_eq "worker: a plan not of ddprank's" "$out" \
    "ddprank: DDPRANK_BIND_PLAN is not a binding plan of this ddprank's (ddprank(1), BINDING)"

# --- the doctor -----------------------------------------------------------------------
# A bound process off its plan (rank 1, planned on CPU 1, put on CPU 0),
# and one on it.
DDPRANK_BIND_PLAN='1;numa;-;0/1/-/-;1/1/-/-' LOCAL_RANK=1 \
    taskset -c 0 sleep 60 &
off=$!
DDPRANK_BIND_PLAN='1;numa;-;0/1/-/-;1/1/-/-' LOCAL_RANK=0 \
    taskset -c 0 sleep 60 &
on=$!
on_exit "kill $off $on 2>/dev/null"
"$DDPRANK" doctor --hostfile onehost --port 29872 --launcher sh \
    --bind numa -n 2 >report 2>err
expect_eq "doctor with a process off its plan: status (a warning)" "$?" 0
check "doctor: the WARN names the rank and the process: $(cat report)" \
    grep -Eq "^WARN bind [^:]*: local rank 1 \(process $off\) runs on CPUs 0, not the plan's 1; 1 of [0-9]+ bound processes off their plan$" \
    report
kill "$off" "$on" 2>/dev/null
wait "$off" "$on" 2>/dev/null
# In a job, only the job's own processes count: another job's worker off
# its plan is not this job's doctor's business.
SLURM_JOB_ID=6 DDPRANK_BIND_PLAN='1;numa;-;0/1/-/-;1/1/-/-' LOCAL_RANK=1 \
    taskset -c 0 sleep 60 &
other=$!
on_exit "kill $other 2>/dev/null"
SLURM_JOB_ID=5 SLURM_JOB_NODELIST=$me "$DDPRANK" doctor --scheduler slurm \
    --port 29872 --launcher sh --bind numa -n 2 >report 2>err
check "doctor: another job's process is not this job's: $(cat report)" \
    ! grep -q "process $other" report
kill "$other" 2>/dev/null
wait "$other" 2>/dev/null
"$DDPRANK" doctor --hostfile onehost --port 29872 --launcher sh \
    --bind gpu --topology "$topo/nogpu.xml" >report 2>err
expect_eq "doctor on a node without GPU: status" "$?" 8
check "doctor: the FAIL: $(cat report)" grep -q \
    "^FAIL bind [^:]*: hwloc sees no GPU on this node" report

# --- what ddpgen writes -----------------------------------------------------------------
gen() {
	"$DDPGEN" --ddprank /opt/d/bin/ddprank "$@" train.py a >job 2>err
}
gen -n 2 && grep -v '^#   ' job >plain
gen -n 2 --bind none && grep -v '^#   ' job >none
check "bind none: the default script, byte for byte" cmp plain none
gen -n 2 --bind numa
check "torchrun: its workers through ddprank bind" grep -q \
    "^	torchrun --nproc_per_node=2 --no_python \\\\\$" job
check "torchrun: the step before the script" grep -q \
    "^	/opt/d/bin/ddprank bind --python -- train.py a " job
check "exec: the plan's options" grep -q \
    'exec --port auto --port-range 20000-29999 --rdzv static --bind numa --nproc-per-node 2 --' job
check "the preflight checks the plan" grep -q \
    'doctor .* --bind numa --nproc-per-node 2 ' job
gen -n 2 -G 2 --bind gpu -L deepspeed
check "deepspeed: --no_local_rank, and the step puts it back" grep -q \
    "/opt/d/bin/ddprank bind --python --local-rank-arg -- train.py" job
gen -n 2 --bind numa -L srun
check "srun-direct: srun binds nothing, the tasks do" grep -q \
    -- "--export=ALL --cpu-bind=none" job
check "srun-direct: no binding step" ! grep -q 'ddprank bind' job
gen -s plmt -A m1_g --container podman-hpc --image img
check "podman-hpc: the plan crosses, ddprank is mounted" grep -q \
    -- "-e DDPRANK_BIND_PLAN -v /opt/d/bin:/opt/d/bin img" job
fails 2 "ddpgen: bind: gpu for a job that asks for no GPU (gpus_per_node = 0): use numa, or none" \
    "$DDPGEN" --ddprank /opt/d/bin/ddprank --bind gpu train.py
finish
