/* record_session.c — recording a workflow from what is done in a browser (record_session.h): the
 * monitor (services/monitor) turns the recorder's payloads and the navigations into events; each
 * action event becomes a step, the element it was recorded on is described at once in the page (its
 * fingerprint: tag, id, name, test id, aria-label, role, href, visible text, classes, DOM path — the
 * replayer's `describe`), and the navigations that follow a step are its postcondition. Used by
 * `keynode record` (cmd_record.c) and by the worker's recordings from the dashboard (worker_record.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/clock.h"
#include "keynode/grow.h"
#include "keynode/redact.h"
#include "keynode/request.h"
#include "keynode/url.h"
#include "keynode/workflow.h"
#include "record_session.h"
#include "replay.h"
#include "softpage.h"

struct kn_record {
	kn_task wf;           /* id, start_url, viewport and the steps being recorded */
	size_t cap;
	kn_monitor *m;
	char *cur_url;        /* the page's URL now */
	int viewport_w, viewport_h; /* seen in the page */
	FILE *progress;
	/* for --propose: what the run did */
	json_t *urls;         /* every URL navigated to, in order */
	int pending;          /* describe calls in flight */
	double last_event;    /* kn_time_mono_ms() of the last event, 0 before the first */
	json_t *hints;        /* the recorder's locator hints of the payload being turned into an event */
	int vw, vh;           /* the viewport written (> 0), or -1: the page's own */
	const char *ready_note;
	int ready;            /* every tab attached with its recorder */
	/* what the page showed after the newest step (softpage.h): asked PROBE_MS after it and after
	 * each page it led to, and said again by the next action's payload (on_payload); a navigation
	 * the agent made, with no payload, asks as it comes when that is sooner */
	const kn_task *task;  /* the task recorded (its own sites) */
	kn_cdp_loop *loop;
	kn_cdp_timer *probe_t;
	char tab[32];         /* the tab of the newest event */
	kn_softpage_failed fails; /* the pages' failed data requests (the monitor's Network events) */
	unsigned mark_prev, mark_cur; /* fails.n_failed when the step before the newest and the newest
	                               * were recorded: a step's baseline counts from the one before it
	                               * (an action's first requests may come before its event) */
};

#define PROBE_MS 1000

struct desc_req {
	struct kn_record *r;
	size_t step;
};

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

static void set_str(char **slot, const char *v)
{
	free(*slot);
	*slot = dup_or_null(v);
}

/* The selector a replay finds ev's element with: inside a frame, the <iframe> selectors from the top
 * document down and the element's, joined with " >> " (docs/formats.md §2); NULL without a selector. */
static char *step_selector(const kn_event *ev)
{
	if (!ev->selector || !*ev->selector)
		return NULL;
	size_t len = strlen(ev->selector) + 1;
	for (size_t i = 0; i < ev->n_frame_path; i++)
		len += strlen(ev->frame_path[i]) + 4;
	char *s = malloc(len), *p = s;
	if (!s)
		return NULL;
	for (size_t i = 0; i < ev->n_frame_path; i++)
		p += sprintf(p, "%s >> ", ev->frame_path[i]);
	strcpy(p, ev->selector);
	return s;
}

/* Fill step i's fingerprint from a describe reply. */
static void on_describe(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c;
	struct desc_req *q = ud;
	struct kn_record *r = q->r;
	r->pending--;
	json_t *v = json_object_get(json_object_get(result, "result"), "value");
	if (!error && json_is_object(v) && q->step < r->wf.n_steps) {
		kn_step *st = &r->wf.steps[q->step];
		const char *keys[] = {"tag", "id", "name", "aria", "role", "href", "classes", "path", "testid"};
		char **slots[] = {&st->tag, &st->hint_id, &st->hint_name, &st->hint_aria_label, &st->hint_role,
		                  &st->hint_href, &st->classes, &st->dom_path, &st->hint_test_id};
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) { /* what the recorder said stays */
			const char *val = json_string_value(json_object_get(v, keys[i]));
			if (val && *val && !*slots[i])
				set_str(slots[i], val);
		}
		const char *text = json_string_value(json_object_get(v, "text"));
		/* the text the recorder saw at the click wins: by now the click may have changed it
		 * ("Reveal code" → "Code revealed") */
		if (st->verb == KN_STEP_CLICK && text && *text && !st->text)
			set_str(&st->text, text);
		r->viewport_w = (int)json_integer_value(json_object_get(v, "vw"));
		r->viewport_h = (int)json_integer_value(json_object_get(v, "vh"));
	}
	free(q);
}

