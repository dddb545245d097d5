/* websockets.c — WebSocket messages a watched run's pages and workers send, and the guard that holds
 * some of them (websockets.h). The hook (websocket_hook.c) reports each message through a binding;
 * the message is built as a request body is (kn_request_build: parsed, redacted), matched against
 * the websocket guard rules by kn_guard_match (so kn_request_match decides, as for requests), and
 * the hook told to send or drop it. Every message the hook holds back is answered exactly once, on
 * every path (a payload that cannot be read is sent: it cannot be matched). Network events are the
 * second source: each frame the hook let through is expected there once; a frame that was not is
 * reported as watched_only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/base64.h"
#include "keynode/randid.h"
#include "log.h"
#include "websockets.h"

#define KN_WS_MAX_EXPECTED 512 /* frames let through and not yet seen on the network, kept */
#define KN_WS_MAX_SOCKETS 1024 /* sockets' URLs kept (Network.webSocketCreated) */

struct sock {
	char *session, *id, *url;
};

/* A main-world context (a document's or a worker's) of a session, where a hook may wait. */
struct ctx {
	char *session;
	json_int_t id;
};

/* A frame the hook let through, to be seen once on the network: its session and payload as the
 * network shows it (text, or base64 bytes; NULL: not known — a Blob, a message reported cut —, any
 * frame of the session). */
struct expect {
	char *session, *payload;
};

struct kn_websockets {
	kn_websockets_opts o;
	int guarded;
	char binding[40], release[40], key[40];
	char *hook; /* the hook's source */
	struct sock *socks;
	size_t n_socks;
	struct expect exp[KN_WS_MAX_EXPECTED];
	size_t n_exp;
	/* workers' sessions, where Network is ours alone: a dedicated worker's messages wait for the
	 * barrier, a service worker's are watched only */
	struct worker {
		char *session;
		int sw;
	} *workers;
	size_t n_workers;
	struct ctx *ctxs; /* with rules: the contexts to release when the monitor leaves */
	size_t n_ctxs;
	int released;     /* kn_websockets_release was called: contexts are no longer followed */
	/* the latest frames reported from the network, (requestId, timestamp): a worker attached in two
	 * sessions (the browser's and its page's) shows each of its frames in both */
	struct seen_frame {
		char id[64];
		double ts;
		size_t len;
	} seen[32];
	size_t seen_next;
};

int kn_websockets_new(kn_websockets **out, const kn_websockets_opts *o)
{
	kn_websockets *w = calloc(1, sizeof *w);
	*out = w;
	if (!w)
		return KN_ENOMEM;
	w->o = *o;
	for (size_t i = 0; i < sizeof o->guards / sizeof o->guards[0]; i++)
		w->guarded |= kn_guard_has(o->guards[i], 1);
	kn_random_id(w->binding, sizeof w->binding, "kn_s_", 12);
	kn_random_id(w->release, sizeof w->release, "kn_r_", 12);
	kn_random_id(w->key, sizeof w->key, "", 16);
	return kn_websocket_hook_source(&w->hook, w->binding, w->release, w->key, w->guarded);
}

static void expect_clear(struct expect *e)
{
	free(e->session);
	free(e->payload);
	memset(e, 0, sizeof *e);
}

void kn_websockets_free(kn_websockets *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n_socks; i++) {
		free(w->socks[i].session);
		free(w->socks[i].id);
		free(w->socks[i].url);
	}
	free(w->socks);
	for (size_t i = 0; i < w->n_exp; i++)
		expect_clear(&w->exp[i]);
	for (size_t i = 0; i < w->n_workers; i++)
		free(w->workers[i].session);
	free(w->workers);
	for (size_t i = 0; i < w->n_ctxs; i++)
		free(w->ctxs[i].session);
	free(w->ctxs);
	free(w->hook);
	free(w);
}

const char *kn_websockets_binding_name(const kn_websockets *w)
{
	return w->binding;
}

int kn_websockets_guarded(const kn_websockets *w)
{
	return w && w->guarded;
}

static int same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static void network_enable(kn_cdp *c, const char *session)
{
	kn_cdp_send(c, session, "Network.enable",
	            json_pack("{s:i, s:i}", "maxTotalBufferSize", 0, "maxResourceBufferSize", 0), NULL, NULL);
}

