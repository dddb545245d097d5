/* llm_client.c — the LLM judge's HTTP side (llm.h): one libcurl easy request per attempt to
 * {url}/v1/chat/completions, retries with backoff, a counting semaphore bounding the requests in
 * flight, the verdict store in front and the usage counters behind.
 *
 * What is retried: connection failures (refused, reset, nothing received), 5xx, and 429 after
 * its Retry-After (seconds; an HTTP date falls back to the backoff). What is not: a timed-out
 * attempt (the timeout already bounds the wait; retrying would multiply it), other 4xx, and a
 * 200 whose answer does not parse (the model at temperature 0 would most likely say the same,
 * and it was paid for). Between attempts the semaphore slot is released, so a backing-off call
 * does not hold up others. Curl handles are pooled, one per slot, to reuse connections. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "keynode/clock.h"
#include "keynode/capbuf.h"
#include "http_client.h"
#include "llm.h"
#include "log.h"

#define KN_LLM_MAX_BODY (1024 * 1024) /* response bytes */
#define KN_LLM_MAX_TEXT (16 * 1024)   /* rule or input bytes sent to the model */
#define KN_LLM_MAX_DELAY_MS 30000     /* backoff cap */

struct kn_llm {
	kn_semantic sem;
	char *name, *endpoint, *model, *auth; /* auth: the whole header line, never logged */
	long timeout_ms, backoff_ms, max_retry_after_s;
	int max_retries;
	double price_prompt, price_completion;
	const kn_verdict_store *cache;

	pthread_mutex_t mu; /* everything below */
	pthread_cond_t slot_free;
	int in_flight, max_in_flight;
	CURL **idle; /* pooled handles, at most max_in_flight */
	int n_idle;
	uint64_t rng;
	kn_llm_stats stats;
	int cache_warned;
	atomic_uint cancel_gen; /* kn_llm_cancel: judgements begun before the bump abort */
};

/* The result of one attempt. */
struct attempt {
	kn_capbuf body;     /* the answer, at most KN_LLM_MAX_BODY */
	long retry_after_s; /* -1: none or not in seconds */
	long status;
	CURLcode cc;
	char errbuf[CURL_ERROR_SIZE];
	kn_llm *l;
	unsigned gen; /* cancel_gen when the judgement began */
};

static int judge_cb(void *ud, const char *rule, const char *phrase, const char *input,
                    double *score, kn_err *err)
{
	return kn_llm_judge(ud, rule, phrase, input, score, err);
}

static char *dup_printf(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 1;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s%s", a, b);
	return s;
}

/* {url}/v1/chat/completions from a base URL with or without /v1 (or the full path). */
static char *endpoint_of(const char *url)
{
	size_t n = strlen(url);
	char *base = strdup(url);
	if (!base)
		return NULL;
	while (n && base[n - 1] == '/')
		base[--n] = '\0';
	char *ep;
	if (n >= 17 && strcmp(base + n - 17, "/chat/completions") == 0)
		ep = strdup(base);
	else if (n >= 3 && strcmp(base + n - 3, "/v1") == 0)
		ep = dup_printf(base, "/chat/completions");
	else
		ep = dup_printf(base, "/v1/chat/completions");
	free(base);
	return ep;
}

int kn_llm_new(kn_llm **out, const kn_llm_opts *o, kn_err *err)
{
	*out = NULL;
	if (!o || !o->url || !*o->url)
		return kn_err_set(err, KN_EINVAL, "llm: no endpoint URL");
	if (strncmp(o->url, "http://", 7) != 0 && strncmp(o->url, "https://", 8) != 0)
		return kn_err_set(err, KN_EINVAL, "llm: endpoint '%s' is not an http:// or https:// URL",
		                  o->url);
	if (!o->model || !*o->model)
		return kn_err_set(err, KN_EINVAL, "llm: no model name");
	kn_llm *l = calloc(1, sizeof *l);
	if (!l)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->slot_free, NULL);
	l->endpoint = endpoint_of(o->url);
	l->model = strdup(o->model);
	l->name = dup_printf("llm:", o->model);
	if (o->api_key && *o->api_key)
		l->auth = dup_printf("Authorization: Bearer ", o->api_key);
	l->max_in_flight = o->max_concurrency > 0 ? o->max_concurrency : 4;
	l->idle = calloc((size_t)l->max_in_flight, sizeof *l->idle);
	if (!l->endpoint || !l->model || !l->name || (o->api_key && *o->api_key && !l->auth) ||
	    !l->idle) {
		kn_llm_free(l);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	l->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 30000;
	l->max_retries = o->max_retries > 0 ? o->max_retries : o->max_retries < 0 ? 0 : 3;
	l->backoff_ms = o->backoff_ms > 0 ? o->backoff_ms : 500;
	l->max_retry_after_s = o->max_retry_after_s > 0 ? o->max_retry_after_s : 60;
	l->price_prompt = o->usd_per_1k_prompt > 0 ? o->usd_per_1k_prompt : 0;
	l->price_completion = o->usd_per_1k_completion > 0 ? o->usd_per_1k_completion : 0;
	l->cache = o->cache;
	l->rng = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)l;
	l->rng = l->rng ? l->rng : 1;
	l->sem.judge = judge_cb;
	l->sem.ud = l;
	l->sem.name = l->name;
	l->sem.prompt_sha256 = kn_llm_prompt_sha256();
	*out = l;
	return 0;
}