static void take_hints(struct kn_record *r, kn_step *st)
{
	const char *keys[] = {"tag", "id", "name", "aria_label", "role", "href"};
	char **slots[] = {&st->tag, &st->hint_id, &st->hint_name, &st->hint_aria_label, &st->hint_role,
	                  &st->hint_href};
	for (size_t i = 0; r->hints && i < sizeof keys / sizeof keys[0]; i++)
		set_str(slots[i], json_string_value(json_object_get(r->hints, keys[i])));
	json_decref(r->hints);
	r->hints = NULL;
}

/* ---- what the page showed after a step: its baseline for replay validation (softpage.h) */

struct probe_req {
	struct kn_record *r;
	size_t n_steps; /* the steps when asked: a newer step makes the answer another step's, */
	int before_next; /* unless it was asked as that newer step came (add_step) */
	unsigned since;  /* the failed requests counted from here (the step before the asked one) */
};

/* Step i's (1-based) baseline: what its page showed (v, shows.js's object) and the data requests that
 * had failed since the step before it (`since`). A later view of the same step replaces an earlier. */
static void set_baseline(struct kn_record *r, size_t i, unsigned since, json_t *v)
{
	if (!json_is_object(v) || !i || i > r->wf.n_steps)
		return;
	kn_step *st = &r->wf.steps[i - 1];
	st->error_page = kn_softpage_shows_error_json(v, NULL, 0) ? 1 : 2;
	kn_softpage_request reqs[KN_SOFTPAGE_FAILED_KEEP];
	const char *urls[KN_SOFTPAGE_FAILED_KEEP];
	size_t n = kn_softpage_failed_since(&r->fails, since, r->task, reqs);
	for (size_t k = 0; k < n; k++)
		urls[k] = reqs[k].url;
	free(st->failed_requests);
	st->failed_requests = kn_softpage_paths(urls, n);
}

static void on_probe(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c;
	struct probe_req *q = ud;
	struct kn_record *r = q->r;
	r->pending--;
	if (!error && (q->n_steps == r->wf.n_steps || q->before_next))
		set_baseline(r, q->n_steps, q->since, json_object_get(json_object_get(result, "result"), "value"));
	free(q);
}

/* The recorder's hints (tag, id, name, aria_label, role, href) of the action about to be emitted:
 * they are had even when the action navigated away before the page could be asked. */
static void on_payload(void *ud, kn_monitor *m, const char *tab, const char *payload, size_t len)
{
	(void)m;
	struct kn_record *r = ud;
	json_t *p = json_loadb(payload, len, 0, NULL);
	json_decref(r->hints);
	r->hints = json_incref(json_object_get(p, "hints"));
	/* what the newest step's page showed as this action came, taken in the page before the action's
	 * default action (kn_monitor_opts.page_views): that step's baseline however soon the agent went
	 * on — a question over CDP as the action's event arrives can find the next page already */
	if (tab && !strcmp(tab, r->tab))
		set_baseline(r, r->wf.n_steps, r->mark_prev, json_object_get(p, "shows"));
	json_decref(p);
}

