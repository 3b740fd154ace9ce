/*
 * window_common.h — what the window functions of this extension share:
 * eps and minpoints read from the partition's first row with
 * ST_ClusterDBSCAN's checks, the partition's row count, and the shape of a
 * clustering window function (cluster the whole partition at its first
 * row, keep one id per row, return the current row's id), and clustering
 * from candidate pairs with an exact test.
 *
 * Uses gd_core.h's types: include gd_core.h before postgres.h (see
 * core_bridge.h), then this header.
 */
#ifndef GPU_DBSCAN_WINDOW_COMMON_H
#define GPU_DBSCAN_WINDOW_COMMON_H

#include "fmgr.h"
#include "portability/instr_time.h"
#include "windowapi.h"

/* What a window function keeps for its partition, in partition-local memory. */
typedef struct PartitionResult
{
	bool		done;
	int64		nrows;
	int32	   *ids;			/* huge allocation in the partition's context; -1 = NULL */
} PartitionResult;

/*
 * A partition of at most this many rows is read and clustered in the memory
 * context the window function is called in (the executor's per-row context,
 * reset once the call returns), not in contexts of its own: creating and
 * deleting a context costs as much as clustering a few points, and what a
 * few rows leave behind is small.
 */
#define WINDOW_SMALL_PARTITION_ROWS 64

/*
 * Clusters the partition's nrows rows into ids[0..nrows) (-1 for NULL and
 * noise); called once per partition, in a short-lived memory context.
 */
typedef void (*WindowClusterFn) (FunctionCallInfo fcinfo, WindowObject win,
								 int64 nrows, int32 *ids);

/*
 * eps and minpoints from the partition's first row, checked as
 * ST_ClusterDBSCAN checks them (same messages), plus NaN eps.
 */
extern void window_read_parameters(WindowObject win, double *eps, int32 *minpoints);

/*
 * The checks of window_read_parameters one at a time, for the functions that
 * take their parameters otherwise (the aggregates, arrays of values), in
 * this order: eps NULL or negative ("Tolerance must be a positive number"),
 * minpoints NULL or negative ("Minpoints must be a positive number"), eps
 * NaN ("Tolerance must be a number, not NaN").
 */
extern void param_check_eps(double eps, bool isnull);
extern void param_check_minpoints(int64 minpoints, bool isnull);
extern void param_check_eps_number(double eps);

/*
 * A parameter array (what: "minpoints", "eps") of fn must be one-dimensional:
 * an error for ndim > 1 (its elements would otherwise be read flattened).
 */
extern void param_check_one_dimensional(int ndim, const char *fn, const char *what);

/*
 * What to compute for a set of rows: the ids for each of nminpoints values
 * at one eps (value k's ids at ids[k * nrows], -1 for noise and NULL), and,
 * when types is not NULL (then nminpoints is 1), each row's gd_point_type.
 */
typedef struct ClusterJob
{
	double		eps;
	const int64 *minpoints;
	int			nminpoints;
	int32	   *ids;
	uint8	   *types;
} ClusterJob;

/* The partition's row count, checked against what the window API can address. */
extern int64 window_partition_rows(WindowObject win);

/*
 * The body of a clustering window function: clusters the partition with
 * cluster() at its first call and returns the current row's id (NULL for
 * -1).
 */
extern Datum window_cluster_id(FunctionCallInfo fcinfo, WindowClusterFn cluster);

/* The SRID every non-NULL row of a partition must share. */
typedef struct SridCheck
{
	bool		have;			/* a row has been seen */
	int32		srid;
	int64		row;			/* the first row (0-based) */
} SridCheck;

/* Records row's SRID; an error when it differs from an earlier row's. */
extern void window_check_srid(SridCheck *check, int32 srid, int64 row);

/*
 * An error about row (0-based) of the partition: SQLSTATE sqlerrcode, the
 * message, "Row N of the window partition." and a hint (NULL for none).
 */
extern void window_row_error(int64 row, int sqlerrcode, const char *message,
							 const char *hint) pg_attribute_noreturn();

/* The error for a NaN or infinite coordinate in row (0-based). */
extern void window_error_nonfinite(int64 row) pg_attribute_noreturn();

/*
 * The error for a malformed geometry in row (0-based): one PostGIS's
 * distance functions crash on (GeomInfo.malformed says what is wrong).
 */
extern void window_error_malformed(int64 row, const char *what) pg_attribute_noreturn();

/*
 * Calls read_row(arg, row, value, isnull) for the window function's first
 * argument in every row of the partition, in order, in a memory context
 * that is reset after each row (argument evaluation and detoasting happen
 * there; read_row keeps nothing it allocates), with a check for interrupts
 * every few thousand rows (a partition of at most
 * WINDOW_SMALL_PARTITION_ROWS rows is read in the current context).
 */
typedef void (*WindowRowFn) (void *arg, int64 row, Datum value, bool isnull);
extern void window_read_rows(WindowObject win, int64 nrows, WindowRowFn read_row, void *arg);

/* Seconds since start. */
extern double window_seconds_since(instr_time start);

/*
 * Whether a candidate pair (rows i < j) is a pair of neighbours, and in
 * which direction: 0 when not, else GD_EDGE_I_SEES_J (j is found when i
 * searches: j's box meets i's query box), GD_EDGE_J_SEES_I, or both
 * (GD_EDGE_BOTH, for a symmetric relation).  Runs in a memory context that
 * is reset every so often, and may raise an error.
 */
typedef uint8 (*PairTestFn) (void *arg, gd_pair pair);

/*
 * The second half of clustering from candidate pairs: keeps the pairs of
 * list (from the core, malloc'ed) that test accepts, clusters the graph they
 * make with their directions (gd_cluster_graph_directed), and records the run for gpu_dbscan_last_run()
 * (ngeoms clustered rows; start is when the candidate search began).  list
 * is freed whatever happens.
 */
extern void window_cluster_pairs(gd_pair_list *list, PairTestFn test, void *arg,
								 const uint8 *kind, int64 nrows, int64 ngeoms,
								 int64 minpoints, int32 *ids, instr_time start);

/* window_cluster_pairs for a ClusterJob (a sweep, or with point types). */
extern void window_cluster_pairs_job(gd_pair_list *list, PairTestFn test, void *arg,
									 const uint8 *kind, int64 nrows, int64 ngeoms,
									 const ClusterJob *job, instr_time start);

#endif							/* GPU_DBSCAN_WINDOW_COMMON_H */
