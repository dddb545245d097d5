/* alerts.c — kn_alerts (alerts.h): callers turn a rule hit into a queued alert and return at once;
 * one delivery thread records each alert in PostgreSQL (kn_store_alert_put: deduplicated by its key,
 * and the store NOTIFYs keynode_alerts), hands it to on_alert (the service's /api/stream), then POSTs
 * it to every channel with libcurl — a generic webhook gets the alert JSON, a Slack webhook a
 * message in the incoming-webhook shape — retrying connection errors, timeouts, 429 and 5xx with
 * doubling backoff, and records each channel's outcome (kn_store_alert_delivery). The queue is
 * bounded; the thread owns the one store connection and the one curl handle. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <jansson.h>

#include "alerts.h"
#include "keynode/clock.h"
#include "http_client.h"
#include "log.h"

#define KN_ALERTS_QUEUE_MAX 1000          /* queued alerts; past it KN_ELIMIT */
#define KN_ALERTS_REF_MAX 256             /* task ref, run id */
#define KN_ALERTS_JSON_MAX (1u << 20)     /* result / evidence JSON */
#define KN_ALERTS_BACKOFF_CAP_MS 60000    /* one backoff wait at most */
#define KN_ALERTS_FREE_WAIT_MS 10000      /* kn_alerts_free drains this long, then gives up */

typedef struct item {
	struct item *next;
	char *key, *severity, *title, *detail; /* detail: JSON object text */
} item;

typedef struct channel {
	kn_config_alert_type type;
	char *url;
	char name[32]; /* "webhook[0]": recorded with each delivery; never the URL (it holds secrets) */
} channel;

struct kn_alerts {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t work, idle;
	item *head, *tail;
	size_t queued;
	int busy, stop, abandon;

	channel *ch;
	size_t n_ch;
	char *conninfo;
	double threshold;
	int timeout_ms, retries, backoff_ms;
	void (*on_alert)(void *ud, const char *alert_json);
	void *ud;

	kn_store *st; /* thread-owned */
	CURL *curl;   /* thread-owned */
};

/* ---- queue -------------------------------------------------------------------------------------- */

static void item_free(item *it)
{
	if (!it)
		return;
	free(it->key);
	free(it->severity);
	free(it->title);
	free(it->detail);
	free(it);
}

