{{! leave_out_preflight.sh: after a preflight whose status is in
    ddpgen_rc, in a job that leaves nodes out (leave_out.sh): a failure
    is judged (ddpgen_verdict) and the job rerun without the nodes
    blamed, or ended with the preflight's status }}
# Where the job leaves nodes out, a failed check is judged instead, and
# the job rerun without the nodes it blames (ddpgen_leave_out).
if [ "$ddpgen_rc" -ne 0 ]; then
	ddpgen_verdict
	ddpgen_leave_out "$ddpgen_rc"
	exit "$ddpgen_rc"
fi
