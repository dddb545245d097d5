/* cmd_record.c — `keynode record`: attach to a browser in which a person or any agent performs a
 * task once, and write the task's reference workflow (keynode/workflow.h) beside its task file.
 * The monitor (services/monitor) turns the recorder's payloads and the navigations into events;
 * each action event becomes a step, the element it was recorded on is described at once in the
 * page (its fingerprint: tag, id, name, test id, aria-label, role, href, visible text, classes,
 * DOM path — the replayer's `describe`), and the navigations that follow a step are its
 * postcondition. With --propose, candidate key nodes in task-file syntax are printed, ranked. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli.h"
#include "keynode/fs.h"
#include "keynode/redact.h"
#include "keynode/request.h"
#include "keynode/until.h"
#include "keynode/url.h"
#include "keynode/workflow.h"
#include "monitor.h"
#include "replay_internal.h"

static const char help[] =
	"usage: keynode record --browser ENDPOINT --tasks TASKFILE --task ID [--out DIR] [--propose]\n"
	"                      [--until finished|idle:S|steps:N] [--viewport WxH] [--quiet]\n"
	"\n"
	"Attach to a browser (a headful Chromium started with --remote-debugging-port, or one an\n"
	"agent drives) in which the task is performed once, and write its reference workflow\n"
	"DIR/<task-id>.yaml (schemas/workflow.schema.json): every step (goto, click, type, select,\n"
	"press, scroll, back, forward, answer) with the locator fingerprint taken when it was recorded\n"
	"(selector, id, name, test id, aria-label, role, href, visible text, tag, classes, DOM path)\n"
	"and its observed postcondition (the URL after the step, whether it navigated, a field's\n"
	"value). Steps are printed as they are recorded. Recording ends on Ctrl-C, at --until, or when\n"
	"every key node of the task was reached. Under the task's guard rules a request the page sent\n"
	"that a rule held is written as its step's `after: {held: …}` (checked by replay validation)\n"
	"and the recording ends there (end_on_guard); a password, card number or CVC typed is written\n"
	"`secret: NAME`, never its value: a replay types $KN_SECRET_NAME.\n"
	"\n"
	"options:\n"
	"  --out DIR         where to write (default: workflows/ beside the task file); created when\n"
	"                    missing\n"
	"  --propose         print candidate key nodes in task-file syntax, ranked (query parameters\n"
	"                    set, paths reached, values typed, elements acted on, the answer)\n"
	"  --until U         also end at: finished (default, always on), idle:S (S seconds without an\n"
	"                    action), steps:N\n"
	"  --viewport WxH    the viewport every recorded tab is given (emulated while recording) and\n"
	"                    written into the workflow, which replays use (default 1280x800); `window`:\n"
	"                    leave the tabs as they are and write the page's own window size\n"
	"  --answer TEXT     the task's answer, recorded as the last step\n"
	"  --quiet           no step lines\n"
	"\n"
	"exit: 0 workflow written, 1 nothing was recorded, 2 usage error, browser unreachable or the\n"
	"workflow could not be written\n";

struct rec {
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
};

struct desc_req {
	struct rec *r;
	size_t step;
};

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

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
	struct rec *r = q->r;
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

/* The recorder's hints (tag, id, name, aria_label, role, href) of the action about to be emitted:
 * they are had even when the action navigated away before the page could be asked. */
static void on_payload(void *ud, kn_monitor *m, const char *tab, const char *payload, size_t len)
{
	(void)m;
	(void)tab;
	struct rec *r = ud;
	json_t *p = json_loadb(payload, len, 0, NULL);
	json_decref(r->hints);
	r->hints = json_incref(json_object_get(p, "hints"));
	json_decref(p);
}

static void take_hints(struct rec *r, kn_step *st)
{
	const char *keys[] = {"tag", "id", "name", "aria_label", "role", "href"};
	char **slots[] = {&st->tag, &st->hint_id, &st->hint_name, &st->hint_aria_label, &st->hint_role,
	                  &st->hint_href};
	for (size_t i = 0; r->hints && i < sizeof keys / sizeof keys[0]; i++)
		set_str(slots[i], json_string_value(json_object_get(r->hints, keys[i])));
	json_decref(r->hints);
	r->hints = NULL;
}

/* Every tab open is attached with its recorder: what happens from now on is recorded. */
static void on_ready(void *ud, kn_monitor *m)
{
	(void)m;
	struct rec *r = ud;
	if (r->progress) {
		fprintf(r->progress, "recording task '%s' (Ctrl-C to end)\n", r->wf.id);
		fflush(r->progress);
	}
}

static kn_step *add_step(struct rec *r, kn_step_verb verb)
{
	if (r->wf.n_steps == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		kn_step *s = realloc(r->wf.steps, cap * sizeof *s);
		if (!s)
			return NULL;
		r->wf.steps = s;
		r->cap = cap;
	}
	/* the step before is finished: no navigation since means it did not navigate */
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
	st->verb = verb;
	return st;
}