void kn_llm_free(kn_llm *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->n_idle; i++)
		curl_easy_cleanup(l->idle[i]);
	free(l->idle);
	pthread_mutex_destroy(&l->mu);
	pthread_cond_destroy(&l->slot_free);
	if (l->auth) /* the key does not linger in freed memory */
		memset(l->auth, 0, strlen(l->auth));
	free(l->auth);
	free(l->endpoint);
	free(l->model);
	free(l->name);
	free(l);
}

const kn_semantic *kn_llm_semantic(kn_llm *l)
{
	return l ? &l->sem : NULL;
}

void kn_llm_stats_get(kn_llm *l, kn_llm_stats *out)
{
	pthread_mutex_lock(&l->mu);
	*out = l->stats;
	pthread_mutex_unlock(&l->mu);
	out->usd = (double)out->prompt_tokens / 1000.0 * l->price_prompt +
	           (double)out->completion_tokens / 1000.0 * l->price_completion;
}

/* --- the semaphore and the handle pool --- */

/* Wait for a free slot; return its handle (pooled or new, NULL when out of memory). */
static CURL *slot_acquire(kn_llm *l)
{
	pthread_mutex_lock(&l->mu);
	while (l->in_flight >= l->max_in_flight)
		pthread_cond_wait(&l->slot_free, &l->mu);
	l->in_flight++;
	CURL *h = l->n_idle ? l->idle[--l->n_idle] : NULL;
	pthread_mutex_unlock(&l->mu);
	if (!h && !(h = curl_easy_init())) {
		pthread_mutex_lock(&l->mu);
		l->in_flight--;
		pthread_cond_signal(&l->slot_free);
		pthread_mutex_unlock(&l->mu);
	}
	return h;
}

static void slot_release(kn_llm *l, CURL *h)
{
	pthread_mutex_lock(&l->mu);
	l->in_flight--;
	if (l->n_idle < l->max_in_flight)
		l->idle[l->n_idle++] = h;
	else
		curl_easy_cleanup(h);
	pthread_cond_signal(&l->slot_free);
	pthread_mutex_unlock(&l->mu);
}

/* --- one attempt --- */

static size_t on_header(char *data, size_t size, size_t nmemb, void *ud)
{
	struct attempt *a = ud;
	size_t n = size * nmemb;
	if (n >= 5 && memcmp(data, "HTTP/", 5) == 0) {
		a->retry_after_s = -1; /* a new response (after a 100 Continue) */
	} else if (n > 12 && strncasecmp(data, "retry-after:", 12) == 0) {
		size_t i = 12;
		while (i < n && (data[i] == ' ' || data[i] == '\t'))
			i++;
		long v = 0;
		size_t d = 0;
		while (i < n && data[i] >= '0' && data[i] <= '9' && d < 9)
			v = v * 10 + (data[i++] - '0'), d++;
		while (i < n && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
			i++;
		a->retry_after_s = d && i == n ? v : -1; /* seconds only; a date is ignored */
	}
	return n;
}

/* libcurl's progress callback: non-zero aborts the transfer (kn_llm_cancel). */
static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)dt, (void)dn, (void)ut, (void)un;
	const struct attempt *a = ud;
	return atomic_load(&a->l->cancel_gen) != a->gen;
}

void kn_llm_cancel(kn_llm *l)
{
	if (l)
		atomic_fetch_add(&l->cancel_gen, 1);
}

