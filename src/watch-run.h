/* watch-run.h: the watcher as ddprank exec runs it (watch.h says what it
 * decides; watch-run.c forks it and loops). */
#ifndef DDPGEN_WATCH_RUN_H
#define DDPGEN_WATCH_RUN_H

/* Just before the launcher argv is exec'd: forks the watcher when argv
 * is torchrun, or when forward, a checkpoint signal the scheduler sends
 * to the launcher's process group, is not 0. Only warns on failure. */
void	watch_start(char **argv, int forward);

#endif
