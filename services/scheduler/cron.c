/* cron.c — the cron expression parser and fire-time search (cron.h). A field becomes a bit set;
 * the search walks calendar fields in UTC from coarse to fine (month, day, hour, minute), jumping to
 * the start (or, going backwards, the end) of the next candidate unit whenever a field does not
 * match, so a year costs at most a few hundred steps. Calendar arithmetic is proleptic Gregorian on
 * day numbers (no timegm, no time zone database). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cron.h"

/* One field's spec: name for messages, value range, names accepted (index = value - name_base). */
typedef struct field_spec {
	const char *name;
	int lo, hi;
	const char *const *names;
	int n_names, name_base;
} field_spec;

static const char *const month_names[] = { "jan", "feb", "mar", "apr", "may", "jun",
	                                       "jul", "aug", "sep", "oct", "nov", "dec" };
static const char *const dow_names[] = { "sun", "mon", "tue", "wed", "thu", "fri", "sat" };

static const field_spec specs[5] = {
	{ "minute", 0, 59, NULL, 0, 0 },
	{ "hour", 0, 23, NULL, 0, 0 },
	{ "day-of-month", 1, 31, NULL, 0, 0 },
	{ "month", 1, 12, month_names, 12, 1 },
	{ "day-of-week", 0, 7, dow_names, 7, 0 },
};

