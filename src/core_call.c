/*
 * core_call.c — calls into the clustering core (see core_call.h).
 *
 * No PostgreSQL error can be raised while a core call is running: the core
 * returns a gd_error, and the error is raised here, after it returned.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/timestamp.h"

#include "core_call.h"
#include "gpu_slots.h"
#include "gpu_worker.h"
#include "guc.h"
#include "last_run.h"
#include "memory_budget.h"
#include "progress.h"

/* The device a one-device GPU run of this call uses (fill_params). */
static int	run_device;

/* GPU availability, asked once per backend process and device. */
static int	gpu_known_device = -1;
static bool gpu_usable;
static char gpu_why[sizeof(((gd_error *) 0)->message)];

/* The core's cancellation poll: only reads the backend's interrupt flags. */
static int
should_cancel(void *arg)
{
	return (QueryCancelPending || ProcDiePending) ? 1 : 0;
}

/* Raises the error the core reported; never returns. */
static void
pg_attribute_noreturn()
raise_core_error(const gd_error *err)
{
	switch (err->status)
	{
		case GD_ERR_CANCELLED:
			CHECK_FOR_INTERRUPTS();
			elog(ERROR, "gpu_dbscan: clustering stopped as cancelled, but no interrupt is pending");
			break;
		case GD_ERR_INVALID:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s", err->message)));
			break;
		case GD_ERR_NO_DEVICE:
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("gpu_dbscan: %s", err->message)));
			break;
		case GD_ERR_NOMEM:
		case GD_ERR_DEVICE_NOMEM:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("gpu_dbscan: out of memory"),
					 errdetail("%s", err->message)));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("gpu_dbscan: %s", err->message)));
	}
	pg_unreachable();
}

/*
 * The device whose availability decides whether the GPU is used: the first
 * of gpu_dbscan.devices, or gpu_dbscan.device without a list.  The others
 * are checked when a run starts (a missing one is a device failure then).
 */
static int
first_device(void)
{
	if (gd_devices->count == 0)
		return gd_device;
	return gd_devices->count == GD_DEVICES_ALL ? 0 : gd_devices->ordinals[0];
}

/*
 * The device of a one-device GPU run.  With a device list, the session's GPU
 * slot picks one (slot n: the list's entry (n - 1) mod its length; the
 * process id when there is no cap), so that concurrent sessions, and the
 * partitions they cluster, spread over the GPUs.
 */
static int
pick_run_device(void)
{
	int			n;
	int			slot;
	int			k;

	if (gd_devices->count == 0)
		return gd_device;
	n = gd_devices->count == GD_DEVICES_ALL ? gd_gpu_device_count() : gd_devices->count;
	if (n <= 0)
		return first_device();
	slot = gd_gpu_slot_held();
	k = (slot > 0 ? slot - 1 : MyProcPid) % n;
	return gd_devices->count == GD_DEVICES_ALL ? k : gd_devices->ordinals[k];
}

/*
 * The devices of a run, for gpu_dbscan_last_run_devices(): none on the CPU,
 * the list of a split (stats->devices > 1: every entry of gpu_dbscan.devices,
 * or 0..n-1 for all), else the one device it ran on.
 */
static void
record_devices(const gd_run_stats *stats)
{
	int			devices[GD_MAX_DEVICES];
	int			n = 0;

	if (stats->backend == GD_BACKEND_GPU && stats->devices > 1)
	{
		n = Min(stats->devices, GD_MAX_DEVICES);
		for (int k = 0; k < n; k++)
			devices[k] = gd_devices->count == GD_DEVICES_ALL ? k : gd_devices->ordinals[k];
	}
	else if (stats->backend == GD_BACKEND_GPU)
		devices[n++] = run_device;
	last_run_record_devices(devices, n);
}

/*
 * Whether the configured GPU can be used.  A yes is cached per device for the
 * life of the backend; a no is asked again after GPU_RECHECK_MS, since it may
 * have come from a passing state (another process holding the whole card).
 */
#define GPU_RECHECK_MS 10000

