/* judge_async.h — `keynode watch` with the LLM judge off the CDP loop (judge_async.c). */
#ifndef KEYNODE_CLI_JUDGE_ASYNC_H
#define KEYNODE_CLI_JUDGE_ASYNC_H

#include "cdp.h"
#include "cli.h"
#include "judge_queue.h"
#include "monitor.h"

/* `keynode watch` with the LLM judge: judgements on threads of their own, verdicts back to the
 * monitor on the loop thread (judge_async.c). */
typedef struct kn_cli_judges {
	kn_judge_queue *q;        /* NULL: the offline judge, synchronous */
	kn_cdp_loop *loop;
	kn_monitor *mon;          /* set once the monitor started */
} kn_cli_judges;
/* With the LLM client of s: start the workers and make eo defer to them. 0 or KN_E*. */
int kn_cli_judges_start(kn_cli_judges *j, kn_cli_semantic *s, kn_eval_opts *eo, kn_cdp_loop *loop,
                        kn_err *err);
/* Stop the workers (judgements in flight cancelled). Before the monitor and the loop are freed. */
void kn_cli_judges_stop(kn_cli_judges *j);

#endif
