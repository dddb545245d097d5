/* store.c — the connection and the schema: opening and resetting a libpq connection, the one
 * place PGresult errors are translated into KN_EDB / KN_EIO, and kn_store_migrate, which applies
 * the versioned NNN_name.sql migrations (embedded at build time, or read from a directory), each
 * file in its own transaction under a transaction-scoped advisory lock so that two migrators
 * never race and a re-run is a no-op. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store_internal.h"

/* pg_advisory_xact_lock key of the migrator ("kn-migr" in ASCII, any fixed number would do). */
#define KN_MIGRATE_LOCK "7957418023167046002"
#define KN_MIGRATION_MAX_BYTES (16u * 1024u * 1024u)
#define KN_MIGRATIONS_MAX 1000

/* The server's primary message, one line, without libpq's "ERROR:  " prefix. */
static void primary_message(char *buf, size_t cap, PGconn *conn, const PGresult *res)
{
	const char *m = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	if (!m || !*m)
		m = conn ? PQerrorMessage(conn) : "no connection";
	if (!m || !*m)
		m = "unknown error";
	size_t n = strcspn(m, "\n");
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, m, n);
	buf[n] = '\0';
}

/* Every session: no notices, UTC, and no JIT compilation: keynode's queries are short, and on a
 * large database the planner's cost estimate of a page's query (e.g. GET /api/agent-runs on a year
 * of data) started a JIT compile that took 80 ms of the answer's time (tests/bench/bench_year.sh). */
static const char session_setup[] = "SET client_min_messages = warning; SET TIME ZONE 'UTC'; SET jit = off";

int kn_store_open(kn_store **out, const char *conninfo, kn_err *err)
{
	*out = NULL;
	if (!conninfo || !*conninfo)
		return kn_err_set(err, KN_EINVAL, "no database url given");
	kn_store *st = calloc(1, sizeof *st);
	if (!st || !(st->conninfo = strdup(conninfo))) {
		free(st);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	/* Defaults so an unreachable host cannot hang a caller (or the ingest writer) for the kernel's
	 * TCP timeouts: connect_timeout; and for a database whose packets are dropped mid-connection (a
	 * network partition, no RST) keepalives and tcp_user_timeout, so a query on it fails within ~5 s
	 * and the writer spools instead of every events post waiting into a 503 (multihost.sh).
	 * The conninfo's own settings, expanded later, win. */
	static const char *const keys[] = {"connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval",
	                                   "keepalives_count", "tcp_user_timeout", "dbname", NULL};
	const char *const vals[] = {"10", "1", "5", "2", "3", "5000", conninfo, NULL};
	st->conn = PQconnectdbParams(keys, vals, 1);
	if (!st->conn || PQstatus(st->conn) != CONNECTION_OK) {
		char m[256];
		primary_message(m, sizeof m, st->conn, NULL);
		kn_store_free(st);
		return kn_err_set(err, KN_EIO, "cannot connect to the database: %s", m);
	}
	/* Notices (e.g. "relation already exists, skipping") are not ours to print. */
	PQsetNoticeProcessor(st->conn, NULL, NULL);
	PGresult *r = PQexec(st->conn, session_setup);
	PQclear(r);
	st->session = 1;
	*out = st;
	return 0;
}

void kn_store_free(kn_store *st)
{
	if (!st)
		return;
	if (st->conn)
		PQfinish(st->conn);
	free(st->conninfo);
	free(st);
}

int kn_store_reset(kn_store *st, kn_err *err)
{
	PQreset(st->conn);
	if (PQstatus(st->conn) != CONNECTION_OK) {
		char m[256];
		primary_message(m, sizeof m, st->conn, NULL);
		return kn_err_set(err, KN_EIO, "cannot connect to the database: %s", m);
	}
	PGresult *r = PQexec(st->conn, session_setup);
	PQclear(r);
	st->session++;
	st->in_tx = st->lost = 0;
	return 0;
}

/* SQLSTATE classes that mean "the connection is or is about to be gone": 08 connection
 * exception, 57P01..57P03 admin/crash shutdown, cannot connect now. */
static int state_is_connection_loss(const char *state)
{
	return state && (strncmp(state, "08", 2) == 0 || strncmp(state, "57P", 3) == 0);
}

/* Send one statement; KN_EIO when the connection was lost under it. */
static int exec_once(kn_store *st, PGresult **out, const char *sql, int n, const char *const *params,
                     const int *lengths, const int *formats, kn_err *err)
{
	PGresult *res = PQexecParams(st->conn, sql, n, NULL, params, lengths, formats, 0);
	ExecStatusType s = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) {
		if (out)
			*out = res;
		else
			PQclear(res);
		return 0;
	}
	char m[400];
	primary_message(m, sizeof m, st->conn, res);
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	int code = (PQstatus(st->conn) != CONNECTION_OK || state_is_connection_loss(state)) ? KN_EIO
	                                                                                    : KN_EDB;
	PQclear(res);
	st->lost |= code == KN_EIO;
	return kn_err_set(err, code, "database error: %s", m);
}

