/* test_trace.c — the run trace's pure parts (services/trace, keynode/evidence.h): the evaluator's
 * evidence of each key-node check (input seen, why, score) as a trace records it; the index reader
 * refusing malformed input with the member named; the per-node paragraphs ("k3 not reached: at
 * step 4 the selector `#size` resolved to nothing"); the ustar archive of a trace folder; the requests a
 * trace lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "keynode/evidence.h"
#include "keynode/request.h"
#include "trace.h"

static const char task_yaml[] =
	"tasks:\n"
	"  - id: t\n"
	"    intent: buy\n"
	"    start_url: http://127.0.0.1:1/shop/\n"
	"    key_nodes:\n"
	"      - id: q\n"
	"        url: { key: q, include: shoes }\n"
	"      - id: size\n"
	"        element_value: { path: \"#size\", exact: \"9\" }\n"
	"      - id: add\n"
	"        element_path: { exact: \"#add\" }\n";

struct rec {
	char lines[32][256];
	int n;
};

static void on_ev(void *ud, const kn_evidence *x)
{
	struct rec *r = ud;
	if (r->n < 32)
		snprintf(r->lines[r->n++], 256, "%s step=%d checked=%d input=%s score=%g why=%s", x->kn->id, x->step,
		         x->checked, x->input ? x->input : "(null)", x->score, x->why);
}

static int has(const struct rec *r, const char *want)
{
	for (int i = 0; i < r->n; i++)
		if (strcmp(r->lines[i], want) == 0)
			return 1;
	for (int i = 0; i < r->n; i++)
		print_message("  got: %s\n", r->lines[i]);
	return 0;
}

/* An evaluator of task_yaml's task reporting its evidence into r; *set is the caller's. */
static kn_eval *new_eval(kn_taskset **set, struct rec *r)
{
	kn_err err;
	assert_int_equal(kn_taskset_load_buffer(set, task_yaml, sizeof task_yaml - 1, "t.yaml", NULL, &err), 0);
	kn_eval *ev = NULL;
	assert_int_equal(kn_eval_new(&ev, kn_taskset_find(*set, "t"), NULL), 0);
	kn_eval_set_evidence(ev, on_ev, r);
	return ev;
}

static void test_evidence(void **state)
{
	(void)state;
	kn_taskset *set = NULL;
	kn_err err;
	struct rec r = {0};
	kn_eval *ev = new_eval(&set, &r);
	kn_event nav = {.type = KN_EV_NAVIGATE, .how = "goto", .url = "http://h/shop/", .tab = "T1", .trusted = -1};
	assert_true(kn_eval_feed(ev, &nav, &err) >= 0);
	/* the URL has no q: checked, nothing to compare */
	assert_true(has(&r, "q step=1 checked=1 input=(null) score=0 why=the URL has no such query parameter"));
	kn_event sel = {.type = KN_EV_SELECT, .url = "http://h/shop/?q=red+shoes", .tab = "T1", .selector = "#colour",
	                .value = "9", .trusted = 1};
	const char *const none[] = {"x"};
	sel.matched = none, sel.n_matched = 1;
	r.n = 0;
	assert_true(kn_eval_feed(ev, &sel, &err) >= 0);
	/* the parameter value outlives its parse (it was freed before the evidence was read) */
	assert_true(has(&r, "q step=2 checked=1 input=red shoes score=1 why=the URL matched"));
	assert_true(has(&r, "size step=2 checked=0 input=(null) score=0 why=the acted-on element is not the node's element"));
	assert_true(has(&r, "add step=2 checked=1 input=#colour score=0 why=the acted-on element is not the node's element (live)"));
	const char *const sz[] = {"size"};
	sel.selector = "#size", sel.matched = sz;
	r.n = 0;
	assert_true(kn_eval_feed(ev, &sel, &err) >= 0);
	assert_true(has(&r, "size step=3 checked=1 input=9 score=1 why=the value matched"));
	kn_eval_free(ev);
	kn_taskset_free(set);
}

/* A drag is an action on an element for the evidence as for the evaluator: a drag that reaches an
 * element node is explained as a match, not as "not an action on an element" (the two once
 * disagreed), and a trace keeps an element node's unmatched check on a drag as on a click. */
static void test_evidence_drag(void **state)
{
	(void)state;
	kn_taskset *set = NULL;
	kn_err err;
	struct rec r = {0};
	kn_eval *ev = new_eval(&set, &r);
	kn_event drag = {.type = KN_EV_DRAG, .url = "http://h/shop/", .tab = "T1", .selector = "#add",
	                 .text = "Add", .value = "#cart", .trusted = 1};
	assert_true(kn_event_is_action(&drag));
	assert_true(kn_eval_feed(ev, &drag, &err) >= 0);
	assert_true(has(&r, "add step=1 checked=1 input=#add score=1 why=the selector matched (as text)"));
	assert_true(has(&r, "size step=1 checked=0 input=(null) score=0 why=the acted-on element is not the node's element"));
	kn_eval_free(ev);
	kn_taskset_free(set);
}

