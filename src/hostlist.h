/* hostlist.h: Slurm hostlist expressions ("nid[001-004,9],login1"),
 * counted and indexed in their compressed form, never expanded whole. */
#ifndef DDPGEN_HOSTLIST_H
#define DDPGEN_HOSTLIST_H

#include <stddef.h>
#include <stdint.h>

/* Guard against expressions that would expand to absurd sizes: a list
 * whose total host count exceeds this is rejected at parse time. */
#define HOSTLIST_MAX_HOSTS	100000000ULL
/* Longest host name produced or accepted. */
#define HOSTLIST_NAME_MAX	255

struct hostlist;

/* Parses a Slurm hostlist expression with the semantics of
 * `scontrol show hostnames` (separators comma, space and tab; bracket
 * ranges and lists; zero padding from the low bound; several bracket
 * groups as a cartesian product in Slurm's order -- with two, the first
 * group outermost; with more, see hostlist.c; duplicates kept).
 * Returns NULL and sets *cause (caller frees) naming the offending part
 * on anything Slurm rejects, and on what Slurm garbles (unclosed
 * brackets, blanks inside brackets...; hostlist.c lists them). There is
 * no per-range limit, only HOSTLIST_MAX_HOSTS and HOSTLIST_NAME_MAX.
 * An empty expression is an error. */
struct hostlist	*hostlist_parse(const char *expr, char **cause);

/* A list of literal names, in order (no bracket syntax): the form used
 * for CCP_NODES, PBS_NODEFILE, LSB_MCPU_HOSTS and hostfiles. Copies. */
struct hostlist	*hostlist_from_names(char *const *names, size_t n);

uint64_t	 hostlist_count(const struct hostlist *);

/* Writes host number i (0-based) into buf; returns its length, or -1 if
 * i is out of range or the name does not fit in len bytes. */
int		 hostlist_nth(const struct hostlist *, uint64_t i, char *buf,
		    size_t len);

/* Flags for hostlist_find. */
#define HOSTLIST_ICASE	0x1	/* compare case-insensitively */
#define HOSTLIST_SHORT	0x2	/* compare only up to the first '.' on
				   both sides (short host names) */

/* Index of the first host equal to name, or -1 when absent. Runs in
 * time proportional to the number of items and bracket groups, not the
 * number of hosts. */
int64_t		 hostlist_find(const struct hostlist *, const char *name,
		    int flags);

/* The names as one Slurm hostlist expression, sorted, duplicates
 * dropped, runs of numbers in brackets: {"nid003", "nid018", "nid017"}
 * gives "nid[003,017-018]". Names holding separators or brackets are
 * not escaped. Caller frees; "" for n == 0. */
char		*hostlist_compress(const char *const *names, size_t n);

void		 hostlist_free(struct hostlist *);

#endif
