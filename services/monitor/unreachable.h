/* unreachable.h — "unreachable is not failed": a tab's main document that could not be
 * loaded from the task's own site. The monitor enables Network events on every tab's session (no
 * bodies buffered) to follow the tab's top-level Document requests: Network.requestWillBeSent
 * (type Document, the tab's main frame) names the URL, Network.loadingFailed the net error. A net
 * error that means "the site did not answer" (keynode/site.h kn_net_error_unreachable) on a URL
 * of the task's own sites (kn_task_own_site) ends the run: an error with reason unreachable, never
 * the agent's failure; a failure on any other host stays the agent's business. The decision is
 * made when the load fails, before Chromium's error page commits (an agent whose goto failed may
 * quit at once). When the error page commits (Page.frameNavigated to chrome-error://…, with
 * unreachableUrl; its loaderId is the failed request's id) it decides too if the request was not
 * seen, and the failed URL is remembered: Chromium then reports it as the target's URL, but it
 * never loaded, so it is no navigation to record. */
#ifndef KEYNODE_MONITOR_UNREACHABLE_H
#define KEYNODE_MONITOR_UNREACHABLE_H

#include <jansson.h>

#include "keynode/task.h"

/* A tab's main-document loads: the last requested, the last failed, the error page shown. */
typedef struct kn_doc_failure {
	char *req_id, *req_url; /* the last top-level Document request */
	char *fail_id, *error;  /* the last failed Document request, its net error ("net::ERR_…") */
	char *failed_url;       /* req_url when that request failed, else NULL */
	char *error_url;        /* the URL whose error page the tab shows now, NULL: none */
	char *error_loader;     /* that error page's loaderId */
} kn_doc_failure;

/* Network.requestWillBeSent on a tab's session whose main frame is main_frame (the target id):
 * a Document request of that frame is kept (a redirect updates its URL). */
void kn_doc_failure_request(kn_doc_failure *f, json_t *params, const char *main_frame);

/* Network.loadingFailed on a tab's session: a Document request that failed (not cancelled). */
void kn_doc_failure_note(kn_doc_failure *f, json_t *params);

/* Page.frameNavigated of the tab's top-level frame (its "frame" object). */
void kn_doc_failure_commit(kn_doc_failure *f, json_t *frame);

/* 1 when the tab's main document failed to load from a URL of task's own sites with an
 * unreachable net error; *out is then the result's "unreachable" evidence as JSON text ({url,
 * error, step}; the caller's). 0 otherwise. step: the steps evaluated so far. */
int kn_doc_failure_unreachable(char **out, const kn_doc_failure *f, const kn_task *task, int step);

void kn_doc_failure_clear(kn_doc_failure *f);

#endif
