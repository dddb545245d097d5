/* test_request.c — request key nodes: the body parser (forms, multipart, JSON, text,
 * malformed bodies), the spec matcher with every URL and value matcher, the YAML and Mind2Web-Live
 * loaders and their errors, the `request` trajectory event, and the evaluator crediting a
 * request to the step that caused it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kn_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/eval.h"
#include "keynode/event.h"
#include "keynode/request.h"

/* The value of the first field called name, or NULL. */
static const char *field(const kn_body *b, const char *name)
{
	for (size_t i = 0; i < b->n; i++)
		if (strcmp(b->fields[i].name, name) == 0)
			return b->fields[i].value;
	return NULL;
}

static kn_body *parse(const char *ct, const char *body, size_t len)
{
	kn_body *b = NULL;
	assert_int_equal(kn_body_parse(&b, ct, body, len), 0);
	assert_non_null(b);
	return b;
}
#define PARSE(ct, lit) parse((ct), (lit), sizeof(lit) - 1)

static void test_body_form(void **state)
{
	(void)state;
	kn_body *b = PARSE("application/x-www-form-urlencoded; charset=UTF-8",
	                   "item=lamp&color=sky+blue&qty=2&note=%C3%A9t%C3%A9&empty=&flag&=x&q=%00");
	assert_string_equal(field(b, "item"), "lamp");
	assert_string_equal(field(b, "color"), "sky blue");
	assert_string_equal(field(b, "qty"), "2");
	assert_string_equal(field(b, "note"), "été");
	assert_string_equal(field(b, "empty"), "");
	assert_string_equal(field(b, "flag"), "");
	assert_string_equal(field(b, "q"), "%00");
	assert_int_equal(b->n, 7); /* "=x" has no name */
	kn_body_free(b);
}

static void test_body_json(void **state)
{
	(void)state;
	kn_body *b = PARSE("application/json", "{\"item\":\"lamp\",\"qty\":2,\"gift\":true,\"note\":null,"
	                                       "\"items\":[{\"sku\":\"A1\",\"qty\":2.5}],\"addr\":{\"zip\":\"10001\"}}");
	assert_string_equal(field(b, "item"), "lamp");
	assert_string_equal(field(b, "qty"), "2");
	assert_string_equal(field(b, "gift"), "true");
	assert_string_equal(field(b, "note"), "null");
	assert_string_equal(field(b, "items.0.sku"), "A1");
	assert_string_equal(field(b, "items.0.qty"), "2.5");
	assert_string_equal(field(b, "addr.zip"), "10001");
	kn_body_free(b);
	b = PARSE("application/vnd.api+json", "[1,\"x\"]");
	assert_string_equal(field(b, "0"), "1");
	assert_string_equal(field(b, "1"), "x");
	kn_body_free(b);
	b = PARSE("application/json", "42"); /* a scalar document is the body field */
	assert_string_equal(field(b, KN_BODY_TEXT_FIELD), "42");
	kn_body_free(b);
	b = PARSE("application/json", "{\"item\": "); /* not JSON: read as text */
	assert_string_equal(field(b, KN_BODY_TEXT_FIELD), "{\"item\": ");
	assert_int_equal(b->n, 1);
	kn_body_free(b);
}

static void test_body_multipart(void **state)
{
	(void)state;
	const char body[] = "--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nMy review\r\n"
	                    "--XyZ\r\nContent-Disposition: form-data; name=\"doc\"; filename=\"cv.pdf\"\r\n"
	                    "Content-Type: application/pdf\r\n\r\n%PDF\x00\x01\xff\r\n"
	                    "--XyZ\r\nContent-Disposition: form-data; name=stars\r\n\r\n5\r\n--XyZ--\r\n";
	kn_body *b = parse("multipart/form-data; boundary=XyZ", body, sizeof body - 1);
	assert_string_equal(field(b, "title"), "My review");
	assert_string_equal(field(b, "doc"), "cv.pdf");
	assert_string_equal(field(b, "doc.size"), "7");
	assert_string_equal(field(b, "stars"), "5");
	assert_int_equal(b->n, 4);
	kn_body_free(b);
	/* quoted boundary, no closing delimiter, a part without headers end */
	b = PARSE("multipart/form-data; boundary=\"a b\"", "--a b\r\nContent-Disposition: form-data; "
	                                                 "name=\"x\"\r\n\r\n1\r\n--a b\r\nbroken");
	assert_string_equal(field(b, "x"), "1");
	assert_int_equal(b->n, 1);
	kn_body_free(b);
	b = PARSE("multipart/form-data", "--x\r\n\r\n"); /* no boundary: text */
	assert_string_equal(field(b, KN_BODY_TEXT_FIELD), "--x\r\n\r\n");
	kn_body_free(b);
}

