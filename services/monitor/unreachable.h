/* unreachable.h — "unreachable is not failed" (issue 22): a tab's main document that could not be
 * loaded from the task's own site. The monitor enables Network events on every tab's session
 * (no bodies buffered) only to keep the last failed Document request of the tab (its id and the
 * net error: Network.loadingFailed); when the tab's top-level frame then commits Chromium's error
 * page (Page.frameNavigated to chrome-error://…, with unreachableUrl), that failure is the
 * navigation's (its loaderId is the request's id). A net error that means "the site did not
 * answer" (keynode/site.h kn_net_error_unreachable) on a URL of the task's own sites
 * (kn_task_own_site) is the run's end: an error with reason unreachable, never the agent's
 * failure. A failure on any other host stays the agent's business. */
#ifndef KEYNODE_MONITOR_UNREACHABLE_H
#define KEYNODE_MONITOR_UNREACHABLE_H

#include <jansson.h>

#include "keynode/task.h"

/* The last failed Document load of a tab. */
typedef struct kn_doc_failure {
	char *request_id;
	char *error;     /* "net::ERR_CONNECTION_REFUSED" */
	char *error_url; /* the URL whose error page the tab shows now, NULL: none */
} kn_doc_failure;

/* Network.loadingFailed on a tab's session: a Document request that failed (not cancelled) is kept
 * in *f, replacing the one before. */
void kn_doc_failure_note(kn_doc_failure *f, json_t *params);

/* Page.frameNavigated of a tab's top-level frame (its "frame" object): f->error_url becomes the
 * URL that failed when the frame is Chromium's error page, else NULL (Chromium then reports that
 * URL as the target's: it is no navigation that committed). When it is an error page for
 * a URL of task's own sites whose load failed with an unreachable net error, *out is the result's
 * "unreachable" evidence as JSON text ({url, error, step}; the caller's) and 1 is returned; 0
 * otherwise. step: the steps evaluated so far. */
int kn_doc_failure_unreachable(char **out, kn_doc_failure *f, json_t *frame, const kn_task *task,
                               int step);

void kn_doc_failure_clear(kn_doc_failure *f);

#endif
