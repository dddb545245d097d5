/* remote.c — `keynode run --server URL`: the client side of keynode serve's JSON API
 * (services/http/API.md) the attempts use instead of an in-process monitor: upload the task file,
 * POST /api/runs with the attempt's browser and step budget (serve attaches its monitor to that
 * browser, so the run lands in PostgreSQL and shows live on the dashboard), post answers, poll
 * the end, stop, read the result and the trajectory back into the attempt's folder.
 *
 * A kn_remote is immutable once made and shared by every attempt thread; each call makes its own
 * libcurl handle (a few calls per attempt), bounded in time (30 s) and answer size (64 MiB). The
 * token is KEYNODE_API_TOKEN, the variable `serve` itself reads. */
#define _GNU_SOURCE /* asprintf */
#include "runner.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <jansson.h>

#include "http_client.h"
#include "keynode/capbuf.h"
#include "keynode/fs.h"

#define KN_REMOTE_ANSWER_MAX (64u * 1024u * 1024u)
#define KN_REMOTE_TIMEOUT_MS 30000L

struct kn_remote {
	char *base;  /* http://HOST:PORT, no trailing slash */
	char *auth;  /* "Authorization: Bearer …" or NULL */
	int snapshot; /* the pinned snapshot of the set (kn_remote_pin), 0 none */
};

int kn_remote_snapshot(const kn_remote *r)
{
	return r->snapshot;
}

