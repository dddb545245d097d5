/* browser_pick.c — which Chromium an attempt launches when none is named (runner.h
 * kn_runner_chromium_default). Debian's chromium-headless-shell (the headless-only build of the
 * same Chromium version, the one Playwright launches for headless runs) starts and loads the first
 * page in about half the time and CPU of the full browser's --headless (tests/bench/RESULTS.md):
 * on 2 cores that time is most of an attempt's overhead. Without it, the full browser. */
#include <unistd.h>

#include "runner.h"

#define KN_HEADLESS_SHELL "/usr/lib/chromium/chromium-headless-shell"
#define KN_CHROMIUM_FULL "/usr/lib/chromium/chromium"

const char *kn_runner_chromium_default(void)
{
	return access(KN_HEADLESS_SHELL, X_OK) == 0 ? KN_HEADLESS_SHELL : KN_CHROMIUM_FULL;
}
