/* ingest.c — kn_ingest, the durable write path of `serve`: callers enqueue run starts, events and
 * run finishes from any thread; one writer thread with its own connection batches consecutive
 * events of a run into one multi-row insert (batch_max, flush_ms). When the database is
 * unreachable the writer moves what it holds and everything queued to the spool (spool.c), and
 * from then on enqueuers append straight to the spool, so order is kept; the writer reconnects
 * every retry_ms, flushes the spool in order, then goes back to live records. Every write is
 * idempotent (runs by id, events by (run, seq)), so a record sent twice (a flush interrupted by a
 * crash or a second outage) is stored once. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keynode/clock.h"
#include "log.h"
#include "spool.h"
#include "store_internal.h"

#define KN_INGEST_QUEUE_BYTES (64u * 1024u * 1024u) /* in memory before enqueuers wait */
#define KN_INGEST_STOP_MS 5000                       /* kn_ingest_free's flush budget */

typedef struct rec_node {
	struct rec_node *next;
	kn_spool_rec rec;
	size_t bytes;
	uint64_t ticket;          /* its number in enqueue order */
} rec_node;

struct kn_ingest {
	char *conninfo, *spool_dir;
	uint64_t spool_max;
	int batch_max, flush_ms, retry_ms;

	pthread_mutex_t mu;
	pthread_cond_t cv_work, cv_done;
	rec_node *head, *tail;
	size_t qlen, qbytes;
	double first_at; /* when the oldest queued record arrived (kn_time_mono_ms) */
	int spooling, busy, stop;
	kn_spool *sp;
	uint64_t flush_off;       /* writer only */
	kn_ingest_stats stats;
	/* Durability (kn_ingest_wait): every enqueued record gets the next ticket; durable is the
	 * highest ticket such that it and every record before it are committed to the database or
	 * appended to the spool and fdatasync'ed. spooled_ticket: the last record appended straight
	 * to the spool (durable once the spool is synced); lost: the last ticket given up on. */
	uint64_t tickets, durable, spooled_ticket, lost;
	int waiters, urgent;      /* urgent: a poller wants the queue written now */
	void (*on_durable)(void *ud);
	void *on_durable_ud;

	kn_store *st;             /* writer only */
	pthread_t th;
};

static long ms_since(double t)
{
	return (long)(kn_time_mono_ms() - t);
}

/* ---- writing a sequence of records ---------------------------------------------------------- */

static int write_one(kn_ingest *in, const kn_spool_rec *r, kn_err *err)
{
	if (r->kind == KN_SPOOL_RUN_START) {
		kn_store_run run = {r->run_id, r->task_version, r->run_kind, r->browser, r->started,
		                    r->owner, 0};
		return kn_store_run_start(in->st, &run, err);
	}
	if (r->kind == KN_SPOOL_RUN_FINISH)
		return kn_store_run_finish(in->st, r->run_id, r->ended, r->text, err);
	const char *line = r->text;
	return kn_store_events_append(in->st, r->run_id, r->seq, &line, 1, err);
}

/* Write recs[0..n) in order. Returns 0, or KN_EIO (connection lost) with *done = how many were
 * handled (written, or dropped as rejected by the database: those are logged). */
static int write_records(kn_ingest *in, kn_spool_rec *const *recs, size_t n, size_t *done)
{
	const char **lines = malloc((size_t)in->batch_max * sizeof *lines);
	size_t i = 0, written = 0, batches = 0;
	int rc = 0;
	kn_err err;
	while (i < n) {
		const kn_spool_rec *r = recs[i];
		size_t m = 1;
		if (r->kind == KN_SPOOL_EVENT && lines) {
			lines[0] = r->text;
			while (i + m < n && m < (size_t)in->batch_max && recs[i + m]->kind == KN_SPOOL_EVENT &&
			       recs[i + m]->seq == r->seq + (int64_t)m && strcmp(recs[i + m]->run_id, r->run_id) == 0) {
				lines[m] = recs[i + m]->text;
				m++;
			}
			rc = kn_store_events_append(in->st, r->run_id, r->seq, lines, m, &err);
			if (rc == 0) {
				written += m;
				batches++;
			} else if (rc == KN_EDB) {
				/* One bad line must not cost its neighbours: retry one by one, dropping (and
				 * logging) only what the database refuses. */
				for (size_t k = 0; k < m; k++) {
					rc = write_one(in, recs[i + k], &err);
					if (rc == KN_EIO) {
						i += k;
						goto out;
					}
					if (rc != 0)
						kn_log_msgf("error", "ingest", "event dropped: run=%s seq=%lld: %s", r->run_id,
						            (long long)recs[i + k]->seq, err.msg);
					else
						written++;
					batches++;
				}
				rc = 0;
			} else if (rc != KN_EIO)
				kn_log_msgf("error", "ingest", "%zu events dropped: run=%s seq=%lld..: %s", m, r->run_id,
				            (long long)r->seq, err.msg);
		} else {
			rc = write_one(in, r, &err);
			if (rc == 0 && r->kind == KN_SPOOL_EVENT) {
				written++;
				batches++;
			}
			if (rc != 0 && rc != KN_EIO)
				kn_log_msgf("error", "ingest", "record dropped: kind=%c run=%s: %s", (char)r->kind, r->run_id,
				            err.msg);
		}
		if (rc == KN_EIO)
			break;
		rc = 0;
		i += m;
	}
out:
	free(lines);
	pthread_mutex_lock(&in->mu);
	in->stats.events_written += written;
	in->stats.batches += batches;
	pthread_mutex_unlock(&in->mu);
	*done = i;
	return rc;
}

