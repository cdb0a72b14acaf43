{{! preflight.sh: through ddpgen_launch }}
ddpgen_launch \
	{{preflight_command|raw}}
