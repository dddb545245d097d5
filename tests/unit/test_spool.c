/* test_spool.c — kn_ingest's spool records (services/store/spool.h), a trust boundary: every
 * kind round-trips through format/parse with hostile strings; malformed, torn and tampered lines
 * are refused with a reason and never mis-parsed (every proper prefix of a valid line fails);
 * the spool file reads back in order, terminates a torn tail at open, honours its cap and
 * truncates. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spool.h"

/* -Wwrite-strings: literals into the record's char * fields (never freed here) */
#define S(x) ((char *)(uintptr_t)(const char *)(x))

static kn_spool_rec ev(const char *run, int64_t seq, const char *line)
{
	kn_spool_rec r = {.kind = KN_SPOOL_EVENT, .run_id = (char *)(uintptr_t)run, .seq = seq,
	                  .text = (char *)(uintptr_t)line};
	return r;
}

static char *fmt(const kn_spool_rec *r, size_t *len)
{
	char *out = NULL;
	assert_int_equal(kn_spool_format(&out, len, r), 0);
	assert_int_equal(out[*len - 1], '\n');
	assert_null(memchr(out, '\n', *len - 1));
	return out;
}

static void test_roundtrip(void **state)
{
	(void)state;
	const char *odd = "line\nwith \"quotes\" \\ and 日本語 🙂 and \t tab";
	kn_spool_rec recs[3] = {
		{.kind = KN_SPOOL_RUN_START, .run_id = S("r-1"), .task_version = 42, .run_kind = S("agent"),
		 .browser = (char *)(uintptr_t)odd, .started = S("2026-11-22T10:00:00Z")},
		ev("r-1'; DROP TABLE events; --", 7, odd),
		{.kind = KN_SPOOL_RUN_FINISH, .run_id = S("r-1"), .ended = S("2026-11-22T10:00:09Z"),
		 .text = S("{\"status\": \"finished\"}")},
	};
	for (int i = 0; i < 3; i++) {
		size_t len;
		char *line = fmt(&recs[i], &len);
		kn_spool_rec back;
		kn_err err;
		assert_int_equal(kn_spool_parse(&back, line, len - 1, &err), 0);
		assert_int_equal(back.kind, recs[i].kind);
		assert_string_equal(back.run_id, recs[i].run_id);
		if (i == 0) {
			assert_int_equal(back.task_version, 42);
			assert_string_equal(back.browser, odd);
			assert_string_equal(back.run_kind, "agent");
			assert_string_equal(back.started, recs[0].started);
		} else if (i == 1) {
			assert_int_equal(back.seq, 7);
			assert_string_equal(back.text, odd);
		} else {
			assert_string_equal(back.ended, recs[2].ended);
			assert_string_equal(back.text, recs[2].text);
		}
		/* never mis-parsed: every proper prefix (a torn write) is refused */
		for (size_t k = 0; k + 1 < len - 1; k++) {
			kn_spool_rec bad;
			assert_int_not_equal(kn_spool_parse(&bad, line, k, &err), 0);
			assert_null(bad.run_id);
		}
		kn_spool_rec_clear(&back);
		free(line);
	}
	/* a start without browser */
	kn_spool_rec s = {.kind = KN_SPOOL_RUN_START, .run_id = S("r"), .run_kind = S("replay"), .started = S("t")};
	size_t len;
	char *line = fmt(&s, &len);
	kn_spool_rec back;
	assert_int_equal(kn_spool_parse(&back, line, len - 1, NULL), 0);
	assert_null(back.browser);
	kn_spool_rec_clear(&back);
	free(line);
}

static void test_format_refuses(void **state)
{
	(void)state;
	char *out;
	size_t len;
	kn_spool_rec r = ev("r", 0, "{}");
	assert_int_equal(kn_spool_format(&out, &len, &r), KN_EINVAL);   /* seq from 1 */
	r = ev("", 1, "{}");
	assert_int_equal(kn_spool_format(&out, &len, &r), KN_EINVAL);   /* empty run id */
	r = ev("r", 1, "\xff\xfe not utf-8");
	assert_int_equal(kn_spool_format(&out, &len, &r), KN_EINVAL);
	r = ev("r", 1, NULL);
	assert_int_equal(kn_spool_format(&out, &len, &r), KN_EINVAL);
	char longid[400];
	memset(longid, 'a', sizeof longid - 1);
	longid[sizeof longid - 1] = 0;
	r = ev(longid, 1, "{}");
	assert_int_equal(kn_spool_format(&out, &len, &r), KN_EINVAL);
	kn_spool_rec f = {.kind = KN_SPOOL_RUN_FINISH, .run_id = S("r"), .text = S("{}")}; /* no end time */
	assert_int_equal(kn_spool_format(&out, &len, &f), KN_EINVAL);
	kn_spool_rec k = {.kind = (kn_spool_kind)'x', .run_id = S("r")};
	assert_int_equal(kn_spool_format(&out, &len, &k), KN_EINVAL);
}

