/* request.c — routing, query parameters, JSON bodies and the bearer token of the API (request.h).
 *
 * This is where untrusted bytes from the network first meet keynode's code, so every function
 * here is a pure function of its input with explicit caps, and anything odd is refused with a
 * reason rather than passed on: a path parameter with control bytes or broken UTF-8 is 400 before
 * any database sees it (the store binds parameters anyway; this keeps logs and errors clean). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/json_depth.h"
#include "keynode/utf8.h"
#include "request.h"

static const char *const route_names[KN_ROUTE__COUNT] = {
	[KN_ROUTE_NONE] = "other",
	[KN_ROUTE_TASKSETS_POST] = "POST /api/tasksets",
	[KN_ROUTE_TASKS] = "GET /api/tasks",
	[KN_ROUTE_TASK] = "GET /api/tasks/{id}",
	[KN_ROUTE_TASK_HEALTH] = "GET /api/tasks/{id}/health",
	[KN_ROUTE_RUNS_POST] = "POST /api/runs",
	[KN_ROUTE_RUNS] = "GET /api/runs",
	[KN_ROUTE_RUN] = "GET /api/runs/{id}",
	[KN_ROUTE_RUN_EVENTS] = "POST /api/runs/{id}/events",
	[KN_ROUTE_RUN_ANSWER] = "POST /api/runs/{id}/answer",
	[KN_ROUTE_RUN_STOP] = "POST /api/runs/{id}/stop",
	[KN_ROUTE_REPLAYS_POST] = "POST /api/replays",
	[KN_ROUTE_REPLAYS] = "GET /api/replays",
	[KN_ROUTE_REPLAY_SHOT] = "GET /api/replays/{id}/screenshot",
	[KN_ROUTE_ALERTS] = "GET /api/alerts",
	[KN_ROUTE_ALERT_ACK] = "POST /api/alerts/{id}/ack",
	[KN_ROUTE_STREAM] = "GET /api/stream",
	[KN_ROUTE_METRICS] = "GET /metrics",
	[KN_ROUTE_HEALTHZ] = "GET /healthz",
	[KN_ROUTE_STATIC] = "GET /",
	[KN_ROUTE_RUN_EVENTS_GET] = "GET /api/runs/{id}/events",
	[KN_ROUTE_WORKFLOWS_POST] = "POST /api/workflows",
	[KN_ROUTE_TASK_WORKFLOW] = "GET /api/tasks/{id}/workflow",
	[KN_ROUTE_AGENT_RUNS_POST] = "POST /api/agent-runs",
	[KN_ROUTE_AGENT_RUN] = "GET /api/agent-runs/{id}",
	[KN_ROUTE_RUN_TRACE] = "GET /api/runs/{id}/trace",
	[KN_ROUTE_RUN_TRACE_SHOT] = "GET /api/runs/{id}/trace-shot",
	[KN_ROUTE_RUN_TRACE_TAR] = "GET /api/runs/{id}/trace.tar",
	[KN_ROUTE_TASK_DRIFT] = "GET /api/tasks/{id}/drift",
	[KN_ROUTE_AGENT_RUNS] = "GET /api/agent-runs",
	[KN_ROUTE_AGENT_RUNS_COMPARE] = "GET /api/agent-runs/compare",
	[KN_ROUTE_TASK_REPAIRS] = "POST /api/tasks/{id}/repairs",
	[KN_ROUTE_TASK_EDITS] = "POST /api/tasks/{id}/edits",
	[KN_ROUTE_TASK_VERSIONS] = "GET /api/tasks/{id}/versions",
	[KN_ROUTE_TASKSET_CHANGELOG] = "GET /api/tasksets/{name}/changelog",
	[KN_ROUTE_TASKSET_SNAPSHOTS] = "GET /api/tasksets/{name}/snapshots",
	[KN_ROUTE_TASKSET_HEALTH] = "GET /api/tasksets/{name}/health",
	[KN_ROUTE_RESCORE] = "POST /api/rescore",
	[KN_ROUTE_TASK_RECORDINGS] = "GET /api/tasks/{id}/recordings",
	[KN_ROUTE_TASK_RECORDINGS_POST] = "POST /api/tasks/{id}/recordings",
	[KN_ROUTE_RECORDING] = "GET /api/recordings/{id}",
	[KN_ROUTE_RECORDING_FINISH] = "POST /api/recordings/{id}/finish",
	[KN_ROUTE_RECORDING_CANCEL] = "POST /api/recordings/{id}/cancel",
};

const char *kn_route_name(kn_route r)
{
	return r > KN_ROUTE_NONE && r < KN_ROUTE__COUNT ? route_names[r] : "other";
}

int kn_route_is_write(kn_route r)
{
	switch (r) {
	case KN_ROUTE_TASKSETS_POST: case KN_ROUTE_RUNS_POST: case KN_ROUTE_RUN_EVENTS:
	case KN_ROUTE_RUN_ANSWER: case KN_ROUTE_RUN_STOP: case KN_ROUTE_REPLAYS_POST:
	case KN_ROUTE_ALERT_ACK: case KN_ROUTE_WORKFLOWS_POST: case KN_ROUTE_AGENT_RUNS_POST: case KN_ROUTE_RESCORE:
	case KN_ROUTE_TASK_REPAIRS: case KN_ROUTE_TASK_EDITS:
	case KN_ROUTE_TASK_RECORDINGS_POST: case KN_ROUTE_RECORDING_FINISH: case KN_ROUTE_RECORDING_CANCEL:
		return 1;
	default:
		return 0;
	}
}

int kn_http_text_ok(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		uint32_t cp;
		p += kn_utf8_decode(p, (size_t)(end - p), &cp);
		/* ill-formed UTF-8, C0 controls but tab, DEL and the C1 controls */
		if (cp == KN_UTF8_BAD || (cp < 0x20 && cp != '\t') || (cp >= 0x7f && cp <= 0x9f))
			return 0;
	}
	return 1;
}

