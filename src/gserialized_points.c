/*
 * gserialized_points.c — decode PostGIS geometry values from their serialized
 * form (see gserialized_points.h).
 *
 * Layout (PostGIS liblwgeom/gserialized1.c and gserialized2.c).  Checked on
 * PostGIS 3.3.2: the heap bytes (pageinspect) of points with and without
 * SRID, Z, M, EMPTY, 2- and 3-vertex lines, multipoints, collections,
 * polygons, curves and polyhedral surfaces as written by PostGIS (all v2),
 * and hand-built v1 and v2 values read back by PostGIS (sql/gserialized.sql):
 *
 *   varlena header         1 byte (short) or 4 bytes; we read VARDATA_ANY
 *   srid[3]                21-bit signed SRID, big-endian: srid[0] holds bits
 *                          16..20; 0 means unknown
 *   gflags                 Z 0x01, M 0x02, BBOX 0x04, GEODETIC 0x08;
 *                          0x40 set: version 2, where 0x10 is EXTENDED;
 *                          0x40 clear: version 1 (0x10 READONLY, 0x20 SOLID)
 *   [v2 EXTENDED]          8 bytes of extended flags
 *   [BBOX]                 floats xmin, xmax, ymin, ymax, then z and/or m
 *                          pairs: 2 * ndims floats (6 when GEODETIC), rounded
 *                          outwards to float
 *   uint32 type, uint32 count, then by type:
 *     POINT, LINESTRING, CIRCULARSTRING, TRIANGLE: count vertices of ndims
 *                          doubles each (a POINT has count 0 = EMPTY or 1)
 *     POLYGON:             count ring sizes (uint32), 4 bytes of padding when
 *                          count is odd, then the rings' vertices
 *     multi types and collections: count sub-geometries, each with its own
 *                          type and count (no flags, no box)
 *
 * Numbers are native-endian and unaligned once the header is short, so every
 * read is a memcpy after a length check.  PostGIS writes no box for points,
 * for linestrings of at most two vertices and for one-point multipoints, and
 * none for EMPTY geometries.
 *
 * Sub-geometry types follow PostGIS's lwcollection_allows_subtype (a point
 * in a MULTIPOINT, a linestring or circular string in a compound curve, ...;
 * a GEOMETRYCOLLECTION holds anything): anything else is corrupt, as
 * PostGIS says too.
 *
 * Malformed values (issue 11).  PostGIS 3.3.2 reads some values whose parts
 * are EMPTY where a part must not be, and its distance code (st_dwithin,
 * ST_DWithin, ST_ClusterDBSCAN) then crashes the server: a CURVEPOLYGON
 * whose second ring is LINESTRING EMPTY or COMPOUNDCURVE(EMPTY) (from WKB,
 * any role), a CURVEPOLYGON whose ring is a COMPOUNDCURVE with an EMPTY
 * first member (from WKB), a POLYGON with an empty inner ring (serialized
 * bytes), at any depth of MULTISURFACE, GEOMETRYCOLLECTION, ...  (the
 * probes: docs/reliability.md).  The rule, one level at a time: the rings of
 * a POLYGON or CURVEPOLYGON, and the members of a COMPOUNDCURVE, are either
 * all EMPTY (the value is EMPTY, as PostGIS reads it) or none is.  A value
 * that breaks it anywhere sets GeomInfo.malformed; EMPTY members of the
 * other collections (MULTIPOINT(EMPTY, 1 1), GEOMETRYCOLLECTION(POINT EMPTY,
 * ...), a TIN's EMPTY triangle, ...) are kept: PostGIS measures them safely.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "gserialized_points.h"

/* gflags bits (identical in v1 and v2 but for the version and EXTENDED bits) */
#define GS_FLAG_Z			0x01
#define GS_FLAG_M			0x02
#define GS_FLAG_BBOX		0x04
#define GS_FLAG_GEODETIC	0x08
#define GS_FLAG_EXTENDED	0x10	/* v2 only */
#define GS_FLAG_VERSION2	0x40
#define GS_FLAG_VERSION_X	0x80	/* not written by any PostGIS we know */

/* PostGIS geometry type numbers (liblwgeom.h) */
#define GS_POINT			1
#define GS_LINE				2
#define GS_POLYGON			3
#define GS_MULTIPOINT		4
#define GS_MULTILINE		5
#define GS_MULTIPOLYGON		6
#define GS_COLLECTION		7
#define GS_CIRCSTRING		8
#define GS_COMPOUND			9
#define GS_CURVEPOLY		10
#define GS_MULTICURVE		11
#define GS_MULTISURFACE		12
#define GS_POLYHEDRAL		13
#define GS_TRIANGLE			14
#define GS_TIN				15

/* A bounded reader over the serialized bytes. */
typedef struct GsCursor
{
	const uint8 *base;
	size_t		len;
	size_t		off;
} GsCursor;

