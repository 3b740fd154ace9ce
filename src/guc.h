/*
 * guc.h — the gpu_dbscan.* settings, declared in guc.c.
 */
#ifndef GPU_DBSCAN_GUC_H
#define GPU_DBSCAN_GUC_H

/* gpu_dbscan.backend */
typedef enum GdBackendSetting
{
	GD_SETTING_AUTO,			/* the GPU for large partitions when there is one */
	GD_SETTING_GPU,				/* always the GPU; an error when there is none */
	GD_SETTING_CPU				/* always the CPU */
} GdBackendSetting;

extern int	gd_backend_setting;
extern int	gd_gpu_min_rows;
extern int	gd_threads;		/* gpu_dbscan.threads: the session's wish */
extern int	gd_max_threads;	/* gpu_dbscan.max_threads: the ceiling; 0 = hardware */
/* what the core gets: threads held at the ceiling, the ceiling for 0 */
extern int	gd_effective_threads;
extern int	gd_device;
extern int	gd_device_memory_budget_setting_mb;	/* gpu_dbscan.device_memory_budget */
extern int	gd_max_device_memory_mb;	/* gpu_dbscan.max_device_memory */
/* what the GPU back end may hold (MB): min(budget, cap), the cap for budget 0 */
extern int	gd_device_memory_budget_mb;
extern int	gd_max_gpu_sessions;	/* gpu_dbscan.max_gpu_sessions; 0 = no cap */
extern int	gd_gpu_wait_timeout_ms;	/* gpu_dbscan.gpu_wait_timeout; -1 = none */
extern int	gd_max_query_memory_mb;	/* gpu_dbscan.max_query_memory; 0 = none */
extern int	gd_max_total_memory_mb;	/* gpu_dbscan.max_total_memory; 0 = half the RAM, -1 = none */

/*
 * gpu_dbscan.devices, parsed by its check hook (gd_parse_devices): count 0
 * for '' (gpu_dbscan.device alone), GD_DEVICES_ALL (-1) for 'all', else the
 * ordinals (logical devices; an ordinal may repeat).
 */
#define GD_GUC_MAX_DEVICES 64	/* GD_MAX_DEVICES of gd_core.h */
typedef struct GdDeviceList
{
	int			count;
	int			ordinals[GD_GUC_MAX_DEVICES];
} GdDeviceList;

extern char *gd_devices_setting;	/* gpu_dbscan.devices as written */
extern const GdDeviceList *gd_devices;	/* never NULL once the GUCs are defined */
extern int	gd_multi_gpu_min_rows;	/* gpu_dbscan.multi_gpu_min_rows; 0 = from the budget */
extern bool gd_fast_path;	/* gpu_dbscan.fast_path */
extern int	gd_scan_workers;	/* gpu_dbscan.scan_workers; -1 = by the table's size */
extern int	gd_exact_test_workers;	/* gpu_dbscan.exact_test_workers; -1 = by the pairs */

extern void gd_define_gucs(void);

#endif							/* GPU_DBSCAN_GUC_H */
