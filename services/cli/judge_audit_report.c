/* judge_audit_report.c — what `keynode judge-audit` prints: per judge the confusion counts, the
 * metrics with their intervals, the items it got wrong and those it could not judge, then the
 * judges against each other; as a table for people or as one JSON document
 * (schemas/judge-audit.schema.json) for machines. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "judge_audit.h"

static double threshold_of(const kn_eval_opts *eo)
{
	return eo->threshold > 0 ? eo->threshold : KN_SEMANTIC_THRESHOLD;
}

static const char *verdict_word(int v)
{
	return v == KN_AUDIT_UNJUDGED ? "unjudged" : v ? "true" : "false";
}

/* The targets items can have, in report order. */
static const kn_target targets[] = {KN_TARGET_URL, KN_TARGET_ELEMENT_VALUE, KN_TARGET_ANSWER};

/* j's confusion counts over the items of target t; *unjudged its failed judgements there. */
static kn_confusion by_target(const kn_labels *l, const kn_audit_verdict *v, kn_target t,
                              size_t *unjudged)
{
	kn_confusion c = {0};
	*unjudged = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (l->items[i].target != t)
			continue;
		if (v[i].verdict == KN_AUDIT_UNJUDGED)
			(*unjudged)++;
		else
			kn_confusion_add(&c, kn_cell_of(l->items[i].label, v[i].verdict));
	}
	return c;
}

/* 1 when judges a and b both judged item i and disagree on it. */
static int differ(const kn_cli_audit_judge *a, const kn_cli_audit_judge *b, size_t i)
{
	int x = a->v[i].verdict, y = b->v[i].verdict;
	return x != KN_AUDIT_UNJUDGED && y != KN_AUDIT_UNJUDGED && x != y;
}

/* --- the table --- */

static void print_metric(FILE *f, const char *label, const kn_audit_summary *s, int m,
                         const char *formula)
{
	fprintf(f, "  %-20s ", label);
	if (!s->ok[m]) {
		fprintf(f, "n/a (%s)\n", s->why[m]);
		return;
	}
	fprintf(f, "%6.3f", s->v[m]);
	if (s->ci[m].ok)
		fprintf(f, "  [%.3f, %.3f]", s->ci[m].lo, s->ci[m].hi);
	else
		fputs("  [no interval]", f);
	fprintf(f, "%s%s\n", formula ? "  " : "", formula ? formula : "");
}

/* s quoted for one line: control characters shown as spaces, cut after about max bytes (never inside
 * a UTF-8 sequence) and then "…". */
static void print_quoted(FILE *f, const char *s, size_t max)
{
	fputc('"', f);
	size_t i = 0;
	for (; s[i] && (i < max || ((unsigned char)s[i] & 0xC0) == 0x80); i++)
		fputc((unsigned char)s[i] < 0x20 ? ' ' : s[i], f);
	fputs(s[i] ? "…\"" : "\"", f);
}

