/* event.c — trajectory events: names, the step rule, and the JSON Lines reader and writer
 * (docs/formats.md §2). A parsed event borrows its strings from the jansson object it came from,
 * kept alive in owned_ until kn_event_clear. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/event.h"
#include "keynode/fs.h"
#include "keynode/grow.h"
#include "keynode/request.h"

static const char *const type_names[KN_EV__COUNT] = {
	"navigate", "click", "type", "select", "submit", "press", "scroll", "tab_open", "tab_close",
	"answer", "hover", "dialog", "download", "drag", "request", "websocket"};

static const char *const how_names[KN_NAV__COUNT] = {
	[KN_NAV_GOTO] = "goto",       [KN_NAV_BACK] = "back",       [KN_NAV_FORWARD] = "forward",
	[KN_NAV_RELOAD] = "reload",   [KN_NAV_LINK] = "link",       [KN_NAV_FORM] = "form",
	[KN_NAV_SCRIPT] = "script",   [KN_NAV_HASH] = "hash",       [KN_NAV_HISTORY] = "history",
	[KN_NAV_REDIRECT] = "redirect", [KN_NAV_POPUP] = "popup"};

const char *kn_nav_name(kn_nav n)
{
	return n >= 0 && n < KN_NAV__COUNT ? how_names[n] : "";
}

int kn_nav_parse(kn_nav *out, const char *name)
{
	for (int i = 0; name && i < KN_NAV__COUNT; i++)
		if (strcmp(how_names[i], name) == 0) {
			*out = (kn_nav)i;
			return 0;
		}
	return KN_EINVAL;
}

kn_nav kn_event_nav(const kn_event *ev)
{
	kn_nav n;
	return kn_nav_parse(&n, ev->how) == 0 ? n : KN_NAV_NONE;
}

const char *kn_event_type_name(kn_event_type t)
{
	return (unsigned)t < KN_EV__COUNT ? type_names[t] : "?";
}

int kn_event_type_parse(kn_event_type *out, const char *name)
{
	for (int i = 0; i < KN_EV__COUNT; i++)
		if (strcmp(type_names[i], name) == 0) {
			*out = (kn_event_type)i;
			return 0;
		}
	return KN_EINVAL;
}

/* The agent itself navigated (goto, back, forward, reload): those navigations are steps. */
static int how_is_agent(const kn_event *ev)
{
	kn_nav n = kn_event_nav(ev);
	return n >= KN_NAV_GOTO && n <= KN_NAV_RELOAD;
}

int kn_event_is_step(const kn_event *ev)
{
	if (ev->human)
		return 0; /* a person's, in a takeover: never the agent's step */
	switch (ev->type) {
	case KN_EV_NAVIGATE: return how_is_agent(ev);
	case KN_EV_SUBMIT:
	case KN_EV_DIALOG:
	case KN_EV_DOWNLOAD:
	case KN_EV_REQUEST:
	case KN_EV_WEBSOCKET:
	case KN_EV_TAB_OPEN:
	case KN_EV_TAB_CLOSE: return 0;
	default: return (unsigned)ev->type < KN_EV__COUNT;
	}
}

int kn_event_is_action(const kn_event *ev)
{
	return ev->type == KN_EV_CLICK || ev->type == KN_EV_TYPE || ev->type == KN_EV_SELECT ||
	       ev->type == KN_EV_DRAG;
}

struct owned {
	json_t *json;
	kn_request req;   /* a request event's `request`, its strings in json */
	kn_field *pairs;  /* req's headers then fields */
	const char *matched[];
};

void kn_event_clear(kn_event *ev)
{
	if (!ev)
		return;
	struct owned *o = ev->owned_;
	if (o) {
		json_decref(o->json);
		free(o->pairs);
		free(o);
	}
	memset(ev, 0, sizeof *ev);
}

