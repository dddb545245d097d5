/* test_workflow.c — workflow files (keynode/workflow.h): loading a recorded workflow with its
 * fingerprint and postconditions, errors with file:line:col for malformed files and invalid
 * selectors, the selector syntax check on valid and invalid CSS/XPath, attaching a folder to a
 * task set (unknown task id, misnamed file, the default folder), and the writer's round trip. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "keynode/request.h"
#include "keynode/workflow.h"

static const char good[] =
	"workflow: 1\n"
	"task: \"t1\"\n"
	"recorded_at: \"2026-11-24T21:00:00Z\"\n"
	"viewport: \"1024x700\"\n"
	"start_url: \"http://127.0.0.1:1/a.html\"\n"
	"steps:\n"
	"  - goto: \"http://127.0.0.1:1/a.html\"\n"
	"  - click: { selector: \"#list > li:nth-of-type(2) > a\", text: \"Edit\", href: \"e.html\",\n"
	"             tag: a, classes: \"btn big\", dom_path: \"html > body > ul > li > a\", test_id: ed }\n"
	"    after: { url: \"http://127.0.0.1:1/e.html\", navigated: true, error_page: false,\n"
	"             failed_requests: \"/api/track /api/x\" }\n"
	"  - type: { selector: \"input[name='q']\", value: \"tent\", frame: \"iframe#f\" }\n"
	"    after: { navigated: false, value: \"tent\" }\n"
	"  - back\n";

static kn_taskset *load(const char *text, int want_rc, const char *want_msg)
{
	kn_taskset *set = NULL;
	kn_err err = {0};
	int rc = kn_workflow_load_buffer(&set, text, strlen(text), "w.yaml", &err);
	if (rc != want_rc || (want_msg && !strstr(err.msg, want_msg)))
		fail_msg("rc %d (want %d), message '%s' (want '%s')", rc, want_rc, err.msg,
		         want_msg ? want_msg : "");
	return set;
}

static void test_load(void **state)
{
	(void)state;
	kn_taskset *set = load(good, 0, NULL);
	assert_int_equal(set->n_tasks, 1);
	const kn_task *t = &set->tasks[0];
	assert_string_equal(t->id, "t1");
	assert_int_equal(t->viewport_w, 1024);
	assert_int_equal(t->viewport_h, 700);
	assert_string_equal(t->start_url, "http://127.0.0.1:1/a.html");
	assert_int_equal(t->n_steps, 4);
	const kn_step *c = &t->steps[1];
	assert_int_equal(c->verb, KN_STEP_CLICK);
	assert_string_equal(c->text, "Edit");
	assert_string_equal(c->hint_href, "e.html");
	assert_string_equal(c->tag, "a");
	assert_string_equal(c->classes, "btn big");
	assert_string_equal(c->hint_test_id, "ed");
	assert_string_equal(c->expect_url, "http://127.0.0.1:1/e.html");
	assert_int_equal(c->navigated, 1);
	assert_int_equal(c->error_page, 2);
	assert_string_equal(c->failed_requests, "/api/track /api/x");
	assert_int_equal(c->line, 8);
	assert_int_equal(c->column, 5);
	const kn_step *ty = &t->steps[2];
	assert_string_equal(ty->frame, "iframe#f");
	assert_int_equal(ty->navigated, 2);
	assert_int_equal(ty->error_page, 0); /* not recorded */
	assert_null(ty->failed_requests);
	assert_string_equal(ty->expect_value, "tent");
	assert_int_equal(t->steps[3].verb, KN_STEP_BACK);
	kn_taskset_free(set);
}