static const char good[] =
	"{\"trace\":1,\"kind\":\"run\",\"run\":\"r1\",\"task\":\"t\",\"status\":\"incomplete\",\"score\":0.5,"
	"\"answer\":\"<img src=x onerror=alert(1)>\","
	"\"key_nodes\":[{\"id\":\"k3\",\"target\":\"element_value\",\"matcher\":\"exact\",\"score\":0,"
	"\"reached_at_step\":null,\"selector\":\"#size\"},"
	"{\"id\":\"k1\",\"target\":\"url\",\"matcher\":\"include\",\"score\":1,\"reached_at_step\":1}],"
	"\"steps\":[{\"step\":1,\"type\":\"navigate\",\"screenshot\":\"shots/0001.jpg\",\"evidence\":["
	"{\"node\":\"k1\",\"checked\":true,\"input\":\"h/shop\",\"score\":1,\"why\":\"the URL matched\",\"matcher\":\"include\"}]},"
	"{\"step\":4,\"type\":\"click\",\"screenshot\":null,\"selectors\":[{\"node\":\"k3\",\"selector\":\"#size\",\"count\":0}],"
	"\"evidence\":[{\"node\":\"k3\",\"checked\":false,\"input\":null,\"score\":0,"
	"\"why\":\"the acted-on element is not the node's element\",\"matcher\":\"exact\"}]},"
	"{\"step\":5,\"type\":\"select\",\"screenshot\":null,\"evidence\":[{\"node\":\"k3\",\"checked\":true,"
	"\"input\":\"10\",\"score\":0,\"why\":\"the value did not match\",\"matcher\":\"exact\"}]},"
	"{\"step\":6,\"type\":\"click\",\"screenshot\":null,\"selectors\":[{\"node\":\"k3\",\"selector\":\"#size\",\"count\":0}]}]}";

static void test_summary(void **state)
{
	(void)state;
	json_t *idx = NULL;
	kn_err err;
	assert_int_equal(kn_trace_parse(&idx, good, sizeof good - 1, "index.json", &err), 0);
	assert_int_equal(kn_trace_summarise(idx), 0);
	json_t *kn = json_array_get(json_object_get(idx, "key_nodes"), 0);
	const char *s = json_string_value(json_object_get(kn, "summary"));
	assert_non_null(s);
	/* each fact once, with the steps it held at */
	assert_string_equal(s, "k3 not reached: at steps 4 and 6 the selector `#size` resolved to nothing; at step 4 "
	                       "the acted-on element is not the node's element; at step 5 the value did not match: "
	                       "exact saw `10` (score 0)");
	kn = json_array_get(json_object_get(idx, "key_nodes"), 1);
	assert_string_equal(json_string_value(json_object_get(kn, "summary")),
	                    "k1 reached at step 1: at step 1 the URL matched: include saw `h/shop` (score 1)");
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_int_equal(kn_trace_print(f, idx), 0);
	fclose(f);
	assert_non_null(strstr(out, "answer: <img src=x onerror=alert(1)>"));
	assert_non_null(strstr(out, "k3 not reached: at steps 4 and 6 the selector `#size` resolved to nothing"));
	free(out);
	json_decref(idx);
}