static int get_str(const char **out, json_t *obj, const char *field, kn_err *err)
{
	json_t *v = json_object_get(obj, field);
	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return kn_err_set(err, KN_EINVAL, "field \"%s\": expected a string", field);
	*out = json_string_value(v);
	if (strlen(*out) != json_string_length(v))
		return kn_err_set(err, KN_EINVAL, "field \"%s\": contains a NUL character", field);
	return 0;
}

/* "box": absent or null, or {x, y, width, height}, finite numbers (width and height ≥ 0). */
static int get_box(kn_event *ev, json_t *b, kn_err *err)
{
	static const char *const keys[4] = {"x", "y", "width", "height"};
	if (!b || json_is_null(b))
		return 0;
	if (!json_is_object(b))
		return kn_err_set(err, KN_EINVAL, "field \"box\": expected an object");
	for (int i = 0; i < 4; i++) {
		json_t *v = json_object_get(b, keys[i]);
		double d = json_is_number(v) ? json_number_value(v) : NAN;
		if (!isfinite(d) || (i >= 2 && d < 0))
			return kn_err_set(err, KN_EINVAL, "field \"box\": \"%s\" must be a finite number%s", keys[i],
			                  i >= 2 ? " ≥ 0" : "");
		ev->box[i] = d;
	}
	ev->has_box = 1;
	return 0;
}

/* A string of j or an error naming the field. */
static int req_str(const char **out, json_t *v, const char *what, size_t i, kn_err *err)
{
	if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
		return kn_err_set(err, KN_EINVAL, "field \"request\" or \"websocket\": %s %zu: expected a "
		                                  "string", what, i);
	*out = json_string_value(v);
	return 0;
}

/* "request": {method, url, headers: {name: value}, fields: [[name, value]…], held}: required on
 * request events, refused elsewhere; "websocket": {url, direction, size, fields, held,
 * watched_only} the same on websocket events. */
static int get_request(kn_event *ev, struct owned *o, json_t *r, json_t *w, kn_err *err)
{
	int ws = ev->type == KN_EV_WEBSOCKET;
	if (!ws && w && !json_is_null(w))
		return kn_err_set(err, KN_EINVAL, "field \"websocket\": on websocket events only");
	if (ws && r && !json_is_null(r))
		return kn_err_set(err, KN_EINVAL, "field \"request\": on request events only");
	if (ws)
		r = w;
	if (!r || json_is_null(r))
		return ev->type == KN_EV_REQUEST || ws
		               ? kn_err_set(err, KN_EINVAL, "field \"%s\": missing on a %s event",
		                            ws ? "websocket" : "request", ws ? "websocket" : "request")
		               : 0;
	if ((ev->type != KN_EV_REQUEST && !ws) || !json_is_object(r))
		return kn_err_set(err, KN_EINVAL, "field \"request\": expected an object on request "
		                                  "events only");
	json_t *h = json_object_get(r, "headers"), *f = json_object_get(r, "fields");
	if ((h && !json_is_object(h)) || (f && !json_is_array(f)))
		return kn_err_set(err, KN_EINVAL, "field \"request\": headers is an object, fields an "
		                                  "array of [name, value]");
	size_t nh = h ? json_object_size(h) : 0, nf = f ? json_array_size(f) : 0, i = 0;
	if (nh + nf && !(o->pairs = calloc(nh + nf, sizeof *o->pairs)))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	kn_request *q = &o->req;
	const char *k;
	json_t *v;
	int rc;
	json_object_foreach(h, k, v) {
		o->pairs[i].name = k;
		if ((rc = req_str(&o->pairs[i].value, v, "header", i, err)) != 0)
			return rc;
		i++;
	}
	for (size_t j = 0; j < nf; j++, i++) {
		json_t *p = json_array_get(f, j);
		if (!json_is_array(p) || json_array_size(p) != 2)
			return kn_err_set(err, KN_EINVAL, "field \"request\": field %zu: expected [name, value]", j);
		if ((rc = req_str(&o->pairs[i].name, json_array_get(p, 0), "field", j, err)) ||
		    (rc = req_str(&o->pairs[i].value, json_array_get(p, 1), "field", j, err)))
			return rc;
	}
	q->headers = o->pairs;
	q->n_headers = nh;
	q->fields = o->pairs + nh;
	q->n_fields = nf;
	json_t *m = json_object_get(r, "method"), *u = json_object_get(r, "url");
	if ((!ws && (rc = req_str(&q->method, m, "method", 0, err))) || (rc = req_str(&q->url, u, "url", 0, err)))
		return rc;
	q->held = json_is_true(json_object_get(r, "held"));
	if (ws) {
		json_t *d = json_object_get(r, "direction"), *sz = json_object_get(r, "size");
		q->websocket = 1;
		if ((rc = req_str(&q->direction, d, "direction", 0, err)) != 0)
			return rc;
		if (strcmp(q->direction, "sent") != 0 && strcmp(q->direction, "received") != 0)
			return kn_err_set(err, KN_EINVAL, "field \"websocket\": direction is sent or received");
		if (sz && (!json_is_integer(sz) || json_integer_value(sz) < 0))
			return kn_err_set(err, KN_EINVAL, "field \"websocket\": size is a count of bytes");
		q->size = sz ? (size_t)json_integer_value(sz) : 0;
		q->watched_only = json_is_true(json_object_get(r, "watched_only"));
	}
	ev->request = q;
	return 0;
}