static void test_malformed(void **state)
{
	(void)state;
	load("", KN_EINVAL, "w.yaml:1:1:");
	load("workflow: 2\ntask: t\nsteps: [back]\n", KN_EINVAL, "w.yaml:1:11: workflow: 'workflow' must be 1");
	load("task: t\n", KN_EINVAL, "missing 'steps'");
	load("steps: [back]\n", KN_EINVAL, "missing 'task'");
	load("task: t\nsteps: []\n", KN_EINVAL, "missing 'steps'");
	load("task: t\nviewport: 99x5000\nsteps: [back]\n", KN_EINVAL, "w.yaml:2:11:");
	load("task: t\nsteps: [back]\nintent: x\n", KN_EINVAL, "w.yaml:3:1: workflow of 't': unknown key 'intent'");
	load("task: t\ntask: u\nsteps: [back]\n", KN_EINVAL, "w.yaml:2:1: workflow of 't': duplicate key 'task'");
	load("task: t\nsteps:\n  - click: { selector: '#a' }\n    after: { url: rel.html }\n",
	     KN_EINVAL, "w.yaml:4:19:");
	load("task: t\nsteps:\n  - click: { selector: '#a' }\n    after: { navigated: 1 }\n",
	     KN_EINVAL, "'navigated' must be true or false");
	load("task: t\nsteps:\n  - click: { selector: '#a' }\n    after: { url: 'http://x/' }\n"
	     "    after: {}\n", KN_EINVAL, "duplicate key 'after'");
	load("task: t\nsteps:\n  - click: { selector: '#a', colour: red }\n", KN_EINVAL,
	     "unknown key 'colour' in 'click'");
	/* a secret step names an environment variable's suffix, and has no value beside it */
	load("task: t\nsteps:\n  - type: { selector: '#cc', secret: 'CC NUM' }\n", KN_EINVAL,
	     "w.yaml:3:30: workflow of 't' step 1: 'secret' must be a name of letters, digits and '_'");
	load("task: t\nsteps:\n  - type: { selector: '#cc', secret: CC, value: '4' }\n", KN_EINVAL,
	     "w.yaml:3:11: workflow of 't' step 1: 'type' has a value or a secret, not both");
	load("task: t\nsteps:\n  - type: { selector: '#cc' }\n", KN_EINVAL, "'type' needs a value (or a secret)");
	load("task: t\nsteps:\n  - click: { selector: '#a', secret: X }\n", KN_EINVAL,
	     "unknown key 'secret' in 'click'");
	load("task: t\nsteps:\n  - click: { selector: '#a' }\n    after: { held: { method: POST, colour: red } }\n",
	     KN_EINVAL, "w.yaml:4:36:");
	/* an invalid selector: the step's position and what is wrong */
	load("task: t\nsteps:\n  - back\n  - click: { selector: 'a[href' }\n", KN_EINVAL,
	     "w.yaml:4:5: step 2: invalid CSS selector: unclosed '[' at character 2");
	load("task: t\nsteps:\n  - click: { selector: \"//a[@id='x'\" }\n", KN_EINVAL,
	     "w.yaml:3:5: step 1: invalid XPath selector: unclosed '['");
}

static void check_sel(const char *sel, int ok)
{
	kn_err err = {0};
	int rc = kn_selector_check(sel, &err);
	if ((rc == 0) != ok)
		fail_msg("selector '%s': rc %d (%s), want %s", sel, rc, err.msg, ok ? "valid" : "invalid");
}

static void test_selectors(void **state)
{
	(void)state;
	static const char *const valid[] = {
		"#a", "a", "*", "div.x.y", "#list > li:nth-of-type(2) > a", "a[href^=\"/f\"]",
		"input[name='q' i]", "a:not(.b, .c)", "ul li + li ~ li", "a, b", "[data-testid=buy]",
		"button:has(> span)", "p::before", "#\\31 23", "-x", "a[x=\"]\"]",
		"//a[@id='x']", "(//a)[2]", "xpath=//div[contains(., 'a]')]", "/html/body", "td:nth-child(2n+1)", "#card-frame >> #pay-now", "x-app >> button.buy",
	};
	static const char *const invalid[] = {
		"", "a[href", "#", ".", "a >", "> a", "a,", ",a", "a >> ", ">> a", "#f >> a[", "a[=x]", "a[x=]", "a:",
		"a:not(.b", "a[x='y]", "a b)", "//a[", "(//a", "//a]", "///a", "//a[]", "//a/", "xpath=",
		"//a[@x=\"y]", "a{}", "a$", "svg|a",
	};
	for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++)
		check_sel(valid[i], 1);
	for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
		check_sel(invalid[i], 0);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

