/* cmd_sites.c — `keynode sites`: serve the local test sites (tests/sites/) over HTTP so a real
 * browser can load them, for integration tests and for trying tasks by hand. The server itself
 * lives in services/http/sites.c; this file parses options, installs the SIGINT/SIGTERM flag and
 * logs the start line tests read the chosen port from. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "sites.h"

static const char help[] =
	"usage: keynode sites --dir DIR --port PORT [--host ADDRESS] [--csp] [--log-requests]\n"
	"\n"
	"Serve a directory of static test sites (tests/sites/) over HTTP: GET and HEAD, MIME types by\n"
	"extension, index.html for directories, DIR/404.html (or a built-in page) with status 404 for\n"
	"missing files, 403 for paths that try to leave DIR. Responses are never cached.\n"
	"DIR/_redirects: one rule a line, FROM TO [301|302|303|307|308] (GET, HEAD and POST on FROM);\n"
	"a folder holding a _cacheable file is sent no-cache instead (back/forward cache allowed).\n"
	"On start it logs one line to stderr (on a terminal, a readable form of it):\n"
	"  level=info component=sites msg=\"serving\" dir=DIR url=http://HOST:PORT/\n"
	"SIGINT or SIGTERM stops it cleanly.\n"
	"\n"
	"options:\n"
	"  --dir DIR          directory to serve (required)\n"
	"  --port PORT        TCP port (required); 0 picks a free one (read it from the start line)\n"
	"  --host ADDRESS     numeric address to bind (default 127.0.0.1; 0.0.0.0 exposes the sites)\n"
	"  --csp              send a strict Content-Security-Policy (no inline script or style)\n"
	"  --log-requests     log one line per request\n"
	"  --help             this text\n"
	"\n"
	"exit: 0 stopped by a signal, 2 usage error, bad directory or port in use\n";

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* Parse a TCP port 0..65535; -1 when text is not one. */
static int parse_port(const char *text)
{
	char *end;
	long v = strtol(text, &end, 10);
	if (end == text || *end || v < 0 || v > 65535)
		return -1;
	return (int)v;
}

int kn_cmd_sites(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dir", required_argument, NULL, 'd'},  {"port", required_argument, NULL, 'p'},
		{"host", required_argument, NULL, 'H'}, {"csp", no_argument, NULL, 'c'},
		{"log-requests", no_argument, NULL, 'l'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	kn_sites_opts so = {0};
	const char *port = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': so.dir = optarg; break;
		case 'p': port = optarg; break;
		case 'H': so.host = optarg; break;
		case 'c': so.csp = 1; break;
		case 'l': so.log_requests = 1; break;
		case 'h': fputs(help, stdout); return KN_EXIT_OK;
		default: return kn_cli_usage_error("sites", "bad option");
		}
	}
	if (!so.dir || !port)
		return kn_cli_usage_error("sites", "--dir and --port are required");
	if (optind < argc)
		return kn_cli_usage_error("sites", "unexpected argument '%s'", argv[optind]);
	if ((so.port = parse_port(port)) < 0)
		return kn_cli_usage_error("sites", "--port must be 0..65535, got '%s'", port);

	kn_sites *s;
	kn_err err = {0};
	if (kn_sites_new(&s, &so, &err) != 0) {
		fprintf(stderr, "keynode sites: %s\n", err.msg);
		return KN_EXIT_USAGE;
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal; /* no SA_RESTART: a signal also cuts the poll short */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);

	const char *host = so.host && strcmp(so.host, "localhost") != 0 ? so.host : "127.0.0.1";
	int v6 = strchr(host, ':') != NULL;
	const char *dir = kn_sites_dir(s);
	int quote = strpbrk(dir, " \t\"=") != NULL;
	char q[512];
	kn_log("info", "sites", "msg=\"serving\" dir=%s%s%s url=http://%s%s%s:%d/%s", quote ? "\"" : "",
	       quote ? kn_log_quote(q, sizeof q, dir) : dir, quote ? "\"" : "", v6 ? "[" : "", host, v6 ? "]" : "",
	       kn_sites_port(s), so.csp ? " csp=on" : "");
	fflush(stderr);

	int rc = kn_sites_run(s, &stop_flag);
	kn_sites_free(s);
	if (rc != 0) {
		kn_log_msg("error", "sites", "event loop failed", "error=\"%s\"", kn_strerror(rc));
		return KN_EXIT_USAGE;
	}
	kn_log_msg("info", "sites", "stopped", NULL);
	return KN_EXIT_OK;
}
