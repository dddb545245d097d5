/* worker_browser.c — start, watch and stop the local headless Chromium of a worker
 * (worker_browser.h). The flags are the verified set of docs/development.md; the endpoint comes
 * from the profile's DevToolsActivePort file through kn_cdp_discover, which re-reads a missing or
 * half-written file until its timeout. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "worker_browser.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cdp.h"
#include "keynode/clock.h"
#include "keynode/proc_group.h"

#define KN_CHROMIUM_DEFAULT "/usr/lib/chromium/chromium"
#define KN_BROWSER_START_TIMEOUT_MS 15000

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static void remove_profile(kn_local_browser *b)
{
	if (b->profile[0])
		nftw(b->profile, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	b->profile[0] = '\0';
}

int kn_local_browser_start(kn_local_browser *b, const char *binary, kn_err *err)
{
	return kn_local_browser_start_at(b, binary, NULL, err);
}

int kn_local_browser_start_at(kn_local_browser *b, const char *binary, const char *first_url, kn_err *err)
{
	memset(b, 0, sizeof *b);
	/* only a web URL, never anything Chromium could read as a switch */
	if (!first_url || (strncmp(first_url, "http://", 7) != 0 && strncmp(first_url, "https://", 8) != 0))
		first_url = "about:blank";
	if (!binary)
		binary = KN_CHROMIUM_DEFAULT;
	if (access(binary, X_OK) != 0)
		return kn_err_set(err, KN_EIO, "no browser at %s: %s", binary, strerror(errno));
	const char *tmpdir = getenv("TMPDIR");
	snprintf(b->profile, sizeof b->profile, "%s/keynode-worker-XXXXXX",
	         tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(b->profile)) {
		int e = errno;
		b->profile[0] = '\0';
		return kn_err_set(err, KN_EIO, "cannot create a browser profile: %s", strerror(e));
	}
	char udd[4200];
	snprintf(udd, sizeof udd, "--user-data-dir=%s", b->profile);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		remove_profile(b);
		return kn_err_set(err, KN_EIO, "cannot start the browser: %s", strerror(e));
	}
	if (pid == 0) {
		/* the worker may block signals for its signal thread: the browser must not inherit that */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* its own process group: the zygotes, renderers and utilities it forks stay in it, so the
		 * stop can wait for every one of them, not only for the browser process */
		setpgid(0, 0);
		if (getppid() != parent)
			_exit(127);
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0), dup2(fd, 1), dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		execl(binary, binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		      "--no-first-run", "--disable-background-networking", "--disable-component-update",
		      "--disable-sync", udd, "--remote-debugging-port=0", "--", first_url, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid); /* also here: a stop right after the fork finds the group */
	b->pid = pid;
	int r = kn_cdp_discover(&b->ws_url, b->profile, KN_BROWSER_START_TIMEOUT_MS, err);
	if (r == 0 && !kn_local_browser_alive(b))
		r = kn_err_set(err, KN_EIO, "the browser %s exited at start", binary);
	if (r != 0) {
		kn_err keep = {0};
		if (err)
			keep = *err;
		kn_local_browser_stop(b);
		if (err)
			*err = keep;
		return r;
	}
	return 0;
}

int kn_local_browser_alive(kn_local_browser *b)
{
	if (b->pid <= 0)
		return 0;
	int status;
	pid_t r = waitpid(b->pid, &status, WNOHANG);
	if (r == b->pid || (r < 0 && errno == ECHILD)) {
		b->pid = 0;
		return 0;
	}
	return 1;
}

void kn_local_browser_stop(kn_local_browser *b)
{
	if (b->pid > 0) {
		kill(b->pid, SIGTERM);
		int status, gone = 0;
		for (int i = 0; i < 60 && !gone; i++) {
			pid_t r = waitpid(b->pid, &status, WNOHANG);
			if (r == b->pid || (r < 0 && errno != EINTR))
				gone = 1;
			else
				kn_time_sleep_ms(50);
		}
		if (!gone) {
			kill(b->pid, SIGKILL);
			while (waitpid(b->pid, &status, 0) < 0 && errno == EINTR)
				;
		}
		/* the browser's helpers (zygotes, renderers) end after it, within ~2 s on a quiet machine and
		 * later on a loaded one: wait for its group to be empty before removing the profile they may
		 * still write to, and end what is left after 5 s — no helper outlives keynode (a helper that
		 * ended is reaped there: as a zombie it would keep the group alive the whole 5 s) */
		for (int i = 0; i < 100 && kn_proc_group_alive(b->pid); i++)
			kn_time_sleep_ms(50);
		if (kn_proc_group_alive(b->pid)) {
			kill(-b->pid, SIGKILL);
			for (int i = 0; i < 20 && kn_proc_group_alive(b->pid); i++)
				kn_time_sleep_ms(50);
		}
		b->pid = 0;
	}
	remove_profile(b);
	free(b->ws_url);
	b->ws_url = NULL;
}