/* Malformed input: a clear error naming the member, never a crash. */
static void test_malformed(void **state)
{
	(void)state;
	static const struct {
		const char *doc, *want;
	} cases[] = {
		{"", "index.json:1:0:"},
		{"[1]", "index.json: not a JSON object"},
		{"{\"trace\":2}", "index.json: trace: version 2 is not 1"},
		{"{\"trace\":1,\"kind\":\"run\"}", "index.json: run: missing"},
		{"{\"trace\":1,\"kind\":\"run\",\"run\":\"r\",\"task\":\"t\",\"status\":\"s\",\"score\":\"1\"}",
		 "index.json: score: has the wrong type"},
		{"{\"trace\":1,\"kind\":\"run\",\"run\":\"r\",\"task\":\"t\",\"status\":\"s\",\"score\":1,\"answer\":null,"
		 "\"key_nodes\":[{\"id\":\"k\"}],\"steps\":[]}",
		 "index.json: key_nodes[0].target: missing"},
		{"{\"trace\":1,\"kind\":\"run\",\"run\":\"r\",\"task\":\"t\",\"status\":\"s\",\"score\":1,\"answer\":null,"
		 "\"key_nodes\":[],\"steps\":[{\"step\":1,\"type\":\"click\",\"screenshot\":\"../../etc/passwd\"}]}",
		 "index.json: steps[0].screenshot: not a file under shots/"},
		{"{\"trace\":1,\"kind\":\"run\",\"run\":\"r\",\"task\":\"t\",\"status\":\"s\",\"score\":1,\"answer\":null,"
		 "\"key_nodes\":[],\"steps\":[{\"step\":1,\"type\":\"click\",\"screenshot\":null,\"evidence\":[{\"node\":1}]}]}",
		 "index.json: steps[0].evidence[0].node: has the wrong type"},
		{"{\"trace\":1,\"kind\":\"run\",\"run\":\"r\",\"task\":\"t\",\"status\":\"s\",\"score\":1,\"answer\":null,"
		 "\"key_nodes\":[],\"steps\":[{\"step\":1,\"type\":\"click\",\"screenshot\":null,\"network\":{}}]}",
		 "index.json: steps[0].network: not an array"},
		{"{\"trace\":1,\"kind\":\"run\",\"run\":\"r\",\"task\":\"t\",\"status\":\"s\",\"score\":1,\"answer\":null,"
		 "\"key_nodes\":[],\"steps\":[{\"step\":1,\"type\":\"click\",\"screenshot\":null,\"events\":[{\"type\":\"x\"},2]}]}",
		 "index.json: steps[0].events[1]: not an object"},
		{"{\"trace\":1,\"kind\":\"run\",\"run\":\"r\",\"task\":\"t\",\"status\":\"s\",\"score\":1,\"answer\":null,"
		 "\"key_nodes\":[],\"steps\":[{\"step\":1,\"type\":\"click\",\"screenshot\":null,\"selectors\":[{\"node\":\"k\",\"selector\":\"a\"}]}]}",
		 "index.json: steps[0].selectors[0].count: missing"},
		{"{\"trace\":1,\"kind\":\"run\",\"run\":\"r\",\"task\":\"t\",\"status\":\"s\",\"score\":1,\"answer\":null,"
		 "\"key_nodes\":[],\"steps\":[3]}",
		 "index.json: steps[0]: not an object"},
		{"{\"trace\":1,\"trace\":1}", "index.json:1:18: duplicate object key near '\"trace\"'"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		json_t *idx = (json_t *)1;
		kn_err err = {0};
		int rc = kn_trace_parse(&idx, cases[i].doc, strlen(cases[i].doc), "index.json", &err);
		assert_true(rc < 0);
		assert_null(idx);
		if (strncmp(err.msg, cases[i].want, strlen(cases[i].want)) != 0) {
			print_message("case %zu: got \"%s\", want \"%s…\"\n", i, err.msg, cases[i].want);
			fail();
		}
	}
	json_t *idx = NULL;
	kn_err err;
	assert_int_equal(kn_trace_load(&idx, "/nonexistent/trace", &err), KN_ENOTFOUND);
	assert_non_null(strstr(err.msg, "/nonexistent/trace"));
}

/* The archive: index.json then the shots, each 512-aligned with a valid checksum; tar reads it. */
static void test_tar(void **state)
{
	(void)state;
	char dir[] = "/tmp/kn-test-trace-XXXXXX", p[256];
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof p, "%s/shots", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/index.json", dir);
	FILE *f = fopen(p, "w");
	fputs(good, f);
	fclose(f);
	snprintf(p, sizeof p, "%s/shots/0001.jpg", dir);
	f = fopen(p, "w");
	for (int i = 0; i < 1000; i++)
		fputc(i & 0xff, f);
	fclose(f);
	char tarp[300];
	snprintf(tarp, sizeof tarp, "%s.tar", dir);
	f = fopen(tarp, "wb");
	kn_err err;
	assert_int_equal(kn_trace_tar(f, dir, "trace", &err), 0);
	long size = ftell(f);
	fclose(f);
	assert_int_equal(size % 512, 0);
	/* directory header + index (header + data) + shot (header + 2 blocks) + 2 end blocks */
	long want = 512 + 512 + ((long)(sizeof good - 1) + 511) / 512 * 512 + 512 + 1024 + 1024;
	assert_int_equal(size, want);
	char cmd[700], line[256] = "";
	snprintf(cmd, sizeof cmd, "tar -tvf %s 2>&1", tarp);
	FILE *t = popen(cmd, "r");
	assert_non_null(t);
	int n = 0, saw_shot = 0;
	while (fgets(line, sizeof line, t)) {
		n++;
		saw_shot |= strstr(line, " 1000 ") && strstr(line, "trace/shots/0001.jpg");
	}
	assert_int_equal(pclose(t), 0);
	assert_int_equal(n, 3);
	assert_true(saw_shot);
	char rm[400];
	snprintf(rm, sizeof rm, "rm -rf %s %s", dir, tarp);
	assert_int_equal(system(rm), 0);
}

/* Requests: a request event a trace writes carries what was sent (redacted), held, and the
 * key nodes the monitor found it matched; `trace show` lists them with the step each is credited to. */
static void test_requests(void **state)
{
	(void)state;
	static const char yaml[] = "tasks:\n"
	                           "  - id: t\n"
	                           "    intent: order\n"
	                           "    key_nodes:\n"
	                           "      - id: order\n"
	                           "        request: { method: POST, url: { include: /api/orders } }\n";
	kn_taskset *set = NULL;
	kn_err err;
	assert_int_equal(kn_taskset_load_buffer(&set, yaml, sizeof yaml - 1, "t.yaml", NULL, &err), 0);
	const kn_task *task = kn_taskset_find(set, "t");
	kn_eval *ev = NULL;
	assert_int_equal(kn_eval_new(&ev, task, NULL), 0);
	char dir[] = "/tmp/kn-test-trace-XXXXXX";
	assert_non_null(mkdtemp(dir));
	kn_trace *t = NULL;
	kn_trace_opts o = {.mode = KN_TRACE_ON, .run_id = "r", .task = task};
	assert_int_equal(kn_trace_new(&t, dir, &o, &err), 0);
	kn_trace_bind_eval(t, ev);
	kn_event nav = {.type = KN_EV_NAVIGATE, .how = "goto", .url = "http://h/shop/", .tab = "T1", .trusted = -1};
	kn_event click = {.type = KN_EV_CLICK, .url = "http://h/shop/", .tab = "T1", .selector = "#buy", .trusted = 1};
	const kn_field fields[] = {{"item", "lamp"}, {"card.number", "[redacted]"}};
	kn_request held = {.method = "POST", .url = "http://h/api/orders", .fields = fields, .n_fields = 2, .held = 1};
	kn_request beacon = {.method = "POST", .url = "http://h/api/beacon"};
	const char *const ids[] = {"order"};
	kn_event rq = {.type = KN_EV_REQUEST, .url = "http://h/shop/", .tab = "T1", .trusted = -1, .request = &held,
	               .matched = ids, .n_matched = 1};
	kn_event rb = {.type = KN_EV_REQUEST, .url = "http://h/shop/", .tab = "T1", .trusted = -1, .request = &beacon};
	const kn_event *seq[] = {&nav, &click, &rq, &rb};
	for (size_t i = 0; i < 4; i++) {
		assert_true(kn_eval_feed(ev, seq[i], &err) >= 0);
		kn_trace_event(t, NULL, seq[i]);
	}
	int kept = 0;
	assert_int_equal(kn_trace_finish(t, ev, "finished", NULL, 0, &kept, &err), 0);
	assert_int_equal(kept, 1);
	kn_trace_free(t);
	json_t *idx = NULL;
	assert_int_equal(kn_trace_load(&idx, dir, &err), 0);
	json_t *rs = kn_trace_requests(idx);
	assert_int_equal(json_array_size(rs), 2);
	json_t *r0 = json_array_get(rs, 0);
	assert_int_equal(json_integer_value(json_object_get(r0, "step")), 2); /* credited to the click */
	assert_true(json_is_true(json_object_get(r0, "held")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(r0, "matched"), 0)), "order");
	json_decref(rs);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_int_equal(kn_trace_print(f, idx), 0);
	fclose(f);
	const char *want[] = {"  then request POST http://h/api/orders (held by keynode)\n",
	                      "\nrequests:\n"
	                      "  step 2  POST http://h/api/orders  HELD by keynode (never sent), matched order\n"
	                      "      item = \"lamp\"\n"
	                      "      card.number = \"[redacted]\"\n"
	                      "  step 2  POST http://h/api/beacon  sent, matched no key node\n",
	                      "order reached at step 2"};
	for (size_t i = 0; i < 3; i++)
		if (!strstr(out, want[i]))
			fail_msg("want \"%s\" in:\n%s", want[i], out);
	free(out);
	json_decref(idx);
	char rm[100];
	snprintf(rm, sizeof rm, "rm -rf %s", dir);
	assert_int_equal(system(rm), 0);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evidence),
		cmocka_unit_test(test_evidence_drag),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_tar),
		cmocka_unit_test(test_requests),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