/* ---- the spool side ------------------------------------------------------------------------- */

/* Under mu: move records to the spool, in order; a record that cannot be spooled is lost
 * (logged). Frees the nodes. */
static void spool_nodes(kn_ingest *in, rec_node *n)
{
	while (n) {
		rec_node *next = n->next;
		kn_err err;
		if (kn_spool_append(in->sp, &n->rec, &err) == 0) {
			in->stats.spooled++;
		} else {
			kn_log_msgf("error", "ingest", "record lost: kind=%c run=%s: %s", (char)n->rec.kind, n->rec.run_id,
			            err.msg);
			in->lost = n->ticket;
		}
		kn_spool_rec_clear(&n->rec);
		free(n);
		n = next;
	}
	in->stats.spool_bytes = kn_spool_size(in->sp);
}

static void spool_warn(void *ud, const char *msg)
{
	(void)ud;
	kn_log_msg("warn", "ingest", msg, NULL);
}

/* Connect (or reconnect) the writer; 0 when up. */
static int writer_connect(kn_ingest *in)
{
	kn_err err;
	int rc = in->st ? kn_store_reset(in->st, &err) : kn_store_open(&in->st, in->conninfo, &err);
	pthread_mutex_lock(&in->mu);
	int was = in->stats.db_up;
	in->stats.db_up = rc == 0;
	pthread_mutex_unlock(&in->mu);
	if (rc == 0 && !was)
		kn_log_msg("info", "ingest", "database connection up", NULL);
	return rc;
}

static void mark_down(kn_ingest *in, const char *why)
{
	pthread_mutex_lock(&in->mu);
	int was = in->stats.db_up;
	in->stats.db_up = 0;
	pthread_mutex_unlock(&in->mu);
	if (was)
		kn_log_msgf("warn", "ingest", "database unreachable, spooling: %s", why);
}

/* Flush the spool while the database takes it, chunk by chunk: 1 when it is empty now (and the
 * ingest is live again), 0 when the connection was lost again or time ran out. */
static int flush_spool(kn_ingest *in, double started, long budget_ms)
{
	size_t cap = (size_t)in->batch_max * 4;
	kn_spool_rec *recs = calloc(cap, sizeof *recs);
	kn_spool_rec **ptrs = calloc(cap, sizeof *ptrs);
	uint64_t *ends = calloc(cap, sizeof *ends);
	int emptied = 0, read_failed = 0;
	if (!recs || !ptrs || !ends)
		goto out;
	for (;;) {
		pthread_mutex_lock(&in->mu);
		uint64_t limit = kn_spool_size(in->sp);
		if (in->flush_off >= limit) {
			/* Nothing more: enqueuers append only under mu, so this is the end for good. */
			kn_err err;
			if (kn_spool_truncate(in->sp, &err) != 0)
				kn_log_msg("error", "ingest", err.msg, NULL);
			in->flush_off = 0;
			in->spooling = 0;
			in->stats.spool_bytes = 0;
			pthread_cond_broadcast(&in->cv_done);
			pthread_mutex_unlock(&in->mu);
			emptied = 1;
			kn_log_msg("info", "ingest", "spool flushed", NULL);
			break;
		}
		pthread_mutex_unlock(&in->mu);
		size_t n = 0;
		uint64_t off = in->flush_off;
		while (n < cap) {
			int r = kn_spool_next(in->sp, &off, limit, &recs[n], spool_warn, in, NULL);
			if (r < 0) {
				kn_log_msgf("error", "ingest", "spool read failed: %s", kn_strerror(r));
				read_failed = 1;
				break;
			}
			if (r == 0)
				break;
			ptrs[n] = &recs[n];
			ends[n++] = off;
		}
		size_t done = 0;
		int rc = write_records(in, ptrs, n, &done);
		if (done > 0)
			in->flush_off = ends[done - 1];
		else if (n == 0)
			in->flush_off = off; /* only bad lines were left */
		for (size_t i = 0; i < n; i++)
			kn_spool_rec_clear(&recs[i]);
		if (rc == KN_EIO) {
			mark_down(in, "lost during spool flush");
			break;
		}
		if (read_failed)
			break;
		if (budget_ms >= 0 && ms_since(started) > budget_ms)
			break;
	}
out:
	free(recs);
	free(ptrs);
	free(ends);
	return emptied;
}

