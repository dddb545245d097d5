/* postcond.c — a step's recorded postcondition (`after: {url, navigated, value}`, workflow.h),
 * as replay waits for it after the action and validation judges it: the URL a step ends on agrees
 * with the recorded one when its path, fragment and query parameter names are the same. Waiting
 * for the postcondition is how a replay knows a timer's or a script's navigation has happened
 * before the next step acts (services/replay/README.md "A step"). */
#include <stdlib.h>
#include <string.h>

#include "heal.h"
#include "keynode/clock.h"
#include "replay_internal.h"

/* Whether the URL a step ended on is the one recorded: the same path, fragment and query
 * parameter names (the site may be served from another host or port than where the workflow was
 * recorded). A step that reaches another item by the same link pattern is caught by its href. */
static int cmp_param(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* url after scheme and host, with its query parameters' names sorted (a restyled form may order
 * its fields differently; a value may be new each time, as an order number is), into out. */
static void target_form(char *out, size_t n, const char *url)
{
	char buf[2048], *params[64];
	snprintf(buf, sizeof buf, "%s", kn_heal_href_tail(url));
	char *q = strchr(buf, '?'), *frag = strchr(buf, '#');
	if (!q || (frag && frag < q)) {
		snprintf(out, n, "%s", buf);
		return;
	}
	*q++ = '\0';
	if (frag)
		*frag++ = '\0';
	size_t np = 0;
	for (char *p = q; p && np < 64;) { /* split at '&' (no strtok: workers run this in threads) */
		char *amp = strchr(p, '&');
		if (amp)
			*amp++ = '\0';
		char *eq = strchr(p, '=');
		if (eq) /* names only: a value may be made afresh each time (an order number) */
			*eq = '\0';
		if (*p)
			params[np++] = p;
		p = amp;
	}
	qsort(params, np, sizeof *params, cmp_param);
	size_t w = (size_t)snprintf(out, n, "%s?", buf);
	for (size_t i = 0; i < np && w < n; i++)
		w += (size_t)snprintf(out + w, n - w, "%s%s", i ? "&" : "", params[i]);
	if (frag && w < n)
		snprintf(out + w, n - w, "#%s", frag);
}

int kn_replay_url_agrees(const char *expect, const char *got)
{
	char a[2100], b[2100];
	target_form(a, sizeof a, expect);
	target_form(b, sizeof b, got);
	return strcmp(a, b) == 0;
}

/* The step's URL or navigation postcondition holds now. */
static int holds(const kn_replay_waiter *w, const kn_replay_mark *m, const kn_step *st)
{
	if (st->expect_url && !(w->url[0] && kn_replay_url_agrees(st->expect_url, w->url)))
		return 0;
	return st->navigated != 1 || w->nav_committed != m->nav_committed;
}

int kn_replay_wait_postcondition(kn_replay_waiter *w, const kn_replay_mark *m, const kn_step *st, int ms)
{
	if (!st->expect_url && st->navigated != 1)
		return -1;
	double end = kn_time_mono_ms() + ms;
	while (!holds(w, m, st)) {
		double now = kn_time_mono_ms();
		if (now >= end || w->detached)
			return 0;
		kn_replay_wait_any(w, (int)(end - now) + 1);
	}
	return 1;
}
