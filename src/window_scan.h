/*
 * window_scan.h — the fast path of gpu_dbscan() OVER (...) over one table:
 * a planner hook and the custom scan node it plans (see window_scan.c).
 */
#ifndef GPU_DBSCAN_WINDOW_SCAN_H
#define GPU_DBSCAN_WINDOW_SCAN_H

/* Registers the custom scan node and installs the planner hook (from _PG_init). */
extern void window_scan_init(void);

#endif							/* GPU_DBSCAN_WINDOW_SCAN_H */
