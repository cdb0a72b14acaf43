/* hang.h: a training that stopped after it joined (ddprank(1), HANGS).
 * The heartbeat contract judged, the stacks faulthandler writes read,
 * one node's record of what it saw, and the verdict over every node's
 * records: the one summary line and the nodes to leave out. Pure: no
 * files, no clock, no signals (hangwatch.c does those). */
#ifndef DDPGEN_HANG_H
#define DDPGEN_HANG_H

#include <stddef.h>

#include "util.h"

/* The longest stall limit: a day. */
#define HANG_TIMEOUT_MAX	86400
/* Seconds between a node's stacks and its ending the launcher: the
 * other nodes, whose ranks stop beating within a step of this node's,
 * take their stacks before the first kill breaks their collectives. */
#define HANG_DUMP_WAIT		10
/* Frames kept of a thread's stack, ranks of one record. */
#define HANG_FRAMES_MAX		64
#define HANG_RANKS_MAX		4096
/* Bytes read of one record, of one rank's stacks. */
#define HANG_RECORD_MAX		(1u << 20)
#define HANG_STACKS_MAX		(256u << 10)
/* A rank whose last beat is this much older than every other's stopped
 * first, when the stacks said nothing. */
#define HANG_FIRST_LEAD		5.0

enum hang_state {
	HANG_UNSIGNED,	/* no beat since the process started */
	HANG_BEATING,
	HANG_STALLED
};

/* start: when the worker started; beat: its heartbeat file's time (0
 * when there is none); both seconds of the same clock as now. A beat
 * older than the worker is an earlier worker's (torchrun restarted the
 * group): not signed yet. *age gets now - beat when signed. */
enum hang_state hang_judge(double now, double start, double beat,
	    int timeout, double *age);

struct hang_frame {
	long	 line;
	char	*func;
	char	*file;
};

struct hang_rank {
	long			 rank;
	long			 local_rank;	/* -1: not known */
	double			 age;		/* since the last beat; < 0:
						   never beat */
	int			 stalled;
	struct hang_frame	*frames;	/* the main thread's,
						   innermost first */
	size_t			 nframes;
};

/* What one watcher saw at a stall (a node; under srun-direct, one of
 * its processes), or what the preflight failed (bad). */
struct hang_record {
	char			*node;		/* NULL: none said */
	int			 limit;		/* the stall limit, s; 0:
						   not said */
	int			 unreachable;	/* it could not reach node 0 */
	char			*reach;		/* why, when unreachable */
	struct hang_rank	*ranks;
	size_t			 nranks;
	struct strlist		 bad;		/* "NODE WHY": failed the
						   preflight */
};

/* The main thread's frames of faulthandler's dump of every thread (the
 * last thread it lists: CPython lists the newest first), innermost
 * first, at most HANG_FRAMES_MAX. -1 when text holds no stack. */
int	hang_stacks_parse(const char *text, size_t len,
	    struct hang_frame **frames, size_t *n);
void	hang_frames_free(struct hang_frame *, size_t);

void	hang_record_init(struct hang_record *);
void	hang_record_free(struct hang_record *);
/* Adds a rank (frames taken, and set to NULL). */
void	hang_record_add(struct hang_record *, const struct hang_rank *);
/* The record as text, and back: -1 + *cause for what is not one. */
void	hang_record_format(struct buf *, const struct hang_record *);
int	hang_record_parse(struct hang_record *, const char *text, size_t len,
	    char **cause);

/* Where a rank is: "FUNC (FILE:LINE)", FUNC its innermost frame's
 * function and FILE:LINE the innermost frame outside Python's and the
 * packages' directories (the training's own code); NULL without a
 * stack. The caller frees. */
char	*hang_place(const struct hang_rank *);

enum hang_kind {
	HANG_NONE,		/* no stall, no preflight failure */
	HANG_STALL,
	HANG_PREFLIGHT
};

struct hang_verdict {
	enum hang_kind	 kind;
	struct strlist	 culprits;	/* nodes to leave out, job order */
	char		*summary;	/* one line; NULL for HANG_NONE */
};

/* The verdict over n records; nodes is the job's node list in its
 * order (node 0 first), or empty when not known. Free with
 * hang_verdict_free. */
void	hang_verdict(struct hang_verdict *, const struct hang_record *,
	    size_t n, const struct strlist *nodes);
void	hang_verdict_free(struct hang_verdict *);

#endif
