/* runs_internal.h — what runs.c, recover.c and run_json.c share inside services/runs. */
#ifndef KEYNODE_RUNS_INTERNAL_H
#define KEYNODE_RUNS_INTERNAL_H

#include "runs.h"

/* The trajectory line (§2) of an event without its newline; the caller's, NULL on failure. */
char *kn_runs_event_line(const kn_event *ev);
/* Add {"llm": {...}} to *result: the judge's counters since s0 (replaces *result). */
void kn_runs_add_llm_usage(char **result, kn_llm *llm, const kn_llm_stats *s0);

#endif
