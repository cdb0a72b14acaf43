/* fluxjob.h: what flux batch demands of a generated Flux job script. */
#ifndef DDPGEN_FLUXJOB_H
#define DDPGEN_FLUXJOB_H

/* Checks a rendered Flux job as flux batch reads it: all of it UTF-8
 * (flux batch refuses other bytes), and no line after the first that is
 * neither blank nor a comment read as a submission directive (RFC 36:
 * a line of non-word characters and "flux:" is one anywhere in the
 * file, and an error after the directives' block), nor one of another
 * sentinel than the template's "#flux:". -1 + *cause naming the line. */
int	fluxjob_check(const char *script, char **cause);

#endif
