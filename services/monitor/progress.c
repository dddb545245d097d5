/* progress.c — the human progress lines of a watched run (progress.h). */
#include "progress.h"

#include "keynode/match.h"
#include "keynode/request.h"

void kn_progress_event(FILE *p, const kn_task *task, const kn_eval *ev, const kn_event *e, int step,
                       int rises)
{
	const kn_request *ws = e->type == KN_EV_WEBSOCKET ? e->request : NULL; /* its socket, not the page */
	const char *what = ws && ws->url ? ws->url : e->selector ? e->selector : e->url ? e->url : "";
	if (step)
		fprintf(p, "  [%7.2fs] %-3s step %-3d %-8s %s", e->t, e->tab ? e->tab : "", kn_eval_steps(ev),
		        kn_event_type_name(e->type), what);
	else
		fprintf(p, "  [%7.2fs] %-3s          %-8s %s", e->t, e->tab ? e->tab : "",
		        kn_event_type_name(e->type), what);
	if (e->how)
		fprintf(p, " (%s)", e->how);
	if (e->value)
		fprintf(p, " value=\"%s\"", e->value);
	else if (e->text && e->type != KN_EV_NAVIGATE)
		fprintf(p, " text=\"%.40s\"", e->text);
	if (e->trusted == 0)
		fputs(" [untrusted]", p);
	if (ws)
		fprintf(p, " %s %zu bytes%s", ws->direction ? ws->direction : "sent", ws->size,
		        ws->held ? " [held by keynode]" : ws->watched_only ? " [watched only: keynode could not hold it]" : "");
	fputc('\n', p);
	if (rises > 0) {
		for (size_t i = 0; i < task->n_keynodes; i++) {
			const kn_node_state *st = kn_eval_node(ev, i);
			if (st->score >= 1.0 && st->reached_at_step == kn_eval_steps(ev))
				fprintf(p, "             key node %s reached (%s %s \"%s\")\n", task->keynodes[i].id,
				        task->keynodes[i].function, kn_matcher_name(task->keynodes[i].matcher),
				        task->keynodes[i].expect);
		}
		fprintf(p, "             score %.2f (%.2f of %zu key nodes)\n", kn_eval_score(ev),
		        kn_eval_reached(ev), kn_eval_total(ev));
	}
	fflush(p);
}

void kn_progress_end(FILE *p, const kn_eval *ev, const char *reason)
{
	fprintf(p, "run ended: %s — %s, %d steps, %.2f of %zu key nodes, score %.2f\n", reason,
	        kn_status_name(kn_eval_status(ev)), kn_eval_steps(ev), kn_eval_reached(ev), kn_eval_total(ev),
	        kn_eval_score(ev));
	fflush(p);
}
