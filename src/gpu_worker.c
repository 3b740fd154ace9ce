/*
 * gpu_worker.c — the GPU worker (issue 9 item 3): with gpu_dbscan in
 * shared_preload_libraries and gpu_dbscan.gpu_worker on (the default), one
 * background worker owns the process's CUDA context, made when it starts,
 * and clusters for every backend, so that no backend pays CUDA's start-up
 * (about 0.3 s on an H100) or holds a context of its own (about 0.5 GB of
 * device memory each).  Without preloading, backends run the GPU back end
 * in-process as before.  The postmaster never touches CUDA: only the worker
 * process, forked from it, does.
 *
 * The handshake: the shared state (main shared memory, this file's) holds
 * GD_WORKER_SLOTS request slots.  A request (core_call.h's PointsCall: ids,
 * point types or a minpoints sweep, of 2D or n-D points) names where each of
 * its arrays (the points' x and y or n-D coordinates, row kinds, ids, point
 * types; a sweep's minpoints values where its slot cannot hold them) lies: a
 * DSM segment and an offset.  Arrays
 * the backend already keeps in a segment shared with the worker (the fast
 * path's read and ids, gd_gpu_worker_alloc) are named where they are, with
 * no copy; the others are copied into a segment made for the request (the
 * ids copied out of it afterwards).  The backend fills a free slot (QUEUED),
 * sets the worker's latch and sleeps on its own latch; the worker takes the
 * slot (RUNNING), attaches the segments, runs the job on them through
 * core_points_run (the backends' one dispatch), detaches, marks the slot
 * DONE with the status, message and statistics, and sets the backend's
 * latch.  The backend frees the slot and the request's segment.
 *
 * Failure paths, none of which takes a user's query down with the worker:
 *  - cancel, statement_timeout or terminate of the backend while it waits:
 *    its CHECK_FOR_INTERRUPTS raises the error; on the way out it withdraws
 *    the request (a queued slot is freed, a running one gets its cancel
 *    flag, which the core polls: the worker stops within milliseconds and
 *    frees the slot).  The backend's segments go with its transaction's
 *    resource owner; the worker's mappings with its detach (a segment lives
 *    while either maps it, so the worker never writes into freed memory).
 *    Nothing leaks.
 *  - a CUDA error in the worker: the run's status (the core resets the
 *    worker's context after a device error, so the next request works);
 *    backend = auto retries on the CPU with a NOTICE, gpu raises it.
 *  - the worker stopped (pg_terminate_backend, an error): its exit callback
 *    ends the running request with GD_ERR_DEVICE ("the GPU worker stopped")
 *    and the postmaster starts a new worker a second later, which serves
 *    the queued ones.  A backend that finds no worker for WORKER_GONE_MS
 *    gives up the same way.  kill -9 of the worker is a crash of a process
 *    attached to shared memory: the postmaster restarts every backend, as
 *    for any crash, and the next session finds a new worker.
 */
#include "postgres.h"

#include "gd_core.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "core_call.h"
#include "gpu_worker.h"
#include "guc.h"
#include "prefault.h"
#include "shm_room.h"

#define GD_WORKER_SLOTS 64
#define SLOT_VALUES 64			/* a sweep's minpoints values held in its slot */
#define WORKER_GONE_MS 5000		/* a backend's wait for a worker to come back */
#define PROBE_WAIT_MS 5000		/* its wait for a starting worker's GPU probe */
#define RECHECK_MS 10000		/* the worker asks again about an unusable GPU */

typedef enum SlotState
{
	SLOT_FREE = 0,
	SLOT_QUEUED,
	SLOT_RUNNING,
	SLOT_DONE
} SlotState;

/* Where one of a request's arrays lies. */
typedef struct SharedArray
{
	dsm_handle	handle;
	Size		offset;
} SharedArray;

/*
 * A request's arrays, in this order: ARRAY_X holds x, or the n-D
 * coordinates (then there is no ARRAY_Y); ARRAY_IDS a block of nrows ids
 * per minpoints value; ARRAY_TYPES is there when point types are asked,
 * ARRAY_VALUES for a sweep of more values than its slot holds.
 */
enum
{
	ARRAY_X, ARRAY_Y, ARRAY_KIND, ARRAY_IDS, ARRAY_TYPES, ARRAY_VALUES, NARRAYS
};

