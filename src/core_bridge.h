/*
 * core_bridge.h — the one place where the PostgreSQL glue calls the C++/CUDA
 * core (core/gd_core.h): it fills gd_params from the GUCs, chooses the
 * back end, turns gd_error into ereport once the core has returned, and keeps
 * the statistics of the session's last clustering.
 *
 * gd_core.h refuses to be compiled after postgres.h (its guard keeps
 * PostgreSQL's headers away from the core), so files that include this
 * header include it before postgres.h.
 */
#ifndef GPU_DBSCAN_CORE_BRIDGE_H
#define GPU_DBSCAN_CORE_BRIDGE_H

#include "gd_core.h"
#include "gd_inscy.h"

/* Clusters a partition of points (row_kind POINT, EMPTY or NULL). */
extern void bridge_cluster_points(const double *x, const double *y,
								  const uint8_t *row_kind, int64_t nrows,
								  int64_t npoints, double eps, int64_t minpoints,
								  int32_t *cluster_ids);

/*
 * Clusters a partition of n-D points (coords: dims per row, see
 * gd_cluster_points_nd); dims >= 3 runs on the CPU whatever
 * gpu_dbscan.backend says.
 */
extern void bridge_cluster_points_nd(const double *coords, int dims,
									 const uint8_t *row_kind, int64_t nrows,
									 int64_t npoints, double eps, int64_t minpoints,
									 int32_t *cluster_ids);

/* Pairs of n-D points within eps, on the CPU; free with gd_pair_list_free. */
extern void bridge_neighbour_pairs_nd(const double *coords, int dims,
									  const uint8_t *row_kind, int64_t nrows,
									  double eps, gd_pair_list *out);

/*
 * Clusters a partition of points for each of nminpoints values at eps
 * (cluster_ids[k * nrows + r], gd_cluster_points_sweep) or, with one value,
 * with each row's gd_point_type in point_types when it is not NULL
 * (gd_cluster_points_typed); the back end is chosen as for
 * bridge_cluster_points (the core serves sweeps and point types on the CPU).
 */
extern void bridge_cluster_points_job(const double *x, const double *y,
									  const uint8_t *row_kind, int64_t nrows,
									  int64_t npoints, double eps,
									  const int64_t *minpoints, int64_t nminpoints,
									  int32_t *cluster_ids, uint8_t *point_types);

/* The same from an explicit neighbour graph; dirs as gd_cluster_graph_directed's. */
extern void bridge_cluster_graph_job(const uint8_t *row_kind, int64_t nrows,
									 const gd_pair *edges, const uint8_t *dirs,
									 int64_t nedges,
									 const int64_t *minpoints, int64_t nminpoints,
									 int32_t *cluster_ids, uint8_t *point_types);

/* Candidate pairs of non-point rows; free with gd_pair_list_free. */
extern void bridge_candidate_pairs(const gd_box *boxes, const uint8_t *row_kind,
								   int64_t nrows, double eps, gd_pair_list *out);

/* Clusters an explicit neighbour graph. */
extern void bridge_cluster_graph(const uint8_t *row_kind, int64_t nrows,
								 const gd_pair *edges, int64_t nedges,
								 int64_t minpoints, int32_t *cluster_ids);

/* Statistics of a non-point clustering, timed by the glue (seconds). */
extern void bridge_record_graph_run(int64_t nrows, int64_t ngeoms, double t_pairs,
									double t_exact, double t_graph, double t_total);

/*
 * Subspace clusters of n rows of d features (row-major) on the back end
 * gpu_dbscan.backend chooses; out is the core's: free it with
 * gd_inscy_result_free.
 */
extern void bridge_inscy(const double *rows, int64_t n, int d,
						 const gd_inscy_params *inscy, gd_inscy_result *out);

#endif							/* GPU_DBSCAN_CORE_BRIDGE_H */
