/*
 * cluster.h — runs a ClusterJob on a Rows container: each input kind's way
 * to the core (core_call.h).
 *
 * 2D points go to the core's point entry points (the GPU where
 * gpu_dbscan.backend says); 2D geometry with other shapes through candidate
 * pairs from boxes and PostGIS's st_dwithin (nonpoint.c); POINT Z and
 * float8[] points to the core's n-D entry points (float8[2] is 2D);
 * geography through pairs of unit vectors and st_dwithin on the sphere
 * (geography.c).  Pairs tested by the glue end in the core's graph
 * clustering (cluster_pairs).
 */
#ifndef GPU_DBSCAN_CLUSTER_H
#define GPU_DBSCAN_CLUSTER_H

#include "postgres.h"

#include "portability/instr_time.h"

#include "core_call.h"
#include "rows.h"

/* A point type in ClusterJob.types of a NULL row, after cluster_rows. */
#define POINT_TYPE_NULL_ROW 255

/* Runs job on rows (not changed), in the current memory context. */
extern void cluster_rows(const Rows *rows, const ClusterJob *job);

/*
 * Whether a candidate pair (rows i < j) is a pair of neighbours, and in
 * which direction: 0 when not, else GD_EDGE_I_SEES_J (j is found when i
 * searches), GD_EDGE_J_SEES_I, or GD_EDGE_BOTH.  Runs in a memory context
 * that is reset every so often, and may raise an error.
 */
typedef uint8 (*PairTestFn) (void *arg, gd_pair pair);

/*
 * The pairs of list that test accepts, moved to its front in their order
 * (list->count is left as it was) with their directions in dirs (may be
 * NULL): returns how many.  Checks for interrupts as it goes.
 */
extern int64 test_pairs(gd_pair_list *list, PairTestFn test, void *arg, uint8 *dirs);

/* Keeps pair k with direction dir (not 0) as the kept-th (test_pairs's order). */
static inline void
keep_pair(gd_pair_list *list, uint8 *dirs, int64 *kept, int64 k, uint8 dir)
{
	if (dirs)
		dirs[*kept] = dir;
	list->pairs[(*kept)++] = list->pairs[k];
}

/*
 * What test_pairs does, every pair at once (in parallel workers): returns
 * how many pairs it kept, or -1 where it does not apply (nothing done).
 */
typedef int64 (*PairTestAllFn) (void *arg, gd_pair_list *list, uint8 *dirs);

/*
 * The second half of clustering from pairs: keeps the pairs of list (from
 * the core, malloc'ed) that test accepts (test_all first, when given),
 * runs job on the graph they make
 * and records the run for gpu_dbscan_last_run() (start: when the pair
 * search began).  list is freed whatever happens.
 */
extern void cluster_pairs(gd_pair_list *list, PairTestFn test, PairTestAllFn test_all, void *arg,
						  const Rows *rows, const ClusterJob *job, instr_time start);

/* 2D geometry rows with non-point rows (nonpoint.c). */
extern void cluster_geometries(const Rows *rows, const ClusterJob *job);

/* Geography points (geography.c). */
extern void cluster_geography(const Rows *rows, const ClusterJob *job);

/* Seconds since start. */
extern double seconds_since(instr_time start);

#endif							/* GPU_DBSCAN_CLUSTER_H */
