{{! after_master.sh: once the master address is set, before the life cycle;
    nothing by default }}
