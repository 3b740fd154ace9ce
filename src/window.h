/*
 * window.h — the one per-partition skeleton of every window function: at
 * the partition's first row it reads eps and minpoints (params.c) and every
 * row into a Rows container (rows.c), runs the form's ClusterJob
 * (cluster.c), and keeps the answer in partition-local memory; every row
 * then returns its own.
 */
#ifndef GPU_DBSCAN_WINDOW_H
#define GPU_DBSCAN_WINDOW_H

#include "postgres.h"

#include "fmgr.h"

/* What a window function returns for each row. */
typedef enum WindowForm
{
	WINDOW_IDS,					/* int: the cluster id, NULL for noise */
	WINDOW_POINT_TYPE,			/* text: core, border or noise */
	WINDOW_SWEEP,				/* int[]: the id for every minpoints value */
	WINDOW_READ_FLOOR,			/* int 0: the rows read, nothing clustered */
	WINDOW_ID_CORE				/* bigint: 2 * id + 1 for a core row, 2 * id for a
								 * border row, NULL for noise (dist_window.c) */
} WindowForm;

/*
 * The body of every window function: form over the first argument's input
 * kind (geometry, geography or float8[]; POINT Z geometry when point_z).
 */
extern Datum window_function(FunctionCallInfo fcinfo, WindowForm form, bool point_z);

/*
 * What the window function and the fast path (window_scan.c) return for a
 * row: a gd_point_type's text ('core', 'border', 'noise'; NULL for any
 * other, a NULL row); a sweep's int[] of ids[k * stride] for its nvalues
 * values (NULL elements for noise), in cxt.
 */
extern const char *window_point_type_name(uint8 type);
extern Datum window_sweep_array(const int32 *ids, int64 stride, int nvalues, MemoryContext cxt);

#endif							/* GPU_DBSCAN_WINDOW_H */
