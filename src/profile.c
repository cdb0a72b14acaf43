/* profile.c: site profiles: the extends chain, the merge, the rules
 * between keys, validation and dump. The schema is profile-key.c's,
 * libconfuse profile-cfg.c's. */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <confuse.h>

#include "gen.h"
#include "launcher.h"
#include "profile.h"
#include "profile-int.h"
#include "rx.h"
#include "util.h"
#include "xmalloc.h"

/* Files in one extends chain, the named file included. */
#define PROFILE_MAXDEPTH	16

#define OFF(f)	offsetof(struct profile, f)

/* Where each key of a resolved profile got its value. */
struct origin {
	const char	*file;
	int		 line;
	size_t		 layer;		/* base first */
};

struct load {
	struct origin	*org;		/* profile_nkeys of them */
	struct foundlist found;
};


/* ---- The extends chain ---- */

/* profile_site_find, skipping the files of the chain ls[0..n-1]. */
static char *
chain_find(const char *name, const struct strlist *dirs, struct layer **ls,
    size_t n, int *hit)
{
	const char	**skip;
	char		 *path;
	size_t		  i;

	skip = xcalloc(n, sizeof *skip);
	for (i = 0; i < n; i++)
		skip[i] = ls[i]->real;
	path = profile_site_find(name, dirs, skip, n, hit);
	free(skip);
	return path;
}

static void
chain_cycle(struct layer *l, struct layer **ls, size_t n, int hit)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < n; i++) {
		profile_addvis(&b, ls[i]->file);
		buf_adds(&b, " -> ");
	}
	profile_addvis(&b, ls[hit]->file);
	profile_layer_error(l, l->extends_line, "extends cycle: %s", b.s);
	buf_free(&b);
}

static char *
chain_path(const struct layer *l)
{
	const char	*slash;
	char		*path;

	if (l->extends[0] == '/')
		return xstrdup(l->extends);
	if ((slash = strrchr(l->file, '/')) == NULL)
		return xstrdup(l->extends);
	xasprintf(&path, "%.*s/%s", (int)(slash - l->file), l->file,
	    l->extends);
	return path;
}

/* The file the last layer extends; NULL after reporting why not. A name
 * is looked up along dirs, a path is relative to the extending file. */
static char *
chain_next(struct layer **ls, size_t n, const struct strlist *dirs)
{
	struct layer	*l = ls[n - 1];
	char		*path, *real, *v;
	int		 hit = -1;
	size_t		 i;

	if (!profile_site_is_path(l->extends))
		path = chain_find(l->extends, dirs, ls, n, &hit);
	else if ((real = realpath((path = chain_path(l)), NULL)) != NULL) {
		for (i = 0; i < n && hit == -1; i++)
			if (strcmp(ls[i]->real, real) == 0)
				hit = (int)i;
		free(real);
		if (hit != -1 || !profile_is_file(path)) {
			free(path);
			path = NULL;
		}
	} else {
		free(path);
		path = NULL;
	}
	if (path != NULL)
		return path;
	if (hit != -1)
		chain_cycle(l, ls, n, hit);
	else {
		v = profile_vis(l->extends);
		profile_layer_error(l, l->extends_line, "extends target '%s' not "
		    "found", v);
		free(v);
	}
	return NULL;
}

/* Parses the chain from the named file up; ls[0] is that file. */
static size_t
chain_load(struct layer **ls, const char *file, char *text,
    const struct strlist *dirs, struct strlist *errors)
{
	struct layer	*l;
	char		*path, *cause;
	size_t		 i, n = 0;

	ls[n++] = l = profile_layer_new(file, text);
	while (l->extends != NULL) {
		if (n == PROFILE_MAXDEPTH) {
			profile_layer_error(l, l->extends_line, "extends chain longer "
			    "than %d files", PROFILE_MAXDEPTH);
			break;
		}
		if ((path = chain_next(ls, n, dirs)) == NULL)
			break;
		if ((text = util_readfile_max(path, UTIL_READ_PROFILE_MAX, NULL,
		    &cause)) == NULL) {
			profile_layer_error(l, l->extends_line, "extends: %s", cause);
			free(cause);
			free(path);
			break;
		}
		ls[n++] = l = profile_layer_new(path, text);
		free(path);
	}
	for (i = 0; i < n; i++)
		profile_found_flush(&ls[i]->errors, errors);
	return n;
}