/* Takes detail (a json_t reference) whatever happens. */
static int enqueue(kn_alerts *a, const char *key, const char *severity, const char *title,
                   json_t *detail, kn_err *err)
{
	item *it = calloc(1, sizeof *it);
	char *d = json_dumps(detail, JSON_COMPACT);
	json_decref(detail);
	if (!it || !d || !(it->key = strdup(key)) || !(it->severity = strdup(severity)) ||
	    !(it->title = strdup(title))) {
		item_free(it);
		free(d);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	it->detail = d;
	pthread_mutex_lock(&a->mu);
	if (a->stop || a->queued >= KN_ALERTS_QUEUE_MAX) {
		int stopping = a->stop;
		pthread_mutex_unlock(&a->mu);
		item_free(it);
		if (stopping)
			return kn_err_set(err, KN_EINVAL, "alerts: shutting down");
		return kn_err_set(err, KN_ELIMIT, "alerts: more than %d alerts queued", KN_ALERTS_QUEUE_MAX);
	}
	if (a->tail)
		a->tail->next = it;
	else
		a->head = it;
	a->tail = it;
	a->queued++;
	pthread_cond_signal(&a->work);
	pthread_mutex_unlock(&a->mu);
	return 0;
}

/* ---- HTTP delivery ------------------------------------------------------------------------------ */

/* Sleep ms unless kn_alerts_free gave up waiting (then 1 at once). */
static int backoff_wait(kn_alerts *a, long ms)
{
	struct timespec dl;
	kn_time_deadline(&dl, CLOCK_REALTIME, ms);
	pthread_mutex_lock(&a->mu);
	while (!a->abandon)
		if (pthread_cond_timedwait(&a->work, &a->mu, &dl) == ETIMEDOUT)
			break;
	int ab = a->abandon;
	pthread_mutex_unlock(&a->mu);
	return ab;
}

/* POST body to c's URL, retrying; *attempts tried, detail the last outcome. 1 delivered, 0 not. */
static int deliver(kn_alerts *a, const channel *c, const char *body, int *attempts, char *detail,
                   size_t dcap)
{
	struct curl_slist *hdr = NULL;
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	int ok = 0, max = 1 + a->retries;
	long wait = a->backoff_ms;
	*attempts = 0;
	if (!hdr || !a->curl) {
		snprintf(detail, dcap, "out of memory");
		curl_slist_free_all(hdr);
		return 0;
	}
	for (int i = 1; i <= max; i++) {
		char ebuf[CURL_ERROR_SIZE] = "";
		CURL *h = a->curl;
		kn_http_call call = {.url = c->url, .https = 1, .proxy = KN_HTTP_PROXY_ENV,
		                     .timeout_ms = a->timeout_ms, .headers = hdr, .body = body,
		                     .body_len = strlen(body), .user_agent = "keynode-alerts/1", .errbuf = ebuf};
		kn_http_client_setup(h, &call); /* the answer is not read */
		*attempts = i;
		CURLcode cc = curl_easy_perform(h);
		long status = 0;
		curl_off_t retry_after = 0;
		int retry;
		if (cc == CURLE_OK) {
			curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
			snprintf(detail, dcap, "HTTP %ld", status);
			if (status >= 200 && status < 300) {
				ok = 1;
				break;
			}
			retry = status == 429 || status >= 500;
			curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &retry_after);
		} else {
			snprintf(detail, dcap, "%s", ebuf[0] ? ebuf : curl_easy_strerror(cc));
			retry = cc != CURLE_UNSUPPORTED_PROTOCOL && cc != CURLE_URL_MALFORMAT;
		}
		if (!retry || i == max)
			break;
		long ms = wait;
		if (retry_after > 0 && retry_after * 1000 > ms)
			ms = (long)(retry_after > KN_ALERTS_BACKOFF_CAP_MS / 1000 ? KN_ALERTS_BACKOFF_CAP_MS
			                                                           : retry_after * 1000);
		kn_log("warn", "alerts", "msg=\"delivery failed, retrying\" channel=%s attempt=%d wait_ms=%ld detail=\"%s\"",
		     c->name, i, ms, detail);
		if (backoff_wait(a, ms)) {
			snprintf(detail + strlen(detail), dcap - strlen(detail), " (shutdown)");
			break;
		}
		wait = wait * 2 > KN_ALERTS_BACKOFF_CAP_MS ? KN_ALERTS_BACKOFF_CAP_MS : wait * 2;
	}
	curl_slist_free_all(hdr);
	return ok;
}

/* Slack mrkdwn needs &, < and > escaped; everything else is text. */
static char *slack_escape(const char *s)
{
	size_t n = 0;
	for (const char *p = s; *p; p++)
		n += *p == '&' ? 5 : (*p == '<' || *p == '>') ? 4 : 1;
	char *o = malloc(n + 1), *q = o;
	if (!o)
		return NULL;
	for (const char *p = s; *p; p++) {
		const char *r = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;" : NULL;
		if (r) {
			memcpy(q, r, strlen(r));
			q += strlen(r);
		} else {
			*q++ = *p;
		}
	}
	*q = '\0';
	return o;
}

