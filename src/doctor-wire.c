/* doctor-wire.c: the findings' wire format, the message each node sends
 * node 0, and its seal. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor-int.h"
#include "hostlist.h"
#include "netif.h"
#include "xmalloc.h"

/* A word of the node line: no blanks or control bytes. */
static void
doctor_add_word(struct buf *b, const char *s)
{
	if (s == NULL || *s == '\0') {
		buf_addc(b, '-');
		return;
	}
	for (; *s != '\0'; s++)
		buf_addc(b, (unsigned char)*s <= ' ' ? '?' : *s);
}

void
doctor_encode(struct buf *b, const struct doctor_node *n)
{
	int	i;

	buf_adds(b, "ddprank-doctor 1\n");
	buf_addf(b, "node %llu %llu %d ", (unsigned long long)n->rank,
	    (unsigned long long)n->nnodes, n->port);
	doctor_add_word(b, n->addr);
	buf_addc(b, ' ');
	doctor_add_word(b, n->host);
	buf_addc(b, '\n');
	for (i = 0; i < DOCTOR_NCHECKS; i++) {
		if (n->f[i].detail == NULL)
			continue;
		buf_addf(b, "%s %s ", doctor_checks[i].name, doctor_levels[n->f[i].level]);
		util_addvis(b, n->f[i].detail, strlen(n->f[i].detail));
		buf_addc(b, '\n');
	}
	buf_adds(b, "end\n");
}

static int
doctor_decode_node(struct doctor_node *n, char *line, char **cause)
{
	unsigned long long	rank, nnodes;
	int			port, off = 0;
	char			addr[NETIF_ADDRSTRLEN], host[HOSTLIST_NAME_MAX + 1];

	_Static_assert(NETIF_ADDRSTRLEN == 63 && HOSTLIST_NAME_MAX == 255,
	    "the widths below");
	if (sscanf(line, "node %llu %llu %d %62s %255s%n", &rank, &nnodes,
	    &port, addr, host, &off) != 5 || line[off] != '\0' ||
	    nnodes == 0 || rank >= nnodes || port < 1 || port > 65535 ||
	    util_has_cntrl(addr) || util_has_cntrl(host))
		return util_fail(cause, "bad node line");
	n->rank = rank;
	n->nnodes = nnodes;
	n->port = port;
	n->addr = xstrdup(addr);
	n->host = xstrdup(host);
	return 0;
}

static int
doctor_decode_finding(struct doctor_node *n, char *line, char **cause)
{
	enum doctor_check	 c;
	char			*level, *detail;
	int			 l;

	if ((level = strchr(line, ' ')) == NULL ||
	    (detail = strchr(level + 1, ' ')) == NULL)
		return util_fail(cause, "bad finding line");
	*level++ = '\0';
	*detail++ = '\0';
	if (doctor_check_parse(line, &c) == -1)
		return util_fail(cause, "unknown check '%s'", line);
	for (l = 0; l < 3 && strcmp(level, doctor_levels[l]) != 0; l++)
		;
	if (l == 3)
		return util_fail(cause, "unknown level '%s'", level);
	doctor_set(n, c, (enum doctor_level)l, "%s", detail);
	return 0;
}

static int
doctor_decode_line(struct doctor_node *n, size_t lineno, char *line,
    char **cause)
{
	if (lineno == 0)
		return strcmp(line, "ddprank-doctor 1") == 0 ? 0 :
		    util_fail(cause, "not a ddprank doctor report");
	if (lineno == 1)
		return doctor_decode_node(n, line, cause);
	return doctor_decode_finding(n, line, cause);
}

int
doctor_decode(struct doctor_node *n, const char *buf, size_t len,
    char **cause)
{
	char	*copy, *line, *nl;
	size_t	 lineno = 0;
	int	 rc = -1;

	doctor_node_init(n);
	if (memchr(buf, '\0', len) != NULL)
		return util_fail(cause, "NUL byte in report");
	copy = xstrndup(buf, len);
	for (line = copy; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		*nl = '\0';
		if (lineno >= 2 && strcmp(line, "end") == 0) {
			rc = nl[1] == '\0' ? 0 :
			    util_fail(cause, "text after end");
			break;
		}
		if (doctor_decode_line(n, lineno++, line, cause) == -1)
			break;
	}
	if (nl == NULL)
		util_fail(cause, "report ends without 'end'");
	free(copy);
	if (rc == -1)
		doctor_node_free(n);
	return rc;
}

int
doctor_seal(struct buf *b, const struct doctor_node *n,
    const struct gather_scope *sc)
{
	size_t	start = b->len;

	doctor_encode(b, n);
	return gather_seal(b, start, DOCTOR_MAC_LABEL, sc);
}

int
doctor_open(struct doctor_node *n, const char *buf, size_t len,
    const struct gather_scope *sc, char **cause)
{
	struct buf	b;
	int		rc;

	if (gather_open(buf, len, DOCTOR_MAC_LABEL, sc, &b, cause) == -1) {
		buf_free(&b);
		return -1;
	}
	rc = doctor_decode(n, b.s, b.len, cause);
	buf_free(&b);
	return rc;
}

