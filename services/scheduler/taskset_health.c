/* taskset_health.c — a task set's validated share, breaks per month, detection times and the
 * Kaplan-Meier survival of its tasks' validity, from its replay history (taskset_health.h).
 * Works on a sorted copy of the events: by task, then time, a PASS before a BREAK at the same
 * millisecond (the replay that passed happened before the state changed). */
#include <stdlib.h>
#include <string.h>

#include "taskset_health.h"

#define DAY_MS INT64_C(86400000)

static int by_task_time(const void *a, const void *b)
{
	const kn_th_event *x = a, *y = b;
	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

static int by_break_time(const void *a, const void *b)
{
	const kn_th_break *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->task < y->task ? -1 : x->task > y->task;
}

/* Year and month (1..12) of a UTC time: the civil calendar from days since 1970-01-01
 * (the proleptic Gregorian algorithm of H. Hinnant's "chrono-compatible date algorithms"). */
static void civil_month(int64_t ms, int *year, int *month)
{
	int64_t z = (ms >= 0 ? ms / DAY_MS : (ms - DAY_MS + 1) / DAY_MS) + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int64_t m = mp < 10 ? mp + 3 : mp - 9;
	*year = (int)(yoe + era * 400 + (m <= 2));
	*month = (int)m;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* The months from the first event's to now's with their breaks. */
static int count_months(kn_th_summary *s, int64_t first, int64_t now)
{
	int y0, m0, y1, m1;
	civil_month(first, &y0, &m0);
	civil_month(now, &y1, &m1);
	long span = (long)(y1 - y0) * 12 + (m1 - m0) + 1;
	if (span > KN_TH_MAX_MONTHS) { /* only the last ones */
		long skip = span - KN_TH_MAX_MONTHS;
		long k = (long)y0 * 12 + (m0 - 1) + skip;
		y0 = (int)(k / 12);
		m0 = (int)(k % 12) + 1;
		span = KN_TH_MAX_MONTHS;
	}
	s->months = calloc((size_t)span, sizeof *s->months);
	if (!s->months)
		return KN_ENOMEM;
	s->nmonths = (size_t)span;
	for (long i = 0; i < span; i++) {
		long k = (long)y0 * 12 + (m0 - 1) + i;
		s->months[i].year = (int)(k / 12);
		s->months[i].month = (int)(k % 12) + 1;
	}
	for (size_t i = 0; i < s->nbreaks; i++) {
		int y, m;
		civil_month(s->breaks[i].at, &y, &m);
		long k = ((long)y - s->months[0].year) * 12 + (m - s->months[0].month);
		if (k >= 0 && k < span)
			s->months[k].breaks++;
	}
	return 0;
}

/* Kaplan-Meier over the intervals: dur[i] >= 0, ended[i] 1 for a break, 0 censored. */
static int survival(kn_th_summary *s, const int64_t *dur, const unsigned char *ended, size_t n)
{
	s->median_ms = -1;
	if (n == 0)
		return 0;
	/* each interval as 2 × duration + ended, sorted: an interval's duration is t >> 1 (never
	 * negative: events after now are left out), and at one duration the censored come first */
	int64_t *t = malloc(n * sizeof *t);
	s->curve = calloc(n, sizeof *s->curve);
	if (!t || !s->curve) {
		free(t);
		return KN_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		t[i] = dur[i] * 2 + (ended[i] ? 1 : 0);
	qsort(t, n, sizeof *t, cmp_i64);
	double surv = 1.0;
	for (size_t i = 0; i < n;) {
		kn_th_step *st = &s->curve[s->ncurve++];
		st->t_ms = t[i] >> 1;
		st->at_risk = (long)(n - i);
		for (; i < n && t[i] >> 1 == st->t_ms; i++) {
			if (t[i] & 1)
				st->ended++;
			else
				st->censored++;
		}
		surv *= 1.0 - (double)st->ended / (double)st->at_risk;
		st->survival = surv;
		if (s->median_ms < 0 && surv <= 0.5)
			s->median_ms = st->t_ms;
	}
	free(t);
	return 0;
}

/* One task's events ev[0..n) (sorted): its breaks, validation and interval. */
static void one_task(kn_th_summary *s, const kn_th_event *ev, size_t n, int64_t now, int64_t since,
                     int64_t *dur, unsigned char *ended, size_t *nint)
{
	int64_t last_pass = -1, first_pass = -1, first_break = -1;
	int passed_since_break = 0, validated = 0;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].kind == KN_TH_PASS) {
			last_pass = ev[i].at;
			if (first_pass < 0)
				first_pass = ev[i].at;
			passed_since_break = 1;
			if (ev[i].at > since)
				validated = 1;
			continue;
		}
		kn_th_break *b = &s->breaks[s->nbreaks++];
		b->task = ev[i].task;
		b->at = ev[i].at;
		b->last_pass = passed_since_break ? last_pass : -1;
		b->detection_ms = passed_since_break ? ev[i].at - last_pass : -1;
		passed_since_break = 0;
		if (first_pass >= 0 && first_break < 0)
			first_break = ev[i].at;
	}
	s->validated += (size_t)validated;
	if (first_pass < 0)
		return;
	dur[*nint] = (first_break >= 0 ? first_break : now) - first_pass;
	ended[*nint] = first_break >= 0;
	(*nint)++;
}