/* Copy a path parameter of len bytes: 0, or KN_EINVAL when not acceptable. */
static int take_id(char *id, size_t idcap, const char *s, size_t len)
{
	if (len == 0 || len > KN_HTTP_MAX_ID || len + 1 > idcap || !kn_http_text_ok(s, len))
		return KN_EINVAL;
	/* an empty segment cannot come from lws (it collapses "//"): refuse it rather than guess */
	if (s[0] == '/' || s[len - 1] == '/')
		return KN_EINVAL;
	for (size_t i = 1; i < len; i++)
		if (s[i] == '/' && s[i - 1] == '/')
			return KN_EINVAL;
	memcpy(id, s, len);
	id[len] = '\0';
	return 0;
}

/* Match the tail after a collection prefix: "" → coll, "/ID" → item, "/ID/verb" → verbs[]. */
struct verb {
	const char *name;
	kn_route get, post;
};

static int pick(kn_route *out, kn_http_method m, kn_route get, kn_route post)
{
	kn_route r = (m == KN_HTTP_POST) ? post : (m == KN_HTTP_GET || m == KN_HTTP_HEAD) ? get
	                                                                                  : KN_ROUTE_NONE;
	if (r == KN_ROUTE_NONE)
		return (get != KN_ROUTE_NONE || post != KN_ROUTE_NONE) ? KN_EUNSUPPORTED : KN_ENOTFOUND;
	*out = r;
	return 0;
}

