/* cdp_client.c — one browser connection: a websocket speaking flattened CDP, inside a kn_cdp_loop.
 *
 * Outgoing commands are serialized once into a buffer with LWS_PRE headroom and queued; the
 * queue drains one message per LWS_CALLBACK_CLIENT_WRITEABLE. Commands with a reply callback
 * sit in an id → command hash table and in a list ordered by deadline (every command of a
 * connection has the same timeout, so send order is deadline order); one lws_sul per connection
 * fires for the oldest deadline. Incoming messages arrive in chunks: one that arrives whole is
 * decoded in place, others are reassembled into a buffer sized from the frame header, up to
 * max_message; past it the rest is skipped, on_warning says so and — when the message is
 * recognisably a reply — its command fails at once instead of timing out. Whatever ends the
 * connection (connect error, close, wsi destroyed, kn_cdp_close, loop freed) funnels into
 * conn_finish exactly once: pending commands fail with the reason, on_close gets it, the
 * connection is freed — at once, or, when a handler closed it from inside lws or a sul, on the
 * way out of that callback (hold/release). lws callbacks find their connection through the
 * wsi's opaque user data, which conn_finish clears, so late callbacks for it do nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdp_internal.h"
#include "keynode/grow.h"

/* a reassembly buffer larger than this is released after its message */
#define RX_KEEP (1024 * 1024)
#define REASON_MAX 256

typedef struct pending {
	long long id;
	lws_usec_t deadline;
	kn_cdp_reply_fn cb;
	void *ud;
	struct pending *prev, *next; /* deadline order */
} pending;

typedef struct out_msg {
	struct out_msg *next;
	size_t len;
	unsigned char buf[]; /* LWS_PRE bytes of headroom, then the message */
} out_msg;

struct kn_cdp {
	kn_cdp_loop *loop;
	kn_cdp *prev, *next; /* the loop's connections */
	struct lws *wsi;     /* NULL once detached */
	kn_cdp_handlers h;
	size_t max_message;
	int timeout_ms;
	long long next_id;

	out_msg *q_head, *q_tail;

	char *rx;          /* reassembly of a message that came in pieces */
	size_t rx_len, rx_cap;
	int rx_active;     /* inside a message */
	int rx_dropping;   /* ... that is over max_message */
	size_t rx_total;   /* bytes of the current message so far */
	long long rx_drop_id; /* the dropped message's reply id, or -1 */

	pending **tab; /* open addressing, linear probing; tab_cap a power of two */
	size_t tab_cap, tab_n;
	pending *p_head, *p_tail;
	lws_sorted_usec_list_t sul_timeout;
	lws_sorted_usec_list_t sul_close; /* delivers a failure found while connecting */

	int opened, finished, connecting, failed;
	int busy; /* > 0 while lws or a sul is inside this connection: free it on the way out */
	char reason[REASON_MAX];
	int fail_code; /* the KN_E* behind the reply being failed (for kn_cdp_call) */
	kn_cdp_stats stats;
};

#define CONTAINER(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* --- the pending table --- */

static size_t home_slot(const kn_cdp *c, long long id)
{
	return (size_t)(((unsigned long long)id * 0x9E3779B97F4A7C15ull) >> 29) & (c->tab_cap - 1);
}

static int tab_grow(kn_cdp *c)
{
	size_t cap = c->tab_cap ? c->tab_cap * 2 : 64;
	pending **nt = calloc(cap, sizeof *nt);
	if (!nt)
		return KN_ENOMEM;
	pending **old = c->tab;
	size_t old_cap = c->tab_cap;
	c->tab = nt;
	c->tab_cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		if (!old[i])
			continue;
		size_t s = home_slot(c, old[i]->id);
		while (nt[s])
			s = (s + 1) & (cap - 1);
		nt[s] = old[i];
	}
	free(old);
	return 0;
}

static int tab_put(kn_cdp *c, pending *p)
{
	if ((c->tab_n + 1) * 2 > c->tab_cap && tab_grow(c))
		return KN_ENOMEM;
	size_t s = home_slot(c, p->id);
	while (c->tab[s])
		s = (s + 1) & (c->tab_cap - 1);
	c->tab[s] = p;
	c->tab_n++;
	return 0;
}