/* A lost connection is reopened here and nowhere else (store_reconnect.c says when). */
static int query(kn_store *st, PGresult **out, const char *sql, int n, const char *const *params,
                 const int *lengths, const int *formats, int idempotent, kn_err *err)
{
	if (out)
		*out = NULL;
	int rc = kn_store_reopen_before(st, err);
	if (rc == 0)
		rc = exec_once(st, out, sql, n, params, lengths, formats, err);
	if (rc == KN_EIO && kn_store_reopen_after(st, sql, idempotent))
		rc = exec_once(st, out, sql, n, params, lengths, formats, err);
	return rc;
}

int kn_store_qb(kn_store *st, PGresult **out, const char *sql, int n, const char *const *params,
                const int *lengths, const int *formats, kn_err *err)
{
	return query(st, out, sql, n, params, lengths, formats, 0, err);
}

int kn_store_q(kn_store *st, PGresult **out, const char *sql, int n, const char *const *params,
               kn_err *err)
{
	return query(st, out, sql, n, params, NULL, NULL, 0, err);
}

int kn_store_q_idem(kn_store *st, PGresult **out, const char *sql, int n, const char *const *params,
                    kn_err *err)
{
	return query(st, out, sql, n, params, NULL, NULL, 1, err);
}

int kn_store_q_text(kn_store *st, char **out, const char *sql, int n, const char *const *params,
                    kn_err *err)
{
	*out = NULL;
	PGresult *res;
	int rc = kn_store_q(st, &res, sql, n, params, err);
	if (rc != 0)
		return rc;
	if (PQntuples(res) < 1 || PQnfields(res) < 1 || PQgetisnull(res, 0, 0)) {
		PQclear(res);
		return kn_err_set(err, KN_ENOTFOUND, "not found");
	}
	*out = strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return *out ? 0 : kn_err_set(err, KN_ENOMEM, "out of memory");
}

int kn_store_q_int64(kn_store *st, int64_t *out, const char *sql, int n, const char *const *params,
                     kn_err *err)
{
	char *text;
	int rc = kn_store_q_text(st, &text, sql, n, params, err);
	if (rc != 0)
		return rc;
	*out = strtoll(text, NULL, 10);
	free(text);
	return 0;
}

int kn_store_begin(kn_store *st, kn_err *err)
{
	int rc = kn_store_q(st, NULL, "BEGIN", 0, NULL, err);
	st->in_tx = rc == 0;
	return rc;
}

int kn_store_commit(kn_store *st, kn_err *err)
{
	int rc = kn_store_q(st, NULL, "COMMIT", 0, NULL, err);
	st->in_tx = 0;
	return rc;
}

void kn_store_rollback(kn_store *st)
{
	if (PQstatus(st->conn) == CONNECTION_OK)
		PQclear(PQexec(st->conn, "ROLLBACK"));
	st->in_tx = 0;
}

