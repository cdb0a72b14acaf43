{{! train.sh: the training step, one srun task per node or per process; in a
    job that carries on, in the background with its sentinel }}
{{?requeue}}
# Warned before the training started: its last checkpoint stands.
if [ -n "$ddpgen_warned" ]; then
	ddpgen_carry_on 0
fi
# srun's status is a signal's (128 + N) when it ended the other tasks
# after one failed (--kill-on-bad-exit): the first task's wrapper on
# this host writes its launcher's own status in a directory of this
# shell's, which only this user can write.
ddpgen_tmp=$(mktemp -d "${TMPDIR:-/tmp}/ddpgen.XXXXXX" 2>/dev/null) ||
    ddpgen_tmp=''
export DDPGEN_SHELL_STATUS=${ddpgen_tmp:+$ddpgen_tmp/status}
{{/requeue}}

{{^per_process}}
# One task per node; each runs ddprank, which execs the launcher with its
# node rank, node count, master address and port set. A node where
# ddprank is missing says so; a failing node ends the whole step. The
# node and task counts on the command line beat what sbatch was given (its
# SLURM_NTASKS, SLURM_NTASKS_PER_NODE); --export=ALL passes what this
# script exported even when the job was submitted with --export=NONE.
# shellcheck disable=SC2016
{{?requeue}}ddpgen_step {{/requeue}}srun --nodes="$SLURM_NNODES" --ntasks="$SLURM_NNODES" --ntasks-per-node=1 \
{{/per_process}}
{{?per_process}}
# One task per process (launcher {{launcher_name}}), no agent: each runs
# ddprank, which execs the training with what torchrun would have given
# it (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, the
# master address and port). A failing task ends the whole step. The
# counts on the command line beat what sbatch was given; --export=ALL
# passes what this script exported even when the job was submitted with
# --export=NONE.
# shellcheck disable=SC2016
{{?requeue}}ddpgen_step {{/requeue}}srun --nodes="$SLURM_NNODES" --ntasks="$((SLURM_NNODES * {{tasks_per_node}}))" --ntasks-per-node={{tasks_per_node}} \
{{/per_process}}
	"${ddpgen_cpus_opt[@]}" --kill-on-bad-exit=1 --export=ALL{{?srun_cpu_bind}} --cpu-bind={{srun_cpu_bind}}{{/srun_cpu_bind}}{{?label_output}} --label{{/label_output}}{{?container_srun}} \
	{{container_srun}}{{/container_srun}} \
	/bin/bash -c 'if [ ! -x "$1" ]; then echo "ddpgen job: ddprank not found at $1 on $(hostname)" >&2; exit 127; fi; {{?requeue}}if [ "${SLURM_LOCALID:-}" = 0 ] && [ -n "${DDPGEN_SHELL_PID:-}" ] && [ "${SLURMD_NODENAME:-}" = "${DDPGEN_SHELL_NODE:-}" ]; then (trap "kill -s URG $DDPGEN_SHELL_PID; exit 0" {{checkpoint_signal}}; while kill -0 $$ 2>/dev/null; do sleep 1; done) </dev/null >/dev/null 2>&1 & trap : TERM INT {{checkpoint_signal}}; "$@"; r=$?; [ -z "${DDPGEN_SHELL_STATUS:-}" ] || echo $r 2>/dev/null >"$DDPGEN_SHELL_STATUS"; exit $r; fi; {{/requeue}}exec "$@"' ddprank \
	{{node_command|raw}}{{?requeue}} &{{/requeue}}{{^requeue}}{{?hang}} ||
	ddpgen_rc=$?{{/hang}}{{/requeue}}
{{?requeue}}
ddpgen_srun=$!
ddpgen_wait "$ddpgen_srun"
ddpgen_own_status
{{/requeue}}
