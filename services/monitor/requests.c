/* requests.c — requests a watched run's pages and service workers send, and the guard (requests.h).
 * A service worker's request is decided at the browser session, after the owner's barrier; so is a
 * request of the run's frames that no target session decided (a tab's pagehide beacon sent as the
 * tab closes: its session is gone before the request leaves). A
 * request's body comes inline (postData, or postDataEntries as base64 bytes) or, when Chromium kept
 * it back, from Network.getRequestPostData; a paused request waits for it before it is decided, so
 * a guard rule on a body field sees the body. Every Fetch.requestPaused is answered exactly once: held
 * (fulfilled or failed), or continued — on every path, failures included, so no page ever hangs on
 * the monitor. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "keynode/base64.h"
#include "keynode/grow.h"
#include "log.h"
#include "requests.h"

/* How many network ids of requests decided at a target session (continued, held), and frame ids of
 * the run, are remembered. A request pauses at the browser session a few milliseconds after its
 * target session let it go, so only recent ones matter; the oldest is forgotten first. */
#define RING 1024

/* The last RING strings added, oldest overwritten. */
struct ring {
	char *s[RING];
	size_t next;
};

struct kn_requests {
	kn_requests_opts o;
	int guarded;   /* some guard rule exists */
	int intercept; /* Fetch.enable in every target: guarded or request key nodes */
	int all_types; /* a rule may hold a GET: every resource type is paused, images included */
	char **workers; /* target ids of the run's service workers: their requests pause at the browser */
	size_t n_workers, cap_workers;
	struct ring continued; /* network ids a target session decided and continued */
	struct ring held;      /* network ids a target session held: its answer may not have reached a
	                        * session that was closing, and the request pauses at the browser next */
	struct ring frames;    /* frame ids of the run: tabs, and frames whose requests paused at ours */
};

static int ring_has(const struct ring *g, const char *s)
{
	for (size_t i = 0; s && i < RING; i++)
		if (g->s[i] && strcmp(g->s[i], s) == 0)
			return 1;
	return 0;
}

static void ring_add(struct ring *g, const char *s)
{
	if (!s || ring_has(g, s))
		return;
	char *copy = strdup(s);
	if (!copy)
		return; /* forgotten: such a request is decided again at the browser session, not let through */
	free(g->s[g->next]);
	g->s[g->next] = copy;
	g->next = (g->next + 1) % RING;
}

static void ring_clear(struct ring *g)
{
	for (size_t i = 0; i < RING; i++)
		free(g->s[i]);
}

/* The headers written with a request (beside the secret ones, always written as [redacted]). */
static const char *const kept_headers[] = {"content-type", "origin", "referer", "x-requested-with"};

struct kn_request_store {
	kn_body *body;
	char *url_redacted;
	kn_field *rfields;     /* the redacted copy of body's fields */
	kn_field *headers, *rheaders;
	char **own;            /* header names, lower-cased */
	size_t n_own;
};

void kn_request_store_free(kn_request_store *s)
{
	if (!s)
		return;
	kn_body_free(s->body);
	free(s->url_redacted);
	free(s->rfields);
	free(s->headers);
	free(s->rheaders);
	for (size_t i = 0; i < s->n_own; i++)
		free(s->own[i]);
	free(s->own);
	free(s);
}

/* The value of header name in a CDP headers object, any case; NULL when absent. */
static const char *header(json_t *headers, const char *name)
{
	const char *k;
	json_t *v;
	json_object_foreach(headers, k, v)
		if (strcasecmp(k, name) == 0 && json_is_string(v))
			return json_string_value(v);
	return NULL;
}

static int kept(const kn_redact *rules, const char *name)
{
	for (size_t i = 0; i < sizeof kept_headers / sizeof kept_headers[0]; i++)
		if (strcasecmp(name, kept_headers[i]) == 0)
			return 1;
	return kn_redact_header(rules, name);
}