/* Remove and return the command with this id (NULL: none), backward-shifting its cluster. */
static pending *tab_take(kn_cdp *c, long long id)
{
	if (!c->tab_n)
		return NULL;
	size_t mask = c->tab_cap - 1, i = home_slot(c, id);
	while (c->tab[i] && c->tab[i]->id != id)
		i = (i + 1) & mask;
	pending *p = c->tab[i];
	if (!p)
		return NULL;
	c->tab[i] = NULL;
	c->tab_n--;
	for (size_t j = (i + 1) & mask; c->tab[j]; j = (j + 1) & mask) {
		size_t k = home_slot(c, c->tab[j]->id);
		/* move tab[j] into the hole unless its home lies cyclically in (i, j] */
		int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
		if (!stays) {
			c->tab[i] = c->tab[j];
			c->tab[j] = NULL;
			i = j;
		}
	}
	return p;
}

static void plist_unlink(kn_cdp *c, pending *p)
{
	if (p->prev)
		p->prev->next = p->next;
	else
		c->p_head = p->next;
	if (p->next)
		p->next->prev = p->prev;
	else
		c->p_tail = p->prev;
}

/* Hand a command its outcome and free it (already out of table and list). */
static void pending_done(kn_cdp *c, pending *p, json_t *result, const char *error, int code)
{
	c->fail_code = error ? code : 0;
	if (p->cb)
		p->cb(p->ud, c, result, error);
	free(p);
}

/* --- finishing --- */

static void conn_free(kn_cdp *c)
{
	free(c->rx);
	free(c->tab);
	free(c);
}

/* Bracket code that may call user handlers (which may kn_cdp_close the connection): release
 * frees a connection finished meanwhile and says so; the caller then leaves it alone. */
static void hold(kn_cdp *c)
{
	c->busy++;
}

static int release(kn_cdp *c)
{
	int gone = c->finished;
	if (--c->busy == 0 && gone)
		conn_free(c);
	return gone;
}

static void conn_finish(kn_cdp *c, const char *reason)
{
	if (c->finished)
		return;
	c->finished = 1;
	kn_cdp_loop *loop = c->loop;
	if (c->wsi) {
		lws_set_opaque_user_data(c->wsi, NULL);
		c->wsi = NULL;
	}
	lws_sul_cancel(&c->sul_timeout);
	lws_sul_cancel(&c->sul_close);
	char why[REASON_MAX];
	snprintf(why, sizeof why, "%s", reason);

	while (c->p_head) {
		pending *p = c->p_head;
		plist_unlink(c, p);
		tab_take(c, p->id);
		pending_done(c, p, NULL, why, KN_EIO);
	}
	for (out_msg *m = c->q_head, *next; m; m = next) {
		next = m->next;
		free(m);
	}
	c->q_head = c->q_tail = NULL;
	if (c->prev)
		c->prev->next = c->next;
	else
		loop->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (c->h.on_close)
		c->h.on_close(c->h.ud, c, why);
	if (!c->busy)
		conn_free(c);
	/* a kn_cdp_call waiting on this connection may be inside a sul: wake its poll */
	lws_cancel_service(loop->ctx);
}

void kn_cdp_close_all(kn_cdp_loop *loop, const char *reason)
{
	while (loop->conns) {
		kn_cdp *c = loop->conns;
		conn_finish(c, c->failed ? c->reason : reason);
	}
}

/* The wsi ended; say why in the words on_close promises. */
static void conn_lost(kn_cdp *c, struct lws *wsi, const char *detail)
{
	if (c->connecting || c->failed) {
		/* inside lws_client_connect_via_info: on_close must follow on the loop (on_close_sul) */
		if (!c->failed)
			snprintf(c->reason, sizeof c->reason, "connection refused: %s", detail);
		c->failed = 1;
		lws_set_opaque_user_data(wsi, NULL);
		c->wsi = NULL;
		return;
	}
	if (c->loop->destroying)
		conn_finish(c, "closed");
	else if (!c->opened) {
		char why[REASON_MAX];
		snprintf(why, sizeof why, "connection refused: %s", detail);
		conn_finish(c, why);
	} else
		conn_finish(c, "browser disconnected");
}

static void on_close_sul(lws_sorted_usec_list_t *sul)
{
	kn_cdp *c = CONTAINER(sul, kn_cdp, sul_close);
	conn_finish(c, c->reason);
}

