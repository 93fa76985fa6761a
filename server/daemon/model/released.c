/*
 * Released PHP's answers grouped and summed up in a line (released.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "released.h"

static int released_str_eq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

static int released_bytes_eq(const struct bytes *a, const struct bytes *b)
{
	if (a->data == NULL || b->data == NULL)
		return a->data == b->data;
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

int released_same(const struct result *a, const struct result *b)
{
	/* Unsupported is one answer whatever the compiler's words for it. */
	if (a->unsupported != NULL || b->unsupported != NULL)
		return a->unsupported != NULL && b->unsupported != NULL;
	int afalse = a->output_is_false || a->output.data == NULL;
	int bfalse = b->output_is_false || b->output.data == NULL;
	return a->status == b->status && (a->status != STATUS_CRASH || a->signal == b->signal) &&
	    afalse == bfalse && (afalse || released_bytes_eq(&a->output, &b->output)) &&
	    a->error_code == b->error_code && released_str_eq(a->error_msg, b->error_msg) &&
	    released_str_eq(a->exc_class, b->exc_class) && released_str_eq(a->exc_msg, b->exc_msg) &&
	    released_str_eq(a->warnings != NULL ? a->warnings : "", b->warnings != NULL ? b->warnings : "") &&
	    a->printed.len == b->printed.len &&
	    (a->printed.len == 0 || memcmp(a->printed.data, b->printed.data, a->printed.len) == 0);
}

int released_version_cmp(const char *a, const char *b)
{
	while (*a != '\0' || *b != '\0') {
		char *ea, *eb;
		long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);
		if (x != y)
			return x < y ? -1 : 1;
		if (ea == a || eb == b) /* not a number here: the rest as text */
			return strcmp(a, b);
		a = *ea == '.' ? ea + 1 : ea;
		b = *eb == '.' ? eb + 1 : eb;
		if ((*a == '\0') != (*b == '\0'))
			return *a == '\0' ? -1 : 1;
	}
	return 0;
}

/* What a reference is called in the line: its PHP version, else its number from its name. */
static const char *released_version(const struct released_ref *r)
{
	if (r->php_version != NULL && r->php_version[0] != '\0')
		return r->php_version;
	return strncmp(r->name, "php-", 4) == 0 ? r->name + 4 : r->name;
}

static int released_order(const void *pa, const void *pb)
{
	const struct released_ref *a = pa, *b = pb;
	int c = released_version_cmp(released_version(a), released_version(b));
	return c != 0 ? c : strcmp(a->name, b->name);
}

/* Which roles r answers as: a role the case is unsupported on has no answer. */
static unsigned released_as(const struct result *r, const struct result *res, int nbuilds)
{
	unsigned as = 0;
	if (r == NULL || r->unsupported != NULL)
		return 0;
	for (int i = 0; i < nbuilds && i < MAX_BUILDS; i++)
		if (res[i].unsupported == NULL && verdict_compare(r, &res[i]) == 0)
			as |= 1u << i;
	return as;
}

static void released_cat(char *buf, size_t size, const char *fmt, const char *a, const char *b)
{
	size_t len = strlen(buf);
	if (len < size)
		snprintf(buf + len, size - len, fmt, a, b);
}

/* "7.4.33 – 8.0.30, 8.2.1": the members' runs of neighbours among the answered references. */
static void released_label(struct released *rs, struct released_group *g, const int *pos)
{
	g->label[0] = '\0';
	for (int k = 0; k < g->n;) {
		int j = k;
		while (j + 1 < g->n && pos[g->members[j + 1]] == pos[g->members[j]] + 1)
			j++;
		released_cat(g->label, sizeof g->label, "%s%s", k > 0 ? ", " : "",
		    released_version(&rs->refs[g->members[k]]));
		if (j > k)
			released_cat(g->label, sizeof g->label, "%s%s", " – ",
			    released_version(&rs->refs[g->members[j]]));
		k = j + 1;
	}
}

/* Who answers as mask `as`, in words: "the base", "the candidate", "both builds", "pr@2 and pr@3". */
static void released_side(
    unsigned as, const struct result *res, int nbuilds, const char *const names[], char *out, size_t size)
{
	unsigned all = 0;
	int count = 0, k = 0;
	for (int i = 0; i < nbuilds && i < MAX_BUILDS; i++)
		if (res[i].unsupported == NULL)
			all |= 1u << i;
	if (as == 0) {
		snprintf(out, size, "%s", nbuilds == 2 ? "neither build" : "no build");
		return;
	}
	if (as == all && nbuilds >= 2) {
		snprintf(out, size, "%s", nbuilds == 2 ? "both builds" : "every build");
		return;
	}
	for (int i = 0; i < nbuilds && i < MAX_BUILDS; i++)
		count += (as >> i) & 1;
	out[0] = '\0';
	for (int i = 0; i < nbuilds && i < MAX_BUILDS; i++) {
		if (!((as >> i) & 1))
			continue;
		const char *who = i == ROLE_BASE                               ? "the base"
		    : nbuilds == 2                                             ? "the candidate"
		    : names != NULL && names[i] != NULL && names[i][0] != '\0' ? names[i]
		                                                               : role_name(i);
		released_cat(out, size, "%s%s", k == 0 ? "" : k == count - 1 ? " and " : ", ", who);
		k++;
	}
}

static void released_range(char *out, size_t size, const struct released_ref *a, const struct released_ref *b)
{
	if (a == b)
		snprintf(out, size, "%s", released_version(a));
	else
		snprintf(out, size, "%s–%s", released_version(a), released_version(b));
}

