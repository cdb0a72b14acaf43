{{! master.sh: with interface discovery, the comment and the line that set
    MASTER_ADDR on the shell's node }}
# This shell runs on the first node of the allocation: the address of its
# interface matching the pattern is the master address for every node.
MASTER_ADDR=$("$DDPRANK" ip --iface {{iface}} -4)
