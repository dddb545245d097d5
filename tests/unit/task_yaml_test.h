/* task_yaml_test.h — what test_task_yaml.c and test_task_yaml_errors.c share: loading a document
 * under the name "t.yaml", expecting it to load or to fail with an exact message, and the pieces of
 * YAML the cases wrap. Include after <cmocka.h>. */
#ifndef KN_TASK_YAML_TEST_H
#define KN_TASK_YAML_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/task.h"

#define NAME "t.yaml"

static inline char *read_file(const char *path, size_t *len)
{
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = malloc((1 << 20) + 1);
	*len = buf ? fread(buf, 1, 1 << 20, f) : 0;
	fclose(f);
	return buf;
}

static inline int load(kn_taskset **out, const char *doc, const kn_load_opts *opts, kn_err *err)
{
	return kn_task_load_yaml(out, doc, strlen(doc), NAME, opts, err);
}

static inline kn_taskset *load_ok(const char *doc)
{
	kn_taskset *set = NULL;
	kn_err err = { 0 };
	int rc = load(&set, doc, NULL, &err);
	if (rc != 0)
		print_error("unexpected error %d: %s\n", rc, err.msg);
	assert_int_equal(rc, 0);
	assert_non_null(set);
	assert_int_equal(set->format, KN_FORMAT_YAML);
	assert_string_equal(set->source, NAME);
	return set;
}

/* The load fails with code and exactly this message. */
static inline void expect_error(const char *doc, int code, const char *msg)
{
	kn_taskset *set = (kn_taskset *)&set; /* must be reset to NULL */
	kn_err err = { 0 };
	int rc = load(&set, doc, NULL, &err);
	if (rc != code || strcmp(err.msg, msg) != 0)
		print_error("document:\n%s\n", doc);
	assert_string_equal(err.msg, msg);
	assert_int_equal(rc, code);
	assert_int_equal(err.code, code);
	assert_null(set);
}

/* The load fails with code; the message starts with prefix and contains words. len SIZE_MAX: the
 * whole string. */
static inline void expect_error_like(const char *doc, size_t len, const kn_load_opts *opts, int code,
                              const char *prefix, const char *words)
{
	kn_taskset *set = (kn_taskset *)&set;
	if (len == SIZE_MAX)
		len = strlen(doc);
	kn_err err = { 0 };
	int rc = kn_task_load_yaml(&set, doc, len, NAME, opts, &err);
	if (rc != code || strncmp(err.msg, prefix, strlen(prefix)) != 0 || !strstr(err.msg, words))
		print_error("got %d '%s', want %d '%s...%s...'\n", rc, err.msg, code, prefix, words);
	assert_int_equal(rc, code);
	assert_true(strncmp(err.msg, prefix, strlen(prefix)) == 0);
	assert_non_null(strstr(err.msg, words));
	assert_null(set);
}

/* A task with one key node, for wrapping the piece under test. */
#define TASK_HEAD "tasks:\n  - id: shop-1\n    intent: x\n"
#define ONE_NODE "    key_nodes:\n      - url: { include: a }\n"
#define KN "    key_nodes:\n"

#endif
