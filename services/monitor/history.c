/* history.c — a tab's session history (history.h), kept by the monitor from the navigations it
 * classifies (monitor.c). */
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "keynode/event.h"

void kn_history_push(kn_history *h, const char *url)
{
	for (int i = h->at + 1; i < h->n; i++)
		free(h->url[i]);
	h->n = h->at + 1 < h->n ? h->at + 1 : h->n;
	if (h->n == KN_MAX_HISTORY) {
		free(h->url[0]);
		memmove(h->url, h->url + 1, (KN_MAX_HISTORY - 1) * sizeof h->url[0]);
		h->n--;
	}
	h->url[h->n] = strdup(url);
	if (h->url[h->n])
		h->n++;
	h->at = h->n - 1;
}

const char *kn_history_move(kn_history *h, const char *url)
{
	if (h->at > 0 && h->url[h->at - 1] && strcmp(h->url[h->at - 1], url) == 0) {
		h->at--;
		return kn_nav_name(KN_NAV_BACK);
	}
	if (h->at + 1 < h->n && strcmp(h->url[h->at + 1], url) == 0) {
		h->at++;
		return kn_nav_name(KN_NAV_FORWARD);
	}
	for (int i = h->at - 1; i >= 0; i--) /* several entries back at once */
		if (strcmp(h->url[i], url) == 0) {
			h->at = i;
			return kn_nav_name(KN_NAV_BACK);
		}
	kn_history_push(h, url);
	return kn_nav_name(KN_NAV_BACK);
}

int kn_history_has(const kn_history *h, const char *url)
{
	for (int i = 0; i < h->n; i++)
		if (strcmp(h->url[i], url) == 0)
			return 1;
	return 0;
}

void kn_history_clear(kn_history *h)
{
	for (int i = 0; i < h->n; i++)
		free(h->url[i]);
	h->n = h->at = 0;
}

const char *kn_history_reason_how(const char *reason)
{
	if (strcmp(reason, "anchorClick") == 0)
		return kn_nav_name(KN_NAV_LINK);
	if (strncmp(reason, "formSubmission", 14) == 0)
		return kn_nav_name(KN_NAV_FORM);
	if (strcmp(reason, "reload") == 0)
		return kn_nav_name(KN_NAV_RELOAD);
	return kn_nav_name(KN_NAV_SCRIPT);
}
