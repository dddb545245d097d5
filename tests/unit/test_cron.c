/* test_cron.c — cron expressions (services/scheduler/cron.h): next and previous fire times in UTC
 * for lists, ranges, steps, names, macros, the Vixie day-of-month/day-of-week rule, month ends,
 * leap years (1900, 2000, 2024, 2100), day-of-week 7 = Sunday; and malformed expressions with the
 * exact message. Times are converted with an independent, naive calendar (a loop over years and
 * months) and checked against gmtime_r. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cron.h"

static int leap(long y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* "YYYY-MM-DD HH:MM" → Unix seconds, by counting (years >= 1970 only). */
static int64_t at(const char *s)
{
	static const int dim[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	long y, mo, d, h, mi;
	if (sscanf(s, "%ld-%ld-%ld %ld:%ld", &y, &mo, &d, &h, &mi) != 5)
		fail_msg("bad time in test: %s", s);
	int64_t days = 0;
	for (long i = 1970; i < y; i++)
		days += leap(i) ? 366 : 365;
	for (long i = 1; i < mo; i++)
		days += dim[i - 1] + (i == 2 && leap(y));
	days += d - 1;
	return days * 86400 + h * 3600 + mi * 60;
}

static void fmt(char *buf, size_t n, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(buf, n, "%Y-%m-%d %H:%M %a", &tm);
}

typedef struct next_case {
	const char *expr, *after, *want; /* want "YYYY-MM-DD HH:MM Day" */
} next_case;

static const next_case next_cases[] = {
	{ "* * * * *", "2024-01-01 00:00", "2024-01-01 00:01 Mon" },
	{ "*/15 * * * *", "2024-01-01 00:00", "2024-01-01 00:15 Mon" },
	{ "*/15 * * * *", "2024-01-01 00:59", "2024-01-01 01:00 Mon" },
	{ "0 * * * *", "2024-12-31 23:30", "2025-01-01 00:00 Wed" },
	{ "30 2 * * *", "2024-03-10 02:30", "2024-03-11 02:30 Mon" },
	{ "5,10,55 * * * *", "2024-05-05 12:10", "2024-05-05 12:55 Sun" },
	{ "1-3/1 4 * * *", "2024-05-05 04:03", "2024-05-06 04:01 Mon" },
	{ "10-40/10 * * * *", "2024-05-05 04:40", "2024-05-05 05:10 Sun" },
	{ "5/20 * * * *", "2024-05-05 04:45", "2024-05-05 05:05 Sun" },
	/* month ends */
	{ "0 0 31 * *", "2024-04-01 00:00", "2024-05-31 00:00 Fri" },
	{ "0 0 31 * *", "2024-01-31 00:00", "2024-03-31 00:00 Sun" },
	{ "0 12 30 * *", "2024-01-30 12:00", "2024-03-30 12:00 Sat" },
	{ "59 23 28-31 * *", "2023-02-28 23:59", "2023-03-28 23:59 Tue" },
	/* leap years */
	{ "0 0 29 2 *", "2024-03-01 00:00", "2028-02-29 00:00 Tue" },
	{ "0 0 29 2 *", "2096-03-01 00:00", "2104-02-29 00:00 Fri" },
	{ "0 0 29 2 *", "1999-01-01 00:00", "2000-02-29 00:00 Tue" },
	{ "0 0 * 2 *", "2023-02-28 00:00", "2024-02-01 00:00 Thu" },
	/* names */
	{ "0 9 * jan,JUL mon-fri", "2024-01-31 09:00", "2024-07-01 09:00 Mon" },
	{ "0 9 * * Sat", "2024-06-03 00:00", "2024-06-08 09:00 Sat" },
	{ "0 0 1 Dec *", "2024-12-01 00:00", "2025-12-01 00:00 Mon" },
	/* day-of-week 7 and 0 are Sunday */
	{ "0 0 * * 7", "2024-06-03 00:00", "2024-06-09 00:00 Sun" },
	{ "0 0 * * 0", "2024-06-03 00:00", "2024-06-09 00:00 Sun" },
	{ "0 0 * * 5-7", "2024-06-08 00:00", "2024-06-09 00:00 Sun" },
	{ "0 0 * * 5-7", "2024-06-09 00:00", "2024-06-14 00:00 Fri" },
	/* Vixie: both restricted → either; one '*' → both */
	{ "0 0 13 * 5", "2024-09-01 00:00", "2024-09-06 00:00 Fri" },
	{ "0 0 13 * 5", "2024-09-06 00:00", "2024-09-13 00:00 Fri" },
	{ "0 0 13 * 5", "2024-09-13 00:00", "2024-09-20 00:00 Fri" },
	{ "0 0 1 * mon", "2024-06-25 00:00", "2024-07-01 00:00 Mon" },
	{ "0 0 * * mon", "2024-06-25 00:00", "2024-07-01 00:00 Mon" },
	{ "0 0 */2 * 1", "2024-07-01 00:00", "2024-07-15 00:00 Mon" },
	{ "0 0 1-7 * */7", "2024-07-02 00:00", "2024-07-07 00:00 Sun" },
	/* macros */
	{ "@yearly", "2024-06-01 00:00", "2025-01-01 00:00 Wed" },
	{ "@annually", "2024-06-01 00:00", "2025-01-01 00:00 Wed" },
	{ "@monthly", "2024-06-01 00:00", "2024-07-01 00:00 Mon" },
	{ "@weekly", "2024-06-01 00:00", "2024-06-02 00:00 Sun" },
	{ "@daily", "2024-06-01 00:00", "2024-06-02 00:00 Sun" },
	{ "  @midnight  ", "2024-06-01 23:59", "2024-06-02 00:00 Sun" },
	{ "@hourly", "2024-06-01 00:00", "2024-06-01 01:00 Sat" },
	/* whitespace and tabs */
	{ "  0\t3   *  *\t* ", "2024-06-01 03:00", "2024-06-02 03:00 Sun" },
	/* year and century boundaries */
	{ "0 0 1 1 *", "2099-12-31 23:59", "2100-01-01 00:00 Fri" },
	{ "0 0 * * *", "2100-02-28 00:00", "2100-03-01 00:00 Mon" },
};

static void test_next(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof next_cases / sizeof next_cases[0]; i++) {
		const next_case *c = &next_cases[i];
		if (!c->after)
			continue;
		kn_cron cr;
		kn_err err = { 0 };
		int64_t t = 0;
		char got[64];
		if (kn_cron_parse(&cr, c->expr, &err) != 0)
			fail_msg("%s: %s", c->expr, err.msg);
		if (kn_cron_next(&cr, at(c->after), &t, &err) != 0)
			fail_msg("%s: %s", c->expr, err.msg);
		fmt(got, sizeof got, t);
		if (strcmp(got, c->want) != 0)
			fail_msg("'%s' after %s: got %s, want %s", c->expr, c->after, got, c->want);
		/* prev of the fire is the fire itself; prev of one second before is earlier */
		int64_t p = 0;
		assert_int_equal(kn_cron_prev(&cr, t, &p, &err), 0);
		assert_true(p == t);
		assert_int_equal(kn_cron_prev(&cr, t + 59, &p, &err), 0);
		assert_true(p == t);
		assert_int_equal(kn_cron_prev(&cr, t - 1, &p, &err), 0);
		assert_true(p < t && p <= at(c->after));
		/* and next from that previous fire lands on t again */
		int64_t again = 0;
		assert_int_equal(kn_cron_next(&cr, p, &again, &err), 0);
		assert_true(again == t);
	}
}