/* The Slack incoming-webhook message: "text" (the notification fallback) and "blocks". */
static char *slack_body(const item *it, int64_t id)
{
	const char *icon = strcmp(it->severity, "critical") == 0  ? ":red_circle:"
	                   : strcmp(it->severity, "warning") == 0 ? ":warning:"
	                                                          : ":information_source:";
	char *title = slack_escape(it->title), *key = slack_escape(it->key);
	char *text = NULL, *section = NULL, *ctx = NULL, *out = NULL;
	if (!title || !key)
		goto done;
	size_t tl = strlen(title) + strlen(it->severity) + 64;
	size_t sl = strlen(title) + strlen(icon) + 16;
	size_t cl = strlen(key) + strlen(it->severity) + 64;
	if (!(text = malloc(tl)) || !(section = malloc(sl)) || !(ctx = malloc(cl)))
		goto done;
	snprintf(text, tl, "[%s] keynode: %s", it->severity, title);
	snprintf(section, sl, "%s *%s*", icon, title);
	/* a broken or flaky task: where to look, and whether a verified fix waits there */
	json_t *d = json_loads(it->detail, 0, NULL);
	const char *drift = json_string_value(json_object_get(d, "drift_page"));
	json_t *rep = json_object_get(d, "repair");
	if (drift) {
		size_t n = strlen(section) + strlen(drift) + 160;
		char *more = malloc(n);
		if (more) {
			snprintf(more, n, "%s\ndrift diff: `%s`%s", section, drift,
			         !json_is_object(rep) ? ""
			         : json_integer_value(json_object_get(rep, "verified")) > 0
			             ? " · a repair proposal verified by replay is there: apply it"
			             : " · no verified repair proposal");
			free(section);
			section = more;
		}
	}
	json_decref(d);
	snprintf(ctx, cl, "severity: *%s* · alert %lld · key `%s`", it->severity, (long long)id, key);
	json_t *msg = json_pack("{s:s, s:[{s:s, s:{s:s, s:s}}, {s:s, s:[{s:s, s:s}]}]}", "text", text,
	                        "blocks", "type", "section", "text", "type", "mrkdwn", "text", section,
	                        "type", "context", "elements", "type", "mrkdwn", "text", ctx);
	if (msg) {
		out = json_dumps(msg, JSON_COMPACT);
		json_decref(msg);
	}
done:
	free(title), free(key), free(text), free(section), free(ctx);
	return out;
}

/* The generic webhook body (also what on_alert gets). */
static char *alert_body(const item *it, int64_t id)
{
	char created[KN_TIME_MAX];
	kn_time_rfc3339(created, time(NULL));
	json_t *detail = json_loads(it->detail, 0, NULL);
	json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:o, s:s, s:s}", "id", (json_int_t)id, "dedupe_key",
	                      it->key, "severity", it->severity, "title", it->title, "detail",
	                      detail ? detail : json_object(), "created", created, "source", "keynode");
	if (!o)
		return NULL;
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

/* ---- the delivery thread -------------------------------------------------------------------- */

/* The delivery thread's store, opened on first use (the store reconnects it after). 0, or the
 * failure, logged. */
static int store_ready(kn_alerts *a)
{
	kn_err e = {0};
	if (a->st || kn_store_open(&a->st, a->conninfo, &e) == 0)
		return 0;
	kn_log("error", "alerts", "msg=\"database unreachable\" detail=\"%s\"", e.msg);
	return e.code;
}

