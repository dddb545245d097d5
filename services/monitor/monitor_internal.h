/* monitor_internal.h — what monitor.c and monitor_verdict.c share: the monitor's state. */
#ifndef KEYNODE_MONITOR_INTERNAL_H
#define KEYNODE_MONITOR_INTERNAL_H

#include "canary.h"
#include "dialog.h"
#include "frames.h"
#include "history.h"
#include "monitor.h"
#include "page_check.h"
#include "requests.h"
#include "run_phase.h"
#include "unreachable.h"
#include "websockets.h"

struct tab {
	struct tab *next;
	char *session;
	char *target_id;
	char id[16];        /* "T1", "T2", … */
	char world[40];
	char binding[40];
	int ctx_id;         /* our isolated world's context in the main frame, 0 unknown */
	char *url;
	int popup_first;    /* opened by another tab: its first navigation is a popup */
	char *req_reason;   /* pending Page.frameRequestedNavigation reason */
	char *started_type; /* pending Page.frameStartedNavigating navigationType */
	kn_history history;
	kn_dialog dialog;        /* a JavaScript dialog open in the tab (dialog.c) */
	char *info_url;          /* URL from Target.targetInfoChanged not yet seen as a navigation */
	int synthetic;           /* t->url came from a missed navigation: its late event is a duplicate */
	kn_cdp_timer *info_timer;
	kn_doc_failure doc_failure; /* the tab's last failed Document load (unreachable.c) */
	kn_monitor *m;
};

struct kn_monitor {
	kn_cdp_loop *loop;
	kn_cdp *cdp;
	kn_monitor_opts o;
	kn_eval *eval;
	struct tab *tabs;
	int next_tab;
	double start;
	double last_event;
	unsigned long long events;
	kn_run_end end;     /* the run's end: phase and reason, changed only by kn_run_end_set */
	int flush_pending;  /* recorder flushes in flight (FLUSHING) */
	kn_cdp_timer *tick;
	kn_cdp_timer *flush_deadline;
	kn_page_checks *checks; /* page checks run when the run ends (page_check.c) */
	kn_page_checks *buy_read; /* purchase read at the buy click; the end waits for it (PURCHASE) */
	char last_tab[16];      /* tab of the last event with one: where `url: last` reads */
	/* ready: auto-attach answered and every tab attached until then has its recorder installed */
	int autoattach_done, setup_pending, ready;
	kn_frames *frames;      /* iframe targets, world contexts and frame paths (frames.c) */
	double wall_start, last_t; /* epoch seconds at start; the last event's t (t never goes back) */
	char *newtab_href;         /* a trusted modifier/middle click on this link at newtab_at */
	double newtab_at;
	kn_cdp_timer *verdict_timer; /* the bound of the wait for the judge's verdicts (VERDICTS) */
	kn_requests *requests;     /* requests sent and the guard (requests.c) */
	kn_redact redact;          /* opts.redact's rules, plus the password inputs' names typed into */
	char **password_names;     /* (redact.names: learned from the recorder's masked type events) */
	int end_on_guard;          /* a held request or WebSocket message ends the run */
	kn_websockets *websockets; /* WebSocket messages and their guard (websockets.c) */
	kn_canary *canary;         /* the guard's canary (canary.h); NULL without guard rules */
	int canary_started, canary_held; /* it was sent; it passed: on_ready may come */
	char *end_detail;          /* kn_monitor_end_detail */
};

/* monitor.c: the run ends for why (progress, on_end) — unless verdicts are awaited; while they
 * are, the reason the wait began with stands. */
void kn_monitor_end(kn_monitor *m, kn_end why);

/* monitor_canary.c: the guard's canary for a run with guard rules (m->canary; NULL without),
 * made before the requests are set up (its rule is theirs); and its outcome: held, the run may
 * become ready (check_ready); not held, the run ends as an error, "guard not active". */
int kn_monitor_canary_new(kn_monitor *m, kn_err *err);
void kn_monitor_canary_done(void *ud, int held, const char *detail);
/* monitor.c: a page target attached (sid, its targetInfo), as on_event takes one: a tab of the
 * run, or let run when it is another context's, the page checks' or the run is over. */
void kn_monitor_attach_page(kn_monitor *m, const char *sid, json_t *info);
/* monitor.c: on_ready once every tab is attached and the canary passed. */
void kn_monitor_check_ready(kn_monitor *m);

/* monitor_verdict.c: 1 when the end must wait for the judge's verdicts (phase VERDICTS, a timer of
 * opts.verdict_wait_ms started; kn_monitor_end is called again when they came or it fired),
 * 0 when the run may end now. */
int kn_monitor_verdicts_wait(kn_monitor *m, kn_end why);

#endif
