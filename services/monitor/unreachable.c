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

static int is_document(json_t *params)
{
	const char *type = json_string_value(json_object_get(params, "type"));
	return type && strcmp(type, "Document") == 0;
}

static int same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

void kn_doc_failure_request(kn_doc_failure *f, json_t *params, const char *main_frame)
{
	if (!is_document(params) || !same(json_string_value(json_object_get(params, "frameId")), main_frame))
		return;
	set(&f->req_id, json_string_value(json_object_get(params, "requestId")));
	set(&f->req_url, json_string_value(json_object_get(json_object_get(params, "request"), "url")));
	set(&f->failed_url, NULL);
}

void kn_doc_failure_note(kn_doc_failure *f, json_t *params)
{
	if (!is_document(params) || json_is_true(json_object_get(params, "canceled")))
		return;
	set(&f->fail_id, json_string_value(json_object_get(params, "requestId")));
	set(&f->error, json_string_value(json_object_get(params, "errorText")));
	if (same(f->fail_id, f->req_id))
		set(&f->failed_url, f->req_url);
}

void kn_doc_failure_commit(kn_doc_failure *f, json_t *frame)
{
	const char *url = json_string_value(json_object_get(frame, "unreachableUrl"));
	set(&f->error_url, url);
	set(&f->error_loader, url ? json_string_value(json_object_get(frame, "loaderId")) : NULL);
}

int kn_doc_failure_unreachable(char **out, const kn_doc_failure *f, const kn_task *task, int step)
{
	*out = NULL;
	/* a main-frame navigation's request id is its loader id */
	const char *url = f->failed_url ? f->failed_url : same(f->error_loader, f->fail_id) ? f->error_url : NULL;
	if (!url || !kn_net_error_unreachable(f->error) || !kn_task_own_site(task, url))
		return 0;
	json_t *j = json_pack("{s:s, s:s, s:i}", "url", url, "error", f->error, "step", step);
	*out = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	return *out != NULL;
}

void kn_doc_failure_clear(kn_doc_failure *f)
{
	char **slots[] = {&f->req_id, &f->req_url, &f->fail_id, &f->error, &f->failed_url, &f->error_url,
	                  &f->error_loader};
	for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
		set(slots[i], NULL);
}