/* What a request is, beside its arrays and parameters. */
typedef struct RequestShape
{
	int64		nrows;
	int			dims;			/* 2 with x and y; n-D coordinates otherwise */
	bool		coords;			/* the points as n-D coordinates */
	bool		types;			/* point types asked */
	int64		nvalues;		/* minpoints values (ids: a block of nrows each) */
} RequestShape;

/* The bytes of array a of a request (0: the request has none). */
static Size
array_bytes(const RequestShape *r, int a)
{
	if (r->nrows <= 0)
		return 0;
	switch (a)
	{
		case ARRAY_X:
			return r->nrows * sizeof(double) * (r->coords ? r->dims : 1);
		case ARRAY_Y:
			return r->coords ? 0 : r->nrows * sizeof(double);
		case ARRAY_KIND:
			return r->nrows * sizeof(uint8_t);
		case ARRAY_IDS:
			return r->nrows * r->nvalues * sizeof(int32_t);
		case ARRAY_TYPES:
			return r->types ? r->nrows * sizeof(uint8_t) : 0;
		case ARRAY_VALUES:
			return r->nvalues > SLOT_VALUES ? r->nvalues * sizeof(int64_t) : 0;
	}
	return 0;
}

typedef struct WorkerSlot
{
	SlotState	state;
	bool		cancel;			/* withdrawn while running: stop, then free */
	Latch	   *owner_latch;
	SharedArray arrays[NARRAYS];
	RequestShape shape;
	int64		values[SLOT_VALUES];	/* the minpoints values, when they fit */
	int			hold_ms;		/* test-only: hold the request first (see below) */
	gd_params	params;			/* callbacks cleared */
	gd_status	status;
	gd_error	err;
	gd_run_stats stats;
} WorkerSlot;

typedef struct WorkerShared
{
	slock_t		mutex;
	pid_t		pid;			/* the running worker's, 0: none */
	Latch	   *latch;
	uint64		generation;		/* worker starts so far */
	int			device;			/* the device the worker probed */
	int			gpu;			/* 0: not probed yet, 1: usable, -1: not */
	char		why[sizeof(((gd_error *) 0)->message)];
	WorkerSlot	slots[GD_WORKER_SLOTS];
} WorkerShared;

static bool gd_gpu_worker_enabled = true;
static WorkerShared *shared;
static GpuHandoff handoff;		/* this backend's requests (gd_gpu_worker_handoff) */

/* This backend's segments that the worker may read and write in place. */
#define MAX_SHARED_SEGMENTS 16
typedef struct SharedSegment
{
	dsm_segment *seg;
	char	   *base;
	Size		size;
} SharedSegment;

static SharedSegment shared_segments[MAX_SHARED_SEGMENTS];
static int	nshared_segments;
static shmem_request_hook_type prev_shmem_request_hook;
static shmem_startup_hook_type prev_shmem_startup_hook;

PGDLLEXPORT void gd_gpu_worker_main(Datum arg);

/* ---- shared memory ---------------------------------------------------- */

static void
worker_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(WorkerShared)));
}

static void
worker_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	shared = ShmemInitStruct("gpu_dbscan GPU worker", sizeof(WorkerShared), &found);
	if (!found)
	{
		memset(shared, 0, sizeof(WorkerShared));
		SpinLockInit(&shared->mutex);
	}
	LWLockRelease(AddinShmemInitLock);
}

void
gd_gpu_worker_init(void)
{
	BackgroundWorker bgw;

	/* a PGC_POSTMASTER setting can only be defined while preloading */
	if (!process_shared_preload_libraries_in_progress)
		return;
	DefineCustomBoolVariable("gpu_dbscan.gpu_worker",
							 "Runs the GPU back end in one background worker that owns the CUDA context.",
							 "Takes effect with gpu_dbscan in shared_preload_libraries; "
							 "otherwise each session starts CUDA itself on its first GPU run.",
							 &gd_gpu_worker_enabled, true, PGC_POSTMASTER, 0,
							 NULL, NULL, NULL);
	if (!gd_gpu_worker_enabled)
		return;

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = worker_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = worker_shmem_startup;

	memset(&bgw, 0, sizeof(bgw));
	/* connected to no database: only to be listed in pg_stat_activity */
	bgw.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	bgw.bgw_start_time = BgWorkerStart_ConsistentState;
	bgw.bgw_restart_time = 1;
	snprintf(bgw.bgw_library_name, BGW_MAXLEN, "gpu_dbscan");
	snprintf(bgw.bgw_function_name, BGW_MAXLEN, "gd_gpu_worker_main");
	snprintf(bgw.bgw_name, BGW_MAXLEN, "gpu_dbscan GPU worker");
	snprintf(bgw.bgw_type, BGW_MAXLEN, "gpu_dbscan GPU worker");
	RegisterBackgroundWorker(&bgw);
}

