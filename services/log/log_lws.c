/* log_lws.c — libwebsockets' log lines into the one log line (log.h kn_log_lws_hook). lws has one
 * log hook per process, so the CDP client loop, the HTTP server and the sites server all rely on
 * this one, set once: before it, whoever set the hook last received every lws line of the process
 * and `serve` logged the HTTP server's warnings as component=cdp. lws calls the hook on the thread
 * that logs, so a capture (a server creating its vhost) is per thread and never swallows another
 * thread's lines. */
#include <pthread.h>
#include <string.h>

#include <libwebsockets.h>

#include "log.h"

static pthread_once_t hook_once = PTHREAD_ONCE_INIT;

static _Thread_local struct {
	char *buf;
	size_t cap;
} capture;

static void emit(int level, const char *line)
{
	int is_error = (level & LLL_ERR) != 0;
	if (capture.buf) {
		if (is_error) {
			size_t n = strlen(kn_log_quote(capture.buf, capture.cap, line));
			while (n && capture.buf[n - 1] == ' ') /* the newline, now a space */
				capture.buf[--n] = '\0';
		}
		return;
	}
	kn_log_lws("lws", is_error, line);
}

static void set_hook(void)
{
	lws_set_log_level(LLL_ERR | LLL_WARN, emit);
}

void kn_log_lws_hook(void)
{
	pthread_once(&hook_once, set_hook);
}

void kn_log_lws_capture(char *buf, size_t cap)
{
	capture.buf = buf && cap ? buf : NULL;
	capture.cap = cap;
	if (capture.buf)
		buf[0] = '\0';
}
