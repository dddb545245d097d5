/* store_internal.h — what the files of services/store share and nobody else sees: the kn_store
 * struct, the libpq boundary (run a statement, translate a PGresult into KN_EDB / KN_EIO with the
 * server's primary message) and the embedded migrations. */
#ifndef KEYNODE_STORE_INTERNAL_H
#define KEYNODE_STORE_INTERNAL_H

#include <libpq-fe.h>

#include "store.h"

struct kn_store {
	PGconn *conn;
	char *conninfo;
	unsigned long session; /* kn_store_session: 1, then one more per reconnect */
	int in_tx;             /* between kn_store_begin and kn_store_commit / kn_store_rollback */
	int lost;              /* a statement met a lost connection: reopen before the next */
};

typedef struct kn_store_migration_src {
	const char *name; /* "001_init.sql" */
	const char *sql;
} kn_store_migration_src;

extern const kn_store_migration_src kn_store_migrations_embedded[];
extern const unsigned long kn_store_migrations_embedded_n;

/* Run sql with n text parameters (NULL entries are SQL NULL). On success *out (may be NULL when
 * the caller wants no rows) is the result, the caller's (PQclear). On failure nothing is left to
 * clear: KN_EIO when the connection is lost (or the server is shutting down), KN_EDB otherwise,
 * err holding the server's primary message. */
int kn_store_q(kn_store *st, PGresult **out, const char *sql, int n, const char *const *params,
               kn_err *err);
/* kn_store_q for a write that is the same done twice as once (an upsert, a heartbeat): sent
 * again on a new connection when the connection was lost under it (store_reconnect.c). */
int kn_store_q_idem(kn_store *st, PGresult **out, const char *sql, int n, const char *const *params,
                    kn_err *err);
/* The same with per-parameter lengths and formats (1 = binary, for bytea). */
int kn_store_qb(kn_store *st, PGresult **out, const char *sql, int n, const char *const *params,
                const int *lengths, const int *formats, kn_err *err);
/* Run sql expecting one row with one text column: *out a copy (malloc, the caller's);
 * KN_ENOTFOUND when there is no row or the value is NULL. */
int kn_store_q_text(kn_store *st, char **out, const char *sql, int n, const char *const *params,
                    kn_err *err);
/* Run sql expecting one row with one integer column (KN_ENOTFOUND as above). */
int kn_store_q_int64(kn_store *st, int64_t *out, const char *sql, int n, const char *const *params,
                     kn_err *err);

/* BEGIN / COMMIT / ROLLBACK (rollback ignores errors: it is the path out of one). */
int kn_store_begin(kn_store *st, kn_err *err);
int kn_store_commit(kn_store *st, kn_err *err);
void kn_store_rollback(kn_store *st);

/* store_reconnect.c: the reconnect rule of kn_store_qb. */
/* 1 when sql only reads (or is a bare BEGIN): safe to send again after a lost connection. */
int kn_store_sql_replayable(const char *sql);
/* Before a statement: reopen a connection known lost (nothing was sent). 0, or KN_EIO (the
 * database is unreachable, or a transaction was open on the lost connection). */
int kn_store_reopen_before(kn_store *st, kn_err *err);
/* After a statement met a lost connection: 1 when it may be sent again and the connection was
 * reopened, 0 otherwise. */
int kn_store_reopen_after(kn_store *st, const char *sql, int idempotent);

/* An int64 as decimal text into buf (at least 24 bytes); returns buf. */
const char *kn_store_i64(char *buf, int64_t v);

#endif
