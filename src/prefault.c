/*
 * prefault.c — populating fresh memory in one call (see prefault.h).
 */
#include "postgres.h"

#include <sys/mman.h>
#include <unistd.h>

#include "prefault.h"

/* Linux's value where the C library's headers predate it (5.14). */
#if defined(__linux__) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23
#endif

/* Below this (four pages) a range is left to fault page by page. */
#define PREFAULT_MIN_BYTES (16 * 1024)

/* Populates the whole pages of [p, p + len) (see prefault.h). */
void
prefault_write(void *p, Size len)
{
#ifdef MADV_POPULATE_WRITE
	static int	disabled = 0;
	uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE);
	uintptr_t	start;
	uintptr_t	end;

	if (disabled || p == NULL || len < PREFAULT_MIN_BYTES)
		return;
	start = ((uintptr_t) p + page - 1) & ~(page - 1);
	end = ((uintptr_t) p + len) & ~(page - 1);
	if (end <= start)
		return;
	/* EINVAL: a kernel without it; never asked again in this process */
	if (madvise((void *) start, end - start, MADV_POPULATE_WRITE) != 0 && errno == EINVAL)
		disabled = 1;
#else
	(void) p;
	(void) len;
#endif
}
