/* testlib.h: helpers shared by the Check suites; each failure is a
 * failed Check assertion. */
#ifndef DDPGEN_TESTLIB_H
#define DDPGEN_TESTLIB_H

#include <stddef.h>

#include <check.h>

struct buf;

/* Runs every test of s; the exit status of a suite's main(): 0 when
 * all passed, 1 otherwise. */
int		 t_run(Suite *s);
/* A fresh directory PREFIX.XXXXXX under $TMPDIR or /tmp; the caller
 * removes and frees it with t_rmtree. */
char		*t_tmpdir(const char *prefix);
/* Removes dir and everything under it, then frees dir. */
void		 t_rmtree(char *dir);
/* A fresh file PREFIX.XXXXXX under $TMPDIR or /tmp holding the string
 * data; the caller unlinks and frees it. */
char		*t_tmpfile(const char *prefix, const char *data);
/* Writes len bytes of data to path, creating or truncating it. */
void		 t_write(const char *path, const char *data, size_t len);
/* Runs cmd through sh, appending its standard output to out; returns
 * pclose's status. */
int		 t_capture(const char *cmd, struct buf *out);
/* A TCP listener on 127.0.0.1 at a port the kernel picks, put in port. */
int		 t_listener(int *port);
/* The value of name in arg, a NULL-terminated array of "NAME=value"
 * strings, or NULL: a struct nodes_env's get. */
const char	*t_env_get(void *arg, const char *name);

#endif