/* Seconds within the minute: "after 00:00:30" is still strictly after, next is 00:01. */
static void test_next_seconds(void **state)
{
	(void)state;
	kn_cron cr;
	int64_t t;
	assert_int_equal(kn_cron_parse(&cr, "* * * * *", NULL), 0);
	assert_int_equal(kn_cron_next(&cr, at("2024-01-01 00:00") + 30, &t, NULL), 0);
	assert_true(t == at("2024-01-01 00:01"));
	assert_int_equal(kn_cron_prev(&cr, at("2024-01-01 00:00") + 30, &t, NULL), 0);
	assert_true(t == at("2024-01-01 00:00"));
}

/* Walk every fire of a few expressions through 2024 with next() and compare with a brute-force
 * minute-by-minute check using gmtime_r. */
static int brute_match(const char *which, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	if (strcmp(which, "A") == 0) /* every 6 hours at :07 on the 1st, the 15th or a Wednesday */
		return tm.tm_min == 7 && tm.tm_hour % 6 == 0 &&
		       (tm.tm_mday == 1 || tm.tm_mday == 15 || tm.tm_wday == 3);
	/* "B": 23:30 on Sun, Tue, Thu, Sat in Feb and Mar */
	return tm.tm_min == 30 && tm.tm_hour == 23 && (tm.tm_mon == 1 || tm.tm_mon == 2) &&
	       tm.tm_wday % 2 == 0;
}

