/*
 * core_call.h — the one place where the PostgreSQL glue calls the C++/CUDA
 * core (core/gd_core.h): it fills gd_params from the GUCs, chooses the back
 * end, takes a GPU slot, retries a failed GPU run on the CPU, turns gd_error
 * into ereport once the core has returned, and records the run for
 * gpu_dbscan_last_run().
 */
#ifndef GPU_DBSCAN_CORE_CALL_H
#define GPU_DBSCAN_CORE_CALL_H

#include "gd_core.h"
#include "gd_inscy.h"

/*
 * What to compute for a set of rows: the ids for each of nminpoints values
 * at one eps (value k's ids at ids[k * nrows], GD_NOISE for noise and NULL),
 * and, when types is not NULL (then nminpoints is 1), each row's
 * gd_point_type.
 */
typedef struct ClusterJob
{
	double		eps;
	const int64_t *minpoints;
	int64_t		nminpoints;
	int32_t    *ids;
	uint8_t    *types;
} ClusterJob;

/*
 * Points and the job to run on them: 2D (x and y; coords NULL, dims 2) or
 * n-D (coords, dims per row; x and y NULL).  The GPU worker receives the
 * same (gpu_worker.c).
 */
typedef struct PointsCall
{
	const double *x;
	const double *y;
	const double *coords;
	int			dims;
	const uint8_t *row_kind;
	int64_t		nrows;
	const ClusterJob *job;
} PointsCall;

/*
 * The core's entry point for c (ids, point types or a sweep, 2D or n-D)
 * with params (params->minpoints: the job's first value); returns the
 * core's status and raises nothing.  The one dispatch of a points job,
 * in a backend and in the GPU worker.
 */
extern gd_status core_points_run(const PointsCall *c, const gd_params *params,
								 gd_run_stats *stats, gd_error *err);

/*
 * Whether point clusterings of this backend may go to the GPU worker
 * (gpu_worker.h): the module preloaded with its worker, a usable GPU, and
 * gpu_dbscan.backend not cpu.  A caller that will cluster many rows then
 * keeps them in memory shared with the worker (gd_gpu_worker_alloc), which
 * reads them in place.
 */
extern bool core_gpu_worker_serves(void);

/*
 * Whether gpu_dbscan.backend sends a run of nrows rows to the GPU (no slot
 * taken: a hint for a caller choosing between ways to cluster).
 */
extern bool core_prefers_gpu(int64_t nrows);

/*
 * Runs job on 2D points (row_kind POINT, EMPTY or NULL); the back end is
 * gpu_dbscan.backend's choice when may_use_gpu, else the CPU.  The GPU
 * serves ids, point types and sweeps alike.
 */
extern void core_cluster_points(const double *x, const double *y, const uint8_t *row_kind,
								int64_t nrows, int64_t npoints, const ClusterJob *job,
								bool may_use_gpu);

/*
 * Runs job (ids, point types or a sweep) on n-D points (coords: dims per
 * row, dims >= 3) on the back end gpu_dbscan.backend chooses.
 */
extern void core_cluster_points_nd(const double *coords, int dims, const uint8_t *row_kind,
								   int64_t nrows, int64_t npoints, const ClusterJob *job);

/*
 * Pairs of n-D points within eps and, with inner >= 0, not within inner
 * (gd_neighbour_pairs_nd_band), searched on the back end gpu_dbscan.backend
 * chooses (the exact test and the graph stay on the CPU); free with
 * gd_pair_list_free.  With max_pairs > 0, a list that would be longer (or
 * that memory cannot hold) is no error: false, and out is empty.
 */
extern bool core_neighbour_pairs_nd(const double *coords, int dims, const uint8_t *row_kind,
									int64_t nrows, double inner, double eps, int64_t max_pairs,
									gd_pair_list *out);

/* Candidate pairs of 2D geometry rows from their boxes, likewise. */
extern void core_candidate_pairs(const gd_box *boxes, const uint8_t *row_kind, int64_t nrows,
								 double eps, gd_pair_list *out);

/* Runs job on an explicit neighbour graph; dirs as gd_cluster_graph_directed's (NULL: both). */
extern void core_cluster_graph(const uint8_t *row_kind, int64_t nrows, const gd_pair *edges,
							   const uint8_t *dirs, int64_t nedges, const ClusterJob *job);

/*
 * Records a clustering from pairs, timed by the glue (seconds), for
 * gpu_dbscan_last_run(): its back end is the pair search's.
 */
extern void core_record_pairs_run(int64_t nrows, int64_t npoints, double t_pairs,
								  double t_exact, double t_graph, double t_total);

/*
 * Subspace clusters of n rows of d features (row-major) on the back end
 * gpu_dbscan.backend chooses; out is the core's: free it with
 * gd_inscy_result_free.
 */
extern void core_inscy(const double *rows, int64_t n, int d,
					   const gd_inscy_params *inscy, gd_inscy_result *out);

#endif							/* GPU_DBSCAN_CORE_CALL_H */