static int match_collection(kn_route *out, char *id, size_t idcap, kn_http_method m,
                            const char *tail, kn_route coll_get, kn_route coll_post,
                            kn_route item_get, const struct verb *verbs, size_t n_verbs)
{
	if (*tail == '\0' || strcmp(tail, "/") == 0)
		return pick(out, m, coll_get, coll_post);
	if (*tail != '/')
		return KN_ENOTFOUND;
	tail++;
	/* The id may hold '/' (lws decodes %2F before we see the path): the verb is matched at the
	 * end, and whatever precedes it is the id. */
	size_t len = strlen(tail);
	if (len && tail[len - 1] == '/')
		len--;
	size_t idlen = len;
	kn_route get = item_get, post = KN_ROUTE_NONE;
	for (size_t i = 0; i < n_verbs; i++) {
		size_t vl = strlen(verbs[i].name);
		if (len > vl + 1 && tail[len - vl - 1] == '/' &&
		    memcmp(tail + len - vl, verbs[i].name, vl) == 0) {
			idlen = len - vl - 1;
			get = verbs[i].get;
			post = verbs[i].post;
			break;
		}
	}
	if (idlen == len && item_get == KN_ROUTE_NONE)
		return KN_ENOTFOUND;
	int rc = pick(out, m, get, post);
	if (rc)
		return rc;
	if (take_id(id, idcap, tail, idlen)) {
		*out = KN_ROUTE_NONE;
		return KN_EINVAL;
	}
	return 0;
}

