/* api_maint.c — the maintenance loop over the API (api_maint.h): a repair proposal of a
 * stored replay report, or a key node / step sent as YAML, applied to the task's current version
 * (loaded back from its stored definition, kn_store_task_load) and written as the next task version
 * or workflow version through kn_store_change_write — one transaction with its maintenance-log row
 * and the validation replay it queues. Where a task's steps live decides what a step change makes:
 * a task with a workflow uploaded through POST /api/workflows gets a new workflow version (the
 * workflow rewritten by kn_workflow_write with that one step replaced), a task with inline steps a
 * new task version. Snippets are loaded by keynode/task_change.h (the validate loaders). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_fail.h"
#include "api_maint.h"
#include "keynode/task_change.h"
#include "keynode/workflow.h"
#include "store_changes.h"
#include "store_workflows.h"

#define MAX_REASON 2000

/* A change being prepared: the task as stored now and where its steps live. */
struct target {
	int64_t task_id, version_id;
	kn_taskset *set;         /* the current version (one task) */
	kn_store_workflow wf;    /* its newest stored workflow (wf.body NULL: none) */
	kn_taskset *wfset;       /* wf loaded */
	char *wf_body;           /* a rewritten workflow (change.workflow_body) */
	kn_taskset *wf_new;      /* … loaded */
	char *before, *after;    /* definitions with the old / new workflow's steps (the diff) */
};

static void target_clear(struct target *t)
{
	kn_taskset_free(t->set);
	free(t->wf.body);
	kn_taskset_free(t->wfset);
	free(t->wf_body);
	kn_taskset_free(t->wf_new);
	free(t->before);
	free(t->after);
}

/* Load the task req->id names and its stored workflow; answers the failure itself (-1). */
static int target_load(kn_store *st, const kn_http_req *req, kn_http_resp *resp, struct target *t)
{
	kn_err err = {0};
	int rc = kn_store_task_current(st, req->id, &t->task_id, &t->version_id, NULL, &err);
	if (!rc)
		rc = kn_store_task_load(st, t->version_id, &t->set, &err);
	if (rc) {
		kn_api_store_failed(resp, rc, &err, "no such task");
		return -1;
	}
	rc = kn_store_workflow_latest(st, t->version_id, &t->wf, &err);
	if (rc == KN_ENOTFOUND)
		return 0;
	if (!rc)
		rc = kn_workflow_load_buffer(&t->wfset, t->wf.body, t->wf.len, "stored workflow", &err);
	if (rc) {
		kn_api_store_failed(resp, rc == KN_EINVAL ? KN_EDB : rc, &err, NULL);
		return -1;
	}
	return 0;
}

/* The steps the task replays (its stored workflow's, else its own). */
static kn_task *steps_owner(struct target *t)
{
	return t->wfset ? &t->wfset->tasks[0] : &t->set->tasks[0];
}

/* The task's definition with steps' steps (kn_store_task_json text; the caller's). */
static char *definition_with(const kn_task *task, const kn_task *steps)
{
	kn_task tmp = *task; /* a shallow copy: only read */
	tmp.steps = steps->steps;
	tmp.n_steps = steps->n_steps;
	char *out = NULL;
	return kn_store_task_json(&out, &tmp) == 0 ? out : NULL;
}

/* Step n (1-based) of the task replaced by the one step of snippet (moved out of it). With a stored
 * workflow: the rewritten workflow in t->wf_body / wf_new and the diff's two definitions. */
static int replace_step(struct target *t, size_t n, kn_taskset *snippet, kn_err *err)
{
	kn_task *owner = steps_owner(t);
	if (n < 1 || n > owner->n_steps)
		return kn_err_set(err, KN_ENOTFOUND, "no step %zu: the task's %s has %zu steps", n,
		                  t->wfset ? "workflow" : "inline workflow", owner->n_steps);
	kn_task *task = &t->set->tasks[0];
	if (t->wfset && !(t->before = definition_with(task, owner)))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	kn_step_clear(&owner->steps[n - 1]);
	owner->steps[n - 1] = snippet->tasks[0].steps[0];
	snippet->tasks[0].n_steps = 0; /* moved */
	if (!t->wfset)
		return 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = f ? kn_workflow_write(f, owner, owner->recorded_at) : KN_ENOMEM;
	if (f)
		fclose(f);
	if (rc || !buf) {
		free(buf);
		return kn_err_set(err, rc ? rc : KN_ENOMEM, "cannot write the workflow");
	}
	t->wf_body = buf;
	if ((rc = kn_workflow_load_buffer(&t->wf_new, buf, len, "workflow", err)) != 0)
		return rc; /* what kn_workflow_write wrote does not load: say so */
	if (!(t->after = definition_with(task, &t->wf_new->tasks[0])))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	return 0;
}

