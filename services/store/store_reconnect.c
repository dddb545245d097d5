/* store_reconnect.c — the store owns its reconnects (store.h "Lost connections"): the one rule
 * for whether a statement that met a lost connection may be sent again on a new one. Callers of
 * the store never reset or retry themselves. A statement is sent again only when doing it twice
 * is the same as doing it once: it was never sent (the connection was known lost before), it only
 * reads, or its caller declared it idempotent (kn_store_q_idem). Never inside a transaction: the
 * transaction died with the connection, and its caller rolls back and starts again. */
#include <ctype.h>
#include <string.h>

#include "store_internal.h"

/* 1 when word occurs in sql as a whole word, any case. */
static int has_word(const char *sql, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = sql; *p; p++) {
		if (p > sql && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		size_t i = 0;
		while (i < n && p[i] && tolower((unsigned char)p[i]) == word[i])
			i++;
		if (i == n && !isalnum((unsigned char)p[n]) && p[n] != '_')
			return 1;
	}
	return 0;
}

int kn_store_sql_replayable(const char *sql)
{
	/* what may change anything, or hold anything beyond the statement (locks, notifications) */
	static const char *const writes[] = {"insert", "update", "delete", "merge", "truncate", "nextval",
	                                     "setval", "pg_notify", "set_config", "kn_owner_lock",
	                                     "pg_advisory_lock", "pg_try_advisory_lock",
	                                     "pg_advisory_xact_lock", "pg_terminate_backend", "listen",
	                                     "notify", "copy", "create", "drop", "alter", NULL};
	while (*sql == ' ' || *sql == '\t' || *sql == '\n' || *sql == '(')
		sql++;
	if (strncmp(sql, "BEGIN", 5) == 0 && !sql[5])
		return 1; /* nothing happened yet */
	if (strncmp(sql, "SELECT", 6) != 0 && strncmp(sql, "WITH", 4) != 0)
		return 0;
	for (size_t i = 0; writes[i]; i++)
		if (has_word(sql, writes[i]))
			return 0;
	return 1;
}

int kn_store_reopen_before(kn_store *st, kn_err *err)
{
	if (PQstatus(st->conn) == CONNECTION_OK && !st->lost)
		return 0;
	if (st->in_tx) /* the transaction is gone: its caller rolls back */
		return kn_err_set(err, KN_EIO, "database connection lost");
	return kn_store_reset(st, err);
}

int kn_store_reopen_after(kn_store *st, const char *sql, int idempotent)
{
	if (st->in_tx || !(idempotent || kn_store_sql_replayable(sql)))
		return 0;
	return kn_store_reset(st, NULL) == 0;
}

unsigned long kn_store_session(const kn_store *st)
{
	return st->session;
}