int kn_http_route(kn_route *out, char *id, size_t idcap, kn_http_method m, const char *path)
{
	if (!out || !id || idcap == 0 || !path)
		return KN_EINVAL;
	*out = KN_ROUTE_NONE;
	id[0] = '\0';
	size_t pl = strnlen(path, KN_HTTP_MAX_PATH + 1);
	if (pl > KN_HTTP_MAX_PATH || path[0] != '/')
		return KN_ENOTFOUND;
	static const struct verb task_verbs[] = {{"health", KN_ROUTE_TASK_HEALTH, KN_ROUTE_NONE},
	                                         {"workflow", KN_ROUTE_TASK_WORKFLOW, KN_ROUTE_NONE},
	                                         {"drift", KN_ROUTE_TASK_DRIFT, KN_ROUTE_NONE},
	                                         {"repairs", KN_ROUTE_NONE, KN_ROUTE_TASK_REPAIRS},
	                                         {"edits", KN_ROUTE_NONE, KN_ROUTE_TASK_EDITS},
	                                         {"versions", KN_ROUTE_TASK_VERSIONS, KN_ROUTE_NONE},
	                                         {"recordings", KN_ROUTE_TASK_RECORDINGS, KN_ROUTE_TASK_RECORDINGS_POST}};
	static const struct verb recording_verbs[] = {{"finish", KN_ROUTE_NONE, KN_ROUTE_RECORDING_FINISH},
	                                              {"cancel", KN_ROUTE_NONE, KN_ROUTE_RECORDING_CANCEL}};
	static const struct verb taskset_verbs[] = {{"changelog", KN_ROUTE_TASKSET_CHANGELOG, KN_ROUTE_NONE},
		{"snapshots", KN_ROUTE_TASKSET_SNAPSHOTS, KN_ROUTE_NONE},
		{"health", KN_ROUTE_TASKSET_HEALTH, KN_ROUTE_NONE}};
	static const struct verb run_verbs[] = {
		{"events", KN_ROUTE_RUN_EVENTS_GET, KN_ROUTE_RUN_EVENTS},
		{"answer", KN_ROUTE_NONE, KN_ROUTE_RUN_ANSWER},
		{"stop", KN_ROUTE_NONE, KN_ROUTE_RUN_STOP},
		{"trace", KN_ROUTE_RUN_TRACE, KN_ROUTE_NONE},
		{"trace-shot", KN_ROUTE_RUN_TRACE_SHOT, KN_ROUTE_NONE},
		{"trace.tar", KN_ROUTE_RUN_TRACE_TAR, KN_ROUTE_NONE}};
	static const struct verb replay_verbs[] = {{"screenshot", KN_ROUTE_REPLAY_SHOT, KN_ROUTE_NONE}};
	static const struct verb alert_verbs[] = {{"ack", KN_ROUTE_NONE, KN_ROUTE_ALERT_ACK}};
	if (strncmp(path, "/api/", 5) == 0 || strcmp(path, "/api") == 0) {
		const char *rest = path + 4;
		if (strncmp(rest, "/tasksets", 9) == 0 && (rest[9] == '\0' || rest[9] == '/'))
			return match_collection(out, id, idcap, m, rest + 9, KN_ROUTE_NONE, KN_ROUTE_TASKSETS_POST,
			                        KN_ROUTE_NONE, taskset_verbs, sizeof taskset_verbs / sizeof *taskset_verbs);
		if (strcmp(rest, "/rescore") == 0 || strcmp(rest, "/rescore/") == 0)
			return pick(out, m, KN_ROUTE_NONE, KN_ROUTE_RESCORE);
		if (strncmp(rest, "/tasks", 6) == 0 && (rest[6] == '\0' || rest[6] == '/'))
			return match_collection(out, id, idcap, m, rest + 6, KN_ROUTE_TASKS, KN_ROUTE_NONE,
			                        KN_ROUTE_TASK, task_verbs, sizeof task_verbs / sizeof *task_verbs);
		if (strncmp(rest, "/runs", 5) == 0 && (rest[5] == '\0' || rest[5] == '/'))
			return match_collection(out, id, idcap, m, rest + 5, KN_ROUTE_RUNS, KN_ROUTE_RUNS_POST,
			                        KN_ROUTE_RUN, run_verbs, sizeof run_verbs / sizeof *run_verbs);
		if (strncmp(rest, "/replays", 8) == 0 && (rest[8] == '\0' || rest[8] == '/'))
			return match_collection(out, id, idcap, m, rest + 8, KN_ROUTE_REPLAYS,
			                        KN_ROUTE_REPLAYS_POST, KN_ROUTE_NONE, replay_verbs, 1);
		if (strncmp(rest, "/alerts", 7) == 0 && (rest[7] == '\0' || rest[7] == '/'))
			return match_collection(out, id, idcap, m, rest + 7, KN_ROUTE_ALERTS, KN_ROUTE_NONE,
			                        KN_ROUTE_NONE, alert_verbs, 1);
		if (strcmp(rest, "/workflows") == 0 || strcmp(rest, "/workflows/") == 0)
			return pick(out, m, KN_ROUTE_NONE, KN_ROUTE_WORKFLOWS_POST);
		if (strcmp(rest, "/agent-runs/compare") == 0) /* batch ids are numbers: never "compare" */
			return pick(out, m, KN_ROUTE_AGENT_RUNS_COMPARE, KN_ROUTE_NONE);
		if (strncmp(rest, "/agent-runs", 11) == 0 && (rest[11] == '\0' || rest[11] == '/'))
			return match_collection(out, id, idcap, m, rest + 11, KN_ROUTE_AGENT_RUNS,
			                        KN_ROUTE_AGENT_RUNS_POST, KN_ROUTE_AGENT_RUN, NULL, 0);
		if (strncmp(rest, "/recordings", 11) == 0 && (rest[11] == '\0' || rest[11] == '/'))
			return match_collection(out, id, idcap, m, rest + 11, KN_ROUTE_NONE, KN_ROUTE_NONE,
			                        KN_ROUTE_RECORDING, recording_verbs, 2);
		if (strcmp(rest, "/stream") == 0)
			return pick(out, m, KN_ROUTE_STREAM, KN_ROUTE_NONE);
		return KN_ENOTFOUND;
	}
	if (strcmp(path, "/metrics") == 0)
		return pick(out, m, KN_ROUTE_METRICS, KN_ROUTE_NONE);
	if (strcmp(path, "/healthz") == 0)
		return pick(out, m, KN_ROUTE_HEALTHZ, KN_ROUTE_NONE);
	if (strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0 ||
	    strncmp(path, "/static/", 8) == 0)
		return pick(out, m, KN_ROUTE_STATIC, KN_ROUTE_NONE);
	return KN_ENOTFOUND;
}

/* --- query ----------------------------------------------------------------------------------- */

