{{! preflight.sh: the preflight, ddprank doctor on every node }}
ddpgen_run {{preflight_command|raw}}
