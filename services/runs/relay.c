/* relay.c — the live feed of runs across serves (relay.h): a kn_store_notifier sends this serve's
 * run messages on KN_RELAY_CHANNEL, a kn_store_listener takes every serve's and publishes those
 * of the others to the local kn_stream. A serve's own messages come back to it too (its listener
 * is another session) and are skipped by their sender id. A second listener publishes every
 * recorded alert (KN_ALERTS_CHANNEL), whichever process raised it. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "log.h"
#include "relay.h"
#include "request.h"
#include "store_serve.h"
#include "stream_relay.h"

struct kn_runs_relay {
	char me[KN_HTTP_MAX_HOP + 1];
	kn_stream *stream;
	kn_store_notifier *out;
	kn_store_listener *in;
	kn_store_listener *alerts; /* keynode_alerts: every process's recorded alerts */
	atomic_ullong n;     /* messages sent */
	atomic_int warned;   /* one log line for a bad payload */
};

static void on_payload(void *ud, const char *payload)
{
	kn_runs_relay *r = ud;
	kn_relay_msg m;
	kn_err err = {0};
	char q[300];
	if (kn_relay_parse(&m, payload, &err) != 0) {
		if (!atomic_exchange(&r->warned, 1))
			kn_log_msg("warn", "relay", "a live feed notification was not understood", "detail=\"%s\"",
			           kn_log_quote(q, sizeof q, err.msg));
		return;
	}
	if (strcmp(m.from, r->me) != 0)
		kn_stream_publish(r->stream, m.run, m.msg);
}

/* An alert recorded by any process (a worker's broken task, another serve's run) — the store's NOTIFY
 * keynode_alerts carries it in the API's ALERT shape (or {id, severity, title, truncated} when large) —
 * goes to this serve's /api/stream subscribers. */
static void on_alert(void *ud, const char *payload)
{
	kn_runs_relay *r = ud;
	json_t *a = json_loads(payload, 0, NULL);
	json_t *m = json_is_object(a) ? json_pack("{s:s, s:O}", "type", "alert", "alert", a) : NULL;
	char *t = m ? json_dumps(m, JSON_COMPACT) : NULL;
	if (t)
		kn_stream_publish(r->stream, NULL, t);
	else if (!atomic_exchange(&r->warned, 1))
		kn_log_msg("warn", "relay", "an alert notification was not understood", NULL);
	free(t);
	json_decref(m);
	json_decref(a);
}

int kn_runs_relay_new(kn_runs_relay **out, const char *conninfo, const char *me, kn_stream *stream,
                      kn_err *err)
{
	*out = NULL;
	kn_runs_relay *r = calloc(1, sizeof *r);
	if (!r)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	if (!kn_http_hop_ok(me)) {
		free(r);
		return kn_err_set(err, KN_EINVAL, "relay: the owner id '%s' is not a relay sender id",
		                  me ? me : "");
	}
	snprintf(r->me, sizeof r->me, "%s", me);
	r->stream = stream;
	int rc = kn_store_notifier_new(&r->out, conninfo, KN_RELAY_CHANNEL, 0, err);
	if (!rc)
		rc = kn_store_listener_new_payload(&r->in, conninfo, KN_RELAY_CHANNEL, NULL, on_payload, r,
		                                   err);
	if (!rc)
		rc = kn_store_listener_new_payload(&r->alerts, conninfo, KN_ALERTS_CHANNEL, NULL, on_alert, r,
		                                   err);
	if (rc) {
		kn_runs_relay_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

/* msg without its large members, marked truncated; the caller's, NULL when it cannot be. */
static char *shrink(const char *msg)
{
	json_t *j = json_loads(msg, 0, NULL);
	if (!json_is_object(j)) {
		json_decref(j);
		return NULL;
	}
	static const char *const big[] = {"event", "result", "verdict", "reached"};
	for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
		if (json_object_get(j, big[i]))
			json_object_set_new(j, big[i], json_null());
	json_object_set_new(j, "truncated", json_true());
	char *t = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return t;
}

void kn_runs_relay_send(kn_runs_relay *r, const char *run, const char *msg)
{
	if (!r || !run || !msg)
		return;
	kn_err err = {0};
	unsigned long long n = atomic_fetch_add(&r->n, 1) + 1;
	char *payload = NULL;
	int rc = kn_relay_format(&payload, r->me, n, run, msg, &err);
	if (rc == KN_ELIMIT) {
		char *small = shrink(msg);
		rc = small ? kn_relay_format(&payload, r->me, n, run, small, &err) : KN_ENOMEM;
		free(small);
	}
	if (!rc)
		kn_store_notifier_send(r->out, payload, &err); /* a full queue drops it (counted) */
	free(payload);
}

void kn_runs_relay_free(kn_runs_relay *r)
{
	if (!r)
		return;
	kn_store_listener_free(r->alerts);
	kn_store_listener_free(r->in);
	kn_store_notifier_free(r->out);
	free(r);
}
