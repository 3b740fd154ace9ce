/*
 * postgis_fn.h — calls into PostGIS through fmgr.
 *
 * The extension does not link against PostGIS.  The few PostGIS functions it
 * needs (st_dwithin for the exact neighbour test of non-point geometries,
 * box3d and st_xmin/... for the rare geometry whose bounding box is neither
 * serialized nor computable from its vertices) are looked up by name in the
 * schema of the geometry type the window function was called with, so that
 * neither search_path nor the schema PostGIS lives in matters.
 */
#ifndef GPU_DBSCAN_POSTGIS_FN_H
#define GPU_DBSCAN_POSTGIS_FN_H

#include "fmgr.h"

typedef struct PostgisFns
{
	Oid			geometry_type;	/* type of the window function's first argument */
	MemoryContext cxt;			/* where the FmgrInfos live */
	bool		box_ready;
	FmgrInfo	box3d;			/* box3d(geometry) */
	FmgrInfo	xmin,			/* st_xmin(box3d) ... */
				ymin,
				xmax,
				ymax;
	bool		dwithin_ready;
	FmgrInfo	dwithin;		/* st_dwithin(geometry, geometry, float8) */
} PostgisFns;

extern void postgis_fns_init(PostgisFns *fns, Oid geometry_type, MemoryContext cxt);

/*
 * Looks up PostGIS function name(argtypes) in the schema of type anchor_type
 * (geometry or geography) and fills *finfo for calls from cxt; an error when
 * there is none.
 */
extern void postgis_lookup_function(Oid anchor_type, const char *name, int nargs,
									const Oid *argtypes, FmgrInfo *finfo, MemoryContext cxt);
extern bool postgis_box2d(PostgisFns *fns, Datum geom, double *xmin, double *ymin,
						  double *xmax, double *ymax);
extern bool postgis_dwithin(PostgisFns *fns, Datum a, Datum b, double eps);

/* The OID of st_dwithin(geometry, geometry, float8), looked up when first asked. */
extern Oid	postgis_dwithin_oid(PostgisFns *fns);

#endif							/* GPU_DBSCAN_POSTGIS_FN_H */
