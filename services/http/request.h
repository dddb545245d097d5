/* request.h — the API's trust boundary: routing a method and a decoded path, the query
 * parameters, JSON bodies, the bearer token, and JSON error answers. Pure functions of their
 * input (no lws, no database), so the unit tests and tests/fuzz/fuzz_http_request.c can hold
 * them to "any bytes give a route or a clean error". Everything sized by input is capped. */
#ifndef KEYNODE_HTTP_REQUEST_H
#define KEYNODE_HTTP_REQUEST_H

#include <stddef.h>

#include <jansson.h>

#include "keynode/error.h"

#define KN_HTTP_MAX_PATH 2048      /* a longer path is 404 */
#define KN_HTTP_MAX_ID 256         /* bytes of a path parameter (task ref, run id, number) */
#define KN_HTTP_MAX_QUERY 16       /* query parameters kept; more is 400 */
#define KN_HTTP_MAX_QUERY_NAME 64
#define KN_HTTP_MAX_QUERY_VALUE 1024
#define KN_HTTP_MAX_BODY (64u * 1024u)          /* default body cap */
#define KN_HTTP_MAX_TASKSET_BODY (8u * 1024u * 1024u) /* POST /api/tasksets */
#define KN_HTTP_MAX_JSON_DEPTH 32

typedef enum kn_http_method { KN_HTTP_GET, KN_HTTP_HEAD, KN_HTTP_POST, KN_HTTP_OTHER } kn_http_method;

typedef enum kn_route {
	KN_ROUTE_NONE,          /* unknown (404) */
	KN_ROUTE_TASKSETS_POST, /* POST /api/tasksets */
	KN_ROUTE_TASKS,         /* GET /api/tasks */
	KN_ROUTE_TASK,          /* GET /api/tasks/{id} */
	KN_ROUTE_TASK_HEALTH,   /* GET /api/tasks/{id}/health */
	KN_ROUTE_RUNS_POST,     /* POST /api/runs */
	KN_ROUTE_RUNS,          /* GET /api/runs */
	KN_ROUTE_RUN,           /* GET /api/runs/{id} */
	KN_ROUTE_RUN_EVENTS,    /* POST /api/runs/{id}/events */
	KN_ROUTE_RUN_ANSWER,    /* POST /api/runs/{id}/answer */
	KN_ROUTE_RUN_STOP,      /* POST /api/runs/{id}/stop */
	KN_ROUTE_REPLAYS_POST,  /* POST /api/replays */
	KN_ROUTE_REPLAYS,       /* GET /api/replays */
	KN_ROUTE_REPLAY_SHOT,   /* GET /api/replays/{id}/screenshot */
	KN_ROUTE_ALERTS,        /* GET /api/alerts */
	KN_ROUTE_ALERT_ACK,     /* POST /api/alerts/{id}/ack */
	KN_ROUTE_STREAM,        /* GET /api/stream (websocket) */
	KN_ROUTE_METRICS,       /* GET /metrics */
	KN_ROUTE_HEALTHZ,       /* GET /healthz */
	KN_ROUTE_STATIC,        /* GET / and /static/… (the dashboard) */
	KN_ROUTE_RUN_EVENTS_GET, /* GET /api/runs/{id}/events?after=SEQ&limit=N */
	KN_ROUTE_WORKFLOWS_POST, /* POST /api/workflows (api_workflows.h) */
	KN_ROUTE_TASK_WORKFLOW,  /* GET /api/tasks/{id}/workflow */
	KN_ROUTE_AGENT_RUNS_POST, /* POST /api/agent-runs (a batch of agent jobs) */
	KN_ROUTE_AGENT_RUN,     /* GET /api/agent-runs/{id} */
	KN_ROUTE_RUN_TRACE,      /* GET /api/runs/{id}/trace (the trace index, trace_routes.c) */
	KN_ROUTE_RUN_TRACE_SHOT, /* GET /api/runs/{id}/trace-shot?step=N (a screenshot, image/jpeg) */
	KN_ROUTE_RUN_TRACE_TAR,  /* GET /api/runs/{id}/trace.tar (the whole trace, one ustar archive) */
	KN_ROUTE_TASK_DRIFT,     /* GET /api/tasks/{id}/drift (the drift diff, api_drift.c) */
	KN_ROUTE_AGENT_RUNS,     /* GET /api/agent-runs?before=ID&limit=N (a page of batches) */
	KN_ROUTE_AGENT_RUNS_COMPARE, /* GET /api/agent-runs/compare?a=ID&b=ID (two batches paired) */
	/* the maintenance loop (services/runs/api_maint.c) */
	KN_ROUTE_TASK_REPAIRS,       /* POST /api/tasks/{id}/repairs (apply a repair proposal) */
	KN_ROUTE_TASK_EDITS,         /* POST /api/tasks/{id}/edits (a key node or a step edited) */
	KN_ROUTE_TASK_VERSIONS,      /* GET /api/tasks/{id}/versions (versions and their changes) */
	KN_ROUTE_TASKSET_CHANGELOG,  /* GET /api/tasksets/{name}/changelog (JSON or Markdown) */
	KN_ROUTE_TASKSET_SNAPSHOTS, /* GET /api/tasksets/{name}/snapshots (api_snapshots.c) */
	KN_ROUTE_RESCORE,       /* POST /api/rescore (stored runs scored on other versions) */
	/* workflows re-recorded from the dashboard (services/runs/api_recordings.c) */
	KN_ROUTE_TASK_RECORDINGS,      /* GET /api/tasks/{id}/recordings */
	KN_ROUTE_TASK_RECORDINGS_POST, /* POST /api/tasks/{id}/recordings (start one) */
	KN_ROUTE_RECORDING,            /* GET /api/recordings/{id} */
	KN_ROUTE_RECORDING_FINISH,     /* POST /api/recordings/{id}/finish */
	KN_ROUTE_RECORDING_CANCEL,     /* POST /api/recordings/{id}/cancel */
	KN_ROUTE_TASKSET_HEALTH,       /* GET /api/tasksets/{name}/health (api_taskset_health.c) */
	KN_ROUTE__COUNT
} kn_route;

