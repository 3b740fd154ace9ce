/*
 * aggregates.h — what the aggregates' final functions (aggregates.c) share
 * with their fast path (agg_scan.c).
 */
#ifndef GPU_DBSCAN_AGGREGATES_H
#define GPU_DBSCAN_AGGREGATES_H

#include "postgres.h"

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

#endif							/* GPU_DBSCAN_AGGREGATES_H */