static void print_step(struct rec *r, const kn_step *st)
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

static void on_navigate(struct rec *r, const kn_event *ev)
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
static void take_held(struct rec *r, const kn_request *q)
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
	struct rec *r = ud;
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
	print_step(r, st);
}

/* Candidate key nodes from the demonstration, most telling first (the end state outranks the
 * way there): the answer, query parameters the run set (last value), values typed or chosen,
 * paths reached, elements clicked. */
static void propose(const struct rec *r, FILE *f)
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
		if ((st->verb == KN_STEP_TYPE || st->verb == KN_STEP_SELECT) && st->selector && st->value)
			fprintf(f, "  - element_value: { path: \"%s\", exact: \"%s\" }\n", st->selector, st->value);
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
		if (r->wf.steps[i].verb == KN_STEP_CLICK && r->wf.steps[i].selector)
			fprintf(f, "  - element_path: { exact: \"%s\" }\n", r->wf.steps[i].selector);
	json_decref(seen);
}

static int write_workflow(struct rec *r, const char *dir)
{
	kn_err derr = {0};
	if (kn_mkdirs(dir, 0755, &derr) != 0) { /* --out is created when missing */
		fprintf(stderr, "keynode record: %s\n", derr.msg);
		return KN_EXIT_USAGE;
	}
	char path[4096], when[KN_TIME_MAX];
	if (strchr(r->wf.id, '/') || r->wf.id[0] == '.' ||
	    (size_t)snprintf(path, sizeof path, "%s/%s.yaml", dir, r->wf.id) >= sizeof path) {
		fprintf(stderr, "keynode record: task id '%s' cannot be a file name\n", r->wf.id);
		return KN_EXIT_USAGE;
	}
	kn_time_rfc3339(when, time(NULL));
	FILE *f = fopen(path, "w");
	int bad = !f || kn_workflow_write(f, &r->wf, when) != 0;
	if (f && fclose(f) != 0)
		bad = 1;
	if (bad) {
		fprintf(stderr, "keynode record: cannot write %s\n", path);
		return KN_EXIT_USAGE;
	}
	kn_taskset *check = NULL;
	kn_err err = {0};
	if (kn_workflow_load_file(&check, path, &err) != 0) { /* what was written must load */
		fprintf(stderr, "keynode record: %s\n", err.msg);
		return KN_EXIT_USAGE;
	}
	kn_taskset_free(check);
	printf("%s: %zu steps\n", path, r->wf.n_steps);
	return KN_EXIT_OK;
}

