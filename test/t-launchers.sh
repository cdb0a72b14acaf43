#!/bin/sh
# t-launchers.sh: the launcher table without a cluster. ddpgen: old
# launcher lists keep their meaning, a word naming srun, deepspeed or
# accelerate picks that row, --launcher, and the refusals. Then the node
# command ddpgen writes is run as a node would run it, ddprank exec under
# a fake Slurm task environment, with the deepspeed and accelerate
# stand-ins (test/standin, the real tools' grammar) in their show mode:
# they parse the argv the node receives strictly and print what they
# would run, with which variables.
. "$(dirname "$0")/lib.sh"

command -v bash >/dev/null || skip "needs bash"
need_built ddpgen ddprank
cd "$T" || exit 1
DDPGEN_PROFILE_PATH=$srcdir/profiles
DDPGEN_TEMPLATE_PATH=$srcdir/templates
export DDPGEN_PROFILE_PATH DDPGEN_TEMPLATE_PATH
me=$(hostname)
me=${me%%.*}

# gen NAME PROFILE-LINES ARGS...: job.NAME from a profile extending slurm.
gen() {
	name=$1
	printf 'extends = slurm\n%s\n' "$2" >"$name.conf"
	shift 2
	"$DDPGEN" -s "./$name.conf" --ddprank "$DDPRANK" "$@" >"job.$name" \
	    2>"err.$name"
}

# node_command NAME: the ddprank exec command of job.NAME, one line.
node_command() {
	awk '/^\t"\$DDPRANK" exec/ { on = 1 }
	    on { l = $0; sub(/^\t/, "", l); c = c l
	         if (l !~ /\\$/) { print c; exit } sub(/\\$/, "", c) }' "job.$1" |
	    sed 's/ &$//'
}

# run_node NAME NODEID LOCALID TASKS NODES: node_command NAME as Slurm
# task LOCALID of node NODEID runs it, on a 2-node job whose second node
# is this host (so that node 0's port check is not this host's).
run_node() {
	cmd=$(node_command "$1")
	env -i PATH="$srcdir/test/standin:/usr/bin:/bin" HOME="$T" \
	    SLURM_JOB_NODELIST="other9,$me" SLURM_JOB_ID=77 \
	    SLURM_NODEID="$2" SLURM_LOCALID="$3" SLURM_STEP_NUM_TASKS="$4" \
	    SLURM_STEP_NUM_NODES="$5" MASTER_ADDR=10.9.9.9 \
	    DEEPSPEED_STANDIN_SHOW=1 ACCELERATE_STANDIN_SHOW=1 \
	    DDPRANK="$DDPRANK" bash -c "$cmd"
}

args="--lr 1 'two words' '' --local_rank=7"

# --- old launcher lists: the same script as the default --------------------------------
gen default '' -N 2 train.py
for l in '{"torchrun"}' 'torchrun' '{"/opt/venv/bin/torchrun"}' \
    '{"python3", "-m", "torch.distributed.run"}'; do
	gen old "launcher = $l" -N 2 train.py
	check "launcher = $l: a torchrun node command" \
	    grep -q -e '--rdzv static -- \\$' job.old
	check "launcher = $l: no --launcher" ! grep -q -e 'exec .*--launcher ' \
	    job.old
done
gen path 'launcher = {"/opt/venv/bin/torchrun"}' -N 2 -L torchrun train.py
check "--launcher torchrun keeps the profile's torchrun" \
    grep -q '^	/opt/venv/bin/torchrun --nproc_per_node=1 \\$' job.path

# --- the rows: spelling ---------------------------------------------------------
gen srun 'launcher = srun' -N 2 -n 2 train.py
check "srun: one task per process" grep -q \
    -e '--ntasks="$((SLURM_NNODES \* 2))" --ntasks-per-node=2 \\$' job.srun
check "srun: #SBATCH --ntasks-per-node=2" grep -q \
    '^#SBATCH --ntasks-per-node=2$' job.srun
check "srun: python3 runs the script" grep -q '^	python3 \\$' job.srun
check "srun: doctor checks python3" grep -qE -e '--launcher python3( --record)?( &)?$' job.srun
gen srunpy 'launcher = {"srun", "/opt/venv/bin/python", "-u"}' -N 2 train.py
check "srun: the words after srun are the program" \
    grep -q '^	/opt/venv/bin/python -u \\$' job.srunpy