static int field_err(kn_err *err, int idx, const char *fmt, const char *tok, size_t len, int a,
                     int b)
{
	char what[160];
	/* fmt is one of the fixed formats below: %.*s token, then up to two ints */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
	snprintf(what, sizeof what, fmt, (int)(len > 32 ? 32 : len), tok, a, b);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
	for (char *p = what; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	return kn_err_set(err, KN_EINVAL, "cron: field %d (%s): %s", idx + 1, specs[idx].name, what);
}

/* A number or (months, days) a name at s[0..len) into *v; 0 or KN_EINVAL. */
static int parse_value(const field_spec *f, int idx, const char *s, size_t len, int *v, kn_err *err)
{
	if (len == 0)
		return field_err(err, idx, "missing value%.*s", "", 0, 0, 0);
	if (isdigit((unsigned char)s[0])) {
		long n = 0;
		for (size_t i = 0; i < len; i++) {
			if (!isdigit((unsigned char)s[i]))
				return field_err(err, idx, "'%.*s' is not a number", s, len, 0, 0);
			if (n < 100000)
				n = n * 10 + (s[i] - '0');
		}
		if (n < f->lo || n > f->hi)
			return field_err(err, idx, "%.*s out of range %d-%d", s, len, f->lo, f->hi);
		*v = (int)n;
		return 0;
	}
	if (f->names && len == 3) {
		for (int i = 0; i < f->n_names; i++) {
			const char *nm = f->names[i];
			if (tolower((unsigned char)s[0]) == nm[0] && tolower((unsigned char)s[1]) == nm[1] &&
			    tolower((unsigned char)s[2]) == nm[2]) {
				*v = i + f->name_base;
				return 0;
			}
		}
	}
	if (f->names)
		return field_err(err, idx, "unknown name '%.*s'", s, len, 0, 0);
	return field_err(err, idx, "'%.*s' is not a number", s, len, 0, 0);
}

/* One comma-separated item: '*', N, N-M, each optionally /STEP; N/STEP means N-max/STEP. */
static int parse_item(const field_spec *f, int idx, const char *s, size_t len, uint64_t *bits,
                      kn_err *err)
{
	const char *slash = memchr(s, '/', len);
	size_t blen = slash ? (size_t)(slash - s) : len;
	int a, b, step = 1, rc;
	if (len == 0)
		return field_err(err, idx, "empty list item%.*s", "", 0, 0, 0);
	if (slash) {
		const char *st = slash + 1;
		size_t slen = len - blen - 1;
		long n = 0;
		if (slen == 0)
			return field_err(err, idx, "missing step after '/'%.*s", "", 0, 0, 0);
		for (size_t i = 0; i < slen; i++) {
			if (!isdigit((unsigned char)st[i]))
				return field_err(err, idx, "step '%.*s' is not a number", st, slen, 0, 0);
			if (n < 100000)
				n = n * 10 + (st[i] - '0');
		}
		if (n < 1 || n > f->hi)
			return field_err(err, idx, "step %.*s out of range 1-%d", st, slen, f->hi, 0);
		step = (int)n;
	}
	if (blen == 1 && s[0] == '*') {
		a = f->lo, b = f->hi;
		if (idx == 4)
			b = 6; /* '*' in day-of-week is 0-6; 7 only ever aliases Sunday */
	} else {
		const char *dash = memchr(s, '-', blen);
		if (dash) {
			if ((rc = parse_value(f, idx, s, (size_t)(dash - s), &a, err)) != 0 ||
			    (rc = parse_value(f, idx, dash + 1, blen - (size_t)(dash - s) - 1, &b, err)) != 0)
				return rc;
			if (a > b)
				return field_err(err, idx, "range '%.*s' goes backwards", s, blen, 0, 0);
		} else {
			if ((rc = parse_value(f, idx, s, blen, &a, err)) != 0)
				return rc;
			b = slash ? f->hi : a;
		}
	}
	for (int v = a; v <= b; v += step)
		*bits |= (uint64_t)1 << v;
	return 0;
}

static int parse_field(int idx, const char *s, size_t len, uint64_t *bits, kn_err *err)
{
	const field_spec *f = &specs[idx];
	size_t i = 0;
	*bits = 0;
	while (i <= len) {
		const char *comma = memchr(s + i, ',', len - i);
		size_t end = comma ? (size_t)(comma - s) : len;
		int rc = parse_item(f, idx, s + i, end - i, bits, err);
		if (rc != 0)
			return rc;
		i = end + 1;
	}
	return 0;
}

static const struct {
	const char *name, *expr;
} macros[] = {
	{ "@yearly", "0 0 1 1 *" }, { "@annually", "0 0 1 1 *" }, { "@monthly", "0 0 1 * *" },
	{ "@weekly", "0 0 * * 0" }, { "@daily", "0 0 * * *" },    { "@midnight", "0 0 * * *" },
	{ "@hourly", "0 * * * *" },
};

int kn_cron_parse(kn_cron *out, const char *expr, kn_err *err)
{
	const char *tok[6];
	size_t len[6];
	int n = 0;
	if (!out || !expr)
		return kn_err_set(err, KN_EINVAL, "cron: no expression");
	size_t total = strnlen(expr, KN_CRON_MAX_LEN + 1);
	if (total > KN_CRON_MAX_LEN)
		return kn_err_set(err, KN_ELIMIT, "cron: expression longer than %d bytes", KN_CRON_MAX_LEN);
	const char *p = expr;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '@') {
		size_t l = strcspn(p, " \t");
		const char *rest = p + l;
		while (*rest == ' ' || *rest == '\t')
			rest++;
		if (*rest == '\0') {
			for (size_t i = 0; i < sizeof macros / sizeof macros[0]; i++)
				if (strlen(macros[i].name) == l && strncmp(p, macros[i].name, l) == 0)
					return kn_cron_parse(out, macros[i].expr, err);
			if (l == 7 && strncmp(p, "@reboot", 7) == 0)
				return kn_err_set(err, KN_EUNSUPPORTED, "cron: @reboot is not a schedule");
		}
		char shown[40];
		snprintf(shown, sizeof shown, "%.*s", (int)(l > 32 ? 32 : l), p);
		for (char *q = shown; *q; q++)
			if ((unsigned char)*q < 0x20 || (unsigned char)*q >= 0x7f)
				*q = '?';
		return kn_err_set(err, KN_EINVAL,
		                  "cron: unknown macro '%s' (expected @yearly, @annually, @monthly, @weekly, "
		                  "@daily, @midnight or @hourly, alone)",
		                  shown);
	}
	while (*p) {
		size_t l = strcspn(p, " \t");
		if (n < 6)
			tok[n] = p, len[n] = l;
		n++;
		p += l;
		while (*p == ' ' || *p == '\t')
			p++;
	}
	if (n != 5)
		return kn_err_set(err, KN_EINVAL,
		                  "cron: expected 5 fields (minute hour day-of-month month day-of-week), got %d",
		                  n);
	uint64_t bits[5];
	for (int i = 0; i < 5; i++) {
		int rc = parse_field(i, tok[i], len[i], &bits[i], err);
		if (rc != 0)
			return rc;
	}
	kn_cron c = { 0 };
	c.minute = bits[0];
	c.hour = (uint32_t)bits[1];
	c.dom = (uint32_t)bits[2];
	c.month = (uint16_t)bits[3];
	c.dow = (uint8_t)((bits[4] | (bits[4] >> 7)) & 0x7f); /* 7 is Sunday */
	c.dom_star = tok[2][0] == '*';
	c.dow_star = tok[4][0] == '*';
	*out = c;
	return 0;
}

/* ---- calendar ---------------------------------------------------------------------------------- */

/* Days since 1970-01-01 of y-m-d (H. Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static int days_in_month(int64_t y, int m)
{
	static const int dim[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return dim[m - 1];
}

typedef struct tm_utc {
	int64_t y;
	int mo, d, h, mi;
} tm_utc;

static int day_ok(const kn_cron *c, const tm_utc *t)
{
	int64_t days = days_from_civil(t->y, t->mo, t->d);
	int wd = (int)(((days + 4) % 7 + 7) % 7); /* 1970-01-01 was a Thursday */
	int dom_ok = (c->dom >> t->d) & 1, dow_ok = (c->dow >> wd) & 1;
	if (c->dom_star || c->dow_star)
		return dom_ok && dow_ok;
	return dom_ok || dow_ok;
}

