/*
 * big_arrays.h — arrays of one value per row on huge pages (big_arrays.c).
 */
#ifndef GD_BIG_ARRAYS_H
#define GD_BIG_ARRAYS_H

#include "postgres.h"

extern void *big_array_alloc(MemoryContext cxt, Size bytes);

#endif							/* GD_BIG_ARRAYS_H */