/* --- timeouts --- */

static void on_timeout_sul(lws_sorted_usec_list_t *sul)
{
	kn_cdp *c = CONTAINER(sul, kn_cdp, sul_timeout);
	struct lws_context *ctx = c->loop->ctx;
	lws_usec_t now = lws_now_usecs();
	int failed = 0;
	hold(c);
	while (!c->finished && c->p_head && c->p_head->deadline <= now) {
		pending *p = c->p_head;
		plist_unlink(c, p);
		tab_take(c, p->id);
		pending_done(c, p, NULL, "timed out", KN_ETIMEOUT);
		c->stats.timeouts++;
		failed = 1;
	}
	if (!c->finished && c->p_head)
		lws_sul_schedule(ctx, 0, &c->sul_timeout, on_timeout_sul, c->p_head->deadline - now);
	release(c);
	if (failed) /* a waiter checks its flag only after this poll */
		lws_cancel_service(ctx);
}

/* --- receiving --- */

static void warn(kn_cdp *c, const char *fmt, ...)
	KN_PRINTF(2, 3)
	;

static void warn(kn_cdp *c, const char *fmt, ...)
{
	c->stats.dropped++;
	if (!c->h.on_warning)
		return;
	char what[KN_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	c->h.on_warning(c->h.ud, c, what);
}

/* The id of a reply from its first bytes ({"id":N,... is how Chromium writes replies), or -1. */
static long long sniff_reply_id(const char *p, size_t n)
{
	static const char head[] = "{\"id\":";
	size_t h = sizeof head - 1;
	if (n <= h || memcmp(p, head, h) != 0)
		return -1;
	long long id = 0;
	size_t i = h, digits = 0;
	for (; i < n && p[i] >= '0' && p[i] <= '9' && digits < 18; i++, digits++)
		id = id * 10 + (p[i] - '0');
	return digits && i < n && (p[i] == ',' || p[i] == '}') ? id : -1;
}

/* One complete message. */
static void deliver(kn_cdp *c, const char *buf, size_t len)
{
	kn_cdp_msg m;
	kn_err e;
	c->stats.messages_in++;
	if (kn_cdp_decode(&m, buf, len, &e) != 0) {
		warn(c, "message dropped: %s", e.msg);
		return;
	}
	if (m.kind == KN_CDP_EVENT) {
		if (c->h.on_event)
			c->h.on_event(c->h.ud, c, m.method, m.session_id, m.params);
	} else {
		pending *p = tab_take(c, m.id);
		if (p) {
			plist_unlink(c, p);
			pending_done(c, p, m.error ? NULL : m.params, m.error, KN_EPROTO);
		}
	}
	json_decref(m.root);
}

static void drop_start(kn_cdp *c, const char *first, size_t n)
{
	c->rx_dropping = 1;
	c->rx_drop_id = sniff_reply_id(first, n);
	c->rx_len = 0;
}

static void drop_end(kn_cdp *c)
{
	warn(c, "message dropped: %zu bytes exceed max_message %zu", c->rx_total, c->max_message);
	if (c->rx_drop_id < 0)
		return;
	pending *p = tab_take(c, c->rx_drop_id);
	if (!p)
		return;
	char why[128];
	snprintf(why, sizeof why, "reply too large: %zu bytes exceed max_message %zu", c->rx_total,
	         c->max_message);
	plist_unlink(c, p);
	pending_done(c, p, NULL, why, KN_ELIMIT);
}

static int rx_reserve(kn_cdp *c, size_t need)
{
	return kn_grow_to(&c->rx, need, &c->rx_cap, 1, 4096);
}

static void conn_rx(kn_cdp *c, struct lws *wsi, const char *in, size_t len)
{
	c->stats.bytes_in += len;
	size_t remaining = lws_remaining_packet_payload(wsi);
	int complete = lws_is_final_fragment(wsi) && remaining == 0;
	if (!c->rx_active) {
		if (complete) { /* the common case: whole, decoded where lws put it */
			if (len > c->max_message) {
				c->rx_total = len;
				c->rx_drop_id = sniff_reply_id(in, len);
				drop_end(c);
				c->stats.messages_in++;
			} else
				deliver(c, in, len);
			return;
		}
		c->rx_active = 1;
		c->rx_len = 0;
		c->rx_total = 0;
		c->rx_dropping = 0;
		/* this frame's size is known now: one allocation for a single-frame message */
		if (len + remaining > c->max_message)
			drop_start(c, in, len);
		else if (rx_reserve(c, len + remaining)) {
			drop_start(c, in, len);
			warn(c, "out of memory reassembling a message of %zu bytes", len + remaining);
		}
	}
	c->rx_total += len;
	if (!c->rx_dropping) {
		if (c->rx_total > c->max_message)
			drop_start(c, c->rx, c->rx_len);
		else if (rx_reserve(c, c->rx_len + len)) {
			drop_start(c, c->rx, c->rx_len);
			warn(c, "out of memory reassembling a message of %zu bytes", c->rx_total);
		} else {
			memcpy(c->rx + c->rx_len, in, len);
			c->rx_len += len;
		}
	}
	if (!complete)
		return;
	c->rx_active = 0;
	if (c->rx_dropping) {
		c->stats.messages_in++;
		drop_end(c);
	} else
		deliver(c, c->rx, c->rx_len);
	c->rx_len = 0;
	if (!c->finished && c->rx_cap > RX_KEEP) {
		free(c->rx);
		c->rx = NULL;
		c->rx_cap = 0;
	}
}

/* --- the protocol callback --- */

static int conn_writeable(kn_cdp *c, struct lws *wsi)
{
	out_msg *m = c->q_head;
	if (!m)
		return 0;
	c->q_head = m->next;
	if (!c->q_head)
		c->q_tail = NULL;
	int n = lws_write(wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT);
	int short_write = n < 0 || (size_t)n < m->len;
	free(m);
	if (short_write)
		return -1;
	c->stats.messages_out++;
	if (c->q_head)
		lws_callback_on_writable(wsi);
	return 0;
}

int kn_cdp_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
	(void)user;
	if (reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED) {
		kn_cdp_loop *loop = lws_context_user(lws_get_context(wsi));
		if (loop)
			kn_cdp_loop_drain(loop);
		return 0;
	}
	kn_cdp *c = lws_get_opaque_user_data(wsi);
	if (!c)
		return 0;
	int rc = 0;
	hold(c);
	switch (reason) {
	case LWS_CALLBACK_CLIENT_ESTABLISHED:
		c->wsi = wsi;
		c->opened = 1;
		if (c->q_head)
			lws_callback_on_writable(wsi);
		if (c->h.on_open)
			c->h.on_open(c->h.ud, c);
		break;
	case LWS_CALLBACK_CLIENT_RECEIVE:
		conn_rx(c, wsi, in, len);
		break;
	case LWS_CALLBACK_CLIENT_WRITEABLE:
		rc = conn_writeable(c, wsi);
		break;
	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR: {
		char detail[200];
		if (in && len)
			snprintf(detail, sizeof detail, "%.*s", (int)len, (const char *)in);
		else
			snprintf(detail, sizeof detail, "%s", in ? (const char *)in : "connection failed");
		conn_lost(c, wsi, detail);
		break;
	}
	case LWS_CALLBACK_CLIENT_CLOSED:
	case LWS_CALLBACK_WSI_DESTROY:
		conn_lost(c, wsi, "connection closed before the websocket opened");
		break;
	default:
		break;
	}
	/* closed by a handler (kn_cdp_close): its wsi is already detached and killed */
	if (release(c) && (reason == LWS_CALLBACK_CLIENT_RECEIVE ||
	                   reason == LWS_CALLBACK_CLIENT_ESTABLISHED))
		return -1;
	return rc;
}

