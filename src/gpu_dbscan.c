/*
 * gpu_dbscan.c — module entry: PG_MODULE_MAGIC and _PG_init.
 *
 * _PG_init defines the settings and, when the module is preloaded, registers
 * the GPU worker (gpu_worker.c).  It never touches CUDA: the postmaster,
 * which loads preloaded modules, must not initialise a GPU context that its
 * children would inherit; the worker, or else each backend, asks for the GPU
 * the first time it needs one.
 */
#include "gd_core.h"			/* before postgres.h: see core_bridge.h */

#include "postgres.h"

#include "fmgr.h"

#include "gpu_worker.h"
#include "guc.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Defines the gpu_dbscan.* settings and registers the GPU worker. */
void
_PG_init(void)
{
	gd_define_gucs();
	gd_gpu_worker_init();
}