/* A line with a correct header around payload p. */
static char *wrap(const char *p)
{
	char *line = malloc(strlen(p) + 40);
	sprintf(line, "KN1 %zu %08x %s", strlen(p), (unsigned)kn_spool_crc32(p, strlen(p)), p);
	return line;
}

static void expect_bad(const char *line, int code)
{
	kn_spool_rec r;
	kn_err err = {0};
	int rc = kn_spool_parse(&r, line, strlen(line), &err);
	if (rc != code)
		fail_msg("'%s': rc %d, want %d (%s)", line, rc, code, err.msg);
	assert_true(err.msg[0] != 0);
	assert_null(r.run_id);
	assert_null(r.text);
}

static void expect_bad_payload(const char *payload)
{
	char *line = wrap(payload);
	expect_bad(line, KN_EINVAL);
	free(line);
}

static void test_malformed(void **state)
{
	(void)state;
	expect_bad("", KN_EINVAL);
	expect_bad("KN1", KN_EINVAL);
	expect_bad("KN2 2 00000000 {}", KN_EINVAL);
	expect_bad("kn1 2 00000000 {}", KN_EINVAL);
	expect_bad("KN1  2 00000000 {}", KN_EINVAL);
	expect_bad("KN1 x 00000000 {}", KN_EINVAL);
	expect_bad("KN1 -2 00000000 {}", KN_EINVAL);
	expect_bad("KN1 123456789 00000000 {}", KN_EINVAL);      /* nine digits */
	expect_bad("KN1 99999999 00000000 {}", KN_ELIMIT);       /* past the cap */
	expect_bad("KN1 2 0000000 {}", KN_EINVAL);               /* seven hex digits */
	expect_bad("KN1 2 0000000G {}", KN_EINVAL);
	expect_bad("KN1 2 00000000{}", KN_EINVAL);
	expect_bad("KN1 2 00000000 {}", KN_EINVAL);              /* checksum wrong */
	expect_bad("KN1 2", KN_EINVAL);
	/* length says more or less than there is */
	char *ok = wrap("{\"k\":\"e\",\"r\":\"r\",\"s\":1,\"l\":\"{}\"}");
	kn_spool_rec r;
	assert_int_equal(kn_spool_parse(&r, ok, strlen(ok), NULL), 0);
	kn_spool_rec_clear(&r);
	char *longer = malloc(strlen(ok) + 3);
	sprintf(longer, "%s}}", ok);
	expect_bad(longer, KN_EINVAL);
	free(longer);
	/* a flipped payload byte or checksum digit */
	char *t = strdup(ok);
	t[strlen(t) - 3] ^= 1;
	expect_bad(t, KN_EINVAL);
	strcpy(t, ok);
	t[8] = t[8] == 'a' ? 'b' : 'a';
	expect_bad(t, KN_EINVAL);
	/* uppercase hex is not ours */
	strcpy(t, ok);
	int upper = 0;
	for (int i = 0; i < 8; i++)
		if (t[6 + i] >= 'a' && t[6 + i] <= 'f') {
			t[6 + i] = (char)(t[6 + i] - 'a' + 'A');
			upper = 1;
		}
	if (upper)
		expect_bad(t, KN_EINVAL);
	free(t);
	free(ok);
	/* well framed, bad payloads */
	expect_bad_payload("[]");
	expect_bad_payload("not json");
	expect_bad_payload("{}");
	expect_bad_payload("{\"k\":\"x\",\"r\":\"r\"}");
	expect_bad_payload("{\"k\":\"ee\",\"r\":\"r\",\"s\":1,\"l\":\"{}\"}");
	expect_bad_payload("{\"k\":1,\"r\":\"r\",\"s\":1,\"l\":\"{}\"}");
	expect_bad_payload("{\"k\":\"e\",\"r\":\"\",\"s\":1,\"l\":\"{}\"}");
	expect_bad_payload("{\"k\":\"e\",\"r\":5,\"s\":1,\"l\":\"{}\"}");
	expect_bad_payload("{\"k\":\"e\",\"r\":\"r\",\"s\":\"1\",\"l\":\"{}\"}");
	expect_bad_payload("{\"k\":\"e\",\"r\":\"r\",\"s\":0,\"l\":\"{}\"}");
	expect_bad_payload("{\"k\":\"e\",\"r\":\"r\",\"s\":-4,\"l\":\"{}\"}");
	expect_bad_payload("{\"k\":\"e\",\"r\":\"r\",\"s\":1.5,\"l\":\"{}\"}");
	expect_bad_payload("{\"k\":\"e\",\"r\":\"r\",\"s\":1}");
	expect_bad_payload("{\"k\":\"e\",\"r\":\"r\",\"s\":1,\"l\":null}");
	expect_bad_payload("{\"k\":\"e\",\"r\":\"r\",\"s\":1,\"l\":\"a\\u0000b\"}");
	expect_bad_payload("{\"k\":\"e\",\"r\":\"r\",\"r\":\"q\",\"s\":1,\"l\":\"{}\"}");
	expect_bad_payload("{\"k\":\"s\",\"r\":\"r\",\"v\":\"1\",\"kind\":\"agent\",\"t\":\"x\"}");
	expect_bad_payload("{\"k\":\"s\",\"r\":\"r\",\"v\":1,\"kind\":\"agent\"}");
	expect_bad_payload("{\"k\":\"s\",\"r\":\"r\",\"v\":1,\"kind\":\"agent\",\"t\":\"x\",\"b\":7}");
	expect_bad_payload("{\"k\":\"f\",\"r\":\"r\",\"t\":\"x\"}");
	expect_bad_payload("{\"k\":\"f\",\"r\":\"r\",\"j\":\"{}\"}");
}

