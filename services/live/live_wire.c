/* live_wire.c — parsing and formatting of the live view's messages (live_wire.h). Pure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "live_wire.h"

static const struct {
	const char *name, *code;
	int vk;
} keys[] = {
	{"Enter", "Enter", 13},       {"Tab", "Tab", 9},           {"Backspace", "Backspace", 8},
	{"Escape", "Escape", 27},     {"Delete", "Delete", 46},    {"Space", "Space", 32},
	{"Home", "Home", 36},         {"End", "End", 35},          {"PageUp", "PageUp", 33},
	{"PageDown", "PageDown", 34}, {"ArrowUp", "ArrowUp", 38},  {"ArrowDown", "ArrowDown", 40},
	{"ArrowLeft", "ArrowLeft", 37}, {"ArrowRight", "ArrowRight", 39},
};

int kn_live_key_code(const char *name, const char **code)
{
	for (size_t i = 0; name && i < sizeof keys / sizeof keys[0]; i++)
		if (strcmp(keys[i].name, name) == 0) {
			if (code)
				*code = keys[i].code;
			return keys[i].vk;
		}
	return 0;
}

int kn_live_run_ok(const char *run)
{
	size_t n = run ? strlen(run) : 0;
	if (n == 0 || n > KN_LIVE_RUN_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:", run[i]))
			return 0;
	return 1;
}

/* 1 when s is UTF-8 (jansson checked that) without control characters. */
static int text_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return 0;
	}
	return 1;
}

static int num(json_t *o, const char *k, double lo, double hi, double *out, kn_err *err)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_number(v))
		return kn_err_set(err, KN_EINVAL, "'%s' must be a number", k);
	double d = json_number_value(v);
	if (!isfinite(d) || d < lo || d > hi)
		return kn_err_set(err, KN_EINVAL, "'%s' out of range %g..%g", k, lo, hi);
	*out = d;
	return 0;
}

/* Every member of o is one of the names in allowed (NULL-terminated). */
static int members_ok(json_t *o, const char *const *allowed, kn_err *err)
{
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		int ok = 0;
		for (size_t i = 0; allowed[i] && !ok; i++)
			ok = strcmp(allowed[i], k) == 0;
		if (!ok)
			return kn_err_set(err, KN_EINVAL, "unknown member '%.40s'", k);
	}
	return 0;
}

static int parse_obj(kn_live_input *out, json_t *o, kn_err *err)
{
	static const char *const bare[] = {"type", NULL};
	static const char *const click[] = {"type", "x", "y", "button", "count", NULL};
	static const char *const wheel[] = {"type", "x", "y", "dx", "dy", NULL};
	static const char *const key[] = {"type", "key", NULL};
	static const char *const text[] = {"type", "text", NULL};
	memset(out, 0, sizeof *out);
	const char *type = json_string_value(json_object_get(o, "type"));
	if (!type)
		return kn_err_set(err, KN_EINVAL, "'type' must be a string");
	int rc;
	if (strcmp(type, "take") == 0 || strcmp(type, "release") == 0) {
		out->kind = type[0] == 't' ? KN_LIVE_TAKE : KN_LIVE_RELEASE;
		return members_ok(o, bare, err);
	}
	if (strcmp(type, "click") == 0) {
		out->kind = KN_LIVE_CLICK;
		if ((rc = members_ok(o, click, err)) || (rc = num(o, "x", 0, KN_LIVE_COORD_MAX, &out->x, err)) ||
		    (rc = num(o, "y", 0, KN_LIVE_COORD_MAX, &out->y, err)))
			return rc;
		json_t *b = json_object_get(o, "button"), *c = json_object_get(o, "count");
		const char *bs = b ? json_string_value(b) : "left";
		if (!bs || (strcmp(bs, "left") && strcmp(bs, "middle") && strcmp(bs, "right")))
			return kn_err_set(err, KN_EINVAL, "'button' must be left, middle or right");
		snprintf(out->button, sizeof out->button, "%s", bs);
		out->count = 1;
		if (c) {
			if (!json_is_integer(c) || json_integer_value(c) < 1 || json_integer_value(c) > 3)
				return kn_err_set(err, KN_EINVAL, "'count' must be 1, 2 or 3");
			out->count = (int)json_integer_value(c);
		}
		return 0;
	}
	if (strcmp(type, "wheel") == 0) {
		out->kind = KN_LIVE_WHEEL;
		if ((rc = members_ok(o, wheel, err)) || (rc = num(o, "x", 0, KN_LIVE_COORD_MAX, &out->x, err)) ||
		    (rc = num(o, "y", 0, KN_LIVE_COORD_MAX, &out->y, err)) ||
		    (rc = num(o, "dx", -10000, 10000, &out->dx, err)) || (rc = num(o, "dy", -10000, 10000, &out->dy, err)))
			return rc;
		return 0;
	}
	if (strcmp(type, "key") == 0) {
		out->kind = KN_LIVE_KEY;
		if ((rc = members_ok(o, key, err)))
			return rc;
		const char *k = json_string_value(json_object_get(o, "key"));
		if (!kn_live_key_code(k, NULL))
			return kn_err_set(err, KN_EINVAL, "'key' is not a key this view sends");
		snprintf(out->key, sizeof out->key, "%s", k);
		return 0;
	}
	if (strcmp(type, "text") == 0) {
		out->kind = KN_LIVE_TEXT;
		if ((rc = members_ok(o, text, err)))
			return rc;
		json_t *t = json_object_get(o, "text");
		size_t n = json_string_length(t);
		if (!json_is_string(t) || n == 0 || n > KN_LIVE_TEXT_MAX || !text_ok(json_string_value(t), n))
			return kn_err_set(err, KN_EINVAL, "'text' must be 1 to %d bytes without control characters",
			                  KN_LIVE_TEXT_MAX);
		memcpy(out->text, json_string_value(t), n + 1);
		return 0;
	}
	return kn_err_set(err, KN_EINVAL, "unknown type '%.20s'", type);
}

