/* http_listen.c — one lws context with one listening vhost, served until stopped (http_listen.h),
 * for server.c and sites.c. lws's log lines go through services/log (hooked once); while the vhost
 * is created they are captured on this thread, so a bind failure becomes one error message instead
 * of a burst of lws lines. */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http_listen.h"
#include "log.h"

static int probe_bind(const char *host, int port, kn_err *err)
{
	struct addrinfo hints = {0}, *ai = NULL;
	char ps[16];
	snprintf(ps, sizeof ps, "%d", port);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
	int g = getaddrinfo(host, ps, &hints, &ai);
	if (g != 0)
		return kn_err_set(err, KN_EINVAL, "bad host '%s': %s (give a numeric IP address)", host,
		                  gai_strerror(g));
	int rc = 0, fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
	if (fd < 0) {
		rc = kn_err_set(err, KN_EIO, "%s:%d: %s", host, port, strerror(errno));
	} else {
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0)
			rc = kn_err_set(err, KN_EIO, "cannot listen on %s:%d: %s", host, port,
			                strerror(errno));
		close(fd);
	}
	freeaddrinfo(ai);
	return rc;
}

int kn_http_listen(struct lws_context **ctx, struct lws_vhost **vh, const kn_http_listen_opts *o,
                   kn_err *err)
{
	*ctx = NULL;
	*vh = NULL;
	int rc = probe_bind(o->host, o->port, err); /* with port 0 this still checks the address */
	if (rc)
		return rc;
	struct lws_context_creation_info info;
	memset(&info, 0, sizeof info);
	info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
	if (!strchr(o->host, ':'))
		info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
	info.user = o->user;
	char lws_err[256];
	kn_log_lws_hook();
	kn_log_lws_capture(lws_err, sizeof lws_err);
	*ctx = lws_create_context(&info);
	if (*ctx) {
		struct lws_context_creation_info vi;
		memset(&vi, 0, sizeof vi);
		vi.vhost_name = o->vhost_name;
		vi.port = o->port;
		vi.iface = o->host;
		vi.protocols = o->protocols;
		vi.server_string = o->server_string;
		vi.retry_and_idle_policy = o->idle;
		vi.options = info.options | LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND;
		*vh = lws_create_vhost(*ctx, &vi);
	}
	kn_log_lws_capture(NULL, 0);
	if (!*vh)
		return kn_err_set(err, KN_EIO, "cannot listen on %s:%d: %s", o->host, o->port,
		                  lws_err[0] ? lws_err : "libwebsockets refused");
	return 0;
}

struct serve {
	lws_sorted_usec_list_t sul;
	struct lws_context *ctx;
	volatile sig_atomic_t *stop;
	lws_usec_t every;
	void (*on_tick)(void *ud);
	void *ud;
	int done;
};

/* The stop poll: runs inside lws_service, so after it the loop sees done. */
static void serve_tick(lws_sorted_usec_list_t *sul)
{
	struct serve *sv = lws_container_of(sul, struct serve, sul);
	if (*sv->stop) {
		sv->done = 1;
		return;
	}
	if (sv->on_tick)
		sv->on_tick(sv->ud);
	lws_sul_schedule(sv->ctx, 0, &sv->sul, serve_tick, sv->every);
}

int kn_http_serve(struct lws_context *ctx, volatile sig_atomic_t *stop, lws_usec_t tick_us,
                  void (*on_tick)(void *ud), void *ud)
{
	struct serve sv;
	memset(&sv, 0, sizeof sv);
	sv.ctx = ctx;
	sv.stop = stop;
	sv.every = tick_us;
	sv.on_tick = on_tick;
	sv.ud = ud;
	lws_sul_schedule(ctx, 0, &sv.sul, serve_tick, tick_us);
	int rc = 0;
	while (!sv.done && !*stop)
		if (lws_service(ctx, 0) < 0) {
			rc = KN_EIO;
			break;
		}
	lws_sul_cancel(&sv.sul);
	return rc;
}
