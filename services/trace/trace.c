/* trace.c — a run trace's life (trace.h): the steps as the monitor's events arrive, each key-node
 * check's evidence from the evaluator, and index.json when the run ends. The CDP side (what is
 * captured per step and how) is trace_capture.c; both share trace_internal.h. Everything runs on
 * the monitor's loop thread. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "keynode/clock.h"
#include "keynode/evidence.h"
#include "keynode/fs.h"
#include "keynode/request.h"
#include "trace_internal.h"

int kn_trace_mode_parse(kn_trace_mode *out, const char *s)
{
	static const char *const names[] = {"off", "on", "failures"};
	for (int i = 0; i < 3; i++)
		if (s && strcmp(s, names[i]) == 0) {
			*out = (kn_trace_mode)i;
			return 0;
		}
	return KN_EINVAL;
}

const char *kn_trace_mode_name(kn_trace_mode m)
{
	return m == KN_TRACE_ON ? "on" : m == KN_TRACE_FAILURES ? "failures" : "off";
}

/* Text cut to at most max bytes at a UTF-8 boundary, "…" appended when cut; NULL stays NULL. */
json_t *kn_trace_text(const char *s, size_t max)
{
	if (!s)
		return json_null();
	size_t n = strlen(s);
	if (n <= max) {
		json_t *j = json_string(s);
		return j ? j : json_string("(not valid UTF-8)");
	}
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--; /* do not split a character */
	char *c = malloc(max + 4);
	if (!c)
		return json_null();
	memcpy(c, s, max);
	memcpy(c + max, "\xe2\x80\xa6", 4);
	json_t *j = json_string(c);
	free(c);
	return j ? j : json_string("(not valid UTF-8)");
}

/* The selector of an element key node the probe should resolve in the page (NULL: none). */
static const char *node_selector(const kn_keynode *kn)
{
	if (kn->xpath || kn->matcher == KN_MATCH_REGEX)
		return NULL;
	if (kn->target == KN_TARGET_ELEMENT_PATH && kn->matcher != KN_MATCH_SEMANTIC)
		return kn->expect;
	return kn->target == KN_TARGET_ELEMENT_VALUE ? kn->path : NULL;
}

int kn_trace_new(kn_trace **out, const char *dir, const kn_trace_opts *opts, kn_err *err)
{
	*out = NULL;
	if (!dir || !*dir || !opts || !opts->task)
		return kn_err_set(err, KN_EINVAL, "trace: no folder or no task");
	char shots[4096];
	if (snprintf(shots, sizeof shots, "%s/shots", dir) >= (int)sizeof shots)
		return kn_err_set(err, KN_EINVAL, "trace: folder name too long");
	int rc = kn_mkdirs(shots, 0755, err);
	if (rc)
		return rc;
	kn_trace *t = calloc(1, sizeof *t);
	if (!t || !(t->dir = strdup(dir)) || !(t->steps = json_array()) ||
	    !(t->evidence = json_array()) || !(t->requests = json_object()) ||
	    !(t->selectors = json_array())) {
		kn_trace_free(t);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	t->o = *opts;
	t->o.kind = opts->kind ? opts->kind : "run";
	t->run_id = strdup(opts->run_id ? opts->run_id : "run");
	if (t->o.jpeg_quality <= 0 || t->o.jpeg_quality > 100)
		t->o.jpeg_quality = 50;
	if (!(t->o.scale > 0 && t->o.scale <= 1))
		t->o.scale = 0.5;
	kn_time_rfc3339(t->started, time(NULL));
	t->t0 = kn_time_mono_s();
	for (size_t i = 0; i < opts->task->n_keynodes; i++) {
		const kn_keynode *kn = &opts->task->keynodes[i];
		const char *sel = node_selector(kn);
		if (sel)
			json_array_append_new(t->selectors, json_pack("[s,s]", kn->id, sel));
	}
	*out = t;
	return 0;
}

/* Evidence of one check (kn_evidence_fn): kept until the event's trace step takes it. Checks that
 * did not apply are kept only for actions (an element node's path that did not match says much). */
static void on_evidence(void *ud, const kn_evidence *x)
{
	kn_trace *t = ud;
	int action = kn_event_is_action(x->e);
	if (!x->checked && !(action && (x->kn->target == KN_TARGET_ELEMENT_PATH ||
	                                x->kn->target == KN_TARGET_ELEMENT_VALUE)))
		return;
	if (json_array_size(t->evidence) >= KN_TRACE_MAX_EVIDENCE)
		return;
	json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:o, s:f, s:f, s:s, s:s}", "node", x->kn->id, "target",
	                      kn_target_name(x->kn->target), "matcher", kn_matcher_name(x->kn->matcher),
	                      "checked", x->checked, "input", kn_trace_text(x->input, 500), "score",
	                      x->score, "latched", x->latched, "why", x->why, "event",
	                      kn_event_type_name(x->e->type));
	if (o)
		json_array_append_new(t->evidence, o);
}

