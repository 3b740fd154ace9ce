/*
 * gd_core.h — the C API of the gpu_dbscan clustering core.
 *
 * The core is C++ (and CUDA) with no PostgreSQL header.  This header is the
 * only thing the PostgreSQL glue in src/ includes from it.  Every entry point
 * catches every exception and reports through gd_error, so no C++ exception
 * ever reaches a PostgreSQL frame, and the core never calls back into the
 * backend (cancellation is a poll of a flag through should_cancel).
 *
 * Semantics are those of PostGIS ST_ClusterDBSCAN (see README.md):
 *   - rows are clustered in their partition order (row index 0..nrows-1);
 *   - p finds q when q lies in p's query box [px - eps, px + eps] x
 *     [py - eps, py + eps] (bounds rounded in double, inclusive) and
 *     sqrt(dx*dx + dy*dy) <= eps in IEEE double (no fused multiply-add);
 *     a point finds itself; at the last bit p may find q but not the
 *     reverse (core/rules/neighbour.hpp, within());
 *   - core: finds at least minpoints points; two core points are joined
 *     when the later row finds the earlier one, and every point joins its
 *     first claimer (the smallest-row core point that finds it); a border
 *     point is in its claimer's cluster; everything else is noise;
 *   - minpoints <= 1: every non-NULL row is clustered (an EMPTY row alone),
 *     two points joined when either finds the other;
 *   - ids are 0..k-1, numbered by each cluster's first row; noise and NULL
 *     rows get GD_NOISE.
 */
#ifndef GD_CORE_H
#define GD_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cluster id of a row that is noise, NULL, or an EMPTY geometry with minpoints >= 2 */
#define GD_NOISE (-1)

typedef enum gd_status
{
	GD_OK = 0,
	GD_ERR_INVALID,				/* bad argument: message says which */
	GD_ERR_NOMEM,				/* host allocation failed */
	GD_ERR_CANCELLED,			/* should_cancel returned nonzero */
	GD_ERR_NO_DEVICE,			/* GPU asked for but none usable */
	GD_ERR_DEVICE,				/* CUDA driver/runtime error */
	GD_ERR_DEVICE_NOMEM,		/* device out of memory even at the smallest batch */
	GD_ERR_INTERNAL				/* a bug: message has the details */
} gd_status;

typedef struct gd_error
{
	gd_status	status;
	char		message[512];
} gd_error;

/* What each row of a partition holds. */
typedef enum gd_row_kind
{
	GD_ROW_POINT = 0,			/* a non-empty point: x[i], y[i] are its coordinates */
	GD_ROW_EMPTY = 1,			/* an EMPTY geometry: never anyone's neighbour */
	GD_ROW_NULL = 2,			/* a NULL geometry: always GD_NOISE */
	GD_ROW_OTHER = 3			/* non-point geometry: only for gd_cluster_graph */
} gd_row_kind;

typedef enum gd_backend
{
	GD_BACKEND_CPU = 0,
	GD_BACKEND_GPU = 1
} gd_backend;

/* Seconds spent in each phase of the last call, for gpu_dbscan_last_run(). */
typedef struct gd_run_stats
{
	gd_backend	backend;		/* the backend that produced the answer */
	int64_t		points;			/* non-empty points clustered */
	int64_t		cells;			/* non-empty grid cells */
	int64_t		batches;		/* neighbour-search batches (GPU) */
	int64_t		strips;			/* strips of a run larger than the device budget (GPU; 0: one piece) */
	double		t_transfer;		/* host<->device copies */
	double		t_sort;			/* cell keys, sort, cell ranges */
	double		t_core;			/* core flags */
	double		t_union;		/* union-find over core pairs */
	double		t_label;		/* border assignment and ids */
	double		t_total;
	int32_t		device;			/* GPU: the device of a one-device run, the first of a split */
	int32_t		devices;		/* GPU: logical devices the run was split over (1: one device) */
} gd_run_stats;