int kn_request_build(kn_request_store **store, kn_request *clear, kn_request *redacted,
                     json_t *request, const char *body, size_t body_len, const kn_redact *rules)
{
	kn_request_store *s = calloc(1, sizeof *s);
	*store = s;
	if (!s)
		return KN_ENOMEM;
	json_t *headers = json_object_get(request, "headers");
	const char *url = kn_json_str(request, "url"), *method = kn_json_str(request, "method");
	memset(clear, 0, sizeof *clear);
	clear->url = url ? url : "";
	clear->method = method ? method : "GET";
	if (kn_body_parse(&s->body, header(headers, "content-type"), body, body_len) != 0 ||
	    kn_redact_url(rules, &s->url_redacted, clear->url) != 0)
		return KN_ENOMEM;
	clear->fields = s->body->fields;
	clear->n_fields = s->body->n;
	size_t nh = json_object_size(headers);
	if ((s->body->n && !(s->rfields = calloc(s->body->n, sizeof *s->rfields))) ||
	    (nh && (!(s->headers = calloc(nh, sizeof *s->headers)) ||
	            !(s->rheaders = calloc(nh, sizeof *s->rheaders)) || !(s->own = calloc(nh, sizeof *s->own)))))
		return KN_ENOMEM;
	for (size_t i = 0; i < s->body->n; i++) {
		s->rfields[i] = s->body->fields[i];
		if (kn_redact_field(rules, s->rfields[i].name, s->rfields[i].value))
			s->rfields[i].value = KN_REDACTED;
	}
	const char *k;
	json_t *v;
	json_object_foreach(headers, k, v) {
		if (!json_is_string(v) || !kept(rules, k) || s->n_own >= nh)
			continue;
		char *name = strdup(k);
		if (!name)
			return KN_ENOMEM;
		for (char *p = name; *p; p++)
			*p = *p >= 'A' && *p <= 'Z' ? (char)(*p + 32) : *p;
		size_t i = s->n_own++;
		s->own[i] = name;
		s->headers[i] = (kn_field){name, json_string_value(v)};
		s->rheaders[i] = (kn_field){name, kn_redact_header(rules, name) ? KN_REDACTED : json_string_value(v)};
	}
	clear->headers = s->headers;
	clear->n_headers = s->n_own;
	*redacted = *clear;
	redacted->url = s->url_redacted;
	redacted->fields = s->rfields;
	redacted->headers = s->rheaders;
	return 0;
}

int kn_requests_new(kn_requests **out, const kn_requests_opts *o)
{
	kn_requests *r = calloc(1, sizeof *r);
	*out = r;
	if (!r)
		return KN_ENOMEM;
	r->o = *o;
	for (size_t i = 0; i < sizeof o->guards / sizeof o->guards[0]; i++) {
		r->guarded |= kn_guard_has(o->guards[i], 0); /* websocket rules are websockets.c's */
		r->all_types |= kn_guard_holds_gets(o->guards[i]);
	}
	r->intercept = r->guarded || o->request_nodes;
	return 0;
}

void kn_requests_free(kn_requests *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_workers; i++)
		free(r->workers[i]);
	free(r->workers);
	ring_clear(&r->continued);
	ring_clear(&r->held);
	ring_clear(&r->frames);
	free(r);
}

int kn_requests_guarded(const kn_requests *r)
{
	return r && r->guarded;
}

int kn_requests_intercepting(const kn_requests *r)
{
	return r && r->intercept;
}

static void fetch_enable(const kn_requests *r, kn_cdp *c, const char *session)
{
	/* the resource types a page sends data with; images, scripts, styles, fonts and media pass
	 * untouched unless a rule may hold a GET, which may name any of them (one pattern for all) */
	static const char *const types[] = {"Document", "XHR", "Fetch", "Ping", "EventSource", "Other"};
	json_t *patterns = json_array();
	if (patterns && r->all_types)
		json_array_append_new(patterns, json_pack("{s:s, s:s}", "urlPattern", "*", "requestStage", "Request"));
	for (size_t i = 0; patterns && !r->all_types && i < sizeof types / sizeof types[0]; i++)
		json_array_append_new(patterns, json_pack("{s:s, s:s, s:s}", "urlPattern", "*", "resourceType",
		                                          types[i], "requestStage", "Request"));
	kn_cdp_send(c, session, "Fetch.enable", json_pack("{s:o}", "patterns", patterns), NULL, NULL);
}

void kn_requests_attach(kn_requests *r, kn_cdp *c, const char *session, int network)
{
	if (network)
		kn_cdp_send(c, session, "Network.enable",
		            json_pack("{s:i, s:i}", "maxTotalBufferSize", 0, "maxResourceBufferSize", 0), NULL, NULL);
	if (r->intercept && !r->o.skip_fetch)
		fetch_enable(r, c, session);
}