int kn_http_query_add(kn_http_query *q, const char *pair, size_t len, kn_err *err)
{
	if (!q || (!pair && len))
		return kn_err_set(err, KN_EINVAL, "bad argument");
	if (len == 0)
		return 0; /* "a=1&&b=2" */
	if (q->n >= KN_HTTP_MAX_QUERY)
		return kn_err_set(err, KN_ELIMIT, "more than %d query parameters", KN_HTTP_MAX_QUERY);
	const char *eq = memchr(pair, '=', len);
	size_t nl = eq ? (size_t)(eq - pair) : len;
	size_t vl = eq ? len - nl - 1 : 0;
	if (nl == 0)
		return kn_err_set(err, KN_EINVAL, "a query parameter without a name");
	if (nl > KN_HTTP_MAX_QUERY_NAME)
		return kn_err_set(err, KN_ELIMIT, "query parameter name longer than %d bytes",
		                  KN_HTTP_MAX_QUERY_NAME);
	if (vl > KN_HTTP_MAX_QUERY_VALUE)
		return kn_err_set(err, KN_ELIMIT, "query parameter longer than %d bytes",
		                  KN_HTTP_MAX_QUERY_VALUE);
	if (!kn_http_text_ok(pair, nl) || (eq && !kn_http_text_ok(eq + 1, vl)))
		return kn_err_set(err, KN_EINVAL, "query parameter with control bytes or invalid UTF-8");
	char *name = malloc(nl + 1), *value = malloc(vl + 1);
	if (!name || !value) {
		free(name);
		free(value);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	memcpy(name, pair, nl);
	name[nl] = '\0';
	if (vl)
		memcpy(value, eq + 1, vl);
	value[vl] = '\0';
	q->kv[q->n].name = name;
	q->kv[q->n].value = value;
	q->n++;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int kn_http_query_parse(kn_http_query *q, const char *raw, size_t len, kn_err *err)
{
	if (!q || (!raw && len))
		return kn_err_set(err, KN_EINVAL, "bad argument");
	size_t cap = KN_HTTP_MAX_QUERY_NAME + KN_HTTP_MAX_QUERY_VALUE + 2;
	char buf[KN_HTTP_MAX_QUERY_NAME + KN_HTTP_MAX_QUERY_VALUE + 2];
	size_t i = 0;
	while (i < len) {
		size_t bl = 0;
		for (; i < len && raw[i] != '&'; i++) {
			int c = (unsigned char)raw[i];
			if (c == '+') {
				c = ' ';
			} else if (c == '%') {
				int h = i + 2 < len ? hexval((unsigned char)raw[i + 1]) : -1;
				int l = h >= 0 ? hexval((unsigned char)raw[i + 2]) : -1;
				if (h < 0 || l < 0)
					return kn_err_set(err, KN_EINVAL, "bad percent escape in the query");
				c = h * 16 + l;
				i += 2;
			}
			if (bl >= cap)
				return kn_err_set(err, KN_ELIMIT, "query parameter longer than %d bytes",
				                  KN_HTTP_MAX_QUERY_VALUE);
			buf[bl++] = (char)c;
		}
		int rc = kn_http_query_add(q, buf, bl, err);
		if (rc)
			return rc;
		if (i < len)
			i++; /* '&' */
	}
	return 0;
}

const char *kn_http_query_get(const kn_http_query *q, const char *name)
{
	for (size_t i = 0; q && i < q->n; i++)
		if (strcmp(q->kv[i].name, name) == 0)
			return q->kv[i].value;
	return NULL;
}

int kn_http_query_int(int *out, const kn_http_query *q, const char *name, int def, int min, int max,
                      kn_err *err)
{
	const char *v = kn_http_query_get(q, name);
	if (!v) {
		*out = def;
		return 0;
	}
	char *end;
	long n = (*v >= '0' && *v <= '9') ? strtol(v, &end, 10) : -1;
	if (n < 0 || *end || n < min || n > max)
		return kn_err_set(err, KN_EINVAL, "%s must be an integer in [%d, %d]", name, min, max);
	*out = (int)n;
	return 0;
}

void kn_http_query_clear(kn_http_query *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->n; i++) {
		free(q->kv[i].name);
		free(q->kv[i].value);
	}
	q->n = 0;
}

/* --- JSON bodies ------------------------------------------------------------------------------ */

int kn_http_json_object(json_t **out, const char *body, size_t len, kn_err *err)
{
	if (!out)
		return kn_err_set(err, KN_EINVAL, "bad argument");
	*out = NULL;
	if (!body || len == 0)
		return kn_err_set(err, KN_EINVAL, "empty body: a JSON object was expected");
	if (memchr(body, '\0', len))
		return kn_err_set(err, KN_EINVAL, "NUL byte in the body");
	if (kn_json_depth_exceeds(body, len, KN_HTTP_MAX_JSON_DEPTH))
		return kn_err_set(err, KN_EINVAL, "JSON nested deeper than %d levels",
		                  KN_HTTP_MAX_JSON_DEPTH);
	json_error_t je;
	json_t *j = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
	if (!j)
		return kn_err_set(err, KN_EINVAL, "%d:%d: %s", je.line, je.column, je.text);
	if (!json_is_object(j)) {
		json_decref(j);
		return kn_err_set(err, KN_EINVAL, "a JSON object was expected");
	}
	*out = j;
	return 0;
}

int kn_http_json_string(const char **out, json_t *obj, const char *key, int required, size_t max,
                        kn_err *err)
{
	*out = NULL;
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v)) {
		if (required)
			return kn_err_set(err, KN_EINVAL, "\"%s\" is required", key);
		return 0;
	}
	if (!json_is_string(v))
		return kn_err_set(err, KN_EINVAL, "\"%s\" must be a string", key);
	size_t n = json_string_length(v);
	const char *s = json_string_value(v);
	if (n == 0)
		return kn_err_set(err, KN_EINVAL, "\"%s\" must not be empty", key);
	if (n > max)
		return kn_err_set(err, KN_EINVAL, "\"%s\" is longer than %zu bytes", key, max);
	if (!kn_http_text_ok(s, n))
		return kn_err_set(err, KN_EINVAL, "\"%s\" holds control characters", key);
	*out = s;
	return 0;
}

