/* api_recordings.h — workflows re-recorded from the dashboard (services/http/API.md
 * "Recordings", services/live/README.md "Recording"). The token is needed for every write (the server's
 * write-route rule: 401 without it). */
#ifndef KEYNODE_API_RECORDINGS_H
#define KEYNODE_API_RECORDINGS_H

#include <stddef.h>

#include "keynode/error.h"
#include "server.h"
#include "store.h"

#define KN_RECORDING_REASON_MAX 500

/* The optional body of POST /api/tasks/{id}/recordings: empty, or {"reason": TEXT} (1..500 bytes of
 * UTF-8 without control characters). reason gets "" when none was given. KN_EINVAL (err) for
 * anything else: not JSON, not an object, another member, a reason of another type or size. */
int kn_api_recording_body_parse(const char *body, size_t len, char reason[KN_RECORDING_REASON_MAX + 1],
                                kn_err *err);
/* POST /api/tasks/{id}/recordings → 201 RECORDING (queued: a worker opens the task's start page;
 * watch and drive it at #/live/rec-ID). 400 bad body; 404 no such task. */
void kn_api_recording_post(kn_store *st, const kn_http_req *req, kn_http_resp *resp);
/* POST /api/recordings/{id}/finish | cancel → 202 RECORDING; 404 none; 409 it ended already. */
void kn_api_recording_want(kn_store *st, const kn_http_req *req, kn_http_resp *resp, const char *want);
/* GET /api/recordings/{id}, GET /api/tasks/{id}/recordings. */
void kn_api_recording_get(kn_store *st, const kn_http_req *req, kn_http_resp *resp);
void kn_api_recordings_get(kn_store *st, const kn_http_req *req, kn_http_resp *resp);

#endif
