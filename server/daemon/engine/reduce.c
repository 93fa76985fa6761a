/*
 * The background reducer (docs/triage.md, "Reduction"): every bucket's
 * representative, then a bounded sample of its other members, reduced to a
 * minimal case that shows the same mismatch signature, confirmed on fresh
 * workers, stored as an ordinary case linked to its original.
 *
 * It has its own thread and its own workers (one per build it needs,
 * started on first use), so a run's results never wait for it: a run's
 * workers are not shared, only the CPU.  It finds its work in the database
 * (db_reduce_next: buckets without a reduction), so nothing in the runs has
 * to hand it anything; a run's storing of mismatches wakes it sooner
 * (reduce_wake), and a daemon restarted goes on where the last one stopped.
 *
 * A generated case is reduced as the tree the generator built
 * (server/daemon/model/shrink.c), each candidate rendered to PHP and run like any
 * submitted case on the base and the bucket's candidate; a candidate is
 * accepted only when its signature (bucket_signature: which fields differ,
 * each side's status, error code and exception, the shape of the output
 * difference) is the original's.  Another case (submitted, stored) has its
 * flags and depth reduced.  Each reduction has a budget: --reduce-budget-ms
 * of wall time and --reduce-max-executions cases.  The budget holds inside a
 * case too: a candidate still running when it is spent is killed (and
 * counts), and no case runs longer than --reduce-case-timeout-ms (far below
 * a run's --timeout-ms: a case made slow on purpose cannot hold the reducer;
 * an original slower than that is stored as too_slow).  Buckets of
 * submitted cases waiting are bounded by --reduce-max-pending, the rest
 * stored as skipped (db_reduce_next): endless distinct exception classes do
 * not make endless work.
 *
 * Confirmation: the reduced case once more in a new request on the
 * reducer's workers, and once on fresh processes of both builds: confirmed
 * when both show the signature; state-dependent when only the long-lived
 * workers (after the other candidates) do; flaky otherwise.  The fresh
 * processes are a second pair of workers per build whose fork servers are
 * renewed after each confirmation (worker_renew): a child that has run no
 * case, as a newly started worker's first is, in about a millisecond
 * instead of a worker's start and stop (~100 ms, as long as a search).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "columns.h"
#include "engine.h"
#include "fanout.h"
#include "gen.h"
#include "shrink.h"

#define REDUCE_IDLE_MS 500  /* how often an idle reducer looks for work */
#define REDUCE_LATE_MAX 128 /* roots kept for a late explanation (reduce_late): ~45 KB each */
#define REDUCE_PARTS_MAX 8  /* root keys of a reduction's parts kept for a late join */
/* The root key's middle line for mismatches not reproduced alone (no signature is this text). */
#define REDUCE_NOT_REPRODUCED "not reproduced alone"

/* A root no older root explained when it was reduced: its bucket, its reduced plan,
 * and the root keys its parts reduced to that were no root yet. */
struct late_root {
	int64_t bucket_id;
	char candidate[64];
	struct gen_case *plan;
	char *part_keys[REDUCE_PARTS_MAX];
	int nparts;
};

struct reducer {
	struct app *app;
	pthread_t thread;
	int started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop, woken;
	/* Its own, by build slot (config->builds), started on first use and
	 * stopped when their build is retired (reduce_retired). */
	struct worker workers[MAX_BUILD_SLOTS];
	int inited[MAX_BUILD_SLOTS];
	struct worker fresh[MAX_BUILD_SLOTS]; /* the confirmation's: renewed after each case */
	int fresh_inited[MAX_BUILD_SLOTS];
	/* progress (under lock) */
	int64_t reductions, executions, busy_bucket;
	double seconds;
	/* the reducer thread's own */
	struct late_root late[REDUCE_LATE_MAX];
	int nlate;
};

/* One reduction in progress. */
struct attempt {
	struct reducer *rd;
	struct build *builds[2]; /* the mismatch's base and candidate */
	int role;                /* the candidate's, as the reduction's outputs name it */
	char *target; /* the kind of mismatch kept (owned: an error step may change its candidate's code) */
	int64_t executions;
	double t0;
	int searching;         /* the search: its cases bounded by what is left of the budget */
	int timed_out;         /* the last case tried timed out on a build */
	int cut;               /* a case was killed because the budget was spent: not complete */
	struct result last[2]; /* the last accepted candidate's results */
	/* INF, "\x80" alone under flags neutral_flags[lo]: 0 not run yet, 1 both builds agree
	 * (a remainder may put it in), -1 they differ (reduce_error_neutral). */
	int neutral[2];
	int64_t neutral_flags[2];
	/* The root keys parts of the reduced plan reduced to, no root yet (reduce_part_shrink). */
	char *part_keys[REDUCE_PARTS_MAX];
	int nparts;
};

/* b's worker among ws (by slot), initialised on first use. */
static struct worker *reduce_slot_worker(struct reducer *rd, struct worker *ws, int *inited, struct build *b)
{
	int slot = build_slot(rd->app->config, b);
	if (!inited[slot]) {
		worker_init(&ws[slot], b);
		inited[slot] = 1;
	}
	return &ws[slot];
}

