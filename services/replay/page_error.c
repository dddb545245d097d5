/* page_error.c — what the page shows is evidence, the browser half (softpage.h is the pure half):
 * after a step the page asked what it shows (page_js.c `shows`); a not-found or error state, or an own-site data request
 * failing, that the step's recording did not have makes the step "page shows an error". */
#include <stdio.h>
#include <string.h>

#include "replay_internal.h"
#include "softpage.h"

int kn_replay_page_error(kn_cdp *c, const char *session, const kn_task *task, const kn_step *st,
                         const kn_softpage_failed *f, unsigned since, kn_replay_page_verdict *out)
{
	memset(out, 0, sizeof *out);
	kn_softpage_request reqs[KN_SOFTPAGE_FAILED_KEEP];
	size_t n = kn_softpage_failed_since(f, since, task, reqs);
	json_t *v = NULL;
	kn_err e;
	int shows = 0;
	if (kn_replay_page_call(c, session, "shows", NULL, &v, &e) == 0) {
		kn_softpage_view view = {
			json_string_value(json_object_get(v, "title")), json_string_value(json_object_get(v, "headings")),
			json_string_value(json_object_get(v, "alerts")), json_string_value(json_object_get(v, "text")),
			(size_t)json_integer_value(json_object_get(v, "len"))};
		shows = kn_softpage_shows_error(&view, out->phrase, sizeof out->phrase);
	}
	json_decref(v);
	out->shows_error = shows;
	int culprit;
	if (!kn_softpage_judge(st, shows, reqs, n, &culprit))
		return 0;
	if (culprit >= 0) {
		snprintf(out->url, sizeof out->url, "%s", reqs[culprit].url);
		out->status = reqs[culprit].status;
	}
	return 1;
}
