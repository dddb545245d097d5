/* live_hub.c — the holder side of the live view (live_hub.h). Threads: the listener's (store_listen.c)
 * only copies the down messages about the pages shown here into their sources' inboxes; everything
 * else — each source's CDP connection of the screencast, the takeover, the timers — runs on the CDP
 * loop's thread. A 250 ms timer per source drains its inbox, lets the screencast lapse when the watch
 * heartbeats stop (and starts it again when frames stopped), hands back an idle takeover and sends
 * the page's state. A page shown is a worker's replay (held between steps while taken), a worker's
 * agent attempt (takeable while its site blocks it; the runner pauses the agent while taken) or a
 * run serve watches (never taken); while taken and HUMAN_TAIL_MS after, the monitor's events are the
 * person's (the watches' `taken`). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cdp.h"
#include "keynode/clock.h"
#include "live_hub.h"
#include "live_wire.h"
#include "log.h"
#include "runner.h"
#include "store.h"
#include "store_serve.h"

#define TICK_MS 250
#define STATUS_EVERY_MS 2000
#define INBOX_MAX 256
/* After a hand back the page stays the person's this long: the consequences of their last action (a
 * navigation, a request) are theirs, and the replay or the agent resumes only then. */
#define HUMAN_TAIL_MS 1000

/* What a page shown is: a worker's replay, a worker's agent attempt, or a run serve watches. */
enum src_kind { SRC_REPLAY, SRC_ATTEMPT, SRC_RUN };
static const char *const kind_names[] = {"replay", "attempt", "run"};

typedef struct kn_live_stats {
	unsigned long long screencasts, frames, bytes, dropped, inputs; /* live_hub.h's log line */
} kn_live_stats;

struct inbox {
	kn_live_msg m;
	struct inbox *next;
};

/* One page shown: a worker's replay (kn_live_hub_watch) or a run serve watches (kn_live_hub_open).
 * Loop thread, except in/in_tail/n_in (the hub's mutex). */
struct kn_live_src {
	kn_live_hub *hub;
	struct kn_live_src *next;  /* the hub's list (its mutex) */
	struct inbox *in, *in_tail;
	size_t n_in;
	enum src_kind kind;
	int can_take;        /* a replay (held between steps); an attempt while its page blocks (the agent
	                      * paused); a run serve watches only watched */
	int blocked;         /* an attempt: the monitor says its page blocks now */
	kn_live_stats stats;
	kn_cdp_loop *loop;
	char *ws_url, *target, *task; /* target NULL: the browser's first page, found when first watched */
	char run[KN_LIVE_RUN_MAX + 1];
	size_t step, n_steps;
	char verb[24], what[200];
	kn_cdp_timer *tick, *ack;
	kn_cdp *c;
	int open, closing;
	char *session;
	int casting;         /* Page.startScreencast sent */
	double cast_at, frame_at; /* when it was (re)started, when the last frame came */
	double watched_at;   /* last "watch" heartbeat (monotonic ms); 0: none */
	double status_at;
	int ack_session;     /* the frame to acknowledge */
	unsigned long seq;
	int taken;
	int holding;         /* taken, and the replay waits at a step boundary (the agent is paused) */
	double taken_input_at;
	double human_until;  /* handed back: the page is the person's until then (HUMAN_TAIL_MS) */
	json_t *takeovers, *cur; /* every takeover of this run; the one in progress */
};
typedef struct kn_live_src src;

struct kn_live_hub {
	kn_live_hub_opts o;
	kn_replay_watch watch;
	kn_store_notifier *up;
	kn_store_listener *down;
	pthread_mutex_t mu;
	src *srcs;           /* the pages shown now */
	src *replay;         /* the replay or attempt of the watches (loop thread) */
	kn_attempt_watch attempt;
};

static json_t *now_json(void)
{
	char t[KN_TIME_MAX];
	kn_time_rfc3339(t, time(NULL));
	return json_string(t);
}

