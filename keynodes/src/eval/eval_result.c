/* eval_result.c — the run result (docs/formats.md §3): the one writer of the evaluator's state
 * as JSON. kn_eval_result_json builds the document as a tree that services extend (the attempt
 * report, the LLM judge's usage, a replay's verdict) and serialise once, at their edge (a file,
 * the store, the HTTP stream); kn_eval_write_result is that tree written compactly. Every real in
 * the tree is rounded to the 15 significant digits the result is written with, so a result
 * written at any precision carries the numbers the compact form has. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "keynode/eval.h"
#include "keynode/purchase.h"

#include "eval_internal.h"

/* A whole number as an integer, anything else as a real, so 3 prints as 3 and 2.5 as 2.5. */
static json_t *json_num(double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		return json_integer((json_int_t)v);
	return json_real(v);
}

/* Every real in j as the double its 15-digit form reads back as (what writing the result with
 * JSON_REAL_PRECISION(15) and reading it again gave when services passed it around as text). */
static void round_reals(json_t *j)
{
	char buf[40];
	const char *k;
	json_t *v;
	size_t i;
	switch (json_typeof(j)) {
	case JSON_REAL:
		snprintf(buf, sizeof buf, "%.15g", json_real_value(j));
		json_real_set(j, strtod(buf, NULL));
		break;
	case JSON_OBJECT:
		json_object_foreach(j, k, v)
			round_reals(v);
		break;
	case JSON_ARRAY:
		json_array_foreach(j, i, v)
			round_reals(v);
		break;
	default:
		break;
	}
}

/* The result's "unjudged" evidence: the judge and each key node below 1 whose judgement failed,
 * with the judge's words. */
static json_t *unjudged_json(const kn_eval *ev)
{
	json_t *nodes = json_array();
	for (size_t i = 0; nodes && i < ev->n; i++) {
		const struct node *nd = &ev->nodes[i];
		if (nd->pub.score >= 1.0 || (!nd->n_failed && !nd->verdict))
			continue;
		json_array_append_new(nodes, json_pack("{s:s, s:s}", "id", ev->task->keynodes[i].id, "error",
		                                       nd->n_failed ? nd->failed[nd->n_failed - 1].error
		                                                    : nd->verdict));
	}
	const kn_semantic *sem = ev->opts.semantic;
	return json_pack("{s:s, s:o}", "judge", sem && sem->name ? sem->name : "?", "key_nodes",
	                 nodes ? nodes : json_array());
}

struct json_t *kn_eval_result_json(const kn_eval *ev, const char *run_id)
{
	json_t *nodes = json_array(), *scores = json_array();
	for (size_t i = 0; nodes && i < ev->n; i++) {
		const kn_keynode *kn = &ev->task->keynodes[i];
		const kn_node_state *st = &ev->nodes[i].pub;
		json_t *o = json_pack("{s:s, s:s, s:o, s:o}", "id", kn->id, "function", kn->function,
		                      "score", json_num(st->score), "reached_at_step",
		                      st->reached_at_step >= 0 ? json_integer(st->reached_at_step)
		                                               : json_null());
		if (o && kn->functional)
			json_object_set_new(o, "functional", json_true());
		if (o && kn->target == KN_TARGET_PAGE) {
			const struct node *nd = &ev->nodes[i];
			json_object_set_new(o, "read", nd->read ? json_string(nd->read) : json_null());
			if (nd->read_error)
				json_object_set_new(o, "error", json_string(nd->read_error));
		}
		json_array_append_new(nodes, o);
	}
	for (size_t i = 0; scores && i < ev->n_scores; i++)
		json_array_append_new(scores, json_real(ev->step_scores[i]));
	json_t *j = json_pack("{s:s, s:s?, s:s, s:s, s:i, s:o, s:I, s:o, s:b, s:o, s:o, s:o}",
	                      "task", ev->task->id, "run", run_id, "mode",
	                      ev->opts.mode == KN_MODE_WEBCANVAS ? "webcanvas" : "default", "status",
	                      kn_status_name(kn_eval_status(ev)), "steps", ev->steps, "reached",
	                      json_num(ev->reached), "total", (json_int_t)ev->n, "score",
	                      json_num(kn_eval_score(ev)), "completion", kn_eval_completed(ev),
	                      "efficiency", json_num(kn_eval_efficiency(ev)), "step_scores", scores,
	                      "key_nodes", nodes);
	if (!j)
		return NULL;
	kn_status status = kn_eval_status(ev);
	const char *fault = kn_eval_fault(ev);
	if (fault)
		json_object_set_new(j, "fault", json_string(fault));
	if (status == KN_STATUS_BLOCKED)
		json_object_set_new(j, "blocked", json_deep_copy(ev->blocked));
	if (status == KN_STATUS_UNJUDGED) {
		json_object_set_new(j, "reason", json_string("judge failed"));
		json_object_set_new(j, "unjudged", unjudged_json(ev));
	}
	if (ev->human) /* a person acted in the page: their events were left out */
		json_object_set_new(j, "human_events", json_integer(ev->human));
	if (ev->error_reason && status == KN_STATUS_ERROR) {
		json_object_set_new(j, "reason", json_string(ev->error_reason));
		if (ev->error_detail)
			json_object_set_new(j, "detail", json_string(ev->error_detail));
	}
	if (kn_eval_unreachable(ev)) {
		json_object_set_new(j, "reason", json_string("unreachable"));
		json_object_set_new(j, "unreachable", json_deep_copy(ev->unreachable));
	}
	kn_eval_defer_result(ev, j, nodes);
	int fn = kn_eval_functional(ev);
	if (fn >= 0)
		json_object_set_new(j, "functional", json_boolean(fn));
	if (fn >= 0 && ev->sem == KN_FUNC_SEM_WEBARENA)
		json_object_set_new(j, "functional_semantics", json_string("webarena"));
	if (ev->task->purchase) {
		kn_reward none;
		kn_purchase_reward(NULL, NULL, &none, NULL);
		json_object_set_new(j, "reward", json_real(kn_eval_reward(ev)));
		json_object_set_new(j, "reward_parts",
		                    kn_reward_json(ev->purchase_read ? &ev->reward : &none,
		                                   ev->task->purchase, ev->purchase_read));
		if (ev->purchase_error && !ev->purchase_read)
			json_object_set_new(j, "reward_error", json_string(ev->purchase_error));
	}
	if (ev->task->n_unmapped) {
		json_t *u = json_array();
		for (size_t i = 0; u && i < ev->task->n_unmapped; i++)
			json_array_append_new(u, json_string(ev->task->unmapped[i]));
		json_object_set_new(j, "unmapped", u);
	}
	round_reals(j);
	return j;
}

int kn_eval_write_result(const kn_eval *ev, const char *run_id, FILE *f)
{
	json_t *j = kn_eval_result_json(ev, run_id);
	if (!j)
		return KN_ENOMEM;
	int rc = json_dumpf(j, f, KN_RESULT_JSON_FLAGS) == 0 && fputc('\n', f) != EOF ? 0 : KN_EIO;
	json_decref(j);
	return rc;
}
