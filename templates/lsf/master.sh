{{! master.sh: the first node of the job }}
# This shell runs on the first node of the job: the address of its
# interface matching the pattern is the master address for every node.
MASTER_ADDR=$("$DDPRANK" ip --iface {{iface}} -4)