void kn_requests_frame(kn_requests *r, const char *frame_id)
{
	ring_add(&r->frames, frame_id);
}

void kn_requests_attach_browser(kn_requests *r, kn_cdp *c)
{
	if (r->intercept && !r->o.skip_fetch)
		fetch_enable(r, c, NULL);
}

static long worker_index(const kn_requests *r, const char *target_id)
{
	for (size_t i = 0; target_id && i < r->n_workers; i++)
		if (strcmp(r->workers[i], target_id) == 0)
			return (long)i;
	return -1;
}

void kn_requests_worker(kn_requests *r, const char *target_id, int alive)
{
	long i = worker_index(r, target_id);
	if (!alive && i >= 0) {
		free(r->workers[i]);
		r->workers[i] = r->workers[--r->n_workers];
	} else if (alive && i < 0 && target_id) {
		if (kn_grow(&r->workers, r->n_workers, &r->cap_workers, sizeof *r->workers, 4))
			return;
		if ((r->workers[r->n_workers] = strdup(target_id)))
			r->n_workers++;
	}
}

/* Recorded when sent: a method that sends data, or a GET of a script or beacon when asked. */
static int worth_recording(const kn_requests *r, const char *method, const char *type)
{
	if (!method || (strcmp(method, "GET") && strcmp(method, "HEAD") && strcmp(method, "OPTIONS")))
		return 1;
	return r->o.request_nodes && type && strcmp(method, "GET") == 0 &&
	       (!strcmp(type, "XHR") || !strcmp(type, "Fetch") || !strcmp(type, "Ping"));
}

/* One request waiting for its body: its session and the event's params. */
struct pending {
	kn_requests *r;
	char *session;
	json_t *params;
	int paused, ended;
};

static void pending_free(struct pending *p)
{
	free(p->session);
	json_decref(p->params);
	free(p);
}

/* The body as sent: postData, else postDataEntries' bytes (base64) joined. *own is set when the
 * bytes are ours to free. */
static const char *inline_body(json_t *request, size_t *len, char **own)
{
	json_t *pd = json_object_get(request, "postData");
	*own = NULL;
	*len = 0;
	if (json_is_string(pd)) {
		*len = json_string_length(pd);
		return json_string_value(pd);
	}
	json_t *entries = json_object_get(request, "postDataEntries"), *e;
	size_t i, total = 0;
	char *all = NULL;
	json_array_foreach(entries, i, e) {
		const char *b = kn_json_str(e, "bytes");
		unsigned char *bytes = NULL;
		size_t n = 0;
		if (!b || kn_base64_decode(&bytes, &n, b, strlen(b)) != 0)
			continue;
		char *grown = total + n <= KN_BODY_MAX_BYTES ? realloc(all, total + n + 1) : NULL;
		if (grown) {
			memcpy(grown + total, bytes, n);
			total += n;
			all = grown;
		}
		free(bytes);
	}
	*own = all;
	*len = total;
	return all;
}

/* Answer a held request: a page for a navigation, the rule's status and body otherwise, or a
 * network error. */
static void hold(kn_cdp *c, const char *session, const char *id, const char *type,
                 const kn_guard_rule *rule)
{
	if (rule->fail) {
		kn_cdp_send(c, session, "Fetch.failRequest",
		            json_pack("{s:s, s:s}", "requestId", id, "errorReason", "BlockedByClient"), NULL, NULL);
		return;
	}
	int doc = type && strcmp(type, "Document") == 0;
	const char *body = doc ? kn_guard_page_html() : rule->body ? rule->body : KN_GUARD_DEFAULT_BODY;
	const char *ctype = doc ? "text/html; charset=utf-8"
	                        : rule->body ? "text/plain; charset=utf-8" : "application/json";
	char *b64 = NULL;
	if (kn_base64_encode(&b64, (const unsigned char *)body, strlen(body)) != 0) {
		kn_cdp_send(c, session, "Fetch.failRequest",
		            json_pack("{s:s, s:s}", "requestId", id, "errorReason", "BlockedByClient"), NULL, NULL);
		return;
	}
	kn_cdp_send(c, session, "Fetch.fulfillRequest",
	            json_pack("{s:s, s:i, s:[{s:s, s:s}, {s:s, s:s}], s:s}", "requestId", id, "responseCode",
	                      doc || !rule->status ? 200 : rule->status, "responseHeaders", "name",
	                      "Content-Type", "value", ctype, "name", "X-Held-By", "value", "keynode", "body", b64),
	            NULL, NULL);
	free(b64);
}

