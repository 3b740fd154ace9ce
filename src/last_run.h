/*
 * last_run.h — the session's last clustering, for gpu_dbscan_last_run().
 */
#ifndef GPU_DBSCAN_LAST_RUN_H
#define GPU_DBSCAN_LAST_RUN_H

#include "gd_core.h"

/* The session's last clustering. */
typedef struct LastRun
{
	bool		valid;
	int64		rows;
	gd_run_stats stats;
	double		slot_wait_ms;	/* waiting for a GPU slot (gpu_slots.c) */
	int			ndevices;		/* GPU devices it ran on (0: the CPU) */
	int			devices[GD_MAX_DEVICES];
} LastRun;

/* Keeps stats of a run over nrows rows that waited slot_wait_ms for a GPU slot. */
extern void last_run_record(const gd_run_stats *stats, int64_t nrows, double slot_wait_ms);

/*
 * Keeps the GPU devices of the run last recorded (n of them; 0: a CPU run),
 * for gpu_dbscan_last_run_devices().
 */
extern void last_run_record_devices(const int *devices, int n);

/*
 * The last run as a value, and made this session's: what carries a parallel
 * worker's clustering to its leader (window_partial.c).
 */
extern void last_run_get(LastRun *out);
extern void last_run_set(const LastRun *run);

#endif							/* GPU_DBSCAN_LAST_RUN_H */
