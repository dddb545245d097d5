/* metrics.c — Prometheus counters, gauges and the per-route latency histogram (metrics.h).
 *
 * Labelled series are kept in small fixed tables (routes × status codes, run statuses, …): their
 * label values come from our own code (route names, status names), never from a request, so the
 * tables cannot grow without bound; a value that does not fit lands in "other". */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/grow.h"
#include "metrics.h"

#define N_BUCKETS 12
static const double buckets[N_BUCKETS] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                          0.05,   0.1,   0.25,   0.5,   1,    2.5};
#define MAX_CODES 12
#define MAX_LABELS 16

struct labelled {
	char name[32];
	unsigned long long n;
};

struct route_stats {
	unsigned long long bucket[N_BUCKETS], count;
	double sum;
	struct {
		int code;
		unsigned long long n;
	} codes[MAX_CODES];
};

struct kn_metrics {
	pthread_mutex_t mu;
	struct route_stats routes[KN_ROUTE__COUNT];
	struct labelled runs_total[MAX_LABELS], replays_total[MAX_LABELS], health[MAX_LABELS];
	unsigned long long events, reached;
	long runs_active, spooled;
	int db_up;
};

int kn_metrics_new(kn_metrics **out)
{
	kn_metrics *m = calloc(1, sizeof *m);
	if (!m)
		return KN_ENOMEM;
	pthread_mutex_init(&m->mu, NULL);
	*out = m;
	return 0;
}

void kn_metrics_free(kn_metrics *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->mu);
	free(m);
}

/* The slot for name in a label table (added when new; "other" when full). Lock held. */
static struct labelled *slot(struct labelled *t, const char *name)
{
	size_t i;
	for (i = 0; i < MAX_LABELS && t[i].name[0]; i++)
		if (strcmp(t[i].name, name) == 0)
			return &t[i];
	if (i == MAX_LABELS - 1 || i == MAX_LABELS)
		name = "other";
	if (i == MAX_LABELS)
		i = MAX_LABELS - 1;
	snprintf(t[i].name, sizeof t[i].name, "%s", name);
	return &t[i];
}

void kn_metrics_request(kn_metrics *m, kn_route route, int code, double seconds)
{
	if (!m || route < 0 || route >= KN_ROUTE__COUNT)
		return;
	pthread_mutex_lock(&m->mu);
	struct route_stats *r = &m->routes[route];
	for (int i = 0; i < N_BUCKETS; i++)
		if (seconds <= buckets[i])
			r->bucket[i]++;
	r->count++;
	r->sum += seconds;
	int i;
	for (i = 0; i < MAX_CODES && r->codes[i].code && r->codes[i].code != code; i++)
		;
	if (i == MAX_CODES)
		i = MAX_CODES - 1; /* absurdly many codes on one route: fold into the last */
	r->codes[i].code = r->codes[i].code ? r->codes[i].code : code;
	r->codes[i].n++;
	pthread_mutex_unlock(&m->mu);
}

void kn_metrics_run_ended(kn_metrics *m, const char *status)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->mu);
	slot(m->runs_total, status ? status : "unknown")->n++;
	pthread_mutex_unlock(&m->mu);
}

void kn_metrics_event(kn_metrics *m, int keynodes_reached)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->mu);
	m->events++;
	if (keynodes_reached > 0)
		m->reached += (unsigned)keynodes_reached;
	pthread_mutex_unlock(&m->mu);
}

void kn_metrics_set_replays(kn_metrics *m, const char *status, long n)
{
	if (!m || !status)
		return;
	pthread_mutex_lock(&m->mu);
	slot(m->replays_total, status)->n = (unsigned long long)n;
	pthread_mutex_unlock(&m->mu);
}

void kn_metrics_set_runs_active(kn_metrics *m, long n)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->mu);
	m->runs_active = n;
	pthread_mutex_unlock(&m->mu);
}

void kn_metrics_set_ingest(kn_metrics *m, long spooled, int db_up)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->mu);
	m->spooled = spooled;
	m->db_up = db_up;
	pthread_mutex_unlock(&m->mu);
}

