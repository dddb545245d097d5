/* fuzz_trajectory.c — the trajectory reader plus the evaluator on arbitrary bytes: whatever
 * parses is fed to an evaluator for a task with every kind of key node. */
#include <stdint.h>
#include <string.h>

#include "keynode/eval.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char tasks[] =
	"[{\"index\": 1, \"task\": \"t\", \"reference_task_length\": 3, \"evaluation\": ["
	"{\"match_function_name\": \"url_included_match\", \"content\": {\"key\": \"\", \"reference_answer\": \"/a\"}},"
	"{\"match_function_name\": \"url_exactly_match\", \"content\": {\"key\": \"q\", \"reference_answer\": \"x y\"}},"
	"{\"match_function_name\": \"url_semantic_match\", \"content\": {\"key\": \"q\", \"reference_answer\": \"Decide whether are searching for x\"}},"
	"{\"match_function_name\": \"element_path_exactly_match\", \"method\": \"selector\", \"content\": {\"reference_answer\": \"#a > b\", \"netloc\": \"www\"}},"
	"{\"match_function_name\": \"element_value_included_match\", \"content\": {\"reference_answer\": \"v\", \"path\": \"#p\"}},"
	"{\"match_function_name\": \"final_answer_exact_match\", \"content\": {\"reference_answer\": \"42\"}}]}]";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static kn_taskset *set;
	kn_err err;
	if (!set && kn_task_load_mind2web(&set, tasks, sizeof tasks - 1, "t", NULL, &err) != 0)
		__builtin_trap();
	kn_traj_header h;
	kn_event *ev;
	size_t n;
	if (kn_traj_read_buffer((const char *)data, size, "fuzz.jsonl", &h, &ev, &n, &err) != 0)
		return 0;
	for (int mode = 0; mode < 2; mode++) {
		kn_eval_opts o = {.mode = mode ? KN_MODE_WEBCANVAS : KN_MODE_DEFAULT};
		kn_eval *e;
		if (kn_eval_new(&e, &set->tasks[0], &o) != 0)
			break;
		for (size_t i = 0; i < n; i++)
			kn_eval_feed(e, &ev[i], &err);
		double r = kn_eval_reached(e);
		if (r < 0 || r > (double)kn_eval_total(e) + 1e-9)
			__builtin_trap();
		kn_eval_free(e);
	}
	kn_traj_events_free(ev, n);
	kn_traj_header_clear(&h);
	return 0;
}
