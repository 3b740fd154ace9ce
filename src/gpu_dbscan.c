/*
 * gpu_dbscan.c — module entry: PG_MODULE_MAGIC and _PG_init.
 *
 * _PG_init only defines the settings.  It never touches CUDA: the module may
 * be loaded by the postmaster (shared_preload_libraries), which must not
 * initialise a GPU context that its children would inherit; each backend asks
 * for the GPU the first time it needs one.
 */
#include "postgres.h"

#include "fmgr.h"

#include "guc.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Defines the gpu_dbscan.* settings. */
void
_PG_init(void)
{
	gd_define_gucs();
}
