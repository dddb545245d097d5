/* task_digest.c — what summary.json says about a run's tasks: each task's content hash and site
 * (summary.h kn_run_task), and the SHA-256 of the task file's bytes. Two runs are compared task by
 * task only where id and hash agree (keynode compare), so the hash is of the task's canonical JSON
 * (services/store kn_store_task_json: the same text for the same task whatever the file's layout),
 * the hash the store versions tasks by. */
#include "task_digest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "keynode/site.h"
#include "store.h"

void kn_sha256_hex(char out[65], const void *buf, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	out[0] = '\0';
	if (EVP_Digest(buf, len, md, &n, EVP_sha256(), NULL) != 1 || n != 32)
		return;
	for (unsigned int i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

int kn_sha256_file_hex(char out[65], const char *path, kn_err *err)
{
	out[0] = '\0';
	FILE *f = fopen(path, "rb");
	if (!f)
		return kn_err_set(err, errno == ENOENT ? KN_ENOTFOUND : KN_EIO, "%s: %s", path, strerror(errno));
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;
	size_t got;
	while (ok && (got = fread(buf, 1, sizeof buf, f)) > 0)
		ok = EVP_DigestUpdate(ctx, buf, got) == 1;
	ok = ok && !ferror(f) && EVP_DigestFinal_ex(ctx, md, &n) == 1 && n == 32;
	fclose(f);
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return kn_err_set(err, KN_EIO, "%s: cannot read", path);
	for (unsigned int i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int kn_run_task_describe(kn_run_task *out, const kn_task *task)
{
	memset(out, 0, sizeof *out);
	out->id = task->id;
	kn_task_site(out->site, sizeof out->site, task);
	char *json = NULL;
	if (kn_store_task_json(&json, task) != 0)
		return KN_ENOMEM;
	kn_sha256_hex(out->sha256, json, strlen(json));
	free(json);
	return 0;
}
