{{! nodes.sh: the variables passed from the environment, the virtual nodes,
    the processes per node, the GPUs each node sees and OMP_NUM_THREADS }}
{{?env_pass}}

# Passed from the environment this script runs in (ddpgen --env NAME),
# so that no value is written here.
ddpgen_pass() {
	if [ -z "${!1+set}" ]; then
		echo "ddpgen job: $1 is not in the job's environment: export it before running this script" >&2
		exit 1
	fi
	export "${1?}"
}
{{#env_pass}}
ddpgen_pass {{.}}
{{/env_pass}}
{{/env_pass}}

# The nodes: {{nodes}}, each a virtual one on this machine, its own ddprank
# in a session of its own (setsid) with its own node rank
# (DDPGEN_LOCAL_NODE), as a scheduler's nodes are. The node list names
# localhost once per node, and the run's id is this shell's process id.
if ! command -v setsid >/dev/null; then
	echo "ddpgen job: setsid (util-linux) not found: it starts each virtual node" >&2
	exit 127
fi
ddpgen_nodes={{nodes}} ddpgen_i=1
DDPGEN_LOCAL_NODES=localhost
for ((; ddpgen_i < ddpgen_nodes; ddpgen_i++)); do
	DDPGEN_LOCAL_NODES+=,localhost
done
DDPGEN_LOCAL_JOB=$$
export DDPGEN_LOCAL_NODES DDPGEN_LOCAL_JOB
unset DDPGEN_LOCAL_NODE

# The GPUs of this machine as ddprank doctor counts them: /dev/nvidiaN,
# else /dev/dri/renderDN beside /dev/kfd; those CUDA_VISIBLE_DEVICES
# (ROCR_VISIBLE_DEVICES) names when it is set.
ddpgen_visible=CUDA_VISIBLE_DEVICES ddpgen_devs=() ddpgen_i=0
for ddpgen_d in /dev/nvidia[0-9]*; do
	[ ! -e "$ddpgen_d" ] || ddpgen_i=$((ddpgen_i + 1))
done
if [ "$ddpgen_i" -eq 0 ] && [ -e /dev/kfd ]; then
	ddpgen_visible=ROCR_VISIBLE_DEVICES
	for ddpgen_d in /dev/dri/renderD*; do
		[ ! -e "$ddpgen_d" ] || ddpgen_i=$((ddpgen_i + 1))
	done
fi
if [ -n "${!ddpgen_visible+set}" ]; then
	IFS=, read -r -a ddpgen_devs <<<"${!ddpgen_visible}"
else
	for ((ddpgen_d = 0; ddpgen_d < ddpgen_i; ddpgen_d++)); do
		ddpgen_devs+=("$ddpgen_d")
	done
fi
ddpgen_gpus=${#ddpgen_devs[@]}
{{?nproc_run}}

# One process per GPU, the GPUs shared out between the nodes; on a
# machine without a GPU, one process per node on the CPU, so that the
# training runs (gloo) rather than a launcher failing to find GPUs.
ddpgen_nproc=$((ddpgen_gpus / ddpgen_nodes))
if [ "$ddpgen_gpus" -eq 0 ]; then
	ddpgen_nproc=1
	echo "ddpgen job: no GPU on this machine: one process per node, on the CPU (ddpgen -n N for more)" >&2
elif [ "$ddpgen_nproc" -eq 0 ]; then
	ddpgen_nproc=1
fi
{{/nproc_run}}
{{^nproc_run}}
ddpgen_nproc={{nproc_per_node}}
{{/nproc_run}}
{{?gpus_per_node}}
if [ "$ddpgen_gpus" -lt $((ddpgen_nodes * {{gpus_per_node}})) ]; then
	echo "ddpgen job: {{gpus_per_node}} GPUs per node for $ddpgen_nodes nodes (gpus_per_node), $ddpgen_gpus on this machine" >&2
	exit 2
fi
{{/gpus_per_node}}
# Each node sees GPUs of its own, as a real node would, when there are
# enough; else they share them, which NCCL refuses (gloo does not).
ddpgen_share=''
if [ "$ddpgen_nodes" -gt 1 ] && [ "$ddpgen_gpus" -ge $((ddpgen_nodes * ddpgen_nproc)) ]; then
	ddpgen_share=$ddpgen_nproc
elif [ "$ddpgen_gpus" -gt 0 ] && [ "$ddpgen_gpus" -lt $((ddpgen_nodes * ddpgen_nproc)) ]; then
	echo "ddpgen job: $((ddpgen_nodes * ddpgen_nproc)) processes share $ddpgen_gpus GPUs: NCCL refuses two ranks on one GPU" >&2
fi

# torchrun sets OMP_NUM_THREADS=1 when it is unset: give each process its
# share of the CPUs this shell may use instead, unless the profile or
# the user chose a value.
if [ -z "${OMP_NUM_THREADS:-}" ]; then
	OMP_NUM_THREADS=$(($(nproc 2>/dev/null || echo 1) / (ddpgen_nodes * ddpgen_nproc)))
	[ "$OMP_NUM_THREADS" -ge 1 ] || OMP_NUM_THREADS=1
	export OMP_NUM_THREADS
fi

# Signals to the nodes: to each node's process group, as a scheduler's
# reach a task's (ddprank's watcher passes the checkpoint signal on to
# workers in a session of their own, torch 2.x's); those that end the
# training are followed by SIGKILL 30 s later, a scheduler's usual grace.
ddpgen_groups=() ddpgen_kill_at='' ddpgen_stop='' ddpgen_timed_out=''
ddpgen_signal_nodes() {
	local g
	for g in "${ddpgen_groups[@]}"; do
		kill -s "$1" -- "-$g" 2>/dev/null || true
	done
}
ddpgen_end_nodes() {
	ddpgen_signal_nodes "$1"
	[ -n "$ddpgen_kill_at" ] || ddpgen_kill_at=$((SECONDS + 30))
}
