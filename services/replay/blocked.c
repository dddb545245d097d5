/* blocked.c — the pure half of blocked detection (blocked.h): the default signatures, matching an
 * HTTP status against "403"/"5xx" patterns, the country marker of a URL, and the judge that reads
 * what the in-page probe reported. The probe reports indices into the rule lists, never the rule
 * text, so the signature in a verdict always is one of the configured rules. Every default below
 * has a fixture page under tests/sites/blocked/ (tests/integration/blocked.sh). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "blocked.h"
#include "keynode/error.h"
#include "keynode/utf8.h"

#define KN_BLOCKED_MAX_PROBE (64u * 1024u) /* a probe answer is a few hundred bytes */

static const char *const def_http[] = {"401", "403", "429", "5xx"};
static const char *const def_challenge[] = {
	"title:Just a moment",                                   /* Cloudflare interstitial */
	"title:Attention Required! | Cloudflare",                /* Cloudflare block page */
	"css:#challenge-running, #challenge-stage, #cf-challenge-running", /* Cloudflare challenge widget */
	"css:#px-captcha",                                       /* HUMAN (PerimeterX) */
	"title:Pardon Our Interruption",                         /* Imperva (Distil) */
	"css:form[action*=\"/errors/validateCaptcha\"]",         /* Amazon robot check */
	"title:DDoS-Guard",                                      /* DDoS-Guard */
};
static const char *const def_frames[] = {
	"/recaptcha/api2/anchor", "/recaptcha/api2/bframe", "/recaptcha/enterprise/anchor",
	"hcaptcha.html#frame=", "/turnstile/if/",
};
static const char *const def_walls[] = {
	"#onetrust-consent-sdk", "#CybotCookiebotDialog", ".fc-consent-root", "#qc-cmp2-container",
	"[id^=\"sp_message_container\"]", "#didomi-host", "#usercentrics-root",
};
static const char *const def_dismiss[] = {
	"#onetrust-accept-btn-handler", "#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll",
	".fc-cta-consent", "#qc-cmp2-ui button[mode=\"primary\"]", "#didomi-notice-agree-button",
};

#define LIST(a) {a, sizeof a / sizeof a[0], 1}
const kn_blocked_list kn_blocked_default_http_status = LIST(def_http);
const kn_blocked_list kn_blocked_default_challenge = LIST(def_challenge);
const kn_blocked_list kn_blocked_default_captcha_frames = LIST(def_frames);
const kn_blocked_list kn_blocked_default_consent_walls = LIST(def_walls);
const kn_blocked_list kn_blocked_default_consent_dismiss = LIST(def_dismiss);

const char *kn_blocked_kind_name(kn_blocked_kind k)
{
	static const char *const names[] = {"none", "http", "challenge", "captcha", "consent", "geo"};
	return (unsigned)k <= KN_BLOCKED_GEO ? names[k] : "none";
}

kn_blocked_list kn_blocked_effective(const kn_blocked_rules *rules, const kn_blocked_list *which,
                                     const kn_blocked_list *defaults)
{
	return rules && which && which->set ? *which : *defaults;
}

int kn_blocked_status_matches(const char *pattern, int status)
{
	char digits[16];
	if (!pattern || strlen(pattern) != 3 || status < 100 || status > 999)
		return 0;
	snprintf(digits, sizeof digits, "%d", status);
	for (int i = 0; i < 3; i++)
		if (tolower((unsigned char)pattern[i]) != 'x' && pattern[i] != digits[i])
			return 0;
	return 1;
}

/* A locale segment ("de", "en-gb", "fr_CA") of length n at s: its country part into out. */
static int locale(const char *s, size_t n, char *out, size_t cap)
{
	if (cap < 3)
		return 0;
	if (n == 2 && isalpha((unsigned char)s[0]) && isalpha((unsigned char)s[1])) {
		out[0] = (char)tolower((unsigned char)s[0]), out[1] = (char)tolower((unsigned char)s[1]), out[2] = 0;
		return 1;
	}
	if (n == 5 && (s[2] == '-' || s[2] == '_') && isalpha((unsigned char)s[0]) &&
	    isalpha((unsigned char)s[1]) && isalpha((unsigned char)s[3]) && isalpha((unsigned char)s[4]))
		return locale(s + 3, 2, out, cap);
	return 0;
}

int kn_blocked_country(const char *url, char *out, size_t cap)
{
	if (cap)
		*out = '\0';
	if (!url || cap < 3)
		return KN_EINVAL;
	const char *p;
	if (strncmp(url, "http://", 7) == 0)
		p = url + 7;
	else if (strncmp(url, "https://", 8) == 0)
		p = url + 8;
	else
		return KN_EINVAL;
	size_t hl = strcspn(p, "/?#");
	const char *at = memchr(p, '@', hl);
	if (at) { /* userinfo */
		hl -= (size_t)(at + 1 - p);
		p = at + 1;
	}
	const char *host = p, *path = p + hl;
	size_t hostlen = hl;
	if (hostlen && host[0] == '[')
		hostlen = 0; /* an IPv6 literal has no country */
	const char *colon = memchr(host, ':', hostlen);
	if (colon)
		hostlen = (size_t)(colon - host);
	if (*path == '/') {
		const char *seg = path + 1;
		size_t n = strcspn(seg, "/?#");
		if (locale(seg, n, out, cap))
			return 0;
	}
	size_t first = strcspn(host, ".");
	if (first < hostlen && locale(host, first, out, cap))
		return 0;
	const char *dot = NULL;
	for (size_t i = 0; i < hostlen; i++)
		if (host[i] == '.')
			dot = host + i;
	if (dot && (size_t)(host + hostlen - dot - 1) == 2 && locale(dot + 1, 2, out, cap))
		return 0;
	return 0;
}

