/*
 * gpu_dbscan.c — module entry: PG_MODULE_MAGIC and _PG_init.
 *
 * _PG_init defines the settings and installs the planner hook of the fast
 * path (window_scan.c).  It never touches CUDA: the module may
 * be loaded by the postmaster (shared_preload_libraries), which must not
 * initialise a GPU context that its children would inherit; each backend asks
 * for the GPU the first time it needs one.
 */
#include "postgres.h"

#include "fmgr.h"

#include "guc.h"
#include "window_scan.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Defines the gpu_dbscan.* settings and installs the fast path's planner hook. */
void
_PG_init(void)
{
	gd_define_gucs();
	window_scan_init();
}
