/* cdp_discover.c — turning what a user names as "the browser" into its browser-level websocket URL.
 *
 * Three forms: a ws:// URL is taken as is; an http://HOST:PORT endpoint is asked for
 * /json/version over libcurl (proxies off, bounded time and size) and its webSocketDebuggerUrl
 * returned; anything else is a DevToolsActivePort file (or the user-data-dir holding one) as
 * Chromium writes it with --remote-debugging-port=0: line 1 the port, line 2 the path. The file
 * appears ~0.1 s after the browser starts, so a missing or half-written file is re-read until the
 * timeout. This is the only place in the folder that uses libcurl. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <curl/curl.h>

#include "cdp.h"
#include "keynode/capbuf.h"
#include "keynode/clock.h"
#include "http_client.h"

#define DISCOVER_MAX_BODY (64 * 1024)
#define PORT_FILE_MAX 4096

int kn_cdp_version(json_t **out, const char *base, int timeout_ms, kn_err *err)
{
	*out = NULL;
	size_t blen = strlen(base);
	while (blen && base[blen - 1] == '/')
		blen--;
	char *url = malloc(blen + sizeof "/json/version");
	CURL *h = curl_easy_init();
	if (!url || !h) {
		free(url);
		curl_easy_cleanup(h);
		return kn_err_set(err, KN_ENOMEM, "discover %s: out of memory", base);
	}
	memcpy(url, base, blen);
	memcpy(url + blen, "/json/version", sizeof "/json/version");

	kn_capbuf b = {.cap = DISCOVER_MAX_BODY};
	char ebuf[CURL_ERROR_SIZE] = "";
	/* the endpoint is the user's: never via a proxy */
	kn_http_call call = {.url = url, .proxy = KN_HTTP_PROXY_NONE, .timeout_ms = timeout_ms,
	                     .answer = &b, .errbuf = ebuf};
	kn_http_client_setup(h, &call);
	CURLcode cc = curl_easy_perform(h);
	long status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(h);

	int rc = 0;
	if (cc == CURLE_OPERATION_TIMEDOUT)
		rc = kn_err_set(err, KN_ETIMEOUT, "discover %s: no answer within %d ms", url, timeout_ms);
	else if (b.over)
		rc = kn_err_set(err, KN_EPROTO, "discover %s: answer larger than %d bytes", url,
		                DISCOVER_MAX_BODY);
	else if (cc != CURLE_OK)
		rc = kn_err_set(err, KN_EIO, "discover %s: %s", url, *ebuf ? ebuf : curl_easy_strerror(cc));
	else if (status != 200)
		rc = kn_err_set(err, KN_EPROTO, "discover %s: HTTP status %ld", url, status);
	json_error_t jerr;
	json_t *root = rc == 0 && b.p ? json_loadb(b.p, b.n, 0, &jerr) : NULL;
	if (rc == 0 && !json_is_object(root)) {
		rc = kn_err_set(err, KN_EPROTO, "discover %s: answer is not a JSON object", url);
		json_decref(root);
		root = NULL;
	}
	*out = root;
	free(b.p);
	free(url);
	return rc;
}

/* GET base/json/version and return its webSocketDebuggerUrl. */
static int discover_http(char **out, const char *base, int timeout_ms, kn_err *err)
{
	json_t *root = NULL;
	int rc = kn_cdp_version(&root, base, timeout_ms, err);
	if (rc)
		return rc;
	const char *ws = json_string_value(json_object_get(root, "webSocketDebuggerUrl"));
	if (!ws || strncmp(ws, "ws://", 5) != 0)
		rc = kn_err_set(err, KN_EPROTO, "discover %s/json/version: no ws:// webSocketDebuggerUrl", base);
	else if (!(*out = strdup(ws)))
		rc = kn_err_set(err, KN_ENOMEM, "discover %s: out of memory", base);
	json_decref(root);
	return rc;
}

/* Parse "PORT\n/PATH" (trailing newline and CR tolerated). 0, or 1 when incomplete. */
static int parse_port_file(char **out, char *text)
{
	char *nl = strchr(text, '\n');
	if (!nl)
		return 1;
	*nl = '\0';
	char *path = nl + 1;
	path[strcspn(path, "\r\n")] = '\0';
	char *end;
	errno = 0;
	long port = strtol(text, &end, 10);
	if (end == text || (*end && *end != '\r') || errno || port < 1 || port > 65535 ||
	    path[0] != '/')
		return 1;
	size_t need = sizeof "ws://127.0.0.1:65535" + strlen(path);
	if (!(*out = malloc(need)))
		return -1;
	snprintf(*out, need, "ws://127.0.0.1:%ld%s", port, path);
	return 0;
}

/* Read a DevToolsActivePort file (or the one inside a user-data-dir), waiting for it to be
 * complete for up to timeout_ms. */
static int discover_file(char **out, const char *path, int timeout_ms, kn_err *err)
{
	char file[4096];
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(file, sizeof file, "%s/DevToolsActivePort", path);
	else
		snprintf(file, sizeof file, "%s", path);

	char dir[4096];
	snprintf(dir, sizeof dir, "%s", file);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	else
		snprintf(dir, sizeof dir, "%s", slash ? "/" : ".");
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return kn_err_set(err, KN_ENOTFOUND,
		                  "discover %s: not a ws:// or http:// endpoint, and no directory %s", path,
		                  dir);

	char text[PORT_FILE_MAX] = "";
	for (long waited = 0;; waited += 50) {
		FILE *f = fopen(file, "rb");
		int seen = f != NULL;
		if (f) {
			size_t n = fread(text, 1, sizeof text - 1, f);
			fclose(f);
			text[n] = '\0';
			int rc = parse_port_file(out, text);
			if (rc < 0)
				return kn_err_set(err, KN_ENOMEM, "discover %s: out of memory", file);
			if (rc == 0)
				return 0;
			if (n == sizeof text - 1)
				return kn_err_set(err, KN_EPROTO, "discover %s: not a DevToolsActivePort file",
				                  file);
		}
		if (waited >= timeout_ms) {
			if (!seen)
				return kn_err_set(err, KN_ETIMEOUT, "discover %s: no such file after %d ms", file,
				                  timeout_ms);
			return kn_err_set(err, KN_EPROTO,
			                  "discover %s: want a port line and a /path line, got '%.40s'", file,
			                  text);
		}
		kn_time_sleep_ms(50);
	}
}

int kn_cdp_discover(char **out, const char *endpoint, int timeout_ms, kn_err *err)
{
	*out = NULL;
	if (!endpoint || !*endpoint)
		return kn_err_set(err, KN_EINVAL, "discover: empty browser endpoint");
	if (timeout_ms <= 0)
		timeout_ms = KN_CDP_TIMEOUT_DEFAULT_MS;
	if (strncmp(endpoint, "ws://", 5) == 0) {
		if (!(*out = strdup(endpoint)))
			return kn_err_set(err, KN_ENOMEM, "discover: out of memory");
		return 0;
	}
	if (strncmp(endpoint, "http://", 7) == 0)
		return discover_http(out, endpoint, timeout_ms, err);
	if (strstr(endpoint, "://"))
		return kn_err_set(err, KN_EINVAL, "discover %s: only ws:// and http:// endpoints",
		                  endpoint);
	return discover_file(out, endpoint, timeout_ms, err);
}