static void walk(const char *expr, const char *which)
{
	kn_cron cr;
	assert_int_equal(kn_cron_parse(&cr, expr, NULL), 0);
	int64_t t = at("2024-01-01 00:00") - 60, end = at("2025-01-01 00:00"), next;
	assert_int_equal(kn_cron_next(&cr, t, &next, NULL), 0);
	int fires = 0;
	for (int64_t m = t + 60; m < end; m += 60) {
		if (brute_match(which, m)) {
			if (next != m) {
				char a[64], b[64];
				fmt(a, sizeof a, next), fmt(b, sizeof b, m);
				fail_msg("%s: next %s, brute force %s", expr, a, b);
			}
			fires++;
			assert_int_equal(kn_cron_next(&cr, m, &next, NULL), 0);
		}
	}
	assert_true(fires > 10);
}

static void test_brute_force(void **state)
{
	(void)state;
	walk("7 */6 1,15 * wed", "A");
	walk("30 23 * feb-mar */2", "B");
}

static void test_never(void **state)
{
	(void)state;
	kn_cron cr;
	kn_err err = { 0 };
	int64_t t;
	assert_int_equal(kn_cron_parse(&cr, "0 0 30 2 *", &err), 0);
	assert_int_equal(kn_cron_next(&cr, at("2024-01-01 00:00"), &t, &err), KN_ENOTFOUND);
	assert_string_equal(err.msg, "cron: the expression never fires (checked 400 years)");
	assert_int_equal(kn_cron_prev(&cr, at("2024-01-01 00:00"), &t, &err), KN_ENOTFOUND);
	assert_int_equal(kn_cron_parse(&cr, "0 0 31 apr,jun,sep,nov *", &err), 0);
	assert_int_equal(kn_cron_next(&cr, at("2024-01-01 00:00"), &t, &err), KN_ENOTFOUND);
	/* but with a day-of-week too (Vixie OR) it fires */
	assert_int_equal(kn_cron_parse(&cr, "0 0 30 2 mon", &err), 0);
	assert_int_equal(kn_cron_next(&cr, at("2024-01-01 00:00"), &t, &err), 0);
	assert_true(t == at("2024-02-05 00:00"));
	/* out-of-range times */
	assert_int_equal(kn_cron_next(&cr, INT64_MAX, &t, &err), KN_EINVAL);
	assert_int_equal(kn_cron_prev(&cr, INT64_MIN, &t, &err), KN_EINVAL);
}

typedef struct bad_case {
	const char *expr;
	int code;
	const char *msg;
} bad_case;

