{{! ddprank.sh: after the check that ddprank is there, before the
    environment; nothing by default }}
