/* history.h — a tab's session history as the monitor sees it: the list of entries and where the
 * tab is in it, to tell back from forward when the browser only says "a history navigation". */
#ifndef KEYNODE_MONITOR_HISTORY_H
#define KEYNODE_MONITOR_HISTORY_H

#define KN_MAX_HISTORY 256

typedef struct kn_history {
	char *url[KN_MAX_HISTORY];
	int n, at;
} kn_history;

/* A new entry after the current one (the forward entries are dropped; the oldest past the cap). */
void kn_history_push(kn_history *h, const char *url);
/* A history navigation to url: "back" when it is an entry before the current one, "forward" when
 * after; an unknown url is pushed and called "back". */
const char *kn_history_move(kn_history *h, const char *url);
/* 1 when url is an entry of h. */
int kn_history_has(const kn_history *h, const char *url);
void kn_history_clear(kn_history *h);
/* The `how` of a navigation the page itself asked for, from Page.frameRequestedNavigation's reason:
 * "link" (anchorClick), "form" (formSubmission…), "reload", else "script". Static storage. */
const char *kn_history_reason_how(const char *reason);

#endif
