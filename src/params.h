/*
 * params.h — eps and minpoints: read from a window partition's first row
 * or an aggregate's first row, checked with ST_ClusterDBSCAN's messages.
 */
#ifndef GPU_DBSCAN_PARAMS_H
#define GPU_DBSCAN_PARAMS_H

#include "postgres.h"

#include "fmgr.h"
#include "windowapi.h"

/*
 * eps and minpoints as given: one value each, or arrays of them (sweeps,
 * gpu_dbscan_params); a NULL array is one NULL element.
 */
typedef struct Params
{
	int			neps;
	double	   *eps;
	bool	   *eps_null;
	int			nminpoints;
	int32	   *minpoints;
	bool	   *minpoints_null;
} Params;

/*
 * Arguments 1 (eps float8) and 2 (minpoints int, or int[] when
 * minpoints_array) of the window partition's first row; fn names the
 * function in errors.
 */
extern void params_read_window(WindowObject win, bool minpoints_array, const char *fn,
							   Params *params);

/*
 * Arguments 2 (eps) and 3 (minpoints) of an aggregate's transition call,
 * float8[] and int[] when arrays, copied into cxt.
 */
extern void params_read_args(FunctionCallInfo fcinfo, bool arrays, const char *fn,
							 Params *params, MemoryContext cxt);

/*
 * eps (float8, float8[] when eps_array) and minpoints (int, int[] when
 * minpoints_array) from their values: the fast paths' constants
 * (agg_scan.c, window_scan.c).
 */
extern void params_read_values(Datum eps, bool eps_null, Datum minpoints, bool minpoints_null,
							   bool eps_array, bool minpoints_array, const char *fn,
							   Params *params, MemoryContext cxt);

/* A copy of src in cxt. */
extern void params_copy(Params *dst, const Params *src, MemoryContext cxt);

/*
 * Checks params as ST_ClusterDBSCAN checks eps and minpoints, in this order:
 * an empty eps array, eps NULL or negative ("Tolerance must be a positive
 * number"), an empty minpoints array, minpoints NULL or negative
 * ("Minpoints must be a positive number"), eps NaN ("Tolerance must be a
 * number, not NaN"); returns the minpoints values (palloc'd).
 */
extern int64 *params_check(const Params *params, const char *fn);

#endif							/* GPU_DBSCAN_PARAMS_H */