void kn_trace_bind_eval(kn_trace *t, kn_eval *ev)
{
	if (t && ev)
		kn_eval_set_evidence(ev, on_evidence, t);
}

json_t *kn_trace_step(kn_trace *t, int n)
{
	for (size_t i = json_array_size(t->steps); i-- > 0;) {
		json_t *s = json_array_get(t->steps, i);
		if (json_integer_value(json_object_get(s, "step")) == n)
			return s;
	}
	return NULL;
}

/* The step events are added to: the last one, or a step 0 for what came before the first. */
static json_t *current_step(kn_trace *t)
{
	size_t n = json_array_size(t->steps);
	if (n)
		return json_array_get(t->steps, n - 1);
	json_t *s = json_pack("{s:i, s:f, s:s, s:n, s:[], s:[], s:[], s:[]}", "step", 0, "t", 0.0,
	                      "type", "start", "screenshot", "events", "evidence", "console", "network");
	if (s)
		json_array_append_new(t->steps, s);
	return s;
}

static void set_opt(json_t *o, const char *k, const char *v, size_t max)
{
	if (v)
		json_object_set_new(o, k, kn_trace_text(v, max));
}

/* The event's own fields, as the trajectory has them. */
static json_t *event_json(kn_trace *t, const kn_event *ev)
{
	json_t *o = json_pack("{s:f, s:s}", "t", kn_time_mono_s() - t->t0, "type",
	                      kn_event_type_name(ev->type));
	if (!o)
		return NULL;
	set_opt(o, "tab", ev->tab, 32);
	set_opt(o, "url", ev->url, 2000);
	set_opt(o, "how", ev->how, 32);
	set_opt(o, "selector", ev->selector, 500);
	set_opt(o, "text", ev->text, 2000);
	set_opt(o, "value", ev->value, 500);
	set_opt(o, "key", ev->key, 64);
	if (ev->request) { /* what was sent (already redacted), and whether it was held */
		const kn_request *q = ev->request;
		json_t *r = json_object(), *f = json_array();
		set_opt(r, "method", q->method, 32);
		set_opt(r, "url", q->url, 2000);
		for (size_t i = 0; f && i < q->n_fields && i < 100; i++)
			json_array_append_new(f, json_pack("[s,s]", q->fields[i].name, q->fields[i].value));
		json_object_set_new(r, "fields", f);
		if (q->held)
			json_object_set_new(r, "held", json_true());
		if (q->websocket) { /* a WebSocket message: its direction, and whether it could have been held */
			set_opt(r, "direction", q->direction, 16);
			if (q->watched_only)
				json_object_set_new(r, "watched_only", json_true());
		}
		json_t *m = json_array(); /* the request key nodes it met (the monitor's `matched`) */
		for (size_t i = 0; m && i < ev->n_matched; i++)
			json_array_append_new(m, json_string(ev->matched[i]));
		json_object_set_new(r, "matched", m);
		json_object_set_new(o, q->websocket ? "websocket" : "request", r);
	}
	return o;
}

void kn_trace_event(kn_trace *t, kn_cdp *c, const kn_event *ev)
{
	if (!t || t->finished)
		return;
	json_t *evidence = t->evidence;
	t->evidence = json_array();
	if (!t->evidence) {
		t->evidence = evidence;
		return;
	}
	if (ev->type == KN_EV_ANSWER && ev->text) {
		free(t->answer);
		t->answer = strdup(ev->text);
	}
	if (!kn_event_is_step(ev) || json_array_size(t->steps) >= KN_TRACE_MAX_STEPS) {
		json_t *s = current_step(t), *e = event_json(t, ev);
		if (s && e) {
			json_array_append_new(json_object_get(s, "events"), e);
			json_array_extend(json_object_get(s, "evidence"), evidence);
		} else {
			json_decref(e);
		}
		json_decref(evidence);
		return;
	}
	json_t *s = event_json(t, ev);
	if (!s) {
		json_decref(evidence);
		return;
	}
	int n = ++t->n_steps;
	json_object_set_new(s, "step", json_integer(n));
	json_object_set_new(s, "evidence", evidence);
	json_object_set_new(s, "events", json_array());
	json_object_set_new(s, "console", json_array());
	json_object_set_new(s, "network", json_array());
	json_object_set_new(s, "screenshot", json_null());
	json_array_append_new(t->steps, s);
	kn_trace_capture_step(t, c, ev, s, n);
}

void kn_trace_counts(const kn_trace *t, int *shots, int *skipped)
{
	*shots = t ? t->shots : 0;
	*skipped = t ? t->skipped : 0;
}

void kn_trace_set_verdict(kn_trace *t, const char *status)
{
	if (!t)
		return;
	free(t->verdict);
	t->verdict = status ? strdup(status) : NULL;
}

int kn_trace_busy(const kn_trace *t)
{
	return t && !t->finished && (t->pending != NULL || kn_trace_frames_waiting(t));
}

