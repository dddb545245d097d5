/* cmd_judge_audit.c — `keynode judge-audit`: how far a semantic judge agrees with people. Reads a
 * labels file (services/audit/audit.h), judges every item with each judge asked for — the offline
 * judge, LLM judges, side by side — exactly as `keynode match` would, and reports agreement, κ and
 * the error rates with bootstrap intervals, the items each judge got wrong and the ones it could not
 * judge. This file parses and wires; the work is in services/audit. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge_audit.h"
#include "keynode/clock.h"
#include "log.h"

#define KN_AUDIT_SEED 1
#define KN_AUDIT_RESAMPLES 1000
#define KN_AUDIT_MAX_RESAMPLES 100000

static const char help[] =
	"usage: keynode judge-audit --labels FILE.jsonl [--judge SPEC]… [--json] [--seed N]\n"
	"                           [--bootstrap N] [--parallel N] [--mode default|webcanvas]\n"
	"                           [--threshold X]\n"
	"                           [--semantic offline|llm --llm-url URL --llm-model NAME …]\n"
	"\n"
	"Measure a semantic judge against judgements people made. FILE.jsonl holds one per line:\n"
	"  {\"rule\": \"Decide whether are searching for mens winter coat\", \"target\": \"url\",\n"
	"   \"key\": \"search\", \"value\": \"https://s.example/?search=mens+coats\", \"label\": false}\n"
	"rule: a semantic key node's reference as the task file writes it (match's --expect); target:\n"
	"url, element_value or answer; value: what the agent produced (a URL, a typed value or clicked\n"
	"text, an answer: --value); key: the query parameter of a url key node (--key); label: whether\n"
	"the key node should count as reached. Other members (notes) are ignored; blank lines skipped.\n"
	"Every item is judged exactly as `keynode match --matcher semantic` judges it.\n"
	"\n"
	"Reported per judge, over the items it judged: the confusion counts (TP: label true, verdict\n"
	"true; FP: false, true; TN; FN), agreement (TP+TN)/n, Cohen's kappa, the false-positive rate\n"
	"FP/(FP+TN) and false-negative rate FN/(FN+TP), each with a 95 % bootstrap interval\n"
	"(percentile, nearest rank; each replicate draws n of the n judged items with replacement),\n"
	"and the items it got wrong (line, rule, value, label, verdict). A metric whose denominator is\n"
	"0 is n/a (JSON null) with the reason: kappa when labels and verdicts are all one class. A\n"
	"judgement that failed (LLM unreachable, timed out, malformed answer) is unjudged: counted and\n"
	"listed apart, never a verdict. With several judges, agreement and kappa between each pair\n"
	"over the items both judged.\n"
	"\n"
	"options:\n"
	"  --labels FILE      the labelled judgements (JSON Lines)\n"
	"  --judge SPEC       a judge to audit, repeatable (at most 8), reported side by side:\n"
	"                     offline; llm (the one --llm-url/--llm-model/--config name);\n"
	"                     llm:MODEL (--llm-url's endpoint, that model); llm:MODEL@URL.\n"
	"                     The --llm-* options are shared by every llm judge. Without --judge:\n"
	"                     the one judge --semantic names (offline by default), as for score\n"
	"  --json             one JSON document (schemas/judge-audit.schema.json)\n"
	"  --bootstrap N      bootstrap replicates, 0 to 100000 (default 1000; 0: no intervals)\n"
	"  --seed N           the bootstrap generator's seed (default 1): same seed, same intervals\n"
	"  --parallel N       items judged at once, 1 to 32 (default 4; an LLM judge also keeps at most\n"
	"                     4 requests in flight); the report is the same whatever N\n"
	"  --mode M, --threshold X   as for match: a verdict is score >= X (default 0.7), or in\n"
	"                     webcanvas mode any score above 0\n"
	"\n";

/* The rest of the help (one literal would be longer than C99 promises a compiler takes). */
static const char help_judges[] =
	KN_CLI_SEMANTIC_HELP
	"\n"
	"Progress goes to stderr as log lines every 2 s on long runs.\n"
	"exit: 0 every item judged by every judge, 1 some judgement failed (unjudged items: the report\n"
	"is still printed), 2 usage error, unreadable or malformed labels file (FILE:LINE: why), or a\n"
	"judge that cannot be set up\n";

enum {
	OPT_LABELS = 0x2000, OPT_JUDGE, OPT_JSON, OPT_SEED, OPT_BOOTSTRAP, OPT_MODE, OPT_THRESHOLD,
	OPT_PARALLEL
};

