/* event.h — trajectory events (docs/formats.md §2) and the JSONL reader/writer.
 *
 * A trajectory is a header line {"run","task","started"} then one event per line. Readers are
 * strict about shape (a malformed line is an error naming its line) and lenient about extra
 * fields (ignored, so later versions can add them). */
#ifndef KEYNODE_EVENT_H
#define KEYNODE_EVENT_H

#include <stddef.h>
#include <stdio.h>

#include "keynode/error.h"

typedef enum kn_event_type {
	KN_EV_NAVIGATE, KN_EV_CLICK, KN_EV_TYPE, KN_EV_SELECT, KN_EV_SUBMIT, KN_EV_PRESS,
	KN_EV_SCROLL, KN_EV_TAB_OPEN, KN_EV_TAB_CLOSE, KN_EV_ANSWER,
	KN_EV_HOVER, /* the pointer rested on an element and that revealed content (a step) */
	KN_EV_DIALOG, /* a JavaScript dialog closed (information, not a step) */
	KN_EV_DOWNLOAD, /* a download began (information, not a step: its click is the step) */
	KN_EV_DRAG,   /* an element dragged and dropped (a step; value = where it was dropped) */
	KN_EV_REQUEST, /* an HTTP request the page sent (information, not a step: it credits
	                * the step that caused it); the event's `request` says what was sent */
	KN_EV_WEBSOCKET, /* a WebSocket message a page sent (or, asked for, received): information,
	                  * not a step, it credits the step that caused it; the event's `request`
	                  * (websocket set) holds it, written as the event's "websocket" object */
	KN_EV__COUNT
} kn_event_type;

/* Why a navigation happened (a navigate event's `how`, docs/formats.md §2): a closed set, one name
 * each. The first four are the agent's own navigations (steps); the rest follow from the page. */
typedef enum kn_nav {
	KN_NAV_NONE = -1, /* no `how` */
	KN_NAV_GOTO, KN_NAV_BACK, KN_NAV_FORWARD, KN_NAV_RELOAD,
	KN_NAV_LINK, KN_NAV_FORM, KN_NAV_SCRIPT, KN_NAV_HASH, KN_NAV_HISTORY, KN_NAV_REDIRECT, KN_NAV_POPUP,
	KN_NAV__COUNT
} kn_nav;
/* "goto", "back", …; "" for KN_NAV_NONE. Static storage. */
const char *kn_nav_name(kn_nav n);
/* The cause named name; KN_EINVAL when none is. */
int kn_nav_parse(kn_nav *out, const char *name);

/* One event. Strings are borrowed in kn_eval_feed; owned by the event after kn_event_parse
 * (release with kn_event_clear). Absent fields are NULL. */
typedef struct kn_event {
	double t;
	kn_event_type type;
	const char *tab, *url, *how, *selector, *text, *value, *key;
	const char *const *matched; /* key-node ids matched live; NULL when the field is absent */
	size_t n_matched;
	int trusted;                /* 1 trusted, 0 untrusted, -1 unknown */
	int frame;                  /* 1 when the action happened in a child frame ("frame": true) */
	/* Where in the frame tree (additive): the child frame's own URL ("frame_url"; `url`
	 * stays the tab's top-level URL), and the frame path: the selectors of the <iframe> elements
	 * from the top document down, each relative to its parent frame's document ("frame_path"). */
	const char *frame_url;
	const char *const *frame_path;
	size_t n_frame_path;
	int shadow_closed;          /* 1: the target was inside a closed shadow root, selector = its host */
	/* The acted-on element's bounding box when the action happened (CSS px, viewport-relative: x, y,
	 * width, height; "box"), so a trace shows it even when the page is gone before it can be probed. */
	int has_box;
	double box[4];
	long pixels;                /* scroll: how far the burst went ("pixels"); 0 not known */
	const struct kn_request *request; /* request and websocket events: what was sent (request.h); else
	                                   * NULL */
	int human;                  /* 1: a person did it, in a takeover from the live view
	                             * ("human": true): never a step, never credits a key node */
	void *owned_;               /* parse storage */
} kn_event;

/* The navigation cause of ev (its `how`); KN_NAV_NONE when it has none. */
kn_nav kn_event_nav(const kn_event *ev);

#define KN_TRAJ_MAX_LINE (1u << 20) /* 1 MB per line */

/* Name ↔ type. kn_event_type_parse returns KN_EINVAL for an unknown name. */
const char *kn_event_type_name(kn_event_type t);
int kn_event_type_parse(kn_event_type *out, const char *name);

/* 1 when the event counts as an agent step (docs/formats.md §2); a human event never does. */
int kn_event_is_step(const kn_event *ev);
/* 1 when the event is an action on an element (click, type, select, drag): the events that
 * element_path and element_value key nodes are checked on, and that evidence explains. */
int kn_event_is_action(const kn_event *ev);

/* Parse one JSON event line into ev (owned strings; kn_event_clear releases them). */
int kn_event_parse(kn_event *ev, const char *line, size_t len, kn_err *err);
void kn_event_clear(kn_event *ev);

/* Trajectory header. Strings owned by the struct. */
typedef struct kn_traj_header {
	char *run, *task, *started;
} kn_traj_header;
void kn_traj_header_clear(kn_traj_header *h);

/* Read a whole trajectory file: header + events. *events is an array the caller releases with
 * kn_traj_events_free. err says "file:line: ..." for a bad line. */
int kn_traj_read_file(const char *path, kn_traj_header *hdr, kn_event **events, size_t *n,
                      kn_err *err);
int kn_traj_read_buffer(const char *buf, size_t len, const char *name, kn_traj_header *hdr,
                        kn_event **events, size_t *n, kn_err *err);
void kn_traj_events_free(kn_event *events, size_t n);

/* Write the header / one event as one line and flush (so a crash loses nothing already written). */
int kn_traj_write_header(FILE *f, const char *run, const char *task, const char *started);
int kn_traj_write_event(FILE *f, const kn_event *ev);

#endif
