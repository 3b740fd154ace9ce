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
 * GD_WORKER_SLOTS request slots.  A backend copies its rows into a DSM
 * segment of its own (x, y, row kinds, then room for the ids), fills a free
 * slot (QUEUED), sets the worker's latch and sleeps on its own latch; the
 * worker takes the slot (RUNNING), attaches the segment, runs the core's
 * gd_cluster_points into it, detaches, marks the slot DONE with the status,
 * message and statistics, and sets the backend's latch.  The backend copies
 * the ids out and frees the slot and the segment.
 *
 * Failure paths, none of which takes a user's query down with the worker:
 *  - cancel, statement_timeout or terminate of the backend while it waits:
 *    its CHECK_FOR_INTERRUPTS raises the error; on the way out it withdraws
 *    the request (a queued slot is freed, a running one gets its cancel
 *    flag, which the core polls: the worker stops within milliseconds and
 *    frees the slot).  The backend's segment goes with its transaction's
 *    resource owner; the worker's mapping with its detach.  Nothing leaks.
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

#include <sys/statvfs.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/dsm.h"
#include "storage/dsm_impl.h"
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

#include "gpu_worker.h"
#include "guc.h"

#define GD_WORKER_SLOTS 64
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

typedef struct WorkerSlot
{
	SlotState	state;
	bool		cancel;			/* withdrawn while running: stop, then free */
	Latch	   *owner_latch;
	dsm_handle	handle;
	int64		nrows;
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
	dsm_handle	handle;
	int64		nrows;
	gd_params	params;
	gd_status	status = GD_ERR_DEVICE;
	gd_error	err;
	gd_run_stats stats;
	dsm_segment *seg;
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
	handle = s->handle;
	nrows = s->nrows;
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
	/* NULL when the backend has already given its segment up */
	seg = dsm_attach(handle);
	if (seg == NULL)
	{
		err.status = GD_ERR_DEVICE;
		strlcpy(err.message, "the request's shared memory is gone", sizeof(err.message));
	}
	else
	{
		char	   *base = dsm_segment_address(seg);
		const double *x = (const double *) base;
		const double *y = x + nrows;
		const uint8_t *kind = (const uint8_t *) (y + nrows);
		int32_t    *ids = (int32_t *) (base + MAXALIGN(nrows * (2 * sizeof(double) + 1)));

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
		else if (nrows > 0)
			status = gd_cluster_points(x, y, kind, nrows, &params, ids, &stats, &err);
		else
			status = GD_OK;
		dsm_detach(seg);
	}

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

/*
 * Room for bytes more in the DSM's file system: a segment that does not fit
 * would raise an error mid-creation, where the in-process path could run.
 */
static bool
dsm_has_room(Size bytes)
{
	struct statvfs fs;

	if (dynamic_shared_memory_type != DSM_IMPL_POSIX)
		return true;
	if (statvfs("/dev/shm", &fs) != 0)
		return true;
	return (uint64) fs.f_bavail * fs.f_frsize > (uint64) bytes + bytes / 8;
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

/* gd_gpu_worker_cluster, the request held hold_ms by the worker first. */
static bool
submit(const double *x, const double *y, const uint8_t *row_kind, int64_t nrows,
	   const gd_params *params, int hold_ms, int32_t *cluster_ids, gd_run_stats *stats,
	   gd_error *err, gd_status *status)
{
	Size		ids_at = MAXALIGN(nrows * (2 * sizeof(double) + 1));
	Size		bytes = Max(ids_at + nrows * sizeof(int32_t), MAXIMUM_ALIGNOF);
	dsm_segment *seg;
	char	   *base;
	WorkerSlot *volatile slot = NULL;
	Latch	   *worker_latch;
	TimestampTz gone_since = 0;
	instr_time	t0,
				t1,
				t2,
				t3;

	INSTR_TIME_SET_CURRENT(t0);
	if (shared == NULL || !dsm_has_room(bytes))
		return false;
	seg = dsm_create(bytes, DSM_CREATE_NULL_IF_MAXSEGMENTS);
	if (seg == NULL)
		return false;
	base = dsm_segment_address(seg);
	if (nrows > 0)
	{
		memcpy(base, x, nrows * sizeof(double));
		memcpy(base + nrows * sizeof(double), y, nrows * sizeof(double));
		memcpy(base + 2 * nrows * sizeof(double), row_kind, nrows);
	}

	SpinLockAcquire(&shared->mutex);
	for (int i = 0; i < GD_WORKER_SLOTS; i++)
		if (shared->slots[i].state == SLOT_FREE)
		{
			WorkerSlot *s = &shared->slots[i];

			s->state = SLOT_QUEUED;
			s->cancel = false;
			s->owner_latch = MyLatch;
			s->handle = dsm_segment_handle(seg);
			s->nrows = nrows;
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
	if (*status == GD_OK && nrows > 0)
		memcpy(cluster_ids, base + ids_at, nrows * sizeof(int32_t));
	dsm_detach(seg);
	INSTR_TIME_SET_CURRENT(t3);
	handoff.requests++;
	handoff.in_ms += ms_between(t0, t1);
	handoff.wait_ms += ms_between(t1, t2);
	handoff.core_ms += *status == GD_OK ? stats->t_total * 1000.0 : 0;
	handoff.out_ms += ms_between(t2, t3);
	return true;
}

bool
gd_gpu_worker_cluster(const double *x, const double *y, const uint8_t *row_kind,
					  int64_t nrows, const gd_params *params, int32_t *cluster_ids,
					  gd_run_stats *stats, gd_error *err, gd_status *status)
{
	return submit(x, y, row_kind, nrows, params, 0, cluster_ids, stats, err, status);
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
	if (!submit(NULL, NULL, NULL, 0, &params, PG_GETARG_INT32(0), NULL, &stats, &err, &status))
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
