/* live_hub.h — the holder side of the live view (services/live/README.md): a process
 * that drives a page over CDP (a worker's replay) shows it to the dashboard's viewers and lets a
 * person with the token take it over, with nothing but PostgreSQL between it and the serves.
 *
 * It LISTENs on KN_LIVE_DOWN for "watch" heartbeats, takeovers and inputs about the run it holds,
 * and NOTIFYs on KN_LIVE_UP the page's state (each step, every 2 s) and, only while someone
 * watches, its screencast frames in pieces. No viewer: no second CDP connection and no
 * Page.startScreencast at all. Any number of pages (serve's watched runs); one replay or agent
 * attempt at a time through kn_live_hub_watch / kn_live_hub_attempt_watch (a worker runs one job at
 * a time). */
#ifndef KEYNODE_LIVE_HUB_H
#define KEYNODE_LIVE_HUB_H

#include "keynode/error.h"
#include "replay.h"

typedef struct kn_live_hub_opts {
	const char *conninfo;  /* required */
	int fps;               /* frames per second at most; 0 → 2 */
	int max_width;         /* Page.startScreencast maxWidth; 0 → 800 */
	int quality;           /* JPEG quality; 0 → 60 */
	int takeover_idle_s;   /* a takeover without input this long is handed back; 0 → 120 */
	int watch_lapse_ms;    /* no "watch" heartbeat this long: the screencast stops; 0 → 6000 */
} kn_live_hub_opts;

typedef struct kn_live_hub kn_live_hub;
typedef struct kn_live_src kn_live_src;

/* *out the caller's (kn_live_hub_free, before the CDP loop it was used with is freed). */
int kn_live_hub_new(kn_live_hub **out, const kn_live_hub_opts *opts, kn_err *err);
void kn_live_hub_free(kn_live_hub *h);
/* Show run_id's page (loop thread, the loop that serves the browser at ws_url): target_id the tab
 * (NULL: the browser's first page, found when first watched); can_take 0: watched only (a run an agent
 * drives: a take is ignored). The page's state is sent up at once and every 2 s. NULL when it cannot
 * be (a bad run id, memory). The source is h's until kn_live_hub_close. */
kn_live_src *kn_live_hub_open(kn_live_hub *h, kn_cdp_loop *loop, const char *ws_url, const char *target_id,
                              const char *run_id, const kn_task *task, int can_take);
/* Stop showing it (loop thread; "ended" is sent up, a takeover ends with reason why) and free it;
 * the takeovers as kn_replay_watch.end returns them. NULL: a no-op. */
json_t *kn_live_hub_close(kn_live_src *src, const char *why);
/* The watch to give kn_validate_opts.watch (borrowed from h): one replay at a time. */
const kn_replay_watch *kn_live_hub_watch(kn_live_hub *h);
/* The watch to give kn_attempt_opts.watch (services/runner/runner.h; borrowed from h): a worker's
 * agent attempt, shown like a replay (one replay or attempt at a time), takeable only while the
 * monitor says its page blocks (blocked.h); while taken the agent is paused and every event the
 * monitor records is the person's ("human": true). */
struct kn_attempt_watch;
const struct kn_attempt_watch *kn_live_hub_attempt_watch(kn_live_hub *h);
/* What each run cost is logged at its end: component=live msg="live view" run= screencasts= frames=
 * bytes= (base64, sent up) dropped= (frames over KN_LIVE_PIECES_MAX pieces) inputs= (dispatched). */


#endif