/* The route's label for metrics and logs ("GET /api/runs/{id}"); "other" for KN_ROUTE_NONE. */
const char *kn_route_name(kn_route r);
/* 1 for the routes that change something (need the token whatever the listener). */
int kn_route_is_write(kn_route r);

/* Map method + decoded path to a route; the path parameter (if the route has one) is copied to
 * id (idcap bytes, NUL-terminated; "" when none). Returns 0, KN_ENOTFOUND for no such path (404),
 * KN_EUNSUPPORTED when the path exists for another method (405), KN_EINVAL when the path
 * parameter is not acceptable: empty, longer than KN_HTTP_MAX_ID, control bytes or invalid
 * UTF-8 (400). HEAD is accepted wherever GET is. A path parameter may hold '/' (a task id
 * "a/b" sent as a%2Fb arrives decoded): the verb (/health, /events…) is matched at the end of the
 * path and the id is everything between the collection and it. */
int kn_http_route(kn_route *out, char *id, size_t idcap, kn_http_method m, const char *path);

/* Query parameters: decoded name/value pairs, owned by the struct (kn_http_query_clear). */
typedef struct kn_http_query {
	size_t n;
	struct {
		char *name, *value;
	} kv[KN_HTTP_MAX_QUERY];
} kn_http_query;

/* Add one decoded "name=value" pair (len bytes; no '=' means an empty value). KN_ELIMIT past the
 * caps, KN_EINVAL for control bytes, invalid UTF-8 or an empty name; err says which. */
int kn_http_query_add(kn_http_query *q, const char *pair, size_t len, kn_err *err);
/* Parse a raw query string "a=b&c=%20d" (percent-decoding, '+' is a space) into q. */
int kn_http_query_parse(kn_http_query *q, const char *raw, size_t len, kn_err *err);
/* The value of the first parameter named name, or NULL (borrowed). */
const char *kn_http_query_get(const kn_http_query *q, const char *name);
/* A non-negative integer parameter in [min, max]; def when absent. KN_EINVAL when malformed. */
int kn_http_query_int(int *out, const kn_http_query *q, const char *name, int def, int min, int max,
                      kn_err *err);