void kn_websockets_attach_page(kn_websockets *w, kn_cdp *c, const char *session, int network)
{
	if (network)
		network_enable(c, session);
	if (w->o.skip_hook)
		return;
	kn_cdp_send(c, session, "Runtime.addBinding", json_pack("{s:s}", "name", w->binding), NULL, NULL);
	kn_cdp_send(c, session, "Page.addScriptToEvaluateOnNewDocument",
	            json_pack("{s:s, s:b}", "source", w->hook, "runImmediately", 1), NULL, NULL);
}

void kn_websockets_hook_now(kn_websockets *w, kn_cdp *c, const char *session)
{
	if (w->o.skip_hook)
		return;
	/* the binding again: one added while the tab waited for its first document may not be in it */
	kn_cdp_send(c, session, "Runtime.addBinding", json_pack("{s:s}", "name", w->binding), NULL, NULL);
	kn_cdp_send(c, session, "Runtime.evaluate", json_pack("{s:s}", "expression", w->hook), NULL, NULL);
}

void kn_websockets_attach_worker(kn_websockets *w, kn_cdp *c, const char *session, int service_worker)
{
	network_enable(c, session);
	struct worker *grown = realloc(w->workers, (w->n_workers + 1) * sizeof *grown);
	if (grown) {
		w->workers = grown;
		grown[w->n_workers].sw = service_worker;
		if ((grown[w->n_workers].session = strdup(session)))
			w->n_workers++;
	}
	if (service_worker || w->o.skip_hook)
		return; /* watched only (websockets.h) */
	kn_cdp_send(c, session, "Runtime.enable", NULL, NULL, NULL);
	kn_cdp_send(c, session, "Runtime.addBinding", json_pack("{s:s}", "name", w->binding), NULL, NULL);
	kn_cdp_send(c, session, "Runtime.evaluate", json_pack("{s:s}", "expression", w->hook), NULL, NULL);
}

/* 1 a dedicated worker's session, 2 a service worker's, 0 neither. */
static int worker_kind(const kn_websockets *w, const char *session)
{
	for (size_t i = 0; session && i < w->n_workers; i++)
		if (strcmp(w->workers[i].session, session) == 0)
			return w->workers[i].sw ? 2 : 1;
	return 0;
}

/* Drop the contexts of session (all when id < 0, else the one). */
static void ctx_forget(kn_websockets *w, const char *session, json_int_t id)
{
	for (size_t i = 0; i < w->n_ctxs;)
		if (same(w->ctxs[i].session, session) && (id < 0 || w->ctxs[i].id == id)) {
			free(w->ctxs[i].session);
			w->ctxs[i] = w->ctxs[--w->n_ctxs];
		} else {
			i++;
		}
}

void kn_websockets_detach(kn_websockets *w, const char *session)
{
	if (!w || !session)
		return;
	for (size_t i = 0; i < w->n_workers; i++)
		if (strcmp(w->workers[i].session, session) == 0) {
			free(w->workers[i].session);
			w->workers[i] = w->workers[--w->n_workers];
			break;
		}
	ctx_forget(w, session, -1);
	for (size_t i = 0; i < w->n_socks;)
		if (same(w->socks[i].session, session)) {
			free(w->socks[i].session);
			free(w->socks[i].id);
			free(w->socks[i].url);
			w->socks[i] = w->socks[--w->n_socks];
		} else {
			i++;
		}
}

/* Expect a frame the hook let through on the network; the oldest expectation goes when full. */
static void expect(kn_websockets *w, const char *session, const char *payload)
{
	if (w->n_exp == KN_WS_MAX_EXPECTED) {
		expect_clear(&w->exp[0]);
		memmove(w->exp, w->exp + 1, (KN_WS_MAX_EXPECTED - 1) * sizeof *w->exp);
		memset(&w->exp[--w->n_exp], 0, sizeof *w->exp);
	}
	struct expect *e = &w->exp[w->n_exp];
	e->session = session ? strdup(session) : NULL;
	e->payload = payload ? strdup(payload) : NULL;
	if ((session && !e->session) || (payload && !e->payload)) {
		expect_clear(e);
		return;
	}
	w->n_exp++;
}

/* 1 when a frame of session with payload (binary: base64) was expected; the expectation is spent. */
static int expected(kn_websockets *w, const char *session, const char *payload)
{
	for (size_t i = 0; i < w->n_exp; i++) {
		struct expect *e = &w->exp[i];
		if (!same(e->session, session) || (e->payload && strcmp(e->payload, payload) != 0))
			continue;
		expect_clear(e);
		memmove(e, e + 1, (w->n_exp - i - 1) * sizeof *e);
		memset(&w->exp[--w->n_exp], 0, sizeof *w->exp);
		return 1;
	}
	return 0;
}

