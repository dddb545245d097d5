/* task_yaml_steps.c — the `steps:` of a task, and workflow files (workflow.h,
 * kn_load_opts.workflow), for the YAML task loader (task_yaml.c). A step is one verb (goto, click,
 * type, select, press, scroll, wait, back, forward, answer) with its value; locating verbs take a
 * mapping with a selector, the verb's own fields and locator hints, including the record-time
 * fingerprint (test_id, tag, classes, dom_path, frame), and an optional `after:` postcondition
 * (url, navigated, value, held). A workflow file is one mapping {workflow: 1, task, recorded_at,
 * viewport, start_url, steps}, loaded as one task holding its id, steps and viewport. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/grow.h"
#include "task_yaml_internal.h"

#define VERB_LIST "goto, click, type, select, press, scroll, wait, back, forward, answer or dialog"

enum { LOC_SELECTOR, LOC_TEXT, LOC_VALUE, LOC_ENTER, LOC_ID, LOC_NAME, LOC_ARIA, LOC_ROLE, LOC_HREF,
       LOC_TEST_ID, LOC_TAG, LOC_CLASSES, LOC_PATH, LOC_FRAME, LOC_SECRET, N_LOC };
static const char *const loc_keys[N_LOC] = { "selector", "text", "value", "enter", "id", "name",
                                             "aria_label", "role", "href", "test_id", "tag",
                                             "classes", "dom_path", "frame", "secret" };
/* The record-time fingerprint (workflow.h): hints every locating verb accepts. */
#define LOC_FINGERPRINT (1u << LOC_TEST_ID | 1u << LOC_TAG | 1u << LOC_CLASSES | 1u << LOC_PATH | \
                         1u << LOC_FRAME)

/* 1 when s is a secret's name: [A-Za-z0-9_]+ (an environment variable's suffix). */
static int secret_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* The mapping of click/type/select/wait: a selector, the verb's own fields (allowed: a bit set
 * over LOC_*), and locator hints. */
static int parse_locator(loader *l, kn_step *st, const char *verb, pos at, unsigned allowed)
{
	yev k;
	int rc, end;
	unsigned seen = 0;
	char c[72];
	allowed |= 1u << LOC_SELECTOR | 1u << LOC_ID | 1u << LOC_NAME | 1u << LOC_ARIA |
	           1u << LOC_ROLE | 1u << LOC_HREF | LOC_FINGERPRINT;
	for (;;) {
		if ((rc = kn_ty_read_key(l, &k, &end)) != 0)
			return rc;
		if (end)
			break;
		int f = kn_ty_lookup(loc_keys, N_LOC, k.val, k.len);
		if (f < 0 || !(allowed & (1u << f))) {
			char list[200] = "";
			unsigned named = allowed & ~LOC_FINGERPRINT; /* the fingerprint keys are for recorded workflows */
			for (int i = 0; i < N_LOC; i++)
				if (named & (1u << i)) {
					if (list[0])
						strcat(list, named >> (i + 1) ? ", " : " or ");
					strcat(list, loc_keys[i]);
				}
			return kn_ty_fail(l, KN_EINVAL, k.at, "unknown key '%s' in '%s' (expected %s)",
			                  kn_ty_clip(c, sizeof c, k.val), verb, list);
		}
		if (seen & (1u << f))
			return kn_ty_fail(l, KN_EINVAL, k.at, "duplicate key '%s'", loc_keys[f]);
		seen |= 1u << f;
		char **dst = NULL;
		switch (f) {
		case LOC_SELECTOR:
			if ((rc = kn_ty_read_text(l, "selector", 0, &st->selector, NULL)) != 0)
				return rc;
			continue;
		case LOC_ENTER:
			if ((rc = kn_ty_read_bool(l, "enter", &st->enter)) != 0)
				return rc;
			continue;
		case LOC_TEXT: dst = &st->text; break;
		case LOC_VALUE: dst = &st->value; break;
		case LOC_ID: dst = &st->hint_id; break;
		case LOC_NAME: dst = &st->hint_name; break;
		case LOC_ARIA: dst = &st->hint_aria_label; break;
		case LOC_ROLE: dst = &st->hint_role; break;
		case LOC_TEST_ID: dst = &st->hint_test_id; break;
		case LOC_TAG: dst = &st->tag; break;
		case LOC_CLASSES: dst = &st->classes; break;
		case LOC_PATH: dst = &st->dom_path; break;
		case LOC_FRAME: dst = &st->frame; break;
		case LOC_SECRET: dst = &st->secret; break;
		default: dst = &st->hint_href; break;
		}
		if ((rc = kn_ty_read_text(l, loc_keys[f],
		                          f == LOC_VALUE || f == LOC_TEXT || f == LOC_CLASSES,
		                          dst, NULL)) != 0)
			return rc;
		if (f == LOC_SECRET && !secret_name(st->secret))
			return kn_ty_fail(l, KN_EINVAL, k.at, "'secret' must be a name of letters, digits and '_' "
			                  "(the step types $KN_SECRET_<name>), found '%s'",
			                  kn_ty_clip(c, sizeof c, st->secret));
	}
	if (!st->selector)
		return kn_ty_fail(l, KN_EINVAL, at, "'%s' needs a selector", verb);
	if (st->value && st->secret)
		return kn_ty_fail(l, KN_EINVAL, at, "'%s' has a value or a secret, not both", verb);
	if ((allowed & (1u << LOC_VALUE)) && !st->value && !st->secret)
		return kn_ty_fail(l, KN_EINVAL, at, "'%s' needs a value%s", verb,
		                  allowed & (1u << LOC_SECRET) ? " (or a secret)" : "");
	return 0;
}