void kn_metrics_set_health(kn_metrics *m, const char *state, long n)
{
	if (!m || !state)
		return;
	pthread_mutex_lock(&m->mu);
	slot(m->health, state)->n = (unsigned long long)n;
	pthread_mutex_unlock(&m->mu);
}

/* A growing text buffer; on allocation failure it stays failed and render reports KN_ENOMEM. */
struct buf {
	char *p;
	size_t len, cap;
	int failed;
};

KN_PRINTF(2, 3)
static void put(struct buf *b, const char *fmt, ...)
{
	if (b->failed)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = 1;
			return;
		}
		if (b->p && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		if (kn_grow_to(&b->p, b->len + (size_t)n + 1, &b->cap, 1, 4096)) {
			b->failed = 1;
			return;
		}
	}
}

static void put_labelled(struct buf *b, const char *name, const char *type, const char *help,
                         const char *label, const struct labelled *t)
{
	put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	for (size_t i = 0; i < MAX_LABELS && t[i].name[0]; i++)
		put(b, "%s{%s=\"%s\"} %llu\n", name, label, t[i].name, t[i].n);
}

int kn_metrics_render(kn_metrics *m, char **out, size_t *len)
{
	struct buf b = {0};
	pthread_mutex_lock(&m->mu);
	put(&b, "# HELP keynode_runs_active Runs being watched or fed now.\n"
	        "# TYPE keynode_runs_active gauge\nkeynode_runs_active %ld\n", m->runs_active);
	put_labelled(&b, "keynode_runs_total", "counter", "Runs ended, by result status.", "status",
	             m->runs_total);
	put(&b, "# HELP keynode_events_total Trajectory events evaluated.\n"
	        "# TYPE keynode_events_total counter\nkeynode_events_total %llu\n", m->events);
	put(&b, "# HELP keynode_keynodes_reached_total Key nodes whose score rose.\n"
	        "# TYPE keynode_keynodes_reached_total counter\nkeynode_keynodes_reached_total %llu\n",
	    m->reached);
	put(&b, "# HELP keynode_api_request_duration_seconds API answer time.\n"
	        "# TYPE keynode_api_request_duration_seconds histogram\n");
	for (int r = 0; r < KN_ROUTE__COUNT; r++) {
		const struct route_stats *s = &m->routes[r];
		if (!s->count)
			continue;
		const char *rn = kn_route_name((kn_route)r);
		for (int i = 0; i < N_BUCKETS; i++)
			put(&b, "keynode_api_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %llu\n",
			    rn, buckets[i], s->bucket[i]);
		put(&b, "keynode_api_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %llu\n", rn,
		    s->count);
		put(&b, "keynode_api_request_duration_seconds_sum{route=\"%s\"} %.9f\n", rn, s->sum);
		put(&b, "keynode_api_request_duration_seconds_count{route=\"%s\"} %llu\n", rn, s->count);
	}
	put(&b, "# HELP keynode_api_requests_total API requests by route and status code.\n"
	        "# TYPE keynode_api_requests_total counter\n");
	for (int r = 0; r < KN_ROUTE__COUNT; r++)
		for (int i = 0; i < MAX_CODES && m->routes[r].codes[i].code; i++)
			put(&b, "keynode_api_requests_total{route=\"%s\",code=\"%d\"} %llu\n",
			    kn_route_name((kn_route)r), m->routes[r].codes[i].code, m->routes[r].codes[i].n);
	put_labelled(&b, "keynode_replays_total", "counter", "Replay results, by status.", "status",
	             m->replays_total);
	put_labelled(&b, "keynode_task_health", "gauge", "Tasks per health state.", "state", m->health);
	put(&b, "# HELP keynode_ingest_spooled Records waiting in the on-disk spool.\n"
	        "# TYPE keynode_ingest_spooled gauge\nkeynode_ingest_spooled %ld\n", m->spooled);
	put(&b, "# HELP keynode_db_up 1 when the database answers.\n"
	        "# TYPE keynode_db_up gauge\nkeynode_db_up %d\n", m->db_up);
	pthread_mutex_unlock(&m->mu);
	if (b.failed) {
		free(b.p);
		return KN_ENOMEM;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}
