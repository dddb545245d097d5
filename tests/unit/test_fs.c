/* test_fs.c — kn_mkdirs / kn_mkdirs_for (keynode/fs.h): parents made with the mode asked for,
 * existing folders left alone, a file in the way and bad names refused with the path named.
 * kn_read_stream: the whole rest of a stream, NUL-terminated, up to and including its cap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "keynode/error.h"

#include "keynode/fs.h"

static char root[] = "/tmp/kn-test-fs-XXXXXX";

static unsigned mode_of(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 ? (unsigned)(sb.st_mode & 0777) : 0u;
}

static void test_mkdirs(void **state)
{
	(void)state;
	kn_err err;
	char p[256], f[256];
	mode_t old = umask(022);
	snprintf(p, sizeof p, "%s/a/b/c", root);
	assert_int_equal(kn_mkdirs(p, 0700, &err), 0);
	assert_int_equal(mode_of(p), 0700);
	snprintf(f, sizeof f, "%s/a", root);
	assert_int_equal(mode_of(f), 0700);
	assert_int_equal(kn_mkdirs(p, 0755, &err), 0); /* exists: fine, left as it is */
	assert_int_equal(mode_of(p), 0700);
	snprintf(p, sizeof p, "%s/a/b/c/", root);
	assert_int_equal(kn_mkdirs(p, 0700, &err), 0);
	/* a file in the way */
	snprintf(f, sizeof f, "%s/file", root);
	FILE *fp = fopen(f, "w");
	assert_non_null(fp);
	fclose(fp);
	snprintf(p, sizeof p, "%s/file/sub", root);
	assert_int_equal(kn_mkdirs(p, 0700, &err), KN_EIO);
	assert_non_null(strstr(err.msg, "/file"));
	assert_int_equal(kn_mkdirs("", 0700, &err), KN_EINVAL);
	assert_int_equal(kn_mkdirs(NULL, 0700, &err), KN_EINVAL);
	char *longp = malloc(5000);
	memset(longp, 'x', 4999);
	longp[4999] = '\0';
	assert_int_equal(kn_mkdirs(longp, 0700, &err), KN_EINVAL);
	free(longp);
	/* the folder of a file */
	snprintf(f, sizeof f, "%s/out/deep/run.jsonl", root);
	assert_int_equal(kn_mkdirs_for(f, 0755, &err), 0);
	snprintf(p, sizeof p, "%s/out/deep", root);
	assert_int_equal(mode_of(p), 0755);
	assert_int_equal(kn_mkdirs_for("bare.json", 0755, &err), 0);
	assert_int_equal(kn_mkdirs_for("/top.json", 0755, &err), 0);
	umask(old);
}

/* A temporary stream holding n bytes of a repeating pattern, rewound. */
static FILE *stream_of(size_t n)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		assert_int_not_equal(fputc('a' + (int)(i % 26), f), EOF);
	rewind(f);
	return f;
}

static void test_read_stream(void **state)
{
	(void)state;
	char *b = NULL;
	size_t n = 1;
	/* empty: an empty string, not NULL */
	FILE *f = stream_of(0);
	assert_int_equal(kn_read_stream(&b, &n, f, 100), 0);
	assert_non_null(b);
	assert_int_equal(n, 0);
	assert_int_equal(b[0], '\0');
	free(b);
	fclose(f);
	/* larger than the first buffer, no cap */
	size_t big = 200000;
	f = stream_of(big);
	assert_int_equal(kn_read_stream(&b, &n, f, SIZE_MAX), 0);
	assert_int_equal(n, big);
	assert_int_equal(b[n], '\0');
	assert_int_equal(b[0], 'a');
	assert_int_equal(b[big - 1], 'a' + (int)((big - 1) % 26));
	assert_int_equal(strlen(b), big);
	free(b);
	/* exactly the cap is taken; one byte more is over it */
	rewind(f);
	assert_int_equal(kn_read_stream(&b, &n, f, big), 0);
	assert_int_equal(n, big);
	free(b);
	rewind(f);
	assert_int_equal(kn_read_stream(&b, &n, f, big - 1), KN_ELIMIT);
	assert_null(b);
	assert_int_equal(n, 0);
	rewind(f);
	assert_int_equal(kn_read_stream(&b, &n, f, 0), KN_ELIMIT);
	/* from where the stream stands */
	assert_int_equal(fseek(f, (long)(big - 3), SEEK_SET), 0);
	assert_int_equal(kn_read_stream(&b, &n, f, 3), 0);
	assert_int_equal(n, 3);
	assert_int_equal(b[0], 'a' + (int)((big - 3) % 26));
	free(b);
	fclose(f);
	/* a read error: a folder opened as a file */
	f = fopen(root, "rb");
	if (f) {
		assert_int_equal(kn_read_stream(&b, &n, f, 100), KN_EIO);
		assert_null(b);
		fclose(f);
	}
}

/* A file by name: opened, read and capped the same way, every failure in one wording naming it. */
static void test_read_file(void **state)
{
	(void)state;
	char path[300], want[400];
	snprintf(path, sizeof path, "%s/whole.txt", root);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_true(fputs("0123456789", f) >= 0);
	fclose(f);
	char *b = NULL;
	size_t n = 0;
	kn_err err = {0};
	assert_int_equal(kn_read_file(&b, &n, path, 10, &err), 0);
	assert_int_equal(n, 10);
	assert_string_equal(b, "0123456789");
	free(b);
	/* one byte over the cap */
	assert_int_equal(kn_read_file(&b, &n, path, 9, &err), KN_ELIMIT);
	assert_null(b);
	assert_int_equal(n, 0);
	snprintf(want, sizeof want, "%s: over the 9 byte limit", path);
	assert_string_equal(err.msg, want);
	/* missing */
	snprintf(path, sizeof path, "%s/none.txt", root);
	assert_int_equal(kn_read_file(&b, &n, path, SIZE_MAX, &err), KN_ENOTFOUND);
	snprintf(want, sizeof want, "%s: No such file or directory", path);
	assert_string_equal(err.msg, want);
	/* a folder: opened, not read */
	assert_int_equal(kn_read_file(&b, &n, root, SIZE_MAX, &err), KN_EIO);
	assert_null(b);
	snprintf(want, sizeof want, "%s: read error", root);
	assert_string_equal(err.msg, want);
}

int main(void)
{
	if (!mkdtemp(root))
		return 1;
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_mkdirs), cmocka_unit_test(test_read_stream),
	                                   cmocka_unit_test(test_read_file)};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