/* What walking the vertices of a non-point geometry found. */
typedef struct GsWalk
{
	int			ndims;
	int64		nvertices;
	bool		finite;
	bool		has_arcs;		/* a curve type: vertices do not bound it */
	double		xmin,
				ymin,
				xmax,
				ymax;
	const char *malformed;		/* the first malformed part (see the file comment) */
} GsWalk;

/* The type's name, as PostGIS's error messages give it. */
static const char *
type_name(uint32 type)
{
	static const char *const names[] = {
		"Unknown", "Point", "LineString", "Polygon", "MultiPoint", "MultiLineString",
		"MultiPolygon", "GeometryCollection", "CircularString", "CompoundCurve",
		"CurvePolygon", "MultiCurve", "MultiSurface", "PolyhedralSurface", "Triangle", "Tin"
	};

	return type < lengthof(names) ? names[type] : "Unknown";
}

/* Whether a collection of type parent may hold a member of type sub (lwcollection_allows_subtype). */
static bool
allows_subtype(uint32 parent, uint32 sub)
{
	switch (parent)
	{
		case GS_COLLECTION:
			return true;
		case GS_MULTIPOINT:
			return sub == GS_POINT;
		case GS_MULTILINE:
			return sub == GS_LINE;
		case GS_MULTIPOLYGON:
		case GS_POLYHEDRAL:
			return sub == GS_POLYGON;
		case GS_COMPOUND:
			return sub == GS_LINE || sub == GS_CIRCSTRING;
		case GS_CURVEPOLY:
		case GS_MULTICURVE:
			return sub == GS_LINE || sub == GS_CIRCSTRING || sub == GS_COMPOUND;
		case GS_MULTISURFACE:
			return sub == GS_POLYGON || sub == GS_CURVEPOLY;
		case GS_TIN:
			return sub == GS_TRIANGLE;
		default:
			return false;
	}
}

/* Raises the error for a malformed value. */
static void
pg_attribute_noreturn()
corrupt(const char *what, size_t off)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("invalid serialized geometry: %s", what),
			 errdetail("At byte %zu of the serialized value.", off)));
}

/* Fails unless n more bytes can be read. */
static inline void
need(const GsCursor *c, size_t n, const char *what)
{
	if (n > c->len - c->off)
		corrupt(what, c->off);
}

/* Reads a native uint32. */
static inline uint32
read_u32(GsCursor *c, const char *what)
{
	uint32		v;

	need(c, sizeof(v), what);
	memcpy(&v, c->base + c->off, sizeof(v));
	c->off += sizeof(v);
	return v;
}

/* Reads count vertices of walk->ndims doubles, folding x and y into walk. */
static void
walk_vertices(GsCursor *c, uint32 count, GsWalk *walk)
{
	size_t		stride = (size_t) walk->ndims * sizeof(double);
	uint32		i;

	need(c, (size_t) count * stride, "vertex array runs past the end");
	for (i = 0; i < count; i++)
	{
		const uint8 *v = c->base + c->off + (size_t) i * stride;
		double		x,
					y;

		memcpy(&x, v, sizeof(double));
		memcpy(&y, v + sizeof(double), sizeof(double));
		if (!isfinite(x) || !isfinite(y))
		{
			walk->finite = false;
			continue;
		}
		if (walk->nvertices == 0)
		{
			walk->xmin = walk->xmax = x;
			walk->ymin = walk->ymax = y;
		}
		else
		{
			walk->xmin = Min(walk->xmin, x);
			walk->xmax = Max(walk->xmax, x);
			walk->ymin = Min(walk->ymin, y);
			walk->ymax = Max(walk->ymax, y);
		}
		walk->nvertices++;
	}
	c->off += (size_t) count * stride;
}

/*
 * Records that parts, the rings or members of a geometry of type, are
 * neither all EMPTY nor all non-empty (see the file comment).
 */
static void
mixed_parts(GsWalk *walk, uint32 type, uint32 nparts, uint32 nempty)
{
	if (nempty == 0 || nempty == nparts || walk->malformed)
		return;
	walk->malformed = type == GS_COMPOUND ?
		"gpu_dbscan: geometry has a CompoundCurve with an EMPTY member among non-empty ones" :
		psprintf("gpu_dbscan: geometry has a %s with an EMPTY ring among non-empty ones",
				 type_name(type));
}

/*
 * Walks one geometry (type, count, body) at the cursor, recursively; parent
 * is the type of the collection it belongs to (0 at the top).  Returns
 * whether it is EMPTY: it holds no vertex.
 */
