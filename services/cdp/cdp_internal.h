/* cdp_internal.h — what the loop (cdp_loop.c) and the connections (cdp_client.c) share, private
 * to this folder: the loop structure, the one lws protocol callback. Nothing
 * outside services/cdp/ includes it. */
#ifndef KEYNODE_CDP_INTERNAL_H
#define KEYNODE_CDP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include <libwebsockets.h>

#include "cdp.h"

#define KN_CDP_PROTOCOL "kn-cdp"

typedef struct kn_cdp_post {
	struct kn_cdp_post *next;
	void (*fn)(void *ud);
	void *ud;
} kn_cdp_post;

struct kn_cdp_loop {
	struct lws_context *ctx;
	struct lws_protocols protocols[2];
	atomic_int stop;
	int depth;      /* > 0 while inside lws_service: no nested service */
	int destroying; /* kn_cdp_loop_free is closing everything */
	pthread_mutex_t mu;
	kn_cdp_post *post_head, *post_tail; /* under mu */
	kn_cdp *conns;                      /* every live connection */
	kn_cdp_timer *timers;               /* every timer not yet fired or cancelled */
};

/* The protocol callback of every connection (cdp_client.c); also handles the loop's wake-ups. */
int kn_cdp_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len);

/* Run the functions queued by kn_cdp_loop_post (loop thread, from the callback). */
void kn_cdp_loop_drain(kn_cdp_loop *loop);

/* Finish every connection of the loop with on_close(reason) (kn_cdp_loop_free). */
void kn_cdp_close_all(kn_cdp_loop *loop, const char *reason);

#endif
