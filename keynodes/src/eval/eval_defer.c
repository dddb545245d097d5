/* eval_defer.c — deferred semantic judgements: the evaluator's side of an asynchronous judge.
 *
 * With kn_eval_opts.defer set the evaluator never waits for a judge. A semantic check looks its
 * (rule, input) up in the run's verdict table: a known verdict scores at once; an unknown one is
 * handed to defer (once per pair) and the check is remembered as waiting — its node, its input and
 * the step it happened at. kn_eval_verdict fills the table in and re-runs the waiting checks (a
 * fuzzy list may then ask for its next reference); a check that now has its score is placed at its
 * step: the node's latched score, reached_at_step (the earliest step a 1 came from) and every step
 * score from that step on, using the node's rise history (step, score), so the result is the one a
 * synchronous judge would have given. Pure: no threads here; the owner of the evaluator brings the
 * verdicts to the thread that owns it. */
#include <stdlib.h>
#include <string.h>

#include "keynode/grow.h"

#include "eval_internal.h"

enum { V_PENDING, V_ANSWERED, V_FAILED, V_MISSING };

struct verdict {
	char *rule, *input;
	char *why;   /* V_FAILED: the judge's words, NULL when none came */
	int state, rc;
	double score;
};

struct wait {
	size_t node;
	char *input;
	int fold, step;
	unsigned gen; /* the node's final_gen when the check ran */
};

struct kn_defer {
	struct verdict *v;
	size_t n, cap;
	struct wait *w;
	size_t nw, capw;
	size_t asked, answered, failed, missing;
	int rerunning;
};

static struct kn_defer *defer_of(kn_eval *ev)
{
	if (!ev->defer)
		ev->defer = calloc(1, sizeof *ev->defer);
	return ev->defer;
}

static struct verdict *find(const struct kn_defer *d, const char *rule, const char *input)
{
	for (size_t i = 0; d && i < d->n; i++)
		if (strcmp(d->v[i].input, input) == 0 && strcmp(d->v[i].rule, rule) == 0)
			return &d->v[i];
	return NULL;
}