static void test_body_text_and_limits(void **state)
{
	(void)state;
	kn_body *b = parse("text/plain", "hi\0there\xff", 9);
	assert_string_equal(field(b, KN_BODY_TEXT_FIELD), "hi\xEF\xBF\xBDthere\xEF\xBF\xBD");
	kn_body_free(b);
	b = parse(NULL, NULL, 0);
	assert_int_equal(b->n, 0);
	kn_body_free(b);
	/* 3000 fields: the first KN_BODY_MAX_FIELDS kept */
	size_t cap = 3000 * 6 + 1, n = 0;
	char *s = malloc(cap);
	assert_non_null(s);
	for (int i = 0; i < 3000; i++)
		n += (size_t)snprintf(s + n, cap - n, "%s%03d=1", i ? "&" : "", i % 1000);
	b = parse("application/x-www-form-urlencoded", s, n);
	assert_int_equal(b->n, KN_BODY_MAX_FIELDS);
	kn_body_free(b);
	free(s);
}

static kn_request_spec *spec_of(const char *json)
{
	json_error_t je;
	json_t *j = json_loads(json, 0, &je);
	assert_non_null(j);
	kn_request_spec *s = NULL;
	kn_err err = {0};
	int rc = kn_request_spec_from_json(&s, j, &err);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	json_decref(j);
	return s;
}

