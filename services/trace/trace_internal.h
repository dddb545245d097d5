/* trace_internal.h — what trace.c (steps, evidence, index), trace_capture.c (the probe, console
 * and network) and trace_frames.c (screenshots from the screencast) share. Not for other modules. */
#ifndef KEYNODE_TRACE_INTERNAL_H
#define KEYNODE_TRACE_INTERNAL_H

#include "keynode/clock.h"
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
	int probe_step;      /* the last step probed here, and the document it saw (doc then) */
	unsigned probe_doc;
	int probe_loading;   /* that probe was sent while the document was still loading */
	/* the screencast (trace_frames.c) */
	json_t *frame;       /* the latest frame: base64 JPEG (the event's string); NULL none yet */
	double frame_at;     /* when it arrived (monotonic seconds) */
	unsigned frame_doc;  /* doc then */
	unsigned doc;        /* main-frame documents committed so far */
	int loading;         /* the main frame is loading */
	double loaded_at;    /* when its last load ended; 0 none */
	int cast_w, cast_h;  /* the viewport the frames are scaled for; 0 not known yet */
	struct kn_trace_wait *waits; /* steps waiting for their screenshot, oldest first */
};

/* A probe in flight (the CDP reply's ud). t is NULL once the trace is gone. */
struct kn_trace_pending {
	struct kn_trace_pending *next, *prev;
	kn_trace *t;
	int step;
	struct kn_trace_tab *tab;
	int ctx_id; /* the context a probe was sent to: 0, the page's main world */
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
	struct kn_trace_tab *tabs;
	struct kn_trace_pending *pending;
};

/* Start the step's captures (probe: title, element box, DOM excerpt, selectors; screenshot). */
void kn_trace_capture_step(kn_trace *t, kn_cdp *c, const kn_event *ev, json_t *step, int n);

/* Step n (NULL when there is none). Borrowed. */
json_t *kn_trace_step(kn_trace *t, int n);

/* ---- the screencast (trace_frames.c) ---- */
/* Start tab's screencast (at attach). */
void kn_trace_frames_start(kn_trace *t, kn_cdp *c, struct kn_trace_tab *tab);
/* Step n came on tab: it waits for its screenshot (earlier steps of the tab may take theirs). */
void kn_trace_frames_step(kn_trace *t, struct kn_trace_tab *tab, int n);
/* A CDP event of tab: Page.screencastFrame (acknowledged here), the main frame's loads and
 * documents. Others are ignored. params borrowed. */
void kn_trace_frames_event(kn_trace *t, kn_cdp *c, struct kn_trace_tab *tab, const char *method,
                           json_t *params);
/* 1 while a step waits for a frame and its moment has not come yet. */
int kn_trace_frames_waiting(const kn_trace *t);
/* The run ended: every waiting step takes its tab's latest frame. */
void kn_trace_frames_finish(kn_trace *t);
/* Free tab's frame and waiting steps (not tab). */
void kn_trace_frames_free_tab(struct kn_trace_tab *tab);

/* Remove a trace folder: its shots, index.json and the folders (nothing else is touched). */
void kn_trace_remove(const char *dir);

/* s cut to max bytes at a character boundary with "…"; JSON null for NULL. New reference. */
json_t *kn_trace_text(const char *s, size_t max);

#endif
