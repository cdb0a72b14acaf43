/* gen-flux.c: ddpgen's Flux back-end: flux batch scripts (templates/flux.sh
 * and its fragments in templates/flux/), and the rendered job checked as
 * flux batch will read it (flux-core's cli/batch.py and
 * job/directives.py, flux-batch(1)). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "profile.h"
#include "runtime.h"
#include "script.h"
#include "tmpl.h"
#include "util.h"
#include "xmalloc.h"

static const struct gen_format flux_formats[] = { { "flux", TMPL_SH } };

/* The profile's keys that #flux: lines or the life cycle write. */
static const char *const flux_keys[] = { "partition", "account",
    "constraint", "job_output", "label_output", "requeue", "signal_lead",
    "checkpoint_signal", "max_requeues", "hang_timeout", "hang_dir",
    "max_failures", "bad_node_hours", NULL };

/* The sentinel of the template's directives. */
#define FLUX_SENTINEL	"#flux:"

/* Slurm's output pattern in Flux's terms (flux-submit(1), MUSTACHE
 * TEMPLATES): %j the job id, %x its name, %% a %; any other % stays. */
static void
flux_output(struct tmpl_vars *v, const struct profile *p)
{
	struct buf	 b;
	const char	*s;

	buf_init(&b);
	for (s = p->job_output; *s != '\0'; s++) {
		if (s[0] == '%' && s[1] == 'j')
			buf_adds(&b, "{{id}}");
		else if (s[0] == '%' && s[1] == 'x')
			buf_adds(&b, "{{name}}");
		else if (s[0] == '%' && s[1] == '%')
			buf_addc(&b, '%');
		else {
			buf_addc(&b, *s);
			continue;
		}
		s++;
	}
	tmpl_set(v, "output", b.s);
	buf_free(&b);
}

/* The nodes to leave out as a constraint of --requires, RFC 31's
 * negated host operator, whose value is a hostlist (flux-submit(1),
 * CONSTRAINTS): -host:A,B. */
static void
flux_exclusion(struct tmpl_vars *v, const struct job *job)
{
	char	*list, *req = NULL;
	size_t	 n;

	list = gen_exclusion(job, "", "", ",", &n);
	if (n > 0)
		xasprintf(&req, "-host:%s", list);
	tmpl_set(v, "flux_exclude", req != NULL ? req : "");
	free(req);
	free(list);
}

/* flux batch -t takes the limit in seconds with its unit; --exclusive
 * from two nodes on, as Slurm's. */
static void
flux_vars(struct tmpl_vars *v, const struct job *job)
{
	const struct profile	*p = job->prof;
	long long		 secs = 0;
	char			 t[32];

	t[0] = '\0';
	if (*p->time != '\0' && profile_parse_time(p->time, &secs) == 0 &&
	    secs > 0)
		snprintf(t, sizeof t, "%llds", secs);
	tmpl_set(v, "time", t);
	flux_output(v, p);
	tmpl_set(v, "exclusive", p->exclusive && job->nodes > 1 ? "1" : "");
	flux_exclusion(v, job);
}

/* Length of the UTF-8 sequence at s (at most n bytes) as Python's strict
 * decoder takes it (no overlong forms, surrogates or values above
 * U+10FFFF), or 0. */
static size_t
flux_utf8(const unsigned char *s, size_t n)
{
	size_t		len, i;
	uint32_t	c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return len;
}

/* The length of the sentinel line s (len bytes) starts with: its
 * non-word prefix and "flux:" or "FLUX:", or 0 when it has none. Bytes
 * of other characters count as non-word ones: Python's \w takes some of
 * them, and a false alarm costs less than a broken job. */
static size_t
flux_sentinel(const char *s, size_t len)
{
	size_t	i = 0;

	while (i < len && !(s[i] >= 'a' && s[i] <= 'z') &&
	    !(s[i] >= 'A' && s[i] <= 'Z') && !(s[i] >= '0' && s[i] <= '9') &&
	    s[i] != '_')
		i++;
	if (len - i >= 5 && (memcmp(s + i, "flux:", 5) == 0 ||
	    memcmp(s + i, "FLUX:", 5) == 0))
		return i + 5;
	return 0;
}

static int
flux_blank(const char *s, size_t len)
{
	return strspn(s, " \t\r\f\v") >= len;
}

static int
flux_line(const char *s, size_t len, size_t lineno, int *body,
    char **cause)
{
	size_t	n = flux_sentinel(s, len);
	int	theirs;

	if (n == 0) {
		if (s[0] != '#' && !flux_blank(s, len))
			*body = 1;
		return 0;
	}
	theirs = n == strlen(FLUX_SENTINEL) &&
	    memcmp(s, FLUX_SENTINEL, n) == 0;
	if (theirs && !*body)
		return 0;
	return util_fail(cause, "line %zu of the Flux job would be read by "
	    "%s as a submission directive: '%.*s%s'", lineno, gen_flux.submit,
	    len > 60 ? 60 : (int)len, s, len > 60 ? "..." : "");
}

static int
flux_check_script(const char *script, char **cause)
{
	const unsigned char	*u = (const unsigned char *)script;
	size_t			 len = strlen(script), i, n, lineno = 1;
	size_t			 start = 0;
	int			 body = 0;

	for (i = 0; i < len; i += n) {
		if ((n = flux_utf8(u + i, len - i)) == 0)
			return util_fail(cause, "line %zu of the Flux job is "
			    "not valid UTF-8, which %s requires: a value "
			    "holds other bytes", lineno, gen_flux.submit);
		if (u[i] != '\n')
			continue;
		if (flux_line(script + start, i - start, lineno, &body,
		    cause) == -1)
			return -1;
		start = i + 1;
		lineno++;
	}
	return flux_line(script + start, len - start, lineno, &body, cause);
}

/* What flux batch demands of the rendered job: all of it UTF-8 (flux
 * batch refuses other bytes), and no line after the first that is
 * neither blank nor a comment read as a submission directive (RFC 36: a
 * line of non-word characters and "flux:" is one anywhere in the file,
 * and an error after the directives' block), nor one of another sentinel
 * than the template's "#flux:". */
static int
flux_check_output(const char *tpath, const struct buf *out, char **cause)
{
	(void)tpath;
	return flux_check_script(out->s, cause);
}

const struct gen gen_flux = {
	.sched = SCHED_FLUX,
	.submit = "flux batch",
	.tmpl = "flux.sh",
	.formats = flux_formats,
	.nformats = sizeof flux_formats / sizeof flux_formats[0],
	.flags = GEN_WARN_SIGNAL | GEN_ENV_PASS | GEN_ENV_SCRIPT |
	    GEN_LEAVES_OUT,
	.cmd_ddprank = "\"$DDPRANK\"",
	.keys = flux_keys,
	.images = 1 << RT_IMAGE_NONE | 1 << RT_IMAGE_WORD,
	.vars = flux_vars,
	.check_output = flux_check_output,
};