static void print_table(FILE *f, const kn_cli_audit *a)
{
	const kn_labels *l = a->labels;
	size_t pos = 0;
	for (size_t i = 0; i < l->n; i++)
		pos += (size_t)l->items[i].label;
	fprintf(f, "judge-audit: %s: %zu items (%zu labelled true, %zu false)\n", a->labels_path, l->n,
	        pos, l->n - pos);
	if (a->resamples)
		fprintf(f, "intervals: 95 %% percentile bootstrap, %zu resamples of the judged items, seed %llu\n",
		        a->resamples, (unsigned long long)a->seed);
	else
		fputs("intervals: none (--bootstrap 0)\n", f);
	for (size_t k = 0; k < a->n_judges; k++) {
		const kn_cli_audit_judge *j = &a->judges[k];
		const kn_audit_summary *s = &j->s;
		fprintf(f, "\njudge %s (%s mode", j->name, j->eo.mode == KN_MODE_WEBCANVAS ? "webcanvas" : "default");
		if (j->eo.mode != KN_MODE_WEBCANVAS)
			fprintf(f, ", threshold %.2f", threshold_of(&j->eo));
		fprintf(f, "): %zu judged, %zu unjudged\n", s->judged, s->unjudged);
		fprintf(f, "  %-20s TP %zu  FP %zu  TN %zu  FN %zu\n", "confusion", s->c.tp, s->c.fp, s->c.tn,
		        s->c.fn);
		print_metric(f, "agreement", s, KN_AGREE_AGREEMENT, "(TP+TN)/n");
		print_metric(f, "kappa", s, KN_AGREE_KAPPA, "Cohen's");
		print_metric(f, "false positive rate", s, KN_AGREE_FPR, "FP/(FP+TN)");
		print_metric(f, "false negative rate", s, KN_AGREE_FNR, "FN/(FN+TP)");
		for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
			size_t u;
			kn_confusion c = by_target(l, j->v, targets[t], &u);
			if (c.tp + c.fp + c.tn + c.fn + u)
				fprintf(f, "  %-20s TP %zu  FP %zu  TN %zu  FN %zu  unjudged %zu\n",
				        kn_target_name(targets[t]), c.tp, c.fp, c.tn, c.fn, u);
		}
		size_t wrong = s->c.fp + s->c.fn;
		fprintf(f, "  wrong: %zu\n", wrong);
		for (size_t i = 0; i < l->n; i++) {
			const kn_label_item *it = &l->items[i];
			if (j->v[i].verdict == KN_AUDIT_UNJUDGED || j->v[i].verdict == it->label)
				continue;
			fprintf(f, "    line %-4d %s  %s  label %s, verdict %s, score %.2f\n      rule ", it->line,
			        it->label ? "FN" : "FP", kn_target_name(it->target), verdict_word(it->label),
			        verdict_word(j->v[i].verdict), j->v[i].score);
			print_quoted(f, it->rule, 120);
			fputs("\n      value ", f);
			print_quoted(f, it->value, 160);
			fputc('\n', f);
		}
		if (s->unjudged) {
			fprintf(f, "  unjudged: %zu (the judge failed: no verdict, left out of every number above)\n",
			        s->unjudged);
			for (size_t i = 0; i < l->n; i++) {
				if (j->v[i].verdict != KN_AUDIT_UNJUDGED)
					continue;
				fprintf(f, "    line %-4d %s\n", l->items[i].line, j->v[i].error);
			}
		}
	}
	if (a->n_judges < 2)
		return;
	fprintf(f, "\nside by side\n  %-28s %5s %5s %5s %5s %8s %9s %7s %7s %7s\n", "JUDGE", "TP", "FP",
	        "TN", "FN", "UNJUDGED", "AGREEMENT", "KAPPA", "FPR", "FNR");
	for (size_t k = 0; k < a->n_judges; k++) {
		const kn_audit_summary *s = &a->judges[k].s;
		fprintf(f, "  %-28s %5zu %5zu %5zu %5zu %8zu", a->judges[k].name, s->c.tp, s->c.fp, s->c.tn,
		        s->c.fn, s->unjudged);
		for (int m = 0; m < KN_AGREE_N; m++)
			s->ok[m] ? fprintf(f, " %*.3f", m == 0 ? 9 : 7, s->v[m])
			         : fprintf(f, " %*s", m == 0 ? 9 : 7, "n/a");
		fputc('\n', f);
	}
	fputs("\njudges against each other (over the items both judged)\n", f);
	size_t p = 0;
	for (size_t x = 0; x < a->n_judges; x++)
		for (size_t y = x + 1; y < a->n_judges; y++, p++) {
			const kn_audit_summary *s = &a->pairs[p];
			fprintf(f, "  %s vs %s: %zu both judged, differ on %zu\n", a->judges[x].name,
			        a->judges[y].name, s->judged, s->c.fp + s->c.fn);
			print_metric(f, "  agreement", s, KN_AGREE_AGREEMENT, NULL);
			print_metric(f, "  kappa", s, KN_AGREE_KAPPA, NULL);
			if (s->c.fp + s->c.fn) {
				fputs("    differ on lines", f);
				for (size_t i = 0; i < a->labels->n; i++)
					if (differ(&a->judges[x], &a->judges[y], i))
						fprintf(f, " %d", a->labels->items[i].line);
				fputc('\n', f);
			}
		}
}

/* --- JSON --- */

static json_t *metric_json(const kn_audit_summary *s, int m)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "value", s->ok[m] ? json_real(s->v[m]) : json_null());
	json_object_set_new(o, "ci95", s->ok[m] && s->ci[m].ok
	                                       ? json_pack("[f, f]", s->ci[m].lo, s->ci[m].hi)
	                                       : json_null());
	if (!s->ok[m])
		json_object_set_new(o, "why", json_string(s->why[m]));
	return o;
}

static json_t *item_json(const kn_label_item *it, const kn_audit_verdict *v)
{
	json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:b}", "line", it->line, "target",
	                      kn_target_name(it->target), "rule", it->rule, "value", it->value, "label",
	                      it->label);
	if (!o)
		return NULL;
	if (it->key)
		json_object_set_new(o, "key", json_string(it->key));
	if (v->verdict == KN_AUDIT_UNJUDGED) {
		json_object_set_new(o, "error", json_string(v->error));
	} else {
		json_object_set_new(o, "verdict", json_boolean(v->verdict));
		json_object_set_new(o, "score", json_real(v->score));
	}
	return o;
}

