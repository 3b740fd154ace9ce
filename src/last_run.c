/*
 * last_run.c — gpu_dbscan_last_run(): back end, sizes and phase times of
 * this session's last clustering (see last_run.h).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "last_run.h"

static LastRun last_run;

/* See last_run.h. */
void
last_run_get(LastRun *out)
{
	*out = last_run;
}

void
last_run_set(const LastRun *run)
{
	last_run = *run;
}

/* Keeps the statistics of a run (see last_run.h). */
void
last_run_record(const gd_run_stats *stats, int64_t nrows, double slot_wait_ms)
{
	last_run.valid = true;
	last_run.rows = nrows;
	last_run.stats = *stats;
	last_run.slot_wait_ms = slot_wait_ms;
}

/* Keeps the devices of the run last recorded (see last_run.h). */
void
last_run_record_devices(const int *devices, int n)
{
	last_run.ndevices = Min(Max(n, 0), GD_MAX_DEVICES);
	for (int k = 0; k < last_run.ndevices; k++)
		last_run.devices[k] = devices[k];
}

PG_FUNCTION_INFO_V1(gpu_dbscan_last_run_devices);

/*
 * gpu_dbscan_last_run_devices(): the GPU device ordinals this session's last
 * clustering ran on, in the order of gpu_dbscan.devices for a partition
 * split over several; NULL for a CPU run or before the first.
 */
Datum
gpu_dbscan_last_run_devices(PG_FUNCTION_ARGS)
{
	Datum		elems[GD_MAX_DEVICES];

	if (!last_run.valid || last_run.ndevices == 0)
		PG_RETURN_NULL();
	for (int k = 0; k < last_run.ndevices; k++)
		elems[k] = Int32GetDatum(last_run.devices[k]);
	PG_RETURN_ARRAYTYPE_P(construct_array(elems, last_run.ndevices, INT4OID, sizeof(int32),
										  true, TYPALIGN_INT));
}

PG_FUNCTION_INFO_V1(gpu_dbscan_last_run);

/*
 * gpu_dbscan_last_run(): back end, sizes and phase times (ms) of this
 * session's last clustering, and its wait for a GPU slot; NULL before the
 * first.
 */
Datum
gpu_dbscan_last_run(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[13];
	bool		nulls[13];
	const gd_run_stats *s = &last_run.stats;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (!last_run.valid)
		PG_RETURN_NULL();

	memset(nulls, 0, sizeof(nulls));
	values[0] = CStringGetTextDatum(s->backend == GD_BACKEND_GPU ? "gpu" : "cpu");
	values[1] = Int64GetDatum(last_run.rows);
	values[2] = Int64GetDatum(s->points);
	values[3] = Int64GetDatum(s->cells);
	values[4] = Int64GetDatum(s->batches);
	values[5] = Float8GetDatum(s->t_transfer * 1000.0);
	values[6] = Float8GetDatum(s->t_sort * 1000.0);
	values[7] = Float8GetDatum(s->t_core * 1000.0);
	values[8] = Float8GetDatum(s->t_union * 1000.0);
	values[9] = Float8GetDatum(s->t_label * 1000.0);
	values[10] = Float8GetDatum(s->t_total * 1000.0);
	values[11] = Float8GetDatum(last_run.slot_wait_ms);
	values[12] = Int64GetDatum(s->strips);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}
