/*
 * rows.c — the one row container and its readers, one per input kind (see
 * rows.h).
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "gserialized_points.h"
#include "rows.h"

StaticAssertDecl((int) GEOM_POINT == (int) GD_ROW_POINT &&
				 (int) GEOM_EMPTY == (int) GD_ROW_EMPTY &&
				 (int) GEOM_NULL == (int) GD_ROW_NULL &&
				 (int) GEOM_OTHER == (int) GD_ROW_OTHER,
				 "GeomKind must match gd_row_kind");

/* The input kind of a function's input type (see rows.h). */
RowsInput
rows_input_of_type(Oid typid, bool point_z)
{
	HeapTuple	tup;
	bool		geography;

	if (typid == FLOAT8ARRAYOID)
		return ROWS_ARRAY;
	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for type %u", typid);
	geography = strcmp(NameStr(((Form_pg_type) GETSTRUCT(tup))->typname), "geography") == 0;
	ReleaseSysCache(tup);
	if (geography)
		return ROWS_GEOGRAPHY;
	return point_z ? ROWS_POINT_Z : ROWS_GEOMETRY;
}

/* Fills fns for an input of type typid (see rows.h). */
void
rows_fns_init(RowsFns *fns, Oid typid, MemoryContext cxt)
{
	memset(fns, 0, sizeof(*fns));
	fns->type = typid;
	postgis_fns_init(&fns->geometry, typid, cxt);
	geography_fns_init(&fns->geography, typid, cxt);
}

/* An error about one row (see rows.h). */
void
rows_error(int64 row, int sqlerrcode, const char *message, const char *hint)
{
	ereport(ERROR,
			(errcode(sqlerrcode),
			 errmsg_internal("%s", message),
			 errdetail("Row %lld of the window partition.", (long long) row + 1),
			 hint ? errhint("%s", hint) : 0));
}

/* The error for a NaN or infinite coordinate in row. */
static void
pg_attribute_noreturn()
error_nonfinite(int64 row)
{
	rows_error(row, ERRCODE_INVALID_PARAMETER_VALUE,
			   "gpu_dbscan: geometry has a NaN or infinite coordinate", NULL);
}

/* The error for a value PostGIS's distance functions crash on (GeomInfo.malformed). */
static void
pg_attribute_noreturn()
error_malformed(int64 row, const char *what)
{
	rows_error(row, ERRCODE_INVALID_PARAMETER_VALUE, what,
			   "PostGIS's distance functions (ST_DWithin, ST_ClusterDBSCAN) crash on "
			   "such values; remove the EMPTY part, or the row.");
}

/* Records row's SRID; an error when it differs from an earlier row's. */
static void
check_srid(SridCheck *check, int32 srid, int64 row)
{
	if (!check->have)
	{
		check->have = true;
		check->srid = srid;
		check->row = row;
	}
	else if (srid != check->srid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gpu_dbscan: geometries of one partition have different SRIDs"),
				 errdetail("Row %lld has SRID %d, row %lld has SRID %d.",
						   (long long) check->row + 1, check->srid, (long long) row + 1, srid)));
}