int kn_websocket_build(kn_request_store **store, kn_request *clear, kn_request *redacted,
                       const char *url, const char *direction, const char *payload, size_t len,
                       int binary, const kn_redact *rules)
{
	/* a message is read as a body sent as JSON (what is not JSON is `$body`), bytes as bytes */
	json_t *req = json_pack("{s:s, s:{s:s}}", "url", url ? url : "", "headers", "Content-Type",
	                        binary ? "application/octet-stream" : "application/json");
	if (!req) {
		*store = NULL;
		return KN_ENOMEM;
	}
	int rc = kn_request_build(store, clear, redacted, req, payload, len, rules);
	json_decref(req); /* what still points into it is replaced below */
	if (rc)
		return rc;
	clear->url = url ? url : "";
	clear->method = redacted->method = NULL;
	clear->headers = redacted->headers = NULL;
	clear->n_headers = redacted->n_headers = 0;
	clear->websocket = redacted->websocket = 1;
	clear->direction = redacted->direction = direction;
	clear->size = redacted->size = len;
	return 0;
}

/* Tell the hook in context ctx of session to send (ok 1) or drop (0) message n. */
/* Tell the hook in ctx: send (ok 1) or drop (0) message n, or stop waiting (2). cb (may be NULL) with
 * the command's reply; 1 when the command was sent. */
static int answer_cb(kn_websockets *w, kn_cdp *c, const char *session, json_int_t ctx, json_int_t n, int ok,
                     kn_cdp_reply_fn cb, void *ud)
{
	char expr[160];
	snprintf(expr, sizeof expr, "%s('%s',%lld,%d)", w->release, w->key, (long long)n, ok);
	return kn_cdp_send(c, session, "Runtime.evaluate", json_pack("{s:s, s:I}", "expression", expr, "contextId",
	                   ctx), cb, ud) > 0;
}

static void answer(kn_websockets *w, kn_cdp *c, const char *session, json_int_t ctx, json_int_t n, int ok)
{
	answer_cb(w, c, session, ctx, n, ok, NULL, NULL);
}

/* Build, decide (when the hook waits) and report one message the hook reported. */
static void take_binding(kn_websockets *w, kn_cdp *c, const char *session, json_t *params, int ended)
{
	json_t *ctx = json_object_get(params, "executionContextId");
	const char *payload = kn_json_str(params, "payload");
	json_t *m = payload ? json_loads(payload, 0, NULL) : NULL;
	json_t *n = json_object_get(m, "n");
	const char *url = kn_json_str(m, "url"), *text = kn_json_str(m, "text"), *b64 = kn_json_str(m, "b64");
	unsigned char *bytes = NULL;
	size_t len = 0;
	/* a Blob's bytes, or what a report past 1 MiB left out, are not known: any frame of the session will do */
	int unknown = json_is_true(json_object_get(m, "blob")) || json_is_true(json_object_get(m, "cut")), ok = 1;
	if (b64 && kn_base64_decode(&bytes, &len, b64, strlen(b64)) != 0)
		bytes = NULL, len = 0;
	if (text)
		len = strlen(text) < KN_BODY_MAX_BYTES ? strlen(text) : KN_BODY_MAX_BYTES;
	kn_request_store *store = NULL;
	kn_request clear, red;
	int rc = json_is_integer(n) && url ? kn_websocket_build(&store, &clear, &red, url, "sent",
	                                                          text ? text : (const char *)bytes, len,
	                                                          !text, w->o.redact)
	                                   : KN_EINVAL;
	const kn_guard_rule *rule = NULL;
	for (size_t i = 0; !rc && w->guarded && !rule && i < sizeof w->o.guards / sizeof w->o.guards[0]; i++)
		rule = kn_guard_match(w->o.guards[i], &clear);
	ok = !rule;
	/* the report says whether its message waits (a hook installed before the rules' monitor left) */
	if (json_integer_value(json_object_get(m, "d")) == 1 && json_is_integer(n) && json_is_integer(ctx))
		answer(w, c, session, json_integer_value(ctx), json_integer_value(n), ok);
	if (ok)
		expect(w, session, unknown ? NULL : text ? text : b64);
	if (rc) {
		char q[200];
		kn_log_msg("warn", "monitor", "unreadable WebSocket message report: sent unmatched", "payload=\"%s\"",
		           kn_log_quote(q, sizeof q, payload));
	} else if (!ended && w->o.on_message) {
		/* the hook's count: a Blob's bytes are not readable where send is called, and a text past
		 * KN_BODY_MAX_BYTES is parsed from its start */
		json_int_t size = json_integer_value(json_object_get(m, "size"));
		clear.size = red.size = size > 0 ? (size_t)size : len;
		clear.held = red.held = rule != NULL;
		kn_ws_seen seen = {.session = session, .clear = &clear, .redacted = &red, .held_by = rule};
		w->o.on_message(w->o.ud, &seen);
	}
	kn_request_store_free(store);
	free(bytes);
	json_decref(m);
}

