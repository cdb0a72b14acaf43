{{! ddprank.sh: the flux command }}
if ! command -v flux >/dev/null; then
	echo "ddpgen job: the flux command is not in PATH on $(hostname)" >&2
	exit 127
fi
