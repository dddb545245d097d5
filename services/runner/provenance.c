/* provenance.c — the environment of a run (provenance.h): AgentLab's reproducibility journal and
 * Mind2Web 2's reporting ask for the versions and settings a result was produced with, and a
 * resumed run must not quietly mix attempts of two browsers. Facts come from where they are
 * decided: the Chromium binary's --version (or the --browser endpoint's /json/version), keynode's
 * own version and the commit it was configured from, uname, the locale and time zone the browser
 * inherits from keynode's environment, and the options of the run. */
#define _GNU_SOURCE
#include "provenance.h"

#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cdp.h"
#include "keynode/judge_fingerprint.h"
#include "llm.h"

#ifndef KN_VERSION
#define KN_VERSION "unknown"
#endif
#ifndef KN_GIT_COMMIT
#define KN_GIT_COMMIT ""
#endif

extern char **environ;

/* "156.0.8078.108" of "Chromium 156.0.8078.108 …" or "HeadlessChrome/156.0.8078.108". */
static json_t *version_of(const char *s)
{
	const char *p = s ? strpbrk(s, "0123456789") : NULL;
	if (!p)
		return json_null();
	size_t n = strspn(p, "0123456789.");
	return json_stringn(p, n);
}

/* The first line `bin --version` prints (at most 255 bytes), or NULL. */
static char *binary_version(const char *bin)
{
	int fd[2];
	if (!bin || pipe(fd) != 0)
		return NULL;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 01 /* O_WRONLY */, 0);
	char *argv[] = {(char *)(uintptr_t)bin, (char *)(uintptr_t)"--version", NULL};
	pid_t pid;
	int rc = posix_spawn(&pid, bin, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	char buf[256] = "";
	size_t n = 0;
	ssize_t got;
	while (rc == 0 && n + 1 < sizeof buf && (got = read(fd[0], buf + n, sizeof buf - 1 - n)) > 0)
		n += (size_t)got;
	close(fd[0]);
	if (rc == 0)
		waitpid(pid, NULL, 0);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return rc == 0 && n ? strdup(buf) : NULL;
}

/* http://HOST:PORT of an endpoint given as http:// or ws://; NULL for a DevToolsActivePort file. */
static char *http_base(const char *endpoint)
{
	const char *h = strncmp(endpoint, "ws://", 5) == 0 ? endpoint + 5
	                : strncmp(endpoint, "http://", 7) == 0 ? endpoint + 7 : NULL;
	char *p = NULL;
	if (h && asprintf(&p, "http://%.*s", (int)strcspn(h, "/"), h) < 0)
		p = NULL;
	return p;
}

static json_t *time_zone(void)
{
	const char *tz = getenv("TZ");
	if (tz && *tz)
		return json_string(tz[0] == ':' ? tz + 1 : tz);
	char buf[256] = "";
	FILE *f = fopen("/etc/timezone", "r");
	if (f) {
		if (fgets(buf, sizeof buf, f))
			buf[strcspn(buf, "\r\n")] = '\0';
		fclose(f);
		if (*buf)
			return json_string(buf);
	}
	ssize_t n = readlink("/etc/localtime", buf, sizeof buf - 1);
	if (n > 0) {
		buf[n] = '\0';
		const char *z = strstr(buf, "zoneinfo/");
		return json_string(z ? z + 9 : buf);
	}
	return json_string("UTC"); /* glibc's default without TZ and /etc/localtime */
}

static json_t *locale(void)
{
	const char *const vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return json_string(v);
	}
	return json_string("C");
}

static json_t *os(void)
{
	struct utsname u;
	char buf[512];
	if (uname(&u) != 0)
		return json_null();
	snprintf(buf, sizeof buf, "%s %s %s", u.sysname, u.release, u.machine);
	return json_string(buf);
}

/* The judge: its fingerprint (keynode/judge_fingerprint.h), with the names environments had
 * before it — "semantic" for the backend — and an LLM judge's prompt_version. */
static json_t *judge_json(const kn_eval_opts *e)
{
	json_t *j = kn_judge_fingerprint(e);
	const char *backend = json_string_value(json_object_get(j, "backend"));
	if (j && backend)
		json_object_set_new(j, "semantic", json_string(backend));
	if (j && backend && strcmp(backend, "llm") == 0)
		json_object_set_new(j, "prompt_version", json_integer(KN_LLM_PROMPT_VERSION));
	return j;
}