static struct worker *reduce_worker(struct reducer *rd, struct build *b)
{
	return reduce_slot_worker(rd, rd->workers, rd->inited, b);
}

/* The build's worker for fresh processes (renewed after each case it runs). */
static struct worker *reduce_fresh_worker(struct reducer *rd, struct build *b)
{
	return reduce_slot_worker(rd, rd->fresh, rd->fresh_inited, b);
}

/* Between reductions: the workers of builds retired since are stopped. */
static void reduce_retired(struct reducer *rd)
{
	struct config *cfg = rd->app->config;
	int n;

	pthread_mutex_lock(&cfg->builds_lock);
	n = cfg->nbuilds;
	pthread_mutex_unlock(&cfg->builds_lock);
	for (int i = 0; i < n; i++) {
		if (!__atomic_load_n(&cfg->builds[i].retired, __ATOMIC_ACQUIRE))
			continue;
		if (rd->inited[i])
			worker_release(&rd->workers[i]);
		if (rd->fresh_inited[i])
			worker_release(&rd->fresh[i]);
		rd->inited[i] = rd->fresh_inited[i] = 0;
	}
}

struct pair_job {
	struct worker *w;
	const struct config *cfg;
	const struct case_spec *c;
	int timeout_ms;
	struct result *r;
};

static void reduce_pair_job(void *arg)
{
	struct pair_job *j = arg;
	worker_run_case_within(j->w, j->cfg, j->c, j->timeout_ms, j->r);
}

/* The case on two workers at once (the base's here, the candidate's on a thread), each
 * killed after timeout_ms. */
static void reduce_pair(const struct config *cfg, struct worker *wb, struct worker *wc,
    const struct case_spec *c, int timeout_ms, struct result res[2])
{
	struct pair_job j[2] = { { wb, cfg, c, timeout_ms, &res[0] }, { wc, cfg, c, timeout_ms, &res[1] } };

	fanout_run(reduce_pair_job, j, sizeof j[0], 2);
}

/* The kind of mismatch a pair of results shows (NULL when they agree): what a reduction keeps. */
static char *reduce_target(const struct result res[2])
{
	unsigned diff = verdict_compare(&res[0], &res[1]);
	return diff != 0 ? bucket_reduction_target(res, diff) : NULL;
}

/* The signature of a pair of results (NULL when they agree): what its root is keyed by. */
static char *reduce_signature(const struct result res[2])
{
	unsigned diff = verdict_compare(&res[0], &res[1]);
	return diff != 0 ? bucket_signature(res, diff) : NULL;
}

/* How long a case may run now: the per-case bound, and in the search no longer than the
 * budget has left (at least 1 ms: reduce_over_budget stops the search at 0). */
static int reduce_case_timeout(const struct attempt *a)
{
	const struct config *cfg = a->rd->app->config;
	int ms = cfg->reduce_case_timeout_ms;

	if (a->searching) {
		double left = cfg->reduce_budget_ms - (clock_ms() - a->t0);
		if (left < ms)
			ms = left < 1 ? 1 : (int)left;
	}
	return ms;
}

/*
 * Run c on the reducer's workers: does it show the target kind of mismatch
 * (or, for an error step, recode not NULL, that kind with the candidate's
 * error code changed as the step allows: then the target it keeps)?  res
 * kept when it does.
 */
static int reduce_try(
    struct attempt *a, const struct case_spec *c, int keep, const struct shrink_recode *recode)
{
	struct result res[2];
	char *sig;
	int same;

	int ms = reduce_case_timeout(a);

	result_init(&res[0]);
	result_init(&res[1]);
	reduce_pair(a->rd->app->config, reduce_worker(a->rd, a->builds[0]),
	    reduce_worker(a->rd, a->builds[1]), c, ms, res);
	a->executions++;
	a->timed_out = res[0].status == STATUS_TIMEOUT || res[1].status == STATUS_TIMEOUT;
	if (a->timed_out && ms < a->rd->app->config->reduce_case_timeout_ms)
		a->cut = 1;
	sig = reduce_target(res);
	same = sig != NULL && strcmp(sig, a->target) == 0;
	if (!same && sig != NULL && keep && recode != NULL) {
		char *recoded = bucket_target_recoded(a->target, recode->from, recode->to);
		if (recoded != NULL && strcmp(sig, recoded) == 0) {
			free(a->target);
			a->target = recoded;
			recoded = NULL;
			same = 1;
		}
		free(recoded);
	}
	free(sig);
	if (same && keep) {
		result_release(&a->last[0]);
		result_release(&a->last[1]);
		a->last[0] = res[0];
		a->last[1] = res[1];
	} else {
		result_release(&res[0]);
		result_release(&res[1]);
	}
	return same;
}

static int reduce_over_budget(const struct attempt *a)
{
	const struct config *cfg = a->rd->app->config;
	int stopping;

	pthread_mutex_lock(&a->rd->lock);
	stopping = a->rd->stop;
	pthread_mutex_unlock(&a->rd->lock);
	return stopping || a->executions >= cfg->reduce_max_executions ||
	    clock_ms() - a->t0 >= cfg->reduce_budget_ms;
}