typedef struct progress {
	const char *judge;
	double started, last;
} progress;

static void on_progress(void *ud, size_t done, size_t n)
{
	progress *p = ud;
	double now = kn_time_mono_s();
	if (done < n && now - p->last < 2.0)
		return;
	p->last = now;
	if (done < n || now - p->started >= 2.0)
		kn_log_msgf("info", "audit", "judge %s: %zu of %zu items judged (%.0f s)", p->judge, done, n,
		            now - p->started);
}

/* A --judge SPEC into j, its options copied from base (the --llm-* flags and --config). */
static int judge_from_spec(kn_cli_audit_judge *j, const kn_cli_semantic *base, const char *spec)
{
	memset(j, 0, sizeof *j);
	snprintf(j->name, sizeof j->name, "%s", spec);
	if (strcmp(spec, "offline") == 0) {
		j->sem.backend_set = 1;
		return 0;
	}
	if (strcmp(spec, "llm") != 0 && strncmp(spec, "llm:", 4) != 0)
		return kn_cli_usage_error("judge-audit", "--judge must be offline, llm, llm:MODEL or "
		                                         "llm:MODEL@URL, not '%s'", spec);
	j->sem = *base;
	j->sem.llm = 1;
	j->sem.backend_set = 1;
	if (spec[3] == ':') {
		const char *model = spec + 4, *at = strchr(model, '@');
		size_t len = at ? (size_t)(at - model) : strlen(model);
		if (len == 0 || len >= sizeof j->model || (at && !at[1]))
			return kn_cli_usage_error("judge-audit", "--judge %s: want llm:MODEL or llm:MODEL@URL",
			                          spec);
		memcpy(j->model, model, len);
		j->model[len] = '\0';
		j->sem.model = j->model;
		if (at)
			j->sem.url = at + 1;
	}
	return 0;
}

static int parse_u64(uint64_t *out, const char *s, uint64_t max)
{
	char *end;
	if (!*s || *s == '-')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || v > max)
		return -1;
	*out = v;
	return 0;
}

