/* fuzz_recorder_payload.c — what a page can send the monitor: arbitrary bytes as a recorder
 * payload are decoded (or refused with a message) and, when accepted, evaluated and written to a
 * trajectory line; never a crash, leak or hang. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char tasks[] =
	"[{\"index\": 1, \"task\": \"t\", \"evaluation\": ["
	"{\"match_function_name\": \"element_path_exactly_match\", \"method\": \"selector\", \"content\": {\"reference_answer\": \"#add\"}},"
	"{\"match_function_name\": \"element_value_semantic_match\", \"content\": {\"reference_answer\": \"Decide whether the content means red shoes\", \"path\": \"#q\"}},"
	"{\"match_function_name\": \"url_included_match\", \"content\": {\"key\": \"\", \"reference_answer\": \"/cart\"}}]}]";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static kn_taskset *set;
	static FILE *sink;
	kn_err err;
	if (!set && kn_task_load_mind2web(&set, tasks, sizeof tasks - 1, "t", NULL, &err) != 0)
		__builtin_trap();
	if (!sink)
		sink = fopen("/dev/null", "w");
	kn_event ev;
	err.msg[0] = '\0';
	double t_ms;
	char *href;
	kn_monitor_payload_meta((const char *)data, size, &t_ms, &href);
	if (t_ms < 0 || t_ms >= 1e15)
		__builtin_trap(); /* an action time is a plausible epoch or 0 */
	free(href);
	if (kn_monitor_decode_payload(&ev, (const char *)data, size, &err) != 0) {
		if (!err.msg[0])
			__builtin_trap(); /* a refusal always says why */
		return 0;
	}
	if (ev.type == KN_EV_NAVIGATE || ev.type == KN_EV_ANSWER || ev.how || ev.tab ||
	    ev.frame_url || ev.frame_path || ev.n_frame_path)
		__builtin_trap(); /* the page cannot claim navigations, answers, tabs or frame paths */
	ev.tab = "T1";
	kn_eval *e;
	if (kn_eval_new(&e, &set->tasks[0], NULL) == 0) {
		kn_eval_feed(e, &ev, &err);
		kn_eval_free(e);
	}
	if (sink)
		kn_traj_write_event(sink, &ev);
	kn_event_clear(&ev);
	return 0;
}
