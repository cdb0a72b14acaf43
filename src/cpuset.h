/* cpuset.h: sets of CPUs (the kernel's numbering, as in
 * /sys/devices/system/cpu) and their list grammar, "0-3,8,10-11", which
 * both programs read: ddpgen in the profile's bind_reserve, ddprank in
 * its options and in the plan it hands to the workers. */
#ifndef DDPGEN_CPUSET_H
#define DDPGEN_CPUSET_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* The largest machine: CPUs 0 to CPUSET_MAX - 1. */
#define CPUSET_MAX	4096

struct cpuset {
	uint64_t	w[CPUSET_MAX / 64];
};

void	cpuset_zero(struct cpuset *);
/* cpu outside 0 to CPUSET_MAX - 1 is ignored (set) or absent (isset). */
void	cpuset_set(struct cpuset *, int cpu);
void	cpuset_clr(struct cpuset *, int cpu);
int	cpuset_isset(const struct cpuset *, int cpu);
int	cpuset_count(const struct cpuset *);
/* The first CPU after cpu (-1: from the start), or -1 when none. */
int	cpuset_next(const struct cpuset *, int cpu);
int	cpuset_empty(const struct cpuset *);
int	cpuset_equal(const struct cpuset *, const struct cpuset *);
/* Every CPU of a is in b. */
int	cpuset_subset(const struct cpuset *a, const struct cpuset *b);
int	cpuset_intersects(const struct cpuset *, const struct cpuset *);
void	cpuset_or(struct cpuset *dst, const struct cpuset *);
void	cpuset_and(struct cpuset *dst, const struct cpuset *);
void	cpuset_andnot(struct cpuset *dst, const struct cpuset *);

/* Parses a list, "N", "N-M" items joined by ',' (no spaces; M >= N; an
 * empty string is the empty set): -1 and *cause ("'x' is not a CPU list
 * ...") on anything else or a CPU from CPUSET_MAX on. */
int	cpuset_parse(struct cpuset *, const char *, char **cause);
/* Appends the list, ranges joined: "0-3,8"; "" for the empty set. */
void	cpuset_format(struct buf *, const struct cpuset *);

#endif