static void test_match(void **state)
{
	(void)state;
	kn_body *b = PARSE("application/json", "{\"item\":\"lamp\",\"color\":\"blue\",\"qty\":2,"
	                                       "\"items\":[{\"qty\":3}],\"note\":\"a red running shoe\"}");
	kn_request req = {.method = "post", .url = "https://shop.test/api/orders?ref=mail&x=%C3%A9",
	                  .fields = b->fields, .n_fields = b->n};
	struct { const char *spec; int want; } cases[] = {
		{"{}", 1},
		{"{\"method\":\"POST\"}", 1},
		{"{\"method\":\"GET\"}", 0},
		{"{\"url\":{\"include\":\"/api/orders\"}}", 1},
		{"{\"url\":{\"include\":\"ref=mail\"}}", 0}, /* the include form drops the query */
		{"{\"url\":{\"exact\":\"https://shop.test/api/orders?ref=mail&x=é\"}}", 1},
		{"{\"url\":{\"regex\":\"^https://shop\\\\.test/api/orders\\\\?\"}}", 1},
		{"{\"url\":{\"exact\":\"mail\",\"key\":\"ref\"}}", 1},
		{"{\"url\":{\"exact\":\"é\",\"key\":\"x\"}}", 1},
		{"{\"url\":{\"exact\":\"mail\",\"key\":\"nope\"}}", 0},
		{"{\"body\":{\"item\":{\"exact\":\"lamp\"},\"color\":{\"exact\":\"blue\"},\"qty\":{\"exact\":\"2\"}}}", 1},
		{"{\"body\":{\"qty\":{\"exact\":\"3\"}}}", 0},
		{"{\"body\":{\"items.0.qty\":{\"exact\":\"3\"}}}", 1},
		{"{\"body\":{\"item\":{\"include\":\"am\"}}}", 1},
		{"{\"body\":{\"item\":{\"regex\":\"^l.mp$\"}}}", 1},
		{"{\"body\":{\"missing\":{\"include\":\"\"}}}", 0},
		{"{\"body\":{\"note\":{\"semantic\":\"Decide whether the content is about red running shoes\"}}}", 1},
		{"{\"body\":{\"note\":{\"semantic\":\"Decide whether the content is about blue sandals\"}}}", 0},
		{"{\"method\":\"POST\",\"url\":{\"include\":\"/api/orders\"},\"body\":{\"color\":{\"exact\":\"red\"}}}", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		kn_request_spec *s = spec_of(cases[i].spec);
		kn_err err = {0};
		int got = kn_request_match(s, &req, NULL, 0, &err);
		if (got != cases[i].want)
			print_error("case %zu %s: got %d\n", i, cases[i].spec, got);
		assert_int_equal(got, cases[i].want);
		kn_request_spec_free(s);
	}
	kn_body_free(b);
}

static void test_spec_json_errors(void **state)
{
	(void)state;
	struct { const char *json, *msg; } cases[] = {
		{"[]", "expected an object {method, url, body}"},
		{"{\"verb\":\"POST\"}", "verb: unknown member (expected method, url, body or match_all)"},
		{"{\"method\":\"PO ST\"}", "a method is a word such as POST"},
		{"{\"url\":{\"fuzzy\":\"x\"}}", "url.fuzzy: unknown matcher (expected exact, include, semantic or regex)"},
		{"{\"url\":{\"include\":\"a\",\"exact\":\"b\"}}", "url: more than one matcher"},
		{"{\"body\":{\"qty\":{\"exact\":2}}}", "body.qty.exact: write the value as a string (\"2\")"},
		{"{\"body\":{\"qty\":{\"regex\":\"(\"}}}", "body.qty: bad regex: invalid regex at offset 1: missing closing parenthesis"},
		{"{\"body\":[]}", "body: expected an object of field matchers"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *j = json_loads(cases[i].json, 0, NULL);
		kn_request_spec *s = NULL;
		kn_err err = {0};
		assert_int_equal(kn_request_spec_from_json(&s, j, &err), KN_EINVAL);
		assert_null(s);
		assert_string_equal(err.msg, cases[i].msg);
		json_decref(j);
	}
}

#define YAML_HEAD "id: shop-1\nintent: order a lamp\nkey_nodes:\n"

static void test_yaml(void **state)
{
	(void)state;
	const char y[] = YAML_HEAD
	    "  - url: { include: /cart }\n"
	    "  - id: order\n"
	    "    request: { method: post, url: { include: \"/api/orders\" },\n"
	    "               body: { item: { exact: lamp }, qty: { exact: \"2\" } } }\n"
	    "  - request: { url: { exact: \"mail\", key: ref } }\n";
	kn_taskset *set = NULL;
	kn_err err = {0};
	int rc = kn_task_load_yaml(&set, y, sizeof y - 1, "t.yaml", NULL, &err);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	const kn_keynode *kn = &set->tasks[0].keynodes[1];
	assert_int_equal(kn->target, KN_TARGET_REQUEST);
	assert_string_equal(kn->id, "order");
	assert_string_equal(kn->function, "request_match");
	assert_string_equal(kn->request->method, "POST");
	assert_int_equal(kn->request->n_fields, 2);
	assert_string_equal(kn->expect, "POST include '/api/orders' +2 fields");
	assert_string_equal(set->tasks[0].keynodes[2].request->url->key, "ref");
	kn_taskset_free(set);

	struct { const char *body, *msg; } bad[] = {
		{"  - request: { verb: POST }\n",
		 "t.yaml:4:16: task 'shop-1' key node 1: unknown key 'verb' in 'request' (expected method, url, body or match_all)"},
		{"  - request: { url: { fuzzy: a } }\n",
		 "t.yaml:4:23: task 'shop-1' key node 1: unknown matcher 'fuzzy' in 'url' (expected exact, "
		 "include, semantic or regex, and optionally key)"},
		{"  - request: { body: { qty: { exact: \"2\", include: \"2\" } } }\n",
		 "t.yaml:4:43: task 'shop-1' key node 1: body field 'qty' has two matchers (it has exactly one)"},
		{"  - request: { body: { qty: { regex: \"(\" } } }\n",
		 "t.yaml:4:29: task 'shop-1' key node 1: body field 'qty': bad regex: invalid regex at offset 1: "
		 "missing closing parenthesis"},
		{"  - request: { body: { qty: { key: a } } }\n",
		 "t.yaml:4:31: task 'shop-1' key node 1: unknown matcher 'key' in body field 'qty' (expected "
		 "exact, include, semantic or regex)"},
		{"  - request: { method: \"P T\" }\n",
		 "t.yaml:4:24: task 'shop-1' key node 1: a method is a word such as POST"},
		{"  - request: [POST]\n",
		 "t.yaml:4:14: task 'shop-1' key node 1: 'request' must be a mapping of method, url and body, "
		 "such as { method: POST, url: { include: \"/api/orders\" } }; found a list"},
		{"  - request: { body: { a: { exact: x }, a: { exact: y } } }\n",
		 "t.yaml:4:41: task 'shop-1' key node 1: duplicate body field 'a'"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char doc[512];
		snprintf(doc, sizeof doc, "%s%s", YAML_HEAD, bad[i].body);
		set = NULL;
		memset(&err, 0, sizeof err);
		assert_int_not_equal(kn_task_load_yaml(&set, doc, strlen(doc), "t.yaml", NULL, &err), 0);
		assert_null(set);
		assert_string_equal(err.msg, bad[i].msg);
	}
}

static void test_mind2web(void **state)
{
	(void)state;
	const char j[] = "[{\"index\":\"7\",\"task\":\"order\",\"evaluation\":[{\"match_function_name\":"
	                 "\"request_match\",\"content\":{\"reference_answer\":{\"method\":\"POST\","
	                 "\"url\":{\"include\":\"/api/orders\"},\"body\":{\"qty\":{\"exact\":\"2\"}}}}}]}]";
	kn_taskset *set = NULL;
	kn_err err = {0};
	int rc = kn_task_load_mind2web(&set, j, sizeof j - 1, "m.json", NULL, &err);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(set->tasks[0].keynodes[0].target, KN_TARGET_REQUEST);
	assert_string_equal(set->tasks[0].keynodes[0].request->fields[0].key, "qty");
	kn_taskset_free(set);
	const char bad[] = "[{\"index\":\"7\",\"task\":\"order\",\"evaluation\":[{\"match_function_name\":"
	                   "\"request_match\",\"content\":{\"reference_answer\":\"POST\"}}]}]";
	assert_int_equal(kn_task_load_mind2web(&set, bad, sizeof bad - 1, "m.json", NULL, &err), KN_EINVAL);
	assert_string_equal(err.msg, "m.json: [0].evaluation[0].content.reference_answer: expected an "
	                             "object {method, url, body}");
}

static void test_event_roundtrip(void **state)
{
	(void)state;
	kn_field h[] = {{"content-type", "application/json"}, {"cookie", "[redacted]"}};
	kn_field f[] = {{"item", "lamp"}, {"qty", "2"}, {"qty", "3"}};
	kn_request q = {.method = "POST", .url = "http://s/api/orders", .headers = h, .n_headers = 2,
	                .fields = f, .n_fields = 3, .held = 1};
	kn_event e = {.t = 1.5, .type = KN_EV_REQUEST, .tab = "t1", .url = "http://s/cart",
	              .trusted = -1, .request = &q};
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	assert_int_equal(kn_traj_write_event(mf, &e), 0);
	fclose(mf);
	assert_non_null(strstr(buf, "\"request\":{\"method\":\"POST\",\"url\":\"http://s/api/orders\","
	                            "\"headers\":{\"content-type\":\"application/json\",\"cookie\":"
	                            "\"[redacted]\"},\"fields\":[[\"item\",\"lamp\"],[\"qty\",\"2\"],"
	                            "[\"qty\",\"3\"]],\"held\":true}"));
	kn_event p;
	kn_err err = {0};
	assert_int_equal(kn_event_parse(&p, buf, len, &err), 0);
	assert_int_equal(p.type, KN_EV_REQUEST);
	assert_int_equal(kn_event_is_step(&p), 0);
	assert_string_equal(p.request->method, "POST");
	assert_int_equal(p.request->n_headers, 2);
	assert_int_equal(p.request->n_fields, 3);
	assert_string_equal(p.request->fields[2].value, "3");
	assert_int_equal(p.request->held, 1);
	kn_event_clear(&p);
	free(buf);
	const char *bad[] = {"{\"type\":\"request\"}", "{\"type\":\"click\",\"request\":{}}",
	                     "{\"type\":\"request\",\"request\":{\"method\":\"GET\",\"url\":\"u\","
	                     "\"fields\":[[\"a\"]]}}",
	                     "{\"type\":\"request\",\"request\":{\"method\":1,\"url\":\"u\"}}"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(kn_event_parse(&p, bad[i], strlen(bad[i]), &err), KN_EINVAL);
		kn_event_clear(&p);
	}
}

/* A click, then the request it sent: the node is reached at the click's step, which the request
 * credits; the request is no step. Both modes. */
static void test_eval_credits_step(void **state)
{
	(void)state;
	const char y[] = YAML_HEAD "  - url: { include: /never }\n"
	                 "  - request: { method: POST, body: { qty: { exact: \"2\" } } }\n";
	kn_taskset *set = NULL;
	assert_int_equal(kn_task_load_yaml(&set, y, sizeof y - 1, "t.yaml", NULL, NULL), 0);
	kn_field f[] = {{"qty", "1"}}, g[] = {{"qty", "2"}};
	kn_request r1 = {.method = "POST", .url = "http://s/api", .fields = f, .n_fields = 1};
	kn_request r2 = {.method = "POST", .url = "http://s/api", .fields = g, .n_fields = 1};
	for (int mode = 0; mode < 2; mode++) {
		kn_eval *ev = NULL;
		kn_eval_opts o = {.mode = mode ? KN_MODE_WEBCANVAS : KN_MODE_DEFAULT};
		assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &o), 0);
		kn_event e1 = {.type = KN_EV_NAVIGATE, .how = "goto", .url = "http://s/", .trusted = -1};
		kn_event e2 = {.type = KN_EV_CLICK, .url = "http://s/", .selector = "#buy", .trusted = -1};
		kn_event e3 = {.type = KN_EV_REQUEST, .url = "http://s/", .request = &r1, .trusted = -1};
		kn_event e4 = {.type = KN_EV_REQUEST, .url = "http://s/", .request = &r2, .trusted = -1};
		assert_int_equal(kn_eval_feed(ev, &e1, NULL), 0);
		assert_int_equal(kn_eval_feed(ev, &e2, NULL), 0);
		assert_int_equal(kn_eval_feed(ev, &e3, NULL), 0);
		assert_int_equal(kn_eval_feed(ev, &e4, NULL), 1);
		assert_int_equal(kn_eval_steps(ev), 2);
		assert_int_equal(kn_eval_node(ev, 1)->reached_at_step, 2);
		size_t n = 0;
		const double *sc = kn_eval_step_scores(ev, &n);
		assert_int_equal(n, 2);
		assert_double_equal(sc[1], 0.5, 1e-9);
		assert_double_equal(sc[0], 0.0, 1e-9);
		kn_eval_free(ev);
	}
	kn_taskset_free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_body_form),
		cmocka_unit_test(test_body_json),
		cmocka_unit_test(test_body_multipart),
		cmocka_unit_test(test_body_text_and_limits),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_spec_json_errors),
		cmocka_unit_test(test_yaml),
		cmocka_unit_test(test_mind2web),
		cmocka_unit_test(test_event_roundtrip),
		cmocka_unit_test(test_eval_credits_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
