/*
 * cluster.c — a ClusterJob on a Rows container, by input kind (see
 * cluster.h).
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "cluster.h"

/* Seconds since start (see cluster.h). */
double
seconds_since(instr_time start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	return INSTR_TIME_GET_DOUBLE(now);
}

/* The pairs test accepts, kept at the front of list (see cluster.h). */
int64
test_pairs(gd_pair_list *list, PairTestFn test, void *arg, uint8 *dirs)
{
	MemoryContext work = CurrentMemoryContext;
	MemoryContext scratch = AllocSetContextCreate(work, "gpu_dbscan exact test",
												  ALLOCSET_SMALL_SIZES);
	int64		kept = 0;

	MemoryContextSwitchTo(scratch);
	for (int64 k = 0; k < list->count; k++)
	{
		uint8		dir;

		if (k % 1024 == 0)
		{
			CHECK_FOR_INTERRUPTS();
			MemoryContextReset(scratch);
		}
		dir = test(arg, list->pairs[k]);
		if (dir != 0)
			keep_pair(list, dirs, &kept, k, dir);
	}
	MemoryContextSwitchTo(work);
	MemoryContextDelete(scratch);
	return kept;
}

/* Exact tests of the pairs, then the graph (see cluster.h). */
void
cluster_pairs(gd_pair_list *list, PairTestFn test, PairTestAllFn test_all, void *arg,
			  const Rows *rows, const ClusterJob *job, instr_time start)
{
	double		t_pairs = seconds_since(start);
	double		t_exact = 0;
	double		t_graph = 0;

	/* the core's pair list is malloc'd: free it whatever happens */
	PG_TRY();
	{
		instr_time	phase;
		uint8	   *dirs;
		int64		kept;

		INSTR_TIME_SET_CURRENT(phase);
		dirs = MemoryContextAllocHuge(CurrentMemoryContext, Max(list->count, 1) * sizeof(uint8));
		kept = test_all ? test_all(arg, list, dirs) : -1;
		if (kept < 0)
			kept = test_pairs(list, test, arg, dirs);
		t_exact = seconds_since(phase);

		INSTR_TIME_SET_CURRENT(phase);
		core_cluster_graph(rows->kind, rows->nrows, list->pairs, dirs, kept, job);
		t_graph = seconds_since(phase);
	}
	PG_FINALLY();
	{
		gd_pair_list_free(list);
	}
	PG_END_TRY();

	core_record_pairs_run(rows->nrows, rows->npoints + rows->nother, t_pairs, t_exact, t_graph,
						  seconds_since(start));
}

/* The points' coordinates row-major, dims per row (what the core's n-D entry points read). */
static double *
row_major(const Rows *rows)
{
	double	   *coords = MemoryContextAllocHuge(CurrentMemoryContext,
												Max(rows->nrows, 1) * rows->dims * sizeof(double));
	int64		r;
	int			k;

	for (r = 0; r < rows->nrows; r++)
		for (k = 0; k < rows->dims; k++)
			coords[r * rows->dims + k] = rows->coord[k][r];
	return coords;
}

/*
 * POINT Z and float8[] points: two coordinates are 2D points; more go to
 * the core's n-D clustering (ids, point types and sweeps, either back end).
 */
static void
cluster_nd(const Rows *rows, const ClusterJob *job)
{
	if (rows->dims <= 2)
	{
		/* float8[2], or only NULL rows (dims 0: zeros the core does not read) */
		const double *zeros = rows->dims ? NULL :
			MemoryContextAllocHuge(CurrentMemoryContext, Max(rows->nrows, 1) * sizeof(double));

		if (zeros)
			memset((void *) zeros, 0, Max(rows->nrows, 1) * sizeof(double));
		core_cluster_points(zeros ? zeros : rows->coord[0], zeros ? zeros : rows->coord[1],
							rows->kind, rows->nrows, rows->npoints, job, true);
		return;
	}
	core_cluster_points_nd(row_major(rows), rows->dims, rows->kind, rows->nrows, rows->npoints,
						   job);
}

/* Runs job on rows (see cluster.h). */
void
cluster_rows(const Rows *rows, const ClusterJob *job)
{
	int64		i;

	switch (rows->input)
	{
		case ROWS_GEOMETRY:
			if (rows->nother == 0)
				core_cluster_points(rows->coord[0], rows->coord[1], rows->kind, rows->nrows,
									rows->npoints, job, true);
			else
				cluster_geometries(rows, job);
			break;
		case ROWS_POINT_Z:
		case ROWS_ARRAY:
			cluster_nd(rows, job);
			break;
		case ROWS_GEOGRAPHY:
			cluster_geography(rows, job);
			break;
	}
	if (job->types)
		for (i = 0; i < rows->nrows; i++)
			if (rows->kind[i] == GD_ROW_NULL)
				job->types[i] = POINT_TYPE_NULL_ROW;
}
