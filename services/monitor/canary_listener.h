/* canary_listener.h — the canary's endpoint: a tiny HTTP listener keynode opens on 127.0.0.1 (a
 * port the system picks) that counts the requests arriving for one path prefix, and the WebSocket
 * messages sent on a socket opened at the prefix's `ws` path (the upgrade is answered 101 and is not
 * itself an arrival). A canary request or message the guard held never arrives; one that arrives
 * proves the guard let it through (canary.h). It serves nothing else: every other connection gets
 * "204 No Content" and is closed. Polled from the monitor's loop (no thread): connections are
 * accepted and read without blocking. */
#ifndef KEYNODE_MONITOR_CANARY_LISTENER_H
#define KEYNODE_MONITOR_CANARY_LISTENER_H

#include "keynode/error.h"

typedef struct kn_canary_listener kn_canary_listener;

/* Listen on 127.0.0.1:0 for requests whose path starts with prefix (copied). *out is the caller's
 * (kn_canary_listener_free). KN_EIO with err when no socket could be opened. */
int kn_canary_listener_new(kn_canary_listener **out, const char *prefix, kn_err *err);
/* The port it listens on. */
int kn_canary_listener_port(const kn_canary_listener *l);
/* Take what has come in since the last call; return how many requests for the prefix and WebSocket
 * messages arrived in all. Never blocks. */
int kn_canary_listener_poll(kn_canary_listener *l);
/* Of those, the WebSocket messages. NULL: 0. */
int kn_canary_listener_ws_messages(const kn_canary_listener *l);
/* Close the socket (and any connection half read). NULL is a no-op. */
void kn_canary_listener_free(kn_canary_listener *l);

#endif
