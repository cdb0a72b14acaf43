{{! ddprank.sh: the tasks' command reads DDPRANK }}
export DDPRANK