/* A zeroed array of n elements of size width in cxt. */
static void *
alloc_zero(MemoryContext cxt, int64 n, Size width)
{
	return MemoryContextAllocExtended(cxt, Max(n, 1) * width, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
}

/* array, of old_n elements of size width, grown to n (the new ones zero). */
static void *
grow_zero(void *array, int64 old_n, int64 n, Size width)
{
	char	   *p = repalloc_huge(array, Max(n, 1) * width);

	memset(p + old_n * width, 0, (n - old_n) * width);
	return p;
}

/* The coordinate arrays of dims axes, for the rows' capacity. */
static void
set_dims(Rows *rows, int dims)
{
	int			k;

	for (k = rows->dims; k < dims; k++)
		rows->coord[k] = alloc_zero(rows->cxt, rows->cap, sizeof(double));
	rows->dims = dims;
}

/* Empty rows (see rows.h). */
void
rows_init(Rows *rows, RowsInput input, RowsFns *fns, int64 capacity, bool keep_values,
		  MemoryContext cxt)
{
	memset(rows, 0, sizeof(*rows));
	rows->input = input;
	rows->fns = fns;
	rows->cxt = cxt;
	rows->cap = Max(capacity, 1);
	rows->keep_values = keep_values;
	rows->kind = alloc_zero(cxt, rows->cap, sizeof(uint8));
	if (keep_values)
		rows->value = alloc_zero(cxt, rows->cap, sizeof(Datum));
	/* arrays: dims comes with the first non-NULL row */
	set_dims(rows, input == ROWS_POINT_Z ? 3 : input == ROWS_ARRAY ? 0 : 2);
}

/* Room for n more rows, and for n more non-point rows when other is set. */
static void
reserve(Rows *rows, int64 n, bool other)
{
	if (rows->nrows + n > rows->cap)
	{
		int64		cap = Max(rows->cap * 2, rows->nrows + n);
		int			k;

		rows->kind = grow_zero(rows->kind, rows->cap, cap, sizeof(uint8));
		for (k = 0; k < rows->dims; k++)
			rows->coord[k] = grow_zero(rows->coord[k], rows->cap, cap, sizeof(double));
		if (rows->keep_values)
			rows->value = grow_zero(rows->value, rows->cap, cap, sizeof(Datum));
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

/* A detoasted copy of a value in rows->cxt. */
static Datum
copy_value(const Rows *rows, Datum value)
{
	MemoryContext old = MemoryContextSwitchTo(rows->cxt);
	Datum		copy = PointerGetDatum(PG_DETOAST_DATUM_COPY(value));

	MemoryContextSwitchTo(old);
	return copy;
}

/* Non-point k of the rows (see rows.h). */
void
rows_set_other(Rows *rows, int64 k, int64 row, const GeomInfo *g, Datum value)
{
	rows->other_row[k] = row;
	rows->other_box[k].xmin = g->xmin;
	rows->other_box[k].ymin = g->ymin;
	rows->other_box[k].xmax = g->xmax;
	rows->other_box[k].ymax = g->ymax;
	rows->other_geom[k] = value;
}

/* A decoded 2D geometry's checks, in their order (see rows.h). */
void
rows_check_geometry(SridCheck *srids, int64 row, const GeomInfo *g)
{
	if (g->malformed)
		error_malformed(row, g->malformed);
	if (!g->finite)
		error_nonfinite(row);
	check_srid(srids, g->srid, row);
}

/*
 * 2D geometry: a point (x, y), EMPTY, or any other geometry (its box and a
 * copy of the value); Z and M are ignored.
 */
static GeomKind
read_geometry(Rows *rows, int64 row, Datum value)
{
	GeomInfo	g;

	gserialized_decode(value, &rows->fns->geometry, &g);
	rows_check_geometry(&rows->srids, row, &g);
	if (g.kind == GEOM_POINT)
	{
		rows->coord[0][row] = g.x;
		rows->coord[1][row] = g.y;
	}
	else if (g.kind == GEOM_OTHER)
	{
		int64		k;

		reserve(rows, 1, true);
		k = rows->nother++;
		rows_set_other(rows, k, row, &g, copy_value(rows, value));
	}
	return g.kind;
}

/* A decoded non-NULL POINT Z value's checks, in their order (see rows.h). */
void
rows_check_point_z(SridCheck *srids, int64 row, const GeomInfo *g)
{
	if (g->malformed)
		error_malformed(row, g->malformed);
	if (g->kind == GEOM_OTHER)
		rows_error(row, ERRCODE_INVALID_PARAMETER_VALUE,
				   "gpu_dbscan_3d: only points can be clustered in 3D",
				   "Use gpu_dbscan(geom, eps, minpoints) for other geometries (2D).");
	if (g->kind == GEOM_POINT && !g->has_z)
		rows_error(row, ERRCODE_INVALID_PARAMETER_VALUE,
				   "gpu_dbscan_3d: point has no Z coordinate",
				   "Give every point a Z (ST_Force3DZ sets it to 0), or use gpu_dbscan(geom, eps, minpoints), which ignores Z as ST_ClusterDBSCAN does.");
	if (!g->finite || (g->kind == GEOM_POINT && !isfinite(g->z)))
		error_nonfinite(row);
	check_srid(srids, g->srid, row);
}

/* POINT Z: a point with a Z (x, y, z) or EMPTY; anything else is an error. */
static GeomKind
read_point_z(Rows *rows, int64 row, Datum value)
{
	GeomInfo	g;

	gserialized_decode(value, NULL, &g);
	rows_check_point_z(&rows->srids, row, &g);
	if (g.kind == GEOM_POINT)
	{
		rows->coord[0][row] = g.x;
		rows->coord[1][row] = g.y;
		rows->coord[2][row] = g.z;
	}
	return g.kind;
}

/* float8[]'s row checks (see rows.h). */
ArrayType *
rows_check_array(DimsCheck *dims, int64 row, Datum value)
{
	ArrayType  *a = DatumGetArrayTypeP(value);
	int			n;
	const double *elems;

	if (ARR_ELEMTYPE(a) != FLOAT8OID)
		elog(ERROR, "gpu_dbscan: expected a float8[] point, got element type %u", ARR_ELEMTYPE(a));
	n = ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
	if (ARR_NDIM(a) > 1)
		rows_error(row, ERRCODE_ARRAY_SUBSCRIPT_ERROR,
				   psprintf("gpu_dbscan: a point must be a one-dimensional array, not %d-dimensional",
							ARR_NDIM(a)), NULL);
	if (n < GD_ND_MIN_DIMS || n > GD_ND_MAX_DIMS)
		rows_error(row, ERRCODE_ARRAY_SUBSCRIPT_ERROR,
				   psprintf("gpu_dbscan: a point must have %d to %d coordinates, not %d",
							GD_ND_MIN_DIMS, GD_ND_MAX_DIMS, n), NULL);
	if (dims->dims == 0)
	{
		dims->dims = n;
		dims->row = row;
	}
	else if (n != dims->dims)
		rows_error(row, ERRCODE_ARRAY_SUBSCRIPT_ERROR,
				   psprintf("gpu_dbscan: a point has %d coordinates, the first of its partition (row %lld) %d",
							n, (long long) dims->row + 1, dims->dims),
				   "The points of one partition must have the same number of coordinates.");
	if (ARR_HASNULL(a))
		rows_error(row, ERRCODE_NULL_VALUE_NOT_ALLOWED,
				   "gpu_dbscan: a point's coordinates must not be NULL", NULL);
	elems = (const double *) ARR_DATA_PTR(a);
	for (int k = 0; k < n; k++)
		if (!isfinite(elems[k]))
			rows_error(row, ERRCODE_INVALID_PARAMETER_VALUE,
					   psprintf("gpu_dbscan: coordinate %d of a point is NaN or infinite", k + 1),
					   NULL);
	return a;
}

/*
 * float8[]: a point of 2 to 8 finite coordinates, as many as the first
 * non-NULL row has.
 */
static GeomKind
read_array(Rows *rows, int64 row, Datum value)
{
	DimsCheck	dims = {rows->dims, rows->dims_row};
	ArrayType  *a = rows_check_array(&dims, row, value);
	const double *elems = (const double *) ARR_DATA_PTR(a);

	if (rows->dims == 0)
	{
		set_dims(rows, dims.dims);
		rows->dims_row = dims.row;
	}
	for (int k = 0; k < dims.dims; k++)
		rows->coord[k][row] = elems[k];
	return GEOM_POINT;
}

/* A decoded non-NULL geography value's checks, in their order (see rows.h). */
void
rows_check_geography(SridCheck *srids, int64 row, const GeomInfo *g)
{
	if (g->malformed)
		error_malformed(row, g->malformed);
	if (g->kind == GEOM_OTHER)
		rows_error(row, ERRCODE_FEATURE_NOT_SUPPORTED,
				   "gpu_dbscan: only geography points can be clustered",
				   "Cluster a point of each shape (for example ST_PointOnSurface(geog::geometry)::geography), or cluster the shapes as geometry.");
	if (!g->finite)
		error_nonfinite(row);
	check_srid(srids, g->srid, row);
}

/* Geography: a point (longitude, latitude in degrees) or EMPTY; else an error. */
static GeomKind
read_geography(Rows *rows, int64 row, Datum value)
{
	GeomInfo	g;

	gserialized_decode_geography(value, &g);
	rows_check_geography(&rows->srids, row, &g);
	if (g.kind == GEOM_POINT)
	{
		rows->coord[0][row] = g.x;
		rows->coord[1][row] = g.y;
	}
	return g.kind;
}

/* Appends one row (see rows.h). */
void
rows_add(Rows *rows, Datum value, bool isnull)
{
	int64		row = rows->nrows;
	GeomKind	kind = GEOM_NULL;

	reserve(rows, 1, false);
	if (!isnull)
	{
		switch (rows->input)
		{
			case ROWS_GEOMETRY:
				kind = read_geometry(rows, row, value);
				break;
			case ROWS_POINT_Z:
				kind = read_point_z(rows, row, value);
				break;
			case ROWS_ARRAY:
				kind = read_array(rows, row, value);
				break;
			case ROWS_GEOGRAPHY:
				kind = read_geography(rows, row, value);
				break;
		}
		if (rows->keep_values)
			rows->value[row] = copy_value(rows, value);
	}
	rows->kind[row] = (uint8) kind;
	if (kind == GEOM_POINT)
		rows->npoints++;
	rows->nrows++;
}

/* Appends copies of src's rows (see rows.h). */
void
rows_append(Rows *dst, const Rows *src)
{
	int64		base = dst->nrows;
	int64		k;
	int			d;

	if (src->input != dst->input)
		elog(ERROR, "gpu_dbscan: appending rows of another input kind");
	if (src->srids.have)
		check_srid(&dst->srids, src->srids.srid, base + src->srids.row);
	if (src->dims != dst->dims && src->npoints > 0)
	{
		if (dst->dims == 0)
		{
			set_dims(dst, src->dims);
			dst->dims_row = base + src->dims_row;
		}
		else
			rows_error(base + src->dims_row, ERRCODE_ARRAY_SUBSCRIPT_ERROR,
					   psprintf("gpu_dbscan: a point has %d coordinates, the first of its partition (row %lld) %d",
								src->dims, (long long) dst->dims_row + 1, dst->dims),
					   "The points of one partition must have the same number of coordinates.");
	}

	reserve(dst, src->nrows, false);
	reserve(dst, src->nother, true);
	memcpy(dst->kind + base, src->kind, src->nrows * sizeof(uint8));
	for (d = 0; d < src->dims; d++)
		memcpy(dst->coord[d] + base, src->coord[d], src->nrows * sizeof(double));
	for (k = 0; k < src->nother; k++)
	{
		dst->other_row[dst->nother + k] = base + src->other_row[k];
		dst->other_box[dst->nother + k] = src->other_box[k];
		dst->other_geom[dst->nother + k] = copy_value(dst, src->other_geom[k]);
	}
	if (dst->keep_values)
		for (k = 0; k < src->nrows; k++)
			dst->value[base + k] = src->value[k] ? copy_value(dst, src->value[k]) : (Datum) 0;
	dst->nrows += src->nrows;
	dst->npoints += src->npoints;
	dst->nother += src->nother;
}

/* ---- the rows as bytes ---- */

/* What precedes the arrays. */
typedef struct RowsHeader
{
	int32		input;
	int32		dims;
	bool		keep_values;
	SridCheck	srids;
	int64		dims_row;
	int64		nrows;
	int64		npoints;
	int64		nother;
} RowsHeader;

/* n bytes of data at *pos of buf (buf NULL: only counted). */
static void
put(char *buf, Size *pos, const void *data, Size n)
{
	if (buf && n > 0)
		memcpy(buf + *pos, data, n);
	*pos += n;
}

/* n bytes from buf[*pos .. len) into data; an error past len. */
static void
get(const char *buf, Size *pos, Size len, void *data, Size n)
{
	if (*pos > len || n > len - *pos)
		elog(ERROR, "gpu_dbscan: corrupt aggregate state (%zu bytes at %zu of %zu)",
			 n, *pos, len);
	if (n > 0)
		memcpy(data, buf + *pos, n);
	*pos += n;
}

/* A value as its length and bytes; 0 for none. */
static void
put_value(char *buf, Size *pos, Datum value)
{
	uint32		n = value == (Datum) 0 ? 0 : VARSIZE(DatumGetPointer(value));

	put(buf, pos, &n, sizeof(n));
	if (n > 0)
		put(buf, pos, DatumGetPointer(value), n);
}

static Datum
get_value(const char *buf, Size *pos, Size len, MemoryContext cxt)
{
	uint32		n;
	void	   *copy;

	get(buf, pos, len, &n, sizeof(n));
	if (n == 0)
		return (Datum) 0;
	copy = MemoryContextAllocHuge(cxt, n);
	get(buf, pos, len, copy, n);
	if (VARSIZE(copy) != n)
		elog(ERROR, "gpu_dbscan: corrupt aggregate state (value of %u bytes)", n);
	return PointerGetDatum(copy);
}

/* The rows as bytes (see rows.h). */
void
rows_write(const Rows *rows, char *buf, Size *pos)
{
	RowsHeader	h;
	int64		i;
	int			d;

	memset(&h, 0, sizeof(h));
	h.input = rows->input;
	h.dims = rows->dims;
	h.keep_values = rows->keep_values;
	h.srids = rows->srids;
	h.dims_row = rows->dims_row;
	h.nrows = rows->nrows;
	h.npoints = rows->npoints;
	h.nother = rows->nother;
	put(buf, pos, &h, sizeof(h));
	put(buf, pos, rows->kind, rows->nrows * sizeof(uint8));
	for (d = 0; d < rows->dims; d++)
		put(buf, pos, rows->coord[d], rows->nrows * sizeof(double));
	put(buf, pos, rows->other_row, rows->nother * sizeof(int64));
	put(buf, pos, rows->other_box, rows->nother * sizeof(gd_box));
	for (i = 0; i < rows->nother; i++)
		put_value(buf, pos, rows->other_geom[i]);
	if (rows->keep_values)
		for (i = 0; i < rows->nrows; i++)
			put_value(buf, pos, rows->value[i]);
}

/* The rows from bytes (see rows.h). */
void
rows_read(Rows *rows, const char *buf, Size *pos, Size len)
{
	RowsHeader	h;
	int64		i;
	int			d;

	get(buf, pos, len, &h, sizeof(h));
	if (h.input != (int32) rows->input || h.keep_values != rows->keep_values ||
		h.nrows < 0 || h.nother < 0 || h.nother > h.nrows || h.npoints < 0 ||
		h.npoints > h.nrows || h.dims < 0 || h.dims > GD_ND_MAX_DIMS)
		elog(ERROR, "gpu_dbscan: corrupt aggregate state header");
	reserve(rows, h.nrows, false);
	reserve(rows, h.nother, true);
	if (h.dims != rows->dims)
		set_dims(rows, h.dims);
	rows->srids = h.srids;
	rows->dims_row = h.dims_row;
	get(buf, pos, len, rows->kind, h.nrows * sizeof(uint8));
	for (d = 0; d < h.dims; d++)
		get(buf, pos, len, rows->coord[d], h.nrows * sizeof(double));
	get(buf, pos, len, rows->other_row, h.nother * sizeof(int64));
	get(buf, pos, len, rows->other_box, h.nother * sizeof(gd_box));
	for (i = 0; i < h.nother; i++)
		rows->other_geom[i] = get_value(buf, pos, len, rows->cxt);
	if (h.keep_values)
		for (i = 0; i < h.nrows; i++)
			rows->value[i] = get_value(buf, pos, len, rows->cxt);
	rows->nrows = h.nrows;
	rows->npoints = h.npoints;
	rows->nother = h.nother;
}
