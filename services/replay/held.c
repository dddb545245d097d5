/* held.c — a guarded workflow's recorded requests against those held on replay (held.h). A held
 * request meets the first step whose recorded spec it matches (kn_request_match, the offline judge:
 * recorded specs are exact). One that meets none but has a recorded spec's method and URL says which
 * field differs, for the verdict's detail. Values a secret rule names (redact.h) are never quoted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "held.h"
#include "keynode/redact.h"

int kn_held_check_init(kn_held_check *h, const kn_task *task)
{
	memset(h, 0, sizeof *h);
	h->task = task;
	return (h->met = calloc(task->n_steps ? task->n_steps : 1, 1)) ? 0 : KN_ENOMEM;
}

void kn_held_check_clear(kn_held_check *h)
{
	free(h->met);
	h->met = NULL;
}

/* The value of req's field name, NULL when it has none. */
static const char *field(const kn_request *req, const char *name)
{
	for (size_t i = 0; i < req->n_fields; i++)
		if (strcmp(req->fields[i].name, name) == 0)
			return req->fields[i].value;
	return NULL;
}

/* The first recorded field of s that req does not meet, said in diff. */
static void first_diff(char *diff, size_t cap, const kn_request_spec *s, const kn_request *req)
{
	for (size_t i = 0; i < s->n_fields; i++) {
		kn_keynode *f = &s->fields[i]; /* s is const, its fields are not */
		kn_request_spec one = {.fields = f, .n_fields = 1};
		kn_err e = {0};
		if (kn_request_match(&one, req, NULL, 0, &e) == 1)
			continue;
		const char *now = field(req, f->key);
		if (!now)
			snprintf(diff, cap, "field '%.60s' is missing (recorded '%.60s')", f->key, f->expect);
		else
			snprintf(diff, cap, "field '%.60s' is '%.60s', recorded %s '%.60s'", f->key,
			         kn_redact_field(NULL, f->key, now) ? KN_REDACTED : now, kn_matcher_name(f->matcher),
			         f->expect);
		return;
	}
	snprintf(diff, cap, "it differs from the recorded one");
}

void kn_held_check_seen(kn_held_check *h, const kn_request *req)
{
	if (!req->held)
		return;
	const kn_task *t = h->task;
	size_t near = 0;
	for (size_t i = 0; i < t->n_steps; i++) {
		const kn_request_spec *s = t->steps[i].held;
		if (!s || h->met[i])
			continue;
		kn_err e = {0};
		if (kn_request_match(s, req, NULL, 0, &e) == 1) {
			h->met[i] = 1;
			return;
		}
		kn_request_spec where = {.method = s->method, .url = s->url};
		if (!near && kn_request_match(&where, req, NULL, 0, &e) == 1)
			near = i + 1;
	}
	if (near && !h->diff_step) {
		h->diff_step = near;
		first_diff(h->diff, sizeof h->diff, t->steps[near - 1].held, req);
	}
}

size_t kn_held_check_failed(const kn_held_check *h, char *why, size_t cap)
{
	const kn_task *t = h->task;
	for (size_t i = 0; i < t->n_steps; i++) {
		if (!t->steps[i].held || h->met[i])
			continue;
		if (h->diff_step == i + 1) {
			snprintf(why, cap, "the request held now differs from the recorded one: %s", h->diff);
		} else {
			char *d = NULL;
			kn_request_spec_describe(&d, t->steps[i].held);
			snprintf(why, cap, "the recorded request was not held: %s", d ? d : "");
			free(d);
		}
		return i + 1;
	}
	return 0;
}