static void process(kn_alerts *a, item *it)
{
	kn_err err = { 0 };
	int64_t id = 0;
	int rc = store_ready(a);
	if (rc == 0)
		rc = kn_store_alert_put(a->st, it->key, it->severity, it->title, it->detail, &id, &err);
	if (rc == 0) {
		kn_log("debug", "alerts", "msg=\"alert deduplicated\" key=\"%s\"", it->key);
		return;
	}
	if (rc < 0) {
		/* Still tell people: an alert matters most when things are failing. */
		kn_log("error", "alerts", "msg=\"alert not recorded, delivering anyway\" key=\"%s\" detail=\"%s\"",
		     it->key, err.msg);
		id = 0;
	}
	kn_log("info", "alerts", "msg=\"alert raised\" id=%lld severity=%s key=\"%s\"", (long long)id, it->severity,
	     it->key);
	char *json = alert_body(it, id);
	if (!json) {
		kn_log("error", "alerts", "msg=\"out of memory\" key=\"%s\"", it->key);
		return;
	}
	if (a->on_alert)
		a->on_alert(a->ud, json);
	for (size_t i = 0; i < a->n_ch; i++) {
		const channel *c = &a->ch[i];
		char *slack = c->type == KN_ALERT_SLACK ? slack_body(it, id) : NULL;
		const char *body = c->type == KN_ALERT_SLACK ? slack : json;
		char detail[CURL_ERROR_SIZE + 64] = "out of memory";
		int attempts = 0, ok = body ? deliver(a, c, body, &attempts, detail, sizeof detail) : 0;
		free(slack);
		kn_log(ok ? "info" : "error", "alerts", "msg=\"%s\" id=%lld channel=%s attempts=%d detail=\"%s\"",
		     ok ? "alert delivered" : "alert delivery failed", (long long)id, c->name, attempts,
		     detail);
		if (id > 0) {
			rc = store_ready(a);
			if (rc == 0)
				rc = kn_store_alert_delivery(a->st, id, c->name, ok, attempts, detail, &err);
			if (rc < 0)
				kn_log("error", "alerts", "msg=\"delivery not recorded\" id=%lld detail=\"%s\"", (long long)id,
				     err.msg);
		}
	}
	free(json);
}

static void *thread_main(void *arg)
{
	kn_alerts *a = arg;
	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (!a->head && !a->stop)
			pthread_cond_wait(&a->work, &a->mu);
		if (!a->head)
			break;
		item *it = a->head;
		a->head = it->next;
		if (!a->head)
			a->tail = NULL;
		a->queued--;
		if (a->abandon) {
			kn_log("warn", "alerts", "msg=\"alert dropped at shutdown\" key=\"%s\"", it->key);
			item_free(it);
			continue;
		}
		a->busy = 1;
		pthread_mutex_unlock(&a->mu);
		process(a, it);
		item_free(it);
		pthread_mutex_lock(&a->mu);
		a->busy = 0;
		pthread_cond_broadcast(&a->idle);
	}
	pthread_cond_broadcast(&a->idle);
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* ---- public --------------------------------------------------------------------------------- */

int kn_alerts_new(kn_alerts **out, const kn_alerts_opts *opts, kn_err *err)
{
	*out = NULL;
	if (!opts || !opts->conninfo || !*opts->conninfo)
		return kn_err_set(err, KN_EINVAL, "alerts: no database url");
	if (!(opts->run_score_below >= 0 && opts->run_score_below <= 1))
		return kn_err_set(err, KN_EINVAL, "alerts: run_score_below must be in [0, 1]");
	if (opts->timeout_ms < 0 || opts->retries < -1 || opts->retries > 20 || opts->backoff_ms < 0)
		return kn_err_set(err, KN_EINVAL, "alerts: timeout, retries (at most 20) and backoff must not be negative");
	kn_alerts *a = calloc(1, sizeof *a);
	if (!a)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	a->threshold = opts->run_score_below;
	a->timeout_ms = opts->timeout_ms ? opts->timeout_ms : 5000;
	a->retries = opts->retries == -1 ? 0 : opts->retries == 0 ? 3 : opts->retries;
	a->backoff_ms = opts->backoff_ms ? opts->backoff_ms : 500;
	a->on_alert = opts->on_alert;
	a->ud = opts->ud;
	const kn_config *cfg = opts->config;
	size_t n = cfg ? cfg->n_alerts : 0;
	if (!(a->conninfo = strdup(opts->conninfo)) || (n && !(a->ch = calloc(n, sizeof *a->ch))))
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		channel *c = &a->ch[a->n_ch];
		c->type = cfg->alerts[i].type;
		if (!(c->url = strdup(cfg->alerts[i].url)))
			goto nomem;
		snprintf(c->name, sizeof c->name, "%s[%zu]", c->type == KN_ALERT_SLACK ? "slack" : "webhook", i);
		a->n_ch++;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		kn_alerts_free(a);
		return kn_err_set(err, KN_EIO, "alerts: libcurl failed to initialise");
	}
	if (!(a->curl = curl_easy_init())) {
		curl_global_cleanup();
		goto nomem;
	}
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->work, NULL);
	pthread_cond_init(&a->idle, NULL);
	if (pthread_create(&a->thread, NULL, thread_main, a) != 0) {
		pthread_mutex_destroy(&a->mu);
		pthread_cond_destroy(&a->work);
		pthread_cond_destroy(&a->idle);
		curl_easy_cleanup(a->curl);
		curl_global_cleanup();
		a->curl = NULL;
		for (size_t i = 0; i < a->n_ch; i++)
			free(a->ch[i].url);
		free(a->ch), free(a->conninfo), free(a);
		return kn_err_set(err, KN_ENOMEM, "alerts: cannot start the delivery thread");
	}
	kn_log("info", "alerts", "msg=\"alerts started\" channels=%zu run_score_below=%g", a->n_ch, a->threshold);
	*out = a;
	return 0;
