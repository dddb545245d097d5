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
	const char *buf;
	size_t len;
	kn_err *err;
	size_t nodes;
	int line, col; /* where the last error-free event ended, for out-of-memory messages */
} loader;

/* "name:line:col: message" into l->err, control characters made '?'; returns code. */
int kn_config_fail(loader *l, int code, int line, int col, const char *fmt, ...) KN_PRINTF(5, 6);

/* agents: {NAME: "command …"} (config_agents.c) into c->agents. */
int kn_config_load_agents(loader *l, kn_config *c, const node *m);

#endif