/* A worker's binding call waiting for the barrier. */
struct pending {
	kn_websockets *w;
	char *session;
	json_t *params;
	int ended;
};

static void barrier_done(void *arg, kn_cdp *c)
{
	struct pending *p = arg;
	take_binding(p->w, c, p->session, p->params, p->ended);
	free(p->session);
	json_decref(p->params);
	free(p);
}

static const char *sock_url(const kn_websockets *w, const char *session, const char *id)
{
	for (size_t i = 0; id && i < w->n_socks; i++)
		if (same(w->socks[i].session, session) && strcmp(w->socks[i].id, id) == 0)
			return w->socks[i].url;
	return NULL;
}

static void sock_add(kn_websockets *w, const char *session, const char *id, const char *url)
{
	if (!id || !url || w->n_socks >= KN_WS_MAX_SOCKETS)
		return;
	struct sock *grown = realloc(w->socks, (w->n_socks + 1) * sizeof *grown);
	if (!grown)
		return;
	w->socks = grown;
	struct sock *s = &grown[w->n_socks];
	s->session = session ? strdup(session) : NULL;
	s->id = strdup(id);
	s->url = strdup(url);
	if ((session && !s->session) || !s->id || !s->url) {
		free(s->session);
		free(s->id);
		free(s->url);
		return;
	}
	w->n_socks++;
}

/* A frame seen on the network: sent and not let through by a hook (watched_only), or received. */
static void take_frame(kn_websockets *w, const char *session, json_t *params, int sent, int ended)
{
	json_t *resp = json_object_get(params, "response");
	json_int_t op = json_integer_value(json_object_get(resp, "opcode"));
	const char *data = kn_json_str(resp, "payloadData");
	if ((op != 1 && op != 2) || !data)
		return; /* control frames carry no message */
	if (sent && expected(w, session, data))
		return;
	if (ended || (!sent && !w->o.received))
		return;
	const char *rid = kn_json_str(params, "requestId");
	double ts = json_number_value(json_object_get(params, "timestamp"));
	/* each session stamps the frame itself (microseconds apart): the same socket, payload length
	 * and a time within 50 ms is the same frame */
	for (size_t i = 0; rid && i < sizeof w->seen / sizeof w->seen[0]; i++)
		if (fabs(w->seen[i].ts - ts) < 0.05 && w->seen[i].len == strlen(data) && strcmp(w->seen[i].id, rid) == 0)
			return; /* the same frame, seen in a second session */
	if (rid) {
		struct seen_frame *f = &w->seen[w->seen_next++ % (sizeof w->seen / sizeof w->seen[0])];
		snprintf(f->id, sizeof f->id, "%s", rid);
		f->ts = ts;
		f->len = strlen(data);
	}
	const char *url = sock_url(w, session, kn_json_str(params, "requestId"));
	unsigned char *bytes = NULL;
	size_t len = strlen(data);
	if (op == 2 && kn_base64_decode(&bytes, &len, data, len) != 0)
		return;
	if (len > KN_BODY_MAX_BYTES)
		len = KN_BODY_MAX_BYTES;
	kn_request_store *store = NULL;
	kn_request clear, red;
	if (kn_websocket_build(&store, &clear, &red, url ? url : "", sent ? "sent" : "received",
	                       op == 2 ? (const char *)bytes : data, len, op == 2, w->o.redact) == 0) {
		clear.watched_only = red.watched_only = sent;
		if (sent) {
			char q[600];
			kn_log_msg("warn", "monitor", "WebSocket message sent where keynode cannot hold it: watched only",
			           "url=\"%s\" size=%zu", kn_log_quote(q, sizeof q, red.url), len);
		}
		kn_ws_seen seen = {.session = session, .clear = &clear, .redacted = &red};
		if (w->o.on_message)
			w->o.on_message(w->o.ud, &seen);
	}
	kn_request_store_free(store);
	free(bytes);
}

