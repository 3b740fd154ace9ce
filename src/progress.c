/*
 * progress.c — gpu_dbscan_progress(): long runs seen from other sessions
 * (see progress.h).
 */
#include "postgres.h"

#include <sys/mman.h>
#include <unistd.h>

#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "common/file_perm.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "mapped_file.h"
#include "progress.h"

#define PROGRESS_MAGIC 0x67647072	/* "gdpr" */
#define PROGRESS_VERSION 2
#define PROGRESS_PREFIX "gpu_dbscan."

/* The record; changecount is odd while the owner writes (pgstat's scheme). */
typedef struct GdProgressRecord
{
	uint32		magic;
	uint32		version;
	volatile uint32 changecount;
	int32		pid;
	Oid			roleid;
	Oid			dbid;
	TimestampTz backend_start;
	TimestampTz started;		/* the current partition's start */
	TimestampTz phase_started;
	int32		phase;
	int64		rows_total;
	int64		rows_read;
	int64		partitions_done;	/* in this transaction */
	int64		step;			/* step of steps of the core's run (0 of 0: none) */
	int64		steps;
	char		function[NAMEDATALEN];
} GdProgressRecord;

static GdProgressRecord *progress = NULL;
static bool progress_failed = false;
static bool xact_callback_set = false;

static void
progress_path(char *path, size_t size, int pid)
{
	snprintf(path, size, "%s/%s%d", PG_STAT_TMP_DIR, PROGRESS_PREFIX, pid);
}

#define WRITE_BEGIN() \
	do { progress->changecount++; pg_write_barrier(); } while (0)
#define WRITE_END() \
	do { pg_write_barrier(); progress->changecount++; } while (0)

/* Backend exit: the file goes. */
static void
progress_at_exit(int code, Datum arg)
{
	char		path[MAXPGPATH];

	if (progress == NULL)
		return;
	munmap(progress, sizeof(GdProgressRecord));
	progress = NULL;
	progress_path(path, sizeof(path), MyProcPid);
	unlink(path);
}

/* The end of a transaction (an error included) ends what it was doing. */
static void
progress_xact_callback(XactEvent event, void *arg)
{
	if (progress == NULL)
		return;
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_PREPARE)
	{
		WRITE_BEGIN();
		progress->phase = GD_PHASE_IDLE;
		progress->partitions_done = 0;
		progress->rows_total = 0;
		progress->rows_read = 0;
		WRITE_END();
	}
}

/* Creates and maps this backend's file on first use; false when that failed. */
static bool
progress_attach(void)
{
	char		path[MAXPGPATH];
	void	   *p;

	if (progress != NULL)
		return true;
	if (progress_failed)
		return false;
	progress_failed = true;		/* until it worked */
	progress_path(path, sizeof(path), MyProcPid);
	p = gd_map_file(path, sizeof(GdProgressRecord), true);
	if (p == NULL)
	{
		elog(DEBUG1, "gpu_dbscan: no progress file \"%s\": %m", path);
		return false;
	}
	progress = (GdProgressRecord *) p;
	memset(progress, 0, sizeof(GdProgressRecord));
	progress->pid = MyProcPid;
	progress->backend_start = MyStartTimestamp;
	progress->version = PROGRESS_VERSION;
	pg_write_barrier();
	progress->magic = PROGRESS_MAGIC;
	on_proc_exit(progress_at_exit, (Datum) 0);
	if (!xact_callback_set)
	{
		RegisterXactCallback(progress_xact_callback, NULL);
		xact_callback_set = true;
	}
	progress_failed = false;
	return true;
}

void
gd_progress_begin(const char *fn, int64 rows_total)
{
	TimestampTz now;

	if (!progress_attach())
		return;
	now = GetCurrentTimestamp();
	WRITE_BEGIN();
	progress->roleid = GetUserId();
	progress->dbid = MyDatabaseId;
	strlcpy(progress->function, fn, NAMEDATALEN);
	progress->rows_total = rows_total;
	progress->rows_read = 0;
	progress->started = now;
	progress->phase_started = now;
	progress->phase = GD_PHASE_READING;
	progress->step = 0;
	progress->steps = 0;
	WRITE_END();
}

void
gd_progress_phase(GdProgressPhase phase)
{
	if (progress == NULL || progress->phase == GD_PHASE_IDLE)
		return;
	WRITE_BEGIN();
	progress->phase = phase;
	progress->phase_started = GetCurrentTimestamp();
	progress->step = 0;
	progress->steps = 0;
	WRITE_END();
}

void
gd_progress_rows(int64 rows_read)
{
	if (progress == NULL || progress->phase == GD_PHASE_IDLE)
		return;
	WRITE_BEGIN();
	progress->rows_read = rows_read;
	WRITE_END();
}