static bool
gpu_available(void)
{
	static TimestampTz checked_at;
	int			device = first_device();
	bool		usable;

	/* The GPU worker's answer, when it serves this backend: no CUDA here. */
	if (gd_gpu_worker_active(device, &usable, gpu_why, sizeof(gpu_why)))
		return usable;
	if (gpu_known_device != device ||
		(!gpu_usable && TimestampDifferenceExceeds(checked_at, GetCurrentTimestamp(),
												   GPU_RECHECK_MS)))
	{
		gd_error	why;

		memset(&why, 0, sizeof(why));
		gpu_usable = gd_gpu_available(device, &why) != 0;
		strlcpy(gpu_why, why.message, sizeof(gpu_why));
		gpu_known_device = device;
		checked_at = GetCurrentTimestamp();
	}
	return gpu_usable;
}

/*
 * Whether the GPU worker runs this backend's GPU clusterings on device: it
 * serves one device, so a device list stays in this process.
 */
static bool
worker_takes(int device, char *why, size_t whylen)
{
	bool		usable;

	return gd_devices->count == 0 && gd_gpu_worker_active(device, &usable, why, whylen) && usable;
}

/* See core_call.h. */
bool
core_gpu_worker_serves(void)
{
	char		why[sizeof(gpu_why)];

	return gd_backend_setting != GD_SETTING_CPU && worker_takes(first_device(), why, sizeof(why));
}

/* gd_params from the GUCs, for one partition. */
static void
fill_params(gd_params *params, double eps, int64_t minpoints, gd_backend backend)
{
	gd_memory_prepare();
	gd_params_init(params);
	params->eps = eps;
	params->minpoints = minpoints;
	params->backend = backend;
	params->threads = gd_effective_threads;
	params->device = backend == GD_BACKEND_GPU ? pick_run_device() : gd_device;
	params->device_memory_budget = (size_t) gd_device_memory_budget_mb * 1024 * 1024;
	params->devices = gd_devices->ordinals;
	params->ndevices = gd_devices->count;
	params->split_min_points = gd_multi_gpu_min_rows;
	run_device = params->device;
	params->should_cancel = should_cancel;
	params->cancel_arg = NULL;
	params->report_step = gd_progress_step;
	params->report_arg = NULL;
}

/*
 * The back end gpu_dbscan.backend asks for, for nrows rows; auto takes the
 * GPU from min_rows rows on.
 */
static gd_backend
choose_backend_from(int64_t nrows, int64_t min_rows)
{
	switch (gd_backend_setting)
	{
		case GD_SETTING_CPU:
			return GD_BACKEND_CPU;
		case GD_SETTING_GPU:
			if (!gpu_available())
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("gpu_dbscan.backend is \"gpu\" but no usable GPU: %s", gpu_why)));
			return GD_BACKEND_GPU;
		default:
			if (nrows >= min_rows && gpu_available())
				return GD_BACKEND_GPU;
			return GD_BACKEND_CPU;
	}
}

/* The back end gpu_dbscan.backend asks for, for a partition of nrows rows. */
static gd_backend
choose_backend(int64_t nrows)
{
	return choose_backend_from(nrows, gd_gpu_min_rows);
}

/* See core_call.h. */
bool
core_prefers_gpu(int64_t nrows)
{
	return gd_backend_setting == GD_SETTING_GPU ||
		(gd_backend_setting == GD_SETTING_AUTO && nrows >= gd_gpu_min_rows && gpu_available());
}

/*
 * Waits for a GPU slot (gpu_dbscan.max_gpu_sessions): as long as it takes under
 * backend = 'gpu', gpu_wait_timeout under 'auto', which then falls back to the
 * CPU with a NOTICE.  True when a slot is held (release it after the run);
 * *waited gets the milliseconds spent waiting.
 */
static bool
take_gpu_slot(gd_backend *backend, double *waited)
{
	if (gd_gpu_slot_acquire(gd_backend_setting == GD_SETTING_GPU ? -1 :
							gd_gpu_wait_timeout_ms, waited))
		return true;
	ereport(NOTICE,
			(errmsg("gpu_dbscan: no GPU slot free after %.0f ms, clustering on the CPU instead",
					*waited),
			 errdetail("gpu_dbscan.max_gpu_sessions = %d sessions are using the GPU.",
					   gd_max_gpu_sessions)));
	*backend = GD_BACKEND_CPU;
	return false;
}

