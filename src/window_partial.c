/*
 * window_partial.c — GpuDbscanWindow as a partial path (issue 9): under an
 * outer query level that can run in parallel (an aggregate over the ids, a
 * filter, a join), a Gather's participants read the table together, one
 * clusters every row exactly as the node alone does (window_scan.c), and
 * each returns a share of the rows, so that the outer query's work on them
 * runs in every participant.  The planner side adds the path; the executor
 * side is WindowShared below.
 */
#include "postgres.h"

#include "gd_core.h"

#include "access/parallel.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "port/atomics.h"
#include "storage/barrier.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "cluster.h"
#include "core_call.h"
#include "gpu_worker.h"
#include "last_run.h"
#include "memory_budget.h"
#include "parallel_read.h"
#include "shm_room.h"
#include "window_scan_state.h"

/* ---- the plan ----------------------------------------------------------------- */

/*
 * The rows each participant of a parallel plan emits, of rows in all: what
 * the planner's parallel divisor gives (the leader's share shrinks as the
 * workers grow).
 */
static double
rows_per_participant(double rows, int workers)
{
	double		divisor = workers;

	if (parallel_leader_participation && 1.0 - 0.3 * workers > 0)
		divisor += 1.0 - 0.3 * workers;
	return clamp_row_est(rows / divisor);
}

/*
 * Beside the node's path, the partial one, for an outer query level (which
 * puts the Gather above); its rows come in no order.
 */
void
window_partial_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *window_rel,
					List *wfuncs, CustomPath *path)
{
	CustomPath *partial;
	int			workers = path->path.parallel_workers;
	ListCell   *lc;

	if (!input_rel->consider_parallel || workers <= 0)
		return;
	foreach(lc, wfuncs)
		if (!is_parallel_safe(root, (Node *) ((WindowFunc *) lfirst(lc))->args))
			return;
	/*
	 * PostgreSQL takes every window function for parallel restricted, as the
	 * order of the rows that reach it may differ between participants; here
	 * one participant clusters every row, in the order of a serial read.  The
	 * window's other paths were made parallel unsafe already.
	 */
	window_rel->consider_parallel = true;
	partial = makeNode(CustomPath);
	memcpy(partial, path, sizeof(CustomPath));
	partial->path.parallel_aware = true;
	partial->path.parallel_safe = true;
	partial->path.pathkeys = NIL;
	partial->path.rows = rows_per_participant(path->path.rows, workers);
	add_partial_path(window_rel, (Path *) partial);
}

/* ---- execution ---------------------------------------------------------------- */

/*
 * What the participants of a parallel plan share when the node is the
 * partial path (a Gather's leader and workers each run it): every one reads
 * a share of the table into the shared read (parallel_read.h), one clusters
 * every row as the node alone would (the rows first copied into heap order,
 * so that OVER () clusters them in place, as the node alone does), writing
 * the output order and the ids into out, then each emits the output
 * positions it claims.  The leader
 * clusters when it took part in the read (its CUDA context, its
 * gpu_dbscan_last_run), else the participant the barrier elects.  Where the
 * shared read has no room or its estimate was short, the clusterer reads the
 * table again alone and emits every row itself (solo).
 *
 * Nothing waits for a participant outside this node's first call: each
 * attaches to the barrier when it starts and arrives without leaving, so
 * the waits end whatever plan lies around the node (a participant that
 * comes once the rows are read reads nothing).
 */
typedef struct WindowShared
{
	Barrier		barrier;		/* phases PHASE_READ, PHASE_CLUSTER, PHASE_EMIT */
	bool		leader_read;	/* the leader took part in the read: it clusters */
	bool		solo;			/* the clusterer read alone and emits every row */
	bool		clustered;		/* for EXPLAIN: the clusterer's figures below */
	bool		ordered;		/* out starts with the output order (else the identity) */
	bool		copied;			/* the rows are copy's (in heap order), not the read's */
	int64		nrows;
	int64		npartitions;
	int			passes;
	ScanTimes	times;
	dsm_handle	out_handle;
	dsm_handle	copy_handle;
	LastRun		worker_run;		/* a worker clusterer's last run, for the leader's session */
	bool		worker_clustered;
	pg_atomic_uint64 next_pos;	/* the first output position no participant claimed */
} WindowShared;

#define PHASE_READ 0
#define PHASE_CLUSTER 1
#define PHASE_EMIT 2

/* Output positions a participant claims at a time. */
#define EMIT_CLAIM 16384

/* The shared read's space, after the node's. */
static inline void *
read_space(WindowShared *ws)
{
	return (char *) ws + MAXALIGN(sizeof(WindowShared));
}

/*
 * The out segment: the output order (capacity entries), then the
 * functions' ids (nids blocks of the rows read, at most capacity each: a
 * sweep has one a value); out_ids gives the first.
 */
static inline Size
out_bytes(uint64 capacity, int nids)
{
	return capacity * sizeof(int32) * (1 + nids);
}

static inline int32 *
out_ids(uint32 *out, uint64 capacity)
{
	return (int32 *) (out + capacity);
}