gen ds 'launcher = {"/opt/venv/bin/deepspeed"}' -N 2 -n 2 train.py
check "deepspeed at a path: the deepspeed row" grep -q \
    -e '--launcher deepspeed -- \\$' job.ds
check "deepspeed: --num_gpus" \
    grep -q '^	/opt/venv/bin/deepspeed --num_gpus=2 \\$' job.ds
gen acc 'launcher = accelerate' -N 2 -n 2 train.py
check "accelerate: launch, --multi_gpu" \
    grep -q '^	accelerate launch --multi_gpu \\$' job.acc
gen accfsdp 'launcher = accelerate
launcher_args = {"--use-fsdp"}' -N 2 train.py
check "accelerate with another paradigm: no --multi_gpu" \
    ! grep -q -e '--multi_gpu' job.accfsdp
for name in srun srunpy ds acc accfsdp; do
	check "$name: bash -n" bash -n "job.$name"
	if command -v shellcheck >/dev/null; then
		expect_eq "$name: shellcheck" \
		    "$(shellcheck -s bash "job.$name" 2>&1)" ""
	fi
done

# --- refusals -------------------------------------------------------------------
refuse() {
	want=$1 rc=$2
	shift 2
	"$DDPGEN" "$@" train.py >out 2>err
	expect_eq "ddpgen $*: exit status" "$?" "$rc"
	expect_eq "ddpgen $*: message" "$(cat err)" "$want"
	check "ddpgen $*: no script" test ! -s out
}
refuse "ddpgen: --launcher: 'srn' is not torchrun, srun, deepspeed or accelerate" \
    2 -L srn
refuse "ddpgen: launcher: srun starts one Slurm task per process and runs only on Slurm sites, not HPC Pack" \
    2 -s hpcpack -L srun
refuse "ddpgen: rdzv: c10d is torchrun's rendezvous; launcher srun has none" \
    2 -L srun -r c10d
gen bad 'launcher = {"accelerate", "lunch"}' train.py
expect_eq "accelerate lunch: exit status" "$?" 3
check "accelerate lunch: message" grep -q \
    "bad.conf:2: launcher: 'lunch' is not 'launch': accelerate runs as 'accelerate launch'" \
    err.bad
gen bad 'launcher = deepspeed
max_restarts = 2' train.py
check "deepspeed max_restarts: message" grep -q \
    "max_restarts: launcher deepspeed does not restart workers" err.bad

# --- srun-direct: each task a worker ---------------------------------------------
gen srun 'launcher = srun' -N 2 -n 2 train.py
# The node's python3 is a program that shows its environment.
printf '#!/bin/sh\nexec env\n' >showenv
chmod +x showenv
sed -i "s|^	python3 \\\\\$|	$T/showenv \\\\|" job.srun
show_env() {
	run_node srun "$@" | grep -E '^(RANK|LOCAL_RANK|WORLD_SIZE|LOCAL_WORLD_SIZE|GROUP_RANK|NODE_RANK|NNODES|MASTER_ADDR|PET_[A-Z_]*)=' |
	    sort | tr '\n' ' '
}
expect_eq "srun: node 1 task 1" "$(show_env 1 1 4 2)" \
    "GROUP_RANK=1 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 MASTER_ADDR=10.9.9.9 NNODES=2 NODE_RANK=1 RANK=3 WORLD_SIZE=4 "
expect_eq "srun: node 1 task 0" "$(show_env 1 0 4 2)" \
    "GROUP_RANK=1 LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 MASTER_ADDR=10.9.9.9 NNODES=2 NODE_RANK=1 RANK=2 WORLD_SIZE=4 "
run_node srun 1 1 3 2 >out 2>err
expect_eq "srun: uneven step: exit status" "$?" 4
check "srun: uneven step: message" grep -q \
    'runs 3 tasks on 2 nodes .* every node must run as many' err
# torchrun's one task a node still holds.
gen torch '' -N 2 -n 2 train.py
run_node torch 1 1 4 2 >out 2>err
check "torchrun: two tasks on a node are refused" grep -q \
    'ddprank must run once per node' err

