/* frames.h — the frames of the agent's tabs: out-of-process iframe targets attached and
 * given the recorder like tabs, our isolated world's context in every frame, and each frame's path
 * (the selectors of the <iframe> elements from the top document down). Loop thread only. */
#ifndef KEYNODE_MONITOR_FRAMES_H
#define KEYNODE_MONITOR_FRAMES_H

#include <stddef.h>

#include <jansson.h>

#include "cdp.h"

#define KN_FRAMES_MAX_DEPTH 16

typedef struct kn_frames kn_frames;

int kn_frames_new(kn_frames **out);
/* NULL is a no-op. Free after the connection is closed (pending replies hold f). */
void kn_frames_free(kn_frames *f);

/* Ask the browser to attach, paused, every child target of session (OOPIFs, workers): sent on
 * every tab and iframe session before Runtime.runIfWaitingForDebugger. */
void kn_frames_autoattach(kn_cdp *c, const char *session);

/* The child frames session's document has already (a page loaded before we attached, whose
 * Page.frameAttached events we never saw): recorded as if attached now (Page.getFrameTree). */
void kn_frames_scan(kn_frames *f, kn_cdp *c, const char *session);

/* An iframe target (Target.attachedToTarget, type "iframe") attached as session, announced on
 * parent_session, below the tab whose session is tab_session: install the recorder source (binding
 * and world of that tab) and let it run. */
void kn_frames_attach(kn_frames *f, kn_cdp *c, const char *session, const char *parent_session,
                      const char *tab_session, json_t *info, const char *world,
                      const char *binding, const char *src);

/* The tab session an iframe session belongs to, or NULL when session is no iframe of ours. */
const char *kn_frames_tab_of(const kn_frames *f, const char *session);

/* A session went away: forget it, and every iframe target and context under it. */
void kn_frames_detach(kn_frames *f, const char *session);

/* Feed a session event (frame attach/detach, context create/destroy/clear). world/binding are the
 * session's tab's. */
void kn_frames_event(kn_frames *f, kn_cdp *c, const char *session, const char *method,
                     json_t *params, const char *world, const char *binding);

/* The frame path of the context ctx_id of session (one of our world's): *n selectors, top first,
 * borrowed until the next kn_frames call; *n == 0 for a top-level document. A selector not yet
 * known is "iframe". */
void kn_frames_path(const kn_frames *f, const char *session, long long ctx_id,
                    const char *out[KN_FRAMES_MAX_DEPTH], size_t *n);

/* One of our world's contexts in session (an iframe's), 0 when none is known yet. */
long long kn_frames_ctx_of(const kn_frames *f, const char *session);

/* Ask the recorder of every child frame to flush what it holds (Runtime.evaluate); cb(ud) follows
 * for each request sent. Returns how many were sent. */
int kn_frames_flush(kn_frames *f, kn_cdp *c, kn_cdp_reply_fn cb, void *ud);

#endif
