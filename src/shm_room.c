/*
 * shm_room.c — room for a DSM segment in /dev/shm (see shm_room.h).
 */
#include "postgres.h"

#include <sys/statvfs.h>

#include "storage/dsm_impl.h"

#include "shm_room.h"

bool
shm_has_room(Size bytes)
{
	struct statvfs fs;

	if (dynamic_shared_memory_type != DSM_IMPL_POSIX || statvfs("/dev/shm", &fs) != 0)
		return true;
	return (uint64) fs.f_bavail * fs.f_frsize > (uint64) bytes + bytes / 8;
}
