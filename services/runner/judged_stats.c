/* judged_stats.c — judged and deterministic over a run's attempts (stats.h kn_stats_judged): how
 * many key nodes a semantic judge decided, the share of successes resting on one and the
 * deterministic floor (docs/scoring.md "Judged and deterministic"), over the attempts the metrics
 * count (status done), for the leaderboard and the batch page. */
#include <string.h>

#include "stats.h"

void kn_stats_judged(kn_summary *out, const kn_run_row *rows, size_t n)
{
	kn_summary_init(out);
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].status, "done") == 0)
			kn_stats_summary_add(out, &rows[i]);
	kn_summary_finish(out);
}

json_t *kn_stats_judged_json(const kn_run_row *rows, size_t n)
{
	kn_summary s;
	kn_stats_judged(&s, rows, n);
	json_t *j = json_pack("{s:I, s:I, s:f, s:f}", "judged_key_nodes", (json_int_t)s.n_judged_nodes,
	                      "judged_successes", (json_int_t)s.n_judged_success, "judged_success_share",
	                      s.judged_success_share, "deterministic_floor", s.deterministic_floor);
	if (j && s.n_judged_unknown) /* results that do not list their judged key nodes */
		json_object_set_new(j, "judged_unknown", json_integer((json_int_t)s.n_judged_unknown));
	return j;
}
