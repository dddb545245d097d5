/* relay.h — the live feed of runs across serves (README "Several serves").
 *
 * Every stream message of a run this serve runs (or ends by crash recovery) is also sent as a
 * NOTIFY keynode_stream payload (services/http/stream_relay.h) by a thread of its own
 * (kn_store_notifier); every serve LISTENs on that channel (kn_store_listener) and publishes the
 * messages of other serves to its own /api/stream subscribers, so `/api/stream?run=ID` shows a
 * run whichever serve the websocket reached. Every alert recorded in the database — by a worker (a
 * task turned broken), this serve or another — reaches /api/stream the same way (LISTEN
 * keynode_alerts), so every serve's subscribers see every alert once. */
#ifndef KEYNODE_RUNS_RELAY_H
#define KEYNODE_RUNS_RELAY_H

#include "keynode/error.h"
#include "stream.h"

#define KN_RELAY_CHANNEL "keynode_stream"
#define KN_ALERTS_CHANNEL "keynode_alerts" /* the store's NOTIFY of each recorded alert (store_alerts.c) */

typedef struct kn_runs_relay kn_runs_relay;

/* Start the sender and the listener on the database conninfo; me is this serve's owner id
 * (copied), stream (borrowed, outlives the relay) gets the other serves' messages. */
int kn_runs_relay_new(kn_runs_relay **out, const char *conninfo, const char *me, kn_stream *stream,
                      kn_err *err);
/* Relay msg (a stream message of run, JSON text) to the other serves; never waits. A message
 * too large for a NOTIFY goes without its "event", "result" and "verdict" members and with
 * "truncated": true (read them with GET /api/runs/ID). Any thread; r NULL: nothing. */
void kn_runs_relay_send(kn_runs_relay *r, const char *run, const char *msg);
/* Stop both threads (what is queued is sent first) and free. */
void kn_runs_relay_free(kn_runs_relay *r);

#endif