static bool
walk_geometry(GsCursor *c, GsWalk *walk, uint32 parent)
{
	uint32		type;
	uint32		count;
	uint32		i;
	uint32		nempty = 0;

	check_stack_depth();
	type = read_u32(c, "truncated geometry header");
	count = read_u32(c, "truncated geometry header");
	if (parent != 0 && !allows_subtype(parent, type))
		corrupt(psprintf("%s inside a %s", type_name(type), type_name(parent)), c->off - 8);

	switch (type)
	{
		case GS_POINT:
			if (count > 1)
				corrupt("point with more than one vertex", c->off);
			walk_vertices(c, count, walk);
			return count == 0;
		case GS_CIRCSTRING:
			walk->has_arcs = true;
			/* FALLTHROUGH */
		case GS_LINE:
		case GS_TRIANGLE:
			walk_vertices(c, count, walk);
			return count == 0;
		case GS_POLYGON:
			{
				size_t		counts_at = c->off;

				need(c, (size_t) count * sizeof(uint32), "truncated ring counts");
				c->off += (size_t) count * sizeof(uint32);
				if (count % 2)
				{
					need(c, sizeof(uint32), "missing ring count padding");
					c->off += sizeof(uint32);
				}
				for (i = 0; i < count; i++)
				{
					uint32		npoints;

					memcpy(&npoints, c->base + counts_at + (size_t) i * sizeof(uint32),
						   sizeof(uint32));
					walk_vertices(c, npoints, walk);
					if (npoints == 0)
						nempty++;
				}
				mixed_parts(walk, type, count, nempty);
				return nempty == count;
			}
		case GS_COMPOUND:
		case GS_CURVEPOLY:
		case GS_MULTICURVE:
		case GS_MULTISURFACE:
			walk->has_arcs = true;
			/* FALLTHROUGH */
		case GS_MULTIPOINT:
		case GS_MULTILINE:
		case GS_MULTIPOLYGON:
		case GS_COLLECTION:
		case GS_POLYHEDRAL:
		case GS_TIN:
			/* each sub-geometry takes at least 8 bytes: bound the loop */
			need(c, (size_t) count * 8, "collection runs past the end");
			for (i = 0; i < count; i++)
				if (walk_geometry(c, walk, type))
					nempty++;
			if (type == GS_COMPOUND || type == GS_CURVEPOLY)
				mixed_parts(walk, type, count, nempty);
			return nempty == count;
		default:
			corrupt(psprintf("unknown geometry type %u", type), c->off);
	}
}

/*
 * Decodes one non-NULL geometry (geodetic false) or geography (geodetic
 * true) datum (see gserialized_decode for fns).
 */
static void
decode(Datum geom, PostgisFns *fns, GeomInfo *out, bool geodetic)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(geom);
	struct varlena *v = PG_DETOAST_DATUM_PACKED(geom);
	GsCursor	c;
	uint8		gflags;
	uint32		srid;
	int			ndims;
	bool		have_box = false;
	float		fbox[4] = {0};

	c.base = (const uint8 *) VARDATA_ANY(v);
	c.len = VARSIZE_ANY_EXHDR(v);
	c.off = 0;

	/* srid[3] and gflags */
	need(&c, 4, "truncated header");
	srid = ((uint32) c.base[0] << 16) | ((uint32) c.base[1] << 8) | c.base[2];
	out->srid = ((int32) (srid << 11)) >> 11;
	gflags = c.base[3];
	c.off = 4;

	if (gflags & GS_FLAG_VERSION_X)
		corrupt("unknown serialization version", 3);
	if (!geodetic && (gflags & GS_FLAG_GEODETIC))
		corrupt("geodetic flag set on a geometry", 3);
	if (geodetic && !(gflags & GS_FLAG_GEODETIC))
		corrupt("geodetic flag not set on a geography", 3);
	ndims = 2 + ((gflags & GS_FLAG_Z) ? 1 : 0) + ((gflags & GS_FLAG_M) ? 1 : 0);

	if ((gflags & GS_FLAG_VERSION2) && (gflags & GS_FLAG_EXTENDED))
	{
		need(&c, 8, "truncated extended flags");
		c.off += 8;
	}
	if (gflags & GS_FLAG_BBOX)
	{
		/* a geodetic box is geocentric: x, y and z ranges */
		size_t		boxbytes = (geodetic ? 6 : 2 * (size_t) ndims) * sizeof(float);

		need(&c, boxbytes, "truncated bounding box");
		memcpy(fbox, c.base + c.off, sizeof(fbox));	/* xmin, xmax, ymin, ymax */
		c.off += boxbytes;
		have_box = true;
	}

	out->finite = true;
	out->malformed = NULL;
	{
		GsCursor	peek = c;
		uint32		type = read_u32(&peek, "truncated geometry header");
		uint32		count = read_u32(&peek, "truncated geometry header");

		if (type == GS_POINT)
		{
			/* the hot path: one point, read in place */
			if (count == 0)
				out->kind = GEOM_EMPTY;
			else if (count == 1)
			{
				need(&peek, (size_t) ndims * sizeof(double), "truncated point");
				memcpy(&out->x, peek.base + peek.off, sizeof(double));
				memcpy(&out->y, peek.base + peek.off + sizeof(double), sizeof(double));
				out->has_z = (gflags & GS_FLAG_Z) != 0;
				out->z = 0.0;
				if (out->has_z)
					memcpy(&out->z, peek.base + peek.off + 2 * sizeof(double), sizeof(double));
				out->kind = GEOM_POINT;
				out->finite = isfinite(out->x) && isfinite(out->y);
			}
			else
				corrupt("point with more than one vertex", peek.off);
		}
		else
		{
			GsWalk		walk;

			memset(&walk, 0, sizeof(walk));
			walk.ndims = ndims;
			walk.finite = true;
			walk_geometry(&c, &walk, 0);
			out->finite = walk.finite;
			out->malformed = walk.malformed;

			if (walk.nvertices == 0 && walk.finite)
				out->kind = GEOM_EMPTY;
			else
			{
				/*
				 * The box PostGIS itself works with (lwgeom_get_bbox): the
				 * serialized one when there is one, else the exact box,
				 * which for a curve only PostGIS can compute.
				 */
				out->kind = GEOM_OTHER;
				if (have_box && !geodetic)
				{
					out->xmin = fbox[0];
					out->xmax = fbox[1];
					out->ymin = fbox[2];
					out->ymax = fbox[3];
				}
				else if (!walk.has_arcs || fns == NULL || walk.malformed)
				{
					/* a malformed value never reaches PostGIS, not even box3d */
					out->xmin = walk.xmin;
					out->ymin = walk.ymin;
					out->xmax = walk.xmax;
					out->ymax = walk.ymax;
				}
				else if (!postgis_box2d(fns, geom, &out->xmin, &out->ymin,
										&out->xmax, &out->ymax))
					out->kind = GEOM_EMPTY;
			}
		}
	}

	if (v != raw)
		pfree(v);
}

