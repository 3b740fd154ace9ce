/*
 * gpu_worker.h — the GPU worker: a background worker that owns the CUDA
 * context, so that no backend pays for starting CUDA (gpu_worker.c).
 */
#ifndef GPU_DBSCAN_GPU_WORKER_H
#define GPU_DBSCAN_GPU_WORKER_H

#include "core_call.h"

#include "storage/dsm.h"

/*
 * When the module is being preloaded (shared_preload_libraries): defines
 * gpu_dbscan.gpu_worker and, when it is on, registers the worker and its
 * shared memory.  Otherwise nothing.  Called from _PG_init; never touches
 * CUDA.
 */
extern void gd_gpu_worker_init(void);

/*
 * Whether this backend hands its GPU runs to the worker: the module was
 * preloaded with gpu_dbscan.gpu_worker on, and the worker has started and
 * answered whether device `device` is usable (waits for that answer a few
 * seconds after a server start).  When it returns true, *usable says
 * whether the GPU can be used and why not in why (size whylen).
 */
extern bool gd_gpu_worker_active(int device, bool *usable, char *why, size_t whylen);

/*
 * Runs c's job (ids, point types or a sweep, 2D or n-D) on the worker's
 * GPU, as core_points_run does (params as filled for the in-process call;
 * its callbacks are not used: cancels are this backend's interrupts, passed
 * on to the worker).  Returns false, having done nothing, when the worker
 * cannot take the job (no free request slot, no shared memory for the
 * arrays): the caller runs it in-process.  Otherwise *status is the run's:
 * GD_ERR_DEVICE with a message when the worker stopped during the run.
 * Cancels raise their error here once the request is withdrawn.
 */
extern bool gd_gpu_worker_cluster(const PointsCall *c, const gd_params *params,
								  gd_run_stats *stats, gd_error *err, gd_status *status);

/*
 * Lets the worker read and write seg's memory in place: a request whose
 * arrays lie in it (whole) names them there instead of copying them
 * (forgotten when seg is detached).  False when the module was not
 * preloaded, or too many segments are shared already.
 */
extern bool gd_gpu_worker_share(dsm_segment *seg);

/*
 * bytes of fresh memory in a new DSM segment shared with the worker
 * (*seg: detach it to free them); NULL (and *seg NULL) when the module was
 * not preloaded or no segment can be made: the caller allocates elsewhere.
 */
extern void *gd_gpu_worker_alloc(Size bytes, dsm_segment **seg);

/*
 * gd_gpu_worker_alloc's memory, given back when cxt is reset or deleted;
 * NULL likewise.
 */
extern void *gd_gpu_worker_alloc_in(MemoryContext cxt, Size bytes);

/*
 * What this backend's requests to the worker have cost so far (ms): the
 * rows copied into the request's shared memory (in), the wait for the
 * answer (wait, of which the core's own run took core), the ids copied
 * out and the memory given back (out).  EXPLAIN ANALYZE of the fast paths
 * shows a statement's share (the difference across it).
 */
typedef struct GpuHandoff
{
	int64		requests;
	int64		in_place;		/* requests whose arrays were all shared, no copy */
	double		in_ms;
	double		wait_ms;
	double		core_ms;
	double		out_ms;
} GpuHandoff;

extern void gd_gpu_worker_handoff(GpuHandoff *totals);

#endif							/* GPU_DBSCAN_GPU_WORKER_H */
