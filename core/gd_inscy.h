/*
 * gd_inscy.h — the C API of the core's subspace clustering (GPU-INSCY's
 * cluster model, issue 12; docs/subspace.md states the definition).
 *
 * Input: n rows of d doubles (row-major, finite, 2 <= d <= 64).
 *  1. Each column is normalised to [0,1]: (x - min) / (max - min) in double,
 *     a constant column becomes 0.
 *  2. In a subspace S (|S| = s), q != p is p's neighbour when
 *     sqrt(sum over j in S, increasing j, of (p'_j - q'_j)^2) <= eps in IEEE
 *     double, no fused multiply-add.
 *  3. p is dense in S when its neighbour count >= max(F * n * c(s) * eps^s, mu),
 *     c(s) = pi^(s/2) / tgamma(s/2 + 1), in double.
 *  4. The clusters of S are the connected components of its dense points
 *     (joined when neighbours in S) with at least min_size points.
 *  5. By decreasing s, a cluster C of S is dropped when a kept cluster C' of a
 *     strict superset of S shares a point with C and |C| * r < |C'|.
 *  6. Output: every kept cluster with its subspace.
 *
 * The core never calls back into PostgreSQL; cancellation is a poll of
 * gd_params.should_cancel, errors come back in gd_error (gd_core.h).
 */
#ifndef GD_INSCY_H
#define GD_INSCY_H

#include "gd_core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GD_INSCY_MIN_DIMS 2
#define GD_INSCY_MAX_DIMS 64

typedef struct gd_inscy_params
{
	double		eps;			/* > 0 */
	int64_t		mu;				/* >= 1: minimum neighbours */
	int64_t		min_size;		/* >= 1: minimum cluster size */
	double		density_factor; /* F > 0 */
	double		redundancy;		/* r > 0 */
} gd_inscy_params;

/* One kept cluster: its subspace and its rows. */
typedef struct gd_inscy_cluster
{
	uint64_t	dims;			/* bit j set: column j (0-based) is in the subspace */
	int64_t		first;			/* its rows are members[first .. first + size) */
	int64_t		size;
} gd_inscy_cluster;

/*
 * The kept clusters, sorted by subspace (fewer columns first, then the column
 * lists lexicographically) and then by first row; each cluster's rows
 * (0-based) ascending.
 */
typedef struct gd_inscy_result
{
	gd_inscy_cluster *clusters; /* owned by the core: gd_inscy_result_free */
	int64_t		nclusters;
	int32_t    *members;
	int64_t		nmembers;
	int64_t		subspaces;		/* distinct subspaces among the kept clusters */
	int64_t		evaluated;		/* subspaces whose neighbour counts were computed */
	int64_t		found;			/* clusters before the redundancy step */
} gd_inscy_result;

/*
 * Subspace clusters of rows (n x d, row-major) on params->backend (CPU threads,
 * device, memory budget and cancel poll from params; params->eps and
 * params->minpoints are not used).  stats may be NULL.
 */
gd_status	gd_inscy(const double *rows, int64_t n, int d,
					 const gd_inscy_params *inscy, const gd_params *params,
					 gd_inscy_result *out, gd_run_stats *stats, gd_error *err);

void		gd_inscy_result_free(gd_inscy_result *result);

#ifdef __cplusplus
}
#endif

#endif							/* GD_INSCY_H */
