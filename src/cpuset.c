/* cpuset.c: sets of CPUs and their list grammar (cpuset.h). */
#include "config.h"

#include <string.h>

#include "cpuset.h"
#include "util.h"

#define NWORDS	(CPUSET_MAX / 64)

void
cpuset_zero(struct cpuset *s)
{
	memset(s, 0, sizeof *s);
}

void
cpuset_set(struct cpuset *s, int cpu)
{
	if (cpu >= 0 && cpu < CPUSET_MAX)
		s->w[cpu / 64] |= (uint64_t)1 << (cpu % 64);
}

void
cpuset_clr(struct cpuset *s, int cpu)
{
	if (cpu >= 0 && cpu < CPUSET_MAX)
		s->w[cpu / 64] &= ~((uint64_t)1 << (cpu % 64));
}

int
cpuset_isset(const struct cpuset *s, int cpu)
{
	return cpu >= 0 && cpu < CPUSET_MAX &&
	    (s->w[cpu / 64] >> (cpu % 64) & 1) != 0;
}

int
cpuset_count(const struct cpuset *s)
{
	int	i, n = 0;

	for (i = 0; i < NWORDS; i++)
		n += __builtin_popcountll(s->w[i]);
	return n;
}

int
cpuset_next(const struct cpuset *s, int cpu)
{
	uint64_t	w;
	int		i;

	for (cpu++; cpu < CPUSET_MAX; cpu = (i + 1) * 64) {
		i = cpu / 64;
		w = s->w[i] >> (cpu % 64);
		if (w != 0)
			return cpu + __builtin_ctzll(w);
	}
	return -1;
}

int
cpuset_empty(const struct cpuset *s)
{
	return cpuset_next(s, -1) == -1;
}

int
cpuset_equal(const struct cpuset *a, const struct cpuset *b)
{
	return memcmp(a->w, b->w, sizeof a->w) == 0;
}

int
cpuset_subset(const struct cpuset *a, const struct cpuset *b)
{
	int	i;

	for (i = 0; i < NWORDS; i++)
		if ((a->w[i] & ~b->w[i]) != 0)
			return 0;
	return 1;
}

int
cpuset_intersects(const struct cpuset *a, const struct cpuset *b)
{
	int	i;

	for (i = 0; i < NWORDS; i++)
		if ((a->w[i] & b->w[i]) != 0)
			return 1;
	return 0;
}

void
cpuset_or(struct cpuset *dst, const struct cpuset *s)
{
	int	i;

	for (i = 0; i < NWORDS; i++)
		dst->w[i] |= s->w[i];
}

void
cpuset_and(struct cpuset *dst, const struct cpuset *s)
{
	int	i;

	for (i = 0; i < NWORDS; i++)
		dst->w[i] &= s->w[i];
}

void
cpuset_andnot(struct cpuset *dst, const struct cpuset *s)
{
	int	i;

	for (i = 0; i < NWORDS; i++)
		dst->w[i] &= ~s->w[i];
}

/* A CPU number at *p: digits, no sign, below CPUSET_MAX. */
static int
cpuset_number(const char **p, int *cpu)
{
	long	v = 0;

	if (**p < '0' || **p > '9')
		return -1;
	for (; **p >= '0' && **p <= '9'; (*p)++) {
		v = v * 10 + (**p - '0');
		if (v >= CPUSET_MAX)
			return -1;
	}
	*cpu = (int)v;
	return 0;
}

int
cpuset_parse(struct cpuset *s, const char *list, char **cause)
{
	const char	*p = list;
	int		 lo, hi, cpu;

	cpuset_zero(s);
	while (*p != '\0') {
		if (cpuset_number(&p, &lo) == -1)
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (cpuset_number(&p, &hi) == -1 || hi < lo)
				goto bad;
		}
		for (cpu = lo; cpu <= hi; cpu++)
			cpuset_set(s, cpu);
		if (*p == ',' && p[1] != '\0')
			p++;
		else if (*p != '\0')
			goto bad;
	}
	return 0;
bad:
	return util_fail(cause, "'%s' is not a CPU list (N or N-M items "
	    "joined by ',', each below %d)", list, CPUSET_MAX);
}

void
cpuset_format(struct buf *b, const struct cpuset *s)
{
	int	lo, hi, first = 1;

	for (lo = cpuset_next(s, -1); lo != -1; lo = cpuset_next(s, hi)) {
		for (hi = lo; cpuset_isset(s, hi + 1); hi++)
			;
		if (!first)
			buf_addc(b, ',');
		first = 0;
		if (hi == lo)
			buf_addf(b, "%d", lo);
		else
			buf_addf(b, "%d-%d", lo, hi);
	}
}