/* A plan as a case to run. */
static int reduce_spec(const struct gen_case *g, struct case_spec *c)
{
	struct gen_buf code = { 0 }, setup = { 0 };

	case_init(c);
	if (gen_render_value(g, &code) < 0 || gen_render_setup(g, &setup) < 0) {
		gen_buf_release(&code);
		gen_buf_release(&setup);
		return -1;
	}
	c->code = code.data;
	if (setup.len > 0)
		c->setup = setup.data;
	else
		gen_buf_release(&setup);
	c->flags = (long)g->flags;
	c->depth = (long)g->depth;
	return 0;
}

static int reduce_accept(void *arg, const struct gen_case *cand, const struct shrink_recode *recode)
{
	struct attempt *a = arg;
	struct case_spec c;
	int same;

	if (reduce_over_budget(a))
		return -1;
	if (reduce_spec(cand, &c) < 0)
		return 0;
	same = reduce_try(a, &c, 1, recode);
	case_release(&c);
	return same;
}

/* The candidate's role now (its place among the active builds, 1 on; an
 * asan flavour's, its build's) when both builds of the mismatch are active;
 * -1 when one is not. */
static int reduce_role_of(void *arg, const int64_t build_ids[2])
{
	struct config *cfg = arg;
	struct build *builds[MAX_BUILDS], *cand;
	int n = build_list(cfg, builds);

	if (build_active_by_id(cfg, build_ids[0]) == NULL ||
	    (cand = build_active_by_id(cfg, build_ids[1])) == NULL)
		return -1;
	for (int i = 1; i < n; i++)
		if (builds[i] == cand || build_slot(cfg, builds[i]) + 1 == cand->asan_of)
			return i;
	return -1;
}

/* A root key: the candidate, the reduced case's signature and its canonical form (malloc'd). */
static char *reduce_root_key(const char *candidate, const char *sig, const char *canon)
{
	size_t n;
	char *key;

	if (sig == NULL || canon == NULL)
		return NULL;
	n = strlen(candidate) + strlen(sig) + strlen(canon) + 4;
	if ((key = malloc(n)) != NULL)
		snprintf(key, n, "%s\n%s\n%s", candidate, sig, canon);
	return key;
}

/*
 * The error step's value (lo 0: INF, 1: "\x80") alone, under flags, on both
 * builds: 1 when they agree, so a remainder that puts it in brings no
 * mismatch of its own.  Run once per reduction (again for another call's flags).
 */
static int reduce_error_neutral(struct attempt *a, int64_t flags, uint32_t lo)
{
	struct case_spec c;
	struct result res[2];
	char *target;

	if (lo > 1)
		return 0;
	if (a->neutral[lo] != 0 && a->neutral_flags[lo] != flags)
		a->neutral[lo] = 0; /* another call's flags (a remainder compares an earlier call) */
	if (a->neutral[lo] == 0) {
		a->neutral_flags[lo] = flags;
		case_init(&c);
		c.code = strdup(lo == 0 ? "INF" : "\"\\x80\"");
		c.flags = (long)flags;
		c.depth = 512;
		result_init(&res[0]);
		result_init(&res[1]);
		if (c.code != NULL) {
			reduce_pair(a->rd->app->config, reduce_worker(a->rd, a->builds[0]),
			    reduce_worker(a->rd, a->builds[1]), &c, reduce_case_timeout(a), res);
			a->executions++;
			target = reduce_target(res);
			a->neutral[lo] = target == NULL && res[0].status == STATUS_OK ? 1 : -1;
			free(target);
		}
		result_release(&res[0]);
		result_release(&res[1]);
		case_release(&c);
	}
	return a->neutral[lo] == 1;
}

/*
 * A reduced plan may hold the minimal case of an older root next to what
 * changes its signature (INF next to an invalid string: the candidate
 * reports the string's error instead of none; an invalid key beside a depth
 * error both sides report, under PARTIAL_OUTPUT_ON_ERROR), or be that
 * case with a value that changes its signature inside it (a property the
 * candidate shows though the base hides it, holding INF: error 7 instead
 * of a longer output; a flag that turns the error into an exception).  Its
 * parts are its values and its keys (each as a string), each alone; what a
 * jsonSerialize() that calls json_encode() itself gives that call, under
 * its own flags; then
 * what is left without one part (shrink_remainders: a value made null, an
 * object made a canonical class); then the plan with one flag fewer.  Only
 * what a bug shows through moves: a part joins a root only where that
 * root's own case is what is left.
 */
typedef int64_t (*part_check)(
    struct reducer *, const char *candidate, struct gen_case *part, int nested, struct attempt *);

static int64_t reduce_each_part(struct reducer *rd, const char *candidate, const struct gen_case *plan,
    struct attempt *a, part_check check)
{
	struct gen_case *part = malloc(sizeof *part), *key = malloc(sizeof *key);
	struct shrink_edit left[64];
	size_t nleft;
	int64_t found = 0;