/* Ask the newest step's page what it shows now (before_next: as the next step comes). */
static void probe(struct kn_record *r, int before_next)
{
	if (!r->tab[0] || !r->wf.n_steps || kn_monitor_ended(r->m))
		return;
	struct probe_req *q = malloc(sizeof *q);
	char *expr = kn_replay_page_expr("shows", NULL);
	if (q && expr) {
		*q = (struct probe_req){r, r->wf.n_steps, before_next, r->mark_prev};
		if (kn_monitor_eval_in_tab(r->m, r->tab, expr, on_probe, q) == 0)
			r->pending++, q = NULL;
	}
	free(q);
	free(expr);
}

static void on_network(void *ud, kn_monitor *m, const char *tab, const char *method, json_t *params)
{
	(void)m;
	(void)tab;
	struct kn_record *r = ud;
	kn_softpage_failed_note(&r->fails, method, params);
}

static void probe_due(void *ud)
{
	struct kn_record *r = ud;
	r->probe_t = NULL;
	probe(r, 0);
}

/* The newest step's page is asked PROBE_MS from now (its data requests answered, rendered). */
static void probe_later(struct kn_record *r, const char *tab)
{
	if (tab)
		snprintf(r->tab, sizeof r->tab, "%s", tab);
	kn_cdp_timer_cancel(r->probe_t);
	r->probe_t = r->loop ? kn_cdp_timer_start(r->loop, PROBE_MS, probe_due, r) : NULL;
}

/* Every tab open is attached with its recorder: what happens from now on is recorded. */
static void on_ready(void *ud, kn_monitor *m)
{
	(void)m;
	struct kn_record *r = ud;
	r->ready = 1;
	if (r->progress) {
		fprintf(r->progress, "recording task '%s'%s\n", r->wf.id, r->ready_note ? r->ready_note : "");
		fflush(r->progress);
	}
}

static kn_step *add_step(struct kn_record *r, kn_step_verb verb)
{
	if (kn_grow(&r->wf.steps, r->wf.n_steps, &r->cap, sizeof *r->wf.steps, 16))
		return NULL;
	/* the step before is finished: its page not asked yet (the next action came within PROBE_MS)
	 * and without a baseline from this action's payload (a navigation the agent made has none) is
	 * asked now — whether a step has a baseline must not depend on how fast the agent went on; no
	 * navigation since means it did not navigate */
	if (r->probe_t) {
		kn_cdp_timer_cancel(r->probe_t);
		r->probe_t = NULL;
		if (r->wf.n_steps && !r->wf.steps[r->wf.n_steps - 1].error_page)
			probe(r, 1);
	}
	if (r->wf.n_steps) {
		kn_step *prev = &r->wf.steps[r->wf.n_steps - 1];
		if (!prev->navigated) {
			prev->navigated = 2;
			if (!prev->expect_url)
				prev->expect_url = dup_or_null(r->cur_url);
		}
	}
	kn_step *st = &r->wf.steps[r->wf.n_steps++];
	memset(st, 0, sizeof *st);
	r->mark_prev = r->mark_cur;
	r->mark_cur = r->fails.n_failed;
	st->verb = verb;
	return st;
}

static void print_step(struct kn_record *r, const kn_step *st)
{
	if (!r->progress)
		return;
	fprintf(r->progress, "  step %zu %-7s %s%s%s\n", r->wf.n_steps, kn_step_verb_name(st->verb),
	        st->selector ? st->selector : st->value ? st->value : "", st->selector && st->value ? " = " : "",
	        st->selector && st->value ? st->value : "");
	fflush(r->progress);
}

static int http_url(const char *u)
{
	return u && (!strncmp(u, "http://", 7) || !strncmp(u, "https://", 8));
}