typedef struct gd_params
{
	double		eps;			/* >= 0, not NaN; +Infinity allowed */
	int64_t		minpoints;		/* >= 0 */
	gd_backend	backend;
	int			threads;		/* most CPU threads; 0 = all cores */
	int			device;			/* CUDA device ordinal for GD_BACKEND_GPU */
	size_t		device_memory_budget;	/* bytes the GPU path may hold; 0 = default */

	/*
	 * Polled from the calling thread and worker threads; nonzero stops the
	 * work and makes the call return GD_ERR_CANCELLED.  It must only read
	 * flags (it runs on threads the backend does not know about).
	 */
	int			(*should_cancel) (void *arg);
	void	   *cancel_arg;

	/*
	 * Told how far a run split into steps has come (done of total: strip k
	 * of n on the GPU's out-of-core path), from the calling thread only; it
	 * must only store (no allocation, no error).  NULL: nobody is told.
	 */
	void		(*report_step) (void *arg, int64_t done, int64_t total);
	void	   *report_arg;

	/*
	 * Threads follow the work: a phase over n items runs on at most
	 * max(1, n / min_items_per_thread) threads (and at most threads).  0
	 * means the measured default (GD_MIN_ITEMS_PER_THREAD); the tests set 1
	 * to run small inputs on several threads.
	 */
	int64_t		min_items_per_thread;

	/*
	 * Several GPUs (gpu_dbscan.devices): a partition of at least
	 * split_min_points points (0: one too large for one device's budget in
	 * one piece) is cut into x-strips with exact halos, the strips run
	 * concurrently on devices[0..ndevices), one host thread each, and one
	 * host merge joins them (the ids are those of one device).  An ordinal
	 * may repeat: each entry is a logical device with its own streams and
	 * an equal share of that GPU's budget.  ndevices 0 (devices NULL): the
	 * one device `device`; GD_DEVICES_ALL: every visible device.  Smaller
	 * partitions run on `device` alone.  Every ordinal must exist
	 * (GD_ERR_NO_DEVICE otherwise), even when the partition is not split.
	 */
	const int  *devices;
	int			ndevices;
	int64_t		split_min_points;

	/*
	 * The most pairs a pair search (gd_candidate_pairs,
	 * gd_neighbour_pairs_nd[_band]) may list: more is GD_ERR_NOMEM, counted
	 * before anything is allocated.  0: as many as half the physical memory
	 * holds (a larger value is held to that too).
	 */
	int64_t		max_pairs;
} gd_params;

/* gd_params.ndevices: every device the CUDA runtime sees. */
#define GD_DEVICES_ALL (-1)
/* Most entries of a device list. */
#define GD_MAX_DEVICES 64
/* Largest device ordinal a list may name (gpu_dbscan.device's range). */
#define GD_MAX_DEVICE_ORDINAL 1023

/*
 * Parses a device list (gpu_dbscan.devices): "all" (every visible device:
 * *count = GD_DEVICES_ALL), "" (none: *count = 0, gd_params.device alone), or
 * ordinals separated by commas ("0,1", "0, 0"), each 0..GD_MAX_DEVICE_ORDINAL,
 * at most GD_MAX_DEVICES, repeats allowed.  Spaces around items and any
 * case of "all" are accepted.  Syntax only: whether the devices exist is
 * known at run time.  ordinals needs room for GD_MAX_DEVICES.
 */
gd_status	gd_parse_devices(const char *text, int *ordinals, int *count, gd_error *err);

/* CUDA devices visible to this process (0 without a driver or CUDA build). */
int			gd_gpu_device_count(void);

/*
 * Items each extra CPU thread needs before it pays for itself: measured with
 * gd_bench --thread-steps on 16 hardware threads (docs/reliability.md), where
 * 2 threads first beat one at 4k points, 4 at 8k, 8 at 64k, 16 at 1M; 8192
 * loses the least time over 40 to 1M points.
 */
#define GD_MIN_ITEMS_PER_THREAD 8192

/* Fills *params with defaults (CPU, all cores). */
void		gd_params_init(gd_params *params);

/*
 * Clusters one partition of points.  row_kind[i] is GD_ROW_POINT, _EMPTY or
 * _NULL; x[i], y[i] are read only for points and must be finite.  Writes one
 * id per row to cluster_ids.  stats may be NULL.
 */
gd_status	gd_cluster_points(const double *x, const double *y,
							  const uint8_t *row_kind, int64_t nrows,
							  const gd_params *params,
							  int32_t *cluster_ids,
							  gd_run_stats *stats, gd_error *err);