/* `dialog: accept|dismiss` or `dialog: {answer: accept|dismiss, text: PROMPT ANSWER}`: the answer to
 * the JavaScript dialog the previous step opens. */
static int parse_dialog(loader *l, kn_step *st)
{
	yev v, k;
	int rc, end;
	char c[72];
	pos at;
	if ((rc = kn_ty_next_event(l, &v)) != 0)
		return rc;
	at = v.at;
	if (v.type == YAML_SCALAR_EVENT) {
		if (!(st->value = malloc(v.len + 1)))
			return kn_ty_oom(l);
		memcpy(st->value, v.val, v.len);
		st->value[v.len] = '\0';
	} else if (v.type == YAML_MAPPING_START_EVENT) {
		for (;;) {
			if ((rc = kn_ty_read_key(l, &k, &end)) != 0)
				return rc;
			if (end)
				break;
			int text = k.len == 4 && !memcmp(k.val, "text", 4);
			if (!text && !(k.len == 6 && !memcmp(k.val, "answer", 6)))
				return kn_ty_fail(l, KN_EINVAL, k.at, "unknown key '%s' in 'dialog' (expected answer or text)",
				                  kn_ty_clip(c, sizeof c, k.val));
			if (text ? st->text != NULL : st->value != NULL)
				return kn_ty_fail(l, KN_EINVAL, k.at, "duplicate key '%s'", text ? "text" : "answer");
			if ((rc = kn_ty_read_text(l, text ? "dialog.text" : "dialog.answer", text, text ? &st->text : &st->value,
			                          NULL)) != 0)
				return rc;
		}
	} else {
		return kn_ty_fail(l, KN_EINVAL, at, "'dialog' must be accept, dismiss or { answer: accept, text: \"…\" }, "
		                  "found %s", kn_ty_found(l, &v));
	}
	if (!st->value || (strcmp(st->value, "accept") != 0 && strcmp(st->value, "dismiss") != 0))
		return kn_ty_fail(l, KN_EINVAL, at, "'dialog' answer must be accept or dismiss, found '%s'",
		                  kn_ty_clip(c, sizeof c, st->value ? st->value : ""));
	return 0;
}

enum { SC_DIRECTION, SC_PIXELS, N_SC };
static const char *const scroll_keys[N_SC] = { "direction", "pixels" };

/* `scroll: down|up`, or `scroll: { direction: down|up, pixels: N }` (how far a recorded burst went). */
static int parse_scroll(loader *l, kn_step *st)
{
	yev v;
	pos at;
	int rc, f;
	unsigned seen = 0;
	char c[72];
	if ((rc = kn_ty_next_event(l, &v)) != 0)
		return rc;
	at = v.at;
	if (v.type != YAML_MAPPING_START_EVENT) {
		if ((rc = kn_ty_take_text(l, &v, "scroll", 0, &st->value)) != 0)
			return rc;
	} else {
		for (;;) {
			if ((rc = kn_ty_read_field(l, scroll_keys, N_SC, "scroll", &seen, NULL, &f)) != 0)
				return rc;
			if (f < 0)
				break;
			if (f == SC_DIRECTION) {
				if ((rc = kn_ty_read_text(l, "scroll.direction", 0, &st->value, &at)) != 0)
					return rc;
			} else {
				long long px;
				if ((rc = kn_ty_next_event(l, &v)) != 0 ||
				    (rc = kn_ty_take_count(l, &v, "scroll.pixels", 100000, &px)) != 0)
					return rc;
				st->scroll_px = (long)px;
			}
		}
		if (!st->value)
			return kn_ty_fail(l, KN_EINVAL, at, "'scroll' needs a direction (up or down)");
	}
	if (strcmp(st->value, "up") != 0 && strcmp(st->value, "down") != 0)
		return kn_ty_fail(l, KN_EINVAL, at, "'scroll' must be up or down, found '%s'",
		                  kn_ty_clip(c, sizeof c, st->value));
	return 0;
}

