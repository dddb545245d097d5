/* trace_routes.c — the run trace over HTTP (API.md "Run traces"): the checked index of
 * <traces>/<run id>/ with its per-node paragraphs, one screenshot, or the whole trace as a ustar
 * archive. Traces are files (services/trace); the run id is a path segment, so it must be a plain
 * file name — nothing that could climb out of the traces folder. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"
#include "server.h"
#include "trace.h"
#include "trace_routes.h"

int kn_http_trace_route(kn_route r)
{
	return r == KN_ROUTE_RUN_TRACE || r == KN_ROUTE_RUN_TRACE_SHOT || r == KN_ROUTE_RUN_TRACE_TAR;
}

/* A run id usable as a folder name under the traces root. */
static int safe_id(const char *id)
{
	if (!id || !*id || id[0] == '.' || strlen(id) > 200)
		return 0;
	for (const char *p = id; *p; p++)
		if (!(*p == '-' || *p == '_' || *p == '.' || *p == ':' || (*p >= '0' && *p <= '9') ||
		      (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return 0;
	return 1;
}

static void send_file(kn_http_resp *resp, const char *path, const char *type)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0;
	if (f && fseek(f, 0, SEEK_END) == 0) {
		long sz = ftell(f);
		if (sz >= 0 && sz <= 32L * 1024 * 1024 && fseek(f, 0, SEEK_SET) == 0 &&
		    (buf = malloc((size_t)sz + 1)) != NULL)
			n = fread(buf, 1, (size_t)sz, f);
		if (buf && n != (size_t)sz)
			free(buf), buf = NULL;
	}
	if (f)
		fclose(f);
	if (!buf) {
		kn_http_resp_error(resp, 404, "not found", "no such screenshot in this run's trace");
		return;
	}
	resp->status = 200;
	resp->content_type = type;
	resp->body = buf;
	resp->len = n;
}

void kn_http_trace_handle(const char *root, const kn_http_req *req, kn_http_resp *resp)
{
	if (!root || !*root) {
		kn_http_resp_error(resp, 404, "not found", "this service keeps no traces (serve --trace)");
		return;
	}
	if (!safe_id(req->id)) {
		kn_http_resp_error(resp, 404, "not found", "no trace for this run");
		return;
	}
	char dir[4096], path[4300];
	snprintf(dir, sizeof dir, "%s/%s", root, req->id);
	kn_err err = {0};
	if (req->route == KN_ROUTE_RUN_TRACE_SHOT) {
		int step;
		if (kn_http_query_int(&step, req->query, "step", -1, 1, 1000000, &err) || step < 1) {
			kn_http_resp_error(resp, 400, "bad step", err.msg[0] ? err.msg : "step=N is required");
			return;
		}
		snprintf(path, sizeof path, "%s/shots/%04d.jpg", dir, step);
		send_file(resp, path, "image/jpeg");
		return;
	}
	json_t *idx = NULL;
	int rc = kn_trace_load(&idx, dir, &err);
	if (rc) {
		/* a missing trace is 404; a damaged one says what is wrong, without the server's paths */
		const char *why = strstr(err.msg, "index.json");
		kn_http_resp_error(resp, rc == KN_ENOTFOUND ? 404 : 500,
		                   rc == KN_ENOTFOUND ? "not found" : "damaged trace",
		                   rc == KN_ENOTFOUND ? "no trace for this run" : why ? why : err.msg);
		return;
	}
	if (req->route == KN_ROUTE_RUN_TRACE) {
		kn_trace_summarise(idx);
		char *text = json_dumps(idx, JSON_COMPACT | JSON_PRESERVE_ORDER);
		json_decref(idx);
		if (!text) {
			kn_http_resp_error(resp, 500, "out of memory", NULL);
			return;
		}
		kn_http_resp_json(resp, 200, text);
		return;
	}
	json_decref(idx);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char prefix[64];
	snprintf(prefix, sizeof prefix, "trace-%.50s", req->id);
	rc = m ? kn_trace_tar(m, dir, prefix, &err) : KN_ENOMEM;
	if (m)
		fclose(m);
	if (rc) {
		free(buf);
		kn_http_resp_error(resp, 500, "cannot pack the trace", err.msg);
		return;
	}
	resp->status = 200;
	resp->content_type = "application/x-tar";
	resp->body = buf;
	resp->len = len;
}
