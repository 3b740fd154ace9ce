/*
 * postgis_fn.c — calls into PostGIS through fmgr (see postgis_fn.h).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "postgis_fn.h"

/* Schema of a type: where PostGIS's functions for it live. */
static Oid
type_namespace(Oid typid)
{
	HeapTuple	tup;
	Oid			nsp;

	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for type %u", typid);
	nsp = ((Form_pg_type) GETSTRUCT(tup))->typnamespace;
	ReleaseSysCache(tup);
	return nsp;
}

/* The OID of type 'name' in the geometry type's schema, or an error. */
static Oid
lookup_type(Oid geometry_type, const char *name)
{
	Oid			nsp = type_namespace(geometry_type);
	Oid			typid;

	typid = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
							CStringGetDatum(name), ObjectIdGetDatum(nsp));
	if (!OidIsValid(typid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("type %s.%s does not exist", get_namespace_name(nsp), name),
				 errhint("gpu_dbscan needs PostGIS's types in the schema of type %s.",
						 format_type_be(geometry_type))));
	return typid;
}

/* Looks up function nsp.name(argtypes) and fills *finfo for calls from cxt. */
static void
lookup_function(Oid geometry_type, const char *name, int nargs, const Oid *argtypes,
				FmgrInfo *finfo, MemoryContext cxt)
{
	Oid			nsp = type_namespace(geometry_type);
	char	   *nspname = get_namespace_name(nsp);
	List	   *qname;
	Oid			fn;

	qname = list_make2(makeString(nspname), makeString(pstrdup(name)));
	fn = LookupFuncName(qname, nargs, argtypes, true);
	if (!OidIsValid(fn))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("function %s.%s does not exist", nspname, name),
				 errhint("gpu_dbscan needs PostGIS's %s in the schema of type %s.",
						 name, format_type_be(geometry_type))));
	fmgr_info_cxt(fn, finfo, cxt);
}

/* Looks up a PostGIS function (see postgis_fn.h). */
void
postgis_lookup_function(Oid anchor_type, const char *name, int nargs, const Oid *argtypes,
						FmgrInfo *finfo, MemoryContext cxt)
{
	lookup_function(anchor_type, name, nargs, argtypes, finfo, cxt);
}

/* Prepares *fns; nothing is looked up until it is needed. */
void
postgis_fns_init(PostgisFns *fns, Oid geometry_type, MemoryContext cxt)
{
	memset(fns, 0, sizeof(*fns));
	fns->geometry_type = geometry_type;
	fns->cxt = cxt;
}

/* Looks up box3d(geometry) and st_xmin/st_ymin/st_xmax/st_ymax(box3d). */
static void
prepare_box(PostgisFns *fns)
{
	Oid			box3d_type = lookup_type(fns->geometry_type, "box3d");

	lookup_function(fns->geometry_type, "box3d", 1, &fns->geometry_type, &fns->box3d, fns->cxt);
	lookup_function(fns->geometry_type, "st_xmin", 1, &box3d_type, &fns->xmin, fns->cxt);
	lookup_function(fns->geometry_type, "st_ymin", 1, &box3d_type, &fns->ymin, fns->cxt);
	lookup_function(fns->geometry_type, "st_xmax", 1, &box3d_type, &fns->xmax, fns->cxt);
	lookup_function(fns->geometry_type, "st_ymax", 1, &box3d_type, &fns->ymax, fns->cxt);
	fns->box_ready = true;
}

/*
 * The 2D bounding box PostGIS computes for geom (exact, from the geometry's
 * doubles, arcs included); false when PostGIS has none (an empty geometry).
 */
bool
postgis_box2d(PostgisFns *fns, Datum geom, double *xmin, double *ymin,
			  double *xmax, double *ymax)
{
	LOCAL_FCINFO(fcinfo, 1);
	Datum		box;

	if (!fns->box_ready)
		prepare_box(fns);

	/* box3d() returns NULL for an empty geometry: call it by hand */
	InitFunctionCallInfoData(*fcinfo, &fns->box3d, 1, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = geom;
	fcinfo->args[0].isnull = false;
	box = FunctionCallInvoke(fcinfo);
	if (fcinfo->isnull)
		return false;

	*xmin = DatumGetFloat8(FunctionCall1(&fns->xmin, box));
	*ymin = DatumGetFloat8(FunctionCall1(&fns->ymin, box));
	*xmax = DatumGetFloat8(FunctionCall1(&fns->xmax, box));
	*ymax = DatumGetFloat8(FunctionCall1(&fns->ymax, box));
	return true;
}

/* st_dwithin(geometry, geometry, float8), looked up (see postgis_fn.h). */
Oid
postgis_dwithin_oid(PostgisFns *fns)
{
	if (!fns->dwithin_ready)
	{
		Oid			argtypes[3];

		argtypes[0] = fns->geometry_type;
		argtypes[1] = fns->geometry_type;
		argtypes[2] = FLOAT8OID;
		lookup_function(fns->geometry_type, "st_dwithin", 3, argtypes, &fns->dwithin, fns->cxt);
		fns->dwithin_ready = true;
	}
	return fns->dwithin.fn_oid;
}

/* PostGIS's st_dwithin(a, b, eps): the exact neighbour test of ST_ClusterDBSCAN. */
bool
postgis_dwithin(PostgisFns *fns, Datum a, Datum b, double eps)
{
	(void) postgis_dwithin_oid(fns);
	return DatumGetBool(FunctionCall3(&fns->dwithin, a, b, Float8GetDatum(eps)));
}