/* ---- up: the page's state and its frames ------------------------------------------------------ */

static void send_up(src *h, const char *payload)
{
	kn_err err = {0};
	kn_store_notifier_send(h->hub->up, payload, &err); /* a full queue drops it: live news only */
}

/* 1 while what happens in the page is a person's: taken over, or just handed back. */
static int human_now(const src *h)
{
	return h->taken || (h->human_until > 0 && kn_time_mono_ms() < h->human_until);
}

/* "held" once the replay (the agent) waits for a person, else "running" (w_end sends "ended"). */
static const char *state_of(const src *h)
{
	return h->holding ? "held" : "running";
}

static void send_status(src *h, const char *state)
{
	if (h->kind == SRC_RUN && h->watched_at <= 0)
		return; /* a run serve watches has its own feed: its state goes up only once someone watches */
	json_t *o = json_pack("{s:s, s:s, s:s, s:s?, s:I, s:I, s:s, s:s, s:b, s:b, s:b, s:s, s:b}", "type", "live", "run",
	                      h->run, "state", state, "task", h->task, "step", (json_int_t)h->step + 1, "steps",
	                      (json_int_t)h->n_steps, "verb", h->verb, "target", h->what, "taken", h->taken,
	                      "watched", h->casting, "takeable", h->can_take, "kind", kind_names[h->kind],
	                      "blocked", h->blocked);
	char *j = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (!j)
		return;
	char *p = malloc(strlen(h->run) + strlen(j) + 9);
	if (p) {
		sprintf(p, "status %s\n%s", h->run, j);
		if (strlen(p) <= KN_LIVE_PAYLOAD_MAX)
			send_up(h, p);
	}
	free(p);
	free(j);
	h->status_at = kn_time_mono_ms();
}

static void ack_now(void *ud)
{
	src *h = ud;
	h->ack = NULL;
	if (h->c && h->open && h->session)
		kn_cdp_send(h->c, h->session, "Page.screencastFrameAck", json_pack("{s:i}", "sessionId", h->ack_session),
		            NULL, NULL);
}

/* A frame: sent up in pieces, acknowledged 1/fps later (Chromium sends no other frame meanwhile). */
static void on_frame(src *h, json_t *params)
{
	const char *data = kn_json_str(params, "data");
	json_t *md = json_object_get(params, "metadata");
	int w = (int)json_number_value(json_object_get(md, "deviceWidth"));
	int hh = (int)json_number_value(json_object_get(md, "deviceHeight"));
	h->ack_session = (int)json_integer_value(json_object_get(params, "sessionId"));
	h->frame_at = kn_time_mono_ms();
	size_t n = data ? strlen(data) : 0;
	size_t pieces = (n + KN_LIVE_PIECE_MAX - 1) / KN_LIVE_PIECE_MAX;
	if (n && w > 0 && hh > 0 && h->casting) {
		if (pieces > KN_LIVE_PIECES_MAX) {
			h->stats.dropped++;
		} else {
			char head[256];
			unsigned long seq = ++h->seq;
			for (size_t i = 0; i < pieces; i++) {
				size_t len = n - i * KN_LIVE_PIECE_MAX < KN_LIVE_PIECE_MAX ? n - i * KN_LIVE_PIECE_MAX : KN_LIVE_PIECE_MAX;
				int hl = snprintf(head, sizeof head, "frame %s %lu %zu %zu %d %d\n", h->run, seq, i, pieces, w, hh);
				char *p = malloc((size_t)hl + len + 1);
				if (!p)
					break;
				memcpy(p, head, (size_t)hl);
				memcpy(p + hl, data + i * KN_LIVE_PIECE_MAX, len);
				p[(size_t)hl + len] = '\0';
				send_up(h, p);
				free(p);
			}
			h->stats.frames++;
			h->stats.bytes += n;
		}
	}
	int fps = h->hub->o.fps > 0 ? h->hub->o.fps : 2;
	if (h->ack)
		kn_cdp_timer_cancel(h->ack);
	h->ack = kn_cdp_timer_start(h->loop, 1000 / fps, ack_now, h);
}

