/* test_http_client.c — kn_http_client_setup (services/http_client): the schemes a call allows
 * (http only for the user's own endpoints; https too for calls into the world; never file:), a
 * reused handle carrying nothing over from its previous call, and the error buffer cleared. No
 * network: every call here is refused by libcurl before it connects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "http_client.h"

static CURLcode perform(CURL *h, const char *url, int https, char *ebuf)
{
	kn_capbuf b = {.cap = 1024};
	kn_http_call call = {.url = url, .https = https, .proxy = KN_HTTP_PROXY_NONE, .timeout_ms = 2000,
	                     .answer = &b, .errbuf = ebuf};
	kn_http_client_setup(h, &call);
	CURLcode cc = curl_easy_perform(h);
	free(b.p);
	return cc;
}

static void test_schemes(void **state)
{
	(void)state;
	CURL *h = curl_easy_init();
	assert_non_null(h);
	char ebuf[CURL_ERROR_SIZE];
	assert_int_equal(perform(h, "file:///etc/hostname", 1, ebuf), CURLE_UNSUPPORTED_PROTOCOL);
	assert_true(ebuf[0] != '\0'); /* libcurl's words */
	assert_int_equal(perform(h, "https://127.0.0.1:1/", 0, ebuf), CURLE_UNSUPPORTED_PROTOCOL);
	/* the same handle, reused: https allowed now, so the call gets as far as connecting (port 1 is
	 * closed) — nothing of the previous setup carried over */
	CURLcode cc = perform(h, "https://127.0.0.1:1/", 1, ebuf);
	assert_int_not_equal(cc, CURLE_UNSUPPORTED_PROTOCOL);
	assert_int_not_equal(cc, CURLE_OK);
	curl_easy_cleanup(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schemes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
