/* forward.c — a call for a run that lives on another serve, sent there (forward.h).
 *
 * On the worker lane thread that answers the call (never the server thread), with that thread's
 * libcurl handle (kept between calls, so a connection to an owner is reused): POST http://ADDRESS/api/runs/ID/{events,answer,stop} with the body as it came, this
 * serve's token, and X-Kn-Forwarded: this serve's owner id — the owner takes the call without
 * judging Host and Origin again (this serve did) and never forwards it further. Proxies from the
 * environment are not used (the serves talk directly), redirects are not followed, and the answer
 * is capped. */
#define _GNU_SOURCE /* asprintf */
#include "forward.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "keynode/capbuf.h"
#include "http_client.h"

static const char *route_tail(kn_route r)
{
	switch (r) {
	case KN_ROUTE_RUN_EVENTS: return "events";
	case KN_ROUTE_RUN_ANSWER: return "answer";
	case KN_ROUTE_RUN_STOP: return "stop";
	default: return NULL;
	}
}

void kn_runs_forward_free(void *conn)
{
	curl_easy_cleanup(conn);
}

int kn_runs_forward(void **conn, const char *address, const char *me, const char *token,
                    const kn_http_req *req, kn_http_resp *resp, kn_err *err)
{
	const char *tail = route_tail(req->route);
	if (!tail || !address || !*address || !kn_http_hop_ok(me))
		return kn_err_set(err, KN_EINVAL, "this call is not forwarded");
	char *url = NULL, *auth = NULL, *hdr_hop = NULL, ebuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdr = NULL, *h1;
	kn_capbuf b = {.cap = KN_FORWARD_ANSWER_MAX};
	/* one handle per worker thread: its connection cache keeps the connections to the owners */
	CURL *h = *conn ? *conn : (*conn = curl_easy_init());
	char *id = h ? curl_easy_escape(h, req->id, 0) : NULL;
	int rc = 0;
	if (!h || !id || asprintf(&url, "http://%s/api/runs/%s/%s", address, id, tail) < 0 ||
	    asprintf(&hdr_hop, KN_HTTP_HOP_HEADER ": %s", me) < 0 ||
	    asprintf(&auth, "Authorization: Bearer %s", token ? token : "") < 0) {
		url = hdr_hop = auth = NULL; /* asprintf leaves them undefined on failure */
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
		goto done;
	}
	static const char *const fixed[] = {"Content-Type: application/json", "Expect:"};
	const char *const all[] = {auth, hdr_hop, fixed[0], fixed[1]};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		if (!(h1 = curl_slist_append(hdr, all[i]))) {
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
			goto done;
		}
		hdr = h1;
	}
	kn_http_call call = {.url = url, .proxy = KN_HTTP_PROXY_NONE, .timeout_ms = KN_FORWARD_TIMEOUT_MS,
	                     .connect_timeout_ms = 3000, .headers = hdr,
	                     .body = req->body ? req->body : "", .body_len = req->body ? req->body_len : 0,
	                     .answer = &b, .errbuf = ebuf};
	kn_http_client_setup(h, &call);
	CURLcode cc = curl_easy_perform(h);
	long code = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	if (cc != CURLE_OK || code < 100 || code > 599) {
		rc = kn_err_set(err, b.over ? KN_ELIMIT : KN_EIO, "serve at %s: %s", address,
		                b.over ? "answer too large"
		                       : ebuf[0] ? ebuf : cc != CURLE_OK ? curl_easy_strerror(cc) : "no answer");
		goto done;
	}
	resp->status = (int)code;
	resp->content_type = NULL; /* the API answers JSON */
	resp->body = b.p ? b.p : strdup("");
	resp->len = b.p ? b.n : 0;
	b.p = NULL;
	if (!resp->body)
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
done:
	curl_slist_free_all(hdr);
	curl_free(id);
	free(url);
	free(auth);
	free(hdr_hop);
	free(b.p);
	return rc;
}
