/*
 * prefault.c — populating fresh memory in one call (see prefault.h).
 */
#include "postgres.h"

#include <pthread.h>
#include <signal.h>
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

#ifndef NO_POPULATE

/* A thread's least share of a range, and the most threads one range gets. */
#define PREFAULT_THREAD_BYTES ((Size) 32 * 1024 * 1024)
#define PREFAULT_MAX_THREADS 8

/* One thread's share: madvise(advice) over [start, end). */
typedef struct PopulateShare
{
	uintptr_t	start;
	uintptr_t	end;
	int			advice;
	int			error;			/* errno of a failed call, else 0 */
} PopulateShare;

static void *
populate_share(void *arg)
{
	PopulateShare *sh = (PopulateShare *) arg;

	sh->error = 0;
	if (sh->end > sh->start && madvise((void *) sh->start, sh->end - sh->start, sh->advice) != 0)
		sh->error = errno;
	return NULL;
}

/* Threads for len bytes: one per PREFAULT_THREAD_BYTES, at most the cores. */
static int
populate_threads(Size len)
{
	static long cores = 0;
	long		n = (long) (len / PREFAULT_THREAD_BYTES);

	if (cores == 0)
		cores = Max(sysconf(_SC_NPROCESSORS_ONLN), 1);
	return (int) Max(1, Min(n, Min(cores, PREFAULT_MAX_THREADS)));
}

#endif							/* !NO_POPULATE */

/*
 * madvise(advice) over the whole pages of [p, p + len), split over threads
 * for a big range: the GPU worker's mappings of a 10M-row sweep's 800 MB
 * took 62-105 ms on one thread, 46-68 ms on eight (H200 host); the
 * threads make syscalls only, with every signal blocked, so PostgreSQL's
 * handlers run on the calling thread alone.  A kernel without the advice
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
	PopulateShare shares[PREFAULT_MAX_THREADS];
	pthread_t	threads[PREFAULT_MAX_THREADS];
	bool		started[PREFAULT_MAX_THREADS];
	int			n;

	if (disabled || p == NULL || len < PREFAULT_MIN_BYTES)
		return;
	start = ((uintptr_t) p + page - 1) & ~(page - 1);
	end = ((uintptr_t) p + len) & ~(page - 1);
	if (end <= start)
		return;
	n = populate_threads(end - start);
	for (int t = 0; t < n; t++)
	{
		shares[t].start = start + ((end - start) / page * t / n) * page;
		shares[t].end = t + 1 < n ? start + ((end - start) / page * (t + 1) / n) * page : end;
		shares[t].advice = advice;
		started[t] = false;
	}
	if (n > 1)
	{
		sigset_t	all,
					old;

		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		for (int t = 1; t < n; t++)
			started[t] = pthread_create(&threads[t], NULL, populate_share, &shares[t]) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	for (int t = 0; t < n; t++)
	{
		if (t == 0 || !started[t])
			populate_share(&shares[t]);	/* ours, or a thread that did not start */
		else
			pthread_join(threads[t], NULL);
		if (shares[t].error == EINVAL)
			disabled = true;
	}
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
