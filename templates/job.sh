#!/bin/bash
{{! job.sh: the shell skeleton every shell job shares (variables:
    ddpgen(1)). Each partial below, PART, is a fragment: the scheduler's
    own, SCHED/PART.sh, else the default, job/PART.sh, each looked for
    beside the template and then along the template path
    (ddpgen-profile(5), TEMPLATES), so that a site replaces one part of
    one scheduler's jobs, or of all, by a file of that name earlier on
    the path. Every substitution is one shell word unless it says raw. }}
{{>header}}
{{>directives}}
set -euo pipefail
{{>start}}

# ddprank computes each node's rank, the master address and the port at
# run time; it must exist at this path on every node.
DDPRANK={{ddprank}}
if [ ! -x "$DDPRANK" ]; then
	echo "ddpgen job: ddprank not found at $DDPRANK on $(hostname)" >&2
	exit 127
fi
{{>ddprank}}
{{?shell_env}}
{{shell_env|raw}}
{{/shell_env}}
{{>nodes}}

{{?discovery_iface}}
{{>master}}
export MASTER_ADDR
{{/discovery_iface}}
{{^discovery_iface}}
# Hostname discovery: each node resolves the first node's name itself.
unset MASTER_ADDR
{{/discovery_iface}}
{{>after_master}}
{{! The life cycle (ddpgen(1), LONG TRAININGS): its state, its trap and
    ddpgen_carry_on, the scheduler's own. }}
{{?requeue}}

{{>requeue}}
{{/requeue}}

{{>secret}}
DDPRANK_SECRET=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
export DDPRANK_SECRET
{{>run}}
{{?verdict}}

{{>verdict}}
{{/verdict}}
{{?preflight}}

{{>preflight_note}}
{{>preflight}}
{{/preflight}}
{{>train}}
{{! After the training, whose status is in ddpgen_rc: with a stall limit,
    the verdict on it (verdict.sh); in a job that carries on, a step of
    the life cycle that follows the training in every scheduler's jobs
    goes here, before the scheduler's carry. }}
{{?hang}}
ddpgen_verdict
{{/hang}}
{{?requeue}}
{{>carry}}
exit "$ddpgen_rc"
{{/requeue}}
{{^requeue}}
{{?hang}}
exit "$ddpgen_rc"
{{/hang}}
{{/requeue}}