const char *kn_trace_dir(const kn_trace *t)
{
	return t ? t->dir : NULL;
}

/* Remove the shots (dir/shots/NNNN.jpg), dir/shots, dir/index.json and dir (only what a trace writes). */
void kn_trace_remove(const char *dir)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/shots", dir);
	DIR *d = opendir(p);
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		if (n > 4 && strcmp(de->d_name + n - 4, ".jpg") == 0) {
			snprintf(p, sizeof p, "%s/shots/%s", dir, de->d_name);
			unlink(p);
		}
	}
	if (d)
		closedir(d);
	snprintf(p, sizeof p, "%s/shots", dir);
	rmdir(p);
	snprintf(p, sizeof p, "%s/index.json", dir);
	unlink(p);
	rmdir(dir);
}

static json_t *key_nodes_json(const kn_eval *ev)
{
	const kn_task *task = kn_eval_task(ev);
	json_t *a = json_array();
	for (size_t i = 0; a && i < task->n_keynodes; i++) {
		const kn_keynode *kn = &task->keynodes[i];
		const kn_node_state *st = kn_eval_node(ev, i);
		json_t *o = json_pack("{s:s, s:s, s:s, s:s?, s:o, s:f, s:o, s:s}", "id", kn->id, "target",
		                      kn_target_name(kn->target), "matcher", kn_matcher_name(kn->matcher),
		                      "function", kn->function, "expect", kn_trace_text(kn->expect, 2000),
		                      "score", st->score, "reached_at_step",
		                      st->reached_at_step >= 0 ? json_integer(st->reached_at_step)
		                                               : json_null(),
		                      "summary", "");
		if (o && kn->key)
			json_object_set_new(o, "key", json_string(kn->key));
		if (o && (kn->path || node_selector(kn)))
			json_object_set_new(o, "selector", json_string(kn->path ? kn->path : node_selector(kn)));
		json_array_append_new(a, o);
	}
	return a;
}

int kn_trace_finish(kn_trace *t, const kn_eval *ev, const char *end_reason, const char *answer,
                    int failed, int *kept, kn_err *err)
{
	if (kept)
		*kept = 0;
	if (!t)
		return 0;
	t->finished = 1;
	if (t->o.mode == KN_TRACE_FAILURES && !failed) {
		kn_trace_remove(t->dir);
		return 0;
	}
	kn_trace_frames_finish(t);
	char ended[KN_TIME_MAX];
	kn_time_rfc3339(ended, time(NULL));
	const kn_task *task = t->o.task;
	const char *ans = answer ? answer : t->answer;
	json_t *idx = json_pack(
		"{s:i, s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:s, s:s, s:b, s:f, s:o, s:{s:s, s:i, s:f, s:i, s:i},"
		" s:o, s:O}",
		"trace", 1, "kind", t->o.kind, "mode", kn_trace_mode_name(t->o.mode), "run", t->run_id, "task",
		task->id, "intent", kn_trace_text(task->intent, 4000), "started", t->started, "ended", ended,
		"end_reason", end_reason ? end_reason : "stopped", "status",
		t->verdict ? t->verdict : kn_status_name(kn_eval_status(ev)), "layout", "index.json + shots/NNNN.jpg", "failed", failed,
		"score", kn_eval_score(ev), "answer", kn_trace_text(ans, 8000), "capture", "format", "jpeg",
		"quality", t->o.jpeg_quality, "scale", t->o.scale, "shots", t->shots, "skipped", t->skipped,
		"key_nodes", key_nodes_json(ev), "steps", t->steps);
	if (!idx)
		return kn_err_set(err, KN_ENOMEM, "trace: out of memory");
	kn_trace_summarise(idx);
	char path[4096], tmp[4200];
	snprintf(path, sizeof path, "%s/index.json", t->dir);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int ok = f && json_dumpf(idx, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) == 0;
	ok = f && fputc('\n', f) != EOF && ok;
	ok = f && fclose(f) == 0 && ok;
	json_decref(idx);
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return kn_err_set(err, KN_EIO, "trace: cannot write %s", path);
	}
	if (kept)
		*kept = 1;
	return 0;
}

void kn_trace_free(kn_trace *t)
{
	if (!t)
		return;
	while (t->tabs) {
		struct kn_trace_tab *x = t->tabs;
		t->tabs = x->next;
		free(x->id);
		free(x->session);
		free(x->frame_id);
		free(x->world);
		kn_trace_frames_free_tab(x);
		free(x);
	}
	/* captures still in flight hold the trace: they see it gone */
	for (struct kn_trace_pending *p = t->pending; p; p = p->next)
		p->t = NULL;
	json_decref(t->steps);
	json_decref(t->evidence);
	json_decref(t->requests);
	json_decref(t->selectors);
	free(t->answer);
	free(t->verdict);
	free(t->run_id);
	free(t->dir);
	free(t);
}