# --- deepspeed: the argv the stand-in parses, and what it would run ----------------
eval "set -- $args"
gen ds 'launcher = deepspeed' -N 2 -n 2 train.py "$@"
run_node ds 1 0 2 2 >out 2>err
expect_eq "deepspeed: exit status ($(cat err))" "$?" 0
expect_eq "deepspeed: node 1's processes" "$(tr '\0' '|' <out)" \
"RANK=2 LOCAL_RANK=0 WORLD_SIZE=4 MASTER_ADDR=10.9.9.9 MASTER_PORT=$(sed -n 's/.*MASTER_PORT=\([0-9]*\).*/\1/p' out | head -n 1) CROSS_RANK=1 CROSS_SIZE=2 LOCAL_SIZE=2|/usr/bin/python3|-u|train.py|--local_rank=0|--lr|1|two words||--local_rank=7|
RANK=3 LOCAL_RANK=1 WORLD_SIZE=4 MASTER_ADDR=10.9.9.9 MASTER_PORT=$(sed -n 's/.*MASTER_PORT=\([0-9]*\).*/\1/p' out | head -n 1) CROSS_RANK=1 CROSS_SIZE=2 LOCAL_SIZE=2|/usr/bin/python3|-u|train.py|--local_rank=1|--lr|1|two words||--local_rank=7|"
check "deepspeed: MASTER_PORT in the range" grep -q 'MASTER_PORT=2[0-9]\{4\} ' out
# A flag DeepSpeed does not have is refused, as its parser would.
gen ds 'launcher = deepspeed
launcher_args = {"--nnodes=2"}' -N 2 train.py
run_node ds 1 0 2 2 >out 2>err
check "deepspeed: an unknown flag is an error" grep -q \
    'unrecognized arguments: --nnodes=2' err

# --- accelerate: the argv the stand-in parses --------------------------------------
eval "set -- $args"
gen acc 'launcher = accelerate' -N 2 -n 3 train.py "$@"
run_node acc 1 0 2 2 >out 2>err
expect_eq "accelerate: exit status ($(cat err))" "$?" 0
port=$(tr '\0' '\n' <out | sed -n 's/^--rdzv_endpoint=10.9.9.9:\([0-9]*\)$/\1/p')
check "accelerate: the endpoint's port '$port' in the range" \
    matches "$port" "2[0-9][0-9][0-9][0-9]"
expect_eq "accelerate: torch.distributed.run's argv" "$(tr '\0' '|' <out)" \
"/usr/bin/python3|-m|torch.distributed.run|--nproc_per_node=3|--nnodes=2|--node_rank=1|--rdzv_endpoint=10.9.9.9:$port|--rdzv_backend=static|--max_restarts=0|--role=default|--tee=0|train.py|--lr|1|two words||--local_rank=7|"
run_node acc 1 0 2 2 >/dev/null 2>&1
gen acc 'launcher = accelerate
launcher_args = {"--nproc_per_node=2"}' -N 2 train.py
run_node acc 1 0 2 2 >out 2>err
check "accelerate: an unknown flag is an error" grep -q \
    'unrecognized arguments: --nproc_per_node=2' err

# --- the preflight checks what exec would refuse (rough edge 5) ----------------------
gen pre 'iface = "^eth3$"
comm_iface = "^hsn[0-9]+$"
rdzv = c10d
preflight_torch = yes' -N 2 train.py
check "preflight: --comm-iface, --rdzv c10d and --deep: $(grep doctor job.pre)" \
    grep -q -e "doctor --iface '^eth3\$' --comm-iface '^hsn\[0-9\]+\$' --rdzv c10d --deep " job.pre
gen pre0 '' -N 2 train.py
check "preflight: no --deep by default" ! grep -q -e 'doctor .*--deep' job.pre0