static json_t *judge_json(const kn_cli_audit *a, kn_cli_audit_judge *j)
{
	const kn_audit_summary *s = &j->s;
	json_t *o = json_pack("{s:s, s:s, s:f, s:I, s:I, s:{s:I, s:I, s:I, s:I}}", "judge", j->name,
	                      "mode", j->eo.mode == KN_MODE_WEBCANVAS ? "webcanvas" : "default",
	                      "threshold", threshold_of(&j->eo), "judged", (json_int_t)s->judged,
	                      "unjudged", (json_int_t)s->unjudged, "confusion", "tp", (json_int_t)s->c.tp,
	                      "fp", (json_int_t)s->c.fp, "tn", (json_int_t)s->c.tn, "fn", (json_int_t)s->c.fn);
	json_t *wrong = json_array(), *unjudged = json_array();
	if (!o || !wrong || !unjudged) {
		json_decref(o), json_decref(wrong), json_decref(unjudged);
		return NULL;
	}
	for (int m = 0; m < KN_AGREE_N; m++)
		json_object_set_new(o, kn_agree_names[m], metric_json(s, m));
	for (size_t i = 0; i < a->labels->n; i++) {
		const kn_audit_verdict *v = &j->v[i];
		if (v->verdict == KN_AUDIT_UNJUDGED)
			json_array_append_new(unjudged, item_json(&a->labels->items[i], v));
		else if (v->verdict != a->labels->items[i].label)
			json_array_append_new(wrong, item_json(&a->labels->items[i], v));
	}
	json_t *bt = json_object();
	for (size_t t = 0; bt && t < sizeof targets / sizeof *targets; t++) {
		size_t u;
		kn_confusion c = by_target(a->labels, j->v, targets[t], &u);
		if (c.tp + c.fp + c.tn + c.fn + u)
			json_object_set_new(bt, kn_target_name(targets[t]),
			                    json_pack("{s:I, s:I, s:I, s:I, s:I}", "tp", (json_int_t)c.tp, "fp",
			                              (json_int_t)c.fp, "tn", (json_int_t)c.tn, "fn", (json_int_t)c.fn,
			                              "unjudged", (json_int_t)u));
	}
	json_object_set_new(o, "by_target", bt);
	json_object_set_new(o, "wrong", wrong);
	json_object_set_new(o, "unjudged_items", unjudged);
	json_object_set_new(o, "usage", kn_cli_semantic_usage(&j->sem, -1));
	return o;
}

static json_t *report_json(kn_cli_audit *a)
{
	size_t pos = 0;
	for (size_t i = 0; i < a->labels->n; i++)
		pos += (size_t)a->labels->items[i].label;
	json_t *root = json_pack(
		"{s:s, s:I, s:I, s:I, s:{s:I, s:I, s:f, s:s}}", "labels", a->labels_path, "items",
		(json_int_t)a->labels->n, "labelled_true", (json_int_t)pos, "labelled_false",
		(json_int_t)(a->labels->n - pos), "bootstrap", "resamples", (json_int_t)a->resamples, "seed",
		(json_int_t)a->seed, "level", 0.95, "method",
		"percentile, nearest rank: each replicate draws n of the n judged items with replacement "
		"(splitmix64 from the seed); of the m replicates where the metric is defined, sorted, the "
		"ceil(0.025 m)-th and ceil(0.975 m)-th values");
	json_t *judges = json_array(), *pairs = json_array();
	if (!root || !judges || !pairs) {
		json_decref(root), json_decref(judges), json_decref(pairs);
		return NULL;
	}
	for (size_t k = 0; k < a->n_judges; k++)
		json_array_append_new(judges, judge_json(a, &a->judges[k]));
	size_t p = 0;
	for (size_t x = 0; x < a->n_judges; x++)
		for (size_t y = x + 1; y < a->n_judges; y++, p++) {
			const kn_audit_summary *s = &a->pairs[p];
			json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I}", "a", a->judges[x].name, "b",
			                      a->judges[y].name, "judged", (json_int_t)s->judged, "unjudged",
			                      (json_int_t)s->unjudged, "differ", (json_int_t)(s->c.fp + s->c.fn));
			json_t *lines = json_array();
			for (size_t i = 0; lines && i < a->labels->n; i++)
				if (differ(&a->judges[x], &a->judges[y], i))
					json_array_append_new(lines, json_integer(a->labels->items[i].line));
			if (o) {
				json_object_set_new(o, "differ_lines", lines);
				json_object_set_new(o, "agreement", metric_json(s, KN_AGREE_AGREEMENT));
				json_object_set_new(o, "kappa", metric_json(s, KN_AGREE_KAPPA));
			} else {
				json_decref(lines);
			}
			json_array_append_new(pairs, o);
		}
	json_object_set_new(root, "judges", judges);
	json_object_set_new(root, "pairs", pairs);
	return root;
}

int kn_cli_audit_print(FILE *f, kn_cli_audit *a, int json)
{
	if (!json) {
		print_table(f, a);
		return 0;
	}
	json_t *root = report_json(a);
	char *text = root ? json_dumps(root, JSON_PRESERVE_ORDER | JSON_INDENT(2) | JSON_REAL_PRECISION(6))
	                  : NULL;
	json_decref(root);
	if (!text)
		return KN_ENOMEM;
	fputs(text, f);
	fputc('\n', f);
	free(text);
	return 0;
}
