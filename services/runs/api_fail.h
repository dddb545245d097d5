/* api_fail.h — a store call's failure as an HTTP answer, the same for every route file of the API
 * (api.c, api_agent_runs.c, api_drift.c, api_workflows.c). */
#ifndef KEYNODE_API_FAIL_H
#define KEYNODE_API_FAIL_H

#include "keynode/error.h"
#include "server.h"

/* rc (a KN_E* code of the store) into resp: KN_ENOTFOUND 404 "not found" with what as the detail
 * (the store's message when what is NULL), KN_EINVAL 400 "bad request", KN_EIO 503 "database
 * unreachable", KN_ENOMEM 500 "out of memory", anything else 500 "database error". */
void kn_api_store_failed(kn_http_resp *resp, int rc, const kn_err *err, const char *what);

#endif
