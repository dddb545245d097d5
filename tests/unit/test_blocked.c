/* test_blocked.c — blocked detection's pure half (services/replay/blocked.h): HTTP status patterns,
 * the country marker of a URL, the judge over what the in-page probe reports (each kind, their
 * precedence, configured lists replacing the defaults, the geo rule, malformed and hostile input),
 * the report object, and keynode.yaml's `blocked:` section (deploy/keynode.example.yaml documents
 * exactly the built-in defaults; bad values fail with file:line). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocked.h"
#include "config.h"

#define EXAMPLE KN_TESTS_DIR "/../deploy/keynode.example.yaml"

static void test_status(void **state)
{
	(void)state;
	assert_true(kn_blocked_status_matches("403", 403));
	assert_false(kn_blocked_status_matches("403", 404));
	assert_true(kn_blocked_status_matches("5xx", 500));
	assert_true(kn_blocked_status_matches("5XX", 599));
	assert_false(kn_blocked_status_matches("5xx", 404));
	assert_true(kn_blocked_status_matches("4x9", 429));
	assert_false(kn_blocked_status_matches("40", 403));
	assert_false(kn_blocked_status_matches("4033", 403));
	assert_false(kn_blocked_status_matches(NULL, 403));
	assert_false(kn_blocked_status_matches("xxx", 0));
	assert_false(kn_blocked_status_matches("xxx", 1000));
}

static void test_country(void **state)
{
	(void)state;
	static const struct {
		const char *url, *want;
	} rows[] = {
		{"http://127.0.0.1:8100/us/shop/", "us"},
		{"https://www.example.com/en-gb/help", "gb"},
		{"https://www.example.com/fr_CA/", "ca"},
		{"https://www.example.com/DE", "de"},
		{"https://uk.example.com/shop", "uk"},
		{"https://www.example.de/shop", "de"},
		{"https://www.example.de:8443/shop", "de"},
		{"https://user@www.example.fr/", "fr"},
		{"https://www.example.com/shop/de/", ""},  /* only the first path segment */
		{"https://www.example.com/js/app.js", "js"}, /* documented: two letters are a locale */
		{"https://www.example.com/", ""},
		{"http://127.0.0.1:8100/app/", ""},
		{"http://localhost/", ""},
		{"http://[::1]:80/", ""},
		{"https://www.example.com/eng/", ""},
		{"https://www.example.com/en-gbr/", ""},
	};
	char out[8];
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		assert_int_equal(kn_blocked_country(rows[i].url, out, sizeof out), 0);
		if (strcmp(out, rows[i].want) != 0)
			fail_msg("%s: got '%s', want '%s'", rows[i].url, out, rows[i].want);
	}
	assert_int_equal(kn_blocked_country("ftp://example.de/", out, sizeof out), KN_EINVAL);
	assert_string_equal(out, "");
	assert_int_equal(kn_blocked_country(NULL, out, sizeof out), KN_EINVAL);
	assert_int_equal(kn_blocked_country("http://example.de/", out, 2), KN_EINVAL);
}

static int judge(kn_blocked_hit *h, const kn_blocked_rules *r, const char *requested, const char *json)
{
	return kn_blocked_judge(h, r, requested, json, strlen(json));
}