/* ---- the screencast's own connection ---------------------------------------------------------- */

/* Page.startScreencast on the page's session (again: Chromium sends a first frame at once). */
static void cast(src *h)
{
	int mw = h->hub->o.max_width > 0 ? h->hub->o.max_width : 800;
	kn_cdp_send(h->c, h->session, "Page.startScreencast",
	            json_pack("{s:s, s:i, s:i, s:i, s:i}", "format", "jpeg", "quality", h->hub->o.quality > 0 ? h->hub->o.quality : 60,
	                      "maxWidth", mw, "maxHeight", mw * 2, "everyNthFrame", 1),
	            NULL, NULL);
	h->cast_at = kn_time_mono_ms();
}

static void start_cast(src *h)
{
	if (!h->session || h->casting)
		return;
	h->casting = 1;
	h->stats.screencasts++;
	cast(h);
	kn_log_msg("info", "live", "screencast started", "run=%s", h->run);
	send_status(h, state_of(h));
}

static void stop_cast(src *h)
{
	if (!h->casting)
		return;
	h->casting = 0;
	if (h->c && h->open && h->session)
		kn_cdp_send(h->c, h->session, "Page.stopScreencast", NULL, NULL, NULL);
	kn_log_msg("info", "live", "screencast stopped", "run=%s", h->run);
}

static void attached(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c;
	src *h = ud;
	const char *sid = kn_json_str(result, "sessionId");
	if (h->closing)
		return;
	if (error || !sid) {
		kn_log_msg("warn", "live", "the replay's tab cannot be shown", "run=%s detail=\"%s\"", h->run,
		           error ? error : "no session");
		return;
	}
	free(h->session);
	h->session = strdup(sid);
	if (h->watched_at > 0)
		start_cast(h);
}

static void attach(src *h)
{
	kn_cdp_send(h->c, NULL, "Target.attachToTarget", json_pack("{s:s, s:b}", "targetId", h->target, "flatten", 1),
	            attached, h);
}

/* A run serve watches names no tab: the browser's first page is shown. */
static void targets(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c;
	src *h = ud;
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(result, "targetInfos"), i, t) {
		const char *type = kn_json_str(t, "type"), *id = kn_json_str(t, "targetId");
		const char *url = kn_json_str(t, "url");
		if (!h->target && type && id && strcmp(type, "page") == 0 && !(url && strncmp(url, "devtools://", 11) == 0))
			h->target = strdup(id);
	}
	if (h->target && !h->closing)
		attach(h);
	else if (!h->closing)
		kn_log_msg("warn", "live", "no page to show", "run=%s detail=\"%s\"", h->run, error ? error : "no page");
}

static void c_open(void *ud, kn_cdp *c)
{
	src *h = ud;
	h->open = 1;
	if (h->target)
		attach(h);
	else
		kn_cdp_send(c, NULL, "Target.getTargets", NULL, targets, h);
}

static void c_event(void *ud, kn_cdp *c, const char *method, const char *session, json_t *params)
{
	(void)c;
	src *h = ud;
	if (session && h->session && strcmp(session, h->session) == 0 && strcmp(method, "Page.screencastFrame") == 0)
		on_frame(h, params);
}

static void c_close(void *ud, kn_cdp *c, const char *reason)
{
	(void)c;
	(void)reason;
	src *h = ud;
	h->c = NULL;
	h->open = 0;
	h->casting = 0;
	free(h->session);
	h->session = NULL;
}

static void want_cast(src *h)
{
	h->watched_at = kn_time_mono_ms();
	if (h->casting)
		return;
	if (!h->c) {
		kn_cdp_handlers hd = {.on_open = c_open, .on_event = c_event, .on_close = c_close, .ud = h};
		kn_err err = {0};
		if (kn_cdp_connect(&h->c, h->loop, h->ws_url, NULL, &hd, &err) != 0) {
			h->c = NULL;
			kn_log_msg("warn", "live", "no connection for the screencast", "run=%s detail=\"%s\"", h->run, err.msg);
		}
		return; /* c_open → attached → start_cast */
	}
	start_cast(h);
}

