/* softpage.h — what the page shows is evidence (pure C, no browser): does a page show a not-found
 * or error state (a soft 404: a 200 with the site's shell saying "Sorry, we couldn't find it"), and
 * did a step's own-site data requests fail where its recording's did not. The replayer (replay.c)
 * feeds it what the page and the tab's Network events said; the recorder writes the baseline
 * (`after: {error_page, failed_requests}`, workflow.h). services/replay/README.md "Page errors". */
#ifndef KEYNODE_REPLAY_SOFTPAGE_H
#define KEYNODE_REPLAY_SOFTPAGE_H

#include <stddef.h>

#include <jansson.h>

#include "keynode/task.h"

/* What the page shows (services/recorder/shows.js `knShows`): its title, its visible main headings (h1, h2,
 * role=heading level 1–2), its visible alerts (role=alert, aria-live=assertive) and the start of its
 * visible body text with that text's whole length. Any may be NULL. */
typedef struct kn_softpage_view {
	const char *title, *headings, *alerts, *text;
	size_t text_len;
} kn_softpage_view;

/* 1 when the view says not found or error: a phrase of the list (a few languages, softpage.c) in
 * the title, a heading or an alert — or in the body text when that text is short (≤ 400
 * characters: the page is only the message). The phrase matched (lower case) into phrase (cap
 * bytes; may be NULL). A robots noindex, a status line or a search's "no results" are not read. */
int kn_softpage_shows_error(const kn_softpage_view *v, char *phrase, size_t cap);
/* The same for knShows's object as the page gave it (title, headings, alerts, text, len; a field of
 * another type counts as absent; v not an object: 0): the replay's judgement and the recorder's
 * baseline read it alike. */
int kn_softpage_shows_error_json(json_t *v, char *phrase, size_t cap);

/* One of a step's own-site data requests (fetch, XHR) that failed: status ≥ 400, or 0 for a
 * network failure. */
typedef struct kn_softpage_request {
	const char *url;
	int status;
} kn_softpage_request;

/* The step's verdict against its recording: 0 the page says nothing new; 1 it shows an error the
 * recording did not have — *culprit the index in failed of the request that counts (-1: only the
 * not-found state). With a baseline (st->error_page set) a failed request counts when its path is
 * not among st->failed_requests, the not-found state when the recording had none. Without one (an
 * older recording, an inline task step) only both at once count: the page shows not found and a data
 * request answered 404 or 410 — nothing else says a removal that surely. */
int kn_softpage_judge(const kn_step *st, int shows_error, const kn_softpage_request *failed, size_t n,
                      int *culprit);

/* 1 when a step without a baseline (st->error_page 0) has one of the two signals of a removal and the
 * other may still come, so its judgement should wait a little: a 404/410 answered and the app not
 * showing its not-found words yet (it renders them after the answer), or the words shown while
 * script requests are still unanswered (scripts_pending of them). 0 otherwise: with a baseline, or
 * with neither signal (a normal page is judged at once). */
int kn_softpage_undecided(const kn_step *st, int shows_error, const kn_softpage_request *failed, size_t n,
                          size_t scripts_pending);

/* 1 when url's path (no scheme, host, query or fragment) is one of the space-separated paths of
 * list. */
int kn_softpage_path_listed(const char *list, const char *url);

/* A tab's script requests (fetch, XHR) that failed — status >= 400, or 0 for a network failure
 * (cancelled, blocked by the client and net::ERR_ABORTED aside: the page left or aborted it) —
 * the newest KN_SOFTPAGE_FAILED_KEEP kept, from its Network events; and the recent script requests'
 * URLs by id (a loadingFailed names only the id). Zeroed: empty. */
#define KN_SOFTPAGE_FAILED_KEEP 16
#define KN_SOFTPAGE_SCRIPTS_KEEP 32
typedef struct kn_softpage_failed {
	struct { char url[512]; int status; } failed[KN_SOFTPAGE_FAILED_KEEP];
	unsigned n_failed;          /* failures seen in all; the newest is failed[(n_failed - 1) % KEEP] */
	struct { char id[64]; char url[512]; } scripts[KN_SOFTPAGE_SCRIPTS_KEEP];
	unsigned n_scripts;
} kn_softpage_failed;

/* A Network event of the tab (requestWillBeSent, responseReceived, loadingFailed; params borrowed):
 * a script request's URL noted, its failure kept in f. Others are ignored. */
void kn_softpage_failed_note(kn_softpage_failed *f, const char *method, json_t *params);

/* The failures of f since index since (a mark of n_failed; one past n_failed, a tab switched:
 * from 0) on task's own sites (kn_task_own_site), into out (up to KN_SOFTPAGE_FAILED_KEEP,
 * borrowed from f). Returns how many. */
size_t kn_softpage_failed_since(const kn_softpage_failed *f, unsigned since, const kn_task *task,
                                kn_softpage_request *out);

/* The baseline's failed_requests from the URLs of a recorded step's failed own-site data
 * requests: their paths, each once, space-separated, at most KN_SOFTPAGE_PATHS_MAX bytes (a path
 * past it is left out). Caller frees; NULL when there is none (or out of memory). */
#define KN_SOFTPAGE_PATHS_MAX 2000
char *kn_softpage_paths(const char *const *urls, size_t n);

#endif