int kn_cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		KN_CLI_TARGET_LONGOPTS,
		{"propose", no_argument, NULL, 'p'},       {"until", required_argument, NULL, 'u'},
		{"viewport", required_argument, NULL, 'V'}, {"quiet", no_argument, NULL, 'q'},
		{"answer", required_argument, NULL, 'a'},  {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	kn_cli_target tg = {0};
	const char *answer = NULL;
	int c, want_propose = 0, vw = 0, vh = 0;
	double idle_s = 0;
	/* "finished" is checked here, not by the monitor: the step that reached the last key node
	 * still has its navigation (its postcondition) to come */
	kn_monitor_opts mo = {.eval = {.step_limit = -1}, .on_event_clear = 1};
	kn_until until = {0};
	FILE *progress = stdout;
	while ((c = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
		switch (c) {
		case 'p': want_propose = 1; break;
		case 'a': answer = optarg; break;
		case 'q': progress = NULL; break;
		case 'u':
			if (kn_until_parse(&until, optarg) != 0)
				return kn_cli_usage_error("record", "--until must be finished, idle:S or steps:N");
			break;
		case 'V':
			if (strcmp(optarg, "window") == 0)
				vw = vh = -1;
			else if (kn_cli_parse_viewport(&vw, &vh, optarg))
				return kn_cli_usage_error("record", "--viewport must be WIDTHxHEIGHT, e.g. 1280x800, or window");
			break;
		case 'h': fputs(help, stdout); return KN_EXIT_OK;
		default:
			if (kn_cli_target_option(&tg, c, optarg))
				break;
			return kn_cli_usage_error("record", "bad option");
		}
	}
	const char *browser = tg.browser, *tasks = tg.tasks, *task_id = tg.task_id, *out = tg.out;
	if (!browser || !tasks || !task_id)
		return kn_cli_usage_error("record", "--browser, --tasks and --task are required");
	if (vw == 0) /* recorded workflows carry one documented viewport, whatever the browser's window */
		vw = KN_VIEWPORT_DEFAULT_W, vh = KN_VIEWPORT_DEFAULT_H;
	mo.viewport_w = vw > 0 ? vw : 0;
	mo.viewport_h = vh > 0 ? vh : 0;
	idle_s = until.idle_s; /* counted here from the first event, not from attaching */
	mo.until_steps = until.steps; /* "finished" is always on */
	if (optind < argc)
		return kn_cli_usage_error("record", "unexpected argument '%s'", argv[optind]);
	kn_err err = {0};
	kn_taskset *set = NULL;
	int r = kn_taskset_load_file(&set, tasks, NULL, &err);
	if (r) {
		fprintf(stderr, "keynode record: %s\n", err.msg);
		return r == KN_ENOTFOUND || r == KN_EIO ? KN_EXIT_USAGE : KN_EXIT_FAIL;
	}
	const kn_task *task = kn_taskset_find(set, task_id);
	char dir[4096];
	if (out)
		snprintf(dir, sizeof dir, "%s", out);
	else
		kn_workflows_default_dir(dir, sizeof dir, tasks);
	int rc = KN_EXIT_USAGE;
	char *ws = NULL;
	kn_cdp_loop *loop = NULL;
	struct rec rec = {.progress = progress, .urls = json_array()};
	if (!task) {
		fprintf(stderr, "keynode record: task '%s' is not in %s\n", task_id, tasks);
		goto done;
	}
	rec.wf.id = strdup(task->id);
	if (kn_cdp_discover(&ws, browser, 5000, &err) != 0 || kn_cdp_loop_new(&loop, &err) != 0) {
		fprintf(stderr, "keynode record: browser unreachable: %s\n", err.msg);
		goto done;
	}
	mo.task = task;
	mo.on_event = on_event;
	mo.on_ready = on_ready;
	mo.on_payload = on_payload;
	mo.ud = &rec;
	if (kn_monitor_start(&rec.m, loop, ws, &mo, &err) != 0) {
		fprintf(stderr, "keynode record: %s\n", err.msg);
		goto done;
	}
	signal(SIGINT, on_sigint);
	signal(SIGTERM, on_sigint);
	double done_at = 0;
	while (!kn_monitor_ended(rec.m) && !interrupted) {
		kn_cdp_loop_run_for(loop, 100);
		if (!done_at && kn_eval_completed(kn_monitor_eval(rec.m))) {
			done_at = kn_time_mono_ms();
			if (progress)
				fprintf(progress, "every key node reached\n");
		}
		if (done_at && kn_time_mono_ms() - done_at > 1500) /* let the last step settle */
			break;
		if (idle_s > 0 && rec.last_event > 0 && kn_time_mono_ms() - rec.last_event > idle_s * 1000)
			break;
	}
	if (!kn_monitor_ended(rec.m))
		kn_monitor_stop(rec.m, KN_END_STOPPED);
	for (int waited = 0; (!kn_monitor_ended(rec.m) || rec.pending > 0) && waited < 3000; waited += 20)
		kn_cdp_loop_run_for(loop, 20);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (answer) {
		kn_step *st = add_step(&rec, KN_STEP_ANSWER);
		if (st)
			st->value = strdup(answer);
	}
	if (rec.wf.n_steps) { /* the last step's postcondition, when it did not navigate */
		kn_step *last = &rec.wf.steps[rec.wf.n_steps - 1];
		if (!last->navigated && last->verb != KN_STEP_ANSWER) {
			last->navigated = 2;
			last->expect_url = dup_or_null(rec.cur_url);
		}
	}
	if (progress)
		fprintf(progress, "recording ended (%s): %zu steps\n",
		        kn_monitor_end_reason(rec.m) ? kn_monitor_end_reason(rec.m) : "stopped", rec.wf.n_steps);
	if (rec.wf.n_steps == 0) {
		fprintf(stderr, "keynode record: nothing was recorded\n");
		rc = KN_EXIT_FAIL;
		goto done;
	}
	rec.wf.viewport_w = vw > 0 ? vw : rec.viewport_w >= 100 ? rec.viewport_w : 0;
	rec.wf.viewport_h = vh > 0 ? vh : rec.viewport_h >= 100 ? rec.viewport_h : 0;
	if (vw > 0 && rec.viewport_w >= 100 && (rec.viewport_w != vw || rec.viewport_h != vh))
		fprintf(stderr, "keynode record: warning: the page's viewport was %dx%d, not the %dx%d written\n",
		        rec.viewport_w, rec.viewport_h, vw, vh);
	if (want_propose)
		propose(&rec, stdout);
	rc = write_workflow(&rec, dir);
done:
	kn_monitor_free(rec.m);
	kn_cdp_loop_free(loop);
	kn_task_clear(&rec.wf);
	json_decref(rec.urls);
	json_decref(rec.hints);
	free(rec.cur_url);
	free(ws);
	kn_taskset_free(set);
	return rc;
}
