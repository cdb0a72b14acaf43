{{! secret.sh: flux run carries the secret }}
# A secret for this job alone: flux run carries it to every task, whose
# environment only this user can read, and the automatic port derives
# from it (ddprank(1), SECURITY).
