/* rundir_judge.c — the judge fingerprint of a run folder (rundir.h kn_rundir_judge), what keynode
 * compare and leaderboard check before they set two folders side by side: summary.json's, else
 * the first attempt's result that carries one. */
#include "rundir.h"

#include "keynode/judge_fingerprint.h"

json_t *kn_rundir_judge(const kn_rundir *d)
{
	const json_t *fp = d ? kn_judge_fingerprint_of(d->summary) : NULL;
	if (fp)
		return json_deep_copy(fp);
	for (size_t i = 0; d && i < d->n_rows; i++)
		if (d->rows[i].judge[0])
			return json_loads(d->rows[i].judge, 0, NULL);
	return NULL;
}

int kn_rundir_judge_diff(char *out, size_t cap, const kn_rundir *a, const kn_rundir *b)
{
	json_t *fa = kn_rundir_judge(a), *fb = kn_rundir_judge(b);
	int n = kn_judge_fingerprint_diff(out, cap, fa, fb);
	json_decref(fa), json_decref(fb);
	return n;
}
