/*
 * memory_budget.c — what gpu_dbscan may hold in host memory: one query
 * (gpu_dbscan.max_query_memory, superuser) and all sessions together
 * (gpu_dbscan.max_total_memory, postgresql.conf).  The core counts every
 * large allocation in its ledger (core/memory_ledger.hpp) and refuses a
 * charge past either limit with a clean error; this file gives it the
 * limits and the shared counter, and charges the glue's own large
 * allocations (a sweep's rows x values ids) through the same ledger.
 *
 * Sharing the total.  The module is loaded on demand, without
 * shared_preload_libraries, so it has no shared memory of its own, and the
 * core charges from worker threads, where no lock-manager call may be made.
 * The total is therefore a counter in a small file of the data directory,
 * gpu_dbscan_memory.ledger, that every backend maps (MAP_SHARED) and updates
 * with atomic instructions: a charge is one atomic add, from any thread.  A
 * backend that dies without giving its charges back (killed, crashed) must
 * not leak them forever, so each backend also keeps its share in a slot of
 * the file, tagged with its pid: a slot whose pid is gone is taken back
 * (its bytes subtracted from the total) by the next backend that looks
 * (each statement that clusters looks once), and a backend gives its slot
 * back when it exits.
 * The file survives restarts; its counts are only ever those of live
 * backends once the dead ones' slots are taken back.  Where the file cannot
 * be mapped (a read-only data directory), the per-query limit still holds
 * and a warning says the shared budget does not.
 */
#include "postgres.h"

#include <errno.h>
#include <signal.h>

#include "access/htup_details.h"
#include "access/xact.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "utils/timestamp.h"

#include "gd_core.h"
#include "guc.h"
#include "mapped_file.h"
#include "memory_budget.h"

#define LEDGER_FILE "gpu_dbscan_memory.ledger"
#define LEDGER_SLOTS 4096
#define SLOT_RECLAIMING (-1)

typedef struct LedgerSlot
{
	int32		pid;			/* 0 free, SLOT_RECLAIMING, else its backend */
	int32		pad;
	int64		bytes;			/* what that backend holds */
} LedgerSlot;

typedef struct LedgerFile
{
	int64		total;			/* what all backends hold */
	LedgerSlot	slots[LEDGER_SLOTS];
} LedgerFile;

static LedgerFile *ledger;
static LedgerSlot *my_slot;
static bool ledger_tried;
static TimestampTz reclaimed_at;	/* the statement that last looked for dead slots */
static int64 half_the_memory = -1;

static bool
pid_alive(int32 pid)
{
	return kill(pid, 0) == 0 || errno != ESRCH;
}

