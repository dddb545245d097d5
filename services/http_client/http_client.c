/* http_client.c — kn_http_client_setup (http_client.h): the libcurl options every outgoing HTTP
 * call of keynode is made with. */
#include "http_client.h"

/* The write callback of a call whose answer nobody reads (a webhook's). */
static size_t discard(char *data, size_t size, size_t nmemb, void *ud)
{
	(void)data, (void)ud;
	return size * nmemb;
}

void kn_http_client_setup(CURL *h, const kn_http_call *call)
{
	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, call->url);
#if LIBCURL_VERSION_NUM >= 0x075500 /* 7.85: the string form; the bitmask is deprecated there */
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, call->https ? "http,https" : "http");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | (call->https ? CURLPROTO_HTTPS : 0)));
#endif
	if (call->proxy == KN_HTTP_PROXY_NONE)
		curl_easy_setopt(h, CURLOPT_PROXY, "");
	else if (call->proxy == KN_HTTP_PROXY_NOT_LOOPBACK)
		curl_easy_setopt(h, CURLOPT_NOPROXY, "127.0.0.1,localhost,::1");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* calls run on worker threads: no SIGALRM timeouts */
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, call->timeout_ms);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
	                 call->connect_timeout_ms > 0 ? call->connect_timeout_ms : call->timeout_ms);
	if (call->headers)
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, call->headers);
	if (call->body) {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, call->body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)call->body_len);
	}
	if (call->user_agent)
		curl_easy_setopt(h, CURLOPT_USERAGENT, call->user_agent);
	if (call->answer) {
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, kn_capbuf_write);
		curl_easy_setopt(h, CURLOPT_WRITEDATA, call->answer);
	} else {
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
	}
	if (call->errbuf) {
		call->errbuf[0] = '\0';
		curl_easy_setopt(h, CURLOPT_ERRORBUFFER, call->errbuf);
	}
}
