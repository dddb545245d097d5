/* live.h — serve's side of the live view (services/live/README.md): between the viewers of
 * /api/live (server_ws.c) and the processes that hold the watched pages (services/live/live_hub.h),
 * over PostgreSQL NOTIFY. While a run has viewers here it sends "watch RUN" every 2 s on
 * KN_LIVE_DOWN; it forwards their takeovers and inputs; from KN_LIVE_UP it publishes each page's
 * state ({"type":"live"}) to /api/stream and /api/live, and reassembles the frame pieces of the runs
 * it has viewers for into {"type":"frame"} messages for /api/live. */
#ifndef KEYNODE_RUNS_LIVE_H
#define KEYNODE_RUNS_LIVE_H

#include "keynode/error.h"
#include "live_wire.h"
#include "stream.h"

typedef struct kn_runs_live kn_runs_live;

/* stream: /api/stream's; live: /api/live's. *out the caller's. */
int kn_runs_live_new(kn_runs_live **out, const char *conninfo, kn_stream *stream, kn_stream *live, kn_err *err);
void kn_runs_live_free(kn_runs_live *l);
/* kn_server_opts.live_in (server thread). */
void kn_runs_live_in(kn_runs_live *l, const char *run, int what, const kn_live_input *in, const char *client);
/* kn_server_opts.live_can_take (server thread): 0 when a take on run may go down (the last state
 * its holder sent says it is takeable), else 409 and why (kn_live_take_refusal's words). */
int kn_runs_live_can_take(kn_runs_live *l, const char *run, char *why, size_t cap);
/* Every ~100 ms (server thread): the watch heartbeats. */
void kn_runs_live_tick(kn_runs_live *l);

#endif