/* The line (released.h): the answering references' runs by side, then the unsupported and the silent. */
static void released_summary(
    struct released *rs, const struct result *res, int nbuilds, const char *const names[])
{
	char *s = rs->summary, side[160], prev[160] = "", range[96];
	const size_t size = sizeof rs->summary;
	int sup[RELEASED_MAX], nsup = 0, nunsup = 0, nfailed = 0, last_unsup = -1;

	s[0] = '\0';
	if (rs->n == 0)
		return;
	for (int i = 0; i < rs->n; i++) {
		const struct result *r = rs->refs[i].r;
		if (r == NULL)
			nfailed++;
		else if (r->unsupported != NULL)
			nunsup++, last_unsup = i;
		else
			sup[nsup++] = i;
	}
	if (nsup == 0) {
		/* Nothing answered: only the unsupported and the silent are said. */
		if (nunsup > 0)
			snprintf(s, size, "%s",
			    nfailed > 0 ? "unsupported on every release that answered"
			                : "unsupported on every release");
	} else if (nbuilds == 0) {
		int distinct = 0;
		for (int g = 0; g < rs->ngroups; g++)
			distinct += rs->groups[g].as == 0 &&
			    rs->refs[rs->groups[g].members[0]].r->unsupported == NULL;
		released_range(range, sizeof range, &rs->refs[sup[0]], &rs->refs[sup[nsup - 1]]);
		snprintf(s, size, "released %s give%s %d answer%s", range, nsup == 1 ? "s" : "", distinct,
		    distinct == 1 ? "" : "s");
	} else {
		/* Runs of neighbours (among those answering) that answer as the same builds. */
		int runs = 0, first = 0, only_base = 0;
		for (int k = 0; k <= nsup; k++) {
			if (k < nsup)
				released_side(rs->refs[sup[k]].as, res, nbuilds, names, side, sizeof side);
			if (k > 0 && (k == nsup || strcmp(side, prev) != 0)) {
				released_range(
				    range, sizeof range, &rs->refs[sup[first]], &rs->refs[sup[k - 1]]);
				if (runs == 0)
					released_cat(s, size, "released %s %s", range,
					    k == nsup ? (k - first == 1 ? "answers" : "all answer")
					              : (k - first == 1 ? "answers" : "answer"));
				else
					released_cat(s, size, "%s%s", ", ", range);
				released_cat(s, size, " as %s%s", prev, "");
				only_base = rs->refs[sup[first]].as == 1u << ROLE_BASE;
				runs++;
				first = k;
			}
			if (k < nsup)
				snprintf(prev, sizeof prev, "%s", side);
		}
		/* Every release with the base, the candidate alone: the point of the line. */
		if (runs == 1 && only_base && nbuilds >= 2)
			released_cat(s, size, "%s%s",
			    nbuilds == 2 ? ": the candidate changes what " : ": the candidates change what ",
			    nsup == 1 ? "the release does" : "every release does");
	}
	if (nunsup > 0 && nsup > 0) {
		/* Before the first that answers, every one unsupported (none silent): a at_floor. */
		int at_floor = last_unsup < sup[0];
		for (int i = 0; i < sup[0]; i++)
			at_floor = at_floor && rs->refs[i].r != NULL;
		if (at_floor) {
			/* "unsupported before 8.1": the oldest, up to the first that answers */
			char mm[16];
			const char *v = released_version(&rs->refs[sup[0]]);
			const char *dot = strchr(v, '.');
			const char *end = dot != NULL ? strchr(dot + 1, '.') : NULL;
			snprintf(mm, sizeof mm, "%.*s", end != NULL ? (int)(end - v) : (int)strlen(v), v);
			released_cat(s, size, "%s%s", "; unsupported before ", mm);
		} else {
			released_cat(s, size, "%s%s", "; unsupported on ", "");
			for (int i = 0, k = 0; i < rs->n; i++)
				if (rs->refs[i].r != NULL && rs->refs[i].r->unsupported != NULL)
					released_cat(
					    s, size, "%s%s", k++ ? ", " : "", released_version(&rs->refs[i]));
		}
	}
	if (nfailed > 0) {
		released_cat(s, size, "%s%s", s[0] != '\0' ? "; no answer from " : "no answer from ", "");
		for (int i = 0, k = 0; i < rs->n; i++)
			if (rs->refs[i].r == NULL)
				released_cat(s, size, "%s%s", k++ ? ", " : "", rs->refs[i].name);
		released_cat(
		    s, size, "%s%s", nfailed == 1 ? " (its worker failed)" : " (their workers failed)", "");
	}
}

void released_compute(struct released *rs, const struct result *res, int nbuilds, const char *const names[])
{
	int pos[RELEASED_MAX], answered = 0;

	if (rs->n > RELEASED_MAX)
		rs->n = RELEASED_MAX;
	qsort(rs->refs, (size_t)rs->n, sizeof rs->refs[0], released_order);
	rs->ngroups = 0;
	for (int i = 0; i < rs->n; i++) {
		struct released_ref *ref = &rs->refs[i];
		ref->as = released_as(ref->r, res, nbuilds);
		ref->group = -1;
		pos[i] = ref->r != NULL ? answered++ : -1;
		if (ref->r == NULL)
			continue;
		int g = 0;
		while (g < rs->ngroups && !released_same(rs->refs[rs->groups[g].members[0]].r, ref->r))
			g++;
		if (g == rs->ngroups) {
			memset(&rs->groups[g], 0, sizeof rs->groups[g]);
			rs->groups[g].as = ref->as;
			rs->ngroups++;
		}
		rs->groups[g].members[rs->groups[g].n++] = i;
		ref->group = g;
	}
	for (int g = 0; g < rs->ngroups; g++)
		released_label(rs, &rs->groups[g], pos);
	released_summary(rs, res, nbuilds, names);
}