/* The value of a step's verb. */
static int parse_verb_value(loader *l, kn_step *st, const char *verb)
{
	yev v;
	int rc;
	switch (st->verb) {
	case KN_STEP_GOTO:
		return kn_ty_read_url(l, verb, &st->value);
	case KN_STEP_PRESS:
		return kn_ty_read_text(l, verb, 0, &st->value, NULL);
	case KN_STEP_ANSWER:
		return kn_ty_read_text(l, verb, 1, &st->value, NULL);
	case KN_STEP_DIALOG:
		return parse_dialog(l, st);
	case KN_STEP_SCROLL:
		return parse_scroll(l, st);
	case KN_STEP_BACK:
	case KN_STEP_FORWARD:
		if ((rc = kn_ty_next_event(l, &v)) != 0)
			return rc;
		if (v.type == YAML_SCALAR_EVENT && v.kind == SK_NULL)
			return 0;
		return kn_ty_fail(l, KN_EINVAL, v.at, "'%s' takes no value (write '- %s'), found %s", verb,
		                  verb,
		                  kn_ty_found(l, &v));
	case KN_STEP_WAIT:
		if ((rc = kn_ty_next_event(l, &v)) != 0)
			return rc;
		if (v.type == YAML_MAPPING_START_EVENT)
			return parse_locator(l, st, verb, v.at, 0);
		if (v.type == YAML_SCALAR_EVENT && v.kind == SK_INT) {
			long long ms;
			if ((rc = kn_ty_take_count(l, &v, "wait", LONG_MAX, &ms)) != 0)
				return rc;
			st->wait_ms = (long)ms;
			return 0;
		}
		return kn_ty_fail(l, KN_EINVAL, v.at,
		                  "'wait' must be milliseconds or a mapping such as "
		                  "{ selector: \"#done\" }, found %s", kn_ty_found(l, &v));
	default:
		if ((rc = kn_ty_next_event(l, &v)) != 0)
			return rc;
		if (v.type != YAML_MAPPING_START_EVENT)
			return kn_ty_fail(l, KN_EINVAL, v.at,
			                  "'%s' must be a mapping such as { selector: \"#buy\" }, found %s",
			                  verb, kn_ty_found(l, &v));
		return parse_locator(l, st, verb, v.at,
		                     st->verb == KN_STEP_CLICK  ? 1u << LOC_TEXT
		                     : st->verb == KN_STEP_TYPE ? 1u << LOC_VALUE | 1u << LOC_ENTER | 1u << LOC_SECRET
		                                                : 1u << LOC_VALUE);
	}
}

enum { AF_URL, AF_NAVIGATED, AF_VALUE, AF_HELD, AF_ERROR_PAGE, AF_FAILED, N_AF };
static const char *const after_keys[N_AF] = { "url", "navigated", "value", "held", "error_page",
                                              "failed_requests" };

/* A step's recorded postcondition: `after: {url, navigated, value, held, error_page,
 * failed_requests}` (workflow.h); held is a request spec as a `request` key node writes it;
 * error_page and failed_requests what the page showed (services/replay/softpage.h). */