/* ---- the writer thread ---------------------------------------------------------------------- */

/* Write the records taken from the queue; on connection loss move the rest, and everything
 * queued since, to the spool. */
static void write_batch(kn_ingest *in, rec_node *list, size_t n)
{
	kn_spool_rec **ptrs = malloc((n ? n : 1) * sizeof *ptrs);
	rec_node **nodes = malloc((n ? n : 1) * sizeof *nodes);
	size_t i = 0, done = 0;
	int rc = KN_EIO;
	if (ptrs && nodes) {
		for (rec_node *p = list; p; p = p->next, i++) {
			ptrs[i] = &p->rec;
			nodes[i] = p;
		}
		rc = in->stats.db_up ? write_records(in, ptrs, n, &done) : KN_EIO;
	}
	/* Free what was handled; the rest (from the first unwritten) goes to the spool. */
	rec_node *rest = list;
	uint64_t last = 0; /* the last ticket handled */
	for (size_t k = 0; k < done; k++) {
		last = rest->ticket;
		rec_node *next = rest->next;
		kn_spool_rec_clear(&rest->rec);
		free(rest);
		rest = next;
	}
	free(ptrs);
	free(nodes);
	pthread_mutex_lock(&in->mu);
	if (rc == KN_EIO) {
		if (in->stats.db_up)
			kn_log_msg("warn", "ingest", "database unreachable, spooling", NULL);
		in->stats.db_up = 0;
		spool_nodes(in, rest);
		spool_nodes(in, in->head);
		in->head = in->tail = NULL;
		in->qlen = in->qbytes = 0;
		in->spooling = 1;
		in->spooled_ticket = in->tickets;
		kn_err err;
		if (kn_spool_sync(in->sp, kn_spool_size(in->sp), &err) != 0)
			kn_log_msg("error", "ingest", err.msg, NULL);
		else
			last = in->tickets;
	}
	if (last > in->durable)
		in->durable = last;
	in->busy = 0;
	pthread_cond_broadcast(&in->cv_done);
	pthread_mutex_unlock(&in->mu);
}

static void *writer_main(void *arg)
{
	kn_ingest *in = arg;
	double stop_at = 0; /* kn_time_mono_ms when stop was seen */
	pthread_mutex_lock(&in->mu);
	for (;;) {
		if (in->stop && stop_at == 0)
			stop_at = kn_time_mono_ms();
		if (in->spooling) {
			pthread_mutex_unlock(&in->mu);
			int up = in->stats.db_up || writer_connect(in) == 0;
			int emptied = up && flush_spool(in, stop_at, in->stop ? KN_INGEST_STOP_MS : -1);
			pthread_mutex_lock(&in->mu);
			if (emptied)
				continue;
			if (in->stop && (!up || ms_since(stop_at) > KN_INGEST_STOP_MS))
				break; /* what is left stays in the spool for the next start */
			if (!in->stats.db_up) {
				struct timespec ts;
				kn_time_deadline(&ts, CLOCK_MONOTONIC, in->retry_ms);
				pthread_cond_timedwait(&in->cv_work, &in->mu, &ts);
			}
			continue;
		}
		if (!in->head) {
			if (in->stop)
				break;
			pthread_cond_wait(&in->cv_work, &in->mu);
			continue;
		}
		long age = ms_since(in->first_at);
		if (!in->stop && !in->waiters && !in->urgent && in->qlen < (size_t)in->batch_max &&
		    age < in->flush_ms) {
			struct timespec ts;
			kn_time_deadline(&ts, CLOCK_MONOTONIC, (int)(in->flush_ms - age));
			pthread_cond_timedwait(&in->cv_work, &in->mu, &ts);
			continue;
		}
		rec_node *list = in->head;
		size_t n = in->qlen;
		in->urgent = 0;
		in->head = in->tail = NULL;
		in->qlen = in->qbytes = 0;
		in->busy = 1;
		pthread_cond_broadcast(&in->cv_done); /* room for enqueuers waiting on the cap */
		pthread_mutex_unlock(&in->mu);
		if (!in->stats.db_up)
			writer_connect(in);
		write_batch(in, list, n);
		if (in->on_durable)
			in->on_durable(in->on_durable_ud);
		pthread_mutex_lock(&in->mu);
	}
	pthread_mutex_unlock(&in->mu);
	return NULL;
}