/* Write the prepared change c of t and answer 201 with what was made (409 when nothing changes). */
static void commit(kn_store *st, const kn_http_req *req, kn_http_resp *resp, struct target *t, kn_store_change *c)
{
	kn_err err = {0};
	c->task_id = t->task_id;
	c->base_version = t->version_id;
	c->author = req->author;
	c->validate = 1;
	if (t->wf_body) {
		c->workflow = &t->wf_new->tasks[0];
		c->workflow_body = t->wf_body;
		c->workflow_len = strlen(t->wf_body);
		c->wf_before = t->before;
		c->wf_after = t->after;
	} else {
		c->task = &t->set->tasks[0];
	}
	kn_store_change_out out;
	int rc = kn_store_change_write(st, c, &out, &err);
	if (rc == KN_EBUSY) {
		kn_http_resp_error(resp, 409, "conflict", err.msg);
		return;
	}
	if (rc) {
		kn_api_store_failed(resp, rc, &err, NULL);
		return;
	}
	if (!out.created) {
		kn_http_resp_error(resp, 409, "nothing changes", "the task already reads so: no new version");
		return;
	}
	json_t *j = json_pack("{s:s, s:s, s:I, s:i, s:o, s:I, s:b, s:s?}", "task", req->id, "kind", c->kind,
	                      "change", (json_int_t)out.change_id, "version", out.task_version, "workflow_version",
	                      out.workflow_version ? json_integer(out.workflow_version) : json_null(),
	                      "validation_job", (json_int_t)out.job, "override", c->override, "author", c->author);
	kn_http_resp_json_value(resp, 201, j);
}

/* "reason" of body (optional); answers a bad one (-1). */
static int reason_of(json_t *body, const char **reason, kn_http_resp *resp)
{
	kn_err err = {0};
	if (kn_http_json_string(reason, body, "reason", 0, MAX_REASON, &err)) {
		kn_http_resp_error(resp, 400, "bad request", err.msg);
		return -1;
	}
	return 0;
}

/* Replace s with a copy of v (NULL stays NULL). 0 or KN_ENOMEM. */
static int set_str(char **s, const char *v)
{
	char *c = v ? strdup(v) : NULL;
	if (v && !c)
		return KN_ENOMEM;
	free(*s);
	*s = c;
	return 0;
}

/* A key-node proposal p applied to task: "was" must still be what the key node holds. */
static int apply_keynode(kn_task *task, json_t *p, kn_err *err)
{
	const char *id = json_string_value(json_object_get(p, "key_node"));
	const char *kind = json_string_value(json_object_get(p, "kind"));
	const char *was = json_string_value(json_object_get(p, "was"));
	const char *proposed = json_string_value(json_object_get(p, "proposed"));
	if (!id || !kind || !was || !proposed)
		return kn_err_set(err, KN_EINVAL, "the stored proposal lacks key_node, was or proposed");
	kn_keynode *k = NULL;
	for (size_t i = 0; i < task->n_keynodes; i++)
		if (strcmp(task->keynodes[i].id, id) == 0)
			k = &task->keynodes[i];
	if (!k)
		return kn_err_set(err, KN_EBUSY, "the proposal no longer applies: the task has no key node '%s'", id);
	char **field;
	const char *now = proposed;
	if (strcmp(kind, "url_key_node") == 0 && strncmp(was, "key: ", 5) == 0 && strncmp(proposed, "key: ", 5) == 0) {
		field = &k->key;
		was += 5, now += 5;
	} else if (strcmp(kind, "url_key_node") == 0 || (strcmp(kind, "element_key_node") == 0 &&
	                                                   k->target == KN_TARGET_ELEMENT_PATH)) {
		field = &k->expect;
	} else if (strcmp(kind, "element_key_node") == 0 && k->target == KN_TARGET_ELEMENT_VALUE) {
		field = &k->path;
	} else {
		return kn_err_set(err, KN_EINVAL, "a '%s' proposal for key node '%s' of another kind", kind, id);
	}
	if (!*field || strcmp(*field, was) != 0)
		return kn_err_set(err, KN_EBUSY, "the proposal no longer applies: key node '%s' is not '%.200s' any more",
		                  id, was);
	if (set_str(field, now))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	if (field != &k->key && k->target != KN_TARGET_URL)
		k->xpath = now[0] == '/' || now[0] == '(';
	return 0;
}

