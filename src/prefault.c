/*
 * prefault.c — populating fresh memory in one call (see prefault.h).
 */
#include "postgres.h"

#include <sys/mman.h>
#include <unistd.h>

#include "prefault.h"

/* Linux's values where the C library's headers predate them (5.14). */
#if defined(__linux__) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

/* Below this (four pages) a range is left to fault page by page. */
#define PREFAULT_MIN_BYTES (16 * 1024)

#ifdef MADV_POPULATE_WRITE
/* madvise(advice) over the whole pages of [p, p + len); false: the kernel lacks it. */
static bool
populate(const void *p, Size len, int advice)
{
	uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE);
	uintptr_t	start;
	uintptr_t	end;

	if (p == NULL || len < PREFAULT_MIN_BYTES)
		return true;
	start = ((uintptr_t) p + page - 1) & ~(page - 1);
	end = ((uintptr_t) p + len) & ~(page - 1);
	if (end <= start)
		return true;
	/* EINVAL: a kernel without it */
	return madvise((void *) start, end - start, advice) == 0 || errno != EINVAL;
}
#endif

/* Populates the whole pages of [p, p + len) (see prefault.h). */
void
prefault_write(void *p, Size len)
{
#ifdef MADV_POPULATE_WRITE
	static bool disabled = false;	/* never asked again in this process */

	if (!disabled && !populate(p, len, MADV_POPULATE_WRITE))
		disabled = true;
#else
	(void) p;
	(void) len;
#endif
}

/* Maps the whole pages of [p, p + len) for reading (see prefault.h). */
void
prefault_read(const void *p, Size len)
{
#ifdef MADV_POPULATE_WRITE
	static bool disabled = false;

	if (!disabled && !populate(p, len, MADV_POPULATE_READ))
		disabled = true;
#else
	(void) p;
	(void) len;
#endif
}
