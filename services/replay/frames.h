/* frames.h — replay steps inside iframes. A step's selector may cross frames the way the
 * recorder writes piercing selectors: `#card-frame >> #pay-now` — a part that names an <iframe> (or
 * <frame>) enters that frame's document; a part that names a shadow host enters its open shadow root.
 * A recorded event's frame_path and selector join into such a selector with " >> ". */
#ifndef KEYNODE_REPLAY_FRAMES_H
#define KEYNODE_REPLAY_FRAMES_H

#include <jansson.h>

#include "cdp.h"

#define KN_REPLAY_FRAME_DEPTH 8

typedef struct kn_replay_frame {
	int depth;                   /* frame hops; 0: the step acts in the top document */
	char *rest;                  /* the selector inside the innermost frame (owned); NULL when
	                              * neither a frame nor a shadow hop (the step runs as it is) */
	char *session;               /* where the innermost frame's document is evaluated (owned) */
	long long ctx;               /* its execution context there; 0: the session's main world */
	char *attached[KN_REPLAY_FRAME_DEPTH]; /* sessions attached here for out-of-process frames */
	struct {                     /* each hop: the <iframe>'s selector parts in its parent frame */
		char *session;
		long long ctx;
		json_t *parts;
	} hop[KN_REPLAY_FRAME_DEPTH];
} kn_replay_frame;

/* Follow selector's frame hops from the top document of session. Without any " >> " out->rest is
 * NULL and nothing else is set; with shadow hops only, depth is 0 and rest the whole chain (the page
 * functions resolve it). KN_ENOTFOUND when a hop's <iframe> is not there (yet). */
int kn_replay_frame_enter(kn_replay_frame *out, kn_cdp *c, const char *session,
                          const char *selector, kn_err *err);

/* kn_replay_frame_enter, retried every 100 ms for up to timeout_ms while a hop's frame is not there
 * yet (serving loop meanwhile). */
int kn_replay_frame_enter_wait(kn_replay_frame *out, kn_cdp_loop *loop, kn_cdp *c,
                               const char *session, const char *selector, int timeout_ms,
                               kn_err *err);

/* Call page function fn (replay_internal.h) in the innermost frame. Its selectors, chains
 * (`host >> inner`) included, go through query.js like everywhere in the page library. */
int kn_replay_frame_page_call(const kn_replay_frame *f, kn_cdp *c, const char *fn, json_t *params,
                              json_t **value, kn_err *err);

/* The innermost frame's viewport origin in top-level viewport coordinates (after the element was
 * scrolled into view): add it to a point found in the frame before dispatching Input events. */
int kn_replay_frame_offset(const kn_replay_frame *f, kn_cdp *c, double *dx, double *dy, kn_err *err);

/* Detach what enter attached and release everything; f is zeroed (depth 0). */
void kn_replay_frame_clear(kn_replay_frame *f, kn_cdp *c);

#endif