static void perform(kn_llm *l, CURL *h, const char *body, struct curl_slist *hdrs,
                    struct attempt *a, unsigned gen)
{
	memset(a, 0, sizeof *a);
	a->body.cap = KN_LLM_MAX_BODY;
	a->retry_after_s = -1;
	a->l = l;
	a->gen = gen;
	kn_http_call call = {.url = l->endpoint, .https = 1, .proxy = KN_HTTP_PROXY_NOT_LOOPBACK,
	                     .timeout_ms = l->timeout_ms,
	                     .connect_timeout_ms = l->timeout_ms < 10000 ? l->timeout_ms : 10000L,
	                     .headers = hdrs, .body = body, .body_len = strlen(body),
	                     .user_agent = "keynode/0.1", .answer = &a->body, .errbuf = a->errbuf};
	kn_http_client_setup(h, &call);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, a);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, a);
	a->cc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &a->status);
	if (!a->errbuf[0])
		snprintf(a->errbuf, sizeof a->errbuf, "%s", curl_easy_strerror(a->cc));
}

static int retryable_transport(CURLcode cc)
{
	switch (cc) {
	case CURLE_COULDNT_CONNECT: case CURLE_COULDNT_RESOLVE_HOST: case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_SEND_ERROR: case CURLE_RECV_ERROR: case CURLE_GOT_NOTHING: case CURLE_PARTIAL_FILE:
	case CURLE_SSL_CONNECT_ERROR: case CURLE_HTTP2: case CURLE_HTTP2_STREAM:
		return 1;
	default:
		return 0;
	}
}

/* Exponential backoff with "equal jitter": uniform in [d/2, d], d = base × 2^retry, capped. */
static long backoff_delay(kn_llm *l, int retry)
{
	long d = l->backoff_ms;
	for (int i = 0; i < retry && d < KN_LLM_MAX_DELAY_MS; i++)
		d *= 2;
	d = d < KN_LLM_MAX_DELAY_MS ? d : KN_LLM_MAX_DELAY_MS;
	pthread_mutex_lock(&l->mu);
	l->rng ^= l->rng << 13, l->rng ^= l->rng >> 7, l->rng ^= l->rng << 17; /* xorshift64 */
	uint64_t r = l->rng;
	pthread_mutex_unlock(&l->mu);
	return d / 2 + (long)(r % (uint64_t)(d / 2 + 1));
}

/* Sleep ms, in slices so that kn_llm_cancel cuts a backoff short. */
static void sleep_ms(kn_llm *l, unsigned gen, long ms)
{
	while (ms > 0 && atomic_load(&l->cancel_gen) == gen) {
		long slice = ms < 50 ? ms : 50;
		kn_time_sleep_ms(slice);
		ms -= slice;
	}
}

