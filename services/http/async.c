/* async.c — deferred answers: requests the server thread does not answer itself.
 *
 * A handler that would wait (a database read, a task-set upload, browser discovery, a run start
 * that waits for the monitor, a call forwarded to another serve) sets kn_http_resp.defer to a lane
 * instead of answering. The request (route, id, query, body, X-Kn-Forwarded) moves into a job queued for that lane's worker threads: the read lane
 * for short database reads, the slow lane for what may take seconds, so a hanging browser never
 * delays a listing. A worker calls opts.handle_worker with its own state (e.g. its own database
 * connection: the store is not thread-safe), puts the answer on the done list and wakes the loop
 * with lws_cancel_service; on LWS_CALLBACK_EVENT_WAIT_CANCELLED the loop hands each answer to its
 * connection the way a held answer is released (server.c): held, released, written from the
 * connection's own WRITEABLE callback. A connection closed meanwhile forgets its job (the pointer
 * to it is cleared on the loop thread, the only one that reads it) and the answer is dropped. */
#include <stdlib.h>
#include <string.h>

#include <libwebsockets.h>

#include "server_internal.h"

struct kn_srv_job {
	struct kn_srv_job *next;
	kn_server *s;
	struct pss *pss;            /* loop thread only; NULL once the connection closed */
	struct lws *wsi;
	int lane;
	kn_http_method method;
	kn_route route;
	char id[KN_HTTP_MAX_ID + 1];
	kn_http_query query;
	char *body;
	size_t body_len;
	char hop[KN_HTTP_MAX_HOP + 1];
	char author[KN_HTTP_MAX_TOKEN_NAME + 1];
	char accept[128];
	kn_http_resp resp;
};

struct worker_arg {
	kn_server *s;
	int lane;
};

static void job_free(struct kn_srv_job *j)
{
	if (!j)
		return;
	kn_http_query_clear(&j->query);
	free(j->body);
	free(j->resp.body);
	free(j);
}

static void work(kn_server *s, void **wctx, struct kn_srv_job *j)
{
	kn_http_req req = {j->method, j->route, j->id, &j->query, j->body ? j->body : "",
	                   j->body_len, j->hop[0] ? j->hop : NULL, j->author[0] ? j->author : NULL,
	                   j->accept[0] ? j->accept : NULL};
	s->o.handle_worker(s->o.ud, wctx, &req, &j->resp);
	j->resp.defer = 0;
	if (j->route == KN_ROUTE_METRICS && !j->resp.body && !j->resp.status) {
		if (kn_metrics_render(s->o.metrics, &j->resp.body, &j->resp.len) != 0)
			kn_http_resp_error(&j->resp, 500, "out of memory", NULL);
		else
			j->resp.content_type = "text/plain; version=0.0.4; charset=utf-8";
	}
}

static void *worker_main(void *arg)
{
	struct worker_arg wa = *(struct worker_arg *)arg;
	free(arg);
	kn_server *s = wa.s;
	int q = wa.lane - 1;
	void *wctx = NULL;
	pthread_mutex_lock(&s->pool_mu);
	for (;;) {
		while (!s->pool_stop && !s->queue[q])
			pthread_cond_wait(&s->pool_cv[q], &s->pool_mu);
		if (s->pool_stop)
			break;
		struct kn_srv_job *j = s->queue[q];
		s->queue[q] = j->next;
		if (!s->queue[q])
			s->queue_tail[q] = NULL;
		pthread_mutex_unlock(&s->pool_mu);
		work(s, &wctx, j);
		pthread_mutex_lock(&s->pool_mu);
		j->next = s->finished;
		s->finished = j;
		pthread_mutex_unlock(&s->pool_mu);
		lws_cancel_service(s->ctx);
		pthread_mutex_lock(&s->pool_mu);
	}
	pthread_mutex_unlock(&s->pool_mu);
	if (s->o.worker_exit)
		s->o.worker_exit(s->o.ud, wctx);
	return NULL;
}

