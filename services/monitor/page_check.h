/* page_check.h — the monitor's page checks (key nodes with target `page`), run when a run ends.
 * Internal to services/monitor. */
#ifndef KEYNODE_PAGE_CHECK_H
#define KEYNODE_PAGE_CHECK_H

#include "cdp.h"
#include "keynode/eval.h"

typedef struct kn_page_checks kn_page_checks;

/* Where the agent was last: its tab's CDP session and main frame id (both may be NULL). */
typedef struct kn_page_last {
	const char *session;
	const char *frame_id;
} kn_page_last;

/* 1 when the task has at least one page check. */
int kn_page_checks_needed(const kn_task *task);

/* Run every page check of ev's task in turn over cdp and record each result in ev
 * (kn_eval_page_result): `last` reads the agent's page in a fresh isolated world; a URL opens a
 * background tab, waits for its load (at most 10 s), reads in an isolated world and closes the
 * tab. done(ud) is called exactly once, from a reply callback or from this call, when every result
 * is recorded; *out stays the caller's until then and after (kn_page_checks_free). last's strings
 * are copied. */
int kn_page_checks_start(kn_page_checks **out, kn_cdp *cdp, kn_eval *ev, const kn_page_last *last,
                         void (*done)(void *ud), void *ud);

/* The same for the purchase read alone (purchase.h), on `last`: the monitor starts it at the
 * purchase action (the buy click); the end-of-run checks then skip it. */
int kn_page_checks_start_purchase(kn_page_checks **out, kn_cdp *cdp, kn_eval *ev,
                                  const kn_page_last *last, void (*done)(void *ud), void *ud);

/* 1 while checks are in flight (the monitor ignores the tabs they open). */
int kn_page_checks_running(const kn_page_checks *pc);

/* The connection is gone: checks not yet run record "browser disconnected". */
void kn_page_checks_disconnect(kn_page_checks *pc);

/* Free; call only after done ran or after the connection was closed (its pending replies fail
 * and finish the checks first). NULL is a no-op. */
void kn_page_checks_free(kn_page_checks *pc);

#endif
