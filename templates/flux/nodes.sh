{{! nodes.sh: the variables passed from flux batch's environment, and the
    batch job's nodes }}
{{?env_pass}}

# Passed from the environment flux batch was run in (ddpgen --env NAME),
# so that no value is written here.
ddpgen_pass() {
	if [ -z "${!1+set}" ]; then
		echo "ddpgen job: $1 is not in the job's environment: export it before flux batch, or submit with flux batch --env=$1" >&2
		exit 1
	fi
	export "${1?}"
}
{{#env_pass}}
ddpgen_pass {{.}}
{{/env_pass}}
{{/env_pass}}

# The nodes of this batch job, as flux batch -N on its command line may
# have changed them: every one that is up (flux-environment(7)).
ddpgen_nodes=$(flux resource list -s up -n -o '{nnodes}')
if ! [[ $ddpgen_nodes =~ ^[1-9][0-9]*$ ]]; then
	echo "ddpgen job: flux resource list gave no node count: '$ddpgen_nodes'" >&2
	exit 1
fi
