/* softpage.c — the pure half of page-error detection (softpage.h): the not-found / error phrase
 * list and the comparison of a step's failed data requests and not-found state with its recording.
 * Conservative by design: a false "broken" on an unchanged site costs more than a late one, so only
 * prominent places of the page are read (title, main headings, alerts; the body only when it is
 * nothing but a short message) and only what the recording did not have counts. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/site.h"
#include "softpage.h"

/* Phrases a site shows for a missing item or a failed page, lower case, apostrophes as "'". A bare
 * "error" or "404" is not one: a product named "Error" or a "404 Club" article must not count. */
static const char *const phrases[] = {
	"page not found", "not found", "couldn't find", "could not find", "can't find", "cannot find",
	"doesn't exist", "does not exist", "no longer available", "no longer exists", "has been removed",
	"something went wrong", "an error occurred", "an error has occurred", "error 404", "404 error",
	"404 not found", "500 internal server error",
	/* German, French, Spanish, Italian, Portuguese, Dutch */
	"nicht gefunden", "existiert nicht", "ein fehler ist aufgetreten",
	"introuvable", "n'existe pas", "une erreur est survenue", "une erreur s'est produite",
	"no encontrad", "no existe", "se ha producido un error", "ha ocurrido un error",
	"non trovat", "non esiste", "si è verificato un errore",
	"não encontrad", "não existe", "ocorreu um erro",
	"niet gevonden", "bestaat niet", "er is iets misgegaan",
};

#define SHORT_BODY 400

/* s lower-cased (ASCII) with typographic apostrophes as "'", into out (cap bytes). */
static void fold(const char *s, char *out, size_t cap)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p && n + 1 < cap; p++) {
		if (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0x98 || p[2] == 0x99)) { /* ‘ ’ */
			out[n++] = '\'';
			p += 2;
		} else {
			out[n++] = (char)tolower(*p);
		}
	}
	out[n] = '\0';
}

static int says(const char *s, char *phrase, size_t cap)
{
	char f[2048];
	if (!s || !*s)
		return 0;
	fold(s, f, sizeof f);
	for (size_t i = 0; i < sizeof phrases / sizeof phrases[0]; i++)
		if (strstr(f, phrases[i])) {
			if (phrase && cap)
				snprintf(phrase, cap, "%s", phrases[i]);
			return 1;
		}
	return 0;
}

int kn_softpage_shows_error(const kn_softpage_view *v, char *phrase, size_t cap)
{
	if (phrase && cap)
		phrase[0] = '\0';
	if (!v)
		return 0;
	return says(v->title, phrase, cap) || says(v->headings, phrase, cap) || says(v->alerts, phrase, cap) ||
	       (v->text_len <= SHORT_BODY && says(v->text, phrase, cap));
}

int kn_softpage_shows_error_json(json_t *v, char *phrase, size_t cap)
{
	if (!json_is_object(v))
		return 0;
	kn_softpage_view view = {
		json_string_value(json_object_get(v, "title")), json_string_value(json_object_get(v, "headings")),
		json_string_value(json_object_get(v, "alerts")), json_string_value(json_object_get(v, "text")),
		(size_t)json_integer_value(json_object_get(v, "len"))};
	return kn_softpage_shows_error(&view, phrase, cap);
}

/* url's path: after "scheme://host", up to the query or fragment; the whole url when it has no
 * scheme. *len its length. */
static const char *url_path(const char *url, size_t *len)
{
	const char *p = strstr(url, "://");
	if (p) {
		p += 3;
		p += strcspn(p, "/?#");
	} else {
		p = url;
	}
	*len = strcspn(p, "?#");
	if (*len == 0)
		p = "/", *len = 1;
	return p;
}

int kn_softpage_path_listed(const char *list, const char *url)
{
	size_t len;
	if (!list || !url)
		return 0;
	const char *path = url_path(url, &len);
	for (const char *p = list; *p;) {
		p += strspn(p, " ");
		size_t n = strcspn(p, " ");
		if (n == len && strncmp(p, path, n) == 0)
			return 1;
		p += n;
	}
	return 0;
}

int kn_softpage_judge(const kn_step *st, int shows_error, const kn_softpage_request *failed, size_t n,
                      int *culprit)
{
	*culprit = -1;
	if (st->error_page == 0) { /* no baseline: only a removal said twice */
		for (size_t i = 0; shows_error && i < n; i++)
			if (failed[i].status == 404 || failed[i].status == 410) {
				*culprit = (int)i;
				return 1;
			}
		return 0;
	}
	int hit = 0;
	for (size_t i = 0; i < n; i++)
		if (!kn_softpage_path_listed(st->failed_requests, failed[i].url)) {
			/* a 404/410 names the removal better than a 500 beside it */
			if (*culprit < 0 || failed[i].status == 404 || failed[i].status == 410)
				if (*culprit < 0 || (failed[*culprit].status != 404 && failed[*culprit].status != 410))
					*culprit = (int)i;
			hit = 1;
		}
	if (shows_error && st->error_page == 2)
		hit = 1;
	return hit;
}

