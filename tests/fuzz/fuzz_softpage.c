/* fuzz_softpage.c — page-error detection (services/replay/softpage.h) on arbitrary bytes: the input is
 * a JSON object, either what the page answers (`shows`: title, headings, alerts, text, len — page
 * controlled) or, with a "method", a tab's Network event (site controlled URLs). The heuristic, the
 * failure tracker, the recorded paths and the judge must neither crash nor overrun, and every string
 * they give back must be NUL-terminated. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "softpage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *v = json_loadb((const char *)data, size, JSON_DISABLE_EOF_CHECK, NULL);
	if (!json_is_object(v)) {
		json_decref(v);
		return 0;
	}
	static kn_softpage_failed f; /* carried from input to input, as a tab's is */
	const char *method = json_string_value(json_object_get(v, "method"));
	char phrase[64];
	int shows = 0;
	if (method) {
		kn_softpage_failed_note(&f, method, json_object_get(v, "params"));
	} else {
		kn_softpage_view view = {
			json_string_value(json_object_get(v, "title")), json_string_value(json_object_get(v, "headings")),
			json_string_value(json_object_get(v, "alerts")), json_string_value(json_object_get(v, "text")),
			(size_t)json_integer_value(json_object_get(v, "len"))};
		shows = kn_softpage_shows_error(&view, phrase, sizeof phrase);
		if (!memchr(phrase, 0, sizeof phrase))
			abort();
	}
	kn_softpage_request reqs[KN_SOFTPAGE_FAILED_KEEP];
	const char *urls[KN_SOFTPAGE_FAILED_KEEP];
	size_t n = kn_softpage_failed_since(&f, 0, NULL, reqs); /* no task: no site is its own */
	if (n)
		abort();
	for (size_t i = 0; i < KN_SOFTPAGE_FAILED_KEEP && i < f.n_failed; i++) {
		if (!memchr(f.failed[i].url, 0, sizeof f.failed[i].url))
			abort();
		reqs[i] = (kn_softpage_request){f.failed[i].url, f.failed[i].status};
		urls[i] = f.failed[i].url;
		n++;
	}
	char *paths = kn_softpage_paths(urls, n);
	if (paths && strlen(paths) > KN_SOFTPAGE_PATHS_MAX)
		abort();
	int culprit;
	kn_step st = {.error_page = 2, .failed_requests = paths};
	if (kn_softpage_judge(&st, shows, reqs, n, &culprit) && (culprit < -1 || culprit >= (int)n))
		abort();
	st.error_page = 0;
	if (kn_softpage_judge(&st, shows, reqs, n, &culprit) && (culprit < 0 || culprit >= (int)n))
		abort();
	free(paths);
	json_decref(v);
	return 0;
}
