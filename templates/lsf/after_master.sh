{{! after_master.sh: the job's nodes from LSB_MCPU_HOSTS }}

# The job's nodes, once each, in LSB_MCPU_HOSTS's order ("host slots
# host slots ..."); under IBM CSM the first is the launch node, where
# this shell runs, and jsrun starts no task there.
ddpgen_hosts=()
read -r -a ddpgen_words <<<"${LSB_MCPU_HOSTS:-}"
for ((ddpgen_i = 0; ddpgen_i < ${#ddpgen_words[@]}; ddpgen_i += 2)); do
	ddpgen_hosts+=("${ddpgen_words[ddpgen_i]}")
done
if [ -n "${CSM_ALLOCATION_ID:-}" ] && [ "${#ddpgen_hosts[@]}" -gt 0 ]; then
	ddpgen_hosts=("${ddpgen_hosts[@]:1}")
fi
ddpgen_nodes=${#ddpgen_hosts[@]}
if [ "$ddpgen_nodes" -eq 0 ]; then
	echo "ddpgen job: LSB_MCPU_HOSTS names no node: submit with bsub < FILE" >&2
	exit 2
fi
