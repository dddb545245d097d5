/* judge_audit.h — `keynode judge-audit` inside the CLI: the judges it runs side by side
 * (cmd_judge_audit.c builds them from the options) and the report it prints of them
 * (judge_audit_report.c: a table for people, --json for machines). */
#ifndef KEYNODE_CLI_JUDGE_AUDIT_H
#define KEYNODE_CLI_JUDGE_AUDIT_H

#include <stdint.h>
#include <stdio.h>

#include "audit.h"
#include "cli.h"

#define KN_AUDIT_MAX_JUDGES 8

typedef struct kn_cli_audit_judge {
	char name[256];            /* "offline", "llm:MODEL" or the --judge spec as given */
	char model[200];           /* llm:MODEL[@URL]: the model, cut out of the spec */
	kn_cli_semantic sem;       /* the judge's options and, once open, its client */
	kn_eval_opts eo;           /* mode, threshold and the judge (eo.semantic) */
	kn_audit_verdict *v;       /* one per item, once judged */
	kn_audit_summary s;        /* against the labels */
} kn_cli_audit_judge;

typedef struct kn_cli_audit {
	const char *labels_path;
	kn_labels *labels;
	kn_cli_audit_judge judges[KN_AUDIT_MAX_JUDGES];
	size_t n_judges;
	kn_audit_summary pairs[KN_AUDIT_MAX_JUDGES * (KN_AUDIT_MAX_JUDGES - 1) / 2]; /* (0,1), (0,2) … */
	size_t resamples;
	uint64_t seed;
} kn_cli_audit;

/* The report on f: a table (json 0) or one JSON document (json 1,
 * schemas/judge-audit.schema.json). Returns 0, or KN_ENOMEM. */
int kn_cli_audit_print(FILE *f, kn_cli_audit *a, int json);

#endif