/* Decodes one non-NULL geometry datum (see gserialized_points.h). */
void
gserialized_decode(Datum geom, PostgisFns *fns, GeomInfo *out)
{
	decode(geom, fns, out, false);
}

/* Decodes one non-NULL geography datum (see gserialized_points.h). */
void
gserialized_decode_geography(Datum geog, GeomInfo *out)
{
	decode(geog, NULL, out, true);
}

/* The Z and M flags of a detoasted value (see gserialized_points.h). */
int
gserialized_dims(Datum geom)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(geom);

	Assert(!VARATT_IS_EXTENDED(v) || VARATT_IS_SHORT(v));
	if (VARSIZE_ANY_EXHDR(v) < 4)
		corrupt("truncated header", 0);
	StaticAssertStmt(GSERIALIZED_Z == GS_FLAG_Z && GSERIALIZED_M == GS_FLAG_M,
					 "GSERIALIZED_Z and _M are the flag bits");
	return ((const uint8 *) VARDATA_ANY(v))[3] & (GS_FLAG_Z | GS_FLAG_M);
}

/* The name of a dims value (see gserialized_points.h). */
const char *
gserialized_dims_name(int dims)
{
	static const char *const names[] = {"2D", "Z", "M", "ZM"};

	return names[dims & 3];
}

/* Writes a serialized 2D point into buf (see gserialized_points.h). */
void
gserialized_write_point(void *buf, double x, double y, int32 srid, bool geodetic)
{
	uint8	   *p = (uint8 *) buf + VARHDRSZ;
	uint32		s = (uint32) srid & 0x1FFFFF;	/* 21 bits, two's complement */
	uint32		type = GS_POINT;
	uint32		count = 1;

	StaticAssertStmt(GSERIALIZED_POINT_SIZE ==
					 VARHDRSZ + 4 + 2 * sizeof(uint32) + 2 * sizeof(double),
					 "GSERIALIZED_POINT_SIZE is the size of a 2D point");
	SET_VARSIZE(buf, GSERIALIZED_POINT_SIZE);
	p[0] = (uint8) (s >> 16);
	p[1] = (uint8) (s >> 8);
	p[2] = (uint8) s;
	p[3] = GS_FLAG_VERSION2 | (geodetic ? GS_FLAG_GEODETIC : 0);
	memcpy(p + 4, &type, sizeof(type));
	memcpy(p + 8, &count, sizeof(count));
	memcpy(p + 12, &x, sizeof(double));
	memcpy(p + 20, &y, sizeof(double));
}

/* Serializes a 2D point (see gserialized_points.h). */
Datum
gserialized_make_point(double x, double y, int32 srid)
{
	void	   *buf = palloc(GSERIALIZED_POINT_SIZE);

	gserialized_write_point(buf, x, y, srid, false);
	return PointerGetDatum(buf);
}
