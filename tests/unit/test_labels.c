/* test_labels.c — the labels file of `keynode judge-audit` (services/audit/labels.c): what a good
 * file gives, and every malformed line refused with its file:line (and column for bad JSON) and
 * nothing half-loaded — the reader never trusts the file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "audit.h"

static kn_labels *parse_ok(const char *text)
{
	kn_labels *l = (kn_labels *)1;
	kn_err err = {0};
	int rc = kn_labels_parse(&l, "t.jsonl", text, strlen(text), &err);
	if (rc != 0)
		fail_msg("rc %d: %s", rc, err.msg);
	return l;
}

/* text must be refused with code and a message starting with want */
static void refused(const char *text, size_t len, int code, const char *want)
{
	kn_labels *l = (kn_labels *)1;
	kn_err err = {0};
	int rc = kn_labels_parse(&l, "t.jsonl", text, len, &err);
	assert_int_equal(rc, code);
	assert_null(l);
	if (strncmp(err.msg, want, strlen(want)) != 0)
		fail_msg("message \"%s\", want it to start \"%s\"", err.msg, want);
}

#define REFUSED(text, want) refused(text, strlen(text), KN_EINVAL, want)
#define LINE(x) "{\"rule\": \"r\", \"value\": \"v\", \"target\": \"url\"" x "}"
#define GOOD "{\"rule\": \"r\", \"value\": \"v\", \"target\": \"answer\", \"label\": true}\n"

static void test_good(void **state)
{
	(void)state;
	kn_labels *l = parse_ok(
		"{\"rule\": \"Decide whether are searching for coats\", \"target\": \"url\", \"key\": \"q\",\t"
		"\"value\": \"https://s.example/?q=coats\", \"label\": true, \"note\": \"verbatim\"}\n"
		"\n   \r\n"
		"{\"rule\": \"searching for coats\", \"target\": \"element_value\", \"value\": \"\", "
		"\"label\": false, \"source\": {\"task\": 15}}\r\n"
		"{\"label\": false, \"target\": \"answer\", \"value\": \"No.\", \"rule\": \"the answer is yes\", "
		"\"key\": \"\"}");
	assert_int_equal(l->n, 3);
	assert_int_equal(l->items[0].line, 1);
	assert_int_equal(l->items[0].target, KN_TARGET_URL);
	assert_string_equal(l->items[0].key, "q");
	assert_string_equal(l->items[0].value, "https://s.example/?q=coats");
	assert_int_equal(l->items[0].label, 1);
	assert_int_equal(l->items[1].line, 4); /* blank lines count */
	assert_int_equal(l->items[1].target, KN_TARGET_ELEMENT_VALUE);
	assert_string_equal(l->items[1].value, ""); /* an agent may submit nothing */
	assert_null(l->items[1].key);
	assert_int_equal(l->items[1].label, 0);
	assert_int_equal(l->items[2].line, 5); /* no newline at the end */
	assert_int_equal(l->items[2].target, KN_TARGET_ANSWER);
	assert_null(l->items[2].key); /* "" is none, as in Mind2Web-Live */
	kn_labels_free(l);
	kn_labels_free(NULL);
}