const char *kn_store_i64(char *buf, int64_t v)
{
	snprintf(buf, 24, "%" PRId64, v);
	return buf;
}

/* ---- migrations ------------------------------------------------------------------------- */

typedef struct migration {
	int version;
	char *name;
	char *sql;       /* owned when read from a directory */
	const char *text;
} migration;

/* The version of "NNN_name.sql", or -1 when the name is not a migration's. */
static int migration_version(const char *name)
{
	size_t len = strlen(name);
	if (len < 9 || name[0] < '0' || name[0] > '9' || name[1] < '0' || name[1] > '9' ||
	    name[2] < '0' || name[2] > '9' || name[3] != '_' || strcmp(name + len - 4, ".sql") != 0)
		return -1;
	return (name[0] - '0') * 100 + (name[1] - '0') * 10 + (name[2] - '0');
}

static int cmp_migration(const void *a, const void *b)
{
	const migration *x = a, *y = b;
	return (x->version > y->version) - (x->version < y->version);
}

static void migrations_free(migration *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].name);
		free(m[i].sql);
	}
	free(m);
}

static int read_file(char **out, const char *path, kn_err *err)
{
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return kn_err_set(err, KN_EIO, "%s: %s", path, strerror(errno));
	char *buf = malloc(KN_MIGRATION_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	size_t n = fread(buf, 1, KN_MIGRATION_MAX_BYTES + 1, f);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return kn_err_set(err, KN_EIO, "%s: read error", path);
	}
	if (n > KN_MIGRATION_MAX_BYTES) {
		free(buf);
		return kn_err_set(err, KN_ELIMIT, "%s: larger than %u bytes", path, KN_MIGRATION_MAX_BYTES);
	}
	if (memchr(buf, '\0', n)) {
		free(buf);
		return kn_err_set(err, KN_EINVAL, "%s: contains a NUL byte", path);
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

/* The migrations of dir (NULL: the embedded ones), sorted by version; duplicates are an error. */
static int migrations_list(migration **out, size_t *n_out, const char *dir, kn_err *err)
{
	*out = NULL;
	*n_out = 0;
	migration *m = calloc(KN_MIGRATIONS_MAX, sizeof *m);
	size_t n = 0;
	if (!m)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	int rc = 0;
	if (!dir) {
		for (unsigned long i = 0; i < kn_store_migrations_embedded_n && i < KN_MIGRATIONS_MAX; i++) {
			m[n].version = migration_version(kn_store_migrations_embedded[i].name);
			m[n].name = strdup(kn_store_migrations_embedded[i].name);
			m[n].text = kn_store_migrations_embedded[i].sql;
			if (!m[n++].name) {
				rc = kn_err_set(err, KN_ENOMEM, "out of memory");
				break;
			}
		}
	} else {
		DIR *d = opendir(dir);
		if (!d) {
			free(m);
			return kn_err_set(err, KN_EIO, "%s: %s", dir, strerror(errno));
		}
		struct dirent *e;
		while (rc == 0 && (e = readdir(d))) {
			int v = migration_version(e->d_name);
			if (v < 0)
				continue;
			if (n == KN_MIGRATIONS_MAX) {
				rc = kn_err_set(err, KN_ELIMIT, "%s: more than %d migrations", dir, KN_MIGRATIONS_MAX);
				break;
			}
			size_t plen = strlen(dir) + strlen(e->d_name) + 2;
			char *path = malloc(plen);
			if (!path) {
				rc = kn_err_set(err, KN_ENOMEM, "out of memory");
				break;
			}
			snprintf(path, plen, "%s/%s", dir, e->d_name);
			m[n].version = v;
			m[n].name = strdup(e->d_name);
			rc = read_file(&m[n].sql, path, err);
			free(path);
			m[n].text = m[n].sql;
			n++;
			if (rc == 0 && !m[n - 1].name)
				rc = kn_err_set(err, KN_ENOMEM, "out of memory");
		}
		closedir(d);
	}
	if (rc == 0) {
		qsort(m, n, sizeof *m, cmp_migration);
		for (size_t i = 1; i < n; i++)
			if (m[i].version == m[i - 1].version) {
				rc = kn_err_set(err, KN_EINVAL, "migrations %s and %s share version %03d",
				                m[i - 1].name, m[i].name, m[i].version);
				break;
			}
	}
	if (rc != 0) {
		migrations_free(m, n);
		return rc;
	}
	*out = m;
	*n_out = n;
	return 0;
}

static const char sql_ensure_table[] =
	"CREATE TABLE IF NOT EXISTS schema_migrations (version int PRIMARY KEY, name text NOT NULL,"
	" applied_at timestamptz NOT NULL DEFAULT now())";

/* Apply one migration in its own transaction unless it is applied: 1 applied, 0 already was. */
static int migrate_one(kn_store *st, const migration *m, kn_err *err)
{
	char vb[24];
	const char *p[2] = {kn_store_i64(vb, m->version), m->name};
	int rc = kn_store_begin(st, err);
	if (rc != 0)
		return rc;
	int64_t have = 0;
	if ((rc = kn_store_q(st, NULL, "SELECT pg_advisory_xact_lock(" KN_MIGRATE_LOCK ")", 0, NULL, err)) ||
	    (rc = kn_store_q(st, NULL, sql_ensure_table, 0, NULL, err)) ||
	    (rc = kn_store_q_int64(st, &have, "SELECT count(*) FROM schema_migrations WHERE version = $1",
	                           1, p, err)))
		goto fail;
	if (have) {
		kn_store_rollback(st);
		return 0;
	}
	/* The file may hold many statements: the simple query protocol runs them all, inside our
	 * transaction. */
	PGresult *res = PQexec(st->conn, m->text);
	ExecStatusType s = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK && s != PGRES_EMPTY_QUERY) {
		const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
		const char *pos = res ? PQresultErrorField(res, PG_DIAG_STATEMENT_POSITION) : NULL;
		int line = 0;
		if (pos) {
			long off = strtol(pos, NULL, 10);
			line = 1;
			for (long i = 0; i < off - 1 && m->text[i]; i++)
				line += m->text[i] == '\n';
		}
		rc = kn_err_set(err, PQstatus(st->conn) == CONNECTION_OK ? KN_EDB : KN_EIO,
		                "migration failed: %s:%d: %s", m->name, line,
		                msg ? msg : PQerrorMessage(st->conn));
		PQclear(res);
		goto fail;
	}
	PQclear(res);
	if ((rc = kn_store_q(st, NULL, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
	                     2, p, err)) ||
	    (rc = kn_store_commit(st, err)))
		goto fail;
	return 1;
fail:
	kn_store_rollback(st);
	return rc;
}

int kn_store_migrate(kn_store *st, const char *dir, int *applied, kn_err *err)
{
	if (applied)
		*applied = 0;
	migration *m;
	size_t n;
	int rc = migrations_list(&m, &n, dir, err);
	if (rc != 0)
		return rc;
	if (n == 0) {
		migrations_free(m, n);
		return kn_err_set(err, KN_ENOTFOUND, "%s: no NNN_name.sql migrations", dir ? dir : "(embedded)");
	}
	for (size_t i = 0; i < n; i++) {
		rc = migrate_one(st, &m[i], err);
		if (rc < 0)
			break;
		if (applied)
			*applied += rc;
		rc = 0;
	}
	migrations_free(m, n);
	return rc;
}

int kn_store_schema_version(kn_store *st, int *out, kn_err *err)
{
	*out = 0;
	int64_t v = 0;
	int rc = kn_store_q_int64(st, &v, "SELECT (to_regclass('schema_migrations') IS NOT NULL)::int",
	                          0, NULL, err);
	if (rc != 0 || v == 0)
		return rc;
	rc = kn_store_q_int64(st, &v, "SELECT COALESCE(max(version), 0) FROM schema_migrations", 0,
	                      NULL, err);
	if (rc == 0)
		*out = (int)v;
	return rc;
}