/* --- the public side --- */

int kn_cdp_connect(kn_cdp **out, kn_cdp_loop *loop, const char *ws_url, const kn_cdp_opts *opts,
                   const kn_cdp_handlers *h, kn_err *err)
{
	*out = NULL;
	if (!loop || !ws_url)
		return kn_err_set(err, KN_EINVAL, "cdp connect: no loop or URL");
	if (loop->destroying)
		return kn_err_set(err, KN_EINVAL, "cdp connect: the loop is being freed");
	if (strncmp(ws_url, "ws://", 5) != 0)
		return kn_err_set(err, KN_EINVAL, "cdp connect %s: not a ws:// URL", ws_url);

	char *copy = strdup(ws_url);
	kn_cdp *c = calloc(1, sizeof *c);
	if (!copy || !c) {
		free(copy);
		free(c);
		return kn_err_set(err, KN_ENOMEM, "cdp connect: out of memory");
	}
	const char *prot, *addr, *path;
	int port = 0;
	if (lws_parse_uri(copy, &prot, &addr, &port, &path) || !*addr || port <= 0 || port > 65535) {
		free(copy);
		free(c);
		return kn_err_set(err, KN_EINVAL, "cdp connect %s: cannot parse the URL", ws_url);
	}
	/* lws_parse_uri strips the path's leading '/': put it back */
	char path_buf[2048], host_buf[300];
	snprintf(path_buf, sizeof path_buf, "/%s", path);
	snprintf(host_buf, sizeof host_buf, "%s:%d", addr, port);

	c->loop = loop;
	if (h)
		c->h = *h;
	c->max_message = opts && opts->max_message ? opts->max_message : KN_CDP_MAX_MESSAGE_DEFAULT;
	c->timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : KN_CDP_TIMEOUT_DEFAULT_MS;
	c->rx_drop_id = -1;
	c->next = loop->conns;
	if (c->next)
		c->next->prev = c;
	loop->conns = c;

	struct lws_client_connect_info ci;
	memset(&ci, 0, sizeof ci);
	ci.context = loop->ctx;
	ci.address = addr;
	ci.port = port;
	ci.path = path_buf;
	ci.host = host_buf;
	ci.origin = NULL; /* Chromium refuses the upgrade when an Origin is sent */
	ci.protocol = NULL;
	ci.local_protocol_name = KN_CDP_PROTOCOL;
	ci.opaque_user_data = c;
	c->connecting = 1;
	struct lws *wsi = lws_client_connect_via_info(&ci);
	c->connecting = 0;
	free(copy);
	if (!wsi || c->failed) {
		if (!c->failed)
			snprintf(c->reason, sizeof c->reason, "connection refused: cannot connect to %.200s",
			         host_buf);
		c->failed = 1;
		c->wsi = NULL;
		lws_sul_schedule(loop->ctx, 0, &c->sul_close, on_close_sul, 0);
	} else
		c->wsi = wsi;
	*out = c;
	return 0;
}

