/*
 * mapped_file.h — a small file under the data directory mapped shared by
 * every backend: state that sessions see of each other without
 * shared_preload_libraries (the memory ledger, the progress records).
 */
#ifndef GD_MAPPED_FILE_H
#define GD_MAPPED_FILE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Maps `size` bytes of the file at `path`, creating it.  fresh: the file is
 * truncated first, so the mapping starts zeroed; otherwise an existing file's
 * content is kept (extended with zeros when shorter).  NULL on failure, with
 * errno set (the file is removed again when it was made fresh).
 */
extern void *gd_map_file(const char *path, size_t size, bool fresh);

#endif