int kn_th_compute(kn_th_summary **out, size_t ntasks, const kn_th_event *events, size_t n, int64_t now,
                  int days, kn_err *err)
{
	*out = NULL;
	if (days < 1 || days > KN_TH_MAX_DAYS)
		return kn_err_set(err, KN_EINVAL, "days must be 1 to %d", KN_TH_MAX_DAYS);
	if (n > KN_TH_MAX_EVENTS)
		return kn_err_set(err, KN_ELIMIT, "more than %d replay events", KN_TH_MAX_EVENTS);
	if (n && !events)
		return kn_err_set(err, KN_EINVAL, "no events");
	kn_th_summary *s = calloc(1, sizeof *s);
	kn_th_event *ev = malloc((n ? n : 1) * sizeof *ev);
	int64_t *dur = malloc((ntasks ? ntasks : 1) * sizeof *dur);
	unsigned char *ended = malloc(ntasks ? ntasks : 1);
	int rc = 0;
	if (!s || !ev || !dur || !ended) {
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
		goto done;
	}
	s->tasks = ntasks;
	s->days = days;
	size_t m = 0;
	int64_t first = now;
	for (size_t i = 0; i < n; i++) {
		if (events[i].task >= ntasks || (events[i].kind != KN_TH_PASS && events[i].kind != KN_TH_BREAK)) {
			rc = kn_err_set(err, KN_EINVAL, "event %zu: task %zu of %zu, kind %d", i, events[i].task,
			                ntasks, (int)events[i].kind);
			goto done;
		}
		if (events[i].at > now)
			continue;
		ev[m++] = events[i];
		if (events[i].at < first)
			first = events[i].at;
	}
	qsort(ev, m, sizeof *ev, by_task_time);
	size_t nb = 0;
	for (size_t i = 0; i < m; i++)
		nb += ev[i].kind == KN_TH_BREAK;
	s->breaks = calloc(nb ? nb : 1, sizeof *s->breaks);
	if (!s->breaks) {
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
		goto done;
	}
	size_t nint = 0;
	for (size_t i = 0; i < m;) {
		size_t j = i;
		while (j < m && ev[j].task == ev[i].task)
			j++;
		one_task(s, ev + i, j - i, now, now - (int64_t)days * DAY_MS, dur, ended, &nint);
		i = j;
	}
	qsort(s->breaks, s->nbreaks, sizeof *s->breaks, by_break_time);
	for (size_t i = 0; i < nint; i++)
		s->ended += ended[i];
	s->intervals = nint;
	if ((rc = count_months(s, first, now)) != 0 || (rc = survival(s, dur, ended, nint)) != 0) {
		kn_err_set(err, rc, "out of memory");
		goto done;
	}
done:
	free(ev);
	free(dur);
	free(ended);
	if (rc) {
		kn_th_summary_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void kn_th_summary_free(kn_th_summary *s)
{
	if (!s)
		return;
	free(s->breaks);
	free(s->months);
	free(s->curve);
	free(s);
}
