/*
 * gpu_slots.h — a cap on the sessions that use the GPU at once
 * (gpu_dbscan.max_gpu_sessions), see gpu_slots.c.
 */
#ifndef GPU_DBSCAN_GPU_SLOTS_H
#define GPU_DBSCAN_GPU_SLOTS_H

/*
 * Takes one of the gpu_dbscan.max_gpu_sessions slots for a GPU run.  Returns
 * true holding a slot (or at once when there is no cap), false when wait_ms
 * milliseconds passed first (wait_ms < 0: waits until a slot frees).  Cancels
 * and statement_timeout end the wait with their error.  *waited_ms gets the
 * time spent waiting.  Every true is paired with gd_gpu_slot_release.
 */
extern bool gd_gpu_slot_acquire(int wait_ms, double *waited_ms);

/* The slot held now (1..cap), 0 when none. */
extern int	gd_gpu_slot_held(void);

/* Gives the slot back (nothing when none is held). */
extern void gd_gpu_slot_release(void);

#endif							/* GPU_DBSCAN_GPU_SLOTS_H */