/* ---- the worker -------------------------------------------------------- */

/* The core's cancel poll in the worker: the request withdrawn, or the worker told to stop. */
static int
worker_should_cancel(void *arg)
{
	volatile WorkerSlot *slot = (volatile WorkerSlot *) arg;

	return (slot->cancel || ProcDiePending || ShutdownRequestPending) ? 1 : 0;
}

/*
 * Ends the requests left RUNNING (by this worker on its way out, or by a
 * predecessor that died) with an error, and wakes their backends.
 */
static void
end_orphaned_runs(void)
{
	Latch	   *wake[GD_WORKER_SLOTS];
	int			nwake = 0;

	SpinLockAcquire(&shared->mutex);
	for (int i = 0; i < GD_WORKER_SLOTS; i++)
	{
		WorkerSlot *s = &shared->slots[i];

		if (s->state != SLOT_RUNNING)
			continue;
		if (s->cancel)
		{
			s->state = SLOT_FREE;
			continue;
		}
		s->state = SLOT_DONE;
		s->status = GD_ERR_DEVICE;
		memset(&s->err, 0, sizeof(s->err));
		s->err.status = GD_ERR_DEVICE;
		strlcpy(s->err.message, "the GPU worker stopped during the run", sizeof(s->err.message));
		wake[nwake++] = s->owner_latch;
	}
	SpinLockRelease(&shared->mutex);
	for (int i = 0; i < nwake; i++)
		SetLatch(wake[i]);
}

static void
worker_exit(int code, Datum arg)
{
	end_orphaned_runs();
	SpinLockAcquire(&shared->mutex);
	shared->pid = 0;
	shared->latch = NULL;
	SpinLockRelease(&shared->mutex);
}

/* Asks whether the configured device is usable (this makes the CUDA context). */
static void
probe_gpu(void)
{
	gd_error	why;
	int			ok;

	memset(&why, 0, sizeof(why));
	ok = gd_gpu_available(gd_device, &why);
	SpinLockAcquire(&shared->mutex);
	shared->device = gd_device;
	shared->gpu = ok ? 1 : -1;
	strlcpy(shared->why, ok ? "" : why.message, sizeof(shared->why));
	SpinLockRelease(&shared->mutex);
	if (!ok)
		ereport(LOG, (errmsg("gpu_dbscan GPU worker: no usable GPU: %s", why.message)));
}