struct errs {
	int n;
	char last[512];
};

static void on_error(void *ud, const char *path, const kn_err *err)
{
	(void)path;
	struct errs *e = ud;
	e->n++;
	snprintf(e->last, sizeof e->last, "%s", err->msg);
}

static void test_attach(void **state)
{
	(void)state;
	char dir[] = "/tmp/kn_wf_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char tasks[256], wdir[256], p[512];
	snprintf(tasks, sizeof tasks, "%s/tasks.yaml", dir);
	snprintf(wdir, sizeof wdir, "%s/workflows", dir);
	write_file(tasks, "tasks:\n"
	                  "  - id: t1\n    intent: a\n    key_nodes: [{url: {include: a}}]\n"
	                  "    steps: [{goto: 'http://127.0.0.1:1/inline'}]\n"
	                  "  - id: t2\n    intent: b\n    key_nodes: [{url: {include: b}}]\n");
	char def[512];
	assert_int_equal(kn_workflows_default_dir(def, sizeof def, tasks), 0);
	assert_int_equal(mkdir(wdir, 0700), 0);
	assert_int_equal(kn_workflows_default_dir(def, sizeof def, tasks), 1);
	assert_string_equal(def, wdir);

	snprintf(p, sizeof p, "%s/t1.yaml", wdir);
	write_file(p, good);
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_equal(kn_taskset_load_file(&set, tasks, NULL, &err), 0);
	size_t n = 0;
	assert_int_equal(kn_workflows_attach(set, wdir, NULL, NULL, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(set->tasks[0].n_steps, 4); /* the workflow replaced the inline steps */
	assert_int_equal(set->tasks[0].viewport_w, 1024);
	assert_string_equal(set->tasks[0].workflow_file, p);
	assert_int_equal(set->tasks[1].n_steps, 0);

	/* a workflow for an unknown task, and one under the wrong name: both reported, t1 still attached */
	snprintf(p, sizeof p, "%s/zz.yaml", wdir);
	write_file(p, "\n\ntask: nope\nsteps: [back]\n");
	snprintf(p, sizeof p, "%s/other.yml", wdir);
	write_file(p, "task: t2\nsteps: [back]\n");
	kn_taskset_free(set);
	assert_int_equal(kn_taskset_load_file(&set, tasks, NULL, &err), 0);
	struct errs e = {0};
	assert_int_equal(kn_workflows_attach(set, wdir, on_error, &e, &n, &err), KN_EINVAL);
	assert_int_equal(e.n, 2);
	assert_int_equal(n, 1);
	assert_non_null(strstr(err.msg, "other.yml:1: workflow of task 't2' must be named 't2.yaml'"));
	assert_non_null(strstr(e.last, "zz.yaml:3: unknown task id 'nope'"));
	assert_int_equal(set->tasks[0].n_steps, 4);
	/* without a callback the first error stops */
	kn_taskset_free(set);
	assert_int_equal(kn_taskset_load_file(&set, tasks, NULL, &err), 0);
	assert_int_equal(kn_workflows_attach(set, wdir, NULL, NULL, &n, &err), KN_EINVAL);
	kn_taskset_free(set);
	assert_int_equal(kn_workflows_attach(NULL, "/nonexistent/kn", NULL, NULL, &n, &err), KN_ENOTFOUND);

	/* one task at a time (worker and serve --workflows): its own file only, none is no error */
	assert_int_equal(kn_taskset_load_file(&set, tasks, NULL, &err), 0);
	int attached = -1;
	assert_int_equal(kn_workflow_attach_task(&set->tasks[0], wdir, &attached, &err), 0);
	assert_int_equal(attached, 1);
	assert_int_equal(set->tasks[0].n_steps, 4);
	assert_int_equal(kn_workflow_attach_task(&set->tasks[1], wdir, &attached, &err), 0);
	assert_int_equal(attached, 0); /* t2's workflow is other.yml, not t2.yaml */
	assert_int_equal(set->tasks[1].n_steps, 0);
	kn_taskset_free(set);

	unlink(p);
	snprintf(p, sizeof p, "%s/zz.yaml", wdir);
	unlink(p);
	snprintf(p, sizeof p, "%s/t1.yaml", wdir);
	unlink(p);
	rmdir(wdir);
	unlink(tasks);
	rmdir(dir);
}

static void test_write_roundtrip(void **state)
{
	(void)state;
	kn_taskset *set = load(good, 0, NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(kn_workflow_write(f, &set->tasks[0], "2026-11-24T21:00:00Z"), 0);
	fclose(f);
	kn_taskset *again = load(buf, 0, NULL);
	const kn_task *a = &set->tasks[0], *b = &again->tasks[0];
	assert_string_equal(b->id, a->id);
	assert_int_equal(b->n_steps, a->n_steps);
	assert_int_equal(b->viewport_w, 1024);
	for (size_t i = 0; i < a->n_steps; i++) {
		assert_int_equal(a->steps[i].verb, b->steps[i].verb);
		assert_int_equal(a->steps[i].navigated, b->steps[i].navigated);
		assert_int_equal(a->steps[i].error_page, b->steps[i].error_page);
	}
	assert_string_equal(b->steps[1].failed_requests, "/api/track /api/x");
	assert_string_equal(b->steps[1].dom_path, a->steps[1].dom_path);
	assert_string_equal(b->steps[1].expect_url, a->steps[1].expect_url);
	assert_string_equal(b->steps[2].expect_value, "tent");
	assert_string_equal(b->steps[2].frame, "iframe#f");
	kn_taskset_free(again);
	free(buf);
	/* text that needs quoting survives */
	char sel[] = "a[title=\"x\\\\y\"]", text[] = "line\none \"q\" \x01", id[] = "t: #1";
	kn_step st = {.verb = KN_STEP_CLICK, .selector = sel, .text = text};
	kn_task t = {.id = id, .steps = &st, .n_steps = 1};
	f = open_memstream(&buf, &len);
	assert_int_equal(kn_workflow_write(f, &t, NULL), 0);
	fclose(f);
	again = load(buf, 0, NULL);
	assert_string_equal(again->tasks[0].id, "t: #1");
	assert_string_equal(again->tasks[0].steps[0].selector, st.selector);
	assert_string_equal(again->tasks[0].steps[0].text, st.text);
	assert_int_equal(again->tasks[0].viewport_w, KN_VIEWPORT_DEFAULT_W);
	kn_taskset_free(again);
	free(buf);
	/* dialog steps: the answer and a prompt's text survive; without text, none */
	char accept[] = "accept", dismiss[] = "dismiss", trip[] = "trip \"x\"";
	kn_step ds[2] = {{.verb = KN_STEP_DIALOG, .value = accept, .text = trip}, {.verb = KN_STEP_DIALOG, .value = dismiss}};
	t.steps = ds;
	t.n_steps = 2;
	f = open_memstream(&buf, &len);
	assert_int_equal(kn_workflow_write(f, &t, NULL), 0);
	fclose(f);
	again = load(buf, 0, NULL);
	assert_int_equal(again->tasks[0].n_steps, 2);
	assert_int_equal(again->tasks[0].steps[0].verb, KN_STEP_DIALOG);
	assert_string_equal(again->tasks[0].steps[0].value, "accept");
	assert_string_equal(again->tasks[0].steps[0].text, "trip \"x\"");
	assert_string_equal(again->tasks[0].steps[1].value, "dismiss");
	assert_null(again->tasks[0].steps[1].text);
	kn_taskset_free(again);
	free(buf);
	/* scroll steps: a recorded distance is written and read back; without one, the bare word */
	char down[] = "down", up[] = "up";
	kn_step ss[2] = {{.verb = KN_STEP_SCROLL, .value = down, .scroll_px = 1600}, {.verb = KN_STEP_SCROLL, .value = up}};
	t.steps = ss;
	f = open_memstream(&buf, &len);
	assert_int_equal(kn_workflow_write(f, &t, NULL), 0);
	fclose(f);
	assert_non_null(strstr(buf, "  - scroll: { direction: \"down\", pixels: 1600 }\n  - scroll: \"up\"\n"));
	again = load(buf, 0, NULL);
	assert_int_equal(again->tasks[0].n_steps, 2);
	assert_string_equal(again->tasks[0].steps[0].value, "down");
	assert_int_equal(again->tasks[0].steps[0].scroll_px, 1600);
	assert_string_equal(again->tasks[0].steps[1].value, "up");
	assert_int_equal(again->tasks[0].steps[1].scroll_px, 0);
	kn_taskset_free(again);
	free(buf);
	kn_taskset_free(set);
	/* a secret step and a held request survive the writer, the secret's value unwritten */
	set = load("task: t\nsteps:\n  - type: { selector: '#cc-number', secret: CC_NUMBER }\n"
	           "  - click: { selector: '#buy' }\n"
	           "    after: { navigated: false, held: { method: POST, url: { include: '127.0.0.1:1/api/orders' },\n"
	           "             body: { qty: { exact: '2' }, items.0.sku: { exact: 'L \"1\"' } } } }\n", 0, NULL);
	f = open_memstream(&buf, &len);
	assert_int_equal(kn_workflow_write(f, &set->tasks[0], NULL), 0);
	fclose(f);
	assert_non_null(strstr(buf, "  - type: { selector: \"#cc-number\", secret: \"CC_NUMBER\" }\n"));
	again = load(buf, 0, NULL);
	const kn_step *ty = &again->tasks[0].steps[0], *cl = &again->tasks[0].steps[1];
	assert_string_equal(ty->secret, "CC_NUMBER");
	assert_null(ty->value);
	assert_non_null(cl->held);
	assert_string_equal(cl->held->method, "POST");
	assert_int_equal(cl->held->url->matcher, KN_MATCH_INCLUDE);
	assert_string_equal(cl->held->url->expect, "127.0.0.1:1/api/orders");
	assert_int_equal(cl->held->n_fields, 2);
	assert_string_equal(cl->held->fields[1].key, "items.0.sku");
	assert_string_equal(cl->held->fields[1].expect, "L \"1\"");
	assert_int_equal(cl->navigated, 2);
	kn_taskset_free(again);
	free(buf);
	kn_taskset_free(set);
}

/* kn_workflow_apply: a loaded workflow (as the worker's stored ones) replaces a task's steps; another
 * task's workflow is refused and the task left as it was. */
static void test_apply(void **state)
{
	(void)state;
	const char *tasks = "tasks:\n  - id: t1\n    intent: a\n    key_nodes: [{url: {include: a}}]\n"
	                    "    steps: [{goto: 'http://127.0.0.1:1/inline'}]\n"
	                    "  - id: t2\n    intent: b\n    key_nodes: [{url: {include: b}}]\n";
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_equal(kn_taskset_load_buffer(&set, tasks, strlen(tasks), "t.yaml", NULL, &err), 0);
	kn_taskset *wf = load(good, 0, NULL);
	assert_non_null(wf);
	assert_int_equal(kn_workflow_apply(&set->tasks[1], &wf->tasks[0], "stored workflow version 2", &err), KN_EINVAL);
	assert_non_null(strstr(err.msg, "is for task 't1', not 't2'"));
	assert_int_equal(set->tasks[1].n_steps, 0);
	assert_int_equal(kn_workflow_apply(&set->tasks[0], &wf->tasks[0], "stored workflow version 2", &err), 0);
	assert_int_equal(set->tasks[0].n_steps, 4); /* the workflow's steps replaced the inline one */
	assert_int_equal(set->tasks[0].viewport_w, 1024);
	assert_string_equal(set->tasks[0].workflow_file, "stored workflow version 2");
	assert_int_equal(wf->tasks[0].n_steps, 0); /* moved out */
	kn_taskset_free(wf);
	kn_taskset_free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load),         cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_selectors),    cmocka_unit_test(test_attach),
		cmocka_unit_test(test_write_roundtrip), cmocka_unit_test(test_apply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