int kn_cmd_judge_audit(int argc, char **argv)
{
	static const struct option opts[] = {
		{"labels", required_argument, NULL, OPT_LABELS}, {"judge", required_argument, NULL, OPT_JUDGE},
		{"json", no_argument, NULL, OPT_JSON}, {"seed", required_argument, NULL, OPT_SEED},
		{"bootstrap", required_argument, NULL, OPT_BOOTSTRAP},
		{"parallel", required_argument, NULL, OPT_PARALLEL},
		{"mode", required_argument, NULL, OPT_MODE},
		{"threshold", required_argument, NULL, OPT_THRESHOLD}, {"help", no_argument, NULL, 'h'},
		KN_CLI_SEMANTIC_LONGOPTS, {NULL, 0, NULL, 0}};
	kn_cli_audit a = {0};
	a.seed = KN_AUDIT_SEED;
	a.resamples = KN_AUDIT_RESAMPLES;
	kn_eval_opts eo = {0};
	eo.step_limit = -1;
	kn_cli_semantic base = {0};
	const char *specs[KN_AUDIT_MAX_JUDGES];
	size_t n_specs = 0;
	size_t threads = 4;
	int json = 0, c, r;
	uint64_t u;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_LABELS: a.labels_path = optarg; break;
		case OPT_JUDGE:
			if (n_specs == KN_AUDIT_MAX_JUDGES)
				return kn_cli_usage_error("judge-audit", "at most %d --judge", KN_AUDIT_MAX_JUDGES);
			for (size_t i = 0; i < n_specs; i++)
				if (strcmp(specs[i], optarg) == 0)
					return kn_cli_usage_error("judge-audit", "--judge %s given twice", optarg);
			specs[n_specs++] = optarg;
			break;
		case OPT_JSON: json = 1; break;
		case OPT_SEED:
			if (parse_u64(&a.seed, optarg, INT64_MAX))
				return kn_cli_usage_error("judge-audit", "--seed must be a non-negative integer");
			break;
		case OPT_BOOTSTRAP:
			if (parse_u64(&u, optarg, KN_AUDIT_MAX_RESAMPLES))
				return kn_cli_usage_error("judge-audit", "--bootstrap must be in [0, %d]",
				                          KN_AUDIT_MAX_RESAMPLES);
			a.resamples = (size_t)u;
			break;
		case OPT_PARALLEL:
			if (parse_u64(&u, optarg, KN_AUDIT_MAX_THREADS) || u == 0)
				return kn_cli_usage_error("judge-audit", "--parallel must be in [1, %d]",
				                          KN_AUDIT_MAX_THREADS);
			threads = (size_t)u;
			break;
		case OPT_MODE:
			if (kn_cli_parse_mode(&eo, optarg))
				return kn_cli_usage_error("judge-audit", "--mode must be default or webcanvas");
			break;
		case OPT_THRESHOLD:
			if (kn_cli_parse_threshold(&eo, optarg))
				return kn_cli_usage_error("judge-audit", "--threshold must be in (0, 1]");
			break;
		case 'h':
			fputs(help, stdout);
			fputs(help_judges, stdout);
			return KN_EXIT_OK;
		default:
			if ((r = kn_cli_semantic_option(&base, "judge-audit", c, optarg)) > 0)
				break;
			return r < 0 ? KN_EXIT_USAGE : kn_cli_usage_error("judge-audit", "bad option");
		}
	}
	if (!a.labels_path)
		return kn_cli_usage_error("judge-audit", "--labels is required");
	if (optind < argc)
		return kn_cli_usage_error("judge-audit", "unexpected argument '%s'", argv[optind]);
	if (n_specs && base.backend_set)
		return kn_cli_usage_error("judge-audit", "--semantic and --judge: name the judges with "
		                                         "--judge only");

	if (n_specs == 0) {
		a.judges[0].sem = base;
		a.n_judges = 1;
	}
	int any_llm = 0;
	for (size_t i = 0; i < n_specs; i++, a.n_judges++) {
		if (judge_from_spec(&a.judges[i], &base, specs[i]) != KN_EXIT_OK)
			return KN_EXIT_USAGE;
		any_llm |= a.judges[i].sem.llm;
	}
	if (n_specs && !any_llm && base.llm_flag)
		return kn_cli_usage_error("judge-audit", "%s needs an llm judge (--judge llm:MODEL)",
		                          base.llm_flag);

	kn_err err = {0};
	int rc = kn_labels_load(&a.labels, a.labels_path, &err);
	if (rc != 0) {
		fprintf(stderr, "keynode judge-audit: %s\n", err.msg);
		return KN_EXIT_USAGE;
	}
	rc = KN_EXIT_USAGE;
	size_t opened = 0;
	for (; opened < a.n_judges; opened++) {
		kn_cli_audit_judge *j = &a.judges[opened];
		j->eo = eo;
		if (kn_cli_semantic_open(&j->sem, "judge-audit", &j->eo) != KN_EXIT_OK)
			goto out;
		if (n_specs == 0 || strcmp(j->name, "llm") == 0) /* named for what the options built */
			snprintf(j->name, sizeof j->name, "%s", j->eo.semantic ? j->eo.semantic->name : "offline");
	}
	int unjudged = 0;
	for (size_t i = 0; i < a.n_judges; i++) {
		kn_cli_audit_judge *j = &a.judges[i];
		progress p = {.judge = j->name, .started = kn_time_mono_s()};
		p.last = p.started;
		if (kn_audit_judge(&j->v, a.labels, &j->eo, threads, on_progress, &p, &err) != 0) {
			fprintf(stderr, "keynode judge-audit: %s:%s\n", a.labels_path, err.msg);
			goto out;
		}
		if (kn_audit_summarise(&j->s, a.labels, j->v, a.resamples, a.seed) != 0)
			goto oom;
		unjudged |= j->s.unjudged > 0;
	}
	size_t k = 0;
	for (size_t i = 0; i < a.n_judges; i++)
		for (size_t j = i + 1; j < a.n_judges; j++)
			if (kn_audit_pair(&a.pairs[k++], a.judges[i].v, a.judges[j].v, a.labels->n, a.resamples,
			                  a.seed) != 0)
				goto oom;
	if (kn_cli_audit_print(stdout, &a, json) != 0)
		goto oom;
	for (size_t i = 0; i < a.n_judges; i++)
		kn_cli_semantic_report(&a.judges[i].sem, stderr, -1);
	rc = unjudged ? KN_EXIT_FAIL : KN_EXIT_OK;
	goto out;
oom:
	fprintf(stderr, "keynode judge-audit: out of memory\n");
out:
	for (size_t i = 0; i < a.n_judges; i++) {
		if (i < opened)
			kn_cli_semantic_close(&a.judges[i].sem);
		kn_audit_verdicts_free(a.judges[i].v, a.labels->n);
	}
	kn_labels_free(a.labels);
	return rc;
}