/* Bytes of s as a JSON string body (without quotes); writes them when dst is not NULL. */
static size_t json_escape(char *dst, const char *s)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[7];
		size_t k;
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			k = 2;
		} else if (*p < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", *p);
			k = 6;
		} else {
			esc[0] = (char)*p;
			k = 1;
		}
		if (dst)
			memcpy(dst + n, esc, k);
		n += k;
	}
	return n;
}

/* {"id":N,"method":"M"[,"sessionId":"S"],"params":P} in a buffer with LWS_PRE headroom. */
static out_msg *build_command(long long id, const char *method, const char *session_id,
                              json_t *params)
{
	char head[40];
	int hn = snprintf(head, sizeof head, "{\"id\":%lld,\"method\":\"", id);
	size_t mlen = json_escape(NULL, method);
	size_t slen = session_id ? json_escape(NULL, session_id) : 0;
	size_t plen = params ? json_dumpb(params, NULL, 0, JSON_COMPACT) : 2;
	if (params && plen == 0)
		return NULL;
	static const char s_sid[] = "\",\"sessionId\":\"", s_par[] = "\",\"params\":";
	size_t len = (size_t)hn + mlen + (session_id ? sizeof s_sid - 1 + slen : 0) +
	             sizeof s_par - 1 + plen + 1;
	out_msg *m = malloc(sizeof *m + LWS_PRE + len);
	if (!m)
		return NULL;
	char *p = (char *)m->buf + LWS_PRE;
	memcpy(p, head, (size_t)hn);
	p += hn;
	p += json_escape(p, method);
	if (session_id) {
		memcpy(p, s_sid, sizeof s_sid - 1);
		p += sizeof s_sid - 1;
		p += json_escape(p, session_id);
	}
	memcpy(p, s_par, sizeof s_par - 1);
	p += sizeof s_par - 1;
	if (params) {
		if (json_dumpb(params, p, plen, JSON_COMPACT) != plen) {
			free(m);
			return NULL;
		}
		p += plen;
	} else {
		memcpy(p, "{}", 2);
		p += 2;
	}
	*p = '}';
	m->next = NULL;
	m->len = len;
	return m;
}