nomem:
	for (size_t i = 0; i < a->n_ch; i++)
		free(a->ch[i].url);
	free(a->ch), free(a->conninfo), free(a);
	return kn_err_set(err, KN_ENOMEM, "out of memory");
}

int kn_alerts_drain(kn_alerts *a, int timeout_ms, kn_err *err)
{
	struct timespec dl;
	kn_time_deadline(&dl, CLOCK_REALTIME, timeout_ms);
	int rc = 0;
	pthread_mutex_lock(&a->mu);
	while (a->head || a->busy)
		if (pthread_cond_timedwait(&a->idle, &a->mu, &dl) == ETIMEDOUT) {
			rc = kn_err_set(err, KN_ETIMEOUT, "alerts: %zu alert(s) still queued after %d ms",
			                a->queued + (size_t)a->busy, timeout_ms);
			break;
		}
	pthread_mutex_unlock(&a->mu);
	return rc;
}

void kn_alerts_free(kn_alerts *a)
{
	if (!a)
		return;
	if (kn_alerts_drain(a, KN_ALERTS_FREE_WAIT_MS, NULL) != 0) {
		pthread_mutex_lock(&a->mu);
		a->abandon = 1; /* cut backoff waits short, drop what is left (logged) */
		pthread_cond_broadcast(&a->work);
		pthread_mutex_unlock(&a->mu);
	}
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->work);
	pthread_cond_destroy(&a->idle);
	kn_store_free(a->st);
	curl_easy_cleanup(a->curl);
	curl_global_cleanup();
	for (size_t i = 0; i < a->n_ch; i++)
		free(a->ch[i].url);
	free(a->ch);
	free(a->conninfo);
	free(a);
}

static int check_ref(const char *what, const char *s, kn_err *err)
{
	if (!s || !*s)
		return kn_err_set(err, KN_EINVAL, "alerts: no %s", what);
	if (strnlen(s, KN_ALERTS_REF_MAX + 1) > KN_ALERTS_REF_MAX)
		return kn_err_set(err, KN_ELIMIT, "alerts: %s longer than %d bytes", what, KN_ALERTS_REF_MAX);
	return 0;
}

static json_t *load_json(const char *what, const char *text, kn_err *err)
{
	json_error_t je;
	if (!text)
		return json_null();
	if (strnlen(text, KN_ALERTS_JSON_MAX + 1) > KN_ALERTS_JSON_MAX) {
		kn_err_set(err, KN_ELIMIT, "alerts: %s larger than %u bytes", what, KN_ALERTS_JSON_MAX);
		return NULL;
	}
	json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!j)
		kn_err_set(err, KN_EINVAL, "alerts: %s is not JSON: %d:%d: %s", what, je.line, je.column,
		           je.text);
	return j;
}

