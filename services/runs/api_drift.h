/* api_drift.h — GET /api/tasks/{id}/drift (services/http/API.md "Drift diff"): the task's
 * last passing replay beside its failing one at the first step that differs. */
#ifndef KEYNODE_API_DRIFT_H
#define KEYNODE_API_DRIFT_H

#include "server.h"
#include "store.h"

/* Answer over st, reading traces under trace_root (NULL: none kept; the diff then has no
 * screenshots but the failure's). ?replay=ID picks the failing replay (a positive integer, else
 * 400). 200 the diff; 404 no such task, no failing replay, no passing replay before it;
 * 503/500 store errors. */
void kn_api_drift_get(kn_store *st, const char *trace_root, const kn_http_req *req, kn_http_resp *resp);

#endif