/* A request seen at a tab's session, recorded once the events its tabs sent before it are in. */
struct seen_later {
	kn_requests *r;
	kn_request_store *store; /* owns the bodies; the strings are params' */
	kn_request clear, red;
	json_t *params;
	char *session;
	kn_request_seen seen;
};

static void record_later(void *arg, kn_cdp *c)
{
	(void)c;
	struct seen_later *l = arg;
	l->seen.session = l->session;
	l->seen.clear = &l->clear;
	l->seen.redacted = &l->red;
	if (l->r->o.on_request)
		l->r->o.on_request(l->r->o.ud, &l->seen);
	kn_request_store_free(l->store);
	json_decref(l->params);
	free(l->session);
	free(l);
}

/* Record a request: through the barrier when it came from a tab's session. Chromium reports a
 * request (Fetch.requestPaused, Network.requestWillBeSent) from the browser process and the
 * recorder's binding call of the click that sent it from the renderer, by two ways that a loaded
 * machine may swap; the round trip to the tab brings the click first, so the request credits the
 * click's step and not the one before. Only the record waits: the request was decided already. */
static void record(kn_requests *r, kn_cdp *c, json_t *params, kn_request_store *store,
                   const kn_request *clear, const kn_request *red, const kn_request_seen *seen)
{
	struct seen_later *l = seen->session && r->o.barrier ? calloc(1, sizeof *l) : NULL;
	if (l && (l->session = strdup(seen->session))) {
		l->r = r;
		l->store = store;
		l->clear = *clear;
		l->red = *red;
		l->params = json_incref(params);
		l->seen = *seen;
		r->o.barrier(r->o.ud, c, seen->session, record_later, l);
		return;
	}
	free(l); /* out of memory: recorded at once, as without a barrier */
	if (r->o.on_request)
		r->o.on_request(r->o.ud, seen);
	kn_request_store_free(store);
}

/* Decide (paused) and record one request whose body is known. */
static void decide(kn_requests *r, kn_cdp *c, const char *session, json_t *params, int paused,
                   int ended, const char *body, size_t body_len)
{
	json_t *request = json_object_get(params, "request");
	const char *type = kn_json_str(params, paused ? "resourceType" : "type");
	const char *id = kn_json_str(params, "requestId");
	kn_request_store *store = NULL;
	kn_request clear, red;
	int rc = kn_request_build(&store, &clear, &red, request, body, body_len, r->o.redact);
	const kn_guard_rule *rule = NULL;
	for (size_t i = 0; !rc && paused && !rule && i < sizeof r->o.guards / sizeof r->o.guards[0]; i++)
		rule = kn_guard_match(r->o.guards[i], &clear);
	/* decided here: its next pause, at the browser session, is not decided (nor recorded) again */
	if (paused && session)
		ring_add(rule ? &r->held : &r->continued, kn_json_str(params, "networkId"));
	if (paused && id && c) {
		if (rule)
			hold(c, session, id, type, rule);
		else
			kn_cdp_send(c, session, "Fetch.continueRequest", json_pack("{s:s}", "requestId", id), NULL, NULL);
	}
	if (rc)
		kn_log_msg("error", "monitor", "out of memory reading a request", NULL);
	if (rc || ended || (!rule && !worth_recording(r, clear.method, type))) {
		kn_request_store_free(store);
		return;
	}
	clear.held = red.held = rule != NULL;
	json_t *wt = json_object_get(params, "wallTime");
	kn_request_seen seen = {.session = session, .type = type, .clear = &clear, .redacted = &red,
	                        .wall_ms = json_is_number(wt) ? json_number_value(wt) * 1000.0 : 0,
	                        .held_by = rule};
	record(r, c, params, store, &clear, &red, &seen);
}