/* ---- Resolving ---- */

static void
profile_defaults(struct profile *p)
{
	size_t	i;

	memset(p, 0, sizeof *p);
	p->name = xstrdup("");
	p->path = xstrdup("");
	p->setup_at = xstrdup("");
	strlist_init(&p->chain);
	for (i = 0; i < profile_nkeys; i++) {
		if (profile_keys[i].type == K_STR)
			*(char **)profile_key_field(p, &profile_keys[i]) = xstrdup("");
		else if (profile_keys[i].type == K_LIST)
			strlist_init(profile_key_field(p, &profile_keys[i]));
	}
	free(p->job_name);
	p->job_name = xstrdup("ddp");
	free(p->job_output);
	p->job_output = xstrdup("ddp-%j.out");
	free(p->shared_dir);
	p->shared_dir = xstrdup("/app");
	strlist_add(&p->launcher, "torchrun");
	/* Required: this only keeps the template default defined while the
	 * missing key is being reported. */
	p->scheduler = SCHED_GEN_FIRST;
	p->discovery = PROFILE_HOSTNAME;
	p->port_min = PORT_LO_DEFAULT;
	p->port_max = PORT_HI_DEFAULT;
	p->rdzv = RDZV_STATIC;
	p->task_shell = PROFILE_SHELL_LOGIN_INTERACTIVE;
	p->label_output = 1;
	p->exclusive = 1;
	p->preflight = 1;
	p->fail_on_task_failure = 1;
	p->exchange_timeout = EXCHANGE_TIMEOUT_DEFAULT;
	p->signal_lead = 120;
	p->checkpoint_signal = PROFILE_SIG_USR2;
	p->max_requeues = 3;
	p->max_failures = 3;
	p->bad_node_hours = 24;
}

/*
 * A template path with a slash is relative to the directory of the file
 * that sets it, so a centre can ship a template beside its profile and
 * users extend that profile from anywhere. It is made absolute, which
 * also lets the --show-site dump load back from another directory. A
 * name without a slash is looked up along the template path. The
 * caller frees the result.
 */
static char *
layer_template(const struct layer *l, const char *t)
{
	const char	*slash = strrchr(l->file, '/');
	char		*dir, *real, *path;

	if (strchr(t, '/') == NULL || t[0] == '/')
		return xstrdup(t);
	if (slash == NULL)
		dir = xstrdup(".");
	else if (slash == l->file)
		dir = xstrdup("/");
	else
		dir = xstrndup(l->file, (size_t)(slash - l->file));
	if ((real = realpath(dir, NULL)) != NULL) {
		free(dir);
		dir = real;
	}
	xasprintf(&path, "%s%s%s", dir,
	    dir[strlen(dir) - 1] == '/' ? "" : "/", t);
	free(dir);
	return path;
}

/* Frees what profile_defaults and the merge allocate in p. */
static void
profile_strings_free(struct profile *p)
{
	size_t	i;

	for (i = 0; i < profile_nkeys; i++) {
		if (profile_keys[i].type == K_STR)
			free(*(char **)profile_key_field(p, &profile_keys[i]));
		else if (profile_keys[i].type == K_LIST)
			strlist_free(profile_key_field(p, &profile_keys[i]));
	}
	free(p->name);
	free(p->path);
	free(p->setup_at);
	strlist_free(&p->chain);
}

/* Applies key i as layer l set it (its values were checked). */
static void
profile_apply(struct profile *p, const struct layer *l, size_t i)
{
	const struct key	*k = &profile_keys[i];
	cfg_opt_t		*opt = cfg_getopt(l->cfg, k->name);
	struct strlist		*list;
	char			**s;
	unsigned int		 j, n = cfg_opt_size(opt);

	switch (k->type) {
	case K_EXTENDS:
		break;
	case K_STR:
		s = profile_key_field(p, k);
		free(*s);
		if (k->off == OFF(template))
			*s = layer_template(l, cfg_opt_getnstr(opt, 0));
		else
			*s = xstrdup(cfg_opt_getnstr(opt, 0));
		break;
	case K_LIST:
		list = profile_key_field(p, k);
		if (!l->append[i]) {
			strlist_free(list);
			strlist_init(list);
		}
		for (j = l->append[i]; j < n; j++) {
			if (k->off == OFF(sbatch_extra))
				strlist_addown(list,
				    profile_sbatch_word(cfg_opt_getnstr(opt, j)));
			else
				strlist_add(list, cfg_opt_getnstr(opt, j));
		}
		if (k->off == OFF(env) || k->off == OFF(env_default))
			profile_env_dedupe(list);
		break;
	case K_RANGE:
		profile_key_item(k, cfg_opt_getnstr(opt, 0), &p->port_min, NULL);
		profile_key_item(k, cfg_opt_getnstr(opt, 1), &p->port_max, NULL);
		break;
	default:
		profile_key_item(k, cfg_opt_getnstr(opt, 0), profile_key_field(p, k), NULL);
		break;
	}
}

