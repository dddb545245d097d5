/* trace_routes.h — GET /api/runs/{id}/trace, /trace-shot?step=N and /trace.tar (trace_routes.c):
 * the run traces kept under the service's traces folder (services/trace). */
#ifndef KEYNODE_HTTP_TRACE_ROUTES_H
#define KEYNODE_HTTP_TRACE_ROUTES_H

#include "request.h"
#include "server.h"

/* 1 for the three trace routes. */
int kn_http_trace_route(kn_route r);

/* Answer a trace route from root/<run id>/ (root NULL: this service keeps no traces, 404). */
void kn_http_trace_handle(const char *root, const kn_http_req *req, kn_http_resp *resp);

#endif