/* ---- takeover ---------------------------------------------------------------------------------- */

static void take(src *h)
{
	h->taken_input_at = kn_time_mono_ms();
	if (h->taken || !h->can_take) /* a run serve watches, an attempt not blocked: never taken */
		return;
	h->taken = 1;
	h->cur = json_pack("{s:o, s:n, s:n, s:[]}", "at", now_json(), "until", "before_step", "actions");
	kn_log_msg("info", "live", "takeover", "run=%s step=%zu", h->run, h->step + 1);
	send_status(h, state_of(h));
}

static void hand_back(src *h, const char *why)
{
	if (!h->taken)
		return;
	h->taken = h->holding = 0;
	h->human_until = kn_time_mono_ms() + HUMAN_TAIL_MS;
	if (h->kind == SRC_ATTEMPT)
		h->can_take = h->blocked;
	if (h->cur) {
		json_object_set_new(h->cur, "until", now_json());
		json_object_set_new(h->cur, "ended", json_string(why));
		json_array_append_new(h->takeovers, h->cur);
		h->cur = NULL;
	}
	kn_log_msg("info", "live", "handed back", "run=%s reason=\"%s\"", h->run, why);
	send_status(h, state_of(h));
}

static void mouse(src *h, const char *type, const kn_live_input *in, const char *button, int count_)
{
	kn_cdp_send(h->c, h->session, "Input.dispatchMouseEvent",
	            json_pack("{s:s, s:f, s:f, s:s, s:i}", "type", type, "x", in->x, "y", in->y, "button", button,
	                      "clickCount", count_),
	            NULL, NULL);
}

/* One person's input, into the page (only in a takeover, on the screencast's session). */
static void dispatch(src *h, const kn_live_input *in)
{
	if (!h->taken || !h->c || !h->open || !h->session)
		return;
	h->taken_input_at = kn_time_mono_ms();
	switch (in->kind) {
	case KN_LIVE_CLICK:
		mouse(h, "mouseMoved", in, "none", 0);
		mouse(h, "mousePressed", in, in->button, in->count);
		mouse(h, "mouseReleased", in, in->button, in->count);
		break;
	case KN_LIVE_WHEEL:
		kn_cdp_send(h->c, h->session, "Input.dispatchMouseEvent",
		            json_pack("{s:s, s:f, s:f, s:f, s:f}", "type", "mouseWheel", "x", in->x, "y", in->y, "deltaX",
		                      in->dx, "deltaY", in->dy),
		            NULL, NULL);
		break;
	case KN_LIVE_KEY: {
		const char *code = NULL;
		int vk = kn_live_key_code(in->key, &code);
		const char *key = strcmp(in->key, "Space") == 0 ? " " : in->key;
		for (int down = 1; down >= 0; down--)
			kn_cdp_send(h->c, h->session, "Input.dispatchKeyEvent",
			            json_pack("{s:s, s:s, s:s, s:i, s:i, s:s?}", "type", down ? "keyDown" : "keyUp", "key", key,
			                      "code", code, "windowsVirtualKeyCode", vk, "nativeVirtualKeyCode", vk, "text",
			                      down && (vk == 13 || vk == 32) ? (vk == 13 ? "\r" : " ") : NULL),
			            NULL, NULL);
		break;
	}
	case KN_LIVE_TEXT:
		kn_cdp_send(h->c, h->session, "Input.insertText", json_pack("{s:s}", "text", in->text), NULL, NULL);
		break;
	default:
		return;
	}
	h->stats.inputs++;
	char j[KN_LIVE_TEXT_MAX * 6 + 200];
	json_t *a = kn_live_input_json(in, j, sizeof j) == 0 ? json_loads(j, 0, NULL) : NULL;
	if (a && h->cur) {
		json_object_set_new(a, "human", json_true());
		json_object_set_new(a, "at", now_json());
		json_array_append_new(json_object_get(h->cur, "actions"), a);
	} else {
		json_decref(a);
	}
}

