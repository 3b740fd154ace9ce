/*
 * geography.h — what clustering geography points needs of PostGIS: its
 * st_dwithin and st_distance for geography, looked up when first needed.
 */
#ifndef GPU_DBSCAN_GEOGRAPHY_H
#define GPU_DBSCAN_GEOGRAPHY_H

#include "postgres.h"

#include "fmgr.h"

typedef struct GeogFns
{
	Oid			geography_type;
	MemoryContext cxt;			/* where the FmgrInfos live */
	bool		ready;
	FmgrInfo	dwithin;		/* st_dwithin(geography, geography, float8, boolean) */
	FmgrInfo	distance;		/* st_distance(geography, geography, boolean) */
	int32		radius_srid;
	double		radius;			/* metres; 0 until known for radius_srid */
} GeogFns;

/* Fills fns for geography type geography_type; lookups wait until needed. */
extern void geography_fns_init(GeogFns *fns, Oid geography_type, MemoryContext cxt);

#endif							/* GPU_DBSCAN_GEOGRAPHY_H */
