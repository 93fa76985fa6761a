/*
 * Triage: mismatches grouped in buckets (server/daemon/model/bucket.c makes the key),
 * each bucket's state, assignee and notes, and the audit trail of who
 * changed what (docs/api.md, "Triage").  The rules live here (what a state,
 * a name, a change may be; who makes it), on what a request states
 * (struct triage_input: api_triage.c reads it from the JSON body),
 * answering data or an error (services.h); the tables are behind db_*
 * (db_triage.c).
 *
 * States: new -> confirmed / expected / ignored / fixed (any state may be
 * set from any other).  A mismatch stored in a bucket marked fixed, in a
 * run started after it was marked (or submitted after it), flags the bucket
 * as reappeared; the flag stays until someone sets a state again.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "services.h"

#define TRIAGE_NAME_MAX 64 /* "by" and "assignee" */
#define TRIAGE_NOTES_MAX 16384

static const char *const triage_states[] = { "new", "confirmed", "expected", "ignored", "fixed", NULL };

/*
 * ?state=new,confirmed (any of the five), or "open" (new, confirmed, or
 * fixed and reappeared), or "reappeared".  Into the ?9/?10 parameters of
 * db_bucket_filter (v NULL: any); -1 with e.
 */
int triage_state_filter(const char *v, char *set, size_t setsize, int *special, struct svc_error *e)
{
	const char *p, *q;
	size_t n, i;

	set[0] = '\0';
	*special = 0;
	if (v == NULL || *v == '\0')
		return 0;
	if (strcmp(v, "open") == 0) {
		*special = 2;
		return 0;
	}
	if (strcmp(v, "reappeared") == 0) {
		*special = 1;
		return 0;
	}
	snprintf(set, setsize, ",");
	for (p = v; *p != '\0'; p = *q != '\0' ? q + 1 : q) {
		q = p + strcspn(p, ",");
		n = (size_t)(q - p);
		for (i = 0; triage_states[i] != NULL; i++)
			if (strlen(triage_states[i]) == n && strncmp(triage_states[i], p, n) == 0)
				break;
		if (triage_states[i] == NULL) {
			svc_fail(e, SVC_BAD_REQUEST, NULL,
			    "state: \"%.*s\" is not one of new, confirmed, expected, "
			    "ignored, fixed (or open, reappeared)",
			    (int)(n < 32 ? n : 32), p);
			return -1;
		}
		if (strlen(set) + n + 2 < setsize)
			strcat(strncat(set, p, n), ",");
	}
	return 0;
}

/* ---- changing triage ---- */

/*
 * A person's name ("by", "assignee"): 1..TRIAGE_NAME_MAX bytes of UTF-8
 * without control characters, trimmed.  0 with out filled, -1 with e.
 */
static int triage_name(
    const char *s, size_t n, const char *field, char *out, size_t outsize, struct svc_error *e)
{
	size_t i;

	while (n > 0 && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0) {
		svc_fail(e, SVC_BAD_REQUEST, NULL, "%s: must not be empty", field);
		return -1;
	}
	if (n > TRIAGE_NAME_MAX || n >= outsize) {
		svc_fail(e, SVC_BAD_REQUEST, NULL, "%s: at most %d bytes", field, TRIAGE_NAME_MAX);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
			svc_fail(e, SVC_BAD_REQUEST, NULL, "%s: must not contain control characters", field);
			return -1;
		}
	}
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

/*
 * Who is making this request: the one place that answers it.  A request
 * with an API token (token: its owner, from auth.c) is that person; "by",
 * when sent too, must name the same one.  Without a token (writes are open
 * on loopback until a token exists) "by" names the person and is
 * required.  0 with who filled, -1 with e.
 */
static int triage_who(const struct auth_who *token, const struct triage_input *in, char *who, size_t whosize,
    struct svc_error *e)
{
	char named[TRIAGE_NAME_MAX + 1];

	if (token != NULL && token->name[0] != '\0') {
		if (in->by != NULL) {
			if (triage_name(in->by, in->by_len, "by", named, sizeof named, e) < 0)
				return -1;
			if (strcmp(named, token->name) != 0) {
				svc_fail(e, SVC_BAD_REQUEST, NULL,
				    "by: \"%s\" is not the token's owner \"%s\"", named, token->name);
				return -1;
			}
		}
		snprintf(who, whosize, "%s", token->name);
		return 0;
	}
	if (in->by == NULL) {
		svc_fail(
		    e, SVC_BAD_REQUEST, NULL, "by: required: the person making the change (e.g. \"alice\")");
		return -1;
	}
	return triage_name(in->by, in->by_len, "by", who, whosize, e);
}

int triage_change(const struct auth_who *token, const struct triage_input *in, struct db_triage_change *ch,
    struct svc_error *e)
{
	memset(ch, 0, sizeof *ch);
	ch->with_joined = in->with_joined;
	if (triage_who(token, in, ch->by, sizeof ch->by, e) < 0)
		return -1;
	if (in->state != NULL) {
		for (size_t i = 0; triage_states[i] != NULL; i++)
			if (strcmp(in->state, triage_states[i]) == 0)
				ch->state = triage_states[i];
		if (ch->state == NULL) {
			svc_fail(e, SVC_BAD_REQUEST, NULL,
			    "state: expected one of new, confirmed, expected, ignored, fixed");
			return -1;
		}
	}
	if (in->set_assignee) {
		ch->set_assignee = 1;
		if (in->assignee != NULL && in->assignee_len > 0 &&
		    triage_name(
		        in->assignee, in->assignee_len, "assignee", ch->assignee, sizeof ch->assignee, e) < 0)
			return -1;
	}
	if (in->notes != NULL) {
		if (in->notes_len > TRIAGE_NOTES_MAX) {
			svc_fail(e, SVC_BAD_REQUEST, NULL, "notes: at most %d bytes", TRIAGE_NOTES_MAX);
			return -1;
		}
		if (strlen(in->notes) != in->notes_len) {
			svc_fail(e, SVC_BAD_REQUEST, NULL, "notes: must not contain NUL bytes");
			return -1;
		}
		ch->notes = in->notes;
	}
	if (ch->state == NULL && !ch->set_assignee && ch->notes == NULL) {
		svc_fail(e, SVC_BAD_REQUEST, NULL, "nothing to change: give state, assignee or notes");
		return -1;
	}
	return 0;
}

int triage_ids_count(size_t n, struct svc_error *e)
{
	if (n == 0 || n > TRIAGE_MAX_IDS) {
		svc_fail(
		    e, SVC_BAD_REQUEST, NULL, "ids: required: a list of 1 .. %d bucket ids", TRIAGE_MAX_IDS);
		return -1;
	}
	return 0;
}

size_t triage_ids_once(int64_t *ids, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j;
		for (j = 0; j < k && ids[j] != ids[i]; j++)
			;
		if (j == k)
			ids[k++] = ids[i];
	}
	return k;
}
