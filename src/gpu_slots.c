/*
 * gpu_slots.c — at most gpu_dbscan.max_gpu_sessions sessions use the GPU at
 * once, so that many sessions times each one's device-memory budget cannot
 * exhaust the card.
 *
 * The module is loaded on demand (no shared_preload_libraries), so it has no
 * shared memory of its own: the slots are heavyweight locks of the lock
 * manager, which every backend shares anyway.  Slot n (1..cap) is an
 * advisory lock tag with database 0 and objsubid SLOT_FIELD4; lock 0 of the
 * same kind is the queue.  pg_advisory_*() always put the current database
 * in the tag, so SQL can neither take nor release these; pg_locks shows them
 * (locktype advisory, database 0, objid the slot, objsubid 18244).
 *
 * A GPU run holds one slot, taken just before and released just after it.
 * The locks are transaction-level ones: an error, a cancel or a terminate
 * in between gives them back with the (sub)transaction's abort.
 *
 * Taking a slot goes through the queue so that nobody waits forever: the
 * queue lock is taken first (a waiting session sleeps in the lock manager,
 * first come first served, where cancels, statement_timeout and lock_timeout
 * end the wait as for any lock), and its holder, the head of the line, polls
 * the slots every POLL_MS until one is free, then passes the queue on.  A
 * session that has just finished a GPU run and wants the GPU again queues
 * behind those already waiting.  No deadlock can form: a slot holder waits
 * for nothing until it has released its slot, and the head of the line
 * polls instead of waiting in the lock manager.  A wait with a time limit
 * (backend = auto, gpu_dbscan.gpu_wait_timeout) polls for the queue lock
 * too, which it can only get when nobody is queued, so it never overtakes
 * the sessions waiting without a limit.
 *
 * A cap lowered by a reload takes effect for the next slots taken; runs
 * holding a slot above the new cap finish first.
 */
#include "postgres.h"

#include "access/xact.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "gpu_slots.h"
#include "guc.h"

#define SLOT_FIELD4 0x4744		/* "GD", pg_locks.objsubid 18244 */
#define QUEUE 0					/* the lock of the line; slots are 1..cap */
#define POLL_MS 5

static int	held_slot;			/* 1..cap while a slot is held, else 0 */
static int	held_depth;			/* nested acquires of the held slot */
static bool callbacks_registered;

static void
slot_tag(LOCKTAG *tag, int n)
{
	SET_LOCKTAG_ADVISORY(*tag, InvalidOid, 0, (uint32) n, SLOT_FIELD4);
}

/* Takes lock n, waiting in the lock manager when wait; false when busy. */
static bool
take(int n, bool wait)
{
	LOCKTAG		tag;

	slot_tag(&tag, n);
	return LockAcquire(&tag, ExclusiveLock, false, !wait) != LOCKACQUIRE_NOT_AVAIL;
}

static void
give(int n)
{
	LOCKTAG		tag;

	slot_tag(&tag, n);
	LockRelease(&tag, ExclusiveLock, false);
}

/* Sleeps up to ms on the latch; a cancel or terminate raises its error here. */
static void
pause_ms(long ms)
{
	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, ms,
					 PG_WAIT_EXTENSION);
	ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();
}

static double
ms_since(TimestampTz start)
{
	long		secs;
	int			usecs;

	TimestampDifference(start, GetCurrentTimestamp(), &secs, &usecs);
	return secs * 1000.0 + usecs / 1000.0;
}

/*
 * The abort of a (sub)transaction has released the locks it took; forget
 * the slot.  (A slot is taken and released within one function call, so one
 * still held at the end of a transaction or subtransaction was taken in it.)
 */
static void
forget_slot(void)
{
	held_slot = 0;
	held_depth = 0;
}

static void
xact_callback(XactEvent event, void *arg)
{
	forget_slot();
}

static void
subxact_callback(SubXactEvent event, SubTransactionId mySubid,
				 SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		forget_slot();
}

/* Takes the first free slot of 1..cap; true when one was free. */
static bool
take_free_slot(int cap)
{
	for (int n = 1; n <= cap; n++)
		if (take(n, false))
		{
			held_slot = n;
			return true;
		}
	return false;
}

bool
gd_gpu_slot_acquire(int wait_ms, double *waited_ms)
{
	int			cap = gd_max_gpu_sessions;
	TimestampTz start = GetCurrentTimestamp();

	*waited_ms = 0;
	if (cap <= 0)
		return true;
	if (held_slot != 0)
	{
		held_depth++;
		return true;
	}
	if (!callbacks_registered)
	{
		RegisterXactCallback(xact_callback, NULL);
		RegisterSubXactCallback(subxact_callback, NULL);
		callbacks_registered = true;
	}

	/* join the line */
	if (wait_ms < 0)
		(void) take(QUEUE, true);
	else
		while (!take(QUEUE, false))
		{
			if (ms_since(start) >= wait_ms)
			{
				*waited_ms = ms_since(start);
				return false;
			}
			pause_ms(Min(POLL_MS, wait_ms));
		}

	/* the head of the line: the first slot that frees is ours */
	while (!take_free_slot(cap))
	{
		if (wait_ms >= 0 && ms_since(start) >= wait_ms)
			break;
		pause_ms(POLL_MS);
	}
	give(QUEUE);
	*waited_ms = ms_since(start);
	return held_slot != 0;
}

int
gd_gpu_slot_held(void)
{
	return held_slot;
}

void
gd_gpu_slot_release(void)
{
	if (held_slot == 0)
		return;
	if (held_depth > 0)
	{
		held_depth--;
		return;
	}
	give(held_slot);
	held_slot = 0;
}

PG_FUNCTION_INFO_V1(gpu_dbscan_slot_probe);

/*
 * Test-only, not part of the extension's SQL: a superuser creates it (in
 * pg_temp, LANGUAGE C) to test the cap on a machine without a GPU.
 * slot_probe(hold_ms, wait_ms) takes a slot as a GPU run does (wait_ms < 0:
 * as backend = gpu, else as auto with that timeout), holds it hold_ms
 * milliseconds and releases it; returns the milliseconds waited, NULL when
 * no slot was free in time.
 */
Datum
gpu_dbscan_slot_probe(PG_FUNCTION_ARGS)
{
	int32		hold_ms = PG_GETARG_INT32(0);
	int32		wait_ms = PG_GETARG_INT32(1);
	double		waited;
	TimestampTz start;

	if (!gd_gpu_slot_acquire(wait_ms, &waited))
		PG_RETURN_NULL();
	start = GetCurrentTimestamp();
	while (ms_since(start) < hold_ms)
		pause_ms(Min(10, hold_ms));
	gd_gpu_slot_release();
	PG_RETURN_FLOAT8(waited);
}
