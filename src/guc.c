/*
 * guc.c — every gpu_dbscan.* setting, in one place.
 */
#include "postgres.h"

#include <limits.h>

#include "utils/guc.h"

#include "guc.h"

int			gd_backend_setting = GD_SETTING_AUTO;
int			gd_gpu_min_rows = 100000;
int			gd_threads = 0;
int			gd_device = 0;
int			gd_device_memory_budget_mb = 0;

static const struct config_enum_entry backend_options[] = {
	{"auto", GD_SETTING_AUTO, false},
	{"gpu", GD_SETTING_GPU, false},
	{"cpu", GD_SETTING_CPU, false},
	{NULL, 0, false}
};

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

	DefineCustomIntVariable("gpu_dbscan.gpu_min_rows",
							"Smallest partition that gpu_dbscan.backend = auto sends to the GPU.",
							NULL,
							&gd_gpu_min_rows,
							100000, 0, INT_MAX,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpu_dbscan.threads",
							"CPU threads for clustering; 0 uses every core.",
							NULL,
							&gd_threads,
							0, 0, 4096,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpu_dbscan.device",
							"CUDA device ordinal the GPU back end uses.",
							NULL,
							&gd_device,
							0, 0, 1023,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpu_dbscan.device_memory_budget",
							"Device memory the GPU back end may hold; 0 lets it choose.",
							"Larger partitions are processed in batches that fit.",
							&gd_device_memory_budget_mb,
							0, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_MB,
							NULL, NULL, NULL);

	MarkGUCPrefixReserved("gpu_dbscan");
}