int kn_alerts_run_finished(kn_alerts *a, const char *task_ref, const char *run_id,
                           const char *result_json, kn_err *err)
{
	int rc;
	if ((rc = check_ref("task", task_ref, err)) != 0 || (rc = check_ref("run id", run_id, err)) != 0)
		return rc;
	if (!result_json)
		return kn_err_set(err, KN_EINVAL, "alerts: no run result");
	json_t *res = load_json("run result", result_json, err);
	if (!res)
		return err ? err->code : KN_EINVAL;
	json_t *sc = json_object_get(res, "score");
	if (!json_is_number(sc)) {
		json_decref(res);
		return kn_err_set(err, KN_EINVAL, "alerts: run result has no numeric \"score\"");
	}
	double score = json_number_value(sc);
	if (a->threshold <= 0 || !(score < a->threshold)) {
		json_decref(res);
		return 0;
	}
	char key[KN_ALERTS_REF_MAX + 16], title[2 * KN_ALERTS_REF_MAX + 96];
	snprintf(key, sizeof key, "run-below:%s", task_ref);
	snprintf(title, sizeof title, "run %s of task %s scored %.2f, below %.2f", run_id, task_ref, score,
	         a->threshold);
	json_t *detail = json_pack("{s:s, s:s, s:f, s:f, s:O?, s:O?, s:O?}", "task", task_ref, "run",
	                           run_id, "score", score, "threshold", a->threshold, "status",
	                           json_object_get(res, "status"), "reached",
	                           json_object_get(res, "reached"), "total", json_object_get(res, "total"));
	json_decref(res);
	if (!detail)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	return enqueue(a, key, "warning", title, detail, err);
}

int kn_alerts_run_interrupted(kn_alerts *a, const char *task_ref, const char *run_id,
                              const char *reason, kn_err *err)
{
	int rc;
	if ((rc = check_ref("task", task_ref, err)) != 0 || (rc = check_ref("run id", run_id, err)) != 0)
		return rc;
	char key[KN_ALERTS_REF_MAX + 24], title[2 * KN_ALERTS_REF_MAX + 160];
	snprintf(key, sizeof key, "run-interrupted:%s", run_id);
	snprintf(title, sizeof title, "run %s of task %s ended: %.100s", run_id, task_ref,
	         reason ? reason : "interrupted");
	json_t *detail = json_pack("{s:s, s:s, s:s}", "task", task_ref, "run", run_id, "reason",
	                           reason ? reason : "interrupted");
	if (!detail)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	return enqueue(a, key, "warning", title, detail, err);
}

static const char *severity_of(kn_health to)
{
	switch (to) {
	case KN_HEALTH_BROKEN: return "critical";
	case KN_HEALTH_FLAKY:
	case KN_HEALTH_ERROR:
	case KN_HEALTH_BLOCKED: return "warning";
	default: return "info";
	}
}

static const char *state_name(kn_health h)
{
	switch (h) {
	case KN_HEALTH_HEALTHY: return "healthy";
	case KN_HEALTH_FLAKY: return "flaky";
	case KN_HEALTH_BROKEN: return "broken";
	case KN_HEALTH_RECOVERED: return "recovered";
	case KN_HEALTH_ERROR: return "error";
	case KN_HEALTH_BLOCKED: return "blocked";
	default: return "unknown";
	}
}

/* The drift diff of task_ref: "/api/tasks/REF/drift" and the dashboard's
 * "/#/tasks/REF/drift", REF percent-encoded, into detail. */
