{{! verdict.sh: ddpgen_verdict, which the job runs after a step that may
    have stalled, or a preflight that failed (ddpgen(1), HANGS AND BAD
    NODES) }}
# After a step, ddprank verdict reads what each node's watcher recorded
# of a stall, or the preflight of the nodes it failed (ddpgen(1), HANGS
# AND BAD NODES), and removes it: it prints the one summary line, and
# names the nodes to blame in ddpgen_kind (hang, preflight or none) and
# ddpgen_bad (comma-separated), which, told --remember, it remembers for
# the next script.
# Once a run: the records it reads are gone after it.
ddpgen_kind=none ddpgen_bad='' ddpgen_rc=0 ddpgen_judged=''
ddpgen_verdict() {
	local out
	[ -z "$ddpgen_judged" ] || return 0
	ddpgen_judged=1
	out=$("$DDPRANK" verdict{{?verdict_scheduler}} --scheduler {{verdict_scheduler}}{{/verdict_scheduler}}{{?hang_dir}} --hang-dir {{hang_dir}}{{/hang_dir}}{{?bad_node_seconds}} --site {{scope}} --remember {{bad_node_seconds}}{{/bad_node_seconds}}) ||
	    out=''
	# shellcheck disable=SC2034 # ddpgen_bad: what a rerun leaves out
	read -r ddpgen_kind ddpgen_bad <<<"$out" || true
	ddpgen_kind=${ddpgen_kind:-none}
}