# --- OMP_NUM_THREADS: one default for every launcher --------------------------------
# omp NAME [VAR=VALUE...]: OMP_NUM_THREADS after job.NAME's block, run
# by bash in an environment of VARs.
omp() {
	n=$1
	shift
	block=$(awk '/^# The CPUs of each task/ { on = 1 }
	    /^# torchrun sets OMP_NUM_THREADS/ { omp = 1 }
	    on { print } omp && /^fi$/ { exit }' "job.$n")
	env -i PATH=/usr/bin:/bin "$@" bash -c \
	    "set -eu; $block"'
	echo "${OMP_NUM_THREADS-unset}"'
}
# cpus NAME [VAR=VALUE...]: the CPUs job.NAME's training step asks srun
# for, after the same block ("none": it leaves them to srun).
cpus() {
	n=$1
	shift
	block=$(awk '/^# The CPUs of each task/ { on = 1 }
	    on && /^# torchrun sets OMP_NUM_THREADS/ { exit } on { print }' "job.$n")
	env -i PATH=/usr/bin:/bin "$@" bash -c \
	    "set -eu; $block"'
	echo "${ddpgen_cpus_opt[@]:-none}"'
}
gen omp-srun 'launcher = srun' -N 2 -n 2 train.py
gen omp-torch '' -N 2 -n 2 train.py
gen omp-torch1 '' -N 2 train.py
gen omp-ds 'launcher = deepspeed' -N 2 -n 4 train.py
expect_eq "OMP_NUM_THREADS: srun, 2 a node, no CPU count" "$(omp omp-srun)" 1
expect_eq "OMP_NUM_THREADS: deepspeed, 4 a node" "$(omp omp-ds)" 1
expect_eq "OMP_NUM_THREADS: torchrun, 2 a node" "$(omp omp-torch)" 1
expect_eq "OMP_NUM_THREADS: torchrun, 1 a node: the node's" \
    "$(omp omp-torch1)" unset
expect_eq "OMP_NUM_THREADS: srun, 8 CPUs a task (a process)" \
    "$(omp omp-srun SLURM_CPUS_PER_TASK=8)" 8
expect_eq "OMP_NUM_THREADS: torchrun, 8 CPUs for 2" \
    "$(omp omp-torch SLURM_CPUS_PER_TASK=8)" 4
expect_eq "OMP_NUM_THREADS: the user's stays" \
    "$(omp omp-srun OMP_NUM_THREADS=3)" 3
# The job's CPUs on a node (the fewest), as Slurm 22.05 and 24.11 both
# set SLURM_JOB_CPUS_PER_NODE, whatever a submit-time -c made of
# SLURM_CPUS_PER_TASK (which only 23.11 and later pass on to srun).
expect_eq "OMP_NUM_THREADS: torchrun, a node of 16 for 2, -c 1 at submit time" \
    "$(omp omp-torch SLURM_JOB_CPUS_PER_NODE='16(x2)' SLURM_CPUS_PER_TASK=1)" 8
expect_eq "OMP_NUM_THREADS: srun, 2 tasks on the node's 16, -c 1" \
    "$(omp omp-srun SLURM_JOB_CPUS_PER_NODE='16(x2)' SLURM_CPUS_PER_TASK=1)" 8
expect_eq "step CPUs: torchrun, one task of the node's 16" \
    "$(cpus omp-torch SLURM_JOB_CPUS_PER_NODE='16(x2)' SLURM_CPUS_PER_TASK=1)" \
    --cpus-per-task=16
expect_eq "step CPUs: srun, 2 tasks of the fewest (8, of 16 and 8)" \
    "$(cpus omp-srun SLURM_JOB_CPUS_PER_NODE='16,8(x1)')" --cpus-per-task=4
expect_eq "step CPUs: deepspeed (one task a node), nodes of 12, 64 and 12" \
    "$(cpus omp-ds SLURM_JOB_CPUS_PER_NODE='12,64,12')" --cpus-per-task=12
expect_eq "step CPUs: fewer than the tasks: left to srun" \
    "$(cpus omp-srun SLURM_JOB_CPUS_PER_NODE=1)" none
expect_eq "step CPUs: Slurm does not say: left to srun" \
    "$(cpus omp-torch SLURM_CPUS_PER_TASK=8)" none
expect_eq "step CPUs: not a count: left to srun" \
    "$(cpus omp-torch SLURM_JOB_CPUS_PER_NODE='4(x2),x')" none

# One process in all (-N 1 on a CPU site): no --multi_gpu, which
# accelerate refuses for fewer than 2 processes; it runs the script once.
gen acc1 'launcher = accelerate' -N 1 train.py
check "accelerate, one process: no --multi_gpu" \
    ! grep -q -e '--multi_gpu' job.acc1
env -i PATH="$srcdir/test/standin:/usr/bin:/bin" HOME="$T" \
    SLURM_JOB_NODELIST="$me" SLURM_JOB_ID=78 SLURM_NODEID=0 \
    ACCELERATE_STANDIN_SHOW=1 DDPRANK="$DDPRANK" \
    bash -c "$(node_command acc1)" >out 2>err
expect_eq "accelerate, one process: exit status ($(cat err))" "$?" 0
expect_eq "accelerate, one process: the script runs once" \
    "$(tr '\0' '|' <out)" "/usr/bin/python3|train.py|"
gen acc2 'launcher = accelerate' -N 2 train.py
check "accelerate, two nodes of one process: --multi_gpu" \
    grep -q '^	accelerate launch --multi_gpu \\$' job.acc2

finish
