{{! secret.sh: every virtual node's ddprank takes the secret from this
    shell's environment }}
# A secret for this run alone: each node's ddprank takes it from this
# shell's environment, which only this user can read, and the automatic
# port derives from it (ddprank(1), SECURITY).