/* ---- the tick ---------------------------------------------------------------------------------- */

static void tick(void *ud)
{
	src *h = ud;
	h->tick = NULL;
	pthread_mutex_lock(&h->hub->mu);
	struct inbox *list = h->in;
	h->in = h->in_tail = NULL;
	h->n_in = 0;
	pthread_mutex_unlock(&h->hub->mu);
	while (list) {
		struct inbox *next = list->next;
		switch (list->m.kind) {
		case KN_LIVE_MSG_WATCH: want_cast(h); break;
		case KN_LIVE_MSG_TAKE: want_cast(h), take(h); break;
		case KN_LIVE_MSG_RELEASE: hand_back(h, "released"); break;
		case KN_LIVE_MSG_INPUT: dispatch(h, &list->m.input); break;
		default: break;
		}
		free(list);
		list = next;
	}
	double t = kn_time_mono_ms();
	int lapse = h->hub->o.watch_lapse_ms > 0 ? h->hub->o.watch_lapse_ms : 6000;
	int idle = (h->hub->o.takeover_idle_s > 0 ? h->hub->o.takeover_idle_s : 120) * 1000;
	if (h->casting && t - h->watched_at > lapse && !h->taken)
		stop_cast(h);
	if (h->taken && t - h->taken_input_at > idle)
		hand_back(h, "timed out");
	/* no frame for 3 s: started again. A navigation to another site swaps the page's renderer,
	 * which ends a screencast started before it; a page that does not repaint sends nothing, so
	 * a viewer who came later would see nothing — a restart sends one frame at once. */
	if (h->casting && h->open && h->session && !h->ack && t - (h->frame_at > h->cast_at ? h->frame_at : h->cast_at) > 3000) {
		/* stopped first: a start while Chromium still counts the screencast as on sent nothing after a
		 * navigation to a still page (a recording's page froze after its form was sent) */
		kn_cdp_send(h->c, h->session, "Page.stopScreencast", NULL, NULL, NULL);
		cast(h);
	}
	if (t - h->status_at >= STATUS_EVERY_MS)
		send_status(h, state_of(h));
	h->tick = kn_cdp_timer_start(h->loop, TICK_MS, tick, h);
}

/* The listener's thread: a down message for a page shown here goes to its inbox. */
static void on_payload(void *ud, const char *payload)
{
	kn_live_hub *hub = ud;
	kn_live_msg m;
	kn_err err = {0};
	if (kn_live_msg_parse(&m, payload, strlen(payload), &err) != 0 || m.kind > KN_LIVE_MSG_INPUT)
		return; /* not for a holder */
	pthread_mutex_lock(&hub->mu);
	src *h = hub->srcs;
	while (h && strcmp(h->run, m.run) != 0)
		h = h->next;
	struct inbox *e = NULL;
	if (h && h->n_in < INBOX_MAX && (e = malloc(sizeof *e))) {
		e->m = m;
		e->next = NULL;
		if (h->in_tail)
			h->in_tail->next = e;
		else
			h->in = e;
		h->in_tail = e;
		h->n_in++;
	}
	pthread_mutex_unlock(&hub->mu);
}

/* ---- a page shown ------------------------------------------------------------------------------ */

static void src_free(src *h)
{
	while (h->in) {
		struct inbox *n = h->in->next;
		free(h->in);
		h->in = n;
	}
	json_decref(h->takeovers);
	json_decref(h->cur);
	free(h->session);
	free(h->ws_url), free(h->target), free(h->task);
	free(h);
}