	if (part == NULL || key == NULL) {
		free(part);
		free(key);
		return 0;
	}
	for (uint32_t i = 0; i < plan->nnodes && found == 0; i++) {
		const struct gen_node *n;
		struct shrink_edit e = { SHRINK_REPLACE, plan->root, i, 0, 0, 0, 0 };
		if (shrink_apply(plan, i == plan->root ? NULL : &e, part) < 0)
			continue;
		if (i != plan->root)
			found = check(rd, candidate, part, 0, a);
		n = &part->nodes[part->root];
		if (n->kind != GEN_MAP && n->kind != GEN_STDCLASS && n->kind != GEN_OBJECT)
			continue;
		for (uint32_t x = 0; x < n->n && found == 0; x++) {
			struct shrink_edit k = { SHRINK_KEY_VALUE, part->root, n->first + x, 0, 0, 0, 0 };
			uint8_t type = part->ents[n->first + x].key_type;
			if ((type == GEN_KEY_STR || type == GEN_KEY_PROP) && shrink_apply(part, &k, key) == 0)
				found = check(rd, candidate, key, 0, a);
		}
	}
	/* A jsonSerialize() that calls json_encode() itself: what the inner call encodes (the
	 * object's first property), under the inner call's own flags, at the default depth --
	 * a difference the inner call makes is that case's, whatever the outer flags. */
	for (uint32_t i = 0; i < plan->nnodes && found == 0; i++) {
		const struct gen_node *n = &plan->nodes[i];
		const struct gen_class *k = n->kind == GEN_OBJECT ? gen_class_at(n->cls) : NULL;
		if (k == NULL || k->type != GEN_CLASS_JSONSER_NESTED)
			continue;
		for (uint32_t x = 0; x < n->n && found == 0; x++) {
			const struct gen_entry *e = &plan->ents[n->first + x];
			struct shrink_edit r = { SHRINK_REPLACE, plan->root, e->value, 0, 0, 0, 0 };
			if (e->key_type != GEN_KEY_PROP || e->key_int != 0 ||
			    shrink_apply(plan, &r, part) < 0)
				continue;
			part->flags = gen_nested_flags(k);
			part->depth = 512;
			found = check(rd, candidate, part, 0, a);
			/* One that hands the property back ([json_encode($p, ...), json_last_error(),
			 * $p]) has the outer call encode $p after the inner one: a sequence, the
			 * inner call earlier, then the compared call's flags and depth (state the
			 * inner call leaves on $p -- a recursion guard -- meets the outer one). */
			if (found == 0 && k->variant % GEN_NESTED_VARIANTS == GEN_NESTED_HANDS_BACK &&
			    part->npre == 0) {
				part->npre = 1;
				part->pre_flags[0] = gen_nested_flags(k);
				part->pre_depth[0] = 512;
				part->flags = plan->flags;
				part->depth = plan->depth;
				found = check(rd, candidate, part, 0, a);
			}
		}
	}
	/* What is left without one part (shrink_remainders): the plan's nesting kept.  A
	 * remainder that puts INF or "\x80" in is run, never joined unseen, and only where
	 * that value alone is no mismatch of its own: a second bug it would bring in. */
	nleft = shrink_remainders(plan, left, sizeof left / sizeof left[0]);
	for (size_t i = 0; i < nleft && found == 0; i++) {
		if (shrink_apply(plan, &left[i], part) < 0)
			continue;
		if (left[i].op == SHRINK_ERROR &&
		    (a == NULL || !reduce_error_neutral(a, part->flags, left[i].lo)))
			continue;
		found = check(rd, candidate, part, 1, a);
	}
	/* The plan with one flag fewer (each check tries one more fewer too). */
	for (unsigned bit = 0; bit < 23 && found == 0; bit++) {
		if (!(plan->flags & ((uint64_t)1 << bit)) || shrink_apply(plan, NULL, part) < 0)
			continue;
		part->flags &= ~((uint64_t)1 << bit);
		found = check(rd, candidate, part, 1, a);
	}
	free(part);
	free(key);
	return found;
}

/*
 * A part that is an older root's minimal case as it stands: with the same
 * flags (or one fewer: a flag the part's bug shows through but does not
 * need, PARTIAL_OUTPUT_ON_ERROR beside INF) and the same (or the default)
 * depth.  That root's bucket, 0 none.  No case is run.
 */
static int64_t reduce_part_root(
    struct reducer *rd, const char *candidate, struct gen_case *part, int nested, struct attempt *a)
{
	struct case_spec c;
	char err[512];
	int64_t found, flags = part->flags;

	(void)nested; /* the part's own depth is tried first in any case */
	(void)a;
	if (reduce_spec(part, &c) < 0)
		return 0;
	found = db_reduce_find_root(rd->app->db, candidate, &c, err, sizeof err);
	/* A depth error beside it ([[], INF] at depth 1: head reports the
	 * depth, base the INF): the part at the default depth too. */
	if (found <= 0 && c.depth != 512) {
		c.depth = 512;
		found = db_reduce_find_root(rd->app->db, candidate, &c, err, sizeof err);
	}
	for (unsigned bit = 0; bit < 23 && found <= 0; bit++) {
		if (!(flags & ((int64_t)1 << bit)))
			continue;
		c.flags = (long)(flags & ~((int64_t)1 << bit));
		found = db_reduce_find_root(rd->app->db, candidate, &c, err, sizeof err);
	}
	case_release(&c);
	return found > 0 ? found : 0;
}