/* The proposal body["proposal"] names in repairs (an index, or a key node's id); NULL: none. */
static json_t *proposal_of(json_t *repairs, json_t *which, size_t *index)
{
	size_t i;
	json_t *p;
	if (json_is_integer(which)) {
		json_int_t n = json_integer_value(which);
		*index = (size_t)n;
		return n >= 0 ? json_array_get(repairs, (size_t)n) : NULL;
	}
	json_array_foreach(repairs, i, p) {
		const char *kn = json_string_value(json_object_get(p, "key_node"));
		if (json_is_string(which) && kn && strcmp(kn, json_string_value(which)) == 0) {
			*index = i;
			return p;
		}
	}
	return NULL;
}

void kn_api_repair_post(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	json_t *body = NULL, *report = NULL;
	struct target t = {0};
	kn_taskset *snippet = NULL;
	const char *reason = NULL;
	if (kn_http_json_object(&body, req->body, req->body_len, &err) != 0) {
		kn_http_resp_error(resp, 400, "malformed JSON", err.msg);
		return;
	}
	json_t *replay = json_object_get(body, "replay"), *which = json_object_get(body, "proposal");
	json_t *ov = json_object_get(body, "override");
	if (!json_is_integer(replay) || json_integer_value(replay) < 1) {
		kn_http_resp_error(resp, 400, "bad request", "\"replay\" must be a replay id (a positive integer)");
		goto done;
	}
	if (!(json_is_integer(which) && json_integer_value(which) >= 0) &&
	    !(json_is_string(which) && json_string_length(which) > 0)) {
		kn_http_resp_error(resp, 400, "bad request",
		                   "\"proposal\" must be an index into the replay's repairs (from 0) or a key node id");
		goto done;
	}
	if (ov && !json_is_boolean(ov)) {
		kn_http_resp_error(resp, 400, "bad request", "\"override\" must be true or false");
		goto done;
	}
	if (reason_of(body, &reason, resp) || target_load(st, req, resp, &t))
		goto done;
	json_int_t rid = json_integer_value(replay);
	char *text = NULL;
	int rc = kn_store_replay_report_of(st, (int64_t)rid, t.task_id, &text, &err);
	if (rc) {
		kn_api_store_failed(resp, rc, &err, err.msg);
		goto done;
	}
	report = json_loads(text, 0, NULL);
	free(text);
	size_t index = 0;
	json_t *p = proposal_of(json_object_get(report, "repairs"), which, &index);
	char msg[512];
	if (!json_is_object(p)) {
		snprintf(msg, sizeof msg, "replay %lld has no such repair proposal (its report lists %zu)", (long long)rid,
		         json_array_size(json_object_get(report, "repairs")));
		kn_http_resp_error(resp, 404, "no such proposal", msg);
		goto done;
	}
	int verified = json_is_true(json_object_get(p, "verified")), override = json_is_true(ov);
	if (!verified && !override) {
		const char *vs = json_string_value(json_object_get(json_object_get(p, "verify_report"), "status"));
		snprintf(msg, sizeof msg, "proposal %zu of replay %lld was not verified by replay (its verification "
		         "replay: %s): not applied. Send \"override\": true to apply it anyway (recorded as an override)",
		         index, (long long)rid, vs ? vs : "none");
		kn_http_resp_error(resp, 409, "proposal not verified", msg);
		goto done;
	}
	const char *kind = json_string_value(json_object_get(p, "kind"));
	kn_task *task = &t.set->tasks[0];
	if (kind && strcmp(kind, "selector") == 0) {
		const char *yaml = json_string_value(json_object_get(p, "yaml"));
		json_int_t step = json_integer_value(json_object_get(p, "step"));
		rc = yaml ? kn_step_from_snippet(&snippet, task->id, yaml, strlen(yaml), &err)
		          : kn_err_set(&err, KN_EINVAL, "the stored proposal has no yaml");
		if (!rc && step >= 1 && (size_t)step <= steps_owner(&t)->n_steps &&
		    steps_owner(&t)->steps[step - 1].verb != snippet->tasks[0].steps[0].verb)
			rc = kn_err_set(&err, KN_EBUSY, "the proposal no longer applies: step %lld is another verb now",
			                (long long)step);
		if (!rc)
			rc = replace_step(&t, step < 1 ? 0 : (size_t)step, snippet, &err);
	} else {
		rc = apply_keynode(task, p, &err);
	}
	if (rc) {
		int status = rc == KN_EBUSY || rc == KN_ENOTFOUND ? 409 : rc == KN_ENOMEM ? 500 : 422;
		kn_http_resp_error(resp, status, status == 409 ? "proposal does not apply" : "cannot apply the proposal",
		                   err.msg);
		goto done;
	}
	kn_store_change c = {.kind = "repair", .reason = reason, .evidence_replay = (int64_t)rid,
	                     .override = !verified};
	commit(st, req, resp, &t, &c);
done:
	kn_taskset_free(snippet);
	target_clear(&t);
	json_decref(report);
	json_decref(body);
}

