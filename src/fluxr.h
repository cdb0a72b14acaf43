/* fluxr.h: Flux's side of ddprank: a job's resource set R (Flux RFC 20),
 * read from `flux job info JOBID R`, and its F58 job ids (RFC 19). */
#ifndef DDPGEN_FLUXR_H
#define DDPGEN_FLUXR_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* Largest R read from flux or the environment, in bytes. */
#define FLUXR_MAX	(64UL * 1024 * 1024)
/* How long flux may take to answer, in milliseconds (60000): a broker
 * that never does must not hang the job's start. Tests make it shorter. */
extern long long fluxr_timeout_ms;
/* Deepest nesting of JSON arrays and objects accepted. */
#define FLUXR_DEPTH	64

/* Parses R, len bytes of JSON (RFC 8259, strictly: one value, no
 * trailing commas, no control bytes or invalid UTF-8 in strings, a
 * member of the keys read here at most once), and appends to hosts its
 * execution.nodelist entries (RFC 29 hostlists) joined with commas: one
 * hostlist expression. version must be 1. Returns -1 and sets *cause
 * (caller frees; "at byte N: ..." for a syntax error) otherwise. */
int	 fluxr_nodelist(const char *r, size_t len, struct buf *hosts,
	    char **cause);

/* A job id as Flux writes it in FLUX_JOB_ID: F58 ("ƒ" or "f" and base58
 * digits, most significant first) or decimal. -1 when s is neither or
 * does not fit in 64 bits. */
int	 fluxr_jobid(const char *s, uint64_t *id);

/* Runs `flux job info JOBID R` (flux from PATH), its standard error
 * passed through, and returns its output (caller frees), at most
 * FLUXR_MAX bytes; *len gets its length. NULL and *cause when flux
 * cannot be started (not in PATH: saying so), gives no answer within
 * fluxr_timeout_ms (it is killed), is killed, or exits non-zero. */
char	*fluxr_fetch(const char *jobid, size_t *len, char **cause);

#endif