static void drift_links(json_t *detail, const char *task_ref)
{
	char enc[3 * KN_ALERTS_REF_MAX + 1], buf[3 * KN_ALERTS_REF_MAX + 40];
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)task_ref; *p && n + 4 < sizeof enc; p++)
		n += (size_t)(((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ||
		                      *p == '_' || *p == '.'
		                  ? snprintf(enc + n, sizeof enc - n, "%c", *p)
		                  : snprintf(enc + n, sizeof enc - n, "%%%02X", *p));
	enc[n] = '\0';
	snprintf(buf, sizeof buf, "/api/tasks/%s/drift", enc);
	json_object_set_new(detail, "drift", json_string(buf));
	snprintf(buf, sizeof buf, "/#/tasks/%s/drift", enc);
	json_object_set_new(detail, "drift_page", json_string(buf));
}

/* Whether the failing replay (ev: the evidence, its "repairs" counts from the worker) proposes a
 * fix verified by replay: detail's "repair" {proposals, verified, replay, apply}. */
static void repair_info(json_t *detail, json_t *ev)
{
	json_t *r = json_object_get(ev, "repairs");
	if (!json_is_object(r))
		return;
	const char *drift = json_string_value(json_object_get(detail, "drift"));
	char apply[3 * KN_ALERTS_REF_MAX + 40];
	/* "/api/tasks/REF/drift" → "/api/tasks/REF/repairs" (REF encoded once, by drift_links) */
	snprintf(apply, sizeof apply, "%.*srepairs", drift ? (int)(strlen(drift) - strlen("drift")) : 0,
	         drift ? drift : "");
	json_object_set_new(detail, "repair",
	                    json_pack("{s:O, s:O, s:O, s:s}", "proposals", json_object_get(r, "proposals"),
	                              "verified", json_object_get(r, "verified"), "replay",
	                              json_object_get(ev, "replay"), "apply", apply));
}

int kn_alerts_health(kn_alerts *a, const char *task_ref, kn_health from, kn_health to,
                     const char *evidence_json, kn_err *err)
{
	int rc;
	if ((rc = check_ref("task", task_ref, err)) != 0)
		return rc;
	if (to < KN_HEALTH_UNKNOWN || to > KN_HEALTH_BLOCKED || from < KN_HEALTH_UNKNOWN ||
	    from > KN_HEALTH_BLOCKED)
		return kn_err_set(err, KN_EINVAL, "alerts: unknown health state");
	if (from == to)
		return 0;
	json_t *ev = load_json("evidence", evidence_json, err);
	if (!ev)
		return err ? err->code : KN_EINVAL;
	const char *f = state_name(from), *t = state_name(to);
	char key[KN_ALERTS_REF_MAX + 32], title[KN_ALERTS_REF_MAX + 64];
	snprintf(key, sizeof key, "health:%s:%s", task_ref, t);
	const char *sig = json_string_value(json_object_get(json_object_get(ev, "blocked"), "signature"));
	if (to == KN_HEALTH_BLOCKED) /* its own kind: the site refused service, nothing broke */
		snprintf(key, sizeof key, "blocked:%s", task_ref);
	if (to == KN_HEALTH_RECOVERED)
		snprintf(title, sizeof title, "task %s recovered (was %s)", task_ref, f);
	else if (to == KN_HEALTH_HEALTHY)
		snprintf(title, sizeof title, "task %s is healthy again (was %s)", task_ref, f);
	else if (to == KN_HEALTH_BLOCKED)
		snprintf(title, sizeof title, "task %s: blocked by the site, %.60s (was %s)", task_ref,
		         sig ? sig : "refused", f);
	else if (to == KN_HEALTH_ERROR)
		snprintf(title, sizeof title, "task %s: site unreachable (was %s)", task_ref, f);
	else
		snprintf(title, sizeof title, "task %s is %s (was %s)", task_ref, t, f);
	json_t *detail = json_pack("{s:s, s:s, s:s, s:s, s:o}", "kind", to == KN_HEALTH_BLOCKED ? "blocked" : "health",
	                           "task", task_ref, "from", f, "to", t, "evidence", ev);
	if (!detail)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	if (to == KN_HEALTH_BROKEN || to == KN_HEALTH_FLAKY) { /* what changed: the drift diff */
		drift_links(detail, task_ref);
		repair_info(detail, ev);
	}
	return enqueue(a, key, severity_of(to), title, detail, err);
}