static void norm_fwd(tm_utc *t)
{
	if (t->mi > 59)
		t->mi = 0, t->h++;
	if (t->h > 23)
		t->h = 0, t->d++;
	if (t->d > days_in_month(t->y, t->mo))
		t->d = 1, t->mo++;
	if (t->mo > 12)
		t->mo = 1, t->y++;
}

static void norm_back(tm_utc *t)
{
	if (t->mi < 0)
		t->mi = 59, t->h--;
	if (t->h < 0)
		t->h = 23, t->d--;
	if (t->d < 1) {
		if (--t->mo < 1)
			t->mo = 12, t->y--;
		t->d = days_in_month(t->y, t->mo);
	}
}

/* Seconds 0001-01-01 .. 9999-12-31: a window where no arithmetic here can overflow. */
#define KN_CRON_T_MIN (-62135596800LL)
#define KN_CRON_T_MAX 253402300799LL

static int to_tm(int64_t t, tm_utc *out, kn_err *err)
{
	if (t < KN_CRON_T_MIN || t > KN_CRON_T_MAX)
		return kn_err_set(err, KN_EINVAL, "cron: time %lld out of range (years 1-9999)",
		                  (long long)t);
	int64_t days = t >= 0 ? t / 86400 : -((-t + 86399) / 86400);
	int64_t sec = t - days * 86400;
	civil_from_days(days, &out->y, &out->mo, &out->d);
	out->h = (int)(sec / 3600);
	out->mi = (int)(sec % 3600 / 60);
	return 0;
}

static int64_t from_tm(const tm_utc *t)
{
	return days_from_civil(t->y, t->mo, t->d) * 86400 + t->h * 3600 + t->mi * 60;
}

int kn_cron_check(const char *expr, kn_err *err)
{
	kn_cron c;
	kn_err e = { 0 };
	int rc = kn_cron_parse(&c, expr, &e);
	if (rc != 0)
		kn_err_set(err, rc, "%s", strncmp(e.msg, "cron: ", 6) == 0 ? e.msg + 6 : e.msg);
	return rc;
}

int kn_cron_next(const kn_cron *c, int64_t after, int64_t *out, kn_err *err)
{
	tm_utc t;
	int rc;
	if (after >= KN_CRON_T_MAX - 60)
		return kn_err_set(err, KN_EINVAL, "cron: time %lld out of range (years 1-9999)",
		                  (long long)after);
	if ((rc = to_tm(after, &t, err)) != 0)
		return rc;
	t.mi++; /* strictly after: the next whole minute */
	norm_fwd(&t);
	int64_t limit = t.y + 400;
	while (t.y <= limit) {
		if (!((c->month >> t.mo) & 1)) {
			t.mo++, t.d = 1, t.h = 0, t.mi = 0;
			if (t.mo > 12)
				t.mo = 1, t.y++;
		} else if (!day_ok(c, &t)) {
			t.d++, t.h = 0, t.mi = 0;
			norm_fwd(&t);
		} else if (!((c->hour >> t.h) & 1)) {
			t.h++, t.mi = 0;
			norm_fwd(&t);
		} else if (!((c->minute >> t.mi) & 1)) {
			t.mi++;
			norm_fwd(&t);
		} else {
			*out = from_tm(&t);
			return 0;
		}
	}
	return kn_err_set(err, KN_ENOTFOUND, "cron: the expression never fires (checked 400 years)");
}

int kn_cron_prev(const kn_cron *c, int64_t at, int64_t *out, kn_err *err)
{
	tm_utc t;
	int rc;
	if ((rc = to_tm(at, &t, err)) != 0)
		return rc;
	int64_t limit = t.y - 400;
	while (t.y >= limit && t.y >= 1) {
		if (!((c->month >> t.mo) & 1)) {
			t.d = 0, t.h = 23, t.mi = 59;
			norm_back(&t);
		} else if (!day_ok(c, &t)) {
			t.d--, t.h = 23, t.mi = 59;
			norm_back(&t);
		} else if (!((c->hour >> t.h) & 1)) {
			t.h--, t.mi = 59;
			norm_back(&t);
		} else if (!((c->minute >> t.mi) & 1)) {
			t.mi--;
			norm_back(&t);
		} else {
			*out = from_tm(&t);
			return 0;
		}
	}
	return kn_err_set(err, KN_ENOTFOUND, "cron: the expression never fires (checked 400 years)");
}