static char tmpdir[64];
static int warnings;
static void on_warn(void *ud, const char *msg)
{
	(void)ud;
	assert_true(msg && *msg);
	warnings++;
}

static void test_file(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/kn-test-spool-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	char dir[128];
	snprintf(dir, sizeof dir, "%s/sub", tmpdir);
	kn_spool *sp;
	kn_err err;
	assert_int_equal(kn_spool_open(&sp, dir, 0, &err), 0);
	assert_int_equal(kn_spool_size(sp), 0);
	for (int i = 1; i <= 300; i++) {
		char line[64];
		snprintf(line, sizeof line, "{\"n\": %d}", i);
		kn_spool_rec r = ev("run", i, line);
		assert_int_equal(kn_spool_append(sp, &r, &err), 0);
	}
	kn_spool_close(sp);
	/* a torn record at the end, as a crash mid-write leaves it */
	char path[160];
	snprintf(path, sizeof path, "%s/spool.log", dir);
	FILE *f = fopen(path, "a");
	fputs("KN1 40 12345678 {\"k\":\"e\",\"r\":\"run\",\"s\":301", f);
	fclose(f);
	assert_int_equal(kn_spool_open(&sp, dir, 0, &err), 0);
	kn_spool_rec r = ev("run", 302, "{\"n\": 302}");
	assert_int_equal(kn_spool_append(sp, &r, &err), 0);
	uint64_t off = 0, skipped = 0;
	warnings = 0;
	int64_t want = 1;
	kn_spool_rec got;
	int rc;
	while ((rc = kn_spool_next(sp, &off, kn_spool_size(sp), &got, on_warn, NULL, &skipped)) == 1) {
		assert_int_equal(got.seq, want);
		want = want == 300 ? 302 : want + 1;
		kn_spool_rec_clear(&got);
	}
	assert_int_equal(rc, 0);
	assert_int_equal(want, 303);
	assert_int_equal(skipped, 1);
	assert_int_equal(warnings, 1);
	assert_int_equal(off, kn_spool_size(sp));
	/* reading up to a limit stops there */
	off = 0;
	assert_int_equal(kn_spool_next(sp, &off, 0, &got, NULL, NULL, NULL), 0);
	assert_int_equal(kn_spool_truncate(sp, &err), 0);
	assert_int_equal(kn_spool_size(sp), 0);
	off = 0;
	assert_int_equal(kn_spool_next(sp, &off, kn_spool_size(sp), &got, NULL, NULL, NULL), 0);
	kn_spool_close(sp);
	/* the cap */
	assert_int_equal(kn_spool_open(&sp, dir, 200, &err), 0);
	int ok = 0;
	while ((rc = kn_spool_append(sp, &r, &err)) == 0)
		ok++;
	assert_int_equal(rc, KN_ELIMIT);
	assert_true(ok >= 1);
	assert_true(kn_spool_size(sp) <= 200);
	kn_spool_close(sp);
	unlink(path);
	rmdir(dir);
	rmdir(tmpdir);
	assert_int_equal(kn_spool_open(&sp, "/proc/kn-no/such", 0, &err), KN_EIO);
}

static void test_crc(void **state)
{
	(void)state;
	assert_int_equal(kn_spool_crc32("123456789", 9), 0xCBF43926u); /* the standard check value */
	assert_int_equal(kn_spool_crc32("", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_format_refuses),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
