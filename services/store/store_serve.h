/* store_serve.h — what the `keynode serve` processes on one database tell each other
 * (schemas/sql/120_serve_instances.sql): where each live serve takes calls, which serve a
 * run lives on, and a NOTIFY channel for the live feed. The rest of the store is store.h. */
#ifndef KEYNODE_STORE_SERVE_H
#define KEYNODE_STORE_SERVE_H

#include <stddef.h>

#include "store.h"

#define KN_STORE_OWNER_MAX 160   /* bytes of an owner id, with its NUL */
#define KN_STORE_ADDRESS_MAX 300 /* bytes of an advertised HOST:PORT, with its NUL */
#define KN_STORE_NOTIFY_MAX 7999 /* bytes of a NOTIFY payload (PostgreSQL's limit, 8000 with NUL) */

/* This serve's row: owner takes calls at address (HOST:PORT); an existing row is replaced. */
int kn_store_serve_register(kn_store *st, const char *owner, const char *address, kn_err *err);
/* Delete owner's row (a clean stop). */
int kn_store_serve_unregister(kn_store *st, const char *owner, kn_err *err);
/* Delete the rows of serves other than me whose owner lock could be taken (the process is gone;
 * the locks are released again), among owners (a JSON array of owner ids; NULL: any). *n (may
 * be NULL) how many. */
int kn_store_serve_forget_dead(kn_store *st, const char *me, const char *owners, size_t *n,
                               kn_err *err);
/* The owners other than me, of live runs or serve rows, whose lock can be taken right now (taken
 * and released again) as a JSON array text into *out (the caller's). */
int kn_store_dead_owners(kn_store *st, const char *me, char **out, kn_err *err);

/* Where a run lives: ended 1 when it ended; owner "" when none recorded; address the owner's
 * serve_instances address, "" when it has no row (not a serve, or gone). */
typedef struct kn_store_run_home {
	int ended;
	char owner[KN_STORE_OWNER_MAX];
	char address[KN_STORE_ADDRESS_MAX];
} kn_store_run_home;
/* KN_ENOTFOUND when there is no such run. */
int kn_store_run_home_get(kn_store *st, const char *run_id, kn_store_run_home *out, kn_err *err);

/* A thread that sends NOTIFY channel, payload over a connection of its own, in order, every
 * payload queued meanwhile in one statement (one round trip). Sending never waits: past max
 * queued payloads (0 → 4096) a payload is dropped (KN_ELIMIT, counted in *dropped of
 * kn_store_notifier_free's log line); while the database is unreachable queued payloads are
 * dropped (a live feed has no use for old news). *out the caller's. */
typedef struct kn_store_notifier kn_store_notifier;
int kn_store_notifier_new(kn_store_notifier **out, const char *conninfo, const char *channel,
                          size_t max, kn_err *err);
/* Queue payload (copied; ≤ KN_STORE_NOTIFY_MAX bytes, else KN_EINVAL). Any thread. */
int kn_store_notifier_send(kn_store_notifier *n, const char *payload, kn_err *err);
/* Stop the thread (what is still queued is sent first, at most ~1 s) and free. */
void kn_store_notifier_free(kn_store_notifier *n);

/* kn_store_listener_new (store.h) that also hands each notification's payload to
 * on_payload(ud, payload) on the listener's thread, in the order they came. on_change may be
 * NULL here. */
int kn_store_listener_new_payload(kn_store_listener **out, const char *conninfo, const char *channel,
                                  void (*on_change)(void *ud, int up),
                                  void (*on_payload)(void *ud, const char *payload), void *ud,
                                  kn_err *err);

#endif
