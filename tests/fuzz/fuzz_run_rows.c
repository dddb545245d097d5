/* fuzz_run_rows.c — the packed attempts of a finished agent batch (services/runner/run_rows.h), read
 * from a database row anyone with access may have written. Any input is either refused with a
 * reason and nothing returned, or read into rows whose strings are terminated, whose status is known
 * and whose counts are sane — and those rows pack to a text that reads back to the same rows. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run_rows.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	json_t *head = NULL, *h2 = NULL;
	kn_run_row *rows = NULL, *again = NULL;
	size_t n = 0, n2 = 0;
	kn_err err = {0};
	if (kn_run_rows_unpack(text, &head, &rows, &n, 64, &err) != 0) {
		if (!err.msg[0] || head || rows || n)
			abort();
		free(text);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (strlen(rows[i].task) >= sizeof rows[i].task || strlen(rows[i].reason) >= sizeof rows[i].reason ||
		    rows[i].total < 0 || rows[i].missing < 0 || rows[i].missing > rows[i].total || rows[i].attempt < 1)
			abort();
	char *packed = NULL;
	if (kn_run_rows_pack(&packed, head, rows, n, &err) != 0 ||
	    kn_run_rows_unpack(packed, &h2, &again, &n2, 64, &err) != 0 || n2 != n || !json_equal(head, h2) ||
	    (n && memcmp(rows, again, n * sizeof *rows) != 0))
		abort();
	free(packed);
	free(again);
	free(rows);
	json_decref(h2);
	json_decref(head);
	free(text);
	return 0;
}
