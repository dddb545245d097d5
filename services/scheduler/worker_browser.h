/* worker_browser.h — the local headless Chromium a worker starts for itself (internal to the
 * worker). The browser runs with a throw-away profile and --remote-debugging-port=0; its
 * DevToolsActivePort file gives the endpoint. It is tied to the worker process: it gets SIGKILL
 * when the thread that started it dies (PR_SET_PDEATHSIG), so a SIGKILLed worker leaves no browser
 * behind. */
#ifndef KEYNODE_WORKER_BROWSER_H
#define KEYNODE_WORKER_BROWSER_H

#include <sys/types.h>

#include "keynode/error.h"

typedef struct kn_local_browser {
	pid_t pid;            /* 0 when not running */
	char profile[4096];   /* the user-data-dir, removed by kn_local_browser_stop */
	char *ws_url;         /* browser-level websocket URL, the caller's until stop */
} kn_local_browser;

/* Start binary (NULL → /usr/lib/chromium/chromium) with a fresh profile under $TMPDIR (or /tmp) and
 * wait (bounded, 15 s) for its endpoint. On success b is filled; on failure nothing is left running.
 * KN_EIO (cannot start), KN_ETIMEOUT (no endpoint). */
int kn_local_browser_start(kn_local_browser *b, const char *binary, kn_err *err);

/* The same with first_url (http:// or https:// only; anything else: about:blank) as the first tab's
 * page, so its load overlaps the browser's start-up (`keynode run`'s start page). */
int kn_local_browser_start_at(kn_local_browser *b, const char *binary, const char *first_url, kn_err *err);

/* 1 while the browser process is alive (reaps it when it exited). */
int kn_local_browser_alive(kn_local_browser *b);

/* Stop the browser (SIGTERM, SIGKILL after 3 s), reap it, remove the profile, free ws_url. A
 * stopped or never-started browser is a no-op. */
void kn_local_browser_stop(kn_local_browser *b);

#endif
