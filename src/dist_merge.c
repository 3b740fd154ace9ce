/*
 * dist_merge.c — the merge of gpu_dbscan_distributed: local clusters
 * (tile, local id), each with the first row it owns, joined by the edges
 * that ghost copies give (a ghost that is core in a tile is in the same
 * cluster there as in its owner tile); the joined clusters numbered 0..k-1
 * by their first rows, as the single node numbers them.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

typedef struct KeyRow
{
	int64		key;
	int64		first;
} KeyRow;

static int
cmp_keyrow(const void *a, const void *b)
{
	int64		u = ((const KeyRow *) a)->key,
				v = ((const KeyRow *) b)->key;

	return u < v ? -1 : u > v;
}

static int
cmp_int64(const void *a, const void *b)
{
	int64		u = *(const int64 *) a,
				v = *(const int64 *) b;

	return u < v ? -1 : u > v;
}

static int64
find_root(int64 *parent, int64 x)
{
	while (parent[x] != x)
	{
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* The index of key in rows[0..n) (sorted, unique keys); -1 when absent. */
static int64
key_index(const KeyRow *rows, int64 n, int64 key)
{
	int64		l = 0,
				h = n;

	while (l < h)
	{
		int64		m = l + (h - l) / 2;

		if (rows[m].key < key)
			l = m + 1;
		else
			h = m;
	}
	return l < n && rows[l].key == key ? l : -1;
}

static int64 *
int8_elems(ArrayType *a, int64 *n, const char *what)
{
	if (ARR_NDIM(a) > 1 || ARR_HASNULL(a) || ARR_ELEMTYPE(a) != INT8OID)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("gpu_dbscan_merge: %s must be a one-dimensional bigint array without NULLs", what)));
	*n = ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
	return (int64 *) ARR_DATA_PTR(a);
}

PG_FUNCTION_INFO_V1(gpu_dbscan_merge);

/*
 * gpu_dbscan_merge(nodes bigint[], first_rows bigint[], edge_a bigint[],
 * edge_b bigint[]) -> SETOF (node bigint, cluster_id int): see the file
 * comment.  An edge may name a node that owns no row (a cluster of ghosts
 * only): it joins, and gets no id of its own.
 */
Datum
gpu_dbscan_merge(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int64		nnodes,
				nfirst,
				nea,
				neb,
				n,
				total;
	int64	   *nodes,
			   *first,
			   *ea,
			   *eb,
			   *parent,
			   *comp_first,
			   *order;
	int32	   *comp_id;
	KeyRow	   *rows;
	int64		ncomp = 0;

	for (int k = 0; k < 4; k++)
		if (PG_ARGISNULL(k))
			ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							errmsg("gpu_dbscan_merge: argument %d must not be NULL", k + 1)));
	nodes = int8_elems(PG_GETARG_ARRAYTYPE_P(0), &nnodes, "nodes");
	first = int8_elems(PG_GETARG_ARRAYTYPE_P(1), &nfirst, "first_rows");
	ea = int8_elems(PG_GETARG_ARRAYTYPE_P(2), &nea, "edge_a");
	eb = int8_elems(PG_GETARG_ARRAYTYPE_P(3), &neb, "edge_b");
	if (nfirst != nnodes || nea != neb)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("gpu_dbscan_merge: nodes and first_rows, edge_a and edge_b must have the same lengths")));

	InitMaterializedSRF(fcinfo, 0);

	/* Every node, those of the edges too, once, sorted by key. */
	total = nnodes + 2 * nea;
	rows = MemoryContextAllocHuge(CurrentMemoryContext, Max(total, 1) * sizeof(KeyRow));
	for (int64 k = 0; k < nnodes; k++)
	{
		rows[k].key = nodes[k];
		rows[k].first = first[k];
	}
	for (int64 k = 0; k < nea; k++)
	{
		rows[nnodes + 2 * k].key = ea[k];
		rows[nnodes + 2 * k + 1].key = eb[k];
		rows[nnodes + 2 * k].first = rows[nnodes + 2 * k + 1].first = PG_INT64_MAX;
	}
	qsort(rows, total, sizeof(KeyRow), cmp_keyrow);
	n = 0;
	for (int64 k = 0; k < total; k++)
	{
		if (n > 0 && rows[n - 1].key == rows[k].key)
			rows[n - 1].first = Min(rows[n - 1].first, rows[k].first);
		else
			rows[n++] = rows[k];
	}

	parent = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(int64));
	for (int64 k = 0; k < n; k++)
		parent[k] = k;
	for (int64 k = 0; k < nea; k++)
	{
		int64		a = find_root(parent, key_index(rows, n, ea[k]));
		int64		b = find_root(parent, key_index(rows, n, eb[k]));

		if (a != b)
			parent[Max(a, b)] = Min(a, b);
		if ((k & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}

	/* Each component's first row, then ids by first row. */
	comp_first = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(int64));
	for (int64 k = 0; k < n; k++)
		comp_first[k] = PG_INT64_MAX;
	for (int64 k = 0; k < n; k++)
	{
		int64		r = find_root(parent, k);

		comp_first[r] = Min(comp_first[r], rows[k].first);
	}
	order = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(int64));
	for (int64 k = 0; k < n; k++)
		if (parent[k] == k && comp_first[k] != PG_INT64_MAX)
			order[ncomp++] = comp_first[k];
	qsort(order, ncomp, sizeof(int64), cmp_int64);
	for (int64 k = 1; k < ncomp; k++)
		if (order[k] == order[k - 1])
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("gpu_dbscan_merge: row %lld is the first row of two clusters",
								   (long long) order[k]),
							errhint("The id column must be unique.")));
	if (ncomp > PG_INT32_MAX)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("gpu_dbscan_merge: more clusters than int ids can number")));
	comp_id = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(int32));
	for (int64 k = 0; k < n; k++)
	{
		int64	   *at;

		comp_id[k] = -1;
		if (parent[k] != k || comp_first[k] == PG_INT64_MAX)
			continue;
		at = bsearch(&comp_first[k], order, ncomp, sizeof(int64), cmp_int64);
		comp_id[k] = (int32) (at - order);
	}

	for (int64 k = 0; k < nnodes; k++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};
		int64		r = find_root(parent, key_index(rows, n, nodes[k]));

		values[0] = Int64GetDatum(nodes[k]);
		values[1] = Int32GetDatum(comp_id[r]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
