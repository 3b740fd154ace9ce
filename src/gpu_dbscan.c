/*
 * gpu_dbscan.c — module entry: PG_MODULE_MAGIC and _PG_init.
 *
 * _PG_init defines the settings, installs the planner hooks of the fast paths
 * (window_scan.c, agg_scan.c) and, when the module is preloaded, registers
 * the GPU worker (gpu_worker.c).  It never touches CUDA: the postmaster, which loads
 * preloaded modules, must not initialise a GPU context that its children
 * would inherit; the worker, or else each backend, asks for the GPU the
 * first time it needs one.
 */
#include "postgres.h"

#include "fmgr.h"

#include "agg_scan.h"
#include "gpu_worker.h"
#include "guc.h"
#include "window_scan.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/*
 * Defines the gpu_dbscan.* settings, installs the fast paths' planner hooks
 * and registers the GPU worker.
 */
void
_PG_init(void)
{
	gd_define_gucs();
	window_scan_init();
	agg_scan_init();
	gd_gpu_worker_init();
}
