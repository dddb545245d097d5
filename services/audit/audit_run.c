/* audit_run.c — a judge over every labelled item (kn_match_one, as `keynode match` judges one) and
 * the summaries the report prints: a judge against the labels, two judges against each other. */
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "keynode/match_one.h"

void kn_audit_verdicts_free(kn_audit_verdict *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i].error);
	free(v);
}

int kn_audit_judge(kn_audit_verdict **out, const kn_labels *l, const kn_eval_opts *opts,
                   kn_audit_progress_fn progress, void *ud, kn_err *err)
{
	*out = NULL;
	kn_audit_verdict *v = calloc(l->n + 1, sizeof *v);
	if (!v)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	for (size_t i = 0; i < l->n; i++) {
		const kn_label_item *it = &l->items[i];
		kn_match_input in = {.target = it->target, .matcher = KN_MATCH_SEMANTIC,
		                     .expect = it->rule, .key = it->key, .value = it->value};
		kn_match_result r;
		kn_err e = {0};
		int rc = kn_match_one(&r, &in, opts, &e);
		if (rc != 0 && !r.judge_failed) {
			kn_audit_verdicts_free(v, l->n);
			return kn_err_set(err, rc, "%d: %s", it->line, e.msg[0] ? e.msg : kn_strerror(rc));
		}
		if (rc != 0) {
			v[i].verdict = KN_AUDIT_UNJUDGED;
			v[i].error = strdup(e.msg[0] ? e.msg : kn_strerror(rc));
			if (!v[i].error) {
				kn_audit_verdicts_free(v, l->n);
				return kn_err_set(err, KN_ENOMEM, "out of memory");
			}
		} else {
			v[i].verdict = r.match;
			v[i].score = r.score;
		}
		if (progress)
			progress(ud, i + 1, l->n);
	}
	*out = v;
	return 0;
}

/* The metrics and intervals of cells[0..n) into out (judged/unjudged already set). */
static int finish(kn_audit_summary *out, const kn_cell *cells, size_t n, size_t resamples,
                  uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		kn_confusion_add(&out->c, cells[i]);
	for (int m = 0; m < KN_AGREE_N; m++)
		out->ok[m] = kn_agree_metric(&out->v[m], &out->why[m], &out->c, m);
	return kn_agree_bootstrap(out->ci, cells, n, resamples, seed);
}

int kn_audit_summarise(kn_audit_summary *out, const kn_labels *l, const kn_audit_verdict *v,
                       size_t resamples, uint64_t seed)
{
	memset(out, 0, sizeof *out);
	kn_cell *cells = malloc((l->n + 1) * sizeof *cells);
	if (!cells)
		return KN_ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		if (v[i].verdict == KN_AUDIT_UNJUDGED)
			out->unjudged++;
		else
			cells[out->judged++] = kn_cell_of(l->items[i].label, v[i].verdict);
	}
	int rc = finish(out, cells, out->judged, resamples, seed);
	free(cells);
	return rc;
}

int kn_audit_pair(kn_audit_summary *out, const kn_audit_verdict *a, const kn_audit_verdict *b, size_t n,
                  size_t resamples, uint64_t seed)
{
	memset(out, 0, sizeof *out);
	kn_cell *cells = malloc((n + 1) * sizeof *cells);
	if (!cells)
		return KN_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (a[i].verdict == KN_AUDIT_UNJUDGED || b[i].verdict == KN_AUDIT_UNJUDGED)
			out->unjudged++;
		else
			cells[out->judged++] = kn_cell_of(a[i].verdict, b[i].verdict);
	}
	int rc = finish(out, cells, out->judged, resamples, seed);
	free(cells);
	return rc;
}