/* An axis-aligned box; a point is a box with min == max. */
typedef struct gd_box
{
	double		xmin,
				ymin,
				xmax,
				ymax;
} gd_box;

/* A neighbour pair of row indexes, i < j. */
typedef struct gd_pair
{
	uint32_t	i,
				j;
} gd_pair;

typedef struct gd_pair_list
{
	gd_pair    *pairs;			/* owned by the core: free with gd_pair_list_free */
	int64_t		count;
	int64_t		charged;		/* bytes charged to the memory ledger for it */
} gd_pair_list;

/*
 * Candidate pairs for non-point geometries: every i < j, both rows
 * GD_ROW_POINT or GD_ROW_OTHER, whose boxes are within eps of each other
 * (|gap| <= eps on both axes, inclusive).  The exact test is the caller's.
 * The search runs on params->backend (GD_BACKEND_GPU: the same box tree
 * queried on the device; the same pairs in another order).  On an error
 * *out is empty.
 */
gd_status	gd_candidate_pairs(const gd_box *boxes, const uint8_t *row_kind,
							   int64_t nrows, double eps, const gd_params *params,
							   gd_pair_list *out, gd_error *err);
void		gd_pair_list_free(gd_pair_list *list);

/*
 * Clusters from an explicit neighbour graph: edges are the pairs that are
 * within eps (each unordered pair once, no self pairs; every GD_ROW_POINT and
 * GD_ROW_OTHER row is implicitly its own neighbour).  Same rules and ids as
 * gd_cluster_points.
 */
gd_status	gd_cluster_graph(const uint8_t *row_kind, int64_t nrows,
							 const gd_pair *edges, int64_t nedges,
							 int64_t minpoints, int32_t *cluster_ids,
							 gd_error *err);

/*
 * Directed neighbour graph: the same as gd_cluster_graph(_typed), with
 * dirs[k] telling which end of edges[k] finds the other when it searches
 * (PostGIS's query box of a row, its box grown by eps, holds the other
 * row's box; the distance test itself is symmetric):
 * GD_EDGE_I_SEES_J (edges[k].j is in edges[k].i's query box),
 * GD_EDGE_J_SEES_I, or both (GD_EDGE_BOTH); dirs NULL means both for every
 * edge (gd_cluster_graph_typed).  The rules are gd_cluster_points': core by
 * the row's own view; core rows joined by the later row's view, and every
 * row joined to its first claimer (the smallest core row that sees it); a
 * non-core row takes its first claimer's cluster; minpoints <= 1: either
 * direction joins.
 */
#define GD_EDGE_I_SEES_J 1
#define GD_EDGE_J_SEES_I 2
#define GD_EDGE_BOTH 3

gd_status	gd_cluster_graph_directed(const uint8_t *row_kind, int64_t nrows,
									  const gd_pair *edges, const uint8_t *dirs,
									  int64_t nedges, int64_t minpoints,
									  int32_t *cluster_ids, uint8_t *point_types,
									  gd_error *err);

/*
 * Points of 2 to 8 dimensions (POINT Z rows, float8[] rows, geography as
 * unit-sphere xyz).  coords is row-major: row r's point is
 * coords[r * dims .. r * dims + dims), read only for GD_ROW_POINT rows and
 * finite there.  q is a neighbour of p when |q_k - p_k| <= eps on every axis
 * and sqrt(d_0*d_0 + d_1*d_1 + ...) <= eps, the squares summed in axis order
 * in IEEE double (no fused multiply-add): a symmetric relation.  Same rules
 * and ids as gd_cluster_points.  dims == 2 is gd_cluster_points itself, with
 * its relation (PostGIS's rounded query box, seen from the searching row);
 * the two differ only where a query box rounds across a point.
 *
 * Back ends: where params->backend says, for every dims (3 to 8 on the
 * device: cuda/nd_dbscan.cu); stats->backend reports the one that ran.
 */
#define GD_ND_MIN_DIMS 2
#define GD_ND_MAX_DIMS 8

gd_status	gd_cluster_points_nd(const double *coords, int dims,
								 const uint8_t *row_kind, int64_t nrows,
								 const gd_params *params, int32_t *cluster_ids,
								 gd_run_stats *stats, gd_error *err);