/* Whether a GPU failure may be retried on the CPU. */
static bool
is_device_failure(gd_status status)
{
	return status == GD_ERR_NO_DEVICE || status == GD_ERR_DEVICE ||
		status == GD_ERR_DEVICE_NOMEM;
}

/*
 * Under backend = 'auto', a device failure of a GPU run is retried on the CPU:
 * true (after a NOTICE with the GPU's error) when the caller should do so.
 */
static bool
retry_on_cpu(gd_status status, gd_backend backend, const gd_error *err)
{
	if (status == GD_OK || backend != GD_BACKEND_GPU ||
		gd_backend_setting != GD_SETTING_AUTO || !is_device_failure(status))
		return false;
	ereport(NOTICE,
			(errmsg("gpu_dbscan: the GPU run failed, clustering on the CPU instead"),
			 errdetail("%s", err->message)));
	return true;
}

/* A run of the core, for gpu_dbscan_last_run() and gpu_dbscan_last_run_devices(). */
static void
record_run(const gd_run_stats *stats, int64_t nrows, int64_t npoints, double waited)
{
	gd_run_stats s = *stats;

	if (s.points == 0)
		s.points = npoints;
	last_run_record(&s, nrows, waited);
	record_devices(&s);
}

/* One core call on the given back end (call_points, call_pairs). */
typedef gd_status (*CoreCall) (const void *arg, gd_backend backend, gd_run_stats *stats,
							   gd_error *err);

/*
 * Runs call for nrows rows on the back end gpu_dbscan.backend chooses when
 * may_use_gpu (else the CPU): a GPU slot taken and given back, a failed GPU
 * run retried on the CPU under auto, the error raised.  Returns the back end
 * that gave the answer; *stats and *waited (ms spent waiting for a slot) are
 * the run's.
 */
static gd_backend
run_on_backend(int64_t nrows, bool may_use_gpu, CoreCall call, const void *arg,
			   gd_run_stats *stats, double *waited)
{
	gd_backend	backend = may_use_gpu ? choose_backend(nrows) : GD_BACKEND_CPU;
	gd_error	err;
	gd_status	status;
	bool		slot = false;

	*waited = 0;
	if (backend == GD_BACKEND_GPU)
	{
		gd_progress_phase(GD_PHASE_SLOT_WAIT);
		slot = take_gpu_slot(&backend, waited);
	}
	gd_progress_phase(backend == GD_BACKEND_GPU ? GD_PHASE_CLUSTER_GPU : GD_PHASE_CLUSTER_CPU);
	status = call(arg, backend, stats, &err);
	if (slot)
		gd_gpu_slot_release();
	if (retry_on_cpu(status, backend, &err))
	{
		gd_progress_phase(GD_PHASE_CLUSTER_CPU);
		backend = GD_BACKEND_CPU;
		status = call(arg, backend, stats, &err);
	}
	if (status != GD_OK)
		raise_core_error(&err);
	return backend;
}

/* run_on_backend for nrows rows (npoints points), the run recorded. */
static void
run_core(int64_t nrows, int64_t npoints, bool may_use_gpu, CoreCall call, const void *arg)
{
	gd_run_stats stats;
	double		waited;

	run_on_backend(nrows, may_use_gpu, call, arg, &stats, &waited);
	record_run(&stats, nrows, npoints, waited);
}

/* See core_call.h. */
gd_status
core_points_run(const PointsCall *c, const gd_params *params, gd_run_stats *stats,
				gd_error *err)
{
	const ClusterJob *job = c->job;

	if (c->coords == NULL)
	{
		if (job->nminpoints != 1)
			return gd_cluster_points_sweep(c->x, c->y, c->row_kind, c->nrows, params,
										   job->minpoints, job->nminpoints, job->ids, stats,
										   err);
		return gd_cluster_points_typed(c->x, c->y, c->row_kind, c->nrows, params, job->ids,
									   job->types, stats, err);
	}
	if (job->nminpoints != 1)
		return gd_cluster_points_nd_sweep(c->coords, c->dims, c->row_kind, c->nrows, params,
										  job->minpoints, job->nminpoints, job->ids, stats, err);
	return gd_cluster_points_nd_typed(c->coords, c->dims, c->row_kind, c->nrows, params,
									  job->ids, job->types, stats, err);
}