/* Ask the model; on success *score (and *reason, the caller's) are set. */
static int ask(kn_llm *l, const char *body, double *score, char **reason, kn_err *err)
{
	unsigned gen = atomic_load(&l->cancel_gen);
	struct curl_slist *hdrs = NULL, *t;
	const char *lines[] = {"Content-Type: application/json", "Accept: application/json", "Expect:",
	                       l->auth};
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		if (!lines[i])
			continue;
		if (!(t = curl_slist_append(hdrs, lines[i]))) {
			curl_slist_free_all(hdrs);
			return kn_err_set(err, KN_ENOMEM, "out of memory");
		}
		hdrs = t;
	}
	int rc = KN_EIO;
	struct attempt a = {0};
	for (int attempt = 0;; attempt++) {
		if (atomic_load(&l->cancel_gen) != gen) {
			rc = kn_err_set(err, KN_EIO, "llm %s: cancelled (the service is stopping)", l->model);
			break;
		}
		CURL *h = slot_acquire(l);
		if (!h) {
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
			break;
		}
		perform(l, h, body, hdrs, &a, gen);
		slot_release(l, h);
		pthread_mutex_lock(&l->mu);
		l->stats.requests++;
		l->stats.retries += attempt > 0;
		pthread_mutex_unlock(&l->mu);

		long delay = -1; /* ≥ 0: retry after that many ms */
		char what[320];
		if (a.cc == CURLE_OK && a.status == 200) {
			unsigned long pt, ct;
			rc = kn_llm_parse_response(a.body.p ? a.body.p : "", a.body.n, score, reason, &pt, &ct, err);
			pthread_mutex_lock(&l->mu);
			l->stats.prompt_tokens += pt;
			l->stats.completion_tokens += ct;
			pthread_mutex_unlock(&l->mu);
			if (rc == KN_EPROTO) {
				char detail[KN_ERR_MAX];
				snprintf(detail, sizeof detail, "%s", err ? err->msg : "");
				kn_err_set(err, rc, "llm %s: %s", l->model, detail);
			}
			break;
		} else if (a.cc == CURLE_OPERATION_TIMEDOUT) {
			rc = kn_err_set(err, KN_ETIMEOUT, "llm %s: no answer from %s within %ld ms", l->model,
			                l->endpoint, l->timeout_ms);
			break;
		} else if (a.cc == CURLE_WRITE_ERROR && a.body.over) {
			rc = kn_err_set(err, KN_ELIMIT, "llm %s: response from %s exceeds %d bytes", l->model,
			                l->endpoint, KN_LLM_MAX_BODY);
			break;
		} else if (a.cc != CURLE_OK) {
			snprintf(what, sizeof what, "cannot reach %s: %s", l->endpoint, a.errbuf);
			if (retryable_transport(a.cc))
				delay = backoff_delay(l, attempt);
		} else {
			char msg[200];
			kn_llm_error_message(msg, sizeof msg, a.body.p, a.body.n);
			snprintf(what, sizeof what, "%s answered HTTP %ld%s%s", l->endpoint, a.status,
			         msg[0] ? ": " : "", msg);
			if (a.status == 429 || a.status == 503) {
				if (a.retry_after_s > l->max_retry_after_s) {
					rc = kn_err_set(err, KN_ELIMIT, "llm %s: %s, Retry-After %ld s (more than %ld s)",
					                l->model, what, a.retry_after_s, l->max_retry_after_s);
					break;
				}
				delay = a.retry_after_s >= 0 ? a.retry_after_s * 1000 : backoff_delay(l, attempt);
			} else if (a.status >= 500) {
				delay = backoff_delay(l, attempt);
			}
		}
		if (delay < 0 || attempt >= l->max_retries) {
			rc = kn_err_set(err, KN_EIO, "llm %s: %s%s", l->model, what,
			                delay >= 0 ? " (retries exhausted)"
			                : a.status == 401 || a.status == 403 ? " (check the API key)" : "");
			break;
		}
		kn_log_msgf("warn", "llm", "llm %s: %s; retry %d of %d in %ld ms", l->model, what,
		            attempt + 1, l->max_retries, delay);
		free(a.body.p);
		a.body.p = NULL;
		sleep_ms(l, gen, delay);
	}
	free(a.body.p);
	curl_slist_free_all(hdrs);
	return rc;
}

int kn_llm_judge(kn_llm *l, const char *rule, const char *phrase, const char *input,
                 double *score, kn_err *err)
{
	if (!l || !rule || !input || !score)
		return kn_err_set(err, KN_EINVAL, "llm: missing argument");
	pthread_mutex_lock(&l->mu);
	l->stats.judgements++;
	pthread_mutex_unlock(&l->mu);
	int rc;
	if (strlen(rule) > KN_LLM_MAX_TEXT || strlen(input) > KN_LLM_MAX_TEXT) {
		rc = kn_err_set(err, KN_ELIMIT, "llm: the %s is longer than %d bytes",
		                strlen(rule) > KN_LLM_MAX_TEXT ? "rule" : "input", KN_LLM_MAX_TEXT);
		goto done;
	}
	if (l->cache && l->cache->get(l->cache->ud, l->model, KN_LLM_PROMPT_VERSION, rule, input,
	                              score) == 1) {
		pthread_mutex_lock(&l->mu);
		l->stats.cache_hits++;
		pthread_mutex_unlock(&l->mu);
		return 0;
	}
	char *body = NULL, *reason = NULL;
	if ((rc = kn_llm_request_body(&body, l->model, rule, phrase, input)) != 0) {
		kn_err_set(err, rc, "llm: cannot build the request: %s", kn_strerror(rc));
		goto done;
	}
	rc = ask(l, body, score, &reason, err);
	free(body);
	if (rc == 0 && l->cache) {
		kn_err cerr = {0};
		if (l->cache->put(l->cache->ud, l->model, KN_LLM_PROMPT_VERSION, rule, input, *score, reason,
		                  &cerr) != 0) {
			pthread_mutex_lock(&l->mu);
			int warned = l->cache_warned;
			l->cache_warned = 1;
			pthread_mutex_unlock(&l->mu);
			if (!warned) /* the verdict stands; only the rerun will ask again */
				kn_log_msg("warn", "llm", cerr.msg, NULL);
		}
	}
	free(reason);
done:
	if (rc) {
		pthread_mutex_lock(&l->mu);
		l->stats.failures++;
		pthread_mutex_unlock(&l->mu);
	}
	return rc;
}
