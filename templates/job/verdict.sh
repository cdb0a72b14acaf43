{{! verdict.sh: ddpgen_verdict, which the job runs after a step that may
    have stalled, or a preflight that failed (ddpgen(1), HANGS AND BAD
    NODES) }}
# After a step, ddprank verdict reads what each node's watcher recorded
# of a stall, or the preflight of the nodes it failed (ddpgen(1), HANGS
# AND BAD NODES), and removes it: it prints the one summary line, and
# names the nodes to blame in ddpgen_kind (hang, preflight or none) and
# ddpgen_bad (comma-separated), which it remembers for the next script.
ddpgen_kind=none ddpgen_bad='' ddpgen_rc=0
ddpgen_verdict() {
	local out
	out=$("$DDPRANK" verdict{{?hang_dir}} --hang-dir {{hang_dir}}{{/hang_dir}}{{?bad_node_seconds}} --site {{scope}} --remember {{bad_node_seconds}}{{/bad_node_seconds}}) ||
	    out=''
	read -r ddpgen_kind ddpgen_bad <<<"$out" || true
	ddpgen_kind=${ddpgen_kind:-none}
}