static const bad_case bad_cases[] = {
	{ "", KN_EINVAL, "cron: expected 5 fields (minute hour day-of-month month day-of-week), got 0" },
	{ "* * * *", KN_EINVAL, "cron: expected 5 fields (minute hour day-of-month month day-of-week), got 4" },
	{ "* * * * * *", KN_EINVAL, "cron: expected 5 fields (minute hour day-of-month month day-of-week), got 6" },
	{ "0 25 * * *", KN_EINVAL, "cron: field 2 (hour): 25 out of range 0-23" },
	{ "60 * * * *", KN_EINVAL, "cron: field 1 (minute): 60 out of range 0-59" },
	{ "* * 0 * *", KN_EINVAL, "cron: field 3 (day-of-month): 0 out of range 1-31" },
	{ "* * 32 * *", KN_EINVAL, "cron: field 3 (day-of-month): 32 out of range 1-31" },
	{ "* * * 13 *", KN_EINVAL, "cron: field 4 (month): 13 out of range 1-12" },
	{ "* * * 0 *", KN_EINVAL, "cron: field 4 (month): 0 out of range 1-12" },
	{ "* * * * 8", KN_EINVAL, "cron: field 5 (day-of-week): 8 out of range 0-7" },
	{ "* * * foo *", KN_EINVAL, "cron: field 4 (month): unknown name 'foo'" },
	{ "* * * * sunday", KN_EINVAL, "cron: field 5 (day-of-week): unknown name 'sunday'" },
	{ "* jan * * *", KN_EINVAL, "cron: field 2 (hour): 'jan' is not a number" },
	{ "1x * * * *", KN_EINVAL, "cron: field 1 (minute): '1x' is not a number" },
	{ "*/0 * * * *", KN_EINVAL, "cron: field 1 (minute): step 0 out of range 1-59" },
	{ "*/ * * * *", KN_EINVAL, "cron: field 1 (minute): missing step after '/'" },
	{ "*/a * * * *", KN_EINVAL, "cron: field 1 (minute): step 'a' is not a number" },
	{ "5-3 * * * *", KN_EINVAL, "cron: field 1 (minute): range '5-3' goes backwards" },
	{ "1,,2 * * * *", KN_EINVAL, "cron: field 1 (minute): empty list item" },
	{ "1, * * * *", KN_EINVAL, "cron: field 1 (minute): empty list item" },
	{ "-5 * * * *", KN_EINVAL, "cron: field 1 (minute): missing value" },
	{ "5- * * * *", KN_EINVAL, "cron: field 1 (minute): missing value" },
	{ "99999999999999999999 * * * *", KN_EINVAL,
	  "cron: field 1 (minute): 99999999999999999999 out of range 0-59" },
	{ "0 0 * * mon-sun", KN_EINVAL, "cron: field 5 (day-of-week): range 'mon-sun' goes backwards" },
	{ "@reboot", KN_EUNSUPPORTED, "cron: @reboot is not a schedule" },
	{ "@daily 5", KN_EINVAL, "cron: unknown macro '@daily' (expected @yearly, @annually, @monthly, "
	                         "@weekly, @daily, @midnight or @hourly, alone)" },
	{ "@every 5m", KN_EINVAL, "cron: unknown macro '@every' (expected @yearly, @annually, @monthly, "
	                          "@weekly, @daily, @midnight or @hourly, alone)" },
	{ "* * * * \x01", KN_EINVAL, "cron: field 5 (day-of-week): unknown name '?'" },
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		kn_cron cr, before;
		memset(&cr, 0xAB, sizeof cr);
		before = cr;
		kn_err err = { 0 };
		int rc = kn_cron_parse(&cr, bad_cases[i].expr, &err);
		if (rc != bad_cases[i].code || strcmp(err.msg, bad_cases[i].msg) != 0)
			fail_msg("'%s': got %d '%s', want %d '%s'", bad_cases[i].expr, rc, err.msg,
			         bad_cases[i].code, bad_cases[i].msg);
		assert_memory_equal(&cr, &before, sizeof cr); /* untouched on failure */
		/* kn_cron_check: the same verdict, the words without the "cron: " prefix */
		kn_err cerr = { 0 };
		assert_int_equal(kn_cron_check(bad_cases[i].expr, &cerr), bad_cases[i].code);
		assert_string_equal(cerr.msg, bad_cases[i].msg + strlen("cron: "));
	}
	char big[KN_CRON_MAX_LEN + 2];
	memset(big, '1', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	kn_cron cr;
	kn_err err = { 0 };
	assert_int_equal(kn_cron_parse(&cr, big, &err), KN_ELIMIT);
	assert_int_equal(kn_cron_parse(&cr, NULL, &err), KN_EINVAL);
	assert_int_equal(kn_cron_check(NULL, &err), KN_EINVAL);
	assert_string_equal(err.msg, "no expression");
	assert_int_equal(kn_cron_check("@daily", NULL), 0);
	assert_int_equal(kn_cron_check("*/15 * * * mon-fri", NULL), 0);
}

static void test_bits(void **state)
{
	(void)state;
	kn_cron c;
	assert_int_equal(kn_cron_parse(&c, "0-59/30 0,23 */10 * 7", NULL), 0);
	assert_true(c.minute == ((1ull << 0) | (1ull << 30)));
	assert_true(c.hour == ((1u << 0) | (1u << 23)));
	assert_true(c.dom == ((1u << 1) | (1u << 11) | (1u << 21) | (1u << 31)));
	assert_true(c.month == 0x1ffe);
	assert_true(c.dow == 1);
	assert_int_equal(c.dom_star, 1);
	assert_int_equal(c.dow_star, 0);
	assert_int_equal(kn_cron_parse(&c, "* * * * *", NULL), 0);
	assert_true(c.dow == 0x7f && c.minute == 0x0fffffffffffffffull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next),        cmocka_unit_test(test_next_seconds),
		cmocka_unit_test(test_brute_force), cmocka_unit_test(test_never),
		cmocka_unit_test(test_bad),         cmocka_unit_test(test_bits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
