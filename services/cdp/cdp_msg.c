/* cdp_msg.c — decoding one complete CDP message into a reply or an event.
 *
 * The wire has two shapes: a reply {"id": N, "result": {...}} or {"id": N, "error": {"message":
 * ...}}, and an event {"method": "...", "params": {...}}; both may carry "sessionId" (flattened
 * sessions). Anything else — invalid JSON, a non-object root, an id that is not an integer, both
 * or neither of id and method, a reply with both or neither of result and error — is KN_EPROTO
 * with a one-line detail, so the client can drop it with a warning and keep the connection.
 * Unknown members are ignored. Pure: no I/O, no globals; the fuzz target drives it directly. */
#include <string.h>

#include "cdp.h"

/* A string member that must be a NUL-free string when present: 1 found, 0 absent, -1 wrong. */
static int get_ident(json_t *root, const char *key, const char **out)
{
	json_t *v = json_object_get(root, key);
	*out = NULL;
	if (!v)
		return 0;
	if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
		return -1;
	*out = json_string_value(v);
	return 1;
}

/* Fill out from a parsed root; root stays the caller's on failure. */
static int decode_root(kn_cdp_msg *out, json_t *root, kn_err *err)
{
	if (!json_is_object(root))
		return kn_err_set(err, KN_EPROTO, "cdp message: not a JSON object");
	json_t *id = json_object_get(root, "id");
	json_t *method = json_object_get(root, "method");
	if (id && method)
		return kn_err_set(err, KN_EPROTO, "cdp message: both 'id' and 'method'");
	if (!id && !method)
		return kn_err_set(err, KN_EPROTO, "cdp message: neither 'id' nor 'method'");
	if (get_ident(root, "sessionId", &out->session_id) < 0)
		return kn_err_set(err, KN_EPROTO, "cdp message: 'sessionId' is not a string");

	if (method) {
		if (get_ident(root, "method", &out->method) < 0 || !*out->method)
			return kn_err_set(err, KN_EPROTO, "cdp event: 'method' is not a non-empty string");
		json_t *params = json_object_get(root, "params");
		if (params && !json_is_object(params))
			return kn_err_set(err, KN_EPROTO, "cdp event %s: 'params' is not an object",
			                  out->method);
		out->kind = KN_CDP_EVENT;
		out->params = params;
		return 0;
	}

	if (!json_is_integer(id))
		return kn_err_set(err, KN_EPROTO, "cdp reply: 'id' is not an integer");
	out->kind = KN_CDP_REPLY;
	out->id = (long long)json_integer_value(id);
	json_t *result = json_object_get(root, "result");
	json_t *error = json_object_get(root, "error");
	if (result && error)
		return kn_err_set(err, KN_EPROTO, "cdp reply %lld: both 'result' and 'error'", out->id);
	if (result) {
		if (!json_is_object(result))
			return kn_err_set(err, KN_EPROTO, "cdp reply %lld: 'result' is not an object",
			                  out->id);
		out->params = result;
		return 0;
	}
	if (!error)
		return kn_err_set(err, KN_EPROTO, "cdp reply %lld: neither 'result' nor 'error'", out->id);
	json_t *msg = json_is_object(error) ? json_object_get(error, "message") : NULL;
	if (!json_is_string(msg))
		return kn_err_set(err, KN_EPROTO, "cdp reply %lld: 'error' has no message string",
		                  out->id);
	out->error = json_string_value(msg);
	return 0;
}

int kn_cdp_decode(kn_cdp_msg *out, const char *buf, size_t len, kn_err *err)
{
	memset(out, 0, sizeof *out);
	if (!buf)
		return kn_err_set(err, KN_EPROTO, "cdp message: empty");
	json_error_t jerr;
	/* JSON_ALLOW_NUL: a page can put U+0000 in any string it hands back; refusing the whole
	 * message would fail a command for it. Identifiers are still checked for NULs above. */
	json_t *root = json_loadb(buf, len, JSON_ALLOW_NUL, &jerr);
	if (!root)
		return kn_err_set(err, KN_EPROTO, "cdp message: invalid JSON at %d:%d: %s", jerr.line,
		                  jerr.column, jerr.text);
	int rc = decode_root(out, root, err);
	if (rc) {
		json_decref(root);
		memset(out, 0, sizeof *out);
		return rc;
	}
	out->root = root;
	return 0;
}