static void post_data_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	struct pending *p = ud;
	json_t *pd = error ? NULL : json_object_get(result, "postData");
	const char *body = json_is_string(pd) ? json_string_value(pd) : NULL;
	char *own = NULL;
	size_t len = body ? json_string_length(pd) : 0;
	if (body && json_is_true(json_object_get(result, "base64Encoded"))) {
		unsigned char *bytes = NULL;
		if (kn_base64_decode(&bytes, &len, body, len) == 0)
			body = own = (char *)bytes;
		else
			body = NULL, len = 0;
	}
	/* the connection is closing (c NULL or failing): a paused request dies with our session */
	decide(p->r, c, p->session, p->params, p->paused, p->ended, body, len);
	free(own);
	pending_free(p);
}

/* A request to record (and, paused, to decide): its body first, when Chromium kept it back. */
static void take(kn_requests *r, kn_cdp *c, const char *session, json_t *params, int paused, int ended)
{
	json_t *request = json_object_get(params, "request");
	size_t len;
	char *own;
	const char *body = inline_body(request, &len, &own);
	const char *net_id = kn_json_str(params, paused ? "networkId" : "requestId");
	if (!body && json_is_true(json_object_get(request, "hasPostData")) && net_id) {
		struct pending *p = calloc(1, sizeof *p);
		if (p && (p->session = session ? strdup(session) : NULL, !session || p->session)) {
			p->r = r;
			p->params = json_incref(params);
			p->paused = paused;
			p->ended = ended;
			if (kn_cdp_send(c, session, "Network.getRequestPostData",
			                json_pack("{s:s}", "requestId", net_id), post_data_reply, p) >= 0)
				return;
		}
		if (p)
			pending_free(p);
	}
	decide(r, c, session, params, paused, ended, body, len);
	free(own);
}

static void barrier_done(void *arg, kn_cdp *c)
{
	struct pending *p = arg;
	take(p->r, c, p->session, p->params, p->paused, p->ended);
	pending_free(p);
}

int kn_requests_event(kn_requests *r, kn_cdp *c, const char *session, const char *method,
                      json_t *params, int ended)
{
	int paused = strcmp(method, "Fetch.requestPaused") == 0;
	if (!paused && strcmp(method, "Network.requestWillBeSent") != 0)
		return 0;
	if (!paused && (r->intercept || ended))
		return 1; /* intercepting, requests are seen where they pause */
	/* at the browser session every request pauses once more, after its own target's session let it
	 * go: decided there are the run's service workers' and a request of the run's frames that no
	 * target session continued — its session was gone before it left (requests.h) */
	const char *frame = kn_json_str(params, "frameId"), *net_id = kn_json_str(params, "networkId");
	int worker = paused && !session && worker_index(r, frame) >= 0;
	int orphan = paused && !session && !worker && net_id && ring_has(&r->frames, frame) &&
	             !ring_has(&r->continued, net_id);
	if (paused && session)
		ring_add(&r->frames, frame);
	if (orphan && ring_has(&r->held, net_id)) {
		/* held at its tab's session as the tab closed, and let go by the closing session: held again,
		 * already recorded */
		kn_cdp_send(c, session, "Fetch.failRequest",
		            json_pack("{s:s, s:s}", "requestId", kn_json_str(params, "requestId"), "errorReason",
		                      "BlockedByClient"),
		            NULL, NULL);
		return 1;
	}
	if (orphan)
		kn_log_msg("debug", "monitor", "request decided at the browser session", "frame=%s", frame);
	if ((paused && json_object_get(params, "responseStatusCode")) || (paused && !session && !worker && !orphan)) {
		kn_cdp_send(c, session, "Fetch.continueRequest",
		            json_pack("{s:s}", "requestId", kn_json_str(params, "requestId")), NULL, NULL);
		return 1;
	}
	/* a worker's request comes by another way than the tab events of the action that caused it: it
	 * waits until the tabs' events sent before it are in (opts.barrier) */
	struct pending *p = worker && !ended && r->o.barrier ? calloc(1, sizeof *p) : NULL;
	if (p) {
		p->r = r;
		p->params = json_incref(params);
		p->paused = 1;
		r->o.barrier(r->o.ud, c, NULL, barrier_done, p);
		return 1;
	}
	take(r, c, session, params, paused, ended);
	return 1;
}