/*
 * One core call for points on the given back end: on the GPU through the
 * worker when it serves this backend and takes the job, else in-process.
 */
static gd_status
call_points(const void *arg, gd_backend backend, gd_run_stats *stats, gd_error *err)
{
	const PointsCall *c = arg;
	gd_params	params;

	fill_params(&params, c->job->eps, c->job->minpoints[0], backend);
	memset(stats, 0, sizeof(*stats));
	memset(err, 0, sizeof(*err));
	if (backend == GD_BACKEND_GPU && worker_takes(params.device, err->message, sizeof(err->message)))
	{
		gd_status	status;

		if (gd_gpu_worker_cluster(c, &params, stats, err, &status))
			return status;
	}
	memset(err, 0, sizeof(*err));
	return core_points_run(c, &params, stats, err);
}

/* Runs job on 2D points (see core_call.h). */
void
core_cluster_points(const double *x, const double *y, const uint8_t *row_kind,
					int64_t nrows, int64_t npoints, const ClusterJob *job, bool may_use_gpu)
{
	PointsCall	c = {x, y, NULL, 2, row_kind, nrows, job};

	run_core(nrows, npoints, may_use_gpu, call_points, &c);
}

/* Runs job on n-D points (see core_call.h). */
void
core_cluster_points_nd(const double *coords, int dims, const uint8_t *row_kind,
					   int64_t nrows, int64_t npoints, const ClusterJob *job)
{
	PointsCall	c = {NULL, NULL, coords, dims, row_kind, nrows, job};

	run_core(nrows, npoints, true, call_points, &c);
}

/*
 * This backend's last pair search, for core_record_pairs_run: its back end
 * and its wait for a GPU slot (ms).
 */
static gd_backend pairs_backend = GD_BACKEND_CPU;
static double pairs_waited = 0;

typedef struct PairsCall
{
	const double *coords;		/* n-D points, dims per row; or */
	int			dims;
	const gd_box *boxes;		/* 2D geometry rows' boxes */
	const uint8_t *row_kind;
	int64_t		nrows;
	double		inner;			/* n-D: the pairs within it left out (< 0: none) */
	double		eps;
	int64_t		max_pairs;		/* > 0: a longer list is no error, *over is set */
	bool	   *over;
	gd_pair_list *out;
} PairsCall;

static gd_status
call_pairs(const void *arg, gd_backend backend, gd_run_stats *stats, gd_error *err)
{
	const PairsCall *c = arg;
	gd_params	params;
	gd_status	status;

	fill_params(&params, c->eps, 0, backend);
	params.max_pairs = c->max_pairs;
	memset(stats, 0, sizeof(*stats));
	memset(err, 0, sizeof(*err));
	gd_progress_phase(GD_PHASE_PAIRS);
	if (c->boxes)
		status = gd_candidate_pairs(c->boxes, c->row_kind, c->nrows, c->eps, &params, c->out,
									err);
	else
		status = gd_neighbour_pairs_nd_band(c->coords, c->dims, c->row_kind, c->nrows, c->inner,
											c->eps, &params, c->out, err);
	/* past the caller's own limit (or out of memory below it): no list, no error */
	if (status == GD_ERR_NOMEM && c->max_pairs > 0)
	{
		*c->over = true;
		memset(err, 0, sizeof(*err));
		status = GD_OK;
	}
	return status;
}

/* A pair search on the back end gpu_dbscan.backend chooses (see core_call.h). */
static void
run_pairs(const PairsCall *c)
{
	gd_run_stats stats;

	/* a failed search leaves c->out empty (gd_core.h) */
	pairs_backend = run_on_backend(c->nrows, true, call_pairs, c, &stats, &pairs_waited);
}