/*
 * The clusterer of the partial path (see WindowShared): finishes the shared
 * read, orders and clusters into out, or reads alone where it cannot.
 */
static void
cluster_shared(WindowScanState *st, instr_time read_start)
{
	WindowShared *ws = st->shared;
	void	   *space = read_space(ws);
	uint64		capacity = parallel_read_shared_capacity(space);
	uint32	   *out = st->out_seg ? dsm_segment_address(st->out_seg) : NULL;
	bool		in_heap_order;

	if (st->scan.req.share_with_gpu && !st->segs_shared)
	{
		/* the GPU worker reads the arrays and writes the ids where they are */
		if (st->data_seg)
			(void) gd_gpu_worker_share(st->data_seg);
		if (st->out_seg)
			(void) gd_gpu_worker_share(st->out_seg);
		if (st->copy_seg)
			(void) gd_gpu_worker_share(st->copy_seg);
		st->segs_shared = true;
	}
	if (out != NULL &&
		parallel_read_shared_finish(space, st->data_seg, st->copy_seg, out, &in_heap_order,
									&ws->copied, &st->scan.res))
	{
		st->res_shared = true;
		/* partition copies, too, where the GPU worker reads them (scan_rows_build) */
		st->scan.res.share_with_gpu = st->scan.req.share_with_gpu;
		st->scan.times.read_ms = seconds_since(read_start) * 1000;
		window_order_and_cluster(st, in_heap_order ? NULL : out, out, out_ids(out, capacity), capacity);
		ws->ordered = st->order != NULL;
		Assert(st->order == NULL || st->order == out);
	}
	else
	{
		/* no room, or the estimate was short: read alone, emit every row */
		ws->solo = true;
		st->scan.req.nworkers = 0;
		window_run_alone(st);
	}
	ws->nrows = st->scan.res.nrows;
	ws->npartitions = st->npartitions;
	ws->passes = ws->solo ? 2 : 1;
	ws->times = st->scan.times;
	if (IsParallelWorker())
	{
		/* gpu_dbscan_last_run() in the leader's session tells this run */
		last_run_get(&ws->worker_run);
		ws->worker_clustered = true;
	}
	ws->clustered = true;
}

/* See window_scan_state.h (and WindowShared). */
void
window_partial_run(WindowScanState *st)
{
	WindowShared *ws = st->shared;
	bool		clusterer = false;
	instr_time	start;
	int			phase;

	INSTR_TIME_SET_CURRENT(start);
	st->scan.req.share_with_gpu = core_gpu_worker_serves();
	phase = BarrierAttach(&ws->barrier);
	if (phase == PHASE_READ)
	{
		bool		elected;

		if (!IsParallelWorker())
			ws->leader_read = true;
		parallel_read_shared_scan(&st->scan.req, read_space(ws), st->data_seg);
		elected = BarrierArriveAndWait(&ws->barrier, PG_WAIT_EXTENSION);
		/* leader_read is settled: the leader, when attached, arrived */
		clusterer = ws->leader_read ? !IsParallelWorker() : elected;
		phase = PHASE_CLUSTER;
	}
	if (phase == PHASE_CLUSTER)
	{
		if (clusterer)
			cluster_shared(st, start);
		BarrierArriveAndWait(&ws->barrier, PG_WAIT_EXTENSION);
	}
	BarrierDetach(&ws->barrier);
	if (clusterer && ws->solo)
		return;					/* st's own rows, every one */
	st->pos = st->end = 0;
	if (ws->solo || st->data_seg == NULL || st->out_seg == NULL || (ws->copied && st->copy_seg == NULL))
		return;					/* nothing to emit here */
	if (!clusterer)
	{
		uint32	   *out = dsm_segment_address(st->out_seg);
		uint64		capacity = parallel_read_shared_capacity(read_space(ws));

		parallel_read_shared_result(read_space(ws), ws->copied ? st->copy_seg : st->data_seg,
									&st->scan.res);
		st->res_shared = true;
		st->order = ws->ordered ? out : NULL;
		for (int k = 0; k < st->nfuncs; k++)
		{
			st->funcs[k].ids = out_ids(out, capacity) + st->funcs[k].ids_first * ws->nrows;
			st->funcs[k].ids_stride = ws->nrows;
		}
	}
}

/* See window_scan_state.h. */
bool
window_partial_claim(WindowScanState *st)
{
	WindowShared *ws = st->shared;
	uint64		first;

	if (ws == NULL || ws->solo || !st->res_shared)
		return false;
	first = pg_atomic_fetch_add_u64(&ws->next_pos, EMIT_CLAIM);
	if ((int64) first >= ws->nrows)
		return false;
	st->pos = (int64) first;
	st->end = Min(ws->nrows, (int64) first + EMIT_CLAIM);
	return true;
}

/* See window_scan_state.h. */
void
window_partial_forget(WindowScanState *st)
{
	if (st->res_shared)
		memset(&st->scan.res, 0, sizeof(st->scan.res));
	st->res_shared = false;
}