int kn_live_viewer_parse(kn_live_input *out, const char *msg, size_t len, kn_err *err)
{
	memset(out, 0, sizeof *out);
	if (!msg || len == 0 || len > KN_LIVE_VIEWER_MAX || memchr(msg, '\0', len))
		return kn_err_set(err, KN_EINVAL, "a message is 1 to %d bytes of JSON", KN_LIVE_VIEWER_MAX);
	json_error_t je;
	json_t *o = json_loadb(msg, len, JSON_REJECT_DUPLICATES, &je);
	if (!json_is_object(o)) {
		json_decref(o);
		return kn_err_set(err, KN_EINVAL, "not a JSON object");
	}
	int rc = parse_obj(out, o, err);
	json_decref(o);
	if (rc)
		memset(out, 0, sizeof *out);
	return rc;
}

int kn_live_input_json(const kn_live_input *in, char *buf, size_t cap)
{
	json_t *o = NULL;
	switch (in->kind) {
	case KN_LIVE_CLICK:
		o = json_pack("{s:s, s:f, s:f, s:s, s:i}", "type", "click", "x", in->x, "y", in->y, "button",
		              in->button, "count", in->count);
		break;
	case KN_LIVE_WHEEL:
		o = json_pack("{s:s, s:f, s:f, s:f, s:f}", "type", "wheel", "x", in->x, "y", in->y, "dx", in->dx,
		              "dy", in->dy);
		break;
	case KN_LIVE_KEY:
		o = json_pack("{s:s, s:s}", "type", "key", "key", in->key);
		break;
	case KN_LIVE_TEXT:
		o = json_pack("{s:s, s:s}", "type", "text", "text", in->text);
		break;
	default:
		return KN_EINVAL;
	}
	if (!o)
		return KN_ENOMEM;
	size_t n = json_dumpb(o, buf, cap, JSON_COMPACT);
	json_decref(o);
	if (n == 0 || n >= cap)
		return KN_ELIMIT;
	buf[n] = '\0';
	return 0;
}

static const char *const down_names[] = {NULL, "watch", "take", "release", "input"};

int kn_live_down_format(char *buf, size_t cap, kn_live_msg_kind kind, const char *run,
                        const kn_live_input *in)
{
	if (!kn_live_run_ok(run) || kind < KN_LIVE_MSG_WATCH || kind > KN_LIVE_MSG_INPUT ||
	    (kind == KN_LIVE_MSG_INPUT && !in))
		return KN_EINVAL;
	int n = snprintf(buf, cap, "%s %s", down_names[kind], run);
	if (n < 0 || (size_t)n >= cap)
		return KN_ELIMIT;
	if (kind != KN_LIVE_MSG_INPUT)
		return 0;
	if (cap - (size_t)n < 2)
		return KN_ELIMIT;
	buf[n] = '\n';
	int rc = kn_live_input_json(in, buf + n + 1, cap - (size_t)n - 1);
	if (!rc && strlen(buf) > KN_LIVE_PAYLOAD_MAX)
		rc = KN_ELIMIT;
	return rc;
}

/* A decimal integer of at most 9 digits at *p, up to the separator sep. */
static int dec(const char **p, const char *end, char sep, unsigned long *out)
{
	const char *s = *p;
	unsigned long v = 0;
	int digits = 0;
	while (s < end && *s >= '0' && *s <= '9' && digits < 10)
		v = v * 10 + (unsigned long)(*s++ - '0'), digits++;
	if (digits == 0 || digits > 9 || s >= end || *s != sep)
		return -1;
	*p = s + 1;
	*out = v;
	return 0;
}

static int b64_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", s[i]) || !s[i])
			return 0;
	return 1;
}