typedef void	problem_fn(void *, const struct key *, const char *);

static void
problems_item(const struct key *k, const char *s, problem_fn *fn, void *arg)
{
	char	*cause;

	if (profile_key_item(k, s, NULL, &cause) == -1) {
		fn(arg, k, cause);
		free(cause);
	}
}

/* Each value on its own, as the parse checks it. */
static void
problems_values(const struct profile *p, problem_fn *fn, void *arg)
{
	const struct key	*k;
	const struct strlist	*list;
	char			*s;
	size_t			 i, j;

	for (i = 0; i < profile_nkeys; i++) {
		k = &profile_keys[i];
		if (k->type == K_EXTENDS || k->type == K_RANGE)
			continue;
		if (k->type == K_LIST) {
			list = profile_key_field(p, k);
			for (j = 0; j < list->n; j++)
				problems_item(k, list->v[j], fn, arg);
			continue;
		}
		s = profile_key_scalar(p, k);
		problems_item(k, s, fn, arg);
		free(s);
	}
}

static void
problem(problem_fn *fn, void *arg, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
problem(problem_fn *fn, void *arg, const char *key, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	xvasprintf(&msg, fmt, ap);
	va_end(ap);
	fn(arg, profile_key_find(key), msg);
	free(msg);
}

static void
problems_ports(const struct profile *p, problem_fn *fn, void *arg)
{
	if (p->port_min < 1024 || p->port_max > 65535)
		problem(fn, arg, "port_range", "port_range: value out of "
		    "range: {%d, %d} (1024 to 65535)", p->port_min,
		    p->port_max);
	else if (p->port_min > p->port_max)
		problem(fn, arg, "port_range", "port_range: low port %d above "
		    "high port %d", p->port_min, p->port_max);
}

/*
 * A key that only some schedulers' jobs honour (KF_SCHED), set on a site
 * whose back-end does not honour it (gen_honours) to other than its
 * default, is refused, one policy for every scheduler, rather than
 * dropped from the job unseen.
 */
static void
problems_sched(const struct profile *p, problem_fn *fn, void *arg)
{
	struct profile	 def;
	char		*a, *b, *takes;
	size_t		 i;
	int		 same;

	profile_defaults(&def);
	for (i = 0; i < profile_nkeys; i++) {
		if (!(profile_keys[i].flags & KF_SCHED) ||
		    gen_honours(p->scheduler, profile_keys[i].name))
			continue;
		if (profile_keys[i].type == K_LIST)
			same = ((const struct strlist *)profile_key_field(p,
			    &profile_keys[i]))->n == 0;
		else {
			a = profile_key_scalar(p, &profile_keys[i]);
			b = profile_key_scalar(&def, &profile_keys[i]);
			same = strcmp(a, b) == 0;
			free(a);
			free(b);
		}
		if (same)
			continue;
		takes = gen_keys_text(p->scheduler);
		problem(fn, arg, profile_keys[i].name, "%s: a key %s jobs have no word "
		    "for (they take: %s)", profile_keys[i].name,
		    sched_get(p->scheduler)->title, takes);
		free(takes);
	}
	profile_strings_free(&def);
}

/* What the back-end's rules say (gen.h's check hook): each problem is
 * reported at its key. */
struct sched_problem {
	problem_fn	*fn;
	void		*arg;
};

static void
sched_problem(void *arg, const char *key, const char *msg)
{
	struct sched_problem	*sp = arg;

	sp->fn(sp->arg, profile_key_find(key), msg);
}

static void
problems_backend(const struct profile *p, problem_fn *fn, void *arg)
{
	const struct gen	*g = gen_get(p->scheduler);
	struct sched_problem	 sp = { fn, arg };

	if (g->check != NULL)
		g->check(p, sched_problem, &sp);
}

static void
problems_container(const struct profile *p, problem_fn *fn, void *arg)
{
	const struct runtime	*rt = runtime_get(p->container);
	char			*where;

	if (p->container == RT_NONE)
		return;
	if (p->image[0] == '\0')
		problem(fn, arg, "container", "container: '%s' needs an image",
		    rt->name);
	if (!(gen_get(p->scheduler)->images & 1 << rt->image)) {
		where = gen_images_text(rt->image);
		problem(fn, arg, "container", "container: '%s' runs under "
		    "%s only, not %s", rt->name, where,
		    sched_get(p->scheduler)->name);
		free(where);
	}
	if (p->container_modules.n > 0 && rt->module_opt == NULL)
		problem(fn, arg, "container_modules", "container_modules: "
		    "'%s' has no modules", rt->name);
	/* DeepSpeed's hostfile is a file descriptor ddprank leaves open,
	 * which podman does not pass into its container. */
	if (rt->env_opt != NULL && p->launcher.n > 0 &&
	    launcher_find(p->launcher.v[0]) == LAUNCHER_DEEPSPEED)
		problem(fn, arg, "container", "container: launcher deepspeed "
		    "reads its hostfile from a descriptor '%s' does not pass",
		    rt->name);
}

/* 1 if l holds one of the words of alt (NULL: none). */
static int
has_word(const struct strlist *l, const char *const *alt)
{
	size_t	i, k;

	for (i = 0; alt != NULL && i < l->n; i++)
		for (k = 0; alt[k] != NULL; k++)
			if (strcmp(l->v[i], alt[k]) == 0)
				return 1;
	return 0;
}

/* The binding step runs a script: a launcher told to run a module
 * cannot run it. Its own words count, not python's -m of "python3 -m
 * torch.distributed.run". */
static void
problems_bind_launcher(const struct profile *p, const struct launcher *l,
    problem_fn *fn, void *arg)
{
	const char	*base = strrchr(p->launcher.v[0], '/');

	base = base != NULL ? base + 1 : p->launcher.v[0];
	if (has_word(&p->launcher_args, l->module) ||
	    (strcmp(base, l->name) == 0 && has_word(&p->launcher, l->module)))
		problem(fn, arg, "bind", "bind: launcher %s runs a module "
		    "(%s), and the binding step runs a script", l->name,
		    l->module[0]);
}

/* The binding runs each worker through ddprank's binding step, a
 * program the launcher must run instead of python; it binds cores near
 * the GPUs the job asks for. */
static void
problems_bind(const struct profile *p, const struct launcher *l,
    problem_fn *fn, void *arg)
{
	if (p->bind == BIND_NONE)
		return;
	problems_bind_launcher(p, l, fn, arg);
	if (p->bind == BIND_GPU && p->gpus_per_node == 0)
		problem(fn, arg, "bind", "bind: gpu for a job that asks for no "
		    "GPU (gpus_per_node = 0): use numa, or none");
}

/* What the launcher the first word names can do. */
static void
problems_launcher(const struct profile *p, problem_fn *fn, void *arg)
{
	const struct launcher	*l;

	l = launcher_get(launcher_find(p->launcher.v[0]));
	if (l->sched != SCHED_AUTO && l->sched != p->scheduler)
		problem(fn, arg, "launcher", "launcher: %s starts one %s task "
		    "per process and runs only on %s sites, not %s", l->name,
		    sched_get(l->sched)->title, sched_get(l->sched)->title,
		    sched_get(p->scheduler)->title);
	/* ddprank exec puts its flags after the program's first words. */
	if (l->words > 1 && p->launcher.n > 1 &&
	    strcmp(p->launcher.v[1], l->program[1]) != 0)
		problem(fn, arg, "launcher", "launcher: '%s' is not '%s': %s "
		    "runs as '%s %s'", p->launcher.v[1], l->program[1], l->name,
		    l->program[0], l->program[1]);
	if (!l->rdzv && p->rdzv != RDZV_STATIC)
		problem(fn, arg, "rdzv", "rdzv: %s is torchrun's rendezvous; "
		    "launcher %s has none", rdzv_names[p->rdzv], l->name);
	if (l->restarts_flag == NULL && p->max_restarts > 0)
		problem(fn, arg, "max_restarts", "max_restarts: launcher %s "
		    "does not restart workers", l->name);
	problems_bind(p, l, fn, arg);
}

/* The first empty word of l, counted from 1; 0 when there is none. */
static size_t
empty_word(const struct strlist *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		if (l->v[i][0] == '\0')
			return i + 1;
	return 0;
}

/* The stall limit needs workers the watcher can see, and a job
 * directory every node reaches at one path. */
static void
problems_hang(const struct profile *p, problem_fn *fn, void *arg)
{
	const struct runtime	*rt = runtime_get(p->container);
	char			*v;

	if (p->hang_dir[0] != '\0' && p->hang_dir[0] != '/') {
		v = profile_vis(p->hang_dir);
		problem(fn, arg, "hang_dir", "hang_dir: '%s' is not an "
		    "absolute path", v);
		free(v);
	}
	if (p->hang_timeout > 0 && rt->argv != NULL && !rt->watched)
		problem(fn, arg, "hang_timeout", "hang_timeout: ddprank runs "
		    "outside the %s container and cannot see its workers' "
		    "heartbeats; set hang_timeout = 0", rt->title);
}

/* Rules between keys. */
static void
problems_cross(const struct profile *p, problem_fn *fn, void *arg)
{
	long long	 secs;
	size_t		 w;

	if (p->discovery == PROFILE_IFACE && p->iface[0] == '\0')
		problem(fn, arg, "discovery", "discovery: 'iface' needs an "
		    "iface pattern");
	if (p->gpus_per_node > 0 && p->nproc_per_node > p->gpus_per_node)
		problem(fn, arg, "nproc_per_node", "nproc_per_node: %d "
		    "processes for %d GPUs per node (one GPU each at most)",
		    p->nproc_per_node, p->gpus_per_node);
	if (p->launcher.n == 0)
		problem(fn, arg, "launcher", "launcher: empty list");
	else if ((w = empty_word(&p->launcher)) != 0)
		problem(fn, arg, "launcher", "launcher: word %zu is empty "
		    "('')", w);
	else
		problems_launcher(p, fn, arg);
	if (p->template[0] == '\0')
		problem(fn, arg, "template", "template: empty value");
	if (p->rdzv == RDZV_C10D && !p->exclusive && !p->c10d_shared)
		problem(fn, arg, "rdzv", "rdzv: c10d on nodes that are not "
		    "exclusive: " PROFILE_C10D_RISK "; set exclusive = true, "
		    "or " PROFILE_C10D_KEY);
	/* The warning would come before the job starts. */
	if ((gen_get(p->scheduler)->flags & GEN_WARN_SIGNAL) && p->requeue &&
	    profile_parse_time(p->time, &secs) == 0 && secs > 0 &&
	    p->signal_lead >= secs)
		problem(fn, arg, "signal_lead", "signal_lead: %d s is not "
		    "shorter than the time limit '%s'", p->signal_lead,
		    p->time);
	problems_container(p, fn, arg);
	problems_hang(p, fn, arg);
	problems_sched(p, fn, arg);
	problems_backend(p, fn, arg);
}

static void
profile_problems(const struct profile *p, problem_fn *fn, void *arg)
{
	problems_values(p, fn, arg);
	problems_ports(p, fn, arg);
	problems_cross(p, fn, arg);
}

static void
first_problem(void *arg, const struct key *k, const char *msg)
{
	char	**first = arg;

	(void)k;
	if (*first == NULL)
		*first = xstrdup(msg);
}

int
profile_validate(const struct profile *p, char **cause)
{
	char	*first = NULL;

	profile_problems(p, first_problem, &first);
	if (first == NULL)
		return 0;
	if (cause != NULL)
		*cause = first;
	else
		free(first);
	return -1;
}

static void
load_problem(void *arg, const struct key *k, const char *msg)
{
	struct load	*ld = arg;
	struct origin	*o = &ld->org[k - profile_keys];

	profile_found_add(&ld->found, o->layer, o->line,
	    profile_at(o->file, o->line, msg));
}

static char *
missing(const struct layer *l, const struct key *k)
{
	char	*s;

	xasprintf(&s, "%s: missing required key '%s'", l->file, k->name);
	return s;
}

/* Applies the layers base first; NULL after reporting problems. */
static struct profile *
profile_merge(struct layer **ls, size_t n, struct strlist *errors)
{
	struct profile	*p;
	struct load	 ld;
	size_t		 i, j, before = errors->n;

	p = xmalloc(sizeof *p);
	profile_defaults(p);
	ld.org = xcalloc(profile_nkeys, sizeof *ld.org);
	for (i = 0; i < profile_nkeys; i++) {
		ld.org[i].file = ls[0]->file;
		ld.org[i].line = 0;
		ld.org[i].layer = n - 1;
	}
	for (j = n; j-- > 0;) {
		strlist_add(&p->chain, ls[j]->file);
		for (i = 0; i < profile_nkeys; i++) {
			if (!ls[j]->set[i])
				continue;
			profile_apply(p, ls[j], i);
			ld.org[i].file = ls[j]->file;
			ld.org[i].line = profile_layer_line(ls[j], i);
			ld.org[i].layer = n - 1 - j;
		}
	}
	for (i = 0; i < profile_nkeys; i++) {
		if (!(profile_keys[i].flags & KF_REQUIRED))
			continue;
		for (j = 0; j < n && !ls[j]->set[i]; j++)
			;
		if (j == n)
			strlist_addown(errors, missing(ls[0], &profile_keys[i]));
	}
	if (p->template[0] == '\0') {
		free(p->template);
		p->template = xstrdup(gen_get(p->scheduler)->tmpl);
	}
	/* A back-end that runs no preflight defaults to none. */
	i = (size_t)(profile_key_find("preflight") - profile_keys);
	if (ld.org[i].line == 0 &&
	    (gen_get(p->scheduler)->flags & GEN_NO_PREFLIGHT))
		p->preflight = 0;
	/* ddpgen checks setup lines as shell once the options are laid
	 * over them: where they came from, for its message. */
	i = (size_t)(profile_key_find("setup") - profile_keys);
	if (ld.org[i].line > 0) {
		free(p->setup_at);
		p->setup_at = profile_at(ld.org[i].file, ld.org[i].line, "");
	}
	/* Each value and range was checked as its layer was parsed; what is
	 * left are the rules between keys, which only the merge can see. */
	if (errors->n == before) {
		ld.found.v = NULL;
		ld.found.n = 0;
		problems_cross(p, load_problem, &ld);
		profile_found_flush(&ld.found, errors);
	}
	free(ld.org);
	if (errors->n == before)
		return p;
	profile_free(p);
	return NULL;
}

/* Loads the chain from file (text is taken) and resolves it. */
static struct profile *
profile_build(const char *name, const char *file, char *text,
    const struct strlist *dirs, struct strlist *errors)
{
	struct layer	*ls[PROFILE_MAXDEPTH];
	struct profile	*p = NULL;
	size_t		 i, n, before = errors->n;

	n = chain_load(ls, file, text, dirs, errors);
	if (errors->n == before)
		p = profile_merge(ls, n, errors);
	for (i = 0; i < n; i++)
		profile_layer_free(ls[i]);
	if (p == NULL)
		return NULL;
	free(p->name);
	p->name = xstrdup(name);
	free(p->path);
	p->path = xstrdup(file);
	return p;
}

struct profile *
profile_load(const char *site, const struct strlist *dirs,
    struct strlist *errors)
{
	struct profile	*p;
	char		*path, *text, *cause;
	int		 hit;

	if (profile_site_is_path(site))
		path = xstrdup(site);
	else if ((path = profile_site_find(site, dirs, NULL, 0, &hit)) ==
	    NULL) {
		profile_unknown_site(site, dirs, errors);
		return NULL;
	}
	if ((text = util_readfile_max(path, UTIL_READ_PROFILE_MAX, NULL,
	    &cause)) == NULL) {
		strlist_addown(errors, cause);
		free(path);
		return NULL;
	}
	p = profile_build(site, path, text, dirs, errors);
	free(path);
	return p;
}

struct profile *
profile_parse_buf(const char *name, const char *text,
    const struct strlist *dirs, struct strlist *errors)
{
	return profile_build(name, name, xstrdup(text), dirs, errors);
}

/* Every site along dirs, loaded for its description and scheduler. */
size_t
profile_list(const struct strlist *dirs, struct profile_site **out)
{
	struct profile_site	*v;
	struct profile		*p;
	struct strlist		 errors;
	size_t			 i, n;

	n = profile_site_scan(dirs, &v);
	for (i = 0; i < n; i++) {
		strlist_init(&errors);
		if ((p = profile_load(v[i].path, dirs, &errors)) != NULL) {
			v[i].description = xstrdup(p->description);
			v[i].scheduler = sched_name(p->scheduler);
			profile_free(p);
		} else
			xasprintf(&v[i].description, "(error: %s)",
			    errors.n > 0 ? errors.v[0] : "unknown");
		strlist_free(&errors);
	}
	*out = v;
	return n;
}

int
profile_nproc(const struct profile *p)
{
	if (p->nproc_per_node > 0)
		return p->nproc_per_node;
	return p->gpus_per_node > 0 ? p->gpus_per_node : 1;
}

/* ---- Dump ---- */

static void
dump_value(const struct profile *p, const struct key *k, struct buf *b)
{
	const struct strlist	*list;
	char			*s;
	size_t			 i;

	switch (k->type) {
	case K_LIST:
		list = profile_key_field(p, k);
		buf_addc(b, '{');
		for (i = 0; i < list->n; i++) {
			buf_adds(b, i == 0 ? "" : ", ");
			profile_addquoted(b, list->v[i]);
		}
		buf_addc(b, '}');
		break;
	case K_RANGE:
		buf_addf(b, "{%d, %d}", p->port_min, p->port_max);
		break;
	case K_INT:
	case K_BOOL:
		s = profile_key_scalar(p, k);
		buf_adds(b, s);
		free(s);
		break;
	default:
		s = profile_key_scalar(p, k);
		if (k->type == K_PORT && p->port != 0)
			buf_adds(b, s);
		else
			profile_addquoted(b, s);
		free(s);
		break;
	}
}

void
profile_dump(const struct profile *p, struct buf *b)
{
	size_t	i;

	buf_adds(b, "# resolved profile ");
	profile_addvis(b, p->name);
	buf_addc(b, '\n');
	for (i = 0; i < p->chain.n; i++) {
		buf_adds(b, "# from ");
		profile_addvis(b, p->chain.v[i]);
		buf_addc(b, '\n');
	}
	for (i = 0; i < profile_nkeys; i++) {
		if (profile_keys[i].type == K_EXTENDS)
			continue;
		buf_addf(b, "%s = ", profile_keys[i].name);
		dump_value(p, &profile_keys[i], b);
		buf_addc(b, '\n');
	}
}

/* Key k's value in site, copied over dst's. */
static void
localize_key(struct profile *dst, const struct profile *site,
    const struct key *k)
{
	struct strlist	*l;
	char		**s;

	switch (k->type) {
	case K_EXTENDS:
		break;
	case K_STR:
		s = profile_key_field(dst, k);
		free(*s);
		*s = xstrdup(*(char **)profile_key_field(site, k));
		break;
	case K_LIST:
		l = profile_key_field(dst, k);
		strlist_free(l);
		strlist_init(l);
		strlist_copy(l, profile_key_field(site, k));
		break;
	case K_RANGE:
		dst->port_min = site->port_min;
		dst->port_max = site->port_max;
		break;
	default:
		*(int *)profile_key_field(dst, k) =
		    *(const int *)profile_key_field(site, k);
		break;
	}
}

void
profile_localize(struct profile *local, const struct profile *site)
{
	const struct key	*k;
	size_t			 i;

	for (i = 0; i < profile_nkeys; i++) {
		k = &profile_keys[i];
		if ((k->flags & KF_WHERE) || ((k->flags & KF_SCHED) &&
		    !gen_honours(local->scheduler, k->name)))
			continue;
		localize_key(local, site, k);
	}
	free(local->setup_at);
	local->setup_at = xstrdup(site->setup_at);
	strlist_copy(&local->chain, &site->chain);
}

void
profile_free(struct profile *p)
{
	if (p == NULL)
		return;
	profile_strings_free(p);
	free(p);
}