/*
 * gd_cluster_points_nd, and when point_types is not NULL one gd_point_type
 * per row in it (as gd_cluster_points_typed).
 */
gd_status	gd_cluster_points_nd_typed(const double *coords, int dims,
									   const uint8_t *row_kind, int64_t nrows,
									   const gd_params *params, int32_t *cluster_ids,
									   uint8_t *point_types, gd_run_stats *stats,
									   gd_error *err);

/*
 * gd_cluster_points_sweep for n-D points (coords and dims as
 * gd_cluster_points_nd): row r's id for minpoints[k] goes to
 * cluster_ids[k * nrows + r], exactly gd_cluster_points_nd's id at that
 * minpoints.  dims == 2 is gd_cluster_points_sweep.  On the GPU one device
 * run per distinct value; on the CPU one neighbour-pair list and a pass over
 * it per value, or, where the pairs would be too many (dense data), one
 * clustering per value on one grid.
 */
gd_status	gd_cluster_points_nd_sweep(const double *coords, int dims,
									   const uint8_t *row_kind, int64_t nrows,
									   const gd_params *params,
									   const int64_t *minpoints, int64_t nminpoints,
									   int32_t *cluster_ids, gd_run_stats *stats,
									   gd_error *err);

/* The same with the CPU's way chosen (the tests run both on one input). */
#define GD_ND_SWEEP_AUTO 0
#define GD_ND_SWEEP_PAIRS 1
#define GD_ND_SWEEP_LEVELS 2
gd_status	gd_cluster_points_nd_sweep_by(const double *coords, int dims,
										  const uint8_t *row_kind, int64_t nrows,
										  const gd_params *params,
										  const int64_t *minpoints, int64_t nminpoints,
										  int32_t *cluster_ids, gd_run_stats *stats,
										  gd_error *err, int path);

/*
 * Every pair of GD_ROW_POINT rows i < j that are neighbours at eps under the
 * n-D predicate of gd_cluster_points_nd (coords and dims as there), on
 * params->backend (GD_BACKEND_GPU: searched on the device's grid, 3 to 8
 * dimensions; the same pairs in another order); params may be NULL (the CPU,
 * all cores).  The geography path asks for the pairs within a widened chord
 * and decides each one exactly itself.  On an error *out is empty.
 */
gd_status	gd_neighbour_pairs_nd(const double *coords, int dims,
								  const uint8_t *row_kind, int64_t nrows,
								  double eps, const gd_params *params,
								  gd_pair_list *out, gd_error *err);

/*
 * The same pairs less those that are neighbours at inner too (inner >= 0;
 * a negative inner excludes none): the pairs in the band between the two
 * thresholds, by the same predicate at each.
 */
gd_status	gd_neighbour_pairs_nd_band(const double *coords, int dims,
									   const uint8_t *row_kind, int64_t nrows,
									   double inner, double eps,
									   const gd_params *params, gd_pair_list *out,
									   gd_error *err);

/*
 * The distance half of the 2D neighbour test, sqrt(dx*dx + dy*dy) <= eps in
 * IEEE double (no fused multiply-add), symmetric: 1 or 0.  The query-box
 * half is the caller's (for non-point rows it is PostGIS's envelope test).
 * The one definition is core/rules/neighbour.hpp; never fails.
 */
int			gd_within_distance(double px, double py, double qx, double qy, double eps);

/*
 * The whole 2D neighbour test of PostGIS for 2D geometry, p searching: q in
 * p's rounded query box and within the distance (one-sided at the last bit:
 * core/rules/neighbour.hpp says why): 1 or 0; never fails.
 */
int			gd_within(double px, double py, double qx, double qy, double eps);

/* GPU availability: 1 when a CUDA device can be used, else 0 and a reason. */
int			gd_gpu_available(int device, gd_error *why);

/* 1 when the library was built with the CUDA backend. */
int			gd_built_with_cuda(void);

/* The machine's hardware threads (at least 1): what threads = 0 means. */
int			gd_hardware_threads(void);