/* Runs the request of slot i, if it is still queued. */
static void
serve(int i)
{
	WorkerSlot *s = &shared->slots[i];
	SharedArray arrays[NARRAYS];
	RequestShape r;
	int64		values[SLOT_VALUES];
	gd_params	params;
	gd_status	status = GD_ERR_DEVICE;
	gd_error	err;
	gd_run_stats stats;
	dsm_segment *segs[NARRAYS];
	char	   *at[NARRAYS];
	int			nsegs = 0;
	bool		mapped = true;
	Latch	   *owner;
	bool		withdrawn;
	int			hold_ms;

	SpinLockAcquire(&shared->mutex);
	if (s->state != SLOT_QUEUED)
	{
		SpinLockRelease(&shared->mutex);
		return;
	}
	s->state = SLOT_RUNNING;
	memcpy(arrays, s->arrays, sizeof(arrays));
	r = s->shape;
	memcpy(values, s->values, sizeof(values));
	params = s->params;
	hold_ms = s->hold_ms;
	SpinLockRelease(&shared->mutex);

	if (hold_ms > 0)
	{
		TimestampTz start = GetCurrentTimestamp();

		while (!worker_should_cancel(s) &&
			   !TimestampDifferenceExceeds(start, GetCurrentTimestamp(), hold_ms))
			pg_usleep(1000L);
	}

	memset(&err, 0, sizeof(err));
	memset(&stats, 0, sizeof(stats));
	/* each distinct segment attached once; NULL when the backend has given it up */
	for (int a = 0; a < NARRAYS && mapped; a++)
	{
		int			k;

		at[a] = NULL;
		if (array_bytes(&r, a) == 0)
			continue;
		for (k = 0; k < nsegs; k++)
			if (dsm_segment_handle(segs[k]) == arrays[a].handle)
				break;
		if (k == nsegs)
		{
			segs[k] = dsm_attach(arrays[a].handle);
			if (segs[k] == NULL)
			{
				mapped = false;
				break;
			}
			nsegs++;
		}
		at[a] = (char *) dsm_segment_address(segs[k]) + arrays[a].offset;
	}
	if (!mapped)
	{
		err.status = GD_ERR_DEVICE;
		strlcpy(err.message, "the request's shared memory is gone", sizeof(err.message));
	}
	else
	{
		ClusterJob	job = {params.eps, (const int64_t *) at[ARRAY_VALUES], r.nvalues,
						   (int32_t *) at[ARRAY_IDS], (uint8_t *) at[ARRAY_TYPES]};
		PointsCall	c = {NULL, NULL, NULL, r.dims, (const uint8_t *) at[ARRAY_KIND], r.nrows,
						 &job};

		if (at[ARRAY_VALUES] == NULL)
			job.minpoints = values;
		if (r.coords)
			c.coords = (const double *) at[ARRAY_X];
		else
		{
			c.x = (const double *) at[ARRAY_X];
			c.y = (const double *) at[ARRAY_Y];
		}
		/* this process's page tables for them in one call each, not a fault a page */
		for (int a = 0; a < NARRAYS; a++)
		{
			if (a == ARRAY_IDS || a == ARRAY_TYPES)
				prefault_write(at[a], array_bytes(&r, a));
			else
				prefault_read(at[a], array_bytes(&r, a));
		}
		params.should_cancel = worker_should_cancel;
		params.cancel_arg = s;
		params.report_step = NULL;
		params.report_arg = NULL;
		if (worker_should_cancel(s))
		{
			status = GD_ERR_CANCELLED;
			err.status = status;
			strlcpy(err.message, "clustering cancelled", sizeof(err.message));
		}
		else if (r.nrows > 0)
			status = core_points_run(&c, &params, &stats, &err);
		else
			status = GD_OK;
	}
	while (nsegs > 0)
		dsm_detach(segs[--nsegs]);

	/* stopped by the worker's own terminate, not by the backend's cancel */
	if (status == GD_ERR_CANCELLED && !s->cancel)
	{
		status = GD_ERR_DEVICE;
		err.status = status;
		strlcpy(err.message, "the GPU worker stopped during the run", sizeof(err.message));
	}
	SpinLockAcquire(&shared->mutex);
	withdrawn = s->cancel;
	owner = s->owner_latch;
	if (withdrawn)
		s->state = SLOT_FREE;
	else
	{
		s->state = SLOT_DONE;
		s->status = status;
		s->err = err;
		s->stats = stats;
	}
	SpinLockRelease(&shared->mutex);
	if (!withdrawn)
		SetLatch(owner);
}

void
gd_gpu_worker_main(Datum arg)
{
	TimestampTz probed_at;

	pqsignal(SIGTERM, die);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname("gpu_dbscan GPU worker");

	end_orphaned_runs();
	SpinLockAcquire(&shared->mutex);
	shared->pid = MyProcPid;
	shared->latch = MyLatch;
	shared->generation++;
	shared->gpu = 0;
	SpinLockRelease(&shared->mutex);
	before_shmem_exit(worker_exit, 0);

	probe_gpu();
	probed_at = GetCurrentTimestamp();
	for (;;)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1000,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		if ((shared->gpu < 0 &&
			 TimestampDifferenceExceeds(probed_at, GetCurrentTimestamp(), RECHECK_MS)) ||
			shared->device != gd_device)
		{
			probe_gpu();
			probed_at = GetCurrentTimestamp();
		}
		for (int i = 0; i < GD_WORKER_SLOTS; i++)
		{
			CHECK_FOR_INTERRUPTS();
			serve(i);
		}
	}
}