int kn_remote_new(kn_remote **out, const char *url, const char *token, kn_err *err)
{
	*out = NULL;
	if (!url || (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0))
		return kn_err_set(err, KN_EINVAL, "--server: an http:// or https:// URL, got '%s'", url ? url : "");
	kn_remote *r = calloc(1, sizeof *r);
	if (!r || !(r->base = strdup(url)) ||
	    (token && *token && asprintf(&r->auth, "Authorization: Bearer %s", token) < 0)) {
		if (r)
			r->auth = NULL;
		kn_remote_free(r);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	size_t n = strlen(r->base);
	while (n > 0 && r->base[n - 1] == '/')
		r->base[--n] = '\0';
	*out = r;
	return 0;
}

void kn_remote_free(kn_remote *r)
{
	if (!r)
		return;
	free(r->base);
	free(r->auth);
	free(r);
}


int kn_remote_call(const kn_remote *r, const char *method, const char *path, const char *body,
                   size_t len, const char *content_type, int *status, char **out, kn_err *err)
{
	*status = 0;
	if (out)
		*out = NULL;
	char *url = NULL, ebuf[CURL_ERROR_SIZE] = "", ctype[128];
	kn_capbuf b = {.cap = KN_REMOTE_ANSWER_MAX};
	struct curl_slist *hdr = NULL;
	CURL *h = curl_easy_init();
	if (!h || asprintf(&url, "%s%s", r->base, path) < 0) {
		curl_easy_cleanup(h);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	snprintf(ctype, sizeof ctype, "Content-Type: %s", content_type ? content_type : "application/json");
	if (r->auth)
		hdr = curl_slist_append(hdr, r->auth);
	if (body)
		hdr = curl_slist_append(hdr, ctype);
	int post = strcmp(method, "POST") == 0;
	kn_http_call call = {.url = url, .https = 1, .proxy = KN_HTTP_PROXY_NONE,
	                     .timeout_ms = KN_REMOTE_TIMEOUT_MS, .connect_timeout_ms = 5000, .headers = hdr,
	                     .body = post ? (body ? body : "") : NULL, .body_len = post && body ? len : 0,
	                     .answer = &b, .errbuf = ebuf};
	kn_http_client_setup(h, &call);
	CURLcode cc = curl_easy_perform(h);
	long code = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(h);
	curl_slist_free_all(hdr);
	int rc = 0;
	if (cc != CURLE_OK)
		rc = kn_err_set(err, b.over ? KN_ELIMIT : KN_EIO, "%s %s: %s", method, url,
		                b.over ? "answer too large" : ebuf[0] ? ebuf : curl_easy_strerror(cc));
	free(url);
	if (rc) {
		free(b.p);
		return rc;
	}
	*status = (int)code;
	if (out)
		*out = b.p ? b.p : strdup("");
	else
		free(b.p);
	return out && !*out ? kn_err_set(err, KN_ENOMEM, "out of memory") : 0;
}

/* err from a non-2xx answer: "POST /api/runs: 404 not found: no such task" */
static int answer_error(kn_err *err, const char *what, int status, const char *body)
{
	json_t *j = body ? json_loads(body, 0, NULL) : NULL;
	const char *e = json_string_value(json_object_get(j, "error"));
	const char *d = json_string_value(json_object_get(j, "detail"));
	kn_err_set(err, status == 401 ? KN_EINVAL : KN_EIO, "%s: %d %s%s%s%s", what, status, e ? e : "",
	           d ? ": " : "", d ? d : "", status == 401 ? " (set KEYNODE_API_TOKEN)" : "");
	json_decref(j);
	return err ? err->code : KN_EIO;
}

int kn_remote_json(const kn_remote *r, const char *method, const char *path, json_t *body,
                   json_t **out, int *status_out, kn_err *err)
{
	*out = NULL;
	char *text = body ? json_dumps(body, JSON_COMPACT) : NULL, *ans = NULL;
	if (body && !text)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	int status = 0;
	int rc = kn_remote_call(r, method, path, text, text ? strlen(text) : 0, NULL, &status, &ans, err);
	free(text);
	if (status_out)
		*status_out = status;
	if (rc)
		return rc;
	if (status < 200 || status > 299) {
		char what[300];
		snprintf(what, sizeof what, "%s %.200s", method, path);
		rc = answer_error(err, what, status, ans);
		free(ans);
		return rc;
	}
	json_error_t je;
	*out = json_loads(ans, 0, &je);
	free(ans);
	return *out ? 0 : kn_err_set(err, KN_EPROTO, "%s %s: the answer is not JSON: %s", method, path, je.text);
}

int kn_remote_upload(const kn_remote *r, const char *file, const char *name, int *snapshot, kn_err *err)
{
	if (snapshot)
		*snapshot = 0;
	char *data = NULL;
	size_t n = 0;
	int rc = kn_read_file(&data, &n, file, SIZE_MAX, err); /* the serve caps what it takes */
	if (rc)
		return rc;
	char *path = NULL, *esc = curl_easy_escape(NULL, name, 0), *ans = NULL;
	int status = 0;
	if (!esc || asprintf(&path, "/api/tasksets?name=%s", esc) < 0) {
		path = NULL;
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	} else {
		rc = kn_remote_call(r, "POST", path, data, n, "application/yaml", &status, &ans, err);
		if (rc == 0 && (status < 200 || status > 299))
			rc = answer_error(err, "POST /api/tasksets", status, ans);
		json_t *j = rc == 0 && snapshot ? json_loads(ans, 0, NULL) : NULL;
		if (j)
			*snapshot = (int)json_integer_value(json_object_get(json_object_get(j, "snapshot"), "version"));
		json_decref(j);
	}
	curl_free(esc);
	free(path), free(ans), free(data);
	return rc;
}

/* GET /api/tasksets/NAME/WHAT (NAME escaped) as JSON into *ans. */
static int get_taskset(const kn_remote *r, const char *name, const char *what, json_t **ans, kn_err *err)
{
	char *esc = curl_easy_escape(NULL, name, 0), *path = NULL;
	int rc = !esc || asprintf(&path, "/api/tasksets/%s/%s", esc, what) < 0
	         ? (path = NULL, kn_err_set(err, KN_ENOMEM, "out of memory"))
	         : kn_remote_json(r, "GET", path, NULL, ans, NULL, err);
	curl_free(esc);
	free(path);
	return rc;
}

int kn_remote_pin(kn_remote *r, const char *name, int snapshot, char hash[65], kn_err *err)
{
	hash[0] = '\0';
	json_t *ans = NULL;
	int rc = get_taskset(r, name, "snapshots", &ans, err);
	if (rc)
		return rc;
	json_t *s;
	size_t i;
	json_array_foreach(json_object_get(ans, "snapshots"), i, s)
		if (json_integer_value(json_object_get(s, "version")) == snapshot) {
			const char *h = json_string_value(json_object_get(s, "hash"));
			snprintf(hash, 65, "%s", h ? h : "");
			r->snapshot = snapshot;
		}
	json_decref(ans);
	return r->snapshot == snapshot && snapshot > 0
	       ? 0 : kn_err_set(err, KN_ENOTFOUND, "task set '%s' has no snapshot %d on the server", name, snapshot);
}

int kn_remote_validation(const kn_remote *r, const char *name, json_t **out, kn_err *err)
{
	*out = NULL;
	json_t *ans = NULL;
	int rc = get_taskset(r, name, "health?days=7", &ans, err);
	if (rc)
		return rc;
	const char *st = json_string_value(json_object_get(ans, "statement"));
	if (st)
		*out = json_pack("{s:s, s:s, s:O?, s:O?, s:O?, s:s, s:O?}", "server", r->base, "taskset", name, "days",
		                 json_object_get(ans, "days"), "validated", json_object_get(ans, "validated"), "tasks",
		                 json_object_get(ans, "tasks"), "statement", st, "at", json_object_get(ans, "now"));
	json_decref(ans);
	if (!st)
		return kn_err_set(err, KN_EPROTO, "the server's task-set health has no statement");
	return *out ? 0 : kn_err_set(err, KN_ENOMEM, "out of memory");
}
