/*
 * aggregates.h — what the aggregates' final functions (aggregates.c) share
 * with their fast path (agg_scan.c).
 */
#ifndef GPU_DBSCAN_AGGREGATES_H
#define GPU_DBSCAN_AGGREGATES_H

#include "postgres.h"

#include "fmgr.h"

#include "params.h"
#include "rows.h"

/*
 * gpu_dbscan_params's result over rows: the parameters checked (fn names
 * the function), then for each eps one sweep over every minpoints, a row of
 * row_type (eps, minpoints, clusters, noise_fraction, largest_cluster) per
 * pair, eps-major; an array of them in the current memory context.
 */
extern Datum params_summary(const Rows *rows, const Params *params, const char *fn,
							Oid row_type);

/* PostGIS's st_collect(geometry[]) and st_forcecollection(geometry). */
typedef struct CollectFns
{
	Oid			geometry_type;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	FmgrInfo	collect;
	FmgrInfo	force_collection;
} CollectFns;

/* Looks them up for geometry_type, in cxt. */
extern void collect_fns_init(CollectFns *fns, Oid geometry_type, MemoryContext cxt);

/*
 * gpu_dbscan_collect's result from the ids of n rows: one
 * GEOMETRYCOLLECTION per cluster, in id order, of its rows' values
 * (value_of(arg, row), 0-based) in row order; noise left out; an error when
 * a cluster's geometries differ in dimensions.
 */
extern Datum collect_clusters(CollectFns *fns, const int32 *ids, int64 n,
							  Datum (*value_of) (void *arg, int64 row), void *arg);

#endif							/* GPU_DBSCAN_AGGREGATES_H */
