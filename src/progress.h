/*
 * progress.h — what a long clustering is doing, for other sessions to see
 * (gpu_dbscan_progress()).
 *
 * Each backend that clusters keeps one small record in a file of its own,
 * pg_stat_tmp/gpu_dbscan.<pid> under the data directory, mapped into its
 * memory: no shared_preload_libraries and no shared memory are needed, and
 * an update is a few stores (made per partition, per phase and every 4096
 * rows read, never per row of the core's work).  The file goes when the
 * backend exits; gpu_dbscan_progress() skips files of processes that are no
 * backend.  Any failure to create or map it only turns the reports off for
 * that backend: progress never raises an error.
 */
#ifndef GPU_DBSCAN_PROGRESS_H
#define GPU_DBSCAN_PROGRESS_H

#include "postgres.h"

typedef enum GdProgressPhase
{
	GD_PHASE_IDLE = 0,
	GD_PHASE_READING,			/* reading and decoding the partition's rows */
	GD_PHASE_SLOT_WAIT,			/* waiting for a GPU slot */
	GD_PHASE_CLUSTER_CPU,		/* the core, on the CPU */
	GD_PHASE_CLUSTER_GPU,		/* the core, on the GPU */
	GD_PHASE_PAIRS,				/* candidate pairs and exact tests (non-points, geography) */
	GD_PHASE_GRAPH				/* clustering the pair graph */
} GdProgressPhase;

/*
 * Partitions (and aggregates' rows) of at most this many rows report no
 * progress; the window functions also read and cluster them in the memory
 * context they are called in, not in contexts of their own: creating and
 * deleting a context costs as much as clustering a few points, and what a
 * few rows leave behind is small.
 */
#define GD_PROGRESS_MIN_ROWS 64

/* A partition (or an aggregate's rows) of rows_total rows starts; fn names the function. */
extern void gd_progress_begin(const char *fn, int64 rows_total);
extern void gd_progress_phase(GdProgressPhase phase);
/* rows_read rows of the partition have been read (call every few thousand rows). */
extern void gd_progress_rows(int64 rows_read);
/*
 * The core's report_step (gd_params): step done of total of the run (strip k
 * of n).  Only stores into the record, so the core may call it mid-run.
 */
extern void gd_progress_step(void *arg, int64_t done, int64_t total);
/* The partition is done: one more in partitions_done, phase idle. */
extern void gd_progress_end(void);

#endif							/* GPU_DBSCAN_PROGRESS_H */
