/* events_body.c — the body of POST /api/runs/{id}/events (runs.h kn_runs_parse_events): one
 * trajectory event object, an array of them, or JSON Lines, each parsed with the core's
 * kn_event_parse. The whole body is parsed before anything is evaluated, so one bad event refuses
 * the batch with a message naming it ("event 3: …" / "line 7: …"); at most KN_RUNS_MAX_EVENTS_POST
 * events per body. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/grow.h"
#include "runs.h"

int kn_runs_parse_events(kn_event **out, size_t *n, const char *body, size_t len, kn_err *err)
{
	*out = NULL;
	*n = 0;
	size_t i = 0;
	while (i < len && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r' || body[i] == '\t'))
		i++;
	if (i == len)
		return kn_err_set(err, KN_EINVAL, "no events in the body");
	kn_event *evs = NULL;
	size_t cnt = 0, cap = 0;
	json_t *arr = NULL;
	if (body[i] == '[' || body[i] == '{') {
		json_error_t je;
		arr = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
		if (!arr && body[i] == '[')
			return kn_err_set(err, KN_EINVAL, "%d:%d: %s", je.line, je.column, je.text);
		if (arr && json_is_object(arr)) {
			json_t *a = json_array();
			json_array_append_new(a, arr);
			arr = a;
		}
	}
	int rc = 0;
	if (arr) {
		if (!json_is_array(arr)) {
			json_decref(arr);
			return kn_err_set(err, KN_EINVAL, "expected an event object or an array of them");
		}
		size_t m = json_array_size(arr);
		if (m > KN_RUNS_MAX_EVENTS_POST) {
			json_decref(arr);
			return kn_err_set(err, KN_ELIMIT, "more than %d events in one request",
			                  KN_RUNS_MAX_EVENTS_POST);
		}
		evs = calloc(m ? m : 1, sizeof *evs);
		for (size_t k = 0; evs && k < m && !rc; k++) {
			char *t = json_dumps(json_array_get(arr, k), JSON_COMPACT | JSON_ENCODE_ANY);
			if (!t || kn_event_parse(&evs[cnt], t, strlen(t), err) != 0) {
				char why[KN_ERR_MAX];
				snprintf(why, sizeof why, "%s", err ? err->msg : "");
				rc = kn_err_set(err, KN_EINVAL, "event %zu: %s", k + 1, why);
			} else {
				cnt++;
			}
			free(t);
		}
		json_decref(arr);
		if (!evs)
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	} else {
		size_t lineno = 0;
		while (i < len && !rc) {
			const char *nl = memchr(body + i, '\n', len - i);
			size_t ll = nl ? (size_t)(nl - (body + i)) : len - i;
			lineno++;
			size_t s0 = i;
			i += ll + (nl ? 1 : 0);
			while (ll && (body[s0 + ll - 1] == '\r' || body[s0 + ll - 1] == ' '))
				ll--;
			if (!ll)
				continue;
			if (cnt >= KN_RUNS_MAX_EVENTS_POST) {
				rc = kn_err_set(err, KN_ELIMIT, "more than %d events in one request",
				                KN_RUNS_MAX_EVENTS_POST);
				break;
			}
			if (kn_grow(&evs, cnt, &cap, sizeof *evs, 16)) {
				rc = kn_err_set(err, KN_ENOMEM, "out of memory");
				break;
			}
			memset(&evs[cnt], 0, sizeof evs[cnt]);
			if (kn_event_parse(&evs[cnt], body + s0, ll, err) != 0) {
				char why[KN_ERR_MAX];
				snprintf(why, sizeof why, "%s", err ? err->msg : "");
				rc = kn_err_set(err, KN_EINVAL, "line %zu: %s", lineno, why);
			} else {
				cnt++;
			}
		}
	}
	if (rc) {
		kn_traj_events_free(evs, cnt);
		return rc;
	}
	*out = evs;
	*n = cnt;
	return 0;
}