/* Follow the main-world contexts (a worker's has no auxData) of every session, with rules only. */
static void ctx_event(kn_websockets *w, const char *session, const char *method, json_t *params)
{
	if (!w->guarded || w->released || !session)
		return;
	if (strcmp(method, "Runtime.executionContextCreated") == 0) {
		json_t *ctx = json_object_get(params, "context"), *aux = json_object_get(ctx, "auxData");
		json_t *id = json_object_get(ctx, "id");
		if (!json_is_integer(id) || (aux && !json_is_true(json_object_get(aux, "isDefault"))))
			return;
		struct ctx *grown = realloc(w->ctxs, (w->n_ctxs + 1) * sizeof *grown);
		if (!grown)
			return;
		w->ctxs = grown;
		if ((grown[w->n_ctxs].session = strdup(session)))
			grown[w->n_ctxs++].id = json_integer_value(id);
	} else if (strcmp(method, "Runtime.executionContextDestroyed") == 0) {
		json_t *id = json_object_get(params, "executionContextId");
		if (json_is_integer(id))
			ctx_forget(w, session, json_integer_value(id));
	} else if (strcmp(method, "Runtime.executionContextsCleared") == 0) {
		ctx_forget(w, session, -1);
	}
}

int kn_websockets_release(kn_websockets *w, kn_cdp *c, kn_cdp_reply_fn cb, void *ud)
{
	int sent = 0;
	if (!w || !w->guarded || w->released || !c)
		return 0;
	for (size_t i = 0; i < w->n_ctxs; i++)
		sent += answer_cb(w, c, w->ctxs[i].session, w->ctxs[i].id, 0, 2, cb, ud);
	for (size_t i = 0; i < w->n_ctxs; i++)
		free(w->ctxs[i].session);
	w->n_ctxs = 0;
	w->released = 1;
	return sent;
}

int kn_websockets_event(kn_websockets *w, kn_cdp *c, const char *session, const char *method,
                        json_t *params, int ended)
{
	if (strncmp(method, "Runtime.executionContext", 24) == 0) {
		ctx_event(w, session, method, params);
		return 0; /* the monitor follows contexts too */
	}
	if (strcmp(method, "Runtime.bindingCalled") == 0) {
		const char *name = kn_json_str(params, "name");
		if (!name || strcmp(name, w->binding) != 0)
			return 0;
		struct pending *p = worker_kind(w, session) == 1 && !ended && w->o.barrier ? calloc(1, sizeof *p) : NULL;
		if (p && (p->session = strdup(session))) {
			p->w = w;
			p->params = json_incref(params);
			p->ended = ended;
			w->o.barrier(w->o.ud, c, NULL, barrier_done, p);
			return 1;
		}
		free(p);
		take_binding(w, c, session, params, ended);
		return 1;
	}
	if (strncmp(method, "Network.webSocket", 17) != 0)
		/* a worker's other Network events are not the monitor's: its requests are seen where they
		 * always were (requests.h), never twice */
		return strncmp(method, "Network.", 8) == 0 && worker_kind(w, session) != 0;
	const char *id = kn_json_str(params, "requestId");
	if (strcmp(method, "Network.webSocketCreated") == 0) {
		sock_add(w, session, id, kn_json_str(params, "url"));
	} else if (strcmp(method, "Network.webSocketFrameSent") == 0) {
		take_frame(w, session, params, 1, ended);
	} else if (strcmp(method, "Network.webSocketFrameReceived") == 0) {
		take_frame(w, session, params, 0, ended);
	} else if (strcmp(method, "Network.webSocketClosed") == 0) {
		for (size_t i = 0; id && i < w->n_socks; i++)
			if (same(w->socks[i].session, session) && strcmp(w->socks[i].id, id) == 0) {
				free(w->socks[i].session);
				free(w->socks[i].id);
				free(w->socks[i].url);
				w->socks[i] = w->socks[--w->n_socks];
				break;
			}
	}
	return 1;
}