/* ---- the backends' side ------------------------------------------------ */

bool
gd_gpu_worker_active(int device, bool *usable, char *why, size_t whylen)
{
	TimestampTz start = 0;

	if (shared == NULL)
		return false;
	for (;;)
	{
		pid_t		pid;
		int			gpu;
		int			probed;

		SpinLockAcquire(&shared->mutex);
		pid = shared->pid;
		gpu = shared->gpu;
		probed = shared->device;
		if (gpu != 0)
			strlcpy(why, shared->why, whylen);
		SpinLockRelease(&shared->mutex);
		if (pid == 0)
			return false;		/* no worker (yet, or any more): in-process */
		if (gpu != 0)
		{
			if (probed != device)
				return false;	/* another device than the worker's */
			*usable = gpu > 0;
			return true;
		}
		/* the worker is starting CUDA: wait for its answer a little */
		if (start == 0)
			start = GetCurrentTimestamp();
		else if (TimestampDifferenceExceeds(start, GetCurrentTimestamp(), PROBE_WAIT_MS))
			return false;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 10,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Gives the request of slot s up on the way out of an error. */
static void
withdraw(WorkerSlot *s)
{
	SpinLockAcquire(&shared->mutex);
	if (s->state == SLOT_RUNNING)
		s->cancel = true;		/* the worker stops and frees it */
	else
		s->state = SLOT_FREE;
	SpinLockRelease(&shared->mutex);
}

static double
ms_between(instr_time a, instr_time b)
{
	INSTR_TIME_SUBTRACT(b, a);
	return INSTR_TIME_GET_MILLISEC(b);
}

void
gd_gpu_worker_handoff(GpuHandoff *totals)
{
	*totals = handoff;
}

/* ---- segments shared with the worker ---------------------------------- */

/* Forgets a shared segment as it is detached (on_dsm_detach). */
static void
unshare_segment(dsm_segment *seg, Datum arg)
{
	for (int k = 0; k < nshared_segments; k++)
		if (shared_segments[k].seg == seg)
		{
			shared_segments[k] = shared_segments[--nshared_segments];
			return;
		}
}

bool
gd_gpu_worker_share(dsm_segment *seg)
{
	if (shared == NULL || nshared_segments == MAX_SHARED_SEGMENTS)
		return false;
	/* the callback first: an entry is never left behind its segment */
	on_dsm_detach(seg, unshare_segment, (Datum) 0);
	shared_segments[nshared_segments].seg = seg;
	shared_segments[nshared_segments].base = dsm_segment_address(seg);
	shared_segments[nshared_segments].size = dsm_segment_map_length(seg);
	nshared_segments++;
	return true;
}

void *
gd_gpu_worker_alloc(Size bytes, dsm_segment **seg)
{
	bytes = Max(bytes, MAXIMUM_ALIGNOF);
	*seg = NULL;
	if (shared == NULL || nshared_segments == MAX_SHARED_SEGMENTS || !shm_has_room(bytes))
		return NULL;
	*seg = dsm_create(bytes, DSM_CREATE_NULL_IF_MAXSEGMENTS);
	if (*seg == NULL)
		return NULL;
	gd_gpu_worker_share(*seg);
	return dsm_segment_address(*seg);
}

/*
 * A segment of gd_gpu_worker_alloc_in goes with its memory context, unless
 * its resource owner detached it first (an error: the owner is released
 * before the contexts are deleted), which clears cb->arg.
 */
static void
detach_with_context(void *arg)
{
	MemoryContextCallback *cb = arg;

	if (cb->arg != NULL)
		dsm_detach((dsm_segment *) cb->arg);
}

static void
forget_context_callback(dsm_segment *seg, Datum arg)
{
	((MemoryContextCallback *) DatumGetPointer(arg))->arg = NULL;
}

void *
gd_gpu_worker_alloc_in(MemoryContext cxt, Size bytes)
{
	dsm_segment *seg;
	void	   *p;
	MemoryContextCallback *cb;
	MemoryContextCallback *self;

	/* the callbacks' memory first: no error once the segment exists */
	cb = MemoryContextAlloc(cxt, 2 * sizeof(MemoryContextCallback));
	p = gd_gpu_worker_alloc(bytes, &seg);
	if (p == NULL)
	{
		pfree(cb);
		return NULL;
	}
	/* cb[1] holds the segment; cb[0], registered with cxt, is handed cb[1] */
	self = &cb[1];
	self->arg = seg;
	cb[0].func = detach_with_context;
	cb[0].arg = self;
	on_dsm_detach(seg, forget_context_callback, PointerGetDatum(self));
	MemoryContextRegisterResetCallback(cxt, &cb[0]);
	return p;
}

/* Where [p, p + bytes) lies when a shared segment holds it whole. */
static bool
find_shared(const void *p, Size bytes, SharedArray *out)
{
	const char *c = p;

	for (int k = 0; k < nshared_segments && c != NULL; k++)
	{
		const SharedSegment *g = &shared_segments[k];

		if (c >= g->base && c + bytes <= g->base + g->size)
		{
			out->handle = dsm_segment_handle(g->seg);
			out->offset = c - g->base;
			return true;
		}
	}
	return false;
}

/*
 * gd_gpu_worker_cluster, the request held hold_ms by the worker first (c
 * NULL: an empty request).
 */
static bool
submit(const PointsCall *c, const gd_params *params, int hold_ms, gd_run_stats *stats,
	   gd_error *err, gd_status *status)
{
	RequestShape r = {0};
	const void *src[NARRAYS] = {0};
	SharedArray arrays[NARRAYS];
	bool		in_place[NARRAYS];
	bool		all_in_place = true;
	Size		bytes = 0;
	dsm_segment *seg = NULL;
	char	   *base = NULL;
	WorkerSlot *volatile slot = NULL;
	Latch	   *worker_latch;
	TimestampTz gone_since = 0;
	instr_time	t0,
				t1,
				t2,
				t3;

	INSTR_TIME_SET_CURRENT(t0);
	if (shared == NULL)
		return false;
	if (c != NULL)
	{
		r.nrows = c->nrows;
		r.dims = c->dims;
		r.coords = c->coords != NULL;
		r.types = c->job->types != NULL;
		r.nvalues = c->job->nminpoints;
		src[ARRAY_X] = r.coords ? c->coords : c->x;
		src[ARRAY_Y] = c->y;
		src[ARRAY_KIND] = c->row_kind;
		src[ARRAY_IDS] = c->job->ids;
		src[ARRAY_TYPES] = c->job->types;
		src[ARRAY_VALUES] = c->job->minpoints;
	}
	/* the arrays not in a shared segment go into one made for the request */
	memset(arrays, 0, sizeof(arrays));
	for (int a = 0; a < NARRAYS; a++)
	{
		Size		n = array_bytes(&r, a);

		in_place[a] = n == 0 || find_shared(src[a], n, &arrays[a]);
		if (!in_place[a])
		{
			arrays[a].offset = bytes;
			bytes += MAXALIGN(n);
		}
		all_in_place &= in_place[a];
	}
	if (bytes > 0)
	{
		if (!shm_has_room(bytes))
			return false;
		seg = dsm_create(bytes, DSM_CREATE_NULL_IF_MAXSEGMENTS);
		if (seg == NULL)
			return false;
		base = dsm_segment_address(seg);
		prefault_write(base, bytes);
		for (int a = 0; a < NARRAYS; a++)
		{
			if (in_place[a])
				continue;
			arrays[a].handle = dsm_segment_handle(seg);
			if (a != ARRAY_IDS && a != ARRAY_TYPES)
				memcpy(base + arrays[a].offset, src[a], array_bytes(&r, a));
		}
	}

	SpinLockAcquire(&shared->mutex);
	for (int i = 0; i < GD_WORKER_SLOTS; i++)
		if (shared->slots[i].state == SLOT_FREE)
		{
			WorkerSlot *s = &shared->slots[i];

			s->state = SLOT_QUEUED;
			s->cancel = false;
			s->owner_latch = MyLatch;
			memcpy(s->arrays, arrays, sizeof(arrays));
			s->shape = r;
			if (r.nvalues <= SLOT_VALUES && r.nvalues > 0)
				memcpy(s->values, c->job->minpoints, r.nvalues * sizeof(int64));
			s->hold_ms = hold_ms;
			s->params = *params;
			s->params.should_cancel = NULL;
			s->params.cancel_arg = NULL;
			s->params.report_step = NULL;
			s->params.report_arg = NULL;
			slot = s;
			break;
		}
	worker_latch = shared->latch;
	SpinLockRelease(&shared->mutex);
	if (slot == NULL)
	{
		if (seg)
			dsm_detach(seg);
		return false;			/* every slot taken: in-process */
	}
	INSTR_TIME_SET_CURRENT(t1);
	if (worker_latch != NULL)
		SetLatch(worker_latch);

	PG_TRY();
	{
		for (;;)
		{
			SlotState	state;
			pid_t		pid;

			SpinLockAcquire(&shared->mutex);
			state = slot->state;
			pid = shared->pid;
			if (state == SLOT_DONE)
			{
				*status = slot->status;
				*err = slot->err;
				*stats = slot->stats;
				slot->state = SLOT_FREE;
			}
			SpinLockRelease(&shared->mutex);
			if (state == SLOT_DONE)
				break;
			if (pid != 0)
				gone_since = 0;
			else if (gone_since == 0)
				gone_since = GetCurrentTimestamp();
			else if (TimestampDifferenceExceeds(gone_since, GetCurrentTimestamp(),
												WORKER_GONE_MS))
			{
				withdraw(slot);
				memset(err, 0, sizeof(*err));
				err->status = GD_ERR_DEVICE;
				strlcpy(err->message, "no GPU worker is running", sizeof(err->message));
				*status = GD_ERR_DEVICE;
				break;
			}
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 100,
							 PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
	PG_CATCH();
	{
		withdraw(slot);
		PG_RE_THROW();
	}
	PG_END_TRY();

	INSTR_TIME_SET_CURRENT(t2);
	if (*status == GD_OK && !in_place[ARRAY_IDS])
		memcpy(c->job->ids, base + arrays[ARRAY_IDS].offset, array_bytes(&r, ARRAY_IDS));
	if (*status == GD_OK && !in_place[ARRAY_TYPES])
		memcpy(c->job->types, base + arrays[ARRAY_TYPES].offset, array_bytes(&r, ARRAY_TYPES));
	if (seg)
		dsm_detach(seg);
	INSTR_TIME_SET_CURRENT(t3);
	handoff.requests++;
	handoff.in_place += r.nrows > 0 && all_in_place;
	handoff.in_ms += ms_between(t0, t1);
	handoff.wait_ms += ms_between(t1, t2);
	handoff.core_ms += *status == GD_OK ? stats->t_total * 1000.0 : 0;
	handoff.out_ms += ms_between(t2, t3);
	return true;
}

bool
gd_gpu_worker_cluster(const PointsCall *c, const gd_params *params, gd_run_stats *stats,
					  gd_error *err, gd_status *status)
{
	return submit(c, params, 0, stats, err, status);
}

/*
 * Test-only, not part of the extension's SQL (test/gpu/worker_test.sh
 * creates them, LANGUAGE C): gpu_dbscan_worker_probe(hold_ms) sends the
 * worker an empty request that it holds hold_ms milliseconds (polling the
 * cancel flag, as a run polls it) and returns its status, NULL when the
 * worker did not take it (not preloaded, no free slot); cancels and
 * timeouts of the caller end it as they end a run.
 * gpu_dbscan_worker_busy() counts the request slots in use.
 */
PG_FUNCTION_INFO_V1(gpu_dbscan_worker_probe);
PG_FUNCTION_INFO_V1(gpu_dbscan_worker_busy);

Datum
gpu_dbscan_worker_probe(PG_FUNCTION_ARGS)
{
	gd_params	params;
	gd_run_stats stats;
	gd_error	err;
	gd_status	status;

	gd_params_init(&params);
	memset(&err, 0, sizeof(err));
	if (!submit(NULL, &params, PG_GETARG_INT32(0), &stats, &err, &status))
		PG_RETURN_NULL();
	PG_RETURN_INT32((int32) status);
}

Datum
gpu_dbscan_worker_busy(PG_FUNCTION_ARGS)
{
	int			busy = 0;

	if (shared == NULL)
		PG_RETURN_NULL();
	SpinLockAcquire(&shared->mutex);
	for (int i = 0; i < GD_WORKER_SLOTS; i++)
		busy += shared->slots[i].state != SLOT_FREE;
	SpinLockRelease(&shared->mutex);
	PG_RETURN_INT32(busy);
}
