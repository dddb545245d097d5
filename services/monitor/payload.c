/* payload.c — the monitor's two boundaries with the page: decoding what the recorder reports
 * (untrusted: a malformed payload is an error, never a crash) and building the recorder source
 * with the task's element key nodes filled in. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "monitor.h"

extern const char kn_recorder_js[];
extern const unsigned long kn_recorder_js_len;

#define KN_PAYLOAD_MAX (256u * 1024u)

int kn_monitor_decode_payload(kn_event *ev, const char *payload, size_t len, kn_err *err)
{
	memset(ev, 0, sizeof *ev);
	if (len > KN_PAYLOAD_MAX)
		return kn_err_set(err, KN_ELIMIT, "recorder payload of %zu bytes is over the %u byte limit",
		                  len, KN_PAYLOAD_MAX);
	int rc = kn_event_parse(ev, payload, len, err);
	if (rc)
		return rc;
	switch (ev->type) {
	case KN_EV_CLICK:
	case KN_EV_TYPE:
	case KN_EV_SELECT:
	case KN_EV_SUBMIT:
	case KN_EV_PRESS:
	case KN_EV_SCROLL:
	case KN_EV_HOVER:
	case KN_EV_DRAG:
		break;
	default:
		rc = kn_err_set(err, KN_EINVAL, "recorder payload: type '%s' is not a recorder action",
		                kn_event_type_name(ev->type));
		kn_event_clear(ev);
		return rc;
	}
	ev->how = NULL; /* navigation causes come from the browser, not the page */
	ev->frame_url = NULL; /* where in the frame tree: the monitor says (frames.c) */
	ev->frame_path = NULL;
	ev->n_frame_path = 0;
	ev->tab = NULL;
	ev->t = 0;
	return 0;
}

void kn_monitor_payload_meta(const char *payload, size_t len, double *t_ms, char **newtab_href)
{
	*t_ms = 0;
	*newtab_href = NULL;
	json_t *j = len <= KN_PAYLOAD_MAX ? json_loadb(payload, len, 0, NULL) : NULL;
	json_t *t = json_object_get(j, "t");
	if (json_is_number(t) && json_number_value(t) > 0 && json_number_value(t) < 1e15)
		*t_ms = json_number_value(t);
	json_t *href = json_object_get(json_object_get(j, "hints"), "href");
	if (json_is_true(json_object_get(j, "newtab")) && json_is_string(href))
		*newtab_href = strdup(json_string_value(href));
	json_decref(j);
}

int kn_monitor_recorder_source(char **out, const kn_task *task, const char *binding, int shows)
{
	*out = NULL;
	json_t *nodes = json_array();
	for (size_t i = 0; nodes && i < task->n_keynodes; i++) {
		const kn_keynode *kn = &task->keynodes[i];
		const char *sel = kn->target == KN_TARGET_ELEMENT_PATH ? kn->expect
		                  : kn->target == KN_TARGET_ELEMENT_VALUE ? kn->path
		                                                          : NULL;
		if (!sel || kn->matcher == KN_MATCH_REGEX)
			continue;
		json_array_append_new(
			nodes, json_pack("{s:s, s:s, s:s, s:b, s:s?, s:b}", "id", kn->id, "target",
		                     kn_target_name(kn->target), "selector", sel, "xpath", kn->xpath,
		                     "netloc", kn->netloc, "include", kn->matcher == KN_MATCH_INCLUDE));
	}
	json_t *cfg = json_pack("{s:s, s:o, s:i, s:b}", "binding", binding, "nodes", nodes,
	                        "scroll_debounce_ms", 400, "shows", shows);
	char *cfg_text = cfg ? json_dumps(cfg, JSON_COMPACT) : NULL;
	json_decref(cfg);
	if (!cfg_text)
		return KN_ENOMEM;
	const char *tok = "__KN_CONFIG__";
	const char *at = strstr(kn_recorder_js, tok);
	if (!at) {
		free(cfg_text);
		return KN_EINVAL;
	}
	size_t pre = (size_t)(at - kn_recorder_js), cl = strlen(cfg_text), tl = strlen(tok);
	size_t total = kn_recorder_js_len - tl + cl;
	char *s = malloc(total + 1);
	if (s) {
		memcpy(s, kn_recorder_js, pre);
		memcpy(s + pre, cfg_text, cl);
		memcpy(s + pre + cl, at + tl, kn_recorder_js_len - pre - tl);
		s[total] = '\0';
	}
	free(cfg_text);
	*out = s;
	return s ? 0 : KN_ENOMEM;
}