static int parse_after(loader *l, kn_step *st)
{
	int rc, f, nav;
	unsigned seen = 0;
	if ((rc = kn_ty_open_mapping(l, "'after' must be a mapping such as { url: URL, navigated: true }, ",
	                             NULL)) != 0)
		return rc;
	for (;;) {
		if ((rc = kn_ty_read_field(l, after_keys, N_AF, "after", &seen, NULL, &f)) != 0)
			return rc;
		if (f < 0)
			return 0;
		if (f == AF_URL)
			rc = kn_ty_read_url(l, "after.url", &st->expect_url);
		else if (f == AF_VALUE)
			rc = kn_ty_read_text(l, "after.value", 1, &st->expect_value, NULL);
		else if (f == AF_HELD)
			rc = kn_ty_parse_request(l, &st->held, NULL, NULL, NULL);
		else if (f == AF_FAILED)
			rc = kn_ty_read_text(l, "after.failed_requests", 1, &st->failed_requests, NULL);
		else if (f == AF_ERROR_PAGE) {
			if ((rc = kn_ty_read_bool(l, "error_page", &nav)) == 0)
				st->error_page = nav ? 1 : 2;
		} else if ((rc = kn_ty_read_bool(l, "navigated", &nav)) == 0)
			st->navigated = nav ? 1 : 2;
		if (rc)
			return rc;
	}
}

/* One step: a bare verb (back, forward) or a mapping with exactly one verb key. */
static int parse_step(loader *l, size_t ti, size_t *cap, const yev *start)
{
	kn_task *t = &l->set->tasks[ti];
	if (kn_grow(&t->steps, t->n_steps, cap, sizeof *t->steps, 4))
		return kn_ty_oom(l);
	size_t si = t->n_steps++;
	kn_step *st = &t->steps[si];
	memset(st, 0, sizeof *st);
	st->line = start->at.line;
	st->column = start->at.col;
	snprintf(l->ctx_sub, sizeof l->ctx_sub, "step %zu", si + 1);

	yev k;
	int rc, end, v;
	char c[72];
	if (start->type == YAML_SCALAR_EVENT) {
		v = kn_step_verb_from_name(start->val, start->len);
		if (v < 0)
			return kn_ty_fail(l, KN_EINVAL, start->at,
			                  "unknown step verb '%s' (expected " VERB_LIST ")",
			                  kn_ty_clip(c, sizeof c, start->val));
		if (v != KN_STEP_BACK && v != KN_STEP_FORWARD)
			return kn_ty_fail(l, KN_EINVAL, start->at, "'%s' needs a value (write '- %s: ...')",
			                  kn_step_verb_name((kn_step_verb)v), kn_step_verb_name((kn_step_verb)v));
		st->verb = (kn_step_verb)v;
		l->ctx_sub[0] = '\0';
		return 0;
	}
	if (start->type != YAML_MAPPING_START_EVENT)
		return kn_ty_fail(l, KN_EINVAL, start->at,
		                  "a step is a verb such as '- goto: URL' or '- back', found %s",
		                  kn_ty_found(l, start));
	if ((rc = kn_ty_read_key(l, &k, &end)) != 0)
		return rc;
	if (end)
		return kn_ty_fail(l, KN_EINVAL, start->at, "empty step (expected one of " VERB_LIST ")");
	v = kn_step_verb_from_name(k.val, k.len);
	if (v < 0)
		return kn_ty_fail(l, KN_EINVAL, k.at, "unknown step verb '%s' (expected " VERB_LIST ")",
		                  kn_ty_clip(c, sizeof c, k.val));
	st->verb = (kn_step_verb)v;
	if ((rc = parse_verb_value(l, st, kn_step_verb_name((kn_step_verb)v))) != 0)
		return rc;
	if ((rc = kn_ty_read_key(l, &k, &end)) != 0)
		return rc;
	if (!end && k.len == 5 && !memcmp(k.val, "after", 5)) {
		if ((rc = parse_after(l, st)) != 0 || (rc = kn_ty_read_key(l, &k, &end)) != 0)
			return rc;
		if (!end && k.len == 5 && !memcmp(k.val, "after", 5))
			return kn_ty_fail(l, KN_EINVAL, k.at, "duplicate key 'after'");
	}
	if (!end)
		return kn_ty_fail(l, KN_EINVAL, k.at,
		                  "unexpected key '%s' after '%s' (a step has one verb; its options go "
		                  "in the verb's mapping)", kn_ty_clip(c, sizeof c, k.val),
		                  kn_step_verb_name((kn_step_verb)v));
	l->ctx_sub[0] = '\0';
	return 0;
}

struct steps_of {
	size_t ti, cap; /* the task, and the capacity of its steps array */
};

static int step_item(loader *l, void *ud, const yev *start)
{
	struct steps_of *so = ud;
	return parse_step(l, so->ti, &so->cap, start);
}