json_t *kn_run_environment(const kn_run_env_opts *o)
{
	json_t *env = json_object(), *browser = NULL;
	if (!env)
		return NULL;
	char *version = NULL, *base = o->browser ? http_base(o->browser) : NULL;
	if (base) /* a running browser: ask it */
		kn_cdp_version(&browser, base, 2000, NULL);
	else if (!o->browser && o->probe)
		version = binary_version(o->chromium);
	const char *product = json_string_value(json_object_get(browser, "Browser"));
	/* a running browser says "HeadlessChrome/…" in old headless mode; new headless and headful
	 * both say "Chrome/…", so anything else is unknown */
	json_t *headless = !o->browser ? json_true()
	                   : product && strncmp(product, "HeadlessChrome", 14) == 0 ? json_true() : json_null();
	json_t *judge = judge_json(o->eval);
	json_object_set_new(env, "keynode_version", json_string(KN_VERSION));
	json_object_set_new(env, "keynode_commit", *KN_GIT_COMMIT ? json_string(KN_GIT_COMMIT) : json_null());
	json_object_set_new(env, "chromium_version", version_of(version ? version : product));
	json_object_set_new(env, "chromium", o->browser ? json_string(o->browser)
	                                     : o->chromium ? json_string(o->chromium) : json_null());
	json_object_set_new(env, "headless", headless);
	/* keynode emulates no device: a launched browser keeps Chromium's factor 1 */
	json_object_set_new(env, "device_scale_factor", o->browser ? json_null() : json_integer(1));
	json_object_set_new(env, "viewport", o->viewport_w > 0
	                                     ? json_pack("{s:i, s:i}", "width", o->viewport_w, "height", o->viewport_h)
	                                     : json_null());
	json_object_set_new(env, "locale", locale());
	json_object_set_new(env, "time_zone", time_zone());
	json_object_set_new(env, "os", os());
	json_object_set_new(env, "region", o->region ? json_string(o->region) : json_null());
	json_object_set_new(env, "tasks_sha256", o->tasks_sha256 ? json_string(o->tasks_sha256) : json_null());
	json_object_set_new(env, "judge", judge ? judge : json_null());
	json_decref(browser);
	free(version);
	free(base);
	return env;
}

void kn_run_environment_browser(json_t *env, const char *http)
{
	json_t *v = NULL;
	if (!env || !http || kn_cdp_version(&v, http, 2000, NULL) != 0)
		return;
	const char *product = json_string_value(json_object_get(v, "Browser")),
	           *ua = json_string_value(json_object_get(v, "User-Agent"));
	if (product)
		json_object_set_new(env, "browser_product", json_string(product));
	if (ua)
		json_object_set_new(env, "user_agent", json_string(ua));
	if (product && json_is_null(json_object_get(env, "chromium_version")))
		json_object_set_new(env, "chromium_version", version_of(product));
	if (product && strncmp(product, "HeadlessChrome", 14) == 0)
		json_object_set_new(env, "headless", json_true());
	json_decref(v);
}

int kn_run_environment_diff(char *out, size_t cap, const json_t *earlier, const json_t *now)
{
	static const char *const keys[] = {"keynode_version", "chromium_version", "headless",
	                                   "device_scale_factor", "viewport", "locale", "time_zone",
	                                   "os", "region", "tasks_sha256", "judge"};
	int n = 0;
	size_t used = 0;
	if (cap)
		out[0] = '\0';
	if (!json_is_object(earlier))
		return 0;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		json_t *a = json_object_get(earlier, keys[i]), *b = json_object_get(now, keys[i]);
		if (!a || json_equal(a, b) || (json_is_null(a) && !b))
			continue;
		char *sa = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY),
		     *sb = b ? json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
		int w = snprintf(out + used, used < cap ? cap - used : 0, "%s%s: %s then, %s now", n ? "; " : "",
		                 keys[i], sa ? sa : "?", sb ? sb : "null");
		if (w > 0)
			used += (size_t)w;
		if (used >= cap)
			used = cap ? cap - 1 : 0;
		free(sa), free(sb);
		n++;
	}
	return n;
}
