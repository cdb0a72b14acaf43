/* watch-run.h: the watcher as ddprank exec runs it (watch.h says what it
 * decides; watch-run.c forks it and loops). */
#ifndef DDPGEN_WATCH_RUN_H
#define DDPGEN_WATCH_RUN_H

struct hangwatch;

/* Just before the launcher argv is exec'd: forks the watcher when argv
 * is torchrun, when forward, a checkpoint signal the scheduler sends
 * to the launcher's process group, is not 0, or when hw has a stall
 * limit (hangwatch.h). Only warns on failure. */
void	watch_start(char **argv, int forward, struct hangwatch *hw);

#endif
