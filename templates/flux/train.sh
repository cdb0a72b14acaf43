{{! train.sh: one flux run task per node }}

# One task per node; each runs ddprank, which execs the launcher with its
# node rank, node count, master address and port set. A node where
# ddprank is missing says so; a task that fails ends the whole run at
# once (exit-on-error, flux-shell-options(7)).
{{?requeue}}
# flux run itself ignores the checkpoint signal, which reaches this
# shell's process group too.
ddpgen_rc=0
{{/requeue}}
# shellcheck disable=SC2016
{{?requeue}}( trap '' {{checkpoint_signal}}; exec {{/requeue}}flux run -N "$ddpgen_nodes" --tasks-per-node=1 -o exit-on-error{{?label_output}} --label-io{{/label_output}} \
	/bin/bash -c 'if [ ! -x "$1" ]; then echo "ddpgen job: ddprank not found at $1 on $(hostname)" >&2; exit 127; fi; exec "$@"' ddprank \
	{{node_command|raw}}{{?requeue}} ) || ddpgen_rc=$?{{/requeue}}
