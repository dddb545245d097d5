/* trace_internal.h — what trace.c (steps, evidence, index) and trace_capture.c (CDP captures)
 * share. Not for other modules. */
#ifndef KEYNODE_TRACE_INTERNAL_H
#define KEYNODE_TRACE_INTERNAL_H

#include "trace.h"

#define KN_TRACE_MAX_STEPS 2000     /* steps past this are folded into the last one */
#define KN_TRACE_MAX_EVIDENCE 2000  /* checks kept per event */
#define KN_TRACE_MAX_LIST 50        /* console / network entries per step */
#define KN_TRACE_MAX_REQUESTS 4096  /* request URLs remembered for a failure's report */
#define KN_TRACE_MAX_SHOT (8u * 1024u * 1024u) /* base64 bytes of one screenshot */

/* A tab the monitor attached. */
struct kn_trace_tab {
	struct kn_trace_tab *next;
	char *id, *session, *frame_id, *world;
	int ctx_id;          /* the monitor's isolated world in the main frame; 0 unknown */
	int status;          /* the main document's last HTTP status; 0 unknown */
	int vw, vh;          /* viewport from the last probe; 0 unknown */
};

/* A capture in flight (the CDP reply's ud). t is NULL once the trace is gone. */
struct kn_trace_pending {
	struct kn_trace_pending *next, *prev;
	kn_trace *t;
	int step;
	int shot;            /* 1 screenshot, 0 probe */
	unsigned gen;        /* t->shot_gen when sent: a reply of an older generation is ignored */
	struct kn_trace_tab *tab;
};

struct kn_trace {
	kn_trace_opts o;
	char *dir, *run_id, *answer, *verdict;
	char started[KN_TIME_MAX];
	double t0;
	json_t *steps;       /* the index's steps */
	json_t *evidence;    /* checks of the event being evaluated, until kn_trace_event */
	json_t *requests;    /* requestId → URL, for loadingFailed */
	json_t *selectors;   /* [[node id, selector]…]: element key nodes the probe resolves */
	int n_steps, shots, skipped, finished;
	long long bytes;     /* screenshot bytes written */
	int shot_in_flight;  /* the step whose screenshot is being taken, 0 none */
	double shot_started; /* when (monotonic seconds) */
	unsigned shot_gen;   /* bumped per screenshot started or given up */
	struct kn_trace_tab *tabs;
	struct kn_trace_pending *pending;
};

/* Start the step's captures (probe: title, element box, DOM excerpt, selectors; screenshot). */
void kn_trace_capture_step(kn_trace *t, kn_cdp *c, const kn_event *ev, json_t *step, int n);

/* Remove a trace folder: its shots, index.json and the folders (nothing else is touched). */
void kn_trace_remove(const char *dir);

/* s cut to max bytes at a character boundary with "…"; JSON null for NULL. New reference. */
json_t *kn_trace_text(const char *s, size_t max);

#endif
