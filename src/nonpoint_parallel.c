/*
 * nonpoint_parallel.c — st_dwithin on a partition's asked pairs in parallel
 * workers (see nonpoint_parallel.h).
 *
 * PostGIS's exact test is most of a non-point partition's time, and PostGIS
 * runs in one process at a time: so processes, as PostgreSQL's parallel
 * query uses them.  The backend copies what the test reads (each row's
 * coordinates, each non-point row's serialized geometry, the asked pairs)
 * into the ParallelContext's shared memory; the workers and the backend
 * claim pairs ASK_CLAIM at a time and write each answer into its own byte,
 * so the answers do not depend on who tested what.
 */
#include "postgres.h"

#include <math.h>

#include "access/parallel.h"
#include "access/xact.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "port/atomics.h"
#include "utils/memutils.h"

#include "guc.h"
#include "nonpoint_parallel.h"
#include "shm_room.h"

#define KEY_SHARED 1
#define ASK_CLAIM 256

/*
 * What an st_dwithin call costs, in microseconds: about 0.3 a call and 4 ns
 * for each pair of vertices it may compare (two cores of the development
 * machine: 0.35 us for points against 2- and 5-vertex shapes, 12.6 us for
 * 65-vertex polygons against 45-vertex lines), and the work a worker is
 * worth starting for (its start and PostGIS's load: about 10 ms).
 */
#define ASK_CALL_US 0.3
#define ASK_VERTEX_PAIR_US 0.004
#define WORKER_US 20000.0

PGDLLEXPORT void gd_nonpoint_pairs_main(dsm_segment *seg, shm_toc *toc);

/* This session's tests in which a worker took part (gpu_dbscan_exact_test_runs). */
static int64 runs_with_workers = 0;

/* The shared chunk: this header, then the arrays at their offsets. */
typedef struct AskShared
{
	int64		nrows;
	int64		nasks;
	int32		srid;
	double		eps;
	Oid			dwithin;
	pg_atomic_uint64 next;		/* the first pair not claimed */
	Size		x_at,
				y_at,
				geom_at,		/* int64 per row: its bytes' offset in the chunk, or 0 */
				asks_at,
				ok_at,
				size;
} AskShared;

/* The offsets of everything for v's rows and nasks pairs, and the chunk's size. */
static void
lay_out(AskShared *sh, const NonpointValues *v, int64 nasks)
{
	Size		at = MAXALIGN(sizeof(AskShared));
	int64		r;

	sh->x_at = at;
	at = add_size(at, mul_size(v->nrows, sizeof(double)));
	sh->y_at = at;
	at = add_size(at, mul_size(v->nrows, sizeof(double)));
	sh->geom_at = at;
	at = add_size(at, mul_size(v->nrows, sizeof(int64)));
	sh->asks_at = at;
	at = add_size(at, mul_size(nasks, sizeof(gd_pair)));
	sh->ok_at = at;
	at = MAXALIGN(add_size(at, nasks));
	for (r = 0; r < v->nrows; r++)
		if (v->geoms[r] != 0)
			at = MAXALIGN(add_size(at, VARSIZE_ANY(DatumGetPointer(v->geoms[r]))));
	sh->size = at;
}

/* The chunk laid out (sh's offsets set): v's values and the asked pairs. */
static void
fill_shared(AskShared *sh, const NonpointValues *v, const gd_pair *asks, int64 nasks)
{
	char	   *base = (char *) sh;
	int64	   *geom_at = (int64 *) (base + sh->geom_at);
	Size		at = MAXALIGN(sh->ok_at + nasks);	/* the geometries' bytes */
	int64		r;

	sh->nrows = v->nrows;
	sh->nasks = nasks;
	sh->srid = v->srid;
	sh->eps = v->eps;
	sh->dwithin = v->dwithin;
	pg_atomic_init_u64(&sh->next, 0);
	memcpy(base + sh->x_at, v->x, v->nrows * sizeof(double));
	memcpy(base + sh->y_at, v->y, v->nrows * sizeof(double));
	memcpy(base + sh->asks_at, asks, nasks * sizeof(gd_pair));
	for (r = 0; r < v->nrows; r++)
	{
		geom_at[r] = 0;
		if (v->geoms[r] != 0)
		{
			Size		len = VARSIZE_ANY(DatumGetPointer(v->geoms[r]));

			memcpy(base + at, DatumGetPointer(v->geoms[r]), len);
			geom_at[r] = (int64) at;
			at = MAXALIGN(at + len);
		}
	}
}

