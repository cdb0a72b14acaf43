{{! ddprank.sh: where ddprank runs inside the container (Pyxis), no other
    user may replace it }}
{{?container_inside}}

# The container ({{container}}) mounts ddprank's directory, which every
# task then runs from: neither ddprank nor a directory above it may be
# owned by another user, or writable by one (OpenSSH's StrictModes),
# unless sticky as /tmp is, where no one else can replace what is ours.
ddpgen_trusted() {
	local p=$1 o m
	while [ -n "$p" ]; do
		read -r o m <<<"$(stat -c '%u %a' -- "$p")" || return 1
		# A link's own mode means nothing: its directory's does.
		if { [ "$o" != 0 ] && [ "$o" != "$(id -u)" ]; } ||
		    { [ ! -L "$p" ] && (( 8#$m & 8#022 )) &&
		    { [ ! -d "$p" ] || (( !(8#$m & 8#1000) )); }; }; then
			echo "ddpgen job: $p is owned by uid $o with mode $m: another user could replace ddprank" >&2
			return 1
		fi
		p=${p%/*}
	done
}
ddpgen_trusted "$DDPRANK"
ddpgen_trusted "$(readlink -f -- "$DDPRANK")"
{{/container_inside}}
