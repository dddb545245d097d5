/* softpage.h — what the page shows is evidence (pure C, no browser): does a page show a not-found
 * or error state (a soft 404: a 200 with the site's shell saying "Sorry, we couldn't find it"), and
 * did a step's own-site data requests fail where its recording's did not. The replayer (replay.c)
 * feeds it what the page and the tab's Network events said; the recorder writes the baseline
 * (`after: {error_page, failed_requests}`, workflow.h). services/replay/README.md "Page errors". */
#ifndef KEYNODE_REPLAY_SOFTPAGE_H
#define KEYNODE_REPLAY_SOFTPAGE_H

#include <stddef.h>

#include "keynode/task.h"

/* What the page shows (page_js.c `shows`): its title, its visible main headings (h1, h2,
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

/* 1 when url's path (no scheme, host, query or fragment) is one of the space-separated paths of
 * list. */
int kn_softpage_path_listed(const char *list, const char *url);

#endif