/* Claims and tests pairs until none is left. */
static void
test_asks(AskShared *sh, const NonpointValues *v)
{
	char	   *base = (char *) sh;
	const gd_pair *asks = (const gd_pair *) (base + sh->asks_at);
	uint8	   *ok = (uint8 *) (base + sh->ok_at);
	FmgrInfo	dwithin;
	MemoryContext scratch = AllocSetContextCreate(CurrentMemoryContext, "gpu_dbscan exact test",
												  ALLOCSET_SMALL_SIZES);
	MemoryContext old = MemoryContextSwitchTo(scratch);

	fmgr_info(v->dwithin, &dwithin);
	for (;;)
	{
		uint64		k = pg_atomic_fetch_add_u64(&sh->next, ASK_CLAIM);
		uint64		e = Min(k + ASK_CLAIM, (uint64) sh->nasks);

		if (k >= (uint64) sh->nasks)
			break;
		CHECK_FOR_INTERRUPTS();
		for (; k < e; k++)
			ok[k] = DatumGetBool(FunctionCall3(&dwithin, nonpoint_value(v, asks[k].i),
											   nonpoint_value(v, asks[k].j),
											   Float8GetDatum(v->eps)));
		MemoryContextReset(scratch);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(scratch);
}

/* A parallel worker's view of the chunk's values (geoms in palloc'd memory). */
static void
shared_values(AskShared *sh, NonpointValues *v)
{
	char	   *base = (char *) sh;
	const int64 *geom_at = (const int64 *) (base + sh->geom_at);
	Datum	   *geoms = palloc(Max(sh->nrows, 1) * sizeof(Datum));
	int64		r;

	for (r = 0; r < sh->nrows; r++)
		geoms[r] = geom_at[r] ? PointerGetDatum(base + geom_at[r]) : (Datum) 0;
	v->nrows = sh->nrows;
	v->x = (const double *) (base + sh->x_at);
	v->y = (const double *) (base + sh->y_at);
	v->srid = sh->srid;
	v->geoms = geoms;
	v->eps = sh->eps;
	v->dwithin = sh->dwithin;
}

/* A parallel worker (the entry point CreateParallelContext names). */
void
gd_nonpoint_pairs_main(dsm_segment *seg, shm_toc *toc)
{
	AskShared  *sh = shm_toc_lookup(toc, KEY_SHARED, false);
	NonpointValues v;

	shared_values(sh, &v);
	test_asks(sh, &v);
}

bool
nonpoint_parallel_possible(void)
{
	return gd_exact_test_workers != 0 && !IsParallelWorker() && IsUnderPostmaster &&
		max_parallel_workers > 0 &&
		(gd_exact_test_workers > 0 || max_parallel_workers_per_gather > 0);
}

/* Row r's vertices, by its serialized size (16 bytes a 2D vertex). */
static double
vertices(const NonpointValues *v, uint32 r)
{
	return v->geoms[r] ? Max(1.0, VARSIZE_ANY(DatumGetPointer(v->geoms[r])) / 16.0) : 1.0;
}

double
nonpoint_ask_cost(const NonpointValues *v, gd_pair p)
{
	return ASK_CALL_US + ASK_VERTEX_PAIR_US * vertices(v, p.i) * vertices(v, p.j);
}

int
nonpoint_test_workers(int64 asks, double cost_us)
{
	double		n;

	if (asks == 0 || !nonpoint_parallel_possible())
		return 0;
	if (gd_exact_test_workers > 0)
		return Min(gd_exact_test_workers, max_parallel_workers);	/* no more can start */
	n = floor(cost_us / WORKER_US);
	return (int) Min(n, (double) max_parallel_workers_per_gather);
}

bool
nonpoint_dwithin_parallel(const NonpointValues *v, const gd_pair *asks, int64 nasks,
						  int nworkers, uint8 *ok)
{
	AskShared	layout;
	AskShared  *sh;
	ParallelContext *pcxt;

	lay_out(&layout, v, nasks);
	if (!shm_has_room(layout.size))
		return false;

	EnterParallelMode();
	pcxt = CreateParallelContext("gpu_dbscan", "gd_nonpoint_pairs_main", nworkers);
	shm_toc_estimate_chunk(&pcxt->estimator, layout.size);
	shm_toc_estimate_keys(&pcxt->estimator, 1);
	InitializeParallelDSM(pcxt);

	sh = shm_toc_allocate(pcxt->toc, layout.size);
	*sh = layout;
	fill_shared(sh, v, asks, nasks);
	shm_toc_insert(pcxt->toc, KEY_SHARED, sh);

	LaunchParallelWorkers(pcxt);
	/* the backend tests with them (it holds its own values already) */
	test_asks(sh, v);
	WaitForParallelWorkersToFinish(pcxt);
	memcpy(ok, (char *) sh + sh->ok_at, nasks);
	elog(DEBUG1, "gpu_dbscan: st_dwithin on %lld pairs in %d parallel workers and the backend",
		 (long long) nasks, pcxt->nworkers_launched);
	runs_with_workers += pcxt->nworkers_launched > 0;

	DestroyParallelContext(pcxt);
	ExitParallelMode();
	return true;
}

/*
 * Test-only, not part of the extension's SQL (test/pgtap/95 creates it,
 * LANGUAGE C): how many of this session's exact tests had a parallel
 * worker's help.
 */
PG_FUNCTION_INFO_V1(gpu_dbscan_exact_test_runs);

Datum
gpu_dbscan_exact_test_runs(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(runs_with_workers);
}