/*
 * A part's normal form that is no root yet (*key taken): kept, so that the
 * reduced plan joins that root once a later reduction makes it
 * (reduce_late).  Buckets are reduced in the order the run makes them, so
 * which of two manifestations of one bug comes first is chance: [[], INF]
 * (under PARTIAL_OUTPUT_ON_ERROR, at depth 1, the candidate keeping the
 * depth error's code) holds [[], null], which reduces to [[]] -- whether
 * or not [[]]'s bucket was reduced before.
 */
static void reduce_keep_part_key(struct attempt *a, char **key)
{
	for (int i = 0; i < a->nparts; i++)
		if (strcmp(a->part_keys[i], *key) == 0)
			return;
	if (a->nparts < REDUCE_PARTS_MAX) {
		a->part_keys[a->nparts++] = *key;
		*key = NULL;
	}
}

/* Part p run alone and, when it shows a mismatch, reduced to its normal form: the root that is, 0 none. */
static int64_t reduce_part_shrink(struct attempt *a, const char *candidate, const struct gen_case *p)
{
	struct reducer *rd = a->rd;
	struct attempt s;
	struct case_spec c;
	struct gen_case *best;
	struct shrink_stats st;
	char *sig, *canon, *key, err[512];
	int64_t found = 0;

	memset(&s, 0, sizeof s);
	s.rd = rd;
	s.role = a->role;
	s.builds[0] = a->builds[0];
	s.builds[1] = a->builds[1];
	s.t0 = a->t0;
	s.searching = 1; /* within the reduction's budget */
	s.executions = a->executions;
	result_init(&s.last[0]);
	result_init(&s.last[1]);
	if (reduce_spec(p, &c) < 0)
		return 0;
	reduce_pair(rd->app->config, reduce_worker(rd, a->builds[0]), reduce_worker(rd, a->builds[1]), &c,
	    reduce_case_timeout(&s), s.last);
	case_release(&c);
	s.executions++;
	s.target = reduce_target(s.last);
	if (s.target != NULL && (best = malloc(sizeof *best)) != NULL) {
		if (shrink_run(p, best, reduce_accept, &s, &st) == 0) {
			sig = reduce_signature(s.last);
			canon = shrink_canonical(best);
			key = reduce_root_key(candidate, sig, canon);
			if (key != NULL &&
			    (found = db_reduce_find_root_key(rd->app->db, key, err, sizeof err)) < 0)
				found = 0;
			/* Its normal form an older root's case with a flag more, or at
			 * another depth (no case run): INF where a throwing object was,
			 * under THROW_ON_ERROR, reduces to [.., INF] with the flag that
			 * makes it an exception; the root is the case without it. */
			if (found == 0)
				found = reduce_part_root(rd, candidate, best, 0, NULL);
			if (found == 0 && key != NULL)
				reduce_keep_part_key(a, &key);
			free(sig);
			free(canon);
			free(key);
		}
		free(best);
	}
	free(s.target);
	result_release(&s.last[0]);
	result_release(&s.last[1]);
	a->executions = s.executions;
	return found;
}

/*
 * A part that shows a mismatch of its own, alone, with the same flags or
 * one fewer, at the default depth, and reduces to an older root's minimal
 * case (["a\x80" => null] inside a list at depth 1, under INVALID_UTF8_IGNORE
 * and PARTIAL_OUTPUT_ON_ERROR: the key alone under INVALID_UTF8_IGNORE
 * reduces to the root "\x80").  A nested part (what is left of the whole
 * plan, its nesting kept) also at the plan's own depth, where a depth bug
 * still shows: [[[]], null] at depth 2 reduces to the root [] at depth 1.
 * Within the reduction's budget.
 */
static int64_t reduce_part_run(
    struct reducer *rd, const char *candidate, struct gen_case *part, int nested, struct attempt *a)
{
	struct gen_case *p = malloc(sizeof *p);
	int64_t found = 0;
	int own = nested && part->depth != 512;

	(void)rd;
	if (p == NULL)
		return 0;
	for (int pass = 0; pass <= own && found == 0; pass++)
		for (int bit = -1; bit < 23 && found == 0 && !reduce_over_budget(a); bit++) {
			if (bit >= 0 && !(part->flags & ((int64_t)1 << bit)))
				continue;
			memcpy(p, part, sizeof *p);
			if (bit >= 0)
				p->flags &= ~((int64_t)1 << bit);
			p->depth = pass == 0 ? 512 : part->depth;
			found = reduce_part_shrink(a, candidate, p);
		}
	free(p);
	return found;
}

/*
 * The older root that explains a reduced plan: a part of it that is that
 * root's minimal case (no case run); else, given a (the reduction, its
 * budget), a part that reduces to it.  0 none.
 */
static int64_t reduce_explained(
    struct reducer *rd, const char *candidate, const struct gen_case *plan, struct attempt *a)
{
	int64_t found = reduce_each_part(rd, candidate, plan, NULL, reduce_part_root);
	if (found == 0 && a != NULL)
		found = reduce_each_part(rd, candidate, plan, a, reduce_part_run);
	return found;
}

