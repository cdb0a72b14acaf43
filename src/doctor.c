/* doctor.c: ddprank doctor's findings: the checks' names, a node's
 * findings and setting one. The checks are in doctor-check.c, the system
 * they ask in doctor-sys.c, the wire format in doctor-wire.c, the report
 * in doctor-report.c; node 0 gathering is in doctor-net.c. */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "doctor-int.h"
#include "xmalloc.h"

const struct doctor_check_row doctor_checks[DOCTOR_NCHECKS] = {
	[DOCTOR_NODES] = { "nodes", 1 },
	[DOCTOR_IFACE] = { "iface", 1 },
	[DOCTOR_RESOLVE] = { "resolve", 1 },
	[DOCTOR_PORT] = { "port", 1 },
	[DOCTOR_CONNECT] = { "connect", 1 },
	[DOCTOR_LAUNCHER] = { "launcher", 1 },
	[DOCTOR_TORCH] = { "torch", 1 },
	[DOCTOR_GPUS] = { "gpus", 1 },
	[DOCTOR_BIND] = { "bind", 0 },
	[DOCTOR_ENV] = { "env", 0 },
	[DOCTOR_SHARED] = { "shared", 1 }
};

const char *const doctor_levels[] = { "PASS", "WARN", "FAIL" };

const char *
doctor_check_name(enum doctor_check c)
{
	return doctor_checks[c].name;
}

int
doctor_check_parse(const char *s, enum doctor_check *c)
{
	int	i;

	for (i = 0; i < DOCTOR_NCHECKS; i++) {
		if (strcmp(s, doctor_checks[i].name) == 0) {
			*c = (enum doctor_check)i;
			return 0;
		}
	}
	return -1;
}

void
doctor_node_init(struct doctor_node *n)
{
	memset(n, 0, sizeof *n);
}

void
doctor_node_free(struct doctor_node *n)
{
	int	i;

	for (i = 0; i < DOCTOR_NCHECKS; i++)
		free(n->f[i].detail);
	free(n->addr);
	free(n->host);
	free(n->src);
	doctor_node_init(n);
}

static void __attribute__((format(printf, 4, 0)))
doctor_vset(struct doctor_node *n, enum doctor_check c,
    enum doctor_level l, const char *fmt, va_list ap)
{
	char	*s;

	xvasprintf(&s, fmt, ap);
	free(n->f[c].detail);
	n->f[c].detail = s;
	n->f[c].level = l;
	n->f[c].nobody = 0;
}

void
doctor_set(struct doctor_node *n, enum doctor_check c, enum doctor_level l,
    const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	doctor_vset(n, c, l, fmt, ap);
	va_end(ap);
}

