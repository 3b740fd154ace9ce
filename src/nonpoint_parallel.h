/*
 * nonpoint_parallel.h — st_dwithin on a non-point partition's asked pairs
 * in parallel workers (nonpoint_parallel.c), and the values it reads, which
 * the backend's own test (nonpoint.c) reads too.
 */
#ifndef GPU_DBSCAN_NONPOINT_PARALLEL_H
#define GPU_DBSCAN_NONPOINT_PARALLEL_H

#include "postgres.h"

#include "gd_core.h"
#include "gserialized_points.h"

/* Each row's value as st_dwithin takes it. */
typedef struct NonpointValues
{
	int64		nrows;
	const double *x;			/* a point row's coordinates */
	const double *y;
	int32		srid;			/* the partition's */
	const Datum *geoms;			/* a non-point row's value; 0 for a point */
	double		eps;
	Oid			dwithin;		/* st_dwithin(geometry, geometry, float8) */
} NonpointValues;

/* Row r's value: its geometry, or a 2D point of the partition's SRID. */
static inline Datum
nonpoint_value(const NonpointValues *v, uint32 r)
{
	return v->geoms[r] ? v->geoms[r] : gserialized_make_point(v->x[r], v->y[r], v->srid);
}

/* Whether parallel workers may test pairs here (settings, not in a worker). */
extern bool nonpoint_parallel_possible(void);

/* The estimated cost of st_dwithin on pair p, in microseconds. */
extern double nonpoint_ask_cost(const NonpointValues *v, gd_pair p);

/*
 * Parallel workers for asks pairs to hand to st_dwithin at cost_us
 * microseconds together (gpu_dbscan.exact_test_workers); 0: the backend
 * alone.
 */
extern int	nonpoint_test_workers(int64 asks, double cost_us);

/*
 * ok[k] = st_dwithin(value(asks[k].i), value(asks[k].j), eps) for every
 * k < nasks, by the backend and nworkers parallel workers (fewer if fewer
 * start); false when shared memory has no room for the values (nothing is
 * done: the caller tests them itself).  An error of st_dwithin in a worker
 * is raised here.
 */
extern bool nonpoint_dwithin_parallel(const NonpointValues *v, const gd_pair *asks, int64 nasks,
									  int nworkers, uint8 *ok);

#endif							/* GPU_DBSCAN_NONPOINT_PARALLEL_H */