void kn_api_edit_post(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	json_t *body = NULL;
	struct target t = {0};
	kn_taskset *snippet = NULL;
	const char *reason = NULL, *yaml = NULL, *kid = NULL;
	if (kn_http_json_object(&body, req->body, req->body_len, &err) != 0) {
		kn_http_resp_error(resp, 400, "malformed JSON", err.msg);
		return;
	}
	json_t *step = json_object_get(body, "step"), *y = json_object_get(body, "yaml");
	if (kn_http_json_string(&kid, body, "key_node", 0, 256, &err)) {
		kn_http_resp_error(resp, 400, "bad request", err.msg);
		goto done;
	}
	/* YAML has line breaks: any text, its NUL bytes (a JSON "\u0000") found by the snippet loader */
	size_t ylen = json_string_length(y);
	if (!json_is_string(y) || ylen == 0 || ylen > KN_SNIPPET_MAX) {
		kn_http_resp_error(resp, 400, "bad request", "\"yaml\" must be the key node or step as YAML text (1 to 65536 bytes)");
		goto done;
	}
	yaml = json_string_value(y);
	if (!kid == !step || (step && (!json_is_integer(step) || json_integer_value(step) < 1))) {
		kn_http_resp_error(resp, 400, "bad request",
		                   "give either \"key_node\": ID or \"step\": N (a step number from 1), not both");
		goto done;
	}
	if (reason_of(body, &reason, resp) || target_load(st, req, resp, &t))
		goto done;
	kn_task *task = &t.set->tasks[0];
	int rc = kid ? kn_keynode_from_snippet(&snippet, yaml, ylen, &err)
	             : kn_step_from_snippet(&snippet, task->id, yaml, ylen, &err);
	if (rc) {
		kn_http_resp_error(resp, rc == KN_ENOMEM ? 500 : 400, kid ? "key node does not load" : "step does not load",
		                   err.msg);
		goto done;
	}
	if (kid) {
		kn_keynode *k = NULL;
		for (size_t i = 0; i < task->n_keynodes; i++)
			if (strcmp(task->keynodes[i].id, kid) == 0)
				k = &task->keynodes[i];
		if (!k) {
			kn_http_resp_error(resp, 404, "no such key node", kid);
			goto done;
		}
		kn_keynode *nk = &snippet->tasks[0].keynodes[0];
		if (set_str(&nk->id, k->id)) { /* the key node keeps its id (and place) */
			kn_http_resp_error(resp, 500, "out of memory", NULL);
			goto done;
		}
		kn_keynode_clear(k);
		*k = *nk;
		snippet->tasks[0].n_keynodes = 0; /* moved */
	} else if ((rc = replace_step(&t, (size_t)json_integer_value(step), snippet, &err)) != 0) {
		kn_http_resp_error(resp, rc == KN_ENOTFOUND ? 404 : rc == KN_ENOMEM ? 500 : 422,
		                   rc == KN_ENOTFOUND ? "no such step" : "cannot edit the step", err.msg);
		goto done;
	}
	kn_store_change c = {.kind = "edit", .reason = reason};
	commit(st, req, resp, &t, &c);
done:
	kn_taskset_free(snippet);
	target_clear(&t);
	json_decref(body);
}