long long kn_cdp_send(kn_cdp *c, const char *session_id, const char *method, json_t *params,
                      kn_cdp_reply_fn cb, void *ud)
{
	if (!c || !method || !*method || (params && !json_is_object(params))) {
		json_decref(params);
		return KN_EINVAL;
	}
	/* a connection that failed while connecting still queues: its on_close fails everything
	 * with the reason, so callers see "connection refused: ..." either way */
	if (c->finished) {
		json_decref(params);
		return KN_EIO;
	}
	long long id = ++c->next_id;
	out_msg *m = build_command(id, method, session_id, params);
	json_decref(params);
	if (!m)
		return KN_ENOMEM;
	if (cb) {
		pending *p = calloc(1, sizeof *p);
		if (p) {
			p->id = id;
			p->cb = cb;
			p->ud = ud;
		}
		if (!p || tab_put(c, p) != 0) {
			free(p);
			free(m);
			return KN_ENOMEM;
		}
		p->deadline = lws_now_usecs() + (lws_usec_t)c->timeout_ms * LWS_US_PER_MS;
		p->prev = c->p_tail;
		if (c->p_tail)
			c->p_tail->next = p;
		else {
			c->p_head = p;
			lws_sul_schedule(c->loop->ctx, 0, &c->sul_timeout, on_timeout_sul,
			                 (lws_usec_t)c->timeout_ms * LWS_US_PER_MS);
		}
		c->p_tail = p;
	}
	if (c->q_tail)
		c->q_tail->next = m;
	else
		c->q_head = m;
	c->q_tail = m;
	if (c->opened && c->wsi)
		lws_callback_on_writable(c->wsi);
	return id;
}

typedef struct call_wait {
	int done, code;
	json_t *result;
	char error[KN_ERR_MAX - 64];
} call_wait;

static void on_call_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	call_wait *w = ud;
	w->done = 1;
	if (error) {
		w->code = c->fail_code ? c->fail_code : KN_EIO;
		snprintf(w->error, sizeof w->error, "%s", error);
	} else
		w->result = json_incref(result);
}

int kn_cdp_call(kn_cdp *c, const char *session_id, const char *method, json_t *params,
                json_t **result, kn_err *err)
{
	if (result)
		*result = NULL;
	if (!c) {
		json_decref(params);
		return kn_err_set(err, KN_EINVAL, "cdp call: no connection");
	}
	kn_cdp_loop *loop = c->loop;
	if (loop->depth) {
		json_decref(params);
		return kn_err_set(err, KN_EINVAL,
		                  "cdp call %s: not from inside a loop callback (use kn_cdp_send)", method);
	}
	call_wait w = {0};
	long long id = kn_cdp_send(c, session_id, method, params, on_call_reply, &w);
	if (id < 0)
		return kn_err_set(err, (int)id, "cdp call %s: %s", method,
		                  id == KN_EIO ? "connection closed" : kn_strerror((int)id));
	/* the connection's timeout sul ends the wait at the latest; c may be freed meanwhile */
	while (!w.done) {
		if (kn_cdp_loop_stopped(loop)) {
			pending *p = tab_take(c, id);
			if (p) {
				plist_unlink(c, p);
				free(p);
			}
			return kn_err_set(err, KN_EIO, "cdp call %s: the loop was stopped", method);
		}
		loop->depth++;
		int n = lws_service(loop->ctx, 0);
		loop->depth--;
		if (n < 0 && !w.done) {
			pending *p = tab_take(c, id);
			if (p) {
				plist_unlink(c, p);
				free(p);
			}
			return kn_err_set(err, KN_EIO, "cdp call %s: the event loop failed", method);
		}
	}
	if (w.code) {
		json_decref(w.result);
		return kn_err_set(err, w.code, "%s: %s", method, w.error);
	}
	if (result)
		*result = w.result;
	else
		json_decref(w.result);
	return 0;
}

void kn_cdp_close(kn_cdp *c)
{
	if (!c || c->finished)
		return;
	/* lws closes the socket on its next turn (or in lws_context_destroy); every callback for
	 * the wsi from now on finds no connection */
	if (c->wsi)
		lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
	conn_finish(c, "closed");
}

void kn_cdp_get_stats(const kn_cdp *c, kn_cdp_stats *out)
{
	*out = c->stats;
}