/* A case that is no plan (a stored case's source): its flags one bit at a time, then the default depth. */
static void reduce_source(
    struct attempt *a, const struct case_spec *c, struct case_spec *reduced, struct shrink_stats *st)
{
	reduced->code = strdup(c->code != NULL ? c->code : "null");
	reduced->setup = c->setup != NULL ? strdup(c->setup) : NULL;
	reduced->flags = c->flags;
	reduced->depth = c->depth;
	st->complete = 1;
	for (int bit = 0; bit < 23 && st->complete; bit++) {
		if (!(reduced->flags & (1L << bit)))
			continue;
		if (reduce_over_budget(a)) {
			st->complete = 0;
			break;
		}
		reduced->flags &= ~(1L << bit);
		st->tried++;
		if (reduce_try(a, reduced, 1, NULL))
			st->accepted++;
		else
			reduced->flags |= 1L << bit;
	}
	if (st->complete && reduced->depth != 512 && !reduce_over_budget(a)) {
		long d = reduced->depth;
		reduced->depth = 512;
		st->tried++;
		if (reduce_try(a, reduced, 1, NULL))
			st->accepted++;
		else
			reduced->depth = d;
	}
}

/* A source case's canonical form: its code, flags, depth and setup as text (malloc'd). */
static char *reduce_source_canonical(const struct case_spec *c)
{
	char flags[512], *canon;
	size_t n;

	flags_format(c->flags, flags, sizeof flags);
	n = strlen(c->code) + (c->setup ? strlen(c->setup) : 0) + strlen(flags) + 64;
	if ((canon = malloc(n)) != NULL)
		snprintf(canon, n, "%s\n%s\n%ld\n%s", c->code, flags, c->depth, c->setup ? c->setup : "");
	return canon;
}

/*
 * The confirmation on newly started workers of both builds (the case within
 * the per-case bound): does it show the target there too?  Both renewed
 * after, fresh for the next one; one that does not answer is stopped.
 */
static int reduce_fresh(struct attempt *a, const struct case_spec *c, struct result fresh[2])
{
	const struct config *cfg = a->rd->app->config;
	struct worker *wb = reduce_fresh_worker(a->rd, a->builds[0]);
	struct worker *wc = reduce_fresh_worker(a->rd, a->builds[1]);
	char *target;
	int same;

	reduce_pair(cfg, wb, wc, c, cfg->reduce_case_timeout_ms, fresh);
	worker_renew(wb, cfg);
	worker_renew(wc, cfg);
	a->executions++;
	target = reduce_target(fresh);
	same = target != NULL && strcmp(target, a->target) == 0;
	free(target);
	return same;
}

static void reduce_late_release_keys(char **keys, int n)
{
	for (int i = 0; i < n; i++)
		free(keys[i]);
}

/* A root whose explaining root may come later (buckets are reduced as the run makes them):
 * its plan kept (*plan taken) for reduce_late, while there is room, with the root keys
 * its parts reduced to (a's, taken) but its own (own_key). */
static void reduce_keep_late(struct reducer *rd, const struct db_reduce_job *job, struct gen_case **plan,
    struct attempt *a, const char *own_key)
{
	struct late_root *l;

	if (rd->nlate >= REDUCE_LATE_MAX)
		return;
	l = &rd->late[rd->nlate++];
	l->bucket_id = job->bucket_id;
	snprintf(l->candidate, sizeof l->candidate, "%s", job->candidate);
	l->plan = *plan;
	*plan = NULL;
	l->nparts = 0;
	for (int i = 0; i < a->nparts; i++) {
		if (own_key != NULL && strcmp(a->part_keys[i], own_key) == 0)
			free(a->part_keys[i]);
		else
			l->part_keys[l->nparts++] = a->part_keys[i];
	}
	a->nparts = 0;
}

/* An attempt at job's bucket between its two builds, toward the kind of
 * mismatch diff names; its clock started. */
static void reduce_attempt_open(
    struct attempt *a, struct reducer *rd, const struct db_reduce_job *job, unsigned diff)
{
	memset(a, 0, sizeof *a);
	result_init(&a->last[0]);
	result_init(&a->last[1]);
	a->rd = rd;
	a->role = job->role;
	a->builds[0] = build_active_by_id(rd->app->config, job->build_ids[0]);
	a->builds[1] = build_active_by_id(rd->app->config, job->build_ids[1]);
	a->target = diff != 0 ? bucket_reduction_target(job->res, diff) : NULL;
	a->t0 = clock_ms();
}

/* The search: a generated case's plan shrunk (*start, and *best, the plan
 * it ends with, kept for the explanations), any other case's source
 * reduced.  The case it ends with, titled; job's own when nothing held. */
static struct case_spec *reduce_search(struct attempt *a, struct db_reduce_job *job,
    struct case_spec *reduced, struct shrink_stats *st, struct gen_case **start, struct gen_case **best)
{
	struct case_spec *cur = &job->c;
	char title[MAX_TITLE_SIZE];

	/* The budget is the search's: the original's own run (a big case that
	 * crashes a worker can take a second) does not eat it. */
	a->t0 = clock_ms();
	a->searching = 1;
	if (job->generated && job->version == GEN_VERSION && (*start = malloc(sizeof **start)) != NULL &&
	    (*best = malloc(sizeof **best)) != NULL) {
		/* Made for the older of the two builds, as a run over them made
		 * it (an 8.0 build: no enums). */
		gen_case_make_php(*start, job->seed, job->index, genrun_php_upto(a->builds, 2, GEN_PHP_ALL));
		if (shrink_run(*start, *best, reduce_accept, a, st) == 0 && reduce_spec(*best, reduced) == 0)
			cur = reduced;
	} else {
		reduce_source(a, &job->c, reduced, st);
		cur = reduced;
	}
	if (a->cut)
		st->complete = 0;
	snprintf(title, sizeof title, "minimal: %.400s, reduced in %" PRId64 " step%s",
	    job->c.title ? job->c.title : "?", st->accepted, st->accepted == 1 ? "" : "s");
	free(cur->title);
	cur->title = strdup(title);
	a->searching = 0;
	return cur;
}