int kn_api_workflow_change(kn_store *st, const char *ref, const kn_task *wf, const char *body, size_t len,
                           const char *author, const char *reason, kn_store_change_out *out, kn_err *err)
{
	return kn_api_workflow_change_verified(st, ref, wf, body, len, author, reason, 0, out, err);
}

int kn_api_workflow_change_verified(kn_store *st, const char *ref, const kn_task *wf, const char *body, size_t len,
                                    const char *author, const char *reason, int64_t evidence_replay,
                                    kn_store_change_out *out, kn_err *err)
{
	memset(out, 0, sizeof *out);
	struct target t = {0};
	int rc = kn_store_task_current(st, ref, &t.task_id, &t.version_id, NULL, err);
	if (!rc)
		rc = kn_store_task_load(st, t.version_id, &t.set, err);
	if (!rc) {
		rc = kn_store_workflow_latest(st, t.version_id, &t.wf, err);
		kn_err ignored = {0};
		/* the diff's "before": the stored workflow's steps, else (none, or one that no longer loads:
		 * the upload replaces it) the task's own */
		if (!rc && kn_workflow_load_buffer(&t.wfset, t.wf.body, t.wf.len, "stored workflow", &ignored) != 0)
			t.wfset = NULL;
		if (rc == KN_ENOTFOUND)
			rc = 0;
	}
	if (!rc && (!(t.before = definition_with(&t.set->tasks[0], steps_owner(&t))) ||
	            !(t.after = definition_with(&t.set->tasks[0], wf))))
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	if (!rc) {
		kn_store_change c = {.task_id = t.task_id, .kind = "workflow", .author = author, .reason = reason,
		                     .evidence_replay = evidence_replay, .workflow = wf, .workflow_body = body, .workflow_len = len, .wf_before = t.before,
		                     .wf_after = t.after};
		rc = kn_store_change_write(st, &c, out, err);
	}
	target_clear(&t);
	return rc;
}

void kn_api_versions_get(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	char *out = NULL;
	int rc = kn_store_task_versions_json(st, req->id, &out, &err);
	if (rc)
		kn_api_store_failed(resp, rc, &err, "no such task");
	else
		kn_http_resp_json(resp, 200, out);
}

/* ---- Markdown -------------------------------------------------------------------------------- */

/* v as inline code text: a string as itself, anything else as compact JSON; backticks become '. */
static void md_value(FILE *f, json_t *v)
{
	char *s = json_is_string(v) ? strdup(json_string_value(v))
	          : v          ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER)
	                       : strdup("—");
	if (!s)
		return;
	for (char *p = s; *p; p++)
		if (*p == '`' || *p == '\n' || *p == '\r')
			*p = *p == '`' ? '\'' : ' ';
	fprintf(f, "`%s`", s);
	free(s);
}

/* The fields of one changed item that differ, "field: before → after". */
static void md_item(FILE *f, const char *label, json_t *e)
{
	json_t *b = json_object_get(e, "before"), *a = json_object_get(e, "after");
	fprintf(f, "  - %s: ", label);
	if (!json_is_object(b) || !json_is_object(a)) {
		fputs(json_is_object(a) ? "added " : "removed ", f);
		md_value(f, json_is_object(a) ? a : b);
		fputc('\n', f);
		return;
	}
	const char *k;
	json_t *v;
	int first = 1;
	json_object_foreach(a, k, v) {
		json_t *was = json_object_get(b, k);
		if (was && json_equal(was, v))
			continue;
		fprintf(f, "%s%s ", first ? "" : "; ", k);
		md_value(f, was);
		fputs(" → ", f);
		md_value(f, v);
		first = 0;
	}
	fputc('\n', f);
}

/* s without line breaks (a reason is one line of the log). */
static void md_line(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
}