/* Fill ev from the parsed object j, which ev then owns (even on failure). */
static int event_from_json(kn_event *ev, json_t *j, kn_err *err)
{
	int rc;
	if (!json_is_object(j)) {
		json_decref(j);
		return kn_err_set(err, KN_EINVAL, "expected a JSON object");
	}
	json_t *m = json_object_get(j, "matched");
	size_t nm = json_is_array(m) ? json_array_size(m) : 0;
	json_t *fp = json_object_get(j, "frame_path");
	size_t nf = json_is_array(fp) ? json_array_size(fp) : 0;
	if (nm > KN_TRAJ_MAX_LINE || nf > KN_TRAJ_MAX_LINE) { /* cannot happen within one line */
		json_decref(j);
		return kn_err_set(err, KN_ELIMIT, "too many array items");
	}
	struct owned *o = malloc(sizeof *o + (nm + nf) * sizeof o->matched[0]);
	if (!o) {
		json_decref(j);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	memset(o, 0, sizeof *o);
	o->json = j;
	ev->owned_ = o;
	if (m && !json_is_null(m) && !json_is_array(m))
		return kn_err_set(err, KN_EINVAL, "field \"matched\": expected an array of key-node ids");
	for (size_t i = 0; i < nm; i++) {
		json_t *id = json_array_get(m, i);
		if (!json_is_string(id))
			return kn_err_set(err, KN_EINVAL, "field \"matched\"[%zu]: expected a string", i);
		o->matched[i] = json_string_value(id);
	}
	if (json_is_array(m)) {
		ev->matched = o->matched;
		ev->n_matched = nm;
	}
	if (fp && !json_is_null(fp) && !json_is_array(fp))
		return kn_err_set(err, KN_EINVAL,
		                  "field \"frame_path\": expected an array of iframe selectors");
	for (size_t i = 0; i < nf; i++) {
		json_t *s = json_array_get(fp, i);
		if (!json_is_string(s) || json_string_length(s) == 0 ||
		    strlen(json_string_value(s)) != json_string_length(s))
			return kn_err_set(err, KN_EINVAL,
			                  "field \"frame_path\"[%zu]: expected a non-empty string", i);
		o->matched[nm + i] = json_string_value(s);
	}
	if (nf) {
		ev->frame_path = o->matched + nm;
		ev->n_frame_path = nf;
	}

	const char *type;
	if ((rc = get_str(&type, j, "type", err)) != 0)
		return rc;
	if (!type)
		return kn_err_set(err, KN_EINVAL, "field \"type\": missing");
	if (kn_event_type_parse(&ev->type, type) != 0)
		return kn_err_set(err, KN_EINVAL, "field \"type\": unknown event type '%s'", type);
	json_t *t = json_object_get(j, "t");
	if (t && !json_is_null(t)) {
		if (!json_is_number(t) || !isfinite(json_number_value(t)))
			return kn_err_set(err, KN_EINVAL, "field \"t\": expected a number of seconds");
		ev->t = json_number_value(t);
	}
	if ((rc = get_str(&ev->tab, j, "tab", err)) || (rc = get_str(&ev->url, j, "url", err)) ||
	    (rc = get_str(&ev->how, j, "how", err)) ||
	    (rc = get_str(&ev->selector, j, "selector", err)) ||
	    (rc = get_str(&ev->text, j, "text", err)) || (rc = get_str(&ev->value, j, "value", err)) ||
	    (rc = get_str(&ev->key, j, "key", err)) ||
	    (rc = get_str(&ev->frame_url, j, "frame_url", err)))
		return rc;
	kn_nav nav;
	if (ev->how && kn_nav_parse(&nav, ev->how) != 0)
		return kn_err_set(err, KN_EINVAL, "field \"how\": unknown navigation cause '%s'", ev->how);
	json_t *tr = json_object_get(j, "trusted");
	ev->trusted = json_is_boolean(tr) ? json_is_true(tr) : -1;
	ev->frame = json_is_true(json_object_get(j, "frame"));
	ev->shadow_closed = json_is_true(json_object_get(j, "shadow_closed"));
	json_t *hu = json_object_get(j, "human");
	if (hu && !json_is_boolean(hu) && !json_is_null(hu))
		return kn_err_set(err, KN_EINVAL, "field \"human\": expected true or false");
	ev->human = json_is_true(hu);
	json_t *px = json_object_get(j, "pixels");
	if (px && !json_is_null(px)) {
		double d = json_is_number(px) ? json_number_value(px) : -1;
		if (!(d >= 0 && d <= 1e9))
			return kn_err_set(err, KN_EINVAL, "field \"pixels\": expected a number of pixels ≥ 0");
		ev->pixels = (long)(d + 0.5);
	}
	if ((rc = get_box(ev, json_object_get(j, "box"), err)) != 0)
		return rc;
	return get_request(ev, o, json_object_get(j, "request"), json_object_get(j, "websocket"), err);
}

int kn_event_parse(kn_event *ev, const char *line, size_t len, kn_err *err)
{
	memset(ev, 0, sizeof *ev);
	if (len > KN_TRAJ_MAX_LINE)
		return kn_err_set(err, KN_ELIMIT, "line is %zu bytes, over the %u byte limit", len,
		                  KN_TRAJ_MAX_LINE);
	json_error_t je;
	json_t *j = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (!j)
		return kn_err_set(err, KN_EINVAL, "column %d: %s", je.column, je.text);
	int rc = event_from_json(ev, j, err);
	if (rc)
		kn_event_clear(ev);
	return rc;
}

void kn_traj_header_clear(kn_traj_header *h)
{
	if (!h)
		return;
	free(h->run);
	free(h->task);
	free(h->started);
	memset(h, 0, sizeof *h);
}

void kn_traj_events_free(kn_event *events, size_t n)
{
	for (size_t i = 0; events && i < n; i++)
		kn_event_clear(&events[i]);
	free(events);
}

static int parse_header(kn_traj_header *hdr, const char *line, size_t len, kn_err *err)
{
	json_error_t je;
	json_t *j = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (!j)
		return kn_err_set(err, KN_EINVAL, "column %d: %s", je.column, je.text);
	int rc = 0;
	const char *f[3] = {"run", "task", "started"};
	char **dst[3] = {&hdr->run, &hdr->task, &hdr->started};
	if (!json_is_object(j) || json_object_get(j, "type"))
		rc = kn_err_set(err, KN_EINVAL,
		                "expected the header {\"run\": …, \"task\": …, \"started\": …} first");
	for (int i = 0; i < 3 && !rc; i++) {
		json_t *v = json_object_get(j, f[i]);
		if (!json_is_string(v) && !(i == 0 && json_is_integer(v)) &&
		    !(i == 1 && json_is_integer(v))) {
			if (i < 2 || (v && !json_is_null(v)))
				rc = kn_err_set(err, KN_EINVAL, "header field \"%s\": %s", f[i],
				                v ? "expected a string" : "missing");
			continue;
		}
		char num[32];
		const char *s = json_is_string(v) ? json_string_value(v) : num;
		if (json_is_integer(v))
			snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		if (!(*dst[i] = strdup(s)))
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	json_decref(j);
	return rc;
}

int kn_traj_read_buffer(const char *buf, size_t len, const char *name, kn_traj_header *hdr,
                        kn_event **events, size_t *n, kn_err *err)
{
	memset(hdr, 0, sizeof *hdr);
	*events = NULL;
	*n = 0;
	size_t cap = 0, lineno = 0, pos = 0;
	int have_header = 0, rc = 0;
	kn_err e;
	while (pos < len && !rc) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len, l = end - pos;
		const char *line = buf + pos;
		pos = end + 1;
		lineno++;
		while (l && (line[l - 1] == '\r' || line[l - 1] == ' ' || line[l - 1] == '\t'))
			l--;
		size_t skip = 0;
		while (skip < l && (line[skip] == ' ' || line[skip] == '\t'))
			skip++;
		if (skip == l)
			continue; /* blank line */
		if (l > KN_TRAJ_MAX_LINE) {
			rc = kn_err_set(err, KN_ELIMIT, "%s:%zu: line is over the %u byte limit", name,
			                lineno, KN_TRAJ_MAX_LINE);
			break;
		}
		if (!have_header) {
			if ((rc = parse_header(hdr, line, l, &e)) != 0)
				rc = kn_err_set(err, rc, "%s:%zu: %s", name, lineno, e.msg);
			have_header = 1;
			continue;
		}
		if (kn_grow(events, *n, &cap, sizeof **events, 64)) {
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
			break;
		}
		if ((rc = kn_event_parse(&(*events)[*n], line, l, &e)) != 0) {
			rc = kn_err_set(err, rc, "%s:%zu: %s", name, lineno, e.msg);
			break;
		}
		(*n)++;
	}
	if (!rc && !have_header)
		rc = kn_err_set(err, KN_EINVAL, "%s: empty trajectory (no header line)", name);
	if (rc) {
		kn_traj_events_free(*events, *n);
		kn_traj_header_clear(hdr);
		*events = NULL;
		*n = 0;
	}
	return rc;
}

int kn_traj_read_file(const char *path, kn_traj_header *hdr, kn_event **events, size_t *n,
                      kn_err *err)
{
	memset(hdr, 0, sizeof *hdr);
	*events = NULL;
	*n = 0;
	char *buf = NULL;
	size_t len = 0;
	/* no cap on the file: each line has one (KN_TRAJ_MAX_LINE) */
	int rc = kn_read_file(&buf, &len, path, SIZE_MAX, err);
	if (rc)
		return rc;
	rc = kn_traj_read_buffer(buf, len, path, hdr, events, n, err);
	free(buf);
	return rc;
}

/* Dump one object as a line and flush it to the OS. */
static int write_line(FILE *f, json_t *j)
{
	if (!j)
		return KN_ENOMEM;
	int rc = json_dumpf(j, f, JSON_COMPACT | JSON_REAL_PRECISION(12)) == 0 &&
	                 fputc('\n', f) != EOF && fflush(f) == 0
	             ? 0
	             : KN_EIO;
	json_decref(j);
	return rc;
}

int kn_traj_write_header(FILE *f, const char *run, const char *task, const char *started)
{
	return write_line(f, json_pack("{s:s, s:s, s:s}", "run", run, "task", task, "started", started));
}

int kn_traj_write_event(FILE *f, const kn_event *ev)
{
	json_t *j = json_object();
	if (!j)
		return KN_ENOMEM;
	int bad = json_object_set_new(j, "t", json_real(round(ev->t * 1000.0) / 1000.0));
	bad |= json_object_set_new(j, "type", json_string(kn_event_type_name(ev->type)));
	const char *names[] = {"tab", "url", "how", "selector", "text", "value", "key"};
	const char *vals[] = {ev->tab, ev->url, ev->how, ev->selector, ev->text, ev->value, ev->key};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (vals[i])
			bad |= json_object_set_new(j, names[i], json_string(vals[i]));
	if (ev->matched) {
		json_t *m = json_array();
		for (size_t i = 0; m && i < ev->n_matched; i++)
			bad |= json_array_append_new(m, json_string(ev->matched[i]));
		bad |= json_object_set_new(j, "matched", m);
	}
	if (ev->trusted >= 0)
		bad |= json_object_set_new(j, "trusted", json_boolean(ev->trusted));
	if (ev->frame)
		bad |= json_object_set_new(j, "frame", json_true());
	if (ev->frame_url)
		bad |= json_object_set_new(j, "frame_url", json_string(ev->frame_url));
	if (ev->n_frame_path) {
		json_t *fp = json_array();
		for (size_t i = 0; fp && i < ev->n_frame_path; i++)
			bad |= json_array_append_new(fp, json_string(ev->frame_path[i]));
		bad |= json_object_set_new(j, "frame_path", fp);
	}
	if (ev->shadow_closed)
		bad |= json_object_set_new(j, "shadow_closed", json_true());
	if (ev->pixels > 0)
		bad |= json_object_set_new(j, "pixels", json_integer(ev->pixels));
	if (ev->human)
		bad |= json_object_set_new(j, "human", json_true());
	if (ev->has_box)
		bad |= json_object_set_new(j, "box", json_pack("{s:f, s:f, s:f, s:f}", "x", ev->box[0], "y", ev->box[1],
		                                               "width", ev->box[2], "height", ev->box[3]));
	if (ev->request) {
		const kn_request *q = ev->request;
		json_t *r = json_pack("{s:s?, s:s?}", "method", q->method, "url", q->url);
		json_t *h = json_object(), *fl = json_array();
		bad |= !r || !h || !fl;
		for (size_t i = 0; !bad && i < q->n_headers; i++)
			bad |= json_object_set_new(h, q->headers[i].name, json_string(q->headers[i].value));
		for (size_t i = 0; !bad && i < q->n_fields; i++)
			bad |= json_array_append_new(fl, json_pack("[s,s]", q->fields[i].name, q->fields[i].value));
		if (!bad && q->n_headers)
			bad |= json_object_set(r, "headers", h);
		if (!bad)
			bad |= json_object_set(r, "fields", fl);
		if (!bad && q->held)
			bad |= json_object_set_new(r, "held", json_true());
		if (!bad && q->websocket) {
			json_object_del(r, "method"); /* a message has none */
			bad |= json_object_set_new(r, "direction", json_string(q->direction ? q->direction : "sent")) ||
			       json_object_set_new(r, "size", json_integer((json_int_t)q->size)) ||
			       (q->watched_only && json_object_set_new(r, "watched_only", json_true()));
		}
		json_decref(h);
		json_decref(fl);
		if (r)
			bad |= json_object_set_new(j, q->websocket ? "websocket" : "request", r);
	}
	if (bad) { /* json_string refuses invalid UTF-8 */
		json_decref(j);
		return KN_EINVAL;
	}
	return write_line(f, j);
}
