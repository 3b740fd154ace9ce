/*
 * memory_budget.h — host memory limits: gpu_dbscan.max_query_memory and
 * gpu_dbscan.max_total_memory, and the ledger file that shares the total
 * between sessions (see memory_budget.c).
 */
#ifndef GPU_DBSCAN_MEMORY_BUDGET_H
#define GPU_DBSCAN_MEMORY_BUDGET_H

/* after postgres.h */

/* Hands the current limits to the core's ledger; call before every core call. */
extern void gd_memory_prepare(void);

/*
 * MemoryContextAllocHuge(cxt, bytes) charged to the ledger as `what` until
 * cxt is reset or deleted; past a limit, an out-of-memory error naming the
 * setting, before anything is allocated.
 */
extern void *gd_alloc_charged(MemoryContext cxt, Size bytes, const char *what);

/*
 * The charge of gd_alloc_charged alone, for memory the caller allocates in
 * cxt (or with cxt's life) right after.
 */
extern void gd_charge_with(MemoryContext cxt, Size bytes, const char *what);

/*
 * The same charge, for memory freed before cxt goes (shared memory
 * segments, a read's arrays): gd_refund gives it back then (at most once;
 * cxt's end gives back what is left); NULL refunds nothing.
 */
typedef struct GdCharge GdCharge;
extern GdCharge *gd_charge(MemoryContext cxt, Size bytes, const char *what);
extern void gd_refund(GdCharge *c);

/*
 * A shared memory segment this backend made, charged as what until it is
 * detached (an error, before the charge, leaves it to the resource owner).
 */
struct dsm_segment;
extern void gd_charge_segment(struct dsm_segment *seg, const char *what);

#endif							/* GPU_DBSCAN_MEMORY_BUDGET_H */