static src *src_open(kn_live_hub *hub, kn_cdp_loop *loop, const char *ws_url, const char *target_id,
                     const char *run_id, const kn_task *task, enum src_kind kind)
{
	if (!hub || !kn_live_run_ok(run_id) || !ws_url)
		return NULL;
	src *h = calloc(1, sizeof *h);
	if (!h)
		return NULL;
	h->hub = hub;
	h->loop = loop;
	h->kind = kind;
	h->can_take = kind == SRC_REPLAY;
	h->ws_url = strdup(ws_url);
	h->target = target_id ? strdup(target_id) : NULL;
	h->task = task && task->id ? strdup(task->id) : NULL;
	h->takeovers = json_array();
	if (!h->ws_url || (target_id && !h->target) || !h->takeovers) {
		src_free(h);
		return NULL;
	}
	snprintf(h->run, sizeof h->run, "%s", run_id);
	h->n_steps = task ? task->n_steps : 0;
	pthread_mutex_lock(&hub->mu);
	h->next = hub->srcs;
	hub->srcs = h;
	pthread_mutex_unlock(&hub->mu);
	send_status(h, "running");
	h->tick = kn_cdp_timer_start(loop, TICK_MS, tick, h);
	return h;
}

kn_live_src *kn_live_hub_open(kn_live_hub *hub, kn_cdp_loop *loop, const char *ws_url, const char *target_id,
                              const char *run_id, const kn_task *task, int can_take)
{
	return src_open(hub, loop, ws_url, target_id, run_id, task, can_take ? SRC_REPLAY : SRC_RUN);
}

json_t *kn_live_hub_close(kn_live_src *h, const char *why)
{
	if (!h)
		return NULL;
	kn_live_hub *hub = h->hub;
	hand_back(h, why);
	stop_cast(h);
	if (h->tick)
		kn_cdp_timer_cancel(h->tick);
	if (h->ack)
		kn_cdp_timer_cancel(h->ack);
	h->tick = h->ack = NULL;
	h->closing = 1;
	if (h->c)
		kn_cdp_close(h->c); /* c_close clears c and the session */
	send_status(h, "ended");
	pthread_mutex_lock(&hub->mu);
	for (src **p = &hub->srcs; *p; p = &(*p)->next)
		if (*p == h) {
			*p = h->next;
			break;
		}
	pthread_mutex_unlock(&hub->mu);
	/* what showing this run cost (tests/bench/bench_screencast.sh reads it) */
	kn_log_msg("info", "live", "live view", "run=%s screencasts=%llu frames=%llu bytes=%llu dropped=%llu inputs=%llu",
	           h->run, h->stats.screencasts, h->stats.frames, h->stats.bytes, h->stats.dropped, h->stats.inputs);
	json_t *t = h->takeovers;
	h->takeovers = NULL;
	if (t && json_array_size(t) == 0) {
		json_decref(t);
		t = NULL;
	}
	src_free(h);
	return t;
}

/* ---- the replay's watch (one replay at a time) ------------------------------------------------- */

static void w_begin(void *ud, kn_cdp_loop *loop, const char *ws_url, const char *target_id, const char *run_id,
                    const kn_task *task)
{
	kn_live_hub *hub = ud;
	if (hub->replay || !target_id)
		return;
	hub->replay = src_open(hub, loop, ws_url, target_id, run_id, task, SRC_REPLAY);
}

static int w_step(void *ud, size_t i, const kn_step *st)
{
	src *h = ((kn_live_hub *)ud)->replay;
	if (!h)
		return 0;
	if (i != h->step || (st && strcmp(h->verb, kn_step_verb_name(st->verb)) != 0)) {
		h->step = i;
		snprintf(h->verb, sizeof h->verb, "%s", st ? kn_step_verb_name(st->verb) : "");
		snprintf(h->what, sizeof h->what, "%s", st ? st->selector ? st->selector : st->value ? st->value : "" : "");
		send_status(h, state_of(h));
	}
	if (h->taken && !h->holding) { /* held here: the step it waits to run (1-based) */
		h->holding = 1;
		if (h->cur)
			json_object_set_new(h->cur, "before_step", json_integer((json_int_t)i + 1));
		send_status(h, state_of(h));
	}
	return human_now(h); /* handed back: the person's last action settles first */
}

