/* replay_internal.h — what the replayer's files share (not a public contract). */
#ifndef KEYNODE_REPLAY_INTERNAL_H
#define KEYNODE_REPLAY_INTERNAL_H

#include <jansson.h>

#include "cdp.h"

/* The expression calling page function fn ("find", "pick", "focus", "select", "state",
 * "excerpt") of the in-page library with params (borrowed; NULL: {}). Caller frees. */
char *kn_replay_page_expr(const char *fn, json_t *params);

/* Evaluate page function fn in session of c; *value is the caller's (JSON null when the
 * function returned nothing). KN_EPROTO for a script exception or a navigating page. */
int kn_replay_page_call(kn_cdp *c, const char *session, const char *fn, json_t *params,
                        json_t **value, kn_err *err);


#endif
