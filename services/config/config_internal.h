/* config_internal.h — what the loader's files (config.c, config_agents.c) share and nobody else
 * sees: the small YAML tree config.c builds from libyaml's events, the loader state, the error
 * helper, and the section loaders that live outside config.c. */
#ifndef KEYNODE_CONFIG_INTERNAL_H
#define KEYNODE_CONFIG_INTERNAL_H

#include <stddef.h>

#include "config.h"

enum { N_SCALAR, N_MAP, N_SEQ };

/* One node; a mapping's kids alternate key, value. val is NUL-terminated (scalars only). */
typedef struct node {
	int type;
	int line, col; /* 1-based */
	int plain;     /* a plain (unquoted) scalar */
	char *val;
	size_t len;
	struct node **kids;
	size_t n, cap;
} node;

typedef struct loader {
	const char *name;
	kn_err *err;
	size_t nodes;
} loader;

/* "name:line:col: message" into l->err, control characters made '?'; returns code. */
int kn_config_fail(loader *l, int code, int line, int col, const char *fmt, ...) KN_PRINTF(5, 6);

/* agents: {NAME: "command …"} (config_agents.c) into c->agents. */
int kn_config_load_agents(loader *l, kn_config *c, const node *m);
/* trace: {mode, dir, keep_days, max_mb} (config_trace.c) into c->trace. */
int kn_config_load_trace(loader *l, kn_config *c, const node *m);
int kn_config_load_replay(loader *l, kn_config *c, const node *m);
/* retention: {agent_events_days, replay_events_days, screenshots_days} (config_retention.c). */
int kn_config_load_retention(loader *l, kn_config *c, const node *m);
/* guard: [rules], end_on_guard: bool, redact: {enabled, fields, headers} (config_guard.c). */
int kn_config_load_guard(loader *l, kn_config *c, const node *s);
int kn_config_load_end_on_guard(loader *l, kn_config *c, const node *n);
/* `canary: { timeout_ms }` (config_guard.c): the bound of the guard's canary. */
int kn_config_load_canary(loader *l, kn_config *c, const node *m);
int kn_config_load_redact(loader *l, kn_config *c, const node *m);
/* A list of non-empty strings into *v (n items). */
/* http.tokens (config_tokens.c). */
int kn_config_load_tokens(loader *l, kn_config *c, const node *s);
int kn_config_load_strings(loader *l, const node *s, const char *key, char ***v, size_t *n);

/* config.c's schema helpers, for the section loaders above: a YAML null; mapping m's values by
 * key (unknown and repeated keys fail, named by path); a string copy; an integer in [lo, hi]. */
int kn_config_is_null(const node *n);
int kn_config_fields(loader *l, const node *m, const char *path, const char *const *names, int n,
                     const node **vals);
int kn_config_get_str(loader *l, const node *n, const char *path, char **dst, int nonempty);
int kn_config_get_long(loader *l, const node *n, const char *path, long lo, long hi, long *dst);

#endif