/* kn_replay_watch.taken / kn_attempt_watch.taken: the monitor's events are a person's now. */
static int w_taken(void *ud)
{
	src *h = ((kn_live_hub *)ud)->replay;
	return h ? human_now(h) : 0;
}

static json_t *w_end(void *ud)
{
	kn_live_hub *hub = ud;
	json_t *t = kn_live_hub_close(hub->replay, hub->replay && hub->replay->kind == SRC_ATTEMPT ? "attempt ended"
	                                                                                       : "replay ended");
	hub->replay = NULL;
	return t;
}

/* ---- an agent attempt's watch (kn_attempt_watch, runner.h) ------------------------------------- */

static void a_begin(void *ud, kn_cdp_loop *loop, const char *ws_url, const char *target_id, const char *run_id,
                    const kn_task *task)
{
	kn_live_hub *hub = ud;
	if (hub->replay || !target_id)
		return;
	hub->replay = src_open(hub, loop, ws_url, target_id, run_id, task, SRC_ATTEMPT);
}

/* Each slice of the attempt: its steps, whether its page blocks; 1 while the agent must wait. */
static int a_tick(void *ud, int steps, int blocked)
{
	src *h = ((kn_live_hub *)ud)->replay;
	if (!h)
		return 0;
	int was_takeable = h->can_take, was_holding = h->holding;
	h->blocked = blocked;
	h->can_take = blocked || h->taken; /* a takeover goes on past the block it was for */
	h->holding = h->taken;
	if (h->can_take && !was_takeable)
		kn_log_msg("info", "live", "attempt blocked: it can be taken over", "run=%s", h->run);
	if (h->holding && h->cur && !was_holding)
		json_object_set_new(h->cur, "after_steps", json_integer(steps));
	if ((size_t)(steps > 0 ? steps : 0) != h->step || h->can_take != was_takeable || h->holding != was_holding) {
		h->step = (size_t)(steps > 0 ? steps : 0);
		send_status(h, state_of(h));
	}
	return human_now(h);
}

int kn_live_hub_new(kn_live_hub **out, const kn_live_hub_opts *opts, kn_err *err)
{
	*out = NULL;
	if (!opts || !opts->conninfo)
		return kn_err_set(err, KN_EINVAL, "live view: no database");
	kn_live_hub *h = calloc(1, sizeof *h);
	if (!h)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	h->o = *opts;
	pthread_mutex_init(&h->mu, NULL);
	h->watch = (kn_replay_watch){.begin = w_begin, .step = w_step, .end = w_end, .taken = w_taken, .ud = h};
	h->attempt = (kn_attempt_watch){.begin = a_begin, .tick = a_tick, .taken = w_taken, .end = w_end, .ud = h};
	int rc = kn_store_notifier_new(&h->up, opts->conninfo, KN_LIVE_UP, 0, err);
	if (!rc)
		rc = kn_store_listener_new_payload(&h->down, opts->conninfo, KN_LIVE_DOWN, NULL, on_payload, h, err);
	if (rc) {
		kn_live_hub_free(h);
		return rc;
	}
	*out = h;
	return 0;
}

const kn_replay_watch *kn_live_hub_watch(kn_live_hub *h)
{
	return h ? &h->watch : NULL;
}

const kn_attempt_watch *kn_live_hub_attempt_watch(kn_live_hub *h)
{
	return h ? &h->attempt : NULL;
}

void kn_live_hub_free(kn_live_hub *h)
{
	if (!h)
		return;
	kn_store_listener_free(h->down);
	kn_store_notifier_free(h->up);
	while (h->srcs) { /* pages still shown: their timers went with their loop's runs */
		src *n = h->srcs->next;
		src_free(h->srcs);
		h->srcs = n;
	}
	pthread_mutex_destroy(&h->mu);
	free(h);
}
