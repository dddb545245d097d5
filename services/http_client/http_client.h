/* http_client.h — how keynode sets up a libcurl easy handle for an HTTP call, in one place.
 *
 * Every outgoing HTTP call (CDP endpoint discovery, the LLM judge, alert webhooks, serve forwarding
 * a run's call to its owner, `keynode run --server`) is made on a handle set up here: the URL, the
 * schemes allowed, the proxy policy, no signals (the calls run on worker threads), bounded in time,
 * the answer taken into a capped buffer (capbuf.h) or discarded, libcurl's words for a failure in
 * an error buffer, and a POST body when there is one. A caller adds what only it needs (a header
 * callback, a progress callback) after this and then performs the call itself. */
#ifndef KEYNODE_HTTP_CLIENT_H
#define KEYNODE_HTTP_CLIENT_H

#include <stddef.h>

#include <curl/curl.h>

#include "keynode/capbuf.h"

/* Whether the call may go through a proxy from the environment (http_proxy, https_proxy, …). */
typedef enum kn_http_proxy {
	KN_HTTP_PROXY_ENV,          /* as the environment says: a call into the world (a webhook) */
	KN_HTTP_PROXY_NONE,         /* never: the endpoint is the user's own (a browser, a peer serve) */
	KN_HTTP_PROXY_NOT_LOOPBACK  /* as the environment says, except to 127.0.0.1, localhost, ::1 */
} kn_http_proxy;

/* One call. Everything is borrowed until the transfer ends. */
typedef struct kn_http_call {
	const char *url;
	int https;                  /* 1: https:// as well as http:// ; 0: http:// only */
	kn_http_proxy proxy;
	long timeout_ms;            /* the whole call */
	long connect_timeout_ms;    /* the connection; 0: timeout_ms */
	struct curl_slist *headers; /* NULL: none */
	const char *body;           /* non-NULL: POST these body_len bytes; NULL: GET */
	size_t body_len;
	const char *user_agent;     /* NULL: none sent */
	kn_capbuf *answer;          /* the answer's body, up to its cap (past it the call fails with
	                             * CURLE_WRITE_ERROR and answer->over set); NULL: discarded */
	char *errbuf;               /* CURL_ERROR_SIZE bytes, libcurl's words for a failure; or NULL */
} kn_http_call;

/* Reset h (a new or reused easy handle, so nothing of an earlier call carries over) and set it up
 * for call. The caller performs it (curl_easy_perform) and reads the status. */
void kn_http_client_setup(CURL *h, const kn_http_call *call);

#endif
