{{! master.sh: the first host of PBS_NODEFILE }}
# This shell runs on the first host of PBS_NODEFILE: the address of its
# interface matching the pattern is the master address for every node.
MASTER_ADDR=$("$DDPRANK" ip --iface {{iface}} -4)