/* Takes back slot s from a dead backend (or a stale one with our pid). */
static void
reclaim(LedgerSlot *s, int32 pid)
{
	int32		expected = pid;
	int64		bytes;

	if (!__atomic_compare_exchange_n(&s->pid, &expected, SLOT_RECLAIMING, false,
									 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return;
	bytes = __atomic_exchange_n(&s->bytes, 0, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&ledger->total, bytes, __ATOMIC_SEQ_CST);
	__atomic_store_n(&s->pid, 0, __ATOMIC_SEQ_CST);
}

/* Takes back the slots of backends that are gone. */
static void
reclaim_dead(void)
{
	for (int i = 0; i < LEDGER_SLOTS; i++)
	{
		LedgerSlot *s = &ledger->slots[i];
		int32		pid = __atomic_load_n(&s->pid, __ATOMIC_SEQ_CST);

		if (pid > 0 && s != my_slot && (pid == MyProcPid || !pid_alive(pid)))
			reclaim(s, pid);
	}
}

/* At backend exit: the slot's bytes go back to the total, the slot is free. */
static void
leave_ledger(int code, Datum arg)
{
	if (ledger && my_slot)
	{
		int64		bytes = __atomic_exchange_n(&my_slot->bytes, 0, __ATOMIC_SEQ_CST);

		__atomic_sub_fetch(&ledger->total, bytes, __ATOMIC_SEQ_CST);
		__atomic_store_n(&my_slot->pid, 0, __ATOMIC_SEQ_CST);
		my_slot = NULL;
	}
}

/* Maps the ledger file and takes a slot; once per backend. */
static void
join_ledger(void)
{
	char		path[MAXPGPATH];
	void	   *p;

	ledger_tried = true;
	snprintf(path, sizeof(path), "%s/%s", DataDir, LEDGER_FILE);
	p = gd_map_file(path, sizeof(LedgerFile), false);
	if (p == NULL)
	{
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("gpu_dbscan: could not map \"%s\": %m", path),
				 errdetail("gpu_dbscan.max_total_memory is not enforced in this session.")));
		return;
	}
	ledger = (LedgerFile *) p;
	reclaim_dead();
	for (int i = 0; i < LEDGER_SLOTS && !my_slot; i++)
	{
		int32		expected = 0;

		if (__atomic_compare_exchange_n(&ledger->slots[i].pid, &expected, MyProcPid, false,
										__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			my_slot = &ledger->slots[i];
	}
	/* without a slot the total is still counted; only a crash could leak it */
	on_proc_exit(leave_ledger, (Datum) 0);
}

/* gpu_dbscan.max_total_memory in bytes: 0 is half the physical memory, -1 none. */
static int64
total_limit_bytes(void)
{
	if (gd_max_total_memory_mb < 0)
		return 0;
	if (gd_max_total_memory_mb == 0)
	{
		if (half_the_memory < 0)
		{
			long		pages = sysconf(_SC_PHYS_PAGES);
			long		page = sysconf(_SC_PAGESIZE);

			half_the_memory = pages > 0 && page > 0 ? (int64) pages * page / 2 : 0;
		}
		return half_the_memory;
	}
	return (int64) gd_max_total_memory_mb * 1024 * 1024;
}

void
gd_memory_prepare(void)
{
	gd_memory_limits limits;

	/*
	 * Dead backends' slots are looked for once per statement (a query over
	 * 100,000 small partitions calls here 100,000 times).
	 */
	if (!ledger_tried)
	{
		join_ledger();
		reclaimed_at = GetCurrentStatementStartTimestamp();
	}
	else if (ledger && reclaimed_at != GetCurrentStatementStartTimestamp())
	{
		reclaim_dead();
		reclaimed_at = GetCurrentStatementStartTimestamp();
	}
	memset(&limits, 0, sizeof(limits));
	limits.query_limit = (int64) gd_max_query_memory_mb * 1024 * 1024;
	limits.total_limit = total_limit_bytes();
	if (ledger)
	{
		limits.total_used = &ledger->total;
		limits.mine = my_slot ? &my_slot->bytes : NULL;
	}
	gd_memory_configure(&limits);
}

/* What a charged allocation gives back when its context goes, or before. */
struct GdCharge
{
	MemoryContextCallback cb;
	int64		bytes;
};

static void
refund_charged(void *arg)
{
	GdCharge   *c = (GdCharge *) arg;

	if (c->bytes > 0)
		gd_memory_refund(c->bytes);
	c->bytes = 0;
}

/* See memory_budget.h. */
void
gd_refund(GdCharge *c)
{
	if (c)
		refund_charged(c);
}

void *
gd_alloc_charged(MemoryContext cxt, Size bytes, const char *what)
{
	gd_charge_with(cxt, bytes, what);
	/* from here a failed allocation is refunded with cxt */
	return MemoryContextAllocHuge(cxt, bytes);
}

/* See memory_budget.h. */
void
gd_charge_with(MemoryContext cxt, Size bytes, const char *what)
{
	(void) gd_charge(cxt, bytes, what);
}

/* Charges bytes to the ledger as what; past a limit, the error naming it. */
static void
charge_or_raise(Size bytes, const char *what)
{
	gd_error	err;

	gd_memory_prepare();
	memset(&err, 0, sizeof(err));
	if (gd_memory_charge((int64) bytes, what, &err) != GD_OK)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("gpu_dbscan: out of memory"),
				 errdetail("%s", err.message)));
}

/* See memory_budget.h. */
GdCharge *
gd_charge(MemoryContext cxt, Size bytes, const char *what)
{
	GdCharge   *c = MemoryContextAllocZero(cxt, sizeof(GdCharge));

	charge_or_raise(bytes, what);
	c->bytes = (int64) bytes;
	c->cb.func = refund_charged;
	c->cb.arg = c;
	MemoryContextRegisterResetCallback(cxt, &c->cb);
	return c;
}

static void
refund_segment(dsm_segment *seg, Datum bytes)
{
	gd_memory_refund(DatumGetInt64(bytes));
}

/* See memory_budget.h. */
void
gd_charge_segment(dsm_segment *seg, const char *what)
{
	Size		bytes = dsm_segment_map_length(seg);

	charge_or_raise(bytes, what);
	on_dsm_detach(seg, refund_segment, Int64GetDatum((int64) bytes));
}

PG_FUNCTION_INFO_V1(gpu_dbscan_memory);

/*
 * gpu_dbscan_memory(): what this session and all sessions hold through
 * gpu_dbscan now, and the two limits (bytes; NULL where there is none).
 */
Datum
gpu_dbscan_memory(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};
	int64		total_limit;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "gpu_dbscan_memory: return type must be a row type");
	gd_memory_prepare();
	values[0] = Int64GetDatum(gd_memory_held());
	values[1] = Int64GetDatum(ledger ? __atomic_load_n(&ledger->total, __ATOMIC_SEQ_CST) : 0);
	nulls[1] = ledger == NULL;
	values[2] = Int64GetDatum((int64) gd_max_query_memory_mb * 1024 * 1024);
	nulls[2] = gd_max_query_memory_mb == 0;
	total_limit = total_limit_bytes();
	values[3] = Int64GetDatum(total_limit);
	nulls[3] = total_limit == 0;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}