int kn_eval_defer_lookup(kn_eval *ev, const char *rule, const char *phrase, const char *input,
                         double *score, kn_err *err)
{
	struct kn_defer *d = defer_of(ev);
	if (!d)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	struct verdict *v = find(d, rule, input);
	if (v) {
		switch (v->state) {
		case V_ANSWERED:
			*score = v->score;
			return 0;
		case V_PENDING:
			return KN_EVAL_PENDING;
		case V_FAILED:
			return kn_err_set(err, v->rc, "%s", v->why ? v->why : kn_strerror(v->rc));
		default:
			return kn_err_set(err, KN_ETIMEOUT, "no verdict came for this input");
		}
	}
	if (kn_grow(&d->v, d->n, &d->cap, sizeof *d->v, 8))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	v = &d->v[d->n];
	memset(v, 0, sizeof *v);
	if (!(v->rule = strdup(rule)) || !(v->input = strdup(input))) {
		free(v->rule);
		free(v->input);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	d->n++;
	d->asked++;
	int rc = ev->opts.defer(ev->opts.defer_ud, rule, phrase, input);
	if (rc < 0) { /* could not be asked: a failed judgement, as a synchronous failure would be */
		v->state = V_FAILED;
		v->rc = rc;
		d->failed++;
		return kn_err_set(err, rc, "the judge could not be asked: %s", kn_strerror(rc));
	}
	return KN_EVAL_PENDING;
}

int kn_eval_defer_wait(kn_eval *ev, size_t i, const char *input, int fold)
{
	struct kn_defer *d = defer_of(ev);
	if (!d)
		return KN_ENOMEM;
	if (d->rerunning)
		return 0; /* kn_eval_verdict keeps the check that is being re-run */
	if (kn_grow(&d->w, d->nw, &d->capw, sizeof *d->w, 8))
		return KN_ENOMEM;
	struct wait *w = &d->w[d->nw];
	if (!(w->input = strdup(input)))
		return KN_ENOMEM;
	w->node = i;
	w->fold = fold;
	w->step = ev->steps;
	w->gen = ev->nodes[i].final_gen;
	d->nw++;
	return 0;
}

void kn_eval_defer_rise(kn_eval *ev, size_t i, int step, double score)
{
	if (!ev->opts.defer)
		return;
	struct node *st = &ev->nodes[i];
	struct rise *nh = realloc(st->hist, (st->n_hist + 1) * sizeof *nh);
	if (!nh)
		return; /* the step scores of a later late verdict may then count this rise twice */
	st->hist = nh;
	st->hist[st->n_hist++] = (struct rise){step, score};
}

/* The step-score index a check at step `step` first counts in (docs/scoring.md: a rise before any
 * step counts from the first). */
static size_t first_index(int step)
{
	return step > 0 ? (size_t)step - 1 : 0;
}

/* Node st's score as counted in step score k. */
static double score_at(const struct node *st, size_t k)
{
	double c = 0;
	for (size_t j = 0; j < st->n_hist; j++)
		if (first_index(st->hist[j].step) <= k && st->hist[j].score > c)
			c = st->hist[j].score;
	return c;
}

/* A waiting check of node i (from step `step`) scored s: place it. Returns 1 when the node rose. */
static int place(kn_eval *ev, const struct wait *w, double s)
{
	struct node *st = &ev->nodes[w->node];
	const kn_keynode *kn = &ev->task->keynodes[w->node];
	if (kn->target == KN_TARGET_PAGE)
		st->final = s; /* the page as read at the end */
	else if (kn->functional && ev->sem == KN_FUNC_SEM_WEBARENA && w->gen == st->final_gen &&
	         (kn->target == KN_TARGET_ANSWER || kn->target == KN_TARGET_CACHE_DATA))
		st->final = s; /* still the last answer */
	if (s <= 0)
		return 0;
	for (size_t k = first_index(w->step); ev->n && k < ev->n_scores; k++) {
		double c = score_at(st, k);
		if (s > c)
			ev->step_scores[k] += (s - c) / (double)ev->n;
	}
	int rose = 0;
	if (s > st->pub.score) {
		ev->reached += s - st->pub.score;
		st->pub.score = s;
		if (ev->opts.mode == KN_MODE_WEBCANVAS)
			ev->reached = kn_eval_sum(ev);
		rose = 1;
	}
	if (s >= 1.0 && (st->pub.reached_at_step < 0 || w->step < st->pub.reached_at_step))
		st->pub.reached_at_step = w->step;
	struct rise *nh = realloc(st->hist, (st->n_hist + 1) * sizeof *nh);
	if (nh) {
		st->hist = nh;
		st->hist[st->n_hist++] = (struct rise){w->step, s};
	}
	return rose;
}

int kn_eval_verdict(kn_eval *ev, const char *rule, const char *input, int rc, double score)
{
	return kn_eval_verdict_detail(ev, rule, input, rc, score, NULL);
}

int kn_eval_verdict_detail(kn_eval *ev, const char *rule, const char *input, int rc, double score,
                           const char *detail)
{
	struct kn_defer *d = ev->defer;
	struct verdict *v = rule && input ? find(d, rule, input) : NULL;
	if (!v || v->state != V_PENDING)
		return 0;
	kn_err range = {0};
	if (!rc && kn_eval_judge_range(score, &range) != 0) /* the judge broke its contract */
		rc = range.code, detail = range.msg;
	if (rc) {
		v->state = V_FAILED;
		v->rc = rc < 0 ? rc : KN_EIO;
		v->why = detail && *detail ? strdup(detail) : NULL;
		d->failed++;
	} else {
		v->state = V_ANSWERED;
		v->score = score;
		d->answered++;
	}
	/* re-run every waiting check: those that have all their verdicts now are placed */
	int rises = 0;
	size_t keep = 0;
	d->rerunning = 1;
	for (size_t j = 0; j < d->nw; j++) {
		struct wait w = d->w[j];
		struct node *st = &ev->nodes[w.node];
		double s = 0;
		kn_err err = {0};
		ev->judge_used = 0;
		int r = kn_eval_score_text(ev, st, &ev->task->keynodes[w.node], w.input, w.fold, &s, &err);
		if (r == KN_EVAL_PENDING) {
			d->w[keep++] = w;
			continue;
		}
		if (r < 0) {
			s = 0;
			st->verdict = "failed";
			kn_eval_judged(ev, w.node, r, w.input, err.msg);
		}
		if (place(ev, &w, s)) {
			rises++;
			st->judged = ev->judge_used;
		}
		free(w.input);
	}
	d->nw = keep;
	d->rerunning = 0;
	return rises;
}

size_t kn_eval_pending(const kn_eval *ev)
{
	return ev->defer ? ev->defer->nw : 0;
}

void kn_eval_verdicts_abandon(kn_eval *ev)
{
	struct kn_defer *d = ev->defer;
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].state == V_PENDING) {
			d->v[i].state = V_MISSING;
			d->missing++;
		}
	for (size_t j = 0; j < d->nw; j++) {
		ev->nodes[d->w[j].node].verdict = "missing";
		kn_eval_judged(ev, d->w[j].node, KN_ETIMEOUT, d->w[j].input, "no verdict came before the run ended");
		free(d->w[j].input);
	}
	d->nw = 0;
}

void kn_eval_verdicts_get(const kn_eval *ev, kn_eval_verdicts *out)
{
	const struct kn_defer *d = ev->defer;
	memset(out, 0, sizeof *out);
	if (!d)
		return;
	out->asked = d->asked;
	out->answered = d->answered;
	out->failed = d->failed;
	out->missing = d->missing;
	out->pending = d->nw;
}

void kn_eval_defer_free(kn_eval *ev)
{
	struct kn_defer *d = ev->defer;
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].rule);
		free(d->v[i].input);
		free(d->v[i].why);
	}
	for (size_t j = 0; j < d->nw; j++)
		free(d->w[j].input);
	free(d->v);
	free(d->w);
	free(d);
	ev->defer = NULL;
}

void kn_eval_defer_result(const kn_eval *ev, json_t *result, json_t *nodes)
{
	if (!ev->opts.defer)
		return;
	kn_eval_verdicts v;
	kn_eval_verdicts_get(ev, &v);
	json_object_set_new(result, "verdicts",
	                    json_pack("{s:I, s:I, s:I, s:I, s:I}", "asked", (json_int_t)v.asked,
	                              "answered", (json_int_t)v.answered, "failed",
	                              (json_int_t)v.failed, "missing", (json_int_t)v.missing,
	                              "pending", (json_int_t)v.pending));
	for (size_t i = 0; i < ev->n; i++)
		if (ev->nodes[i].verdict && ev->nodes[i].pub.score < 1.0)
			json_object_set_new(json_array_get(nodes, i), "verdict",
			                    json_string(ev->nodes[i].verdict));
}
