/* repair_url.c — the pure half of a URL key node's repair proposal (repair.h kn_repair_url): the
 * key node as a page a step visited would reach it, when that page shows the expected value under
 * a renamed query parameter, or the expected text's query parameter or path segments renamed.
 * Every candidate is checked with the key node's own matcher on the URL before it is proposed.
 * The URLs come from the page (untrusted): unit-tested with malformed ones (tests/unit/
 * test_repair.c) and fuzzed (tests/fuzz/fuzz_repair.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heal.h"
#include "keynode/match.h"
#include "keynode/url.h"
#include "repair.h"

#define MAX_PARAMS 32

/* The names of url's query parameters (each malloc'd) into names; their number. */
static size_t url_params(const char *url, char **names)
{
	const char *q = strchr(url, '?');
	size_t n = 0;
	if (!q)
		return 0;
	for (const char *p = q + 1; *p && *p != '#' && n < MAX_PARAMS;) {
		size_t len = strcspn(p, "=&#");
		if (len && (names[n] = strndup(p, len)) != NULL)
			n++;
		p += len;
		p += strcspn(p, "&#");
		if (*p == '&')
			p++;
	}
	return n;
}

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
}

/* 1 when key node kn with expect (and key) instead of its own is reached on url. */
static int url_hits(const kn_keynode *kn, const char *expect, const char *key, const char *url)
{
	char *in = NULL;
	int rc = key ? kn_url_query_param(&in, url, key)
	         : kn->matcher == KN_MATCH_REGEX ? ((in = strdup(url)) ? 0 : KN_ENOMEM)
	         : kn->matcher == KN_MATCH_EXACT ? kn_url_exact_form(&in, url)
	                                         : kn_url_include_form(&in, url);
	void *re = NULL;
	kn_err err;
	int hit = 0;
	if (!rc && in && (kn->matcher != KN_MATCH_REGEX || kn_regex_compile(&re, expect, &err) == 0))
		hit = kn_match_text(kn->matcher, expect, in, 0, re) >= 1.0;
	kn_regex_free(re);
	free(in);
	return hit;
}

/* s with the n bytes at `at` replaced by with. Caller frees. */
static char *splice(const char *s, size_t at, size_t n, const char *with)
{
	size_t len = strlen(s) + strlen(with) + 1;
	char *out = malloc(len);
	if (out)
		snprintf(out, len, "%.*s%s%s", (int)at, s, with, s + at + n);
	return out;
}

static int ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* The expected text with a query parameter renamed so that it takes the value url has under
 * another name ("…?id=5" → "…?post=5"). NULL when none fits. */
static char *param_rename(const kn_keynode *kn, const char *url)
{
	char *names[MAX_PARAMS], *found = NULL;
	size_t np = url_params(url, names);
	const char *e = kn->expect;
	for (size_t i = 0; i < np && !found; i++) {
		char *v = NULL;
		if (kn_url_query_param(&v, url, names[i]) != 0 || !v || !*v) {
			free(v);
			continue;
		}
		size_t vl = strlen(v), nl = strlen(names[i]);
		for (const char *eq = strchr(e, '='); eq && !found; eq = strchr(eq + 1, '=')) {
			const char *a = eq;
			while (a > e && ident(a[-1]))
				a--;
			if (a == eq || a == e || !strchr("?&", a[-1]) || strncmp(eq + 1, v, vl) != 0 || ident(eq[1 + vl]))
				continue;
			if ((size_t)(eq - a) == nl && strncmp(a, names[i], nl) == 0)
				continue; /* the same name: not a rename */
			char *cand = splice(e, (size_t)(a - e), (size_t)(eq - a), names[i]);
			if (cand && url_hits(kn, cand, NULL, url))
				found = cand;
			else
				free(cand);
		}
		free(v);
	}
	names_free(names, np);
	return found;
}

/* The path of url (after scheme and host; query and fragment dropped), into out. */
static void path_of(char *out, size_t n, const char *url)
{
	const char *p = kn_heal_href_tail(url);
	snprintf(out, n, "%.*s", (int)strcspn(p, "?#"), p);
}

/* "." as "\." (a regex's literal dot), into out. */
static void esc_dots(char *out, size_t n, const char *s)
{
	size_t w = 0;
	for (; *s && w + 3 < n; s++) {
		if (*s == '.')
			out[w++] = '\\';
		out[w++] = *s;
	}
	out[w] = '\0';
}

/* The expected text with the path segments that changed between the URL the step recorded (was)
 * and the one it reached (now) replaced: "/notes/new.html" → "/notes/compose.html". NULL: none. */
static char *path_rename(const kn_keynode *kn, const char *was, const char *now)
{
	char a[1024], b[1024];
	path_of(a, sizeof a, was);
	path_of(b, sizeof b, now);
	if (!*a || strcmp(a, b) == 0)
		return NULL;
	/* the segments both share at the start and at the end stay */
	size_t la = strlen(a), lb = strlen(b), pre = 0, suf = 0;
	for (size_t i = 0; i < la && i < lb && a[i] == b[i]; i++)
		if (a[i] == '/')
			pre = i + 1;
	while (suf < la - pre && suf < lb - pre && a[la - 1 - suf] == b[lb - 1 - suf])
		suf++;
	while (suf && a[la - suf] != '/') /* back to a segment boundary */
		suf--;
	if (pre <= 1 && !suf)
		return NULL; /* no segment in common: another page, not a renamed one */
	char olds[3][1024], news[3][1024];
	snprintf(olds[0], sizeof olds[0], "%s", a);
	snprintf(news[0], sizeof news[0], "%s", b);
	snprintf(olds[1], sizeof olds[1], "%.*s", (int)(la - pre - suf), a + pre);
	snprintf(news[1], sizeof news[1], "%.*s", (int)(lb - pre - suf), b + pre);
	esc_dots(olds[2], sizeof olds[2], olds[1]);
	esc_dots(news[2], sizeof news[2], news[1]);
	for (int k = 0; k < 3; k++) {
		const char *at = *olds[k] ? strstr(kn->expect, olds[k]) : NULL;
		char *cand = at ? splice(kn->expect, (size_t)(at - kn->expect), strlen(olds[k]), news[k]) : NULL;
		if (cand && url_hits(kn, cand, kn->key, now))
			return cand;
		free(cand);
	}
	return NULL;
}

int kn_repair_url(const kn_keynode *kn, const char *url, const char *recorded, char **key, char **expect)
{
	*key = *expect = NULL;
	if (kn->target != KN_TARGET_URL || !url || !kn->expect ||
	    (kn->matcher != KN_MATCH_EXACT && kn->matcher != KN_MATCH_INCLUDE && kn->matcher != KN_MATCH_REGEX))
		return 0;
	if (kn->key) { /* the same value under another parameter name; a page that has the parameter is no rename */
		char *v = NULL, *names[MAX_PARAMS];
		if (kn_url_query_param(&v, url, kn->key) == 0) {
			free(v);
			return 0;
		}
		size_t np = url_params(url, names);
		for (size_t k = 0; k < np && !*key; k++)
			if (strcmp(names[k], kn->key) != 0 && url_hits(kn, kn->expect, names[k], url) && !(*key = strdup(names[k])))
				break;
		names_free(names, np);
		return *key ? 1 : 0;
	}
	*expect = param_rename(kn, url);
	if (!*expect && recorded)
		*expect = path_rename(kn, recorded, url);
	return *expect ? 1 : 0;
}
