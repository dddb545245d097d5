/* unreachable.c — a main document that failed on the task's own site (unreachable.h). */
#include <stdlib.h>
#include <string.h>

#include "keynode/site.h"
#include "unreachable.h"

static void set(char **slot, const char *v)
{
	free(*slot);
	*slot = v ? strdup(v) : NULL;
}

void kn_doc_failure_note(kn_doc_failure *f, json_t *params)
{
	const char *type = json_string_value(json_object_get(params, "type"));
	if (!type || strcmp(type, "Document") != 0 || json_is_true(json_object_get(params, "canceled")))
		return;
	set(&f->request_id, json_string_value(json_object_get(params, "requestId")));
	set(&f->error, json_string_value(json_object_get(params, "errorText")));
}

int kn_doc_failure_unreachable(char **out, kn_doc_failure *f, json_t *frame, const kn_task *task,
                               int step)
{
	*out = NULL;
	const char *url = json_string_value(json_object_get(frame, "unreachableUrl"));
	set(&f->error_url, url);
	const char *loader = json_string_value(json_object_get(frame, "loaderId"));
	/* a main-frame navigation's request id is its loader id */
	if (!url || !loader || !f->request_id || strcmp(loader, f->request_id) != 0 ||
	    !kn_net_error_unreachable(f->error) || !kn_task_own_site(task, url))
		return 0;
	json_t *j = json_pack("{s:s, s:s, s:i}", "url", url, "error", f->error, "step", step);
	*out = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	return *out != NULL;
}

void kn_doc_failure_clear(kn_doc_failure *f)
{
	set(&f->request_id, NULL);
	set(&f->error, NULL);
	set(&f->error_url, NULL);
}
