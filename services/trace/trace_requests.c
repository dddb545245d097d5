/* trace_requests.c — the requests a traced run's pages sent or a guard rule held: the
 * `request` events a trace folds into its steps (trace.c), listed with the step each is credited to,
 * whether it was held and the request key nodes it matched. `keynode trace show` prints the list,
 * the drift diff (trace_drift.c) pairs the lists of its two replays. Values are the trace's:
 * secrets were redacted before anything was written, and stay so. Reads any JSON defensively. */
#include <string.h>

#include "trace.h"

#define KN_TRACE_PRINT_FIELDS 20 /* body fields printed per request */

json_t *kn_trace_requests(const json_t *idx)
{
	json_t *out = json_array(), *s, *e;
	size_t i, k;
	if (!out)
		return NULL;
	json_array_foreach(json_object_get(idx, "steps"), i, s) {
		json_array_foreach(json_object_get(s, "events"), k, e) {
			json_t *r = json_object_get(e, "request");
			const char *type = json_string_value(json_object_get(e, "type"));
			if (!type || strcmp(type, "request") != 0 || !json_is_object(r))
				continue;
			const char *method = json_string_value(json_object_get(r, "method"));
			const char *url = json_string_value(json_object_get(r, "url"));
			json_t *m = json_object_get(r, "matched"), *f = json_object_get(r, "fields");
			json_t *o = json_pack("{s:I, s:s, s:s, s:b, s:o, s:o}", "step",
			                      json_integer_value(json_object_get(s, "step")), "method",
			                      method ? method : "?", "url", url ? url : "", "held",
			                      json_is_true(json_object_get(r, "held")), "matched",
			                      json_is_array(m) ? json_deep_copy(m) : json_array(), "fields",
			                      json_is_array(f) ? json_deep_copy(f) : json_array());
			if (!o) {
				json_decref(out);
				return NULL;
			}
			json_array_append_new(out, o);
		}
	}
	return out;
}

void kn_trace_print_requests(FILE *f, const json_t *requests)
{
	size_t i, k;
	json_t *r, *x;
	if (!json_array_size(requests))
		return;
	fprintf(f, "\nrequests:\n");
	json_array_foreach(requests, i, r) {
		fprintf(f, "  step %lld  %s %s  %s", (long long)json_integer_value(json_object_get(r, "step")),
		        json_string_value(json_object_get(r, "method")), json_string_value(json_object_get(r, "url")),
		        json_is_true(json_object_get(r, "held")) ? "HELD by keynode (never sent)" : "sent");
		json_t *m = json_object_get(r, "matched");
		if (!json_array_size(m))
			fprintf(f, ", matched no key node");
		json_array_foreach(m, k, x)
			fprintf(f, "%s%s", k ? ", " : ", matched ", json_is_string(x) ? json_string_value(x) : "?");
		fputc('\n', f);
		json_t *fields = json_object_get(r, "fields");
		json_array_foreach(fields, k, x) {
			if (k == KN_TRACE_PRINT_FIELDS) {
				fprintf(f, "      … %zu more fields\n", json_array_size(fields) - k);
				break;
			}
			const char *n = json_string_value(json_array_get(x, 0)), *v = json_string_value(json_array_get(x, 1));
			fprintf(f, "      %s = \"%.200s\"%s\n", n ? n : "?", v ? v : "", v && strlen(v) > 200 ? "…" : "");
		}
	}
}
