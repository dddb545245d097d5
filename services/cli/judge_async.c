/* judge_async.c — `keynode watch` with the LLM judge: judgements on worker threads
 * (services/llm/judge_queue.h), never on the CDP loop, and their verdicts back to the monitor on
 * the loop thread (kn_monitor_verdict). The monitor's evaluator defers its judgements here
 * (kn_eval_opts.defer); a worker's verdict posts a take to the loop. */
#include "judge_async.h"
#include "log.h"

static int defer_cb(void *ud, const char *rule, const char *phrase, const char *input)
{
	kn_cli_judges *j = ud;
	return kn_judge_queue_submit(j->q, rule, phrase, input, NULL);
}

static void take(void *ud)
{
	kn_cli_judges *j = ud;
	kn_judge_done *list = kn_judge_queue_take(j->q);
	for (kn_judge_done *d = list; d; d = d->next) {
		if (d->rc)
			kn_log_msg("warn", "llm", d->detail, NULL);
		if (j->mon)
			kn_monitor_verdict(j->mon, d->rule, d->input, d->rc, d->score, d->detail);
	}
	kn_judge_done_free(list);
}

static void notify(void *ud)
{
	kn_cli_judges *j = ud;
	kn_cdp_loop_post(j->loop, take, j);
}

static void cancel(void *ud)
{
	kn_llm_cancel(ud);
}

int kn_cli_judges_start(kn_cli_judges *j, kn_cli_semantic *s, kn_eval_opts *eo, kn_cdp_loop *loop,
                        kn_err *err)
{
	j->loop = loop;
	if (!s->client)
		return 0; /* the offline judge is fast: it stays synchronous */
	kn_judge_queue_opts qo = {.judge = kn_llm_semantic(s->client), .notify = notify,
	                          .notify_ud = j, .cancel = cancel, .cancel_ud = s->client};
	int rc = kn_judge_queue_new(&j->q, &qo, err);
	if (rc)
		return rc;
	eo->defer = defer_cb;
	eo->defer_ud = j;
	return 0;
}

void kn_cli_judges_stop(kn_cli_judges *j)
{
	kn_judge_queue_free(j->q); /* what comes after the run is no longer wanted */
	j->q = NULL;
	j->mon = NULL;
}