static Size
estimate_window_scan(CustomScanState *node, ParallelContext *pcxt)
{
	WindowScanState *st = (WindowScanState *) node;

	return MAXALIGN(sizeof(WindowShared)) + parallel_read_shared_size(&st->scan.req);
}

/* The shared state's fields that start a run. */
static void
reset_shared(WindowShared *ws)
{
	BarrierInit(&ws->barrier, 0);
	ws->leader_read = ws->solo = ws->clustered = ws->ordered = ws->copied = false;
	ws->worker_clustered = false;
	ws->nrows = ws->npartitions = 0;
	ws->passes = 0;
	memset(&ws->times, 0, sizeof(ws->times));
	pg_atomic_write_u64(&ws->next_pos, 0);
}

/*
 * The leader: the shared state, the read's arrays and the output (the order
 * and the ids, 4 bytes a row each: an id a row for each function, for each
 * value of a sweep); no arrays where the output finds no room (the
 * clusterer then reads alone).
 */
static void
initialize_window_scan(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	WindowScanState *st = (WindowScanState *) node;
	WindowShared *ws = coordinate;
	Size		bytes;

	memset(ws, 0, sizeof(*ws));
	pg_atomic_init_u64(&ws->next_pos, 0);
	reset_shared(ws);
	window_scan_end(node);		/* a run of before, when the Gather starts again */
	st->scan.cxt = AllocSetContextCreate(node->ss.ps.state->es_query_cxt, "gpu_dbscan window scan",
										 ALLOCSET_DEFAULT_SIZES);
	st->shared = ws;
	st->data_seg = parallel_read_shared_init(&st->scan.req, read_space(ws));
	bytes = out_bytes(parallel_read_shared_capacity(read_space(ws)), st->nids);
	ws->out_handle = DSM_HANDLE_INVALID;
	if (st->data_seg && shm_has_room(bytes))
		st->out_seg = dsm_create(bytes, DSM_CREATE_NULL_IF_MAXSEGMENTS);
	if (st->out_seg)
	{
		gd_charge_segment(st->out_seg, "the fast path's order and ids");
		ws->out_handle = dsm_segment_handle(st->out_seg);
	}
	else if (st->data_seg)
	{
		parallel_read_shared_forget(read_space(ws));
		dsm_detach(st->data_seg);
		st->data_seg = NULL;
	}
	/* room for the rows in heap order (without it: an order array, copies per partition) */
	ws->copy_handle = DSM_HANDLE_INVALID;
	if (st->out_seg && shm_has_room(dsm_segment_map_length(st->data_seg)))
		st->copy_seg = dsm_create(dsm_segment_map_length(st->data_seg), DSM_CREATE_NULL_IF_MAXSEGMENTS);
	if (st->copy_seg)
	{
		gd_charge_segment(st->copy_seg, SCAN_READ_CHARGE);
		ws->copy_handle = dsm_segment_handle(st->copy_seg);
	}
}

static void
reinitialize_window_scan(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	WindowScanState *st = (WindowScanState *) node;
	WindowShared *ws = coordinate;

	reset_shared(ws);
	parallel_read_shared_reinit(&st->scan.req, read_space(ws));
}

static void
initialize_window_scan_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	WindowScanState *st = (WindowScanState *) node;
	WindowShared *ws = coordinate;

	st->shared = ws;
	st->data_seg = parallel_read_shared_attach(read_space(ws));
	if (ws->out_handle != DSM_HANDLE_INVALID)
	{
		st->out_seg = dsm_attach(ws->out_handle);
		if (st->out_seg == NULL)
			elog(ERROR, "gpu_dbscan: could not map the window scan's shared memory");
	}
	if (ws->copy_handle != DSM_HANDLE_INVALID)
	{
		st->copy_seg = dsm_attach(ws->copy_handle);
		if (st->copy_seg == NULL)
			elog(ERROR, "gpu_dbscan: could not map the window scan's shared memory");
	}
}

/*
 * Before the parallel plan's shared memory goes: the clusterer's figures for
 * EXPLAIN, and a worker clusterer's run for gpu_dbscan_last_run().
 */
static void
shutdown_window_scan(CustomScanState *node)
{
	WindowScanState *st = (WindowScanState *) node;
	WindowShared *ws = st->shared;

	if (ws == NULL || !ws->clustered)
		return;
	st->scan.times = ws->times;
	st->npartitions = ws->npartitions;
	st->scan.res.nrows = ws->nrows;
	st->scan.res.passes = ws->passes;
	st->scan.done = true;
	if (ws->worker_clustered && !IsParallelWorker())
		last_run_set(&ws->worker_run);
}

void
window_partial_methods(CustomExecMethods *methods)
{
	methods->EstimateDSMCustomScan = estimate_window_scan;
	methods->InitializeDSMCustomScan = initialize_window_scan;
	methods->ReInitializeDSMCustomScan = reinitialize_window_scan;
	methods->InitializeWorkerCustomScan = initialize_window_scan_worker;
	methods->ShutdownCustomScan = shutdown_window_scan;
}
