/*
 * Who may write: bearer tokens for the write endpoints (and, with
 * --read-auth, for reading), and `phpcmp token`, which makes, lists and
 * revokes them.
 *
 * The model (docs/hardening.md): a daemon on a loopback address with no
 * token configured takes writes from whoever can connect, which is only
 * this machine's users.  Once a token exists, or when the daemon listens on
 * any other address, every write needs `Authorization: Bearer <token>`; a
 * non-loopback daemon with no token refuses to start.  A token is 32 random
 * bytes shown once; the database keeps only its SHA-256, so a copy of the
 * database holds no usable token.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "services.h"

#define AUTH_PREFIX "phpcmp_"
#define AUTH_RANDOM_BYTES 32
#define AUTH_MAX_TOKEN 256 /* longer is not one of ours: unknown */
#define AUTH_REALM "Bearer realm=\"phpcmp\""
#define AUTH_INVALID "Bearer realm=\"phpcmp\", error=\"invalid_token\""
#define AUTH_MALFORMED "Bearer realm=\"phpcmp\", error=\"invalid_request\""

int auth_is_loopback(const char *addr)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (inet_pton(AF_INET, addr, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, addr, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6) || (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	return 0;
}

/* Lower-case hex SHA-256 of s; 0, or -1 if OpenSSL fails. */
static int auth_hash(const char *s, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	if (EVP_Digest(s, len, md, &n, EVP_sha256(), NULL) != 1 || n != 32)
		return -1;
	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

/* A new token's text: the prefix and 32 random bytes in base64url. */
static int auth_new_token(char *out, size_t outsize)
{
	unsigned char r[AUTH_RANDOM_BYTES] = { 0 };
	size_t got = 0, o;
	ssize_t n;

	while (got < AUTH_RANDOM_BYTES) {
		n = getrandom(r + got, AUTH_RANDOM_BYTES - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	o = strlen(AUTH_PREFIX);
	if (outsize < o + 4 * ((AUTH_RANDOM_BYTES + 2) / 3) + 1)
		return -1;
	memcpy(out, AUTH_PREFIX, o);
	base64url_encode(r, AUTH_RANDOM_BYTES, out + o, outsize - o);
	return 0;
}

/* ---- checking a request ---- */

static int auth_refuse(struct svc_error *e, const char *challenge, const char *code, const char *msg)
{
	svc_fail(e, SVC_UNAUTHORIZED, code, "%s", msg);
	e->challenge = challenge;
	return -1;
}

/* The database could not answer: never let that open the door. */
static int auth_db_failed(struct svc_error *e, const char *err)
{
	return svc_fail(e, SVC_STORAGE, NULL, "cannot check the token: %s", err);
}

struct auth_found {
	int64_t id;
	char name[AUTH_NAME_MAX + 1];
	char revoked_at[32];
};

static int auth_found_row(void *arg, const struct db_token *t)
{
	struct auth_found *f = arg;

	f->id = t->id;
	snprintf(f->name, sizeof f->name, "%s", t->name != NULL ? t->name : "");
	snprintf(f->revoked_at, sizeof f->revoked_at, "%s", t->revoked_at != NULL ? t->revoked_at : "");
	return 0;
}

/* Check the Authorization header's token; 0 with who, or -1 with e. */
static int auth_check_token(struct app *app, const char *header, struct auth_who *who, struct svc_error *e)
{
	struct auth_found f;
	const char *tok;
	char hash[65], err[512], msg[256];
	size_t len;
	int rc;

	if (strncasecmp(header, "Bearer", 6) != 0 || (header[6] != ' ' && header[6] != '\t'))
		return auth_refuse(
		    e, AUTH_MALFORMED, "token_malformed", "Authorization: expected \"Bearer <token>\"");
	tok = header + 6 + strspn(header + 6, " \t");
	len = strcspn(tok, " \t");
	if (len == 0 || tok[len + strspn(tok + len, " \t")] != '\0')
		return auth_refuse(e, AUTH_MALFORMED, "token_malformed",
		    "Authorization: expected \"Bearer <token>\" with one token");
	if (len > AUTH_MAX_TOKEN)
		return auth_refuse(e, AUTH_INVALID, "token_unknown", "the token is not one of this daemon's");
	if (auth_hash(tok, len, hash) < 0) {
		return svc_fail(e, SVC_INTERNAL, NULL, "cannot hash the token (OpenSSL)");
	}
	memset(&f, 0, sizeof f);
	if ((rc = db_token_find(app->db, hash, auth_found_row, &f, err, sizeof err)) < 0)
		return auth_db_failed(e, err);
	if (rc == 0)
		return auth_refuse(e, AUTH_INVALID, "token_unknown",
		    "the token is not one of this daemon's (see `phpcmp token list`)");
	if (f.revoked_at[0] != '\0') {
		snprintf(msg, sizeof msg, "the token of \"%s\" was revoked at %s", f.name, f.revoked_at);
		return auth_refuse(e, AUTH_INVALID, "token_revoked", msg);
	}
	who->token_id = f.id;
	snprintf(who->name, sizeof who->name, "%s", f.name);
	db_token_used(app->db, f.id);
	return 0;
}

int auth_writes_closed(struct app *app, char *err, size_t errsize)
{
	int n;

	if (app->config->beyond_loopback)
		return 1;
	if ((n = db_tokens_active(app->db, err, errsize)) < 0)
		return -1;
	return n > 0;
}

int auth_writes_closed_nowait(struct app *app)
{
	int n;

	if (app->config->beyond_loopback)
		return 1;
	if ((n = db_tokens_active_nowait(app->db)) < 0)
		return -1;
	return n > 0;
}

int auth_identity(struct app *app, const char *authorization, struct auth_who *who, struct svc_error *e)
{
	char err[512];
	int closed;

	memset(who, 0, sizeof *who);
	/* A token sent is always checked, so a client with a bad one learns it. */
	if (authorization != NULL)
		return auth_check_token(app, authorization, who, e);
	if ((closed = auth_writes_closed(app, err, sizeof err)) < 0)
		return auth_db_failed(e, err);
	if (closed == 0)
		return 0;
	return auth_refuse(e, AUTH_REALM, "token_required",
	    "this request changes data and needs a token: send \"Authorization: Bearer <token>\" "
	    "(an operator creates one with `phpcmp token add NAME`)");
}

int auth_read(struct app *app, const char *authorization, struct svc_error *e)
{
	struct auth_who who;

	if (!app->config->read_auth)
		return 0;
	if (authorization == NULL)
		return auth_refuse(e, AUTH_REALM, "token_required",
		    "this daemon needs a token to read too (read-auth): send \"Authorization: Bearer <token>\"");
	return auth_check_token(app, authorization, &who, e);
}

int auth_startup(struct app *app, const char *addr, char *err, size_t errsize)
{
	char dberr[512];
	int n;

	if ((n = db_tokens_active(app->db, dberr, sizeof dberr)) < 0) {
		snprintf(err, errsize, "%s", dberr);
		return -1;
	}
	if (app->config->beyond_loopback && n == 0) {
		snprintf(err, errsize,
		    "listen address %s is not a loopback address, and other machines "
		    "must not write without a token: none is configured in %s.  Create one with "
		    "`phpcmp token add NAME --db %s`, or listen on 127.0.0.1",
		    addr, app->config->db_path, app->config->db_path);
		return -1;
	}
	fprintf(stderr, "phpcmp: writes %s; reads %s\n",
	    n > 0 || app->config->beyond_loopback ? "need a token"
	                                          : "are open (loopback, no token configured)",
	    app->config->read_auth ? "need a token" : "are open");
	return 0;
}

/* ---- phpcmp token ---- */

static int auth_usage(void)
{
	fputs("usage: phpcmp token add NAME [--db PATH]     create a token for NAME (a person or CI job);\n"
	      "                                            it is printed once, on stdout\n"
	      "       phpcmp token list [--db PATH]        every token: id, name, dates, state\n"
	      "       phpcmp token revoke NAME|ID [--db PATH]\n"
	      "--db defaults to phpcmp.db, the daemon's default.\n",
	    stderr);
	return 2;
}

/* 1..64 bytes of UTF-8 without control characters, not only digits (ids are). */
static int auth_name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > AUTH_NAME_MAX || s[0] == ' ' || s[n - 1] == ' ' || !utf8_valid(s, n) ||
	    strspn(s, "0123456789") == n)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

static int auth_list_row(void *arg, const struct db_token *t)
{
	(void)arg;
	printf("%-5" PRId64 " %-32s %-20s %-20s %s%s\n", t->id, t->name,
	    t->created_at != NULL ? t->created_at : "-", t->last_used_at != NULL ? t->last_used_at : "never",
	    t->revoked_at != NULL ? "revoked " : "active", t->revoked_at != NULL ? t->revoked_at : "");
	return 0;
}

int auth_token_command(int argc, char **argv)
{
	const char *db_path = "phpcmp.db", *verb = NULL, *arg = NULL;
	char err[1024], token[128], hash[65];
	struct db *db = NULL;
	struct stat st;
	int64_t id = 0;
	int i, rc = 1, n, db_given = 0;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
			db_path = argv[++i], db_given = 1;
		else if (strncmp(argv[i], "--db=", 5) == 0)
			db_path = argv[i] + 5, db_given = 1;
		else if (argv[i][0] == '-' && argv[i][1] == '-')
			return auth_usage();
		else if (verb == NULL)
			verb = argv[i];
		else if (arg == NULL)
			arg = argv[i];
		else
			return auth_usage();
	}
	if (verb == NULL)
		return auth_usage();
	if (strcmp(verb, "add") == 0 || strcmp(verb, "revoke") == 0) {
		if (arg == NULL)
			return auth_usage();
	} else if (strcmp(verb, "list") != 0 || arg != NULL) {
		return auth_usage();
	}
	if (strcmp(verb, "add") == 0 && !auth_name_ok(arg)) {
		fprintf(stderr,
		    "phpcmp token: name \"%s\": expected 1 to %d characters naming a person "
		    "or CI job (no control characters, not only digits)\n",
		    arg, AUTH_NAME_MAX);
		return 2;
	}
	/* Only `add` may create the database: a typo in --db must not look empty.
	 * And only one named with --db: a token made in a new ./phpcmp.db beside
	 * a daemon serving another file would be refused there (issue 46). */
	if ((strcmp(verb, "add") != 0 || !db_given) && stat(db_path, &st) < 0) {
		fprintf(stderr, "phpcmp token: database %s: %s%s\n", db_path, strerror(errno),
		    db_given ? ""
		             : "; give the daemon's with --db PATH (its startup line says "
		               "\"database PATH\")");
		return 1;
	}
	if ((db = db_open(db_path, err, sizeof err)) == NULL) {
		fprintf(stderr, "phpcmp token: %s\n", err);
		return 1;
	}
	if (strcmp(verb, "add") == 0) {
		if (auth_new_token(token, sizeof token) < 0 || auth_hash(token, strlen(token), hash) < 0) {
			fprintf(stderr, "phpcmp token: cannot make a random token: %s\n", strerror(errno));
			goto out;
		}
		if ((n = db_token_add(db, arg, hash, &id, err, sizeof err)) < 0) {
			fprintf(stderr, "phpcmp token: %s\n", err);
			goto out;
		}
		if (n == 0) {
			fprintf(stderr,
			    "phpcmp token: \"%s\" already has an active token; revoke it first "
			    "(phpcmp token revoke \"%s\")\n",
			    arg, arg);
			goto out;
		}
		printf("%s\n", token);
		fflush(stdout);
		fprintf(stderr,
		    "phpcmp token: token %" PRId64 " for \"%s\" created in %s.  It is shown only "
		    "this once; send it as \"Authorization: Bearer <token>\".\n",
		    id, arg, db_path);
		rc = 0;
	} else if (strcmp(verb, "list") == 0) {
		printf("%-5s %-32s %-20s %-20s %s\n", "ID", "NAME", "CREATED", "LAST USED", "STATE");
		if (db_tokens_list(db, auth_list_row, NULL, err, sizeof err) < 0) {
			fprintf(stderr, "phpcmp token: %s\n", err);
			goto out;
		}
		rc = 0;
	} else {
		id = id_parse_str(arg); /* 0: not an id, a name */
		if ((n = db_token_revoke(db, id, arg, err, sizeof err)) < 0) {
			fprintf(stderr, "phpcmp token: %s\n", err);
			goto out;
		}
		if (n == 0) {
			fprintf(stderr, "phpcmp token: no active token %s \"%s\" (see phpcmp token list)\n",
			    id > 0 ? "with id" : "named", arg);
			goto out;
		}
		fprintf(stderr, "phpcmp token: %s revoked; requests with it now get 401\n", arg);
		rc = 0;
	}
out:
	db_close(db);
	return rc;
}