int kn_softpage_undecided(const kn_step *st, int shows_error, const kn_softpage_request *failed, size_t n,
                          size_t scripts_pending)
{
	if (st->error_page != 0)
		return 0;
	if (shows_error)
		return scripts_pending > 0;
	for (size_t i = 0; i < n; i++)
		if (failed[i].status == 404 || failed[i].status == 410)
			return 1;
	return 0;
}

char *kn_softpage_paths(const char *const *urls, size_t n)
{
	char buf[KN_SOFTPAGE_PATHS_MAX + 1];
	size_t w = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const char *p = urls[i] ? url_path(urls[i], &len) : NULL;
		if (!p || memchr(p, ' ', len) || w + len + 1 > KN_SOFTPAGE_PATHS_MAX || kn_softpage_path_listed(buf, urls[i]))
			continue;
		if (w)
			buf[w++] = ' ';
		memcpy(buf + w, p, len);
		buf[w += len] = '\0';
	}
	if (!w)
		return NULL;
	char *out = malloc(w + 1);
	if (out)
		memcpy(out, buf, w + 1);
	return out;
}

static int script_type(json_t *params)
{
	const char *t = json_string_value(json_object_get(params, "type"));
	return t && (strcmp(t, "Fetch") == 0 || strcmp(t, "XHR") == 0);
}

static void keep_failure(kn_softpage_failed *f, const char *url, int status)
{
	unsigned i = f->n_failed++ % KN_SOFTPAGE_FAILED_KEEP;
	snprintf(f->failed[i].url, sizeof f->failed[i].url, "%s", url);
	f->failed[i].status = status;
}

void kn_softpage_failed_note(kn_softpage_failed *f, const char *method, json_t *params)
{
	const char *id = json_string_value(json_object_get(params, "requestId"));
	if (!id || !script_type(params))
		return;
	if (strcmp(method, "Network.requestWillBeSent") == 0) {
		const char *url = json_string_value(json_object_get(json_object_get(params, "request"), "url"));
		unsigned i = f->n_scripts++ % KN_SOFTPAGE_SCRIPTS_KEEP;
		snprintf(f->scripts[i].id, sizeof f->scripts[i].id, "%s", id);
		snprintf(f->scripts[i].url, sizeof f->scripts[i].url, "%s", url ? url : "");
	} else if (strcmp(method, "Network.responseReceived") == 0) {
		json_t *resp = json_object_get(params, "response");
		const char *url = json_string_value(json_object_get(resp, "url"));
		int status = (int)json_integer_value(json_object_get(resp, "status"));
		if (url && status >= 400)
			keep_failure(f, url, status);
	} else if (strcmp(method, "Network.loadingFailed") == 0) {
		/* cancelled (the page left, an AbortController) or blocked by the client: not the site */
		const char *why = json_string_value(json_object_get(params, "errorText"));
		if (json_is_true(json_object_get(params, "canceled")) || json_object_get(params, "blockedReason") ||
		    (why && strcmp(why, "net::ERR_ABORTED") == 0))
			return;
		for (unsigned n = 0; n < KN_SOFTPAGE_SCRIPTS_KEEP && n < f->n_scripts; n++) {
			unsigned i = (f->n_scripts - 1 - n) % KN_SOFTPAGE_SCRIPTS_KEEP;
			if (strcmp(f->scripts[i].id, id) == 0) {
				char url[sizeof f->scripts[i].url]; /* failed[] and scripts[] are one object */
				memcpy(url, f->scripts[i].url, sizeof url);
				keep_failure(f, url, 0);
				return;
			}
		}
	}
}

size_t kn_softpage_failed_since(const kn_softpage_failed *f, unsigned since, const kn_task *task,
                                kn_softpage_request *out)
{
	size_t n = 0;
	if (since > f->n_failed)
		since = 0;
	if (f->n_failed - since > KN_SOFTPAGE_FAILED_KEEP)
		since = f->n_failed - KN_SOFTPAGE_FAILED_KEEP;
	for (unsigned k = since; k < f->n_failed; k++) {
		unsigned i = k % KN_SOFTPAGE_FAILED_KEEP;
		/* third parties (analytics, a CDN, an ad) say nothing of the task's site */
		if (kn_task_own_site(task, f->failed[i].url))
			out[n++] = (kn_softpage_request){f->failed[i].url, f->failed[i].status};
	}
	return n;
}
