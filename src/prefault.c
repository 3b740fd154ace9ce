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
#ifndef MADV_POPULATE_WRITE
#define NO_POPULATE				/* elsewhere: nothing to ask for */
#define MADV_POPULATE_READ 0
#define MADV_POPULATE_WRITE 0
#endif

/* Below this (four pages) a range is left to fault page by page. */
#define PREFAULT_MIN_BYTES (16 * 1024)

/*
 * madvise(advice) over the whole pages of [p, p + len); a kernel without it
 * (EINVAL, before 5.14) is never asked again in this process.
 */
static void
populate(const void *p, Size len, int advice)
{
#ifndef NO_POPULATE
	static bool disabled = false;
	uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE);
	uintptr_t	start;
	uintptr_t	end;

	if (disabled || p == NULL || len < PREFAULT_MIN_BYTES)
		return;
	start = ((uintptr_t) p + page - 1) & ~(page - 1);
	end = ((uintptr_t) p + len) & ~(page - 1);
	if (end > start && madvise((void *) start, end - start, advice) != 0 && errno == EINVAL)
		disabled = true;
#else
	(void) p;
	(void) len;
	(void) advice;
#endif
}

/* Populates the whole pages of [p, p + len) (see prefault.h). */
void
prefault_write(void *p, Size len)
{
	populate(p, len, MADV_POPULATE_WRITE);
}

/* Maps the whole pages of [p, p + len) for reading (see prefault.h). */
void
prefault_read(const void *p, Size len)
{
	populate(p, len, MADV_POPULATE_READ);
}
