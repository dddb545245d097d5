/* verdict.h — the verdict cache: LLM judgements keyed by (model, prompt version, rule, input), so
 * reruns are reproducible and cost nothing.
 *
 * The judge sees the cache only through kn_verdict_store, a get/put pair: this folder provides
 * the local file store (JSON Lines, append-only, loaded at open); the service's PostgreSQL store
 * plugs in behind the same two functions. Both must be safe to call from several threads. */
#ifndef KEYNODE_VERDICT_H
#define KEYNODE_VERDICT_H

#include <stddef.h>
#include <stdio.h>

#include "keynode/error.h"

typedef struct kn_verdict_store {
	/* 1 and *score when the key has a verdict, 0 when not, a negative KN_E* on failure. */
	int (*get)(void *ud, const char *model, int prompt, const char *rule, const char *input,
	           double *score);
	/* Remember a verdict (reason may be NULL). 0 or a negative KN_E* with the detail in err. */
	int (*put)(void *ud, const char *model, int prompt, const char *rule, const char *input,
	           double score, const char *reason, kn_err *err);
	void *ud;
} kn_verdict_store;

/* One line of the cache file:
 * {"v":1,"model":"…","prompt":1,"rule":"…","input":"…","score":0.93,"reason":"…","at":"…Z"} */
typedef struct kn_verdict_line {
	char *model, *rule, *input, *reason; /* reason may be NULL */
	int prompt;
	double score;
} kn_verdict_line;

/* Parse one line (len bytes, no newline needed, need not be NUL-terminated) into *out, whose
 * strings are the caller's (kn_verdict_line_clear). Strict: a JSON object with "v": 1, string
 * model/rule/input, an integer prompt ≥ 1, a number score in [0, 1], reason a string or absent;
 * other keys are ignored. KN_EINVAL with the reason in err otherwise. */
int kn_verdict_parse_line(kn_verdict_line *out, const char *line, size_t len, kn_err *err);
void kn_verdict_line_clear(kn_verdict_line *v);

/* The line for a verdict (reason may be NULL), newline included, stamped "at" now (UTC);
 * *out is the caller's, *len its length. KN_EINVAL when a string is not valid UTF-8. */
int kn_verdict_format_line(char **out, size_t *len, const char *model, int prompt,
                           const char *rule, const char *input, double score, const char *reason);

typedef struct kn_verdict_file kn_verdict_file;

/* Open (creating it and its directory when missing) and load the cache file at path. Corrupt
 * lines are skipped, each with a warning log line; a later line for the same key wins.
 * Appends go through one O_APPEND write per line, so several processes may share the file.
 * KN_EIO with the detail when the file cannot be opened or read. */
int kn_verdict_file_open(kn_verdict_file **out, const char *path, kn_err *err);
void kn_verdict_file_free(kn_verdict_file *vf);

/* The store view of vf (borrowed, lives as long as vf). */
const kn_verdict_store *kn_verdict_file_store(kn_verdict_file *vf);

/* Verdicts loaded and lines skipped when the file was opened. */
size_t kn_verdict_file_loaded(const kn_verdict_file *vf);
size_t kn_verdict_file_skipped(const kn_verdict_file *vf);

/* The default cache path: $XDG_CACHE_HOME/keynode/verdicts.jsonl, else
 * $HOME/.cache/keynode/verdicts.jsonl. *out is the caller's; KN_ENOTFOUND when neither is set. */
int kn_verdict_default_path(char **out);

#endif