/* Reduce one mismatch and store what came of it. */
static void reduce_job(struct reducer *rd, struct db_reduce_job *job)
{
	struct app *app = rd->app;
	struct attempt a;
	struct db_reduction out;
	struct case_spec reduced, *cur = &job->c;
	struct gen_case *start = NULL, *best = NULL;
	struct shrink_stats st = { 0 };
	struct result fresh[2];
	char *sig0 = NULL, *canon = NULL, *root = NULL, *outputs = NULL, err[512];
	unsigned diff = verdict_compare(&job->res[0], &job->res[1]);
	int again, fresh_ok, role = job->role;
	double t_start;

	reduce_attempt_open(&a, rd, job, diff);
	memset(&out, 0, sizeof out);
	case_init(&reduced);
	result_init(&fresh[0]);
	result_init(&fresh[1]);
	t_start = a.t0;
	out.state = "unsupported";
	if (a.target == NULL || role <= 0 || a.builds[0] == NULL || a.builds[1] == NULL)
		goto store;
	/* The original first: its source must show the same signature. */
	if (!reduce_try(&a, &job->c, 1, NULL)) {
		/* Killed at the per-case bound where the run's own limit let it end: too slow to
		 * reduce (its own timeout, on the other hand, is its signature). */
		int slow = a.timed_out && job->res[0].status != STATUS_TIMEOUT &&
		    job->res[1].status != STATUS_TIMEOUT;
		out.state = slow ? "too_slow" : "not_reproduced";
		out.signature = sig0 = bucket_signature(job->res, diff);
		/* Mismatches that do not come back alone (a heap left by the cases
		 * before, undefined behaviour) have no minimal case to tell them
		 * apart: one root per candidate holds them (docs/triage.md). */
		if (!slow)
			out.root_key = root = reduce_root_key(job->candidate, REDUCE_NOT_REPRODUCED, "");
		goto store;
	}
	cur = reduce_search(&a, job, &reduced, &st, &start, &best);
	/* Confirmation: a new request here, then newly started workers of both builds
	 * (each case within the per-case bound, the budget being the search's). */
	again = reduce_try(&a, cur, 0, NULL);
	fresh_ok = reduce_fresh(&a, cur, fresh);
	/* Explained by an older root: one of its parts (with its flags and depth) is that root's minimal case. */
	if (best != NULL && cur == &reduced && job->representative)
		out.explained_by = reduce_explained(rd, job->candidate, best, &a);
	out.confirmation = again && fresh_ok ? "confirmed" : again ? "state-dependent" : "flaky";
	out.state = "done";
	out.reduced = cur;
	canon = best != NULL && cur == &reduced ? shrink_canonical(best) : NULL;
	if (canon == NULL)
		canon = reduce_source_canonical(cur);
	/* The reduced case's own signature: what it shows, with its normal form, is its root. */
	out.signature = sig0 = reduce_signature(fresh_ok ? fresh : a.last);
	root = reduce_root_key(job->candidate, sig0, canon);
	out.root_key = root;
	out.outputs = outputs = column_reduced_outputs(role, fresh_ok ? fresh : a.last);
	out.results = fresh_ok ? fresh : a.last;
	out.builds[0] = a.builds[0];
	out.builds[1] = a.builds[1];
	out.role = role;
store:
	out.steps = st.accepted;
	out.executions = a.executions;
	out.seconds = (clock_ms() - t_start) / 1e3;
	out.complete = st.complete;
	if (db_reduce_store(app->db, job, &out, err, sizeof err) < 0)
		fprintf(stderr, "phpcmp: reduce bucket %" PRId64 ": %s\n", job->bucket_id, err);
	else if (job->representative && out.explained_by == 0 && best != NULL && cur == &reduced)
		reduce_keep_late(rd, job, &best, &a, root); /* its explaining root may come later */
	pthread_mutex_lock(&rd->lock);
	rd->reductions++;
	rd->executions += a.executions;
	rd->seconds += out.seconds;
	pthread_mutex_unlock(&rd->lock);
	free(sig0);
	free(canon);
	free(root);
	free(outputs);
	free(a.target);
	reduce_late_release_keys(a.part_keys, a.nparts);
	free(start);
	free(best);
	case_release(&reduced);
	result_release(&a.last[0]);
	result_release(&a.last[1]);
	result_release(&fresh[0]);
	result_release(&fresh[1]);
}

/* The root one of late root l's part keys names by now, 0 none. */
static int64_t reduce_late_part_root(struct reducer *rd, const struct late_root *l)
{
	char err[512];

	for (int k = 0; k < l->nparts; k++) {
		int64_t root = db_reduce_find_root_key(rd->app->db, l->part_keys[k], err, sizeof err);
		if (root > 0)
			return root;
	}
	return 0;
}

