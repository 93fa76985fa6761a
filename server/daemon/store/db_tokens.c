/*
 * API tokens (docs/hardening.md): stored as hashes, found by hash, counted,
 * listed, revoked; the last use written at most once a minute.
 */
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "db_core.h"

enum token_stmt {
	S_TOKEN_ADD,
	S_TOKEN_FIND,
	S_TOKENS_ACTIVE,
	S_TOKENS_LIST,
	S_TOKEN_REVOKE,
	S_TOKEN_USED,
	TOKEN_COUNT
};

/* clang-format off */
static const char *const token_sql[TOKEN_COUNT] = {
	[S_TOKEN_ADD] = "INSERT INTO tokens (name, hash) VALUES (?1, ?2)",
	[S_TOKEN_FIND] =
	    "SELECT id, name, created_at, last_used_at, revoked_at FROM tokens WHERE hash = ?1",
	[S_TOKENS_ACTIVE] = "SELECT count(*) FROM tokens WHERE revoked_at IS NULL",
	[S_TOKENS_LIST] =
	    "SELECT id, name, created_at, last_used_at, revoked_at FROM tokens ORDER BY id",
	[S_TOKEN_REVOKE] =
	    "UPDATE tokens SET revoked_at = " DB_NOW " "
	    "WHERE revoked_at IS NULL AND (id = ?1 OR (?1 = 0 AND name = ?2))",
	/* At most one write a minute per token, not one per request. */
	[S_TOKEN_USED] =
	    "UPDATE tokens SET last_used_at = " DB_NOW " WHERE id = ?1 AND (last_used_at IS NULL "
	    "OR last_used_at < strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-60 seconds'))",
};
/* clang-format on */

const struct db_sql_table db_tokens_table = { "tokens", token_sql, TOKEN_COUNT };

static void db_read_token(sqlite3_stmt *st, struct db_token *t)
{
	t->id = sqlite3_column_int64(st, 0);
	t->name = (const char *)sqlite3_column_text(st, 1);
	t->created_at = (const char *)sqlite3_column_text(st, 2);
	t->last_used_at = (const char *)sqlite3_column_text(st, 3);
	t->revoked_at = (const char *)sqlite3_column_text(st, 4);
}

int db_token_add(struct db *db, const char *name, const char *hash, int64_t *id, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_TOKENS, S_TOKEN_ADD);
	db_bind_text(st, 1, name);
	db_bind_text(st, 2, hash);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE) {
		*id = sqlite3_last_insert_rowid(db->conn);
		rc = 1;
	} else if (sqlite3_extended_errcode(db->conn) == SQLITE_CONSTRAINT_UNIQUE) {
		rc = 0; /* an active token has this name (the hash is random) */
	} else {
		rc = db_fail(db, "add token", err, errsize);
	}
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_token_find(struct db *db, const char *hash, db_token_fn fn, void *arg, char *err, size_t errsize)
{
	struct db_token t;
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_TOKENS, S_TOKEN_FIND);
	db_bind_text(st, 1, hash);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		db_read_token(st, &t);
		rc = fn(arg, &t) < 0 ? -1 : 1;
		if (rc < 0)
			db_seterr(err, errsize, "out of memory");
	} else {
		rc = rc == SQLITE_DONE ? 0 : db_fail(db, "find token", err, errsize);
	}
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_tokens_active(struct db *db, char *err, size_t errsize)
{
	int n = db_count(db, DB_F_TOKENS, S_TOKENS_ACTIVE, "count tokens", err, errsize);

	if (n >= 0)
		__atomic_store_n(&db->tokens_seen, n, __ATOMIC_RELAXED);
	return n;
}

int db_tokens_active_nowait(struct db *db)
{
	sqlite3_stmt *st;
	int n;

	if (pthread_mutex_trylock(&db->lock) != 0)
		return __atomic_load_n(&db->tokens_seen, __ATOMIC_RELAXED);
	st = db_statement(db, DB_F_TOKENS, S_TOKENS_ACTIVE);
	n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	if (n >= 0)
		__atomic_store_n(&db->tokens_seen, n, __ATOMIC_RELAXED);
	else
		n = __atomic_load_n(&db->tokens_seen, __ATOMIC_RELAXED);
	return n;
}

int db_tokens_list(struct db *db, db_token_fn fn, void *arg, char *err, size_t errsize)
{
	struct db_token t;
	sqlite3_stmt *st;
	int rc, n = 0;

	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_TOKENS, S_TOKENS_LIST);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		db_read_token(st, &t);
		if (fn(arg, &t) < 0)
			break;
		n++;
	}
	rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? n : db_fail(db, "list tokens", err, errsize);
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_token_revoke(struct db *db, int64_t id, const char *name, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_TOKENS, S_TOKEN_REVOKE);
	sqlite3_bind_int64(st, 1, id);
	db_bind_text(st, 2, name);
	rc = db_update(db, st, "revoke token", err, errsize);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

void db_token_used(struct db *db, int64_t id)
{
	sqlite3_stmt *st;

	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_TOKENS, S_TOKEN_USED);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_step(st); /* a read-only or full disk must not refuse the request */
	sqlite3_reset(st);
	db_errcode = 0;
	pthread_mutex_unlock(&db->lock);
}
