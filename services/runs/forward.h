/* forward.h — a run's call sent on to the serve that runs it (README "Several
 * serves"). A live run lives in one serve's memory; a call for it that reaches another serve (a
 * load balancer's round robin) is forwarded by that one to the owner's advertised address
 * (schemas/sql/120_serve_instances.sql) and the owner's answer relayed as it came. */
#ifndef KEYNODE_RUNS_FORWARD_H
#define KEYNODE_RUNS_FORWARD_H

#include "server.h"

#define KN_FORWARD_TIMEOUT_MS 30000L /* a stop may wait 15 s for a watched run's monitor */
#define KN_FORWARD_ANSWER_MAX (16u * 1024u * 1024u)

/* Send req (a kn_route_forwardable route, request.h) to the serve at address (HOST:PORT) over
 * *conn with
 * token and X-Kn-Forwarded: me; blocks up to KN_FORWARD_TIMEOUT_MS (call it on a worker lane).
 * 0: resp holds the owner's answer (status, body, as JSON); KN_EIO when the owner could not be
 * reached or did not answer (err says why), KN_ELIMIT past KN_FORWARD_ANSWER_MAX, KN_EINVAL for
 * a route that is not forwarded. */
int kn_runs_forward(void **conn, const char *address, const char *me, const char *token,
                    const kn_http_req *req, kn_http_resp *resp, kn_err *err);
/* conn: the calling thread's connection state (NULL at first, made here and kept: the next call
 * to the same serve reuses its connection); release it with kn_runs_forward_free. */
void kn_runs_forward_free(void *conn);

#endif