void kn_http_query_clear(kn_http_query *q);

/* Parse body as a JSON object (len bytes, need not be NUL-terminated). *out is the caller's
 * (json_decref). KN_EINVAL with "line:col: reason" for malformed JSON, non-objects, NUL bytes or
 * nesting deeper than KN_HTTP_MAX_JSON_DEPTH. */
int kn_http_json_object(json_t **out, const char *body, size_t len, kn_err *err);
/* A string member of obj: *out borrowed from obj, NULL when absent and !required. KN_EINVAL when
 * missing (required), not a string, empty, longer than max bytes or holding control bytes. */
int kn_http_json_string(const char **out, json_t *obj, const char *key, int required, size_t max,
                        kn_err *err);

/* 1 when header (the Authorization value, may be NULL) is "Bearer <token>" with exactly token,
 * compared in constant time over the longer length. */
int kn_http_auth_ok(const char *header, const char *token);

/* A named API token (http.tokens; http.token is the one named "default"): the name is the
 * author the maintenance log records. */
typedef struct kn_http_token {
	const char *name, *token;
} kn_http_token;
#define KN_HTTP_MAX_TOKEN_NAME 64
/* The index in tokens (n of them) of the one header carries (kn_http_auth_ok), or -1. */
int kn_http_auth_which(const char *header, const kn_http_token *tokens, size_t n);

/* DNS-rebinding guard: 1 when the Host header value host (NULL: none sent) names this server.
 * Its port is ignored. With an allow-list (n > 0, entries "name" or "name:port"), host must be
 * in it; without one, a loopback listener takes localhost, 127.0.0.1, [::1] and listen_host, and
 * another listener any name (its reads need the token anyway). Case-insensitive. */
int kn_http_host_ok(const char *host, const char *const *allowed, size_t n, const char *listen_host,
                    int loopback);
/* Cross-origin guard: 1 when the Origin header value origin (NULL: none sent — not a browser's
 * cross-origin request) is this server's own origin, "http://" + host (the Host header;
 * "https://" when https: a trusted proxy said X-Forwarded-Proto: https), or one of allowed
 * ("http://name:port", trailing slashes ignored). "null" and anything else: 0. */
int kn_http_origin_ok(const char *origin, const char *host, int https, const char *const *allowed,
                      size_t n);
/* The client a proxy forwarded for: the last address of an X-Forwarded-For value (the one the
 * proxy itself saw; earlier ones are the client's word), trimmed, into out (cap bytes); "" when
 * none is usable. */
void kn_http_forwarded_for(const char *xff, char *out, size_t cap);

/* The header a serve adds to a call it forwards to the serve that runs the run
 * (services/runs/README.md "Several serves"): its value is the forwarding serve's owner id. A
 * request carrying it is never forwarded again. */
#define KN_HTTP_HOP_HEADER "X-Kn-Forwarded"
#define KN_HTTP_MAX_HOP 159
/* 1 for the routes a serve forwards to the serve that runs the run: POST /api/runs/{id}/events,
 * …/answer, …/stop. */
int kn_route_forwardable(kn_route r);
/* 1 when v is an acceptable X-Kn-Forwarded value: 1 to KN_HTTP_MAX_HOP bytes of
 * [A-Za-z0-9._-]. */
int kn_http_hop_ok(const char *v);

/* The HOST:PORT other serves reach a server listening on host (numeric, without brackets) and
 * port at (the default of http.advertise): a wildcard host (0.0.0.0, ::, empty) is replaced by
 * hostname (this machine's name), an IPv6 address bracketed. KN_EINVAL when the host is a
 * wildcard and hostname empty, KN_ELIMIT when out (cap bytes) is too small. */
int kn_http_advertise(char *out, size_t cap, const char *host, int port, const char *hostname,
                      kn_err *err);

/* 1 when s (len bytes) is valid UTF-8 without control bytes (tab excluded). */
int kn_http_text_ok(const char *s, size_t len);

/* An error body {"error": msg, "detail": detail|null}; *out the caller's (free). */
int kn_http_error_json(char **out, const char *msg, const char *detail);

#endif