void
gd_progress_step(void *arg, int64_t done, int64_t total)
{
	if (progress == NULL || progress->phase == GD_PHASE_IDLE)
		return;
	WRITE_BEGIN();
	progress->step = done;
	progress->steps = total;
	WRITE_END();
}

void
gd_progress_end(void)
{
	if (progress == NULL || progress->phase == GD_PHASE_IDLE)
		return;
	WRITE_BEGIN();
	progress->phase = GD_PHASE_IDLE;
	progress->partitions_done++;
	WRITE_END();
}

static const char *
phase_name(int32 phase)
{
	switch (phase)
	{
		case GD_PHASE_READING:
			return "reading rows";
		case GD_PHASE_SLOT_WAIT:
			return "waiting for a GPU slot";
		case GD_PHASE_CLUSTER_CPU:
			return "clustering on the CPU";
		case GD_PHASE_CLUSTER_GPU:
			return "clustering on the GPU";
		case GD_PHASE_PAIRS:
			return "testing candidate pairs";
		case GD_PHASE_GRAPH:
			return "clustering the pair graph";
		default:
			return "idle";
	}
}

/* Reads one record consistently (a few tries while its owner writes); false if none. */
static bool
read_record(const char *path, GdProgressRecord *rec)
{
	int			fd;
	int			tries;
	bool		ok = false;

	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0)
		return false;
	for (tries = 0; tries < 100 && !ok; tries++)
	{
		uint32		before;

		if (pg_pread(fd, rec, sizeof(*rec), 0) != sizeof(*rec))
			break;
		before = rec->changecount;
		if (before % 2 != 0)
		{
			pg_usleep(100);
			continue;
		}
		pg_read_barrier();
		{
			uint32		after;

			if (pg_pread(fd, &after, sizeof(after), offsetof(GdProgressRecord, changecount)) !=
				sizeof(after))
				break;
			ok = (after == before);
		}
	}
	CloseTransientFile(fd);
	return ok && rec->magic == PROGRESS_MAGIC && rec->version == PROGRESS_VERSION;
}

PG_FUNCTION_INFO_V1(gpu_dbscan_progress);

/*
 * gpu_dbscan_progress(): a row per backend clustering now (its own, and
 * others' where the caller may see them: the same role, or pg_read_all_stats).
 */
Datum
gpu_dbscan_progress(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	DIR		   *dir;
	struct dirent *de;
	TimestampTz now = GetCurrentTimestamp();
	bool		all_stats = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);

	InitMaterializedSRF(fcinfo, 0);
	dir = AllocateDir(PG_STAT_TMP_DIR);
	while ((de = ReadDir(dir, PG_STAT_TMP_DIR)) != NULL)
	{
		char		path[MAXPGPATH];
		GdProgressRecord rec;
		Datum		values[12];
		bool		nulls[12] = {0};
		char	   *end;
		long		pid;

		CHECK_FOR_INTERRUPTS();
		if (strncmp(de->d_name, PROGRESS_PREFIX, strlen(PROGRESS_PREFIX)) != 0)
			continue;
		pid = strtol(de->d_name + strlen(PROGRESS_PREFIX), &end, 10);
		if (*end != '\0' || pid <= 0)
			continue;
		/* a file left by a backend that is gone (a crash) */
		if (BackendPidGetProc((int) pid) == NULL)
			continue;
		snprintf(path, sizeof(path), "%s/%s", PG_STAT_TMP_DIR, de->d_name);
		if (!read_record(path, &rec) || rec.pid != pid || rec.phase == GD_PHASE_IDLE)
			continue;
		if (!all_stats && !has_privs_of_role(GetUserId(), rec.roleid))
			continue;
		rec.function[NAMEDATALEN - 1] = '\0';
		values[0] = Int32GetDatum(rec.pid);
		values[1] = TimestampTzGetDatum(rec.backend_start);
		values[2] = CStringGetTextDatum(rec.function);
		values[3] = CStringGetTextDatum(phase_name(rec.phase));
		values[4] = Int64GetDatum(rec.rows_read);
		values[5] = Int64GetDatum(rec.rows_total);
		values[6] = Int64GetDatum(rec.partitions_done);
		values[7] = Float8GetDatum((double) (now - rec.started) / 1000.0);
		values[8] = Float8GetDatum((double) (now - rec.phase_started) / 1000.0);
		values[9] = ObjectIdGetDatum(rec.dbid);
		values[10] = Int64GetDatum(rec.step);
		values[11] = Int64GetDatum(rec.steps);
		nulls[10] = nulls[11] = (rec.steps == 0);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	FreeDir(dir);
	return (Datum) 0;
}
