{{! preflight.sh: ddprank doctor, one srun task per node }}
{{?container_srun}}
# shellcheck disable=SC2016 # a '$' in a mount is a byte of its path
{{/container_srun}}
srun --nodes="$SLURM_NNODES" --ntasks="$SLURM_NNODES" --ntasks-per-node=1 --export=ALL{{?container_srun}} \
	{{container_srun}}{{/container_srun}} \
	{{preflight_command|raw}}{{?requeue}} &
ddpgen_wait $!
{{?leave_out}}
if [ "$ddpgen_rc" -ne 0 ]; then
	ddpgen_verdict
	ddpgen_leave_out "$ddpgen_rc"
fi
{{/leave_out}}
[ "$ddpgen_rc" -eq 0 ] || exit "$ddpgen_rc"{{/requeue}}