static void on_navigate(struct kn_record *r, const kn_event *ev)
{
	if (!http_url(ev->url))
		return;
	set_str(&r->cur_url, ev->url);
	json_array_append_new(r->urls, json_string(ev->url));
	kn_step *st = NULL;
	kn_nav how = kn_event_nav(ev);
	if (how == KN_NAV_GOTO) {
		if ((st = add_step(r, KN_STEP_GOTO)) != NULL) {
			st->value = strdup(ev->url);
			if (!r->wf.start_url)
				r->wf.start_url = strdup(ev->url);
		}
	} else if (how == KN_NAV_BACK || how == KN_NAV_FORWARD) {
		st = add_step(r, how == KN_NAV_BACK ? KN_STEP_BACK : KN_STEP_FORWARD);
	}
	if (st)
		print_step(r, st);
	if (r->wf.n_steps && how != KN_NAV_RELOAD) { /* the step that led here */
		kn_step *prev = &r->wf.steps[r->wf.n_steps - 1];
		prev->navigated = 1;
		set_str(&prev->expect_url, ev->url);
		probe_later(r, ev->tab);
	}
}

/* 1 when a typed value is a secret never written (redact.h's defaults, or the recorder's mask of a
 * password field). */
static int secret_typed(const kn_event *ev)
{
	return ev->value && (kn_redact_field(NULL, ev->selector, ev->value) ||
	                     strcmp(ev->value, KN_RECORDER_PASSWORD_MASK) == 0);
}

/* A secret step's name: the field's name, else its id, else its selector, as [A-Z0-9_]
 * ("cc-number" → CC_NUMBER); the replay types $KN_SECRET_<name>. */