static void test_kinds(void **state)
{
	(void)state;
	kn_blocked_hit h;
	assert_int_equal(judge(&h, NULL, NULL, "{\"url\": \"http://a/\", \"title\": \"Shop\", \"status\": 200}"), 0);
	assert_int_equal(h.kind, KN_BLOCKED_NONE);
	assert_string_equal(h.url, "http://a/");
	assert_int_equal(h.status, 200);

	assert_int_equal(judge(&h, NULL, NULL, "{\"url\": \"http://a/\", \"title\": \"403 Forbidden\", \"status\": 403}"), 1);
	assert_int_equal(h.kind, KN_BLOCKED_HTTP);
	assert_string_equal(h.signature, "http 403");
	assert_string_equal(h.detail, "403 Forbidden");
	assert_int_equal(judge(&h, NULL, NULL, "{\"status\": 502}"), 1);
	assert_string_equal(h.signature, "http 502");
	assert_int_equal(judge(&h, NULL, NULL, "{\"status\": 404}"), 0); /* a removed page is broken */
	assert_int_equal(judge(&h, NULL, NULL, "{\"status\": 429, \"retry_after\": \"120\"}"), 1);
	assert_string_equal(h.retry_after, "120");

	/* a challenge served with 403 is named by its signature, the status kept */
	assert_int_equal(judge(&h, NULL, NULL, "{\"status\": 403, \"title\": \"Just a moment...\", \"challenge\": 0}"), 1);
	assert_int_equal(h.kind, KN_BLOCKED_CHALLENGE);
	assert_string_equal(h.signature, "title:Just a moment");
	assert_int_equal(h.status, 403);

	assert_int_equal(judge(&h, NULL, NULL, "{\"frame\": 4, \"frame_src\": \"https://x/turnstile/if/ov2\"}"), 1);
	assert_int_equal(h.kind, KN_BLOCKED_CAPTCHA);
	assert_string_equal(h.signature, "frame:/turnstile/if/");
	assert_string_equal(h.detail, "https://x/turnstile/if/ov2");

	assert_int_equal(judge(&h, NULL, NULL, "{\"wall\": 1, \"dismissed\": 1}"), 1);
	assert_int_equal(h.kind, KN_BLOCKED_CONSENT);
	assert_string_equal(h.signature, "wall:#CybotCookiebotDialog");
	assert_int_equal(h.dismissed, 1);

	/* precedence: challenge, CAPTCHA, consent wall, status, geo */
	assert_int_equal(judge(&h, NULL, NULL, "{\"status\": 503, \"wall\": 0, \"frame\": 0, \"challenge\": 3}"), 1);
	assert_int_equal(h.kind, KN_BLOCKED_CHALLENGE);
	assert_int_equal(judge(&h, NULL, NULL, "{\"status\": 503, \"wall\": 0, \"frame\": 0}"), 1);
	assert_int_equal(h.kind, KN_BLOCKED_CAPTCHA);
	assert_int_equal(judge(&h, NULL, NULL, "{\"status\": 503, \"wall\": 0}"), 1);
	assert_int_equal(h.kind, KN_BLOCKED_CONSENT);
	assert_string_equal(kn_blocked_kind_name(KN_BLOCKED_GEO), "geo");
	assert_string_equal(kn_blocked_kind_name((kn_blocked_kind)42), "none");
}

static void test_geo(void **state)
{
	(void)state;
	kn_blocked_hit h;
	const char *de = "{\"url\": \"https://shop.example/de/\", \"status\": 200}";
	assert_int_equal(judge(&h, NULL, "https://shop.example/us/", de), 1);
	assert_int_equal(h.kind, KN_BLOCKED_GEO);
	assert_string_equal(h.signature, "geo:us\xe2\x86\x92" "de");
	assert_string_equal(h.detail, "https://shop.example/us/");
	assert_int_equal(judge(&h, NULL, "https://shop.example/de/", de), 0);  /* same country */
	assert_int_equal(judge(&h, NULL, "https://shop.example/", de), 0);     /* asked for none */
	assert_int_equal(judge(&h, NULL, NULL, de), 0);                        /* not a goto */
	assert_int_equal(judge(&h, NULL, "https://shop.example/us/",
	                       "{\"url\": \"https://shop.example/login\"}"), 0); /* no country: not geo */
	assert_int_equal(judge(&h, NULL, "https://www.example.co.uk/", "{\"url\": \"https://www.example.de/\"}"), 1);
	kn_blocked_rules off = {.geo_off = 1};
	assert_int_equal(judge(&h, &off, "https://shop.example/us/", de), 0);
}