/* --- auth and errors -------------------------------------------------------------------------- */

int kn_http_auth_ok(const char *header, const char *token)
{
	if (!token || !*token)
		return 0;
	if (!header || strncmp(header, "Bearer ", 7) != 0)
		return 0;
	const unsigned char *a = (const unsigned char *)header + 7, *b = (const unsigned char *)token;
	size_t la = strlen((const char *)a), lb = strlen((const char *)b);
	size_t n = la > lb ? la : lb;
	unsigned diff = (unsigned)(la ^ lb);
	/* Walk the longer length whatever the content, so the time says nothing about where the
	 * first difference is. */
	for (size_t i = 0; i < n; i++) {
		unsigned x = i < la ? a[i] : 0u, y = i < lb ? b[i] : 0u;
		diff |= x ^ y;
	}
	return diff == 0;
}

int kn_http_auth_which(const char *header, const kn_http_token *tokens, size_t n)
{
	int found = -1;
	for (size_t i = 0; i < n; i++) /* every token compared: the time says nothing about which */
		if (kn_http_auth_ok(header, tokens[i].token) && found < 0)
			found = (int)i;
	return found;
}

int kn_http_error_json(char **out, const char *msg, const char *detail)
{
	json_t *j = json_pack("{s:s, s:s?}", "error", msg ? msg : "error", "detail", detail);
	if (!j) /* detail not UTF-8: say so without it */
		j = json_pack("{s:s, s:n}", "error", msg ? msg : "error", "detail");
	*out = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	return *out ? 0 : KN_ENOMEM;
}

/* --- Host and Origin ----------------------------------------------------------------------- */

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* The host part of "name[:port]" or "[v6][:port]": [*b, *b + *n). Anything but digits after the
 * colon (or after "]") makes the whole value the name, which then matches nothing real. */
static void host_part(const char *h, const char **b, size_t *n)
{
	size_t len = strlen(h);
	*b = h;
	if (h[0] == '[') {
		const char *e = strchr(h, ']');
		*n = e && (e[1] == '\0' || (e[1] == ':' && all_digits(e + 2))) ? (size_t)(e - h) + 1 : len;
		return;
	}
	const char *c = strrchr(h, ':');
	*n = c && all_digits(c + 1) ? (size_t)(c - h) : len;
}