int kn_srv_pool_start(kn_server *s, kn_err *err)
{
	if (!s->o.handle_worker || s->pool_init)
		return 0;
	int nr = s->o.workers_read > 0 ? s->o.workers_read : 2;
	int ns = s->o.workers_slow > 0 ? s->o.workers_slow : 4;
	if (!(s->threads = calloc((size_t)(nr + ns), sizeof *s->threads)))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	pthread_mutex_init(&s->pool_mu, NULL);
	pthread_cond_init(&s->pool_cv[0], NULL);
	pthread_cond_init(&s->pool_cv[1], NULL);
	s->pool_init = 1;
	s->pool_stop = 0;
	for (int i = 0; i < nr + ns; i++) {
		struct worker_arg *wa = malloc(sizeof *wa);
		if (!wa)
			return kn_err_set(err, KN_ENOMEM, "out of memory");
		wa->s = s;
		wa->lane = i < nr ? KN_HTTP_LANE_READ : KN_HTTP_LANE_SLOW;
		if (pthread_create(&s->threads[s->n_threads], NULL, worker_main, wa) != 0) {
			free(wa);
			return kn_err_set(err, KN_ENOMEM, "cannot start a worker thread");
		}
		s->n_threads++;
	}
	return 0;
}

void kn_srv_pool_stop(kn_server *s)
{
	if (!s->pool_init)
		return;
	pthread_mutex_lock(&s->pool_mu);
	s->pool_stop = 1;
	pthread_cond_broadcast(&s->pool_cv[0]);
	pthread_cond_broadcast(&s->pool_cv[1]);
	pthread_mutex_unlock(&s->pool_mu);
	for (size_t i = 0; i < s->n_threads; i++)
		pthread_join(s->threads[i], NULL);
	free(s->threads);
	s->threads = NULL;
	s->n_threads = 0;
	/* what is left is never answered: the server stops (connections close with the context) */
	struct kn_srv_job *lists[3] = {s->queue[0], s->queue[1], s->finished};
	for (int i = 0; i < 3; i++)
		for (struct kn_srv_job *j = lists[i], *n; j; j = n) {
			n = j->next;
			if (j->pss)
				j->pss->job = NULL;
			job_free(j);
		}
	s->queue[0] = s->queue[1] = s->queue_tail[0] = s->queue_tail[1] = s->finished = NULL;
	pthread_cond_destroy(&s->pool_cv[0]);
	pthread_cond_destroy(&s->pool_cv[1]);
	pthread_mutex_destroy(&s->pool_mu);
	s->pool_init = 0;
}

int kn_srv_defer(kn_server *s, struct lws *wsi, struct pss *pss, int lane)
{
	struct kn_srv_job *j = calloc(1, sizeof *j);
	if (!j)
		return KN_ENOMEM;
	j->s = s;
	j->pss = pss;
	j->wsi = wsi;
	j->lane = lane == KN_HTTP_LANE_SLOW ? KN_HTTP_LANE_SLOW : KN_HTTP_LANE_READ;
	j->method = pss->method;
	j->route = pss->route;
	memcpy(j->id, pss->id, sizeof j->id);
	memcpy(j->hop, pss->hop, sizeof j->hop);
	memcpy(j->author, pss->author, sizeof j->author);
	memcpy(j->accept, pss->accept, sizeof j->accept);
	/* the request's own buffers move to the job: the connection holds nothing a worker reads */
	j->query = pss->query;
	memset(&pss->query, 0, sizeof pss->query);
	j->body = pss->body;
	j->body_len = pss->body_len;
	pss->body = NULL;
	pss->body_len = pss->body_cap = 0;
	pss->job = j;
	int q = j->lane - 1;
	pthread_mutex_lock(&s->pool_mu);
	if (s->queue_tail[q])
		s->queue_tail[q]->next = j;
	else
		s->queue[q] = j;
	s->queue_tail[q] = j;
	pthread_cond_signal(&s->pool_cv[q]);
	pthread_mutex_unlock(&s->pool_mu);
	return 0;
}

void kn_srv_pool_deliver(kn_server *s)
{
	if (!s->pool_init)
		return;
	pthread_mutex_lock(&s->pool_mu);
	struct kn_srv_job *list = s->finished;
	s->finished = NULL;
	pthread_mutex_unlock(&s->pool_mu);
	for (struct kn_srv_job *j = list, *n; j; j = n) {
		n = j->next;
		struct pss *pss = j->pss;
		if (pss) {
			pss->job = NULL;
			free(pss->held.body);
			pss->held = j->resp;
			j->resp.body = NULL;
			pss->holding = pss->release = 1;
			pss->wsi = j->wsi;
			lws_callback_on_writable(j->wsi);
		}
		job_free(j);
	}
}

void kn_srv_job_forget(struct pss *pss)
{
	if (pss && pss->job) {
		pss->job->pss = NULL;
		pss->job = NULL;
	}
}