int kn_live_msg_parse(kn_live_msg *out, const char *payload, size_t len, kn_err *err)
{
	memset(out, 0, sizeof *out);
	if (!payload || len == 0 || len > KN_LIVE_PAYLOAD_MAX || memchr(payload, '\0', len))
		return kn_err_set(err, KN_EINVAL, "a payload is 1 to %d bytes", KN_LIVE_PAYLOAD_MAX);
	const char *end = payload + len, *sp = memchr(payload, ' ', len);
	if (!sp)
		return kn_err_set(err, KN_EINVAL, "no kind");
	static const char *const kinds[] = {NULL, "watch", "take", "release", "input", "status", "frame"};
	size_t kl = (size_t)(sp - payload);
	for (int k = 1; k <= KN_LIVE_MSG_FRAME && !out->kind; k++)
		if (strlen(kinds[k]) == kl && memcmp(kinds[k], payload, kl) == 0)
			out->kind = (kn_live_msg_kind)k;
	if (!out->kind)
		return kn_err_set(err, KN_EINVAL, "unknown kind");
	const char *r = sp + 1, *re = r;
	while (re < end && *re != ' ' && *re != '\n')
		re++;
	size_t rl = (size_t)(re - r);
	if (rl == 0 || rl > KN_LIVE_RUN_MAX)
		return kn_err_set(err, KN_EINVAL, "bad run");
	memcpy(out->run, r, rl);
	out->run[rl] = '\0';
	if (!kn_live_run_ok(out->run))
		return kn_err_set(err, KN_EINVAL, "bad run");
	switch (out->kind) {
	case KN_LIVE_MSG_WATCH:
	case KN_LIVE_MSG_TAKE:
	case KN_LIVE_MSG_RELEASE:
		if (re != end)
			return kn_err_set(err, KN_EINVAL, "trailing bytes");
		return 0;
	case KN_LIVE_MSG_INPUT:
	case KN_LIVE_MSG_STATUS: {
		if (re >= end || *re != '\n')
			return kn_err_set(err, KN_EINVAL, "no message");
		const char *j = re + 1;
		if (out->kind == KN_LIVE_MSG_INPUT) {
			int rc = kn_live_viewer_parse(&out->input, j, (size_t)(end - j), err);
			if (!rc && (out->input.kind == KN_LIVE_TAKE || out->input.kind == KN_LIVE_RELEASE))
				rc = kn_err_set(err, KN_EINVAL, "not an input");
			return rc;
		}
		json_t *o = json_loadb(j, (size_t)(end - j), JSON_REJECT_DUPLICATES, NULL);
		int ok = json_is_object(o);
		json_decref(o);
		if (!ok)
			return kn_err_set(err, KN_EINVAL, "status: not a JSON object");
		out->json = j;
		return 0;
	}
	case KN_LIVE_MSG_FRAME: {
		unsigned long v[5];
		const char *p = re;
		if (p >= end || *p++ != ' ')
			return kn_err_set(err, KN_EINVAL, "frame: no header");
		for (int i = 0; i < 5; i++)
			if (dec(&p, end, i < 4 ? ' ' : '\n', &v[i]))
				return kn_err_set(err, KN_EINVAL, "frame: bad header");
		if (v[2] == 0 || v[2] > KN_LIVE_PIECES_MAX || v[1] >= v[2] || v[3] == 0 || v[3] > KN_LIVE_COORD_MAX ||
		    v[4] == 0 || v[4] > KN_LIVE_COORD_MAX)
			return kn_err_set(err, KN_EINVAL, "frame: piece or size out of range");
		out->seq = v[0], out->piece = (int)v[1], out->pieces = (int)v[2], out->w = (int)v[3], out->h = (int)v[4];
		out->data = p;
		out->data_len = (size_t)(end - p);
		if (out->data_len == 0 || out->data_len > KN_LIVE_PIECE_MAX || !b64_ok(p, out->data_len))
			return kn_err_set(err, KN_EINVAL, "frame: bad data");
		return 0;
	}
	}
	return kn_err_set(err, KN_EINVAL, "unknown kind");
}

int kn_live_take_refusal(const char *status_json, const char **why)
{
	json_t *j = status_json ? json_loads(status_json, 0, NULL) : NULL;
	json_t *tk = json_object_get(j, "takeable");
	const char *state = json_string_value(json_object_get(j, "state"));
	const char *kind = json_string_value(json_object_get(j, "kind"));
	int rc = 409;
	if (!json_is_object(j) || !json_is_boolean(tk) || !state)
		*why = "the run's page is not live here: nothing shows it now";
	else if (strcmp(state, "ended") == 0)
		*why = "the run ended";
	else if (json_is_true(tk))
		rc = 0, *why = NULL;
	else if (kind && strcmp(kind, "attempt") == 0)
		*why = "an agent attempt can be taken over only while its site blocks it";
	else
		*why = "this run cannot be taken over: an agent drives it (watched only)";
	json_decref(j);
	return rc;
}