static void test_rules(void **state)
{
	(void)state;
	kn_blocked_hit h;
	static const char *const only404[] = {"404"};
	kn_blocked_rules r = {.http_status = {only404, 1, 1}};
	assert_int_equal(judge(&h, &r, NULL, "{\"status\": 404}"), 1);
	assert_int_equal(judge(&h, &r, NULL, "{\"status\": 403}"), 0);
	/* an empty list that is set turns the rule off */
	kn_blocked_rules none = {.challenge = {NULL, 0, 1}, .consent_walls = {NULL, 0, 1}};
	assert_int_equal(judge(&h, &none, NULL, "{\"challenge\": 0, \"wall\": 0}"), 0);
	/* a configured list: the index names its own entries, and the page cannot name one past it */
	static const char *const mine[] = {"title:Prove you are human"};
	kn_blocked_rules c = {.challenge = {mine, 1, 1}};
	assert_int_equal(judge(&h, &c, NULL, "{\"challenge\": 0}"), 1);
	assert_string_equal(h.signature, "title:Prove you are human");
	assert_int_equal(judge(&h, &c, NULL, "{\"challenge\": 1}"), 0);
	kn_blocked_list l = kn_blocked_effective(&c, &c.challenge, &kn_blocked_default_challenge);
	assert_int_equal(l.n, 1);
	l = kn_blocked_effective(&c, &c.captcha_frames, &kn_blocked_default_captcha_frames);
	assert_int_equal(l.n, kn_blocked_default_captcha_frames.n);
}