int kn_ty_parse_steps(loader *l, size_t ti)
{
	struct steps_of so = {ti, 0};
	return kn_ty_parse_list(l, "steps", "steps", step_item, &so, NULL);
}

enum { WK_FORMAT, WK_TASK, WK_RECORDED, WK_VIEWPORT, WK_START_URL, WK_STEPS, N_WK };
static const char *const workflow_keys[N_WK] = { "workflow", "task", "recorded_at", "viewport",
                                                 "start_url", "steps" };

/* "WxH" with 100 ≤ W, H ≤ 10000; 0 or KN_EINVAL. */
static int parse_viewport(const char *s, int *w, int *h)
{
	char *end;
	long a = strtol(s, &end, 10);
	if (end == s || (*end != 'x' && *end != 'X'))
		return KN_EINVAL;
	const char *p = end + 1;
	long b = strtol(p, &end, 10);
	if (end == p || *end || a < 100 || a > 10000 || b < 100 || b > 10000)
		return KN_EINVAL;
	*w = (int)a;
	*h = (int)b;
	return 0;
}

/* A workflow file (kn_load_opts.workflow): one mapping {workflow: 1, task, recorded_at,
 * viewport, start_url, steps}, loaded as one task holding only its id, steps and viewport.
 * first is its first key, already read. */
int kn_ty_parse_workflow(loader *l, pos at, const yev *first)
{
	kn_taskset *set = l->set;
	if (kn_grow(&set->tasks, set->n_tasks, &l->cap_tasks, sizeof *set->tasks, 4))
		return kn_ty_oom(l);
	kn_task *t = &set->tasks[set->n_tasks++];
	memset(t, 0, sizeof *t);
	t->line = at.line;
	snprintf(l->ctx_task, sizeof l->ctx_task, "workflow");
	yev v;
	int rc, w;
	unsigned seen = 0;
	char c[72], *text = NULL;
	pos vat;
	for (;;) {
		if ((rc = kn_ty_read_field(l, workflow_keys, N_WK, NULL, &seen, &first, &w)) != 0)
			return rc;
		if (w < 0)
			break;
		switch (w) {
		case WK_FORMAT:
			if ((rc = kn_ty_next_event(l, &v)) != 0)
				return rc;
			if (v.type != YAML_SCALAR_EVENT || v.kind != SK_INT || strcmp(v.val, "1") != 0)
				return kn_ty_fail(l, KN_EINVAL, v.at, "'workflow' must be 1 (the format version), "
				                  "found %s", kn_ty_found(l, &v));
			break;
		case WK_TASK:
			if ((rc = kn_ty_read_text(l, "task", 0, &t->id, &vat)) != 0)
				return rc;
			t->line = vat.line; /* where a message about the id points */
			snprintf(l->ctx_task, sizeof l->ctx_task, "workflow of '%s'",
			         kn_ty_clip(c, sizeof c, t->id));
			break;
		case WK_RECORDED:
			rc = kn_ty_read_text(l, "recorded_at", 0, &text, NULL);
			if (rc)
				return rc;
			t->recorded_at = text, text = NULL; /* kept: the API stores it (api_workflows.c) */
			break;
		case WK_VIEWPORT:
			if ((rc = kn_ty_read_text(l, "viewport", 0, &text, &vat)) != 0)
				return rc;
			rc = parse_viewport(text, &t->viewport_w, &t->viewport_h);
			if (rc)
				rc = kn_ty_fail(l, KN_EINVAL, vat,
				                "'viewport' must be WIDTHxHEIGHT (100 to 10000), "
				                "found '%s'", kn_ty_clip(c, sizeof c, text));
			free(text), text = NULL;
			if (rc)
				return rc;
			break;
		case WK_START_URL:
			if ((rc = kn_ty_read_url(l, "start_url", &t->start_url)) != 0)
				return rc;
			break;
		default:
			if ((rc = kn_ty_parse_steps(l, set->n_tasks - 1)) != 0)
				return rc;
			break;
		}
	}
	if (!(seen & (1u << WK_TASK)))
		return kn_ty_fail(l, KN_EINVAL, at,
		                  "missing 'task' (the id of the task this workflow is for)");
	if (!(seen & (1u << WK_STEPS)) || t->n_steps == 0)
		return kn_ty_fail(l, KN_EINVAL, at, "missing 'steps' (a workflow has at least one step)");
	l->ctx_task[0] = '\0';
	return 0;
}

/* The document: a mapping holding 'tasks:', or a single task mapping. */