/*
 * ---- Point types and minpoints sweeps (the aggregates, gpu_dbscan_point_type,
 * gpu_dbscan_sweep, gpu_dbscan_params) ----
 *
 * gd_cluster_points_typed and gd_cluster_points_sweep run where
 * params->backend says: with GD_BACKEND_GPU point types come from the
 * device's core flags and a sweep from one neighbour count on the device
 * (cuda/sweep.cu), and stats->backend is GD_BACKEND_GPU.  The graph forms
 * run on the CPU.  Ids are always those of gd_cluster_points /
 * gd_cluster_graph, and point types the same on either back end.
 */

/* What DBSCAN made of a row. */
typedef enum gd_point_type
{
	GD_POINT_NOISE = 0,			/* noise, NULL, or EMPTY with minpoints >= 2 */
	GD_POINT_BORDER = 1,		/* not core, in the cluster of a core neighbour */
	GD_POINT_CORE = 2			/* at least minpoints neighbours (an EMPTY row
								 * that is a cluster of its own, minpoints <= 1) */
} gd_point_type;

/*
 * gd_cluster_points, and when point_types is not NULL one gd_point_type per
 * row in it.  gd_cluster_points is this with point_types NULL.
 */
gd_status	gd_cluster_points_typed(const double *x, const double *y,
									const uint8_t *row_kind, int64_t nrows,
									const gd_params *params,
									int32_t *cluster_ids, uint8_t *point_types,
									gd_run_stats *stats, gd_error *err);

/* gd_cluster_graph with the same optional point_types. */
gd_status	gd_cluster_graph_typed(const uint8_t *row_kind, int64_t nrows,
								   const gd_pair *edges, int64_t nedges,
								   int64_t minpoints, int32_t *cluster_ids,
								   uint8_t *point_types, gd_error *err);

/*
 * One clustering per value of minpoints[0..nminpoints) at params->eps, from
 * one neighbour search (params->minpoints is not used): row r's id for
 * minpoints[k] goes to cluster_ids[k * nrows + r], exactly the id
 * gd_cluster_points gives with that minpoints.  Values may repeat and come
 * in any order; at most 65535 distinct values.
 */
gd_status	gd_cluster_points_sweep(const double *x, const double *y,
									const uint8_t *row_kind, int64_t nrows,
									const gd_params *params,
									const int64_t *minpoints, int64_t nminpoints,
									int32_t *cluster_ids,
									gd_run_stats *stats, gd_error *err);

/* The same over an explicit neighbour graph (ids as gd_cluster_graph's). */
gd_status	gd_cluster_graph_sweep(const uint8_t *row_kind, int64_t nrows,
								   const gd_pair *edges, int64_t nedges,
								   const int64_t *minpoints, int64_t nminpoints,
								   int32_t *cluster_ids, gd_error *err);

/* gd_cluster_graph_sweep over a directed graph (dirs as gd_cluster_graph_directed). */
gd_status	gd_cluster_graph_directed_sweep(const uint8_t *row_kind, int64_t nrows,
											const gd_pair *edges, const uint8_t *dirs,
											int64_t nedges, const int64_t *minpoints,
											int64_t nminpoints, int32_t *cluster_ids,
											gd_error *err);

/*
 * The host memory ledger (core/memory_ledger.hpp): every large
 * allocation of the core, and those of the caller it is told of, are
 * charged against two limits: query_limit, what this process may hold at
 * once, and total_limit, what all processes sharing *total_used may hold
 * together (0: no limit).  total_used, when not NULL, is a counter in
 * memory shared by those processes, updated with atomic operations; mine,
 * when not NULL, this process's share of it (so that the share of a
 * process that died can be taken back).  Set between calls, never during
 * one.  A charge past a limit fails with GD_ERR_NOMEM naming the setting.
 */
typedef struct gd_memory_limits
{
	int64_t		query_limit;
	int64_t		total_limit;
	int64_t    *total_used;
	int64_t    *mine;
} gd_memory_limits;

void		gd_memory_configure(const gd_memory_limits *limits);
gd_status	gd_memory_charge(int64_t bytes, const char *what, gd_error *err);
void		gd_memory_refund(int64_t bytes);
int64_t		gd_memory_held(void);

#ifdef __cplusplus
}
#endif

#endif							/* GD_CORE_H */
