/* repair.h — key-node and selector repair proposals, verified by replay (not a
 * public contract: validate.c calls it, repair.c holds it). */
#ifndef KEYNODE_REPLAY_REPAIR_H
#define KEYNODE_REPLAY_REPAIR_H

#include <jansson.h>

#include "replay.h"

/* The repair proposals of a finished validation of task (res: how its steps went; doc: its report,
 * read for the key nodes reached and the steps' postconditions), each verified by replaying task
 * again on the browser at ws with every proposal applied in memory (never written anywhere):
 * the report's "repairs" array (schemas/replay-report.schema.json; empty when a step drifted
 * nowhere and every key node was reached). NULL only when out of memory. */
json_t *kn_replay_repairs(kn_cdp_loop *loop, const char *ws, const kn_task *task,
                          const kn_validate_opts *o, const kn_replay_result *res, json_t *doc);

/* A URL key node kn (not reached) as url — a page a step visited — would reach it: when that page
 * holds kn's value under another query parameter than kn's key, *key is that name; for a key node
 * without a key, *expect is its expected text with a query parameter renamed to the one holding the
 * same value on url ("…?id=5" → "…?post=5"), or with the path segments renamed that differ between
 * recorded (the URL the step recorded or its link's href; NULL: none) and url ("/notes/new.html" →
 * "/notes/compose.html"). Only exact, include and regex matchers; every candidate is checked with
 * kn's matcher on url. 1 with one of *key / *expect set (the caller's), 0 when nothing fits. */
int kn_repair_url(const kn_keynode *kn, const char *url, const char *recorded, char **key, char **expect);

#endif