static void test_malformed(void **state)
{
	(void)state;
	REFUSED(GOOD "{\"rule\": \"r\",", "t.jsonl:2:");          /* bad JSON: line and column */
	REFUSED(GOOD "{\"rule\": \"r\",", "t.jsonl:2:13: not JSON");
	REFUSED("[1, 2]\n", "t.jsonl:1: want a JSON object");
	REFUSED("\"text\"\n", "t.jsonl:1:6: not JSON");
	REFUSED(GOOD GOOD "{} {}\n", "t.jsonl:3:");                /* one object per line */
	REFUSED("{\"value\": \"v\", \"target\": \"url\", \"label\": true}",
	        "t.jsonl:1: \"rule\" must be");
	REFUSED("{\"rule\": \"\", \"value\": \"v\", \"target\": \"url\", \"label\": true}",
	        "t.jsonl:1: \"rule\" must be");
	REFUSED("{\"rule\": 7, \"value\": \"v\", \"target\": \"url\", \"label\": true}",
	        "t.jsonl:1: \"rule\" must be");
	REFUSED("{\"rule\": \"r\", \"target\": \"url\", \"label\": true}", "t.jsonl:1: \"value\" must be");
	REFUSED("{\"rule\": \"r\", \"value\": null, \"target\": \"url\", \"label\": true}",
	        "t.jsonl:1: \"value\" must be");
	REFUSED("{\"rule\": \"r\", \"value\": \"v\", \"label\": true}", "t.jsonl:1: \"target\" must be");
	REFUSED("{\"rule\": \"r\", \"value\": \"v\", \"target\": \"element_path\", \"label\": true}",
	        "t.jsonl:1: \"target\" must be");
	REFUSED("{\"rule\": \"r\", \"value\": \"v\", \"target\": \"URL\", \"label\": true}",
	        "t.jsonl:1: \"target\" must be");
	REFUSED(LINE(""), "t.jsonl:1: \"label\" must be true or false");
	REFUSED(LINE(", \"label\": 1"), "t.jsonl:1: \"label\" must be");
	REFUSED(LINE(", \"label\": \"true\""), "t.jsonl:1: \"label\" must be");
	REFUSED(LINE(", \"label\": true, \"key\": 3"),
	        "t.jsonl:1: \"key\" must be a string");
	REFUSED("{\"rule\": \"r\", \"value\": \"v\", \"target\": \"answer\", \"label\": true, \"key\": \"q\"}",
	        "t.jsonl:1: \"key\" applies to target url only");
	REFUSED("{\"rule\": \"r\", \"rule\": \"s\", \"value\": \"v\", \"target\": \"url\", \"label\": true}",
	        "t.jsonl:1:"); /* duplicate member */
	REFUSED("{\"rule\": \"r\\u0000x\", \"value\": \"v\", \"target\": \"url\", \"label\": true}",
	        "t.jsonl:1:");
	REFUSED("{\"rule\": \"r\xff\", \"value\": \"v\", \"target\": \"url\", \"label\": true}",
	        "t.jsonl:1:");
	REFUSED("", "t.jsonl: no labelled items");
	REFUSED("\n \n\t\n", "t.jsonl: no labelled items");
	/* a NUL byte inside a line (the reader is given a length, not a C string) */
	static const char nul[] = "{\"rule\": \"r\", \"value\": \"v\0\", \"target\": \"url\", \"label\": true}";
	refused(nul, sizeof nul - 1, KN_EINVAL, "t.jsonl:1:");
}

static void test_caps(void **state)
{
	(void)state;
	size_t n = KN_LABELS_MAX_LINE + 2;
	char *big = malloc(n + strlen(GOOD) + 1);
	assert_non_null(big);
	strcpy(big, GOOD);
	memset(big + strlen(GOOD), ' ', n);
	big[strlen(GOOD) + n - 1] = '\0';
	refused(big, strlen(big), KN_ELIMIT, "t.jsonl:2: line longer than");
	free(big);
}

static void test_load(void **state)
{
	(void)state;
	kn_labels *l = (kn_labels *)1;
	kn_err err = {0};
	assert_int_equal(kn_labels_load(&l, "/nonexistent/labels.jsonl", &err), KN_ENOTFOUND);
	assert_null(l);
	assert_string_equal(err.msg, "/nonexistent/labels.jsonl: No such file or directory");
	char path[] = "/tmp/kn-labels-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	for (int i = 0; i < 3000; i++) /* past the first read buffer */
		fputs(GOOD, f);
	fputs("{\"rule\": \"r\"}\n", f);
	fclose(f);
	assert_int_equal(kn_labels_load(&l, path, &err), KN_EINVAL);
	char want[128];
	snprintf(want, sizeof want, "%s:3001: \"value\" must be", path);
	assert_memory_equal(err.msg, want, strlen(want));
	f = fopen(path, "w");
	fputs(GOOD GOOD, f);
	fclose(f);
	assert_int_equal(kn_labels_load(&l, path, &err), 0);
	assert_int_equal(l->n, 2);
	kn_labels_free(l);
	remove(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
