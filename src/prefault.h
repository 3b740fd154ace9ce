/*
 * prefault.h — fresh memory made resident in one call, before a pass that
 * writes all of it.
 *
 * A first write to each fresh page of a big array costs a page fault, and on
 * virtual machines a fault costs tens of microseconds: 64 MiB touched a page
 * at a time took 250-360 ms on the 2-core CI machine, where one
 * madvise(MADV_POPULATE_WRITE) and the same writes took 70 ms.  The fast
 * path's arrays (the parallel read's, the window's order, the ids) are
 * written whole right after they are made, so they are populated first;
 * a range of 64 MB or more is split over threads (up to eight).
 */
#ifndef GPU_DBSCAN_PREFAULT_H
#define GPU_DBSCAN_PREFAULT_H

#include "postgres.h"

/*
 * Makes the whole pages inside [p, p + len) resident and writable (Linux
 * 5.14 on); anywhere else, or on any failure, does nothing: the writes fault
 * the pages in as before.  Small ranges are left alone.
 */
extern void prefault_write(void *p, Size len);

/*
 * Maps the whole pages inside [p, p + len) for reading (memory that is
 * resident already, such as a shared segment another process wrote): one
 * call instead of a fault a page.  Same conditions as prefault_write.
 */
extern void prefault_read(const void *p, Size len);

#endif							/* GPU_DBSCAN_PREFAULT_H */