/* Neighbour pairs of n-D points (see core_call.h). */
bool
core_neighbour_pairs_nd(const double *coords, int dims, const uint8_t *row_kind,
						int64_t nrows, double inner, double eps, int64_t max_pairs,
						gd_pair_list *out)
{
	bool		over = false;
	PairsCall	c = {coords, dims, NULL, row_kind, nrows, inner, eps, max_pairs, &over, out};

	run_pairs(&c);
	return !over;
}

/* Candidate pairs of 2D geometry rows (see core_call.h). */
void
core_candidate_pairs(const gd_box *boxes, const uint8_t *row_kind, int64_t nrows,
					 double eps, gd_pair_list *out)
{
	PairsCall	c = {NULL, 2, boxes, row_kind, nrows, -1, eps, 0, NULL, out};

	run_pairs(&c);
}

/* Runs job on an explicit neighbour graph (see core_call.h). */
void
core_cluster_graph(const uint8_t *row_kind, int64_t nrows, const gd_pair *edges,
				   const uint8_t *dirs, int64_t nedges, const ClusterJob *job)
{
	gd_error	err;
	gd_status	status;

	memset(&err, 0, sizeof(err));
	gd_progress_phase(GD_PHASE_GRAPH);
	if (job->nminpoints != 1)
		status = gd_cluster_graph_directed_sweep(row_kind, nrows, edges, dirs, nedges,
												 job->minpoints, job->nminpoints, job->ids,
												 &err);
	else
		status = gd_cluster_graph_directed(row_kind, nrows, edges, dirs, nedges,
										   job->minpoints[0], job->ids, job->types, &err);
	if (status != GD_OK)
		raise_core_error(&err);
}

/* Records a clustering from pairs (see core_call.h). */
void
core_record_pairs_run(int64_t nrows, int64_t npoints, double t_pairs, double t_exact,
					  double t_graph, double t_total)
{
	gd_run_stats stats;

	memset(&stats, 0, sizeof(stats));
	stats.backend = pairs_backend;
	stats.t_sort = t_pairs;
	stats.t_core = t_exact;
	stats.t_label = t_graph;
	stats.t_total = t_total;
	record_run(&stats, nrows, npoints, pairs_waited);
}

/*
 * Subspace clustering does far more work per row than DBSCAN: under
 * gpu_dbscan.backend = auto it takes the GPU from this many rows on (or from
 * gpu_dbscan.gpu_min_rows, when that is lower).  On an H100 the GPU is ahead
 * at pendigits' 7,494 rows and behind at vowel's 990 (docs/subspace.md).
 */
#define INSCY_GPU_MIN_ROWS 2000

/*
 * Subspace clusters on the chosen back end (see core_call.h), with a GPU
 * slot as for the other GPU runs; a device failure under
 * gpu_dbscan.backend = auto is retried on the CPU.
 */
void
core_inscy(const double *rows, int64_t n, int d, const gd_inscy_params *inscy,
		   gd_inscy_result *out)
{
	gd_backend	backend = choose_backend_from(n, Min(gd_gpu_min_rows, INSCY_GPU_MIN_ROWS));
	gd_params	params;
	gd_run_stats stats;
	gd_error	err;
	gd_status	status;
	double		waited = 0;
	bool		slot = false;

	if (backend == GD_BACKEND_GPU)
		slot = take_gpu_slot(&backend, &waited);
	fill_params(&params, 0, 0, backend);
	memset(&stats, 0, sizeof(stats));
	memset(&err, 0, sizeof(err));
	status = gd_inscy(rows, n, d, inscy, &params, out, &stats, &err);
	if (slot)
		gd_gpu_slot_release();
	if (retry_on_cpu(status, backend, &err))
	{
		fill_params(&params, 0, 0, GD_BACKEND_CPU);
		memset(&stats, 0, sizeof(stats));
		status = gd_inscy(rows, n, d, inscy, &params, out, &stats, &err);
	}
	if (status != GD_OK)
		raise_core_error(&err);
	record_run(&stats, n, stats.points, waited);
}
