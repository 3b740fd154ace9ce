/*
 * guc.c — every gpu_dbscan.* setting, in one place.
 *
 * Device memory has two settings: gpu_dbscan.max_device_memory, the
 * administrator's cap (postgresql.conf, SIGHUP), and
 * gpu_dbscan.device_memory_budget, each session's own (USERSET).  Setting the
 * budget above the cap is an error (the check hook); the budget the GPU back
 * end gets, gd_device_memory_budget_mb, is min(budget, cap) whatever the
 * order of changes (a cap lowered by a reload also lowers budgets set
 * before), and the cap itself when the budget is 0 ("let it choose"); the
 * read-only gpu_dbscan.effective_device_memory_budget shows it.
 *
 * A budget bounds one session; gpu_dbscan.max_gpu_sessions (SIGHUP) bounds
 * how many sessions use the GPU at once (gpu_slots.c), so the card holds at
 * most max_gpu_sessions budgets plus each process's CUDA context.
 *
 * CPU threads likewise: gpu_dbscan.max_threads (SIGHUP, 0 = the machine's
 * hardware threads) is the administrator's ceiling, gpu_dbscan.threads
 * (USERSET, 0 = the ceiling) each session's wish, held at the ceiling
 * without an error; gd_effective_threads, shown by the read-only
 * gpu_dbscan.effective_threads, is what the core gets.  The core then starts
 * only as many as the work pays for (GD_MIN_ITEMS_PER_THREAD items each), so
 * a small partition runs on one thread whatever the setting.
 */
#include "postgres.h"

#include <limits.h>

#include "utils/guc.h"

#include "gd_core.h"
#include "guc.h"

int			gd_backend_setting = GD_SETTING_AUTO;
int			gd_gpu_min_rows = 10000;
int			gd_threads = 0;
int			gd_max_threads = 0;
int			gd_effective_threads = 1;
int			gd_device = 0;
int			gd_device_memory_budget_mb = 0;
int			gd_device_memory_budget_setting_mb = 0;
int			gd_max_device_memory_mb = 0;
int			gd_max_gpu_sessions = 4;
int			gd_gpu_wait_timeout_ms = 10000;
int			gd_max_query_memory_mb = 0;
int			gd_max_total_memory_mb = 0;
char	   *gd_devices_setting = NULL;
int			gd_multi_gpu_min_rows = 0;

static const GdDeviceList no_devices = {0};
const GdDeviceList *gd_devices = &no_devices;

StaticAssertDecl(GD_GUC_MAX_DEVICES == GD_MAX_DEVICES, "one length for a device list");
bool		gd_fast_path = true;
int			gd_scan_workers = -1;
int			gd_exact_test_workers = -1;

static const struct config_enum_entry backend_options[] = {
	{"auto", GD_SETTING_AUTO, false},
	{"gpu", GD_SETTING_GPU, false},
	{"cpu", GD_SETTING_CPU, false},
	{NULL, 0, false}
};

/* The budget the GPU back end gets from a session budget and a cap (0: none). */
static int
effective_budget(int budget, int cap)
{
	if (cap == 0)
		return budget;
	if (budget == 0 || budget > cap)
		return cap;
	return budget;
}

/* gpu_dbscan.device_memory_budget may not exceed gpu_dbscan.max_device_memory. */
static bool
check_device_memory_budget(int *newval, void **extra, GucSource source)
{
	if (gd_max_device_memory_mb != 0 && *newval > gd_max_device_memory_mb)
	{
		GUC_check_errcode(ERRCODE_INSUFFICIENT_PRIVILEGE);
		GUC_check_errmsg("gpu_dbscan.device_memory_budget cannot exceed gpu_dbscan.max_device_memory");
		GUC_check_errdetail("The budget asked for is %d MB; the administrator's cap is %d MB.",
							*newval, gd_max_device_memory_mb);
		GUC_check_errhint("Set a budget of at most %d MB, or 0 to use the cap.",
						  gd_max_device_memory_mb);
		return false;
	}
	return true;
}

static void
assign_device_memory_budget(int newval, void *extra)
{
	gd_device_memory_budget_mb = effective_budget(newval, gd_max_device_memory_mb);
}

static void
assign_max_device_memory(int newval, void *extra)
{
	gd_device_memory_budget_mb = effective_budget(gd_device_memory_budget_setting_mb, newval);
}

/* The threads the core gets from a session's wish and the ceiling (0: none set). */
static int
effective_threads(int threads, int max_threads)
{
	int			ceiling = max_threads > 0 ? max_threads : gd_hardware_threads();

	if (threads == 0 || threads > ceiling)
		return ceiling;
	return threads;
}

static void
assign_threads(int newval, void *extra)
{
	gd_effective_threads = effective_threads(newval, gd_max_threads);
}

