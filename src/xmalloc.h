/* xmalloc.h: allocation that dies on failure and checks for overflow. */
#ifndef DDPGEN_XMALLOC_H
#define DDPGEN_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

/* All of these print "PROG: out of memory" and exit 1 on failure.
 * The caller frees what they return. */
void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
int	 xasprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
int	 xvasprintf(char **, const char *, va_list)
	    __attribute__((format(printf, 2, 0)));

#endif
