/*
 * big_arrays.c — arrays of one value per row (coordinates, row kinds, ids)
 * that a query fills once: from gd_big_alloc (huge pages, core/big_alloc.hpp)
 * when large, freed when their memory context is reset or deleted.
 *
 * A fresh 4 KiB page costs a fault at its first touch: ~20 us on a virtual
 * machine, so a palloc'd 10M-row array of ids (40 MB) costs ~0.2 s of faults
 * before it holds anything; on 2 MiB pages it costs ~4 ms.  Such an array is
 * never pfree'd or repalloc'd: its context frees it.  Small ones are palloc'd.
 */
#include "postgres.h"

#include "gd_core.h"
#include "big_arrays.h"

#include "utils/memutils.h"

/* below this, palloc (core/big_alloc.hpp's kBigArrayBytes) */
#define BIG_ARRAY_MIN ((Size) 1 << 20)

typedef struct BigArray
{
	MemoryContextCallback cb;
	void	   *p;
	Size		bytes;
} BigArray;

static void
big_array_free(void *arg)
{
	BigArray   *a = (BigArray *) arg;

	gd_big_free(a->p, a->bytes);
}

/* bytes in cxt, uninitialised */
void *
big_array_alloc(MemoryContext cxt, Size bytes)
{
	BigArray   *a;

	if (bytes < BIG_ARRAY_MIN)
		return MemoryContextAllocHuge(cxt, Max(bytes, 1));
	a = MemoryContextAlloc(cxt, sizeof(BigArray));
	a->p = gd_big_alloc(bytes);
	if (a->p == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed on request of size %zu.", bytes)));
	a->bytes = bytes;
	a->cb.func = big_array_free;
	a->cb.arg = a;
	MemoryContextRegisterResetCallback(cxt, &a->cb);
	return a->p;
}
