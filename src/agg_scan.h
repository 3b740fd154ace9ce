/*
 * agg_scan.h — the fast path of gpu_dbscan_agg(geom, eps, minpoints) over
 * one table, grouped or not: a planner hook and the custom scan node it
 * plans (see agg_scan.c).
 */
#ifndef GPU_DBSCAN_AGG_SCAN_H
#define GPU_DBSCAN_AGG_SCAN_H

/* Registers the custom scan node and chains the planner hook (from _PG_init). */
extern void agg_scan_init(void);

#endif							/* GPU_DBSCAN_AGG_SCAN_H */