static void
assign_max_threads(int newval, void *extra)
{
	gd_effective_threads = effective_threads(gd_threads, newval);
}

/*
 * gpu_dbscan.devices: the syntax is checked here, at SET time (no CUDA call:
 * this runs in the postmaster too); whether the devices exist is known when
 * a GPU run starts (an error under backend = gpu, the CPU with a NOTICE
 * under auto).
 */
static bool
check_devices(char **newval, void **extra, GucSource source)
{
	GdDeviceList list;
	gd_error	err;
	GdDeviceList *parsed;

	memset(&list, 0, sizeof(list));
	if (gd_parse_devices(*newval ? *newval : "", list.ordinals, &list.count, &err) != GD_OK)
	{
		GUC_check_errdetail("%s.", err.message);
		GUC_check_errhint("Write all, device ordinals separated by commas (0,1 or 0,0 for two "
						  "logical devices on one GPU), or an empty string for "
						  "gpu_dbscan.device alone.");
		return false;
	}
	parsed = malloc(sizeof(GdDeviceList));
	if (parsed == NULL)
		return false;
	memcpy(parsed, &list, sizeof(list));
	*extra = parsed;
	return true;
}

static void
assign_devices(const char *newval, void *extra)
{
	gd_devices = extra != NULL ? (const GdDeviceList *) extra : &no_devices;
}

