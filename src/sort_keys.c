/*
 * sort_keys.c — normalized keys and a stable radix sort (see sort_keys.h).
 *
 * Each column is sorted in turn, the last first (least significant digit
 * first over the columns, each a stable LSD radix sort by bytes that skips
 * the bytes every key shares), so that ties keep the given order.  Rows that
 * are already in order cost one comparison pass.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/float.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

#include "prefault.h"
#include "sort_keys.h"

/* Whether type sorted by sortop has a normalized key (see sort_keys.h). */
bool
sort_key_supported(Oid type, Oid sortop, bool *descending)
{
	TypeCacheEntry *tc;

	switch (type)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case FLOAT4OID:
		case FLOAT8OID:
			break;
		default:
			return false;
	}
	tc = lookup_type_cache(type, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	if (sortop == tc->lt_opr)
		*descending = false;
	else if (sortop == tc->gt_opr)
		*descending = true;
	else
		return false;
	return true;
}

/* A signed integer's order as an unsigned one. */
static inline uint64
signed_key(int64 v)
{
	return (uint64) v ^ (UINT64CONST(1) << 63);
}

/* A double's order (float8_cmp_internal's: -0 = 0, NaN above all) as an unsigned one. */
static inline uint64
double_key(double v)
{
	uint64		bits;

	if (isnan(v))
		return PG_UINT64_MAX;
	if (v == 0)
		v = 0;					/* -0 sorts as 0 */
	memcpy(&bits, &v, sizeof(bits));
	return (bits & (UINT64CONST(1) << 63)) ? ~bits : bits | (UINT64CONST(1) << 63);
}

/* The normalized key of a non-NULL value of the column. */
static inline uint64
key_of(const SortKeyColumn *col, uint32 slot)
{
	Datum		d = col->values[slot];
	uint64		k;

	switch (col->type)
	{
		case INT2OID:
			k = signed_key(DatumGetInt16(d));
			break;
		case INT4OID:
		case DATEOID:
			k = signed_key(DatumGetInt32(d));
			break;
		case INT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			k = signed_key(DatumGetInt64(d));
			break;
		case FLOAT4OID:
			k = double_key((double) DatumGetFloat4(d));
			break;
		default:
			k = double_key(DatumGetFloat8(d));
			break;
	}
	return col->descending ? ~k : k;
}

/* -1, 0, 1: the rows at slots a and b in one column's order. */
static inline int
compare_column(const SortKeyColumn *col, uint32 a, uint32 b)
{
	bool		na = col->isnull[a];
	bool		nb = col->isnull[b];
	uint64		ka,
				kb;

	if (na || nb)
	{
		if (na && nb)
			return 0;
		return (na == col->nulls_first) ? -1 : 1;
	}
	ka = key_of(col, a);
	kb = key_of(col, b);
	return ka < kb ? -1 : (ka > kb ? 1 : 0);
}

/* Whether the rows are equal in every column (see sort_keys.h). */
bool
sort_slots_equal(const SortKeyColumn *cols, int ncols, uint32 a, uint32 b)
{
	int			c;

	for (c = 0; c < ncols; c++)
		if (compare_column(&cols[c], a, b) != 0)
			return false;
	return true;
}

/* Whether the slots are sorted by the columns already (see sort_keys.h). */
bool
sort_slots_sorted(const uint32 *order, int64 n, const SortKeyColumn *cols, int ncols)
{
	int64		r;

	for (r = 1; r < n; r++)
	{
		int			c;

		if ((r & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		for (c = 0; c < ncols; c++)
		{
			int			cmp = order ? compare_column(&cols[c], order[r - 1], order[r]) :
				compare_column(&cols[c], (uint32) (r - 1), (uint32) r);

			if (cmp < 0)
				break;
			if (cmp > 0)
				return false;
		}
	}
	return true;
}

typedef struct KeyedSlot
{
	uint64		key;
	uint32		slot;
} KeyedSlot;

/* Stable LSD radix sort of a[0..n) by key, tmp as scratch; skips shared bytes. */
static void
radix_sort(KeyedSlot *a, KeyedSlot *tmp, int64 n)
{
	int64	   *count = palloc0(8 * 256 * sizeof(int64));
	int64		i;
	int			b;

	for (i = 0; i < n; i++)
		for (b = 0; b < 8; b++)
			count[b * 256 + ((a[i].key >> (8 * b)) & 0xFF)]++;
	for (b = 0; b < 8; b++)
	{
		int64	   *cnt = count + b * 256;
		int64		sum = 0;
		int			v;

		if (cnt[(a[0].key >> (8 * b)) & 0xFF] == n)
			continue;			/* every key has this byte */
		CHECK_FOR_INTERRUPTS();
		for (v = 0; v < 256; v++)
		{
			int64		c = cnt[v];

			cnt[v] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			tmp[cnt[(a[i].key >> (8 * b)) & 0xFF]++] = a[i];
		memcpy(a, tmp, n * sizeof(KeyedSlot));
	}
	pfree(count);
}

/* Sorts order stably by one column. */
static void
sort_by_column(uint32 *order, int64 n, const SortKeyColumn *col, KeyedSlot *a, KeyedSlot *tmp)
{
	int64		i;
	int64		nnull = 0;
	int64		lo,
				hi;

	for (i = 0; i < n; i++)
	{
		uint32		s = order[i];

		a[i].slot = s;
		if (col->isnull[s])
		{
			a[i].key = 0;
			nnull++;
		}
		else
			a[i].key = key_of(col, s);
	}
	radix_sort(a, tmp, n);
	if (nnull == 0)
	{
		for (i = 0; i < n; i++)
			order[i] = a[i].slot;
		return;
	}
	/* the NULLs before or after the others, each group in its order */
	lo = col->nulls_first ? 0 : n - nnull;
	hi = col->nulls_first ? nnull : 0;
	for (i = 0; i < n; i++)
	{
		if (col->isnull[a[i].slot])
			order[lo++] = a[i].slot;
		else
			order[hi++] = a[i].slot;
	}
}

/* Sorts order by the columns, stably (see sort_keys.h). */
void
sort_slots(uint32 *order, int64 n, const SortKeyColumn *cols, int ncols)
{
	KeyedSlot  *a;
	KeyedSlot  *tmp;
	int			c;

	if (n < 2 || ncols == 0 || sort_slots_sorted(order, n, cols, ncols))
		return;
	a = MemoryContextAllocHuge(CurrentMemoryContext, n * sizeof(KeyedSlot));
	tmp = MemoryContextAllocHuge(CurrentMemoryContext, n * sizeof(KeyedSlot));
	prefault_write(a, n * sizeof(KeyedSlot));
	prefault_write(tmp, n * sizeof(KeyedSlot));
	for (c = ncols - 1; c >= 0; c--)
		sort_by_column(order, n, &cols[c], a, tmp);
	pfree(a);
	pfree(tmp);
}
