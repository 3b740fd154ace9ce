/*
 * partition_rows.c — the rows of one clustering (see partition_rows.h).
 */
#include "gd_core.h"			/* before postgres.h: see core_bridge.h */

#include "postgres.h"

#include "utils/memutils.h"

#include "gserialized_points.h"
#include "partition_rows.h"

/* Empty rows with room for capacity (see partition_rows.h). */
void
partition_rows_init(PartitionRows *rows, int64 capacity, MemoryContext cxt)
{
	memset(rows, 0, sizeof(*rows));
	rows->cxt = cxt;
	rows->cap = Max(capacity, 1);
	rows->kind = MemoryContextAllocHuge(cxt, rows->cap * sizeof(uint8));
	rows->x = MemoryContextAllocHuge(cxt, rows->cap * sizeof(double));
	rows->y = MemoryContextAllocHuge(cxt, rows->cap * sizeof(double));
}

/* Room for n more rows, and for n more non-point rows when other is set. */
static void
reserve(PartitionRows *rows, int64 n, bool other)
{
	if (rows->nrows + n > rows->cap)
	{
		int64		cap = Max(rows->cap * 2, rows->nrows + n);

		rows->kind = repalloc_huge(rows->kind, cap * sizeof(uint8));
		rows->x = repalloc_huge(rows->x, cap * sizeof(double));
		rows->y = repalloc_huge(rows->y, cap * sizeof(double));
		rows->cap = cap;
	}
	if (other && rows->nother + n > rows->other_cap)
	{
		int64		cap = Max(Max(rows->other_cap * 2, rows->nother + n), 64);

		if (rows->other_row == NULL)
		{
			rows->other_row = MemoryContextAllocHuge(rows->cxt, cap * sizeof(int64));
			rows->other_box = MemoryContextAllocHuge(rows->cxt, cap * sizeof(gd_box));
			rows->other_geom = MemoryContextAllocHuge(rows->cxt, cap * sizeof(Datum));
		}
		else
		{
			rows->other_row = repalloc_huge(rows->other_row, cap * sizeof(int64));
			rows->other_box = repalloc_huge(rows->other_box, cap * sizeof(gd_box));
			rows->other_geom = repalloc_huge(rows->other_geom, cap * sizeof(Datum));
		}
		rows->other_cap = cap;
	}
}

/* A detoasted copy of a geometry value in rows->cxt. */
static Datum
copy_geometry(const PartitionRows *rows, Datum value)
{
	MemoryContext old = MemoryContextSwitchTo(rows->cxt);
	Datum		copy = PointerGetDatum(PG_DETOAST_DATUM_COPY(value));

	MemoryContextSwitchTo(old);
	return copy;
}

/* Appends one row (see partition_rows.h). */
void
partition_rows_add(PartitionRows *rows, PostgisFns *fns, Datum value, bool isnull)
{
	int64		i = rows->nrows;
	GeomInfo	g;

	memset(&g, 0, sizeof(g));
	g.kind = GEOM_NULL;
	if (!isnull)
	{
		gserialized_decode(value, fns, &g);
		if (g.malformed)
			window_error_malformed(i, g.malformed);
		if (!g.finite)
			window_error_nonfinite(i);
		window_check_srid(&rows->srids, g.srid, i);
	}

	reserve(rows, 1, g.kind == GEOM_OTHER);
	rows->kind[i] = (uint8) g.kind;
	rows->x[i] = g.kind == GEOM_POINT ? g.x : 0.0;
	rows->y[i] = g.kind == GEOM_POINT ? g.y : 0.0;
	if (g.kind == GEOM_POINT)
		rows->npoints++;
	else if (g.kind == GEOM_OTHER)
	{
		int64		k = rows->nother++;

		rows->other_row[k] = i;
		rows->other_box[k].xmin = g.xmin;
		rows->other_box[k].ymin = g.ymin;
		rows->other_box[k].xmax = g.xmax;
		rows->other_box[k].ymax = g.ymax;
		rows->other_geom[k] = copy_geometry(rows, value);
	}
	rows->nrows++;
}

/* Appends copies of src's rows (see partition_rows.h). */
void
partition_rows_append(PartitionRows *dst, const PartitionRows *src)
{
	int64		base = dst->nrows;
	int64		k;

	if (src->srids.have)
		window_check_srid(&dst->srids, src->srids.srid, base + src->srids.row);

	reserve(dst, src->nrows, false);
	reserve(dst, src->nother, true);
	memcpy(dst->kind + base, src->kind, src->nrows * sizeof(uint8));
	memcpy(dst->x + base, src->x, src->nrows * sizeof(double));
	memcpy(dst->y + base, src->y, src->nrows * sizeof(double));
	for (k = 0; k < src->nother; k++)
	{
		dst->other_row[dst->nother + k] = base + src->other_row[k];
		dst->other_box[dst->nother + k] = src->other_box[k];
		dst->other_geom[dst->nother + k] = copy_geometry(dst, src->other_geom[k]);
	}
	dst->nrows += src->nrows;
	dst->npoints += src->npoints;
	dst->nother += src->nother;
}