static void test_malformed(void **state)
{
	(void)state;
	kn_blocked_hit h;
	static const char *const bad[] = {"", "[]", "null", "42", "\"x\"", "{", "{\"a\": 1, \"a\": 2}", "{\"url\": \"\\u0000\"x}"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (judge(&h, NULL, NULL, bad[i]) != KN_EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		assert_int_equal(h.kind, KN_BLOCKED_NONE);
	}
	assert_int_equal(kn_blocked_judge(&h, NULL, NULL, NULL, 0), KN_EINVAL);
	/* wrong types and out-of-range values are ignored, not trusted */
	assert_int_equal(judge(&h, NULL, NULL,
	                       "{\"url\": 5, \"title\": [], \"status\": \"403\", \"challenge\": -1, \"frame\": 99,"
	                       " \"wall\": 1.5, \"dismissed\": 1e9, \"retry_after\": {}}"), 0);
	assert_string_equal(h.url, "");
	assert_int_equal(h.status, 0);
	assert_int_equal(h.dismissed, 0);
	assert_int_equal(judge(&h, NULL, NULL, "{\"status\": 99999}"), 0);
	/* a probe answer past the cap */
	size_t n = 70 * 1024;
	char *big = malloc(n + 1);
	assert_non_null(big);
	memset(big, ' ', n);
	big[0] = '{', big[n - 1] = '}', big[n] = '\0';
	assert_int_equal(judge(&h, NULL, NULL, big), KN_EINVAL);
	free(big);
}

/* A long title cut inside a multi-byte character still makes a valid report (jansson refuses
 * invalid UTF-8). */
static void test_truncation(void **state)
{
	(void)state;
	char json[2048];
	int k = snprintf(json, sizeof json, "{\"status\": 403, \"title\": \"");
	for (int i = 0; i < 300; i++)
		k += snprintf(json + k, sizeof json - (size_t)k, "\xc3\xa9"); /* é */
	snprintf(json + k, sizeof json - (size_t)k, "\", \"url\": \"http://a/\"}");
	kn_blocked_hit h;
	assert_int_equal(judge(&h, NULL, NULL, json), 1);
	assert_true(strlen(h.detail) < sizeof h.detail);
	assert_int_equal(strlen(h.detail) % 2, 0);
	json_t *o = kn_blocked_hit_json(&h, 2);
	assert_non_null(o);
	assert_int_equal(json_integer_value(json_object_get(o, "step")), 2);
	assert_string_equal(json_string_value(json_object_get(o, "kind")), "http");
	assert_int_equal(json_integer_value(json_object_get(o, "status")), 403);
	assert_null(json_object_get(o, "retry_after"));
	json_decref(o);
	memset(&h, 0, sizeof h);
	o = kn_blocked_hit_json(&h, 0);
	assert_true(json_is_null(json_object_get(o, "step")));
	assert_true(json_is_null(json_object_get(o, "status")));
	json_decref(o);
}

static void same_list(const struct kn_config_list *got, const kn_blocked_list *want, const char *what)
{
	if (!got->set || got->n != want->n)
		fail_msg("%s: example has %zu entries (set=%d), defaults %zu", what, got->n, got->set, want->n);
	for (size_t i = 0; i < want->n; i++)
		if (strcmp(got->v[i], want->v[i]) != 0)
			fail_msg("%s[%zu]: example '%s', default '%s'", what, i, got->v[i], want->v[i]);
}

static void test_config_example(void **state)
{
	(void)state;
	kn_config *c = NULL;
	kn_err err = {0};
	if (kn_config_load(&c, EXAMPLE, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(c->blocked.enabled, 1);
	assert_int_equal(c->blocked.geo, 1);
	same_list(&c->blocked.lists[KN_CONFIG_BLOCKED_HTTP_STATUS], &kn_blocked_default_http_status, "http_status");
	same_list(&c->blocked.lists[KN_CONFIG_BLOCKED_CHALLENGE], &kn_blocked_default_challenge, "challenge");
	same_list(&c->blocked.lists[KN_CONFIG_BLOCKED_CAPTCHA_FRAMES], &kn_blocked_default_captcha_frames, "captcha_frames");
	same_list(&c->blocked.lists[KN_CONFIG_BLOCKED_CONSENT_WALLS], &kn_blocked_default_consent_walls, "consent_walls");
	same_list(&c->blocked.lists[KN_CONFIG_BLOCKED_CONSENT_DISMISS], &kn_blocked_default_consent_dismiss,
	          "consent_dismiss");
	kn_config_free(c);
}

static void test_config_values(void **state)
{
	(void)state;
	kn_config *c = NULL;
	kn_err err = {0};
	const char *ok = "blocked: { enabled: false, geo: false, http_status: [\"403\", \"5xx\"], consent_walls: [] }\n";
	assert_int_equal(kn_config_load_buffer(&c, ok, strlen(ok), "k.yaml", &err), 0);
	assert_int_equal(c->blocked.enabled, 0);
	assert_int_equal(c->blocked.geo, 0);
	assert_int_equal(c->blocked.lists[KN_CONFIG_BLOCKED_HTTP_STATUS].n, 2);
	assert_int_equal(c->blocked.lists[KN_CONFIG_BLOCKED_CONSENT_WALLS].set, 1);
	assert_int_equal(c->blocked.lists[KN_CONFIG_BLOCKED_CONSENT_WALLS].n, 0);
	assert_int_equal(c->blocked.lists[KN_CONFIG_BLOCKED_CHALLENGE].set, 0);
	kn_config_free(c);
	assert_int_equal(kn_config_new(&c, &err), 0);
	assert_int_equal(c->blocked.enabled, 1);
	kn_config_free(c);
	static const struct {
		const char *yaml, *msg;
	} bad[] = {
		{"blocked: { enabled: maybe }\n", "k.yaml:1:21: blocked.enabled: expected true or false"},
		{"blocked:\n  http_status: [\"403\", \"40\"]\n", "k.yaml:2:24: blocked.http_status[1]: expected a status"},
		{"blocked: { http_status: [\"4z3\"] }\n", "blocked.http_status[0]"},
		{"blocked: { http_status: [\"099\"] }\n", "blocked.http_status[0]"},
		{"blocked: { challenge: \"title:x\" }\n", "blocked.challenge: expected a sequence"},
		{"blocked: { challenge: [\"\"] }\n", "blocked.challenge[0]: must not be empty"},
		{"blocked: { captcha_frames: [[1]] }\n", "blocked.captcha_frames[0]: expected a string"},
		{"blocked: { signatures: [] }\n", "blocked.signatures: unknown key"},
		{"blocked: [1]\n", "blocked: expected a mapping"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		c = NULL;
		if (kn_config_load_buffer(&c, bad[i].yaml, strlen(bad[i].yaml), "k.yaml", &err) != KN_EINVAL)
			fail_msg("accepted: %s", bad[i].yaml);
		assert_null(c);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("%s: got '%s', want '%s'", bad[i].yaml, err.msg, bad[i].msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),       cmocka_unit_test(test_country),
		cmocka_unit_test(test_kinds),        cmocka_unit_test(test_geo),
		cmocka_unit_test(test_rules),        cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_truncation),   cmocka_unit_test(test_config_example),
		cmocka_unit_test(test_config_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