static int same_name(const char *a, size_t an, const char *b, size_t bn)
{
	if (an != bn)
		return 0;
	for (size_t i = 0; i < an; i++) {
		char x = a[i], y = b[i];
		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return 0;
	}
	return 1;
}

void kn_http_forwarded_for(const char *xff, char *out, size_t cap)
{
	out[0] = '\0';
	if (!xff)
		return;
	const char *last = strrchr(xff, ',');
	last = last ? last + 1 : xff;
	while (*last == ' ' || *last == '\t')
		last++;
	size_t n = strlen(last);
	while (n && (last[n - 1] == ' ' || last[n - 1] == '\t'))
		n--;
	if (n == 0 || n >= cap || !kn_http_text_ok(last, n) || memchr(last, ' ', n) || memchr(last, '"', n))
		return;
	memcpy(out, last, n);
	out[n] = '\0';
}

int kn_http_advertise(char *out, size_t cap, const char *host, int port, const char *hostname,
                      kn_err *err)
{
	if (cap)
		out[0] = '\0';
	if (!host || port < 1 || port > 65535)
		return kn_err_set(err, KN_EINVAL, "no listen address to advertise");
	int wild = !*host || strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0;
	if (wild && (!hostname || !*hostname))
		return kn_err_set(err, KN_EINVAL, "listening on every address and no host name: "
		                  "set http.advertise");
	const char *h = wild ? hostname : host;
	int v6 = !wild && strchr(h, ':') != NULL;
	int n = snprintf(out, cap, v6 ? "[%s]:%d" : "%s:%d", h, port);
	if (n < 0 || (size_t)n >= cap)
		return kn_err_set(err, KN_ELIMIT, "advertised address too long");
	return 0;
}

int kn_route_forwardable(kn_route r)
{
	return r == KN_ROUTE_RUN_EVENTS || r == KN_ROUTE_RUN_ANSWER || r == KN_ROUTE_RUN_STOP;
}

int kn_http_hop_ok(const char *v)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	size_t n = v ? strlen(v) : 0;
	return n > 0 && n <= KN_HTTP_MAX_HOP && strspn(v, ok) == n;
}

int kn_http_host_ok(const char *host, const char *const *allowed, size_t n, const char *listen_host,
                    int loopback)
{
	if (!host)
		return 1; /* no Host at all: HTTP/1.0, not a browser */
	if (!*host || strlen(host) > 255 || !kn_http_text_ok(host, strlen(host)))
		return 0;
	const char *b;
	size_t bn;
	host_part(host, &b, &bn);
	if (n) {
		for (size_t i = 0; i < n; i++) {
			const char *a;
			size_t an;
			host_part(allowed[i], &a, &an);
			if (same_name(a, an, b, bn))
				return 1;
		}
		return 0;
	}
	if (!loopback)
		return 1; /* reachable from elsewhere: the token guards it */
	static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (same_name(names[i], strlen(names[i]), b, bn))
			return 1;
	if (listen_host && same_name(listen_host, strlen(listen_host), b, bn))
		return 1;
	/* the listen host as an IPv6 literal in brackets */
	return listen_host && bn == strlen(listen_host) + 2 && b[0] == '[' &&
	       same_name(listen_host, strlen(listen_host), b + 1, bn - 2);
}

int kn_http_origin_ok(const char *origin, const char *host, int https, const char *const *allowed,
                      size_t n)
{
	if (!origin)
		return 1; /* not sent: not a cross-origin browser request */
	size_t ol = strlen(origin);
	while (ol && origin[ol - 1] == '/')
		ol--;
	const char *scheme = https ? "https://" : "http://";
	size_t sl = strlen(scheme);
	if (host && *host && ol > sl && same_name(origin, sl, scheme, sl) &&
	    same_name(origin + sl, ol - sl, host, strlen(host)))
		return 1;
	for (size_t i = 0; i < n; i++) {
		size_t al = strlen(allowed[i]);
		while (al && allowed[i][al - 1] == '/')
			al--;
		if (same_name(origin, ol, allowed[i], al))
			return 1;
	}
	return 0;
}
