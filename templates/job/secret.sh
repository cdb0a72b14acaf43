{{! secret.sh: the comment above the job's secret }}
# A secret for this job alone: the launcher carries it to every task,
# whose environment only this user can read, and the automatic port
# derives from it (ddprank(1), SECURITY).
