/*
 * last_run.h — the session's last clustering, for gpu_dbscan_last_run().
 */
#ifndef GPU_DBSCAN_LAST_RUN_H
#define GPU_DBSCAN_LAST_RUN_H

#include "gd_core.h"

/* Keeps stats of a run over nrows rows that waited slot_wait_ms for a GPU slot. */
extern void last_run_record(const gd_run_stats *stats, int64_t nrows, double slot_wait_ms);

#endif							/* GPU_DBSCAN_LAST_RUN_H */
