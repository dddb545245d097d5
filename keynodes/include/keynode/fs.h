/* fs.h — the file chores every module shares. Creating the folders keynode writes to: every command
 * that writes into a folder (serve's spool, score --out, replay --out, watch --out/--trajectory/
 * --answer-file) creates it and its missing parents first, so a fresh machine or an empty HOME needs
 * no preparation. Reading a whole file (a task file, a workflow, a trajectory, a trace index, a label
 * file, an upload) into memory, with the caller's cap on its size. */
#ifndef KEYNODE_FS_H
#define KEYNODE_FS_H

#include <stddef.h>
#include <stdio.h>

#include "keynode/error.h"

/* Create dir and every missing parent with mode (0700 for private state, 0755 for outputs; the
 * umask applies); existing ones are left as they are. KN_EIO naming the one that failed or the
 * one that is not a directory, KN_EINVAL for an empty or over-long name. */
int kn_mkdirs(const char *dir, unsigned mode, kn_err *err);
/* The same for the folder holding file (nothing to do for a bare file name). */
int kn_mkdirs_for(const char *file, unsigned mode, kn_err *err);

/* Read f from where it stands to its end into *out (the caller's: free(); NUL-terminated after the
 * *len bytes read). At most max bytes are taken (SIZE_MAX: no cap of our own). 0; KN_ELIMIT when f
 * holds more than max bytes, KN_EIO on a read error, KN_ENOMEM — each with *out NULL and *len 0, the
 * message the caller's (it knows the file's name and what its cap is for). f stays open. */
int kn_read_stream(char **out, size_t *len, FILE *f, size_t max);
/* The file at path read whole the same way, with the one wording of its errors, each naming path:
 * KN_ENOTFOUND ("PATH: No such file or directory") or KN_EIO (the system's reason) when it cannot be
 * opened, KN_ELIMIT ("PATH: over the MAX byte limit"), KN_EIO ("PATH: read error": a folder, a
 * failing disk), KN_ENOMEM ("PATH: out of memory"). */
int kn_read_file(char **out, size_t *len, const char *path, size_t max, kn_err *err);

#endif