/* ---- the public side ------------------------------------------------------------------------ */

int kn_ingest_new(kn_ingest **out, const kn_ingest_opts *opts, kn_err *err)
{
	*out = NULL;
	if (!opts || !opts->conninfo || !opts->spool_dir)
		return kn_err_set(err, KN_EINVAL, "ingest needs a database url and a spool directory");
	kn_ingest *in = calloc(1, sizeof *in);
	if (!in || !(in->conninfo = strdup(opts->conninfo)) || !(in->spool_dir = strdup(opts->spool_dir))) {
		if (in)
			free(in->conninfo);
		free(in);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	in->spool_max = opts->spool_max_bytes ? opts->spool_max_bytes : 256u * 1024u * 1024u;
	in->batch_max = opts->batch_max > 0 ? opts->batch_max : 500;
	if (in->batch_max > 10000)
		in->batch_max = 10000;
	in->flush_ms = opts->flush_ms > 0 ? opts->flush_ms : 50;
	in->retry_ms = opts->retry_ms > 0 ? opts->retry_ms : 1000;
	in->on_durable = opts->on_durable;
	in->on_durable_ud = opts->on_durable_ud;
	int rc = kn_spool_open(&in->sp, in->spool_dir, in->spool_max, err);
	if (rc != 0) {
		free(in->conninfo);
		free(in->spool_dir);
		free(in);
		return rc;
	}
	pthread_mutex_init(&in->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&in->cv_work, &ca);
	pthread_cond_init(&in->cv_done, &ca);
	pthread_condattr_destroy(&ca);
	in->stats.spool_bytes = kn_spool_size(in->sp);
	if (in->stats.spool_bytes > 0) {
		in->spooling = 1;
		kn_log_msgf("info", "ingest", "spool holds %llu bytes from an earlier process: flushing them first",
		            (unsigned long long)in->stats.spool_bytes);
	}
	kn_err cerr;
	if (kn_store_open(&in->st, in->conninfo, &cerr) == 0)
		in->stats.db_up = 1;
	else {
		in->spooling = 1;
		kn_log_msgf("warn", "ingest", "database unreachable, spooling: %s", cerr.msg);
	}
	if (pthread_create(&in->th, NULL, writer_main, in) != 0) {
		kn_store_free(in->st);
		kn_spool_close(in->sp);
		free(in->conninfo);
		free(in->spool_dir);
		free(in);
		return kn_err_set(err, KN_ENOMEM, "cannot start the ingest thread");
	}
	*out = in;
	return 0;
}

/* Take rec (its strings move into the ingest, also on failure). */
static int enqueue(kn_ingest *in, kn_spool_rec *rec, size_t bytes, kn_err *err)
{
	pthread_mutex_lock(&in->mu);
	while (!in->spooling && in->qbytes > KN_INGEST_QUEUE_BYTES && !in->stop)
		pthread_cond_wait(&in->cv_done, &in->mu);
	int rc = 0;
	if (in->spooling) {
		rc = kn_spool_append(in->sp, rec, err);
		if (rc == 0) {
			in->stats.spooled++;
			in->spooled_ticket = ++in->tickets;
		}
		in->stats.spool_bytes = kn_spool_size(in->sp);
		pthread_mutex_unlock(&in->mu);
		kn_spool_rec_clear(rec);
		return rc;
	}
	rec_node *n = malloc(sizeof *n);
	if (!n) {
		pthread_mutex_unlock(&in->mu);
		kn_spool_rec_clear(rec);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	n->rec = *rec;
	n->bytes = bytes;
	n->next = NULL;
	n->ticket = ++in->tickets;
	if (in->tail)
		in->tail->next = n;
	else {
		in->head = n;
		in->first_at = kn_time_mono_ms();
		pthread_cond_signal(&in->cv_work);
	}
	in->tail = n;
	in->qlen++;
	in->qbytes += bytes + sizeof *n;
	if (in->qlen == (size_t)in->batch_max)
		pthread_cond_signal(&in->cv_work);
	pthread_mutex_unlock(&in->mu);
	return 0;
}

static char *dup_or_null(const char *s, int *bad)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*bad = 1;
	return d;
}

int kn_ingest_run_start(kn_ingest *in, const kn_store_run *run, kn_err *err)
{
	if (!run || !run->id || !run->kind || !run->started)
		return kn_err_set(err, KN_EINVAL, "a run needs an id, a kind and a start time");
	int bad = 0;
	kn_spool_rec r = {.kind = KN_SPOOL_RUN_START, .task_version = run->task_version};
	r.run_id = dup_or_null(run->id, &bad);
	r.run_kind = dup_or_null(run->kind, &bad);
	r.browser = dup_or_null(run->browser, &bad);
	r.started = dup_or_null(run->started, &bad);
	r.owner = dup_or_null(run->owner, &bad);
	if (bad) {
		kn_spool_rec_clear(&r);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	return enqueue(in, &r, 128, err);
}

int kn_ingest_event(kn_ingest *in, const char *run_id, int64_t seq, const char *line, kn_err *err)
{
	if (!run_id || !line || seq < 1)
		return kn_err_set(err, KN_EINVAL, "an event needs a run id, a seq from 1 and a line");
	int bad = 0;
	kn_spool_rec r = {.kind = KN_SPOOL_EVENT, .seq = seq};
	r.run_id = dup_or_null(run_id, &bad);
	r.text = dup_or_null(line, &bad);
	if (bad) {
		kn_spool_rec_clear(&r);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	return enqueue(in, &r, strlen(line) + strlen(run_id), err);
}

int kn_ingest_run_finish(kn_ingest *in, const char *run_id, const char *ended,
                         const char *result_json, kn_err *err)
{
	if (!run_id || !ended || !result_json)
		return kn_err_set(err, KN_EINVAL, "a run finish needs the run id, end time and result");
	int bad = 0;
	kn_spool_rec r = {.kind = KN_SPOOL_RUN_FINISH};
	r.run_id = dup_or_null(run_id, &bad);
	r.ended = dup_or_null(ended, &bad);
	r.text = dup_or_null(result_json, &bad);
	if (bad) {
		kn_spool_rec_clear(&r);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	return enqueue(in, &r, strlen(result_json) + 64, err);
}

int kn_ingest_sync(kn_ingest *in, int timeout_ms, kn_err *err)
{
	struct timespec ts;
	kn_time_deadline(&ts, CLOCK_MONOTONIC, timeout_ms);
	pthread_mutex_lock(&in->mu);
	pthread_cond_signal(&in->cv_work);
	int rc = 0;
	while (in->head || in->busy || in->spooling) {
		/* Queued records wait flush_ms for company; a sync wants them now. */
		if (in->head)
			in->first_at -= 3600 * 1000.0;
		pthread_cond_signal(&in->cv_work);
		if (pthread_cond_timedwait(&in->cv_done, &in->mu, &ts) != 0) {
			rc = kn_err_set(err, KN_ETIMEOUT, "ingest not flushed within %d ms (%s)", timeout_ms,
			                in->spooling ? "database unreachable" : "still writing");
			break;
		}
	}
	pthread_mutex_unlock(&in->mu);
	return rc;
}

uint64_t kn_ingest_mark(kn_ingest *in)
{
	pthread_mutex_lock(&in->mu);
	uint64_t t = in->tickets;
	pthread_mutex_unlock(&in->mu);
	return t;
}

int kn_ingest_wait(kn_ingest *in, uint64_t from, uint64_t upto, int timeout_ms, kn_err *err)
{
	struct timespec ts;
	kn_time_deadline(&ts, CLOCK_MONOTONIC, timeout_ms);
	int rc = 0;
	pthread_mutex_lock(&in->mu);
	in->waiters++;
	pthread_cond_signal(&in->cv_work);
	while (in->durable < upto) {
		if (in->spooling && in->spooled_ticket >= upto) {
			/* appended straight to the spool: one fdatasync makes it (and all before) safe */
			if ((rc = kn_spool_sync(in->sp, kn_spool_size(in->sp), err)) != 0)
				break;
			in->durable = in->spooled_ticket;
			pthread_cond_broadcast(&in->cv_done);
			break;
		}
		if (in->head)
			pthread_cond_signal(&in->cv_work);
		if (pthread_cond_timedwait(&in->cv_done, &in->mu, &ts) != 0) {
			rc = kn_err_set(err, KN_ETIMEOUT, "not durable within %d ms (%s)", timeout_ms,
			                in->spooling ? "database unreachable" : "database slow");
			break;
		}
	}
	if (rc == 0 && in->lost > from && in->lost <= upto)
		rc = kn_err_set(err, KN_EIO, "a record could not be stored or spooled (see the log)");
	in->waiters--;
	pthread_mutex_unlock(&in->mu);
	return rc;
}

int kn_ingest_poll(kn_ingest *in, uint64_t from, uint64_t upto, kn_err *err)
{
	int rc = 0;
	pthread_mutex_lock(&in->mu);
	if (in->durable < upto && in->spooling && in->spooled_ticket >= upto) {
		if ((rc = kn_spool_sync(in->sp, kn_spool_size(in->sp), err)) == 0)
			in->durable = in->spooled_ticket;
	}
	if (rc == 0 && in->durable >= upto)
		rc = in->lost > from && in->lost <= upto
		         ? kn_err_set(err, KN_EIO, "a record could not be stored or spooled (see the log)")
		         : 1;
	else if (rc == 0 && in->head) {
		in->urgent = 1;
		pthread_cond_signal(&in->cv_work);
	}
	pthread_mutex_unlock(&in->mu);
	return rc;
}

void kn_ingest_get_stats(kn_ingest *in, kn_ingest_stats *out)
{
	pthread_mutex_lock(&in->mu);
	*out = in->stats;
	pthread_mutex_unlock(&in->mu);
}

void kn_ingest_free(kn_ingest *in)
{
	if (!in)
		return;
	pthread_mutex_lock(&in->mu);
	in->stop = 1;
	pthread_cond_broadcast(&in->cv_work);
	pthread_cond_broadcast(&in->cv_done);
	pthread_mutex_unlock(&in->mu);
	pthread_join(in->th, NULL);
	/* The writer left nothing in memory: what it could not write is in the spool. */
	kn_store_free(in->st);
	kn_spool_close(in->sp);
	pthread_cond_destroy(&in->cv_work);
	pthread_cond_destroy(&in->cv_done);
	pthread_mutex_destroy(&in->mu);
	free(in->conninfo);
	free(in->spool_dir);
	free(in);
}

/* ---- the spool's name for a database -------------------------------------------------------- */

static const char *conn_value(PQconninfoOption *opts, PQconninfoOption *defs, const char *key)
{
	for (PQconninfoOption *o = opts; o && o->keyword; o++)
		if (strcmp(o->keyword, key) == 0 && o->val && *o->val)
			return o->val;
	for (PQconninfoOption *o = defs; o && o->keyword; o++)
		if (strcmp(o->keyword, key) == 0 && o->val && *o->val)
			return o->val;
	return "";
}

int kn_ingest_spool_key(char *out, size_t cap, const char *conninfo, kn_err *err)
{
	char *msg = NULL;
	PQconninfoOption *opts = PQconninfoParse(conninfo ? conninfo : "", &msg);
	if (!opts) {
		kn_err_set(err, KN_EINVAL, "bad database url: %s", msg ? msg : "out of memory");
		PQfreemem(msg);
		return KN_EINVAL;
	}
	PQconninfoOption *defs = PQconndefaults(); /* environment (PGHOST…) and built-in defaults */
	const char *host = conn_value(opts, defs, "host"), *addr = conn_value(opts, defs, "hostaddr");
	const char *port = conn_value(opts, defs, "port"), *user = conn_value(opts, defs, "user");
	const char *db = conn_value(opts, defs, "dbname");
	if (!*db)
		db = user;
	char id[2048];
	snprintf(id, sizeof id, "%s\n%s\n%s\n%s\n%s", host, addr, port, db, user);
	char name[33];
	size_t n = 0;
	for (const char *c = db; *c && n < sizeof name - 1; c++)
		name[n++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		                    (*c >= '0' && *c <= '9') || *c == '_' || *c == '-'
		                ? *c
		                : '_';
	name[n] = '\0';
	snprintf(out, cap, "%s-%08x", n ? name : "db", (unsigned)kn_spool_crc32(id, strlen(id)));
	PQconninfoFree(opts);
	PQconninfoFree(defs);
	return 0;
}
