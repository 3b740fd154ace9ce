/*
 * shm_room.h — whether POSIX shared memory has room for a new DSM segment
 * (shm_room.c).
 */
#ifndef GPU_DBSCAN_SHM_ROOM_H
#define GPU_DBSCAN_SHM_ROOM_H

#include "postgres.h"

/*
 * Whether /dev/shm has room for bytes more, with an eighth to spare: a
 * segment that does not fit raises an error mid-creation (a container's
 * /dev/shm is often small), where the caller has a way without it.  True
 * for the other DSM implementations and when /dev/shm cannot be asked.
 */
extern bool shm_has_room(Size bytes);

#endif							/* GPU_DBSCAN_SHM_ROOM_H */
