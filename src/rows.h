/*
 * rows.h — the rows of one clustering, read once: the one row container of
 * every window function and aggregate, filled by one reader per input kind.
 *
 * A row is a point (its coordinates), an EMPTY value, NULL, or (2D geometry
 * only) another geometry (its box and a copy of its value).  Coordinates
 * are held by axis: coord[0] and coord[1] are x and y (longitude and
 * latitude for geography), coord[2] z, and so on, so that 2D points go to
 * the core as they are.  The window functions fill one from their partition
 * (window.c), the aggregates row by row in their transition function
 * (aggregates.c), merging partial ones and shipping them between parallel
 * workers as bytes.
 */
#ifndef GPU_DBSCAN_ROWS_H
#define GPU_DBSCAN_ROWS_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"

#include "gd_core.h"
#include "geography.h"
#include "postgis_fn.h"

/* The input kinds; each has its reader (rows.c) and its way to the core (cluster.c). */
typedef enum RowsInput
{
	ROWS_GEOMETRY = 0,			/* 2D geometry of any type (Z and M ignored) */
	ROWS_POINT_Z,				/* POINT Z geometry, 3D distance */
	ROWS_ARRAY,					/* float8[] of 2 to 8 coordinates */
	ROWS_GEOGRAPHY				/* geography points, eps in metres */
} RowsInput;

/* The PostGIS functions of one call site or aggregate state, looked up when first needed. */
typedef struct RowsFns
{
	Oid			type;			/* the input's type (geometry, geography, float8[]) */
	PostgisFns	geometry;		/* ROWS_GEOMETRY, ROWS_POINT_Z */
	GeogFns		geography;		/* ROWS_GEOGRAPHY */
} RowsFns;

/* The coordinate count every non-NULL float8[] row must share. */
typedef struct DimsCheck
{
	int			dims;			/* 0 until a row has been seen */
	int64		row;			/* the first row (0-based) */
} DimsCheck;

/* The SRID every non-NULL row must share. */
typedef struct SridCheck
{
	bool		have;			/* a row has been seen */
	int32		srid;
	int64		row;			/* the first row (0-based) */
} SridCheck;

typedef struct Rows
{
	RowsInput	input;
	RowsFns    *fns;
	MemoryContext cxt;			/* where the arrays and copies live */
	int64		nrows;
	int64		cap;			/* rows the arrays hold */
	uint8	   *kind;			/* gd_row_kind per row */
	int			dims;			/* coordinates per point; 0 until an array row fixes it */
	int64		dims_row;		/* the row that fixed dims (arrays) */
	double	   *coord[GD_ND_MAX_DIMS];	/* coord[k][row], k < dims; 0 for non-point rows */
	int64		npoints;
	/* ROWS_GEOMETRY's non-point rows and their boxes, in row order */
	int64		nother;
	int64		other_cap;
	int64	   *other_row;
	gd_box	   *other_box;
	Datum	   *other_geom;		/* detoasted copies, for st_dwithin */
	bool		keep_values;	/* gpu_dbscan_collect: a copy of every row's value */
	Datum	   *value;			/* per row when keep_values; 0 for NULL */
	SridCheck	srids;			/* geometry and geography */
} Rows;

/*
 * The input kind of a function whose input has type typid: float8[],
 * geography, or geometry (POINT Z when point_z, the _3d functions).
 */
extern RowsInput rows_input_of_type(Oid typid, bool point_z);

/* Fills fns for an input of type typid (lookups wait until needed). */
extern void rows_fns_init(RowsFns *fns, Oid typid, MemoryContext cxt);

/* Empty rows of one input kind with room for capacity (grown as needed), in cxt. */
extern void rows_init(Rows *rows, RowsInput input, RowsFns *fns, int64 capacity,
					  bool keep_values, MemoryContext cxt);

/*
 * Appends one row through the input kind's reader: decodes value in the
 * current memory context (which the caller resets), raises the errors for
 * a value the kind cannot take (naming the row), and keeps what clustering
 * needs in rows->cxt.
 */
extern void rows_add(Rows *rows, Datum value, bool isnull);

/* Appends copies of every row of src (of the same input kind) after dst's. */
extern void rows_append(Rows *dst, const Rows *src);

/*
 * The rows as bytes and back (parallel aggregation): rows_write measures
 * (buf NULL) or writes them at *pos; rows_read reads them from buf[*pos ..
 * len) into rows (rows_init'ed, empty), an error when they do not fit.
 */
extern void rows_write(const Rows *rows, char *buf, Size *pos);
extern void rows_read(Rows *rows, const char *buf, Size *pos, Size len);

/*
 * The checks of a decoded non-NULL 2D geometry value in row, in their
 * order: a malformed value, a NaN or infinite coordinate, an SRID that
 * differs from the first row's (srids); what rows_add does for geometry,
 * and the fast path (window_scan.c) for the rows it read in parallel.
 */
struct GeomInfo;
extern void rows_check_geometry(SridCheck *srids, int64 row, const struct GeomInfo *g);

/*
 * The same for a POINT Z value (the _3d functions): malformed, not a point,
 * a point without Z, a NaN or infinite coordinate (Z too), another SRID.
 */
extern void rows_check_point_z(SridCheck *srids, int64 row, const struct GeomInfo *g);

/*
 * The same for a geography value: malformed, not a point (or EMPTY), a NaN
 * or infinite coordinate, another SRID.
 */
extern void rows_check_geography(SridCheck *srids, int64 row, const struct GeomInfo *g);

/*
 * The checks of a non-NULL float8[] value in row, in their order: its
 * element type, one dimension, 2 to 8 coordinates, as many as the first
 * row's (dims), no NULL, each finite; what rows_add does for float8[], and
 * the aggregates' fast path (agg_scan.c) for the rows it read in parallel.
 * Returns the array (value detoasted when it was not already).
 */
extern ArrayType *rows_check_array(DimsCheck *dims, int64 row, Datum value);

/*
 * Non-point k of the rows (room for it reserved): its row, the box of its
 * decoded value g, and the value (a copy the rows keep).
 */
extern void rows_set_other(Rows *rows, int64 k, int64 row, const struct GeomInfo *g,
						   Datum value);

/*
 * An error about row (0-based) of the rows: SQLSTATE sqlerrcode, the
 * message, "Row N of the window partition." and a hint (NULL for none).
 */
extern void rows_error(int64 row, int sqlerrcode, const char *message,
					   const char *hint) pg_attribute_noreturn();

#endif							/* GPU_DBSCAN_ROWS_H */
