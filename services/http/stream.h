/* stream.h — the subscribers of /api/stream and their bounded queues.
 *
 * Publishers (the runs registry on the CDP loop thread, the HTTP thread for external runs, the
 * alerts thread) hand over a JSON text; it is queued for every matching subscriber and the
 * server is woken to write it. Each queue is bounded (messages and bytes): a subscriber that
 * cannot keep up is marked dropped and its connection closed by the server — publishing never
 * waits on a client. Thread-safe; no lws here (server.c does the writing). */
#ifndef KEYNODE_HTTP_STREAM_H
#define KEYNODE_HTTP_STREAM_H

#include <stddef.h>

#include "keynode/error.h"

#define KN_STREAM_MAX_QUEUE 1024             /* messages per subscriber */
#define KN_STREAM_MAX_QUEUE_BYTES (4u << 20) /* bytes per subscriber */
#define KN_STREAM_MAX_SUBSCRIBERS 256
#define KN_STREAM_MAX_ANON 64                /* subscribers without a token, in all */
#define KN_STREAM_MAX_ANON_PER_CLIENT 16     /* … from one address */
#define KN_STREAM_MAX_PER_CLIENT 64          /* with a token, from one address */

typedef struct kn_stream kn_stream;
typedef struct kn_stream_sub kn_stream_sub;

/* wake(ud) is called (from the publishing thread, without the lock) after a message was queued;
 * the server uses lws_cancel_service. max_queue 0 → KN_STREAM_MAX_QUEUE. *out the caller's. */
int kn_stream_new(kn_stream **out, size_t max_queue, void (*wake)(void *ud), void *ud);
/* Frees every subscriber still registered. */
void kn_stream_free(kn_stream *s);

/* A new subscriber: run NULL for everything (all runs and alerts), else that run only (copied);
 * conn is the server's handle of the connection (opaque here, given back by
 * kn_stream_take_dropped). KN_ELIMIT past KN_STREAM_MAX_SUBSCRIBERS. *out belongs to s until
 * kn_stream_unsubscribe. */
int kn_stream_subscribe(kn_stream *s, const char *run, void *conn, kn_stream_sub **out,
                        kn_err *err);
/* The same with the limits that keep idle clients from taking every slot: client is the peer's
 * address (NULL: unknown, no per-client limit), authed 1 when it showed the token. KN_ELIMIT
 * with err saying which limit (KN_STREAM_MAX_ANON, _ANON_PER_CLIENT, _PER_CLIENT, _SUBSCRIBERS):
 * tokenless subscribers can never take the slots of token holders. */
int kn_stream_subscribe_from(kn_stream *s, const char *run, void *conn, const char *client,
                             int authed, kn_stream_sub **out, kn_err *err);
void kn_stream_unsubscribe(kn_stream *s, kn_stream_sub *sub);

/* Queue msg (JSON text, copied) for the subscribers of run; run NULL (alerts) reaches only the
 * unfiltered ones. Returns how many subscribers received it. */
int kn_stream_publish(kn_stream *s, const char *run, const char *msg);

/* The next message of sub (*out the caller's, free) and 1; 0 when none. *dropped is set to 1
 * when the subscriber overflowed: the server must close it. */
int kn_stream_pop(kn_stream *s, kn_stream_sub *sub, char **out, size_t *len, int *dropped);

size_t kn_stream_subscribers(kn_stream *s);

/* The connections of subscribers dropped since the last call (each reported once), at most cap
 * of them into conns; returns how many. A dropped client may not be writable at all (its socket
 * is full), so the server closes these from outside its write callback. */
size_t kn_stream_take_dropped(kn_stream *s, void **conns, size_t cap);

#endif