int kn_api_changelog_markdown(char **out, json_t *log)
{
	*out = NULL;
	json_t *changes = json_object_get(log, "changes");
	const char *set = json_string_value(json_object_get(log, "taskset"));
	if (!set || !json_is_array(changes))
		return KN_EINVAL;
	size_t len = 0;
	FILE *f = open_memstream(out, &len);
	if (!f)
		return KN_ENOMEM;
	fprintf(f, "# Maintenance log: task set %s\n\n", set);
	if (json_array_size(changes) == 0)
		fputs("No changes recorded.\n", f);
	char day[11] = "";
	size_t i;
	json_t *c;
	json_array_foreach(changes, i, c) {
		const char *created = json_string_value(json_object_get(c, "created"));
		const char *task = json_string_value(json_object_get(c, "task"));
		const char *kind = json_string_value(json_object_get(c, "kind"));
		const char *author = json_string_value(json_object_get(c, "author"));
		const char *reason = json_string_value(json_object_get(c, "reason"));
		if (!created || strlen(created) < 19 || !task || !kind)
			continue;
		if (strncmp(day, created, 10) != 0) {
			fprintf(f, "%s## %.10s\n\n", day[0] ? "\n" : "", created);
			snprintf(day, sizeof day, "%.10s", created);
		}
		fprintf(f, "- **%.8s UTC** `%s` version %lld", created + 11, task,
		        (long long)json_integer_value(json_object_get(c, "version")));
		json_t *wv = json_object_get(c, "workflow_version");
		if (json_is_integer(wv))
			fprintf(f, " (workflow version %lld)", (long long)json_integer_value(wv));
		fprintf(f, ": %s by %s", kind, author ? author : "unknown");
		if (reason) {
			fputs(": ", f);
			md_line(f, reason);
		}
		fputc('\n', f);
		json_t *ev = json_object_get(c, "evidence_replay");
		if (json_is_integer(ev))
			fprintf(f, "  - evidence: replay %lld%s\n", (long long)json_integer_value(ev),
			        json_is_true(json_object_get(c, "override")) ? ", **applied by override: not verified**"
			                                                   : ", verified");
		json_t *val = json_object_get(c, "validation");
		if (json_is_object(val))
			fprintf(f, "  - validation replay: job %lld, %s\n", (long long)json_integer_value(json_object_get(val, "job")),
			        json_string_value(json_object_get(val, "status")) ? json_string_value(json_object_get(val, "status"))
			                                                          : "unknown");
		json_t *diff = json_object_get(c, "diff"), *e;
		size_t j;
		char label[320];
		json_array_foreach(json_object_get(diff, "key_nodes"), j, e) {
			const char *id = json_string_value(json_object_get(e, "id"));
			snprintf(label, sizeof label, "key node `%.256s`", id ? id : "?");
			md_item(f, label, e);
		}
		json_array_foreach(json_object_get(diff, "steps"), j, e) {
			snprintf(label, sizeof label, "step %lld", (long long)json_integer_value(json_object_get(e, "step")));
			md_item(f, label, e);
		}
		json_t *fields = json_object_get(diff, "fields");
		if (json_array_size(fields)) {
			fputs("  - also changed:", f);
			json_array_foreach(fields, j, e) {
				fputc(' ', f);
				md_value(f, e);
			}
			fputc('\n', f);
		}
	}
	if (fclose(f) != 0 || !*out) {
		free(*out);
		*out = NULL;
		return KN_ENOMEM;
	}
	return 0;
}

void kn_api_changelog_get(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	int limit;
	if (kn_http_query_int(&limit, req->query, "limit", 500, 1, 10000, &err)) {
		kn_http_resp_error(resp, 400, "bad limit", err.msg);
		return;
	}
	const char *format = kn_http_query_get(req->query, "format");
	if (format && strcmp(format, "md") && strcmp(format, "json")) {
		kn_http_resp_error(resp, 400, "bad format", "format=md or format=json");
		return;
	}
	int md = format ? strcmp(format, "md") == 0 : req->accept && strstr(req->accept, "text/markdown") != NULL;
	char *out = NULL;
	int rc = kn_store_taskset_changelog_json(st, req->id, limit, &out, &err);
	if (rc) {
		kn_api_store_failed(resp, rc, &err, err.msg);
		return;
	}
	if (!md) {
		kn_http_resp_json(resp, 200, out);
		return;
	}
	json_t *log = json_loads(out, 0, NULL);
	free(out);
	char *text = NULL;
	rc = log ? kn_api_changelog_markdown(&text, log) : KN_ENOMEM;
	json_decref(log);
	if (rc) {
		kn_http_resp_error(resp, 500, "cannot write the changelog", NULL);
		return;
	}
	resp->status = 200;
	resp->content_type = "text/markdown; charset=utf-8";
	resp->body = text;
	resp->len = strlen(text);
}
