{{! secret.sh: mpiexec or a private file carries the secret }}
# A secret for this job alone: it reaches every node in the launcher's
# environment (mpiexec) or in a file of a private directory (pbsdsh),
# which only this user can read, and the automatic port derives from it
# (ddprank(1), SECURITY).
