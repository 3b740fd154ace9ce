/*
 * window_common.h — what the window functions of this extension share:
 * eps and minpoints read from the partition's first row with
 * ST_ClusterDBSCAN's checks, the partition's row count, and the shape of a
 * clustering window function (cluster the whole partition at its first
 * row, keep one id per row, return the current row's id).
 */
#ifndef GPU_DBSCAN_WINDOW_COMMON_H
#define GPU_DBSCAN_WINDOW_COMMON_H

#include "fmgr.h"
#include "windowapi.h"

/* What a window function keeps for its partition, in partition-local memory. */
typedef struct PartitionResult
{
	bool		done;
	int64		nrows;
	int32	   *ids;			/* huge allocation in the partition's context; -1 = NULL */
} PartitionResult;

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

/* The partition's row count, checked against what the window API can address. */
extern int64 window_partition_rows(WindowObject win);

/*
 * The body of a clustering window function: clusters the partition with
 * cluster() at its first call and returns the current row's id (NULL for
 * -1).
 */
extern Datum window_cluster_id(FunctionCallInfo fcinfo, WindowClusterFn cluster);

#endif							/* GPU_DBSCAN_WINDOW_COMMON_H */