/* Copy src into dst (cap bytes), whole characters only, an invalid byte becoming '?': what goes
 * into a report stays valid UTF-8 (jansson refuses anything else) however it was cut. */
static void copy_utf8(char *dst, size_t cap, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t n = strlen(src), w = 0;
	while (n) {
		size_t skip, k = kn_utf8_next(s, n, &skip);
		if (w + (k ? k : 1) >= cap)
			break;
		if (k)
			memcpy(dst + w, s, k);
		else
			dst[w] = '?', k = 1;
		w += k, s += k, n -= k;
	}
	dst[w] = '\0';
}

static const char *str_of(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* The index reported under key, checked against a list of n; -1 when absent or out of range. */
static long index_of(json_t *o, const char *key, size_t n)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_integer(v))
		return -1;
	json_int_t i = json_integer_value(v);
	return i >= 0 && (size_t)i < n ? (long)i : -1;
}

int kn_blocked_judge(kn_blocked_hit *out, const kn_blocked_rules *rules, const char *requested,
                     const char *probe_json, size_t len)
{
	memset(out, 0, sizeof *out);
	if (!probe_json || len > KN_BLOCKED_MAX_PROBE)
		return KN_EINVAL;
	json_t *p = json_loadb(probe_json, len, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(p)) {
		json_decref(p);
		return KN_EINVAL;
	}
	copy_utf8(out->url, sizeof out->url, str_of(p, "url"));
	json_t *st = json_object_get(p, "status");
	if (json_is_integer(st) && json_integer_value(st) >= 100 && json_integer_value(st) <= 999)
		out->status = (int)json_integer_value(st);
	json_int_t dismissed = json_integer_value(json_object_get(p, "dismissed"));
	out->dismissed = dismissed > 0 && dismissed < 100 ? (int)dismissed : 0;
	copy_utf8(out->retry_after, sizeof out->retry_after, str_of(p, "retry_after"));

	kn_blocked_list http = kn_blocked_effective(rules, rules ? &rules->http_status : NULL,
	                                            &kn_blocked_default_http_status);
	kn_blocked_list ch = kn_blocked_effective(rules, rules ? &rules->challenge : NULL,
	                                          &kn_blocked_default_challenge);
	kn_blocked_list fr = kn_blocked_effective(rules, rules ? &rules->captcha_frames : NULL,
	                                          &kn_blocked_default_captcha_frames);
	kn_blocked_list wa = kn_blocked_effective(rules, rules ? &rules->consent_walls : NULL,
	                                          &kn_blocked_default_consent_walls);
	long i;
	if (!out->kind && (i = index_of(p, "challenge", ch.n)) >= 0) {
		out->kind = KN_BLOCKED_CHALLENGE;
		copy_utf8(out->signature, sizeof out->signature, ch.v[i]);
		copy_utf8(out->detail, sizeof out->detail, str_of(p, "title"));
	}
	if (!out->kind && (i = index_of(p, "frame", fr.n)) >= 0) {
		out->kind = KN_BLOCKED_CAPTCHA;
		snprintf(out->signature, sizeof out->signature, "frame:");
		copy_utf8(out->signature + 6, sizeof out->signature - 6, fr.v[i]);
		copy_utf8(out->detail, sizeof out->detail, str_of(p, "frame_src"));
	}
	if (!out->kind && (i = index_of(p, "wall", wa.n)) >= 0) {
		out->kind = KN_BLOCKED_CONSENT;
		snprintf(out->signature, sizeof out->signature, "wall:");
		copy_utf8(out->signature + 5, sizeof out->signature - 5, wa.v[i]);
		copy_utf8(out->detail, sizeof out->detail, wa.v[i]);
	}
	/* after the page's own signatures: a challenge served with 403 is named by its signature */
	for (size_t k = 0; out->status && k < http.n && !out->kind; k++)
		if (kn_blocked_status_matches(http.v[k], out->status)) {
			out->kind = KN_BLOCKED_HTTP;
			snprintf(out->signature, sizeof out->signature, "http %d", out->status);
			copy_utf8(out->detail, sizeof out->detail, str_of(p, "title"));
		}
	if (!out->kind && requested && !(rules && rules->geo_off) && out->url[0]) {
		char want[8], got[8];
		if (kn_blocked_country(requested, want, sizeof want) == 0 && want[0] &&
		    kn_blocked_country(out->url, got, sizeof got) == 0 && got[0] && strcmp(want, got) != 0) {
			out->kind = KN_BLOCKED_GEO;
			snprintf(out->signature, sizeof out->signature, "geo:%s\xe2\x86\x92%s", want, got);
			copy_utf8(out->detail, sizeof out->detail, requested);
		}
	}
	json_decref(p);
	return out->kind != KN_BLOCKED_NONE;
}

json_t *kn_blocked_hit_json(const kn_blocked_hit *hit, int step)
{
	json_t *o = json_pack("{s:o, s:s, s:s, s:o, s:s, s:s}", "step", step > 0 ? json_integer(step) : json_null(),
	                      "kind", kn_blocked_kind_name(hit->kind), "signature", hit->signature, "status",
	                      hit->status ? json_integer(hit->status) : json_null(), "url", hit->url, "detail",
	                      hit->detail);
	if (o && hit->retry_after[0])
		json_object_set_new(o, "retry_after", json_string(hit->retry_after));
	return o;
}
