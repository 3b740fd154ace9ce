/*
 * gserialized_points.h — reading PostGIS geometry values straight from their
 * serialized form (GSERIALIZED v1 and v2), without deserializing them.
 *
 * For clustering, a geometry is one of: a non-empty point (its x and y), an
 * EMPTY geometry, or any other non-empty geometry (its 2D bounding box).
 */
#ifndef GPU_DBSCAN_GSERIALIZED_POINTS_H
#define GPU_DBSCAN_GSERIALIZED_POINTS_H

#include "fmgr.h"

#include "postgis_fn.h"

/* What one row holds; the values are those of the core's gd_row_kind. */
typedef enum GeomKind
{
	GEOM_POINT = 0,				/* non-empty point: x, y */
	GEOM_EMPTY = 1,				/* EMPTY geometry of any type */
	GEOM_NULL = 2,				/* SQL NULL */
	GEOM_OTHER = 3				/* non-empty non-point: xmin..ymax */
} GeomKind;

typedef struct GeomInfo
{
	GeomKind	kind;
	int32		srid;			/* 0 when unknown, as ST_SRID says */
	bool		finite;			/* false: some x or y is NaN or infinite */
	double		x,				/* GEOM_POINT */
				y;
	bool		has_z;			/* GEOM_POINT: the value has a Z ordinate */
	double		z;				/* GEOM_POINT with has_z: its Z (not checked by finite) */
	double		xmin,			/* GEOM_OTHER: the box PostGIS uses for it */
				ymin,
				xmax,
				ymax;

	/*
	 * Not NULL: the value is one that PostGIS's distance functions crash on
	 * or that we cannot show they handle (see "Malformed values" in
	 * gserialized_points.c); what is wrong with it, for an error message.
	 * The caller must refuse the row before any PostGIS function sees it.
	 */
	const char *malformed;
} GeomInfo;

/*
 * Decodes one non-NULL geometry datum into *out.  Corrupt input is an ERROR
 * (as is a sub-geometry of a type its collection cannot hold, which PostGIS
 * refuses too); a malformed one sets out->malformed.
 * fns is used only for a curved geometry that carries no serialized box;
 * with fns NULL such a geometry gets the box of its vertices (enough to
 * tell its kind).
 */
extern void gserialized_decode(Datum geom, PostgisFns *fns, GeomInfo *out);

/*
 * The same for a geography value (GEODETIC flag set; its box, if any, is
 * geocentric and not read): kind, srid, finite, and x = longitude, y =
 * latitude (degrees) for a point.
 */
extern void gserialized_decode_geography(Datum geog, GeomInfo *out);

/*
 * A serialized 2D point (GSERIALIZED v2) of the given SRID, palloc'd in the
 * current memory context: what a point row is handed to st_dwithin as.
 */
extern Datum gserialized_make_point(double x, double y, int32 srid);

/*
 * The coordinate dimensions of a detoasted geometry value, from its flags:
 * GSERIALIZED_2D, _Z, _M or _ZM (PostGIS collects only values that agree).
 */
#define GSERIALIZED_2D 0
#define GSERIALIZED_Z 1
#define GSERIALIZED_M 2
#define GSERIALIZED_ZM 3
extern int	gserialized_dims(Datum geom);

/* "2D", "Z", "M" or "ZM". */
extern const char *gserialized_dims_name(int dims);

/* Bytes of a serialized 2D point, varlena header included. */
#define GSERIALIZED_POINT_SIZE 32

/*
 * Writes a serialized 2D point into buf (GSERIALIZED_POINT_SIZE bytes,
 * int-aligned): a geometry, or a geography (lon, lat) when geodetic.
 */
extern void gserialized_write_point(void *buf, double x, double y, int32 srid, bool geodetic);

#endif							/* GPU_DBSCAN_GSERIALIZED_POINTS_H */
