/* fs.h — creating the folders keynode writes to. Every command that writes into a folder (serve's
 * spool, score --out, replay --out, watch --out/--trajectory/--answer-file) creates it and its
 * missing parents first, so a fresh machine or an empty HOME needs no preparation. */
#ifndef KEYNODE_FS_H
#define KEYNODE_FS_H

#include "keynode/error.h"

/* Create dir and every missing parent with mode (0700 for private state, 0755 for outputs; the
 * umask applies); existing ones are left as they are. KN_EIO naming the one that failed or the
 * one that is not a directory, KN_EINVAL for an empty or over-long name. */
int kn_mkdirs(const char *dir, unsigned mode, kn_err *err);
/* The same for the folder holding file (nothing to do for a bare file name). */
int kn_mkdirs_for(const char *file, unsigned mode, kn_err *err);

#endif
