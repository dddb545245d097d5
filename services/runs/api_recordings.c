/* api_recordings.c — workflows re-recorded from the dashboard (api_recordings.h). serve only queues a
 * recording and passes finish/cancel on through its row (store_recordings.h): the worker that claimed
 * it records, replays and stores (services/cli/worker_record.c). Every start and request is logged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_fail.h"
#include "api_recordings.h"
#include "log.h"
#include "store_recordings.h"

int kn_api_recording_body_parse(const char *body, size_t len, char reason[KN_RECORDING_REASON_MAX + 1],
                                kn_err *err)
{
	reason[0] = '\0';
	if (len == 0)
		return 0;
	json_error_t je;
	json_t *j = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
	if (!json_is_object(j)) {
		json_decref(j);
		return kn_err_set(err, KN_EINVAL, "the body must be a JSON object: {\"reason\": \"…\"} or nothing");
	}
	const char *k;
	json_t *v;
	int rc = 0;
	json_object_foreach(j, k, v) {
		if (strcmp(k, "reason") != 0) {
			rc = kn_err_set(err, KN_EINVAL, "unknown member '%.40s'", k);
			break;
		}
		const char *s = json_string_value(v);
		size_t n = s ? json_string_length(v) : 0;
		int ctl = 0;
		for (size_t i = 0; s && i < n; i++)
			ctl |= (unsigned char)s[i] < 0x20 || s[i] == 0x7f;
		if (!s || n == 0 || n > KN_RECORDING_REASON_MAX || ctl) {
			rc = kn_err_set(err, KN_EINVAL, "reason: 1 to %d bytes of text without control characters",
			                KN_RECORDING_REASON_MAX);
			break;
		}
		memcpy(reason, s, n + 1);
	}
	json_decref(j);
	return rc;
}

/* The recording id of the path: digits only. */
static int recording_id(const kn_http_req *req, int64_t *id)
{
	const char *s = req->id;
	size_t n = strspn(s, "0123456789");
	if (!*s || s[n] || n > 18)
		return 0;
	*id = strtoll(s, NULL, 10);
	return *id > 0;
}

static void answer_recording(kn_store *st, int64_t id, int code, kn_http_resp *resp)
{
	kn_err err = {0};
	char *out = NULL;
	int rc = kn_store_recording_json(st, id, &out, &err);
	if (rc)
		kn_api_store_failed(resp, rc, &err, "no such recording");
	else
		kn_http_resp_json(resp, code, out);
}

void kn_api_recording_post(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	char reason[KN_RECORDING_REASON_MAX + 1];
	if (kn_api_recording_body_parse(req->body, req->body_len, reason, &err) != 0) {
		kn_http_resp_error(resp, 400, "bad request", err.msg);
		return;
	}
	int64_t id = 0;
	int rc = kn_store_recording_new(st, req->id, req->author && *req->author ? req->author : NULL,
	                                reason[0] ? reason : "recorded in the dashboard", &id, &err);
	if (rc) {
		kn_api_store_failed(resp, rc, &err, "no such task");
		return;
	}
	char q[300];
	kn_log_msg("info", "http", "recording queued", "recording=%lld task=\"%s\" author=\"%s\"", (long long)id,
	           kn_log_quote(q, sizeof q, req->id), req->author && *req->author ? req->author : "");
	answer_recording(st, id, 201, resp);
}

void kn_api_recording_want(kn_store *st, const kn_http_req *req, kn_http_resp *resp, const char *want)
{
	kn_err err = {0};
	int64_t id = 0;
	if (!recording_id(req, &id)) {
		kn_http_resp_error(resp, 400, "bad request", "a recording id is a positive integer");
		return;
	}
	if (req->body_len) {
		kn_http_resp_error(resp, 400, "bad request", "no body expected");
		return;
	}
	char *state = NULL;
	int rc = kn_store_recording_want(st, id, want, &state, &err);
	free(state);
	if (rc == KN_EBUSY) {
		kn_http_resp_error(resp, 409, "conflict", err.msg);
		return;
	}
	if (rc) {
		kn_api_store_failed(resp, rc, &err, "no such recording");
		return;
	}
	kn_log_msg("info", "http", "recording asked", "recording=%lld want=%s author=\"%s\"", (long long)id, want,
	           req->author && *req->author ? req->author : "");
	answer_recording(st, id, 202, resp);
}

void kn_api_recording_get(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	int64_t id = 0;
	if (!recording_id(req, &id)) {
		kn_http_resp_error(resp, 400, "bad request", "a recording id is a positive integer");
		return;
	}
	answer_recording(st, id, 200, resp);
}

void kn_api_recordings_get(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	char *out = NULL;
	int rc = kn_store_recordings_json(st, req->id, &out, &err);
	if (rc)
		kn_api_store_failed(resp, rc, &err, "no such task");
	else
		kn_http_resp_json(resp, 200, out);
}