static void name_secret(kn_step *st)
{
	const char *from = st->hint_name ? st->hint_name : st->hint_id ? st->hint_id : st->selector;
	char name[64];
	size_t n = 0;
	for (const char *p = from ? from : ""; *p && n < sizeof name - 1; p++) {
		int alnum = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
		if (alnum)
			name[n++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
		else if (n && name[n - 1] != '_')
			name[n++] = '_';
	}
	while (n && name[n - 1] == '_')
		n--;
	name[n] = '\0';
	set_str(&st->secret, n ? name : "FIELD");
	free(st->value);
	st->value = NULL;
	free(st->expect_value); /* its value after the step would be the secret */
	st->expect_value = NULL;
}

/* 1 when a field's recorded value looks generated anew on every visit — a hex or base64 token
 * (a nonce, a form's checksum), an epoch time — so comparing it would fail every replay. */
static int generated_value(const char *v)
{
	size_t n = strlen(v), digits = 0, hex = 0, b64 = 0;
	for (const char *p = v; *p; p++) {
		int d = *p >= '0' && *p <= '9', h = d || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F');
		digits += d;
		hex += h;
		b64 += h || (*p >= 'g' && *p <= 'z') || (*p >= 'G' && *p <= 'Z') || *p == '+' || *p == '/' ||
		       *p == '=' || *p == '-' || *p == '_';
	}
	if (digits == n)
		return (n == 10 || n == 13) && v[0] == '1'; /* seconds or milliseconds since 1970 */
	return (hex == n && n >= 8 && digits) || (b64 == n && n >= 20 && digits >= 3);
}

/* The request a step sent that a guard rule held, as the step's recorded `held:` (workflow.h): its
 * method, its host and path, and each body field's value, leaving out secrets (redact.h) and
 * generated values. The first held request of a step is kept. */
static void take_held(struct kn_record *r, const kn_request *q)
{
	if (!r->wf.n_steps || !q->held || r->wf.steps[r->wf.n_steps - 1].held)
		return;
	kn_step *st = &r->wf.steps[r->wf.n_steps - 1];
	kn_request_spec *s = calloc(1, sizeof *s);
	char *url = NULL; /* host, port and path: the include form (url.h) without its fragment */
	kn_err err = {0};
	int rc = !s ? KN_ENOMEM : kn_url_include_form(&url, q->url ? q->url : "");
	if (!rc) {
		url[strcspn(url, "#")] = '\0';
		rc = kn_request_spec_set_method(s, q->method, &err);
	}
	if (!rc)
		rc = kn_request_spec_set_url(s, KN_MATCH_INCLUDE, url, NULL, &err);
	for (size_t i = 0; !rc && i < q->n_fields; i++)
		if (!kn_redact_field(NULL, q->fields[i].name, q->fields[i].value) && !generated_value(q->fields[i].value))
			rc = kn_request_spec_add_field(s, NULL, q->fields[i].name, KN_MATCH_EXACT, q->fields[i].value, &err);
	free(url);
	if (rc) {
		kn_request_spec_free(s);
		return;
	}
	st->held = s;
	if (r->progress)
		fprintf(r->progress, "  step %zu held   %s %s (%zu fields)\n", r->wf.n_steps, q->method,
		        s->url->expect, s->n_fields);
}

static void on_event(void *ud, kn_monitor *m, const kn_event *ev, int rises)
{
	(void)rises;
	struct kn_record *r = ud;
	kn_step *st = NULL;
	if (ev->type != KN_EV_TAB_OPEN && ev->type != KN_EV_TAB_CLOSE && ev->type != KN_EV_SUBMIT &&
	    (ev->type != KN_EV_NAVIGATE || http_url(ev->url)))
		r->last_event = kn_time_mono_ms(); /* --until idle counts from the demonstration's first action */
	switch (ev->type) {
	case KN_EV_NAVIGATE:
		on_navigate(r, ev);
		return;
	case KN_EV_REQUEST:
		if (ev->request)
			take_held(r, ev->request);
		return;
	case KN_EV_TYPE:
		if (r->wf.n_steps) { /* one field typed into twice in a row is one step, its last value */
			kn_step *prev = &r->wf.steps[r->wf.n_steps - 1];
			char *sel = step_selector(ev);
			int same = prev->verb == KN_STEP_TYPE && prev->selector && sel && !strcmp(prev->selector, sel) &&
			           prev->navigated != 1;
			free(sel);
			if (same) {
				if (secret_typed(ev)) {
					name_secret(prev);
				} else {
					free(prev->secret);
					prev->secret = NULL;
					set_str(&prev->value, ev->value ? ev->value : "");
					set_str(&prev->expect_value, ev->value);
				}
				return;
			}
		}
		st = add_step(r, KN_STEP_TYPE);
		break;
	case KN_EV_CLICK: st = add_step(r, KN_STEP_CLICK); break;
	case KN_EV_SELECT: st = add_step(r, KN_STEP_SELECT); break;
	case KN_EV_PRESS: st = add_step(r, KN_STEP_PRESS); break;
	case KN_EV_SCROLL: st = add_step(r, KN_STEP_SCROLL); break;
	case KN_EV_ANSWER: st = add_step(r, KN_STEP_ANSWER); break;
	case KN_EV_DIALOG: st = add_step(r, KN_STEP_DIALOG); break; /* answers the dialog the step before opened */
	default: return;
	}
	if (!st)
		return;
	switch (st->verb) {
	case KN_STEP_PRESS: st->value = strdup(ev->key ? ev->key : "Enter"); break;
	case KN_STEP_SCROLL:
		st->value = strdup(ev->value && !strcmp(ev->value, "up") ? "up" : "down");
		st->scroll_px = ev->pixels; /* how far: replayed as far */
		break;
	case KN_STEP_ANSWER: st->value = strdup(ev->text ? ev->text : ev->value ? ev->value : ""); break;
	case KN_STEP_DIALOG: st->value = strdup(ev->value && !strcmp(ev->value, "accepted") ? "accept" : "dismiss"); break;
	default:
		st->selector = step_selector(ev);
		if (st->verb == KN_STEP_TYPE || st->verb == KN_STEP_SELECT) {
			st->value = strdup(ev->value ? ev->value : "");
			st->expect_value = dup_or_null(ev->value);
		} else {
			st->text = dup_or_null(ev->text);
		}
		break;
	}
	if (st->selector)
		take_hints(r, st);
	if (st->verb == KN_STEP_TYPE && secret_typed(ev))
		name_secret(st);
	if (st->selector && ev->tab) {
		struct desc_req *q = malloc(sizeof *q);
		json_t *p = json_pack("{s:s}", "sel", st->selector);
		char *expr = p ? kn_replay_page_expr("describe", p) : NULL;
		if (q && expr) {
			*q = (struct desc_req){r, r->wf.n_steps - 1};
			if (kn_monitor_eval_in_tab(m, ev->tab, expr, on_describe, q) == 0)
				r->pending++, q = NULL;
		}
		free(q);
		free(expr);
		json_decref(p);
	}
	probe_later(r, ev->tab);
	print_step(r, st);
}

/* Candidate key nodes from the demonstration, most telling first (the end state outranks the
 * way there): the answer, query parameters the run set (last value), values typed or chosen,
 * paths reached, elements clicked. */
void kn_record_propose(const kn_record *r, FILE *f)
{
	fprintf(f, "# candidate key nodes for task '%s', most telling first\nkey_nodes:\n", r->wf.id);
	for (size_t i = r->wf.n_steps; i-- > 0;)
		if (r->wf.steps[i].verb == KN_STEP_ANSWER && r->wf.steps[i].value && *r->wf.steps[i].value)
			fprintf(f, "  - answer: { include: \"%s\" }\n", r->wf.steps[i].value);
	json_t *seen = json_object();
	size_t n = json_array_size(r->urls);
	for (size_t i = n; i-- > 0;) { /* query parameters, last value wins */
		const char *u = json_string_value(json_array_get(r->urls, i));
		const char *q = strchr(u, '?');
		if (!q)
			continue;
		char *copy = strdup(q + 1), *p = copy;
		while (p && *p) {
			char *amp = strchr(p, '&'), *eq;
			if (amp)
				*amp = '\0';
			if ((eq = strchr(p, '=')) != NULL) {
				*eq = '\0';
				char *v = NULL;
				if (*p && !json_object_get(seen, p) && kn_url_query_param(&v, u, p) == 0) {
					json_object_set_new(seen, p, json_true());
					fprintf(f, "  - url: { key: \"%s\", exact: \"%s\" }\n", p, v);
				}
				free(v);
			}
			p = amp ? amp + 1 : NULL;
		}
		free(copy);
	}
	for (size_t i = 0; i < r->wf.n_steps; i++) {
		const kn_step *st = &r->wf.steps[i];
		if ((st->verb == KN_STEP_TYPE || st->verb == KN_STEP_SELECT) && st->selector && st->value) {
			/* selectors hold quotes ([data-testid="q"]): written as YAML strings */
			fputs("  - element_value: { path: ", f);
			kn_workflow_put_str(f, st->selector);
			fputs(", exact: ", f);
			kn_workflow_put_str(f, st->value);
			fputs(" }\n", f);
		}
	}
	for (size_t i = n; i-- > 0;) { /* paths, the last reached first, each once */
		const char *u = json_string_value(json_array_get(r->urls, i));
		const char *p = strstr(u, "://");
		p = p ? strchr(p + 3, '/') : NULL;
		if (!p)
			continue;
		size_t len = strcspn(p, "?");
		char key[1024];
		snprintf(key, sizeof key, "path:%.*s", (int)(len < 1000 ? len : 1000), p);
		if (json_object_get(seen, key))
			continue;
		json_object_set_new(seen, key, json_true());
		fprintf(f, "  - url: { include: \"%.*s\" }\n", (int)len, p);
	}
	for (size_t i = 0; i < r->wf.n_steps; i++)
		if (r->wf.steps[i].verb == KN_STEP_CLICK && r->wf.steps[i].selector) {
			fputs("  - element_path: { exact: ", f);
			kn_workflow_put_str(f, r->wf.steps[i].selector);
			fputs(" }\n", f);
		}
	json_decref(seen);
}

int kn_record_start(kn_record **out, kn_cdp_loop *loop, const char *ws_url, const kn_task *task,
                    const kn_record_opts *o, kn_err *err)
{
	*out = NULL;
	kn_record *r = calloc(1, sizeof *r);
	if (!r || !(r->urls = json_array()) || !(r->wf.id = strdup(task->id))) {
		kn_record_free(r);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	r->progress = o->progress;
	r->task = task;
	r->loop = loop;
	r->ready_note = o->ready_note;
	r->vw = o->viewport_w == 0 ? KN_VIEWPORT_DEFAULT_W : o->viewport_w;
	r->vh = o->viewport_w == 0 ? KN_VIEWPORT_DEFAULT_H : o->viewport_h;
	/* "finished" is checked by the caller, not by the monitor: the step that reached the last key
	 * node still has its navigation (its postcondition) to come */
	kn_monitor_opts mo = {.eval = {.step_limit = -1}, .on_event_clear = 1, .task = task, .on_event = on_event,
	                      .on_ready = on_ready, .on_payload = on_payload, .on_network = on_network, .page_views = 1, .ud = r, .until_steps = o->until_steps,
	                      .viewport_w = r->vw > 0 ? r->vw : 0, .viewport_h = r->vw > 0 ? r->vh : 0,
	                      .browser_context = o->browser_context};
	int rc = kn_monitor_start(&r->m, loop, ws_url, &mo, err);
	if (rc) {
		kn_record_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

kn_monitor *kn_record_monitor(kn_record *r) { return r->m; }
double kn_record_last_event(const kn_record *r) { return r->last_event; }
size_t kn_record_steps(const kn_record *r) { return r->wf.n_steps; }
int kn_record_ready(const kn_record *r) { return r->ready; }

const kn_task *kn_record_finish(kn_record *r, kn_cdp_loop *loop, const char *answer)
{
	if (r->probe_t) { /* the last step's page, asked now: the monitor is about to stop */
		kn_cdp_timer_cancel(r->probe_t);
		r->probe_t = NULL;
		probe(r, 0);
		for (int waited = 0; r->pending > 0 && waited < 1500; waited += 20)
			kn_cdp_loop_run_for(loop, 20);
	}
	if (!kn_monitor_ended(r->m))
		kn_monitor_stop(r->m, KN_END_STOPPED);
	for (int waited = 0; (!kn_monitor_ended(r->m) || r->pending > 0) && waited < 3000; waited += 20)
		kn_cdp_loop_run_for(loop, 20);
	if (answer) {
		kn_step *st = add_step(r, KN_STEP_ANSWER);
		if (st)
			st->value = strdup(answer);
	}
	if (r->wf.n_steps) { /* the last step's postcondition, when it did not navigate */
		kn_step *last = &r->wf.steps[r->wf.n_steps - 1];
		if (!last->navigated && last->verb != KN_STEP_ANSWER) {
			last->navigated = 2;
			last->expect_url = dup_or_null(r->cur_url);
		}
	}
	if (r->progress)
		fprintf(r->progress, "recording ended (%s): %zu steps\n",
		        kn_monitor_end_reason(r->m) ? kn_monitor_end_reason(r->m) : "stopped", r->wf.n_steps);
	r->wf.viewport_w = r->vw > 0 ? r->vw : r->viewport_w >= 100 ? r->viewport_w : 0;
	r->wf.viewport_h = r->vw > 0 ? r->vh : r->viewport_h >= 100 ? r->viewport_h : 0;
	return &r->wf;
}

int kn_record_page_viewport(const kn_record *r, int *w, int *h)
{
	*w = r->viewport_w, *h = r->viewport_h;
	return r->viewport_w >= 100;
}

void kn_record_free(kn_record *r)
{
	if (!r)
		return;
	kn_cdp_timer_cancel(r->probe_t);
	kn_monitor_free(r->m);
	kn_task_clear(&r->wf);
	json_decref(r->urls);
	json_decref(r->hints);
	free(r->cur_url);
	free(r);
}