/* Defines the settings and reserves the gpu_dbscan. prefix; called from _PG_init. */
void
gd_define_gucs(void)
{
	DefineCustomEnumVariable("gpu_dbscan.backend",
							 "Where gpu_dbscan clusters: auto, gpu or cpu.",
							 "auto uses the GPU for partitions of at least "
							 "gpu_dbscan.gpu_min_rows rows when a GPU is usable, "
							 "else the CPU; gpu fails when no GPU is usable.",
							 &gd_backend_setting,
							 GD_SETTING_AUTO,
							 backend_options,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	/*
	 * 10000: the GPU wins from about 3k-10k rows a partition once the session
	 * has a CUDA context (H100, BENCHMARKS.md, "gpu_min_rows"); below, the
	 * CPU path is as fast or faster.
	 */
	DefineCustomIntVariable("gpu_dbscan.gpu_min_rows",
							"Smallest partition that gpu_dbscan.backend = auto sends to the GPU.",
							NULL,
							&gd_gpu_min_rows,
							10000, 0, INT_MAX,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

	/* read-only, written by the two hooks below: defined before them */
	DefineCustomIntVariable("gpu_dbscan.effective_threads",
							"Most CPU threads one clustering of this session may use "
							"(gpu_dbscan.threads held at gpu_dbscan.max_threads).",
							"Small partitions use fewer: one thread per "
							CppAsString2(GD_MIN_ITEMS_PER_THREAD) " rows.",
							&gd_effective_threads,
							1, 1, 4096,
							PGC_INTERNAL, GUC_NOT_IN_SAMPLE | GUC_DISALLOW_IN_FILE,
							NULL, NULL, NULL);

	/* the ceiling first: the wish's assign hook reads it */
	DefineCustomIntVariable("gpu_dbscan.max_threads",
							"Most CPU threads one clustering may use; 0 = the machine's hardware threads.",
							"Set by the administrator; gpu_dbscan.threads is held at it.",
							&gd_max_threads,
							0, 0, 4096,
							PGC_SIGHUP, 0,
							NULL, assign_max_threads, NULL);

	DefineCustomIntVariable("gpu_dbscan.threads",
							"Most CPU threads for clustering; 0 = gpu_dbscan.max_threads.",
							"Held at gpu_dbscan.max_threads; small partitions use fewer "
							"(one thread per " CppAsString2(GD_MIN_ITEMS_PER_THREAD) " rows).",
							&gd_threads,
							0, 0, 4096,
							PGC_USERSET, 0,
							NULL, assign_threads, NULL);

	DefineCustomIntVariable("gpu_dbscan.device",
							"CUDA device ordinal the GPU back end uses.",
							NULL,
							&gd_device,
							0, 0, 1023,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

	DefineCustomStringVariable("gpu_dbscan.devices",
							   "GPUs the GPU back end uses: all, a list of ordinals, or empty "
							   "for gpu_dbscan.device alone.",
							   "A partition of at least gpu_dbscan.multi_gpu_min_rows points "
							   "(0: one too large for one GPU's memory budget) is split over "
							   "the list; others run on one of them, picked by the session's "
							   "GPU slot.  An ordinal may repeat (logical devices sharing a GPU).",
							   &gd_devices_setting,
							   "",
							   PGC_USERSET, GUC_LIST_INPUT,
							   check_devices, assign_devices, NULL);

	DefineCustomIntVariable("gpu_dbscan.multi_gpu_min_rows",
							"Smallest partition split over the GPUs of gpu_dbscan.devices; "
							"0 = only partitions too large for one GPU's memory budget.",
							NULL,
							&gd_multi_gpu_min_rows,
							0, 0, INT_MAX,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

	/*
	 * Read-only: what the GPU back end gets (SHOW it).  Defined before the
	 * two settings whose assign hooks write it.
	 */
	DefineCustomIntVariable("gpu_dbscan.effective_device_memory_budget",
							"Device memory the GPU back end may hold in this session "
							"(min of the budget and the cap; 0 lets it choose).",
							NULL,
							&gd_device_memory_budget_mb,
							0, 0, INT_MAX,
							PGC_INTERNAL,
							GUC_UNIT_MB | GUC_NOT_IN_SAMPLE | GUC_DISALLOW_IN_FILE,
							NULL, NULL, NULL);

	/* the cap first: the budget's check and assign hooks read it */
	DefineCustomIntVariable("gpu_dbscan.max_device_memory",
							"Most device memory one session's GPU runs may hold; 0 = no cap.",
							"Set by the administrator; gpu_dbscan.device_memory_budget "
							"cannot be set above it, and a budget of 0 means the cap.",
							&gd_max_device_memory_mb,
							0, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MB,
							NULL, assign_max_device_memory, NULL);

	DefineCustomIntVariable("gpu_dbscan.device_memory_budget",
							"Device memory the GPU back end may hold; 0 lets it choose.",
							"Larger partitions are processed in batches that fit.  "
							"At most gpu_dbscan.max_device_memory.",
							&gd_device_memory_budget_setting_mb,
							0, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_MB,
							check_device_memory_budget, assign_device_memory_budget, NULL);

	/*
	 * 4 by default: kernels of several processes share the GPU by time
	 * slices, so a few concurrent users keep it busy (one's transfers under
	 * another's kernels) and more only add device memory; 4 budgets of the
	 * default half of the free memory, or of a cap, fit a card that 16
	 * would exhaust.
	 */
	DefineCustomIntVariable("gpu_dbscan.max_gpu_sessions",
							"Most sessions that use the GPU at once; 0 = no limit.",
							"Set by the administrator.  Others wait for a slot "
							"(backend = auto at most gpu_dbscan.gpu_wait_timeout, "
							"then the CPU).",
							&gd_max_gpu_sessions,
							4, 0, 1024,
							PGC_SIGHUP, 0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpu_dbscan.gpu_wait_timeout",
							"How long backend = auto waits for a GPU slot before "
							"clustering on the CPU; -1 waits as long as it takes.",
							"backend = gpu always waits until a slot frees.",
							&gd_gpu_wait_timeout_ms,
							10000, -1, INT_MAX,
							PGC_USERSET, GUC_UNIT_MS,
							NULL, NULL, NULL);

	/*
	 * Host memory (memory_budget.c): one query's, set by a superuser, and
	 * all sessions' together, in postgresql.conf.  Past either, a clean
	 * out-of-memory error, never the OOM killer.
	 */
	DefineCustomIntVariable("gpu_dbscan.max_query_memory",
							"Most host memory one query may hold in gpu_dbscan; 0 = no limit "
							"of its own.",
							"Pair lists, grids, sweep levels and a sweep's ids count; past "
							"it the query fails with out of memory.",
							&gd_max_query_memory_mb,
							0, 0, INT_MAX,
							PGC_SUSET, GUC_UNIT_MB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpu_dbscan.max_total_memory",
							"Most host memory all sessions together may hold in gpu_dbscan; "
							"0 = half the physical memory, -1 = no limit.",
							"Shared by every backend through the file "
							"gpu_dbscan_memory.ledger of the data directory.",
							&gd_max_total_memory_mb,
							0, -1, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MB,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("gpu_dbscan.fast_path",
							 "Plans gpu_dbscan() OVER (...) and gpu_dbscan_agg() over one table "
							 "as a parallel read and clustering (custom scans GpuDbscanWindow, "
							 "GpuDbscanAgg) where it gives the same answers.",
							 NULL,
							 &gd_fast_path,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpu_dbscan.scan_workers",
							"Parallel workers of the fast path's read; -1 = one per "
							"min_parallel_table_scan_size of the table, up to "
							"max_parallel_workers_per_gather (or the table's parallel_workers).",
							NULL,
							&gd_scan_workers,
							-1, -1, 1024,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpu_dbscan.exact_test_workers",
							"Parallel workers for PostGIS's exact test of non-point geometries' "
							"candidate pairs; -1 = one per 20 ms of estimated work, up to "
							"max_parallel_workers_per_gather; 0 = the backend alone.",
							NULL,
							&gd_exact_test_workers,
							-1, -1, 1024,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

	MarkGUCPrefixReserved("gpu_dbscan");
}
