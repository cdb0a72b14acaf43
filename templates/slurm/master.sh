{{! master.sh: under salloc this shell runs elsewhere: --first-node }}
# This shell runs on the first node of the allocation: the address of its
# interface matching the pattern is the master address for every node.
# Under salloc it runs where salloc was started: --first-node says so.
MASTER_ADDR=$("$DDPRANK" ip --first-node --iface {{iface}} -4)