/*
 * Late explanations: a root reduced before the root that explains it
 * (reduce_explained: INF next to a resource, reduced while the run was
 * still making INF's buckets; or a part of it reduced to a normal form no
 * root had yet, reduce_keep_part_key) joins that root once it is there.
 * Checked after each reduction against the roots known by then; no case
 * is run.
 */
static void reduce_late(struct reducer *rd)
{
	char err[512];

	for (int i = 0; i < rd->nlate;) {
		struct late_root *l = &rd->late[i];
		int64_t root = reduce_explained(rd, l->candidate, l->plan, NULL);
		if (root == 0)
			root = reduce_late_part_root(rd, l);
		int r = root > 0 ? db_reduce_join_late(rd->app->db, l->bucket_id, root, err, sizeof err) : 0;
		if (r < 0)
			fprintf(stderr, "phpcmp: reducer: bucket %" PRId64 ": %s\n", l->bucket_id, err);
		if (r > 0) {
			free(l->plan);
			reduce_late_release_keys(l->part_keys, l->nparts);
			rd->late[i] = rd->late[--rd->nlate];
		} else {
			i++;
		}
	}
}

static void *reduce_main(void *arg)
{
	struct reducer *rd = arg;
	struct db_reduce_job job;
	char err[512];

	for (;;) {
		int rc;
		pthread_mutex_lock(&rd->lock);
		if (rd->stop) {
			pthread_mutex_unlock(&rd->lock);
			break;
		}
		pthread_mutex_unlock(&rd->lock);
		reduce_retired(rd);
		rc = db_reduce_next(rd->app->db, rd->app->config->reduce_sample,
		    rd->app->config->reduce_max_pending, reduce_role_of, rd->app->config, &job, err,
		    sizeof err);
		if (rc > 0) {
			pthread_mutex_lock(&rd->lock);
			rd->busy_bucket = job.bucket_id;
			pthread_mutex_unlock(&rd->lock);
			reduce_job(rd, &job);
			db_reduce_job_release(&job);
			reduce_late(rd);
			pthread_mutex_lock(&rd->lock);
			rd->busy_bucket = 0;
			pthread_mutex_unlock(&rd->lock);
			continue;
		}
		if (rc < 0)
			fprintf(stderr, "phpcmp: reducer: %s\n", err);
		/* Idle: until woken or a while has passed. */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += (long)REDUCE_IDLE_MS * 1000000L;
		ts.tv_sec += ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		pthread_mutex_lock(&rd->lock);
		while (!rd->stop && !rd->woken)
			if (pthread_cond_timedwait(&rd->cond, &rd->lock, &ts) == ETIMEDOUT)
				break;
		rd->woken = 0;
		pthread_mutex_unlock(&rd->lock);
	}
	return NULL;
}

struct reducer *reduce_start(struct app *app, char *err, size_t errsize)
{
	struct reducer *rd = calloc(1, sizeof *rd);

	if (rd == NULL) {
		snprintf(err, errsize, "reducer: out of memory");
		return NULL;
	}
	rd->app = app;
	pthread_mutex_init(&rd->lock, NULL);
	pthread_cond_init(&rd->cond, NULL);
	if (app->config->reduce_max_executions <= 0)
		return rd; /* reduction off */
	if (pthread_create(&rd->thread, NULL, reduce_main, rd) != 0) {
		snprintf(err, errsize, "reducer: cannot start its thread");
		free(rd);
		return NULL;
	}
	rd->started = 1;
	return rd;
}

void reduce_wake(struct reducer *rd)
{
	if (rd == NULL)
		return;
	pthread_mutex_lock(&rd->lock);
	rd->woken = 1;
	pthread_cond_signal(&rd->cond);
	pthread_mutex_unlock(&rd->lock);
}

void reduce_stop(struct reducer *rd)
{
	if (rd == NULL)
		return;
	pthread_mutex_lock(&rd->lock);
	rd->stop = 1;
	pthread_cond_signal(&rd->cond);
	pthread_mutex_unlock(&rd->lock);
	if (rd->started)
		pthread_join(rd->thread, NULL);
	for (int i = 0; i < MAX_BUILD_SLOTS; i++) {
		if (rd->inited[i])
			worker_release(&rd->workers[i]);
		if (rd->fresh_inited[i])
			worker_release(&rd->fresh[i]);
	}
	for (int i = 0; i < rd->nlate; i++) {
		free(rd->late[i].plan);
		reduce_late_release_keys(rd->late[i].part_keys, rd->late[i].nparts);
	}
	pthread_cond_destroy(&rd->cond);
	pthread_mutex_destroy(&rd->lock);
	free(rd);
}

int reduce_status(struct reducer *rd, struct reduce_stats *out)
{
	memset(out, 0, sizeof *out);
	if (rd == NULL)
		return 0;
	pthread_mutex_lock(&rd->lock);
	out->enabled = rd->started;
	out->reductions = rd->reductions;
	out->executions = rd->executions;
	out->seconds = rd->seconds;
	out->busy_bucket_id = rd->busy_bucket;
	pthread_mutex_unlock(&rd->lock);
	return 1;
}
