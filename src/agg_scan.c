/*
 * agg_scan.c — the fast path of SELECT gpu_dbscan_agg(geom, eps, minpoints)
 * (and gpu_dbscan_params, gpu_dbscan_collect) FROM t [WHERE ...]
 * [GROUP BY k, ...] [HAVING ...] (issue 9): a planner hook that offers,
 * beside the Agg over a scan, a custom scan node "GpuDbscanAgg" that reads
 * the table in parallel (parallel_read.c) with the group columns, groups the
 * rows by a stable sort on them (sort_keys.c), clusters each group through
 * the core and returns one row per group: each aggregate's final function's
 * result (gpu_dbscan_agg's int[] of ids, gpu_dbscan_params's summaries
 * through params_summary, gpu_dbscan_collect's collections through
 * collect_clusters, aggregates.c, each member fetched again by TID).
 *
 * It is offered only when it gives the aggregates' answers: one base table
 * (no join, inheritance or sample), every aggregate of the query
 * gpu_dbscan_agg, gpu_dbscan_params or gpu_dbscan_collect over geometry, or
 * every one gpu_dbscan_agg_3d or gpu_dbscan_params_3d over POINT Z (the read
 * keeps each point's Z), or every one gpu_dbscan_agg or gpu_dbscan_params
 * over float8[] or over geography, over one plain column with
 * constant eps and minpoints and one ORDER BY of plain columns (or none), no
 * DISTINCT or FILTER inside them, no grouping sets, window or
 * set-returning function, GROUP BY on plain columns of the types
 * sort_keys.c orders, every other column of the target and of HAVING (which
 * the node evaluates on its rows) a group column, and quals without
 * parameters, sub-plans or row security.  Anything else plans
 * as before.  gpu_dbscan.fast_path turns it off.
 *
 * What it returns, in the order the aggregate's checks come:
 *   the rows of a group in heap order (block, line pointer), what a serial
 *   sequential scan from block 0 feeds the Agg (the aggregate's input order
 *   where the query gives none), so the ids are the serial Agg's;
 *   the groups in GROUP BY order (the path's pathkeys), where a HashAgg has
 *   an order of its own; a group's values are its first row's;
 *   the row errors (malformed, NaN, second SRID, a float8[] count other
 *   than the group's first, a geography that is no point; the row number
 *   within its group) in heap order, before any parameter error, as the transition
 *   function raises them before the final function runs; then, group by
 *   group and aggregate by aggregate, the final function's checks and
 *   clustering.
 *   No row at all gives one NULL row without GROUP BY, none with it.
 * The read evaluates the WHERE quals on every row before any row check: a
 * query with both a row that fails a check and a row that fails in the
 * quals raises the quals' error here, where the Agg raises whichever error
 * its scan meets first.
 *
 * The hook is chained after window_scan.c's (both from _PG_init); the module
 * must be loaded when the query is planned: gpu_dbscan_support is the
 * planner support function of the five transition functions (over
 * geometry), which the planner calls as it costs the aggregates.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "optimizer/tlist.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "agg_scan.h"
#include "aggregates.h"
#include "cluster.h"
#include "core_call.h"
#include "guc.h"
#include "parallel_read.h"
#include "params.h"
#include "progress.h"
#include "rows.h"
#include "scan_plan.h"
#include "scan_rows.h"
#include "sort_keys.h"

#define NODE_NAME "GpuDbscanAgg"
/* The aggregates it serves (over geometry): their final functions' results. */
typedef enum AggKind
{
	AGG_IDS,					/* gpu_dbscan_agg: int[] of ids */
	AGG_PARAMS,					/* gpu_dbscan_params: gpu_dbscan_params_row[] */
	AGG_COLLECT					/* gpu_dbscan_collect: geometry[], a collection per cluster */
} AggKind;

static create_upper_paths_hook_type prev_create_upper_paths_hook = NULL;

/*
 * What the plan carries after the common fields (scan_plan.h), in this
 * order; its keys are GROUP BY's, then the aggregates' ORDER BY.
 */
typedef enum PlanField
{
	PF_NGROUPKEYS = SP_NCOMMON,	/* how many of the keys are GROUP BY's */
	PF_SCANRELID,				/* the relation's range table index (path only) */
	PF_NFIELDS					/* the path's: then the aggregates (for the scan tuple), HAVING */
} PlanField;

/* ---- recognising the query ------------------------------------------------ */

/*
 * The aggregates the node serves, by their transition and final functions
 * (C, this module): each one's SQL name (for its errors), kind, and whether
 * it clusters POINT Z in 3D (the _3d ones; then every aggregate of the node).
 */
static const struct
{
	const char *transfn;
	const char *finalfn;
	const char *name;
	AggKind		kind;
	bool		point_z;
}			aggregates[] = {
	{"gpu_dbscan_agg_transfn", "gpu_dbscan_agg_finalfn", "gpu_dbscan_agg", AGG_IDS, false},
	{"gpu_dbscan_params_transfn", "gpu_dbscan_params_finalfn", "gpu_dbscan_params", AGG_PARAMS, false},
	{"gpu_dbscan_collect_transfn", "gpu_dbscan_collect_finalfn", "gpu_dbscan_collect", AGG_COLLECT, false},
	{"gpu_dbscan_agg_3d_transfn", "gpu_dbscan_agg_finalfn", "gpu_dbscan_agg_3d", AGG_IDS, true},
	{"gpu_dbscan_params_3d_transfn", "gpu_dbscan_params_finalfn", "gpu_dbscan_params_3d", AGG_PARAMS, true},
};

/*
 * Which of ours aggfnoid is, its entry of aggregates[] (any input type: the
 * caller checks the geometry); -1 for anything else.
 */
static int
our_aggregate(Oid aggfnoid)
{
	static Oid	cached[lengthof(aggregates)];
	HeapTuple	tup;
	int			found = -1;
	int			k;

	for (k = 0; k < lengthof(aggregates); k++)
		if (aggfnoid == cached[k])
			return k;
	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	if (!HeapTupleIsValid(tup))
		return -1;
	{
		Form_pg_aggregate agg = (Form_pg_aggregate) GETSTRUCT(tup);

		for (k = 0; k < lengthof(aggregates) && found < 0 && agg->aggkind == AGGKIND_NORMAL; k++)
			if (is_module_function(agg->aggtransfn, aggregates[k].transfn) &&
				is_module_function(agg->aggfinalfn, aggregates[k].finalfn))
				found = k;
	}
	ReleaseSysCache(tup);
	if (found >= 0)
		cached[found] = aggfnoid;
	return found;
}

/* What the walk over the grouping target collects. */
typedef struct AggTarget
{
	Index		relid;
	bool		ok;
	List	   *aggrefs;		/* distinct Aggrefs */
	AttrNumber	geom_attno;
	Oid			geom_type;
	int			input;			/* -1: no aggregate yet; else their RowsInput (one read) */
	Aggref	   *ordered;		/* the first aggregate (with its ORDER BY, if any) */
	List	   *order;			/* its ORDER BY: (attno, sort operator, nulls first) per key */
	List	   *vars;			/* attnos of the Vars outside aggregates */
} AggTarget;

/*
 * An aggregate's ORDER BY as a list of (attno, sort operator, nulls first)
 * per key, for comparing aggregates; *ok false when a key is no plain
 * column of relid.
 */
static List *
aggregate_order(Aggref *ag, Index relid, bool *ok)
{
	List	   *order = NIL;
	ListCell   *lc;

	foreach(lc, ag->aggorder)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		Node	   *expr = get_sortgroupclause_expr(sgc, ag->args);

		if (!is_plain_column(expr, relid))
		{
			*ok = false;
			return NIL;
		}
		order = lappend(order, list_make3(makeInteger(((Var *) expr)->varattno),
										  makeInteger((int) sgc->sortop),
										  makeInteger(sgc->nulls_first)));
	}
	return order;
}

static bool
agg_target_walker(Node *node, AggTarget *at)
{
	if (node == NULL || !at->ok)
		return false;
	if (IsA(node, Aggref))
	{
		Aggref	   *ag = (Aggref *) node;
		Node	   *geom;
		Node	   *eps;
		Node	   *minpoints;

		List	   *order;
		bool		order_ok = true;
		int			which = our_aggregate(ag->aggfnoid);
		bool		arrays = which >= 0 && aggregates[which].kind == AGG_PARAMS;
		RowsInput	input;

		/* three arguments, then the ORDER BY's keys (resjunk) */
		if (which < 0 || list_length(ag->args) < 3 ||
			list_length(ag->args) != 3 + list_length(ag->aggorder) ||
			ag->aggdistinct != NIL || ag->aggfilter != NULL ||
			ag->aggstar || ag->aggvariadic || ag->agglevelsup != 0 ||
			ag->aggsplit != AGGSPLIT_SIMPLE || ag->aggkind != AGGKIND_NORMAL)
		{
			at->ok = false;
			return false;
		}
		geom = (Node *) linitial_node(TargetEntry, ag->args)->expr;
		eps = (Node *) lsecond_node(TargetEntry, ag->args)->expr;
		minpoints = (Node *) lthird_node(TargetEntry, ag->args)->expr;
		/* geometry (2D or POINT Z), geography or float8[], the same input for every aggregate */
		input = rows_input_of_type(exprType(geom), aggregates[which].point_z);
		if (!is_plain_column(geom, at->relid) || !IsA(eps, Const) || !IsA(minpoints, Const) ||
			exprType(eps) != (arrays ? FLOAT8ARRAYOID : FLOAT8OID) ||
			exprType(minpoints) != (arrays ? INT4ARRAYOID : INT4OID) ||
			(at->input >= 0 && at->input != (int) input) ||
			(at->geom_attno != 0 && ((Var *) geom)->varattno != at->geom_attno))
		{
			at->ok = false;		/* one geometry column for every aggregate */
			return false;
		}
		/* one order of the rows for every aggregate */
		order = aggregate_order(ag, at->relid, &order_ok);
		if (!order_ok || (at->ordered != NULL && !equal(order, at->order)))
		{
			at->ok = false;
			return false;
		}
		if (at->ordered == NULL)
		{
			at->ordered = ag;
			at->order = order;
		}
		at->geom_attno = ((Var *) geom)->varattno;
		at->geom_type = exprType(geom);
		at->input = input;
		if (!list_member(at->aggrefs, ag))
			at->aggrefs = lappend(at->aggrefs, ag);
		return false;			/* its arguments are read by the scan */
	}
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (!is_plain_column(node, at->relid) || !carried_type(v->vartype))
		{
			at->ok = false;
			return false;
		}
		at->vars = list_append_unique_int(at->vars, v->varattno);
		return false;
	}
	if (IsA(node, Param) || IsA(node, SubPlan) || IsA(node, SubLink) ||
		IsA(node, PlaceHolderVar) || IsA(node, GroupingFunc) || IsA(node, WindowFunc))
	{
		at->ok = false;
		return false;
	}
	return expression_tree_walker(node, agg_target_walker, (void *) at);
}

static CustomPathMethods path_methods;
static CustomScanMethods plan_methods;
static CustomExecMethods exec_methods;

/* Adds the custom path to the grouping's rel when the query is one it serves. */
static void
consider_agg_scan(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *grouped_rel,
				  GroupPathExtraData *extra)
{
	Query	   *parse = root->parse;
	PathTarget *target = grouped_rel->reltarget;
	RangeTblEntry *rte;
	AggTarget	at;
	List	   *columns = NIL;
	List	   *group_columns;
	List	   *keys = NIL;
	List	   *quals = NIL;
	ListCell   *lc;
	CustomPath *cpath;
	List	   *having;
	int			ngroupkeys;
	int			nworkers;

	if (parse->commandType != CMD_SELECT || !parse->hasAggs || parse->groupingSets != NIL ||
		parse->hasTargetSRFs || parse->hasWindowFuncs ||
		parse->rowMarks != NIL || target == NULL ||
		(extra && extra->patype != PARTITIONWISE_AGGREGATE_NONE))
		return;
	if (IS_DUMMY_REL(input_rel) || (rte = scan_relation(root, input_rel)) == NULL)
		return;

	memset(&at, 0, sizeof(at));
	at.relid = input_rel->relid;
	at.ok = true;
	at.input = -1;
	foreach(lc, target->exprs)
		agg_target_walker((Node *) lfirst(lc), &at);
	/* HAVING: evaluated by the node over its groups' rows, as the Agg does */
	having = extra ? (List *) extra->havingQual : NIL;
	agg_target_walker((Node *) having, &at);
	if (!at.ok || at.aggrefs == NIL)
		return;

	/* the group columns, then the aggregates' ORDER BY columns; nothing else is carried */
	if (!add_keys(root, parse->groupClause, at.relid, &columns, &keys))
		return;
	ngroupkeys = list_length(keys);
	group_columns = list_copy(columns);
	if (!add_keys_of(at.ordered->args, at.ordered->aggorder, at.relid, &columns, &keys))
		return;
	foreach(lc, at.vars)
	{
		if (!list_member_int(group_columns, lfirst_int(lc)))
			return;				/* a column that is no group key (a key's dependant) */
	}
	if (list_length(columns) > SCAN_MAX_COLUMNS || list_length(keys) > SCAN_MAX_COLUMNS)
		return;

	if (!scan_quals(input_rel, &quals))
		return;

	nworkers = scan_workers(input_rel, rte, quals, root);
	cpath = makeNode(CustomPath);
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = grouped_rel;
	cpath->path.pathtarget = target;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = false;
	cpath->path.parallel_safe = false;
	cpath->path.parallel_workers = nworkers;
	/* one row without GROUP BY, the planner's estimate of the groups with it */
	cpath->path.rows = parse->groupClause == NIL ? 1 :
		estimate_num_groups(root, get_sortgrouplist_exprs(parse->groupClause,
														  root->processed_tlist),
							input_rel->rows, NULL, NULL);
	/* a read of the table, no per-row transition: well below every Agg path over it */
	cpath->path.startup_cost = 0;
	cpath->path.total_cost =
		input_rel->cheapest_total_path->total_cost / (2 * (nworkers + 1));
	/* the groups come out in GROUP BY order, the keys' directions and NULLS placement */
	cpath->path.pathkeys = parse->groupClause != NIL ? root->group_pathkeys : NIL;
	cpath->flags = 0;
	cpath->custom_private = scan_private(rte->relid, at.geom_attno, at.geom_type, nworkers,
										 columns, keys, quals, input_rel->rows);
	cpath->custom_private = lappend(cpath->custom_private, makeInteger(ngroupkeys));
	cpath->custom_private = lappend(cpath->custom_private, makeInteger((int) at.relid));
	cpath->custom_private = lappend(cpath->custom_private, at.aggrefs);
	cpath->custom_private = lappend(cpath->custom_private, having);
	cpath->methods = &path_methods;
	add_path(grouped_rel, (Path *) cpath);
}

/* create_upper_paths_hook: the custom path at the grouping stage. */
static void
agg_scan_upper_paths(PlannerInfo *root, UpperRelationKind stage, RelOptInfo *input_rel,
					 RelOptInfo *output_rel, void *extra)
{
	if (prev_create_upper_paths_hook)
		prev_create_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (stage == UPPERREL_GROUP_AGG && gd_fast_path)
		consider_agg_scan(root, input_rel, output_rel, (GroupPathExtraData *) extra);
}

/* ---- the plan --------------------------------------------------------------- */

static Plan *
plan_agg_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist,
			  List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *priv = best_path->custom_private;
	Oid			relid = (Oid) intVal(list_nth(priv, SP_RELID));
	List	   *columns = (List *) list_nth(priv, SP_COLUMNS);
	List	   *quals = (List *) copyObject(list_nth(priv, SP_QUALS));
	Index		varno = (Index) intVal(list_nth(priv, PF_SCANRELID));
	List	   *aggrefs = (List *) list_nth(priv, PF_NFIELDS);

	/* the quals travel to the workers as text */
	scan_localize((Node *) quals, varno);

	cscan->scan.plan.targetlist = tlist;
	/* HAVING over the scan tuple: setrefs points its aggregates at the tuple's columns */
	cscan->scan.plan.qual = (List *) copyObject(list_nth(priv, PF_NFIELDS + 1));
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_scan_tlist = scan_tlist(relid, varno, columns, aggrefs);
	cscan->custom_private = list_truncate(list_copy(priv), PF_SCANRELID);
	list_nth_cell(cscan->custom_private, SP_QUALS)->ptr_value = quals;
	cscan->methods = &plan_methods;
	return &cscan->scan.plan;
}

/* ---- execution ---------------------------------------------------------------- */

/* One aggregate of the node: its parameters and results. */
typedef struct ScanAggregate
{
	AggKind		kind;
	const char *fn;				/* its name in errors */
	Const	   *eps;			/* the arguments */
	Const	   *minpoints;
	Params		params;			/* read from them as the transition function reads them */
	Oid			row_type;		/* AGG_PARAMS: the result's element type */
	int32	   *ids;			/* AGG_IDS: by output position */
	Datum	   *results;		/* AGG_PARAMS, AGG_COLLECT: by group */
} ScanAggregate;

/* collect_clusters's value_of: a row of the group, fetched again by TID. */
typedef struct GroupValues
{
	struct AggScanState *st;
	ScanFetch  *fetch;
	int64		b;				/* the group's first output position */
} GroupValues;

typedef struct AggScanState
{
	ScanNode	scan;			/* first: the read, the context, the times */
	CollectFns	collect;		/* AGG_COLLECT's PostGIS functions */
	Oid			geom_type;
	RowsFns		fns;
	int			ncolumns;		/* columns of the scan tuple before the aggregates */
	int			nkeys;			/* the group keys, then the aggregates' ORDER BY */
	int			ngroupkeys;
	int			key_column[SCAN_MAX_COLUMNS];
	SortKeyColumn keys[SCAN_MAX_COLUMNS];
	int			naggs;
	ScanAggregate *aggs;
	MemoryContext row_cxt;		/* the current output row's arrays */
	uint32	   *order;			/* output position -> slot; NULL: the identity */
	int64		ngroups;
	int64	   *group_start;	/* ngroups + 1 output positions */
	int64		next_group;
} AggScanState;

static void run_agg_scan(ScanNode *node);
static TupleTableSlot *next_agg_row(ScanState *ss);

static Node *
create_agg_scan_state(CustomScan *cscan)
{
	return scan_node_create(sizeof(AggScanState), &exec_methods, run_agg_scan, next_agg_row);
}

static void
begin_agg_scan(CustomScanState *node, EState *estate, int eflags)
{
	AggScanState *st = (AggScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *priv = cscan->custom_private;
	List	   *columns = (List *) list_nth(priv, SP_COLUMNS);
	List	   *keys = (List *) list_nth(priv, SP_KEYS);
	ListCell   *lc;
	int			i;

	st->geom_type = scan_request(&st->scan.req, priv, estate, eflags);
	st->ncolumns = 0;
	foreach(lc, columns)
		st->scan.req.columns[st->ncolumns++] = (AttrNumber) lfirst_int(lc);
	st->scan.req.ncolumns = st->ncolumns;
	st->ngroupkeys = intVal(list_nth(priv, PF_NGROUPKEYS));
	st->nkeys = 0;
	foreach(lc, keys)
	{
		st->key_column[st->nkeys] = scan_key(lfirst(lc), &st->keys[st->nkeys]);
		st->nkeys++;
	}

	/* the aggregates follow the columns in the scan tuple */
	st->naggs = list_length(cscan->custom_scan_tlist) - st->ncolumns;
	st->aggs = palloc0(Max(st->naggs, 1) * sizeof(ScanAggregate));
	for (i = 0; i < st->naggs; i++)
	{
		TargetEntry *te = list_nth_node(TargetEntry, cscan->custom_scan_tlist, st->ncolumns + i);
		Aggref	   *ag = castNode(Aggref, te->expr);
		ScanAggregate *a = &st->aggs[i];
		int			which = our_aggregate(ag->aggfnoid);

		if (which < 0)
			elog(ERROR, "gpu_dbscan: an aggregate the node does not serve");
		a->kind = aggregates[which].kind;
		a->fn = aggregates[which].name;
		/* the planner took the node's aggregates all of one input (2D, POINT Z, float8[], geography) */
		st->scan.req.read_z = aggregates[which].point_z;
		a->eps = castNode(Const, lsecond_node(TargetEntry, ag->args)->expr);
		a->minpoints = castNode(Const, lthird_node(TargetEntry, ag->args)->expr);
		a->row_type = a->kind == AGG_PARAMS ? get_element_type(ag->aggtype) : InvalidOid;
		/* gpu_dbscan_collect fetches every row's value again (group_value) */
		if (a->kind == AGG_COLLECT)
			st->scan.req.need_tids = true;
	}
	st->scan.cxt = AllocSetContextCreate(estate->es_query_cxt, "gpu_dbscan aggregate scan",
									ALLOCSET_DEFAULT_SIZES);
	st->row_cxt = AllocSetContextCreate(st->scan.cxt, "gpu_dbscan aggregate scan row",
										ALLOCSET_DEFAULT_SIZES);
	st->scan.done = false;
	st->next_group = 0;
}

/* Output position p's slot. */
static inline int64
slot_at(const AggScanState *st, int64 p)
{
	return st->order ? (int64) st->order[p] : p;
}

/*
 * The groups: the rows sorted stably by the group keys, then the
 * aggregates' ORDER BY (heap order among ties), group_start at each change
 * of group key; one group (empty or not) without GROUP BY.
 */
static void
find_groups(AggScanState *st)
{
	int64		n = st->scan.res.nrows;
	int64		p;
	int64		g = 0;
	int			k;

	st->order = st->scan.res.order;
	for (k = 0; k < st->nkeys; k++)
	{
		st->keys[k].values = st->scan.res.values[st->key_column[k]];
		st->keys[k].isnull = st->scan.res.isnull[st->key_column[k]];
	}
	if (n > 1)
	{
		if (st->order == NULL)
		{
			st->order = MemoryContextAllocHuge(st->scan.cxt, n * sizeof(uint32));
			for (p = 0; p < n; p++)
				st->order[p] = (uint32) p;
		}
		sort_slots(st->order, n, st->keys, st->nkeys);
	}
	if (st->ngroupkeys == 0)
	{
		st->ngroups = 1;
		st->group_start = MemoryContextAlloc(st->scan.cxt, 2 * sizeof(int64));
		st->group_start[0] = 0;
		st->group_start[1] = n;
		return;
	}
	st->group_start = MemoryContextAllocHuge(st->scan.cxt, (n + 1) * sizeof(int64));
	for (p = 0; p < n; p++)
	{
		if ((p & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (p == 0 || !sort_slots_equal(st->keys, st->ngroupkeys, (uint32) slot_at(st, p - 1),
										(uint32) slot_at(st, p)))
			st->group_start[g++] = p;
	}
	st->group_start[g] = n;
	st->ngroups = g;
}

/* Whether the aggregates have an ORDER BY (keys beyond GROUP BY's). */
static inline bool
ordered(const AggScanState *st)
{
	return st->nkeys > st->ngroupkeys;
}

/*
 * The transition function's row checks, in heap order (the order a serial
 * scan feeds the Agg), each row numbered within its group.  (With an ORDER
 * BY, the Agg runs them group by group in that order: check_group_rows.)
 */
static void
check_rows(AggScanState *st, ScanFetch *fetch)
{
	int64		n = st->scan.res.nrows;
	uint32	   *group_of = NULL;
	int64	   *count;
	SridCheck  *srids;
	DimsCheck  *dims;
	int64		g;
	int64		r;

	if (st->ngroups > 1)
	{
		/* by slot: the read's slots may leave gaps, up to its arrays' capacity */
		int64		nslots = 0;

		for (r = 0; r < n; r++)
			nslots = Max(nslots, slot_at(st, r) + 1);
		group_of = MemoryContextAllocHuge(CurrentMemoryContext, nslots * sizeof(uint32));
		for (g = 0; g < st->ngroups; g++)
			for (r = st->group_start[g]; r < st->group_start[g + 1]; r++)
				group_of[slot_at(st, r)] = (uint32) g;
	}
	count = MemoryContextAllocHuge(CurrentMemoryContext, Max(st->ngroups, 1) * sizeof(int64));
	srids = MemoryContextAllocHuge(CurrentMemoryContext, Max(st->ngroups, 1) * sizeof(SridCheck));
	memset(count, 0, Max(st->ngroups, 1) * sizeof(int64));
	memset(srids, 0, Max(st->ngroups, 1) * sizeof(SridCheck));
	dims = MemoryContextAllocHuge(CurrentMemoryContext, Max(st->ngroups, 1) * sizeof(DimsCheck));
	memset(dims, 0, Max(st->ngroups, 1) * sizeof(DimsCheck));
	for (r = 0; r < n; r++)
	{
		int64		s = scan_slot(&st->scan.res, r);

		if ((r & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		g = group_of ? group_of[s] : 0;
		scan_check_row(fetch, &st->scan.res, &st->fns, &srids[g], &dims[g], s, count[g]++);
	}
}

/* The row checks of the group at output positions [b, e), in that order. */
static void
check_group_rows(AggScanState *st, ScanFetch *fetch, int64 b, int64 e)
{
	SridCheck	srids;
	DimsCheck	dims;
	int64		p;

	memset(&srids, 0, sizeof(srids));
	memset(&dims, 0, sizeof(dims));
	for (p = b; p < e; p++)
	{
		if (((p - b) & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		scan_check_row(fetch, &st->scan.res, &st->fns, &srids, &dims, slot_at(st, p), p - b);
	}
}

/* Row row of the group (collect_clusters's value_of), fetched again. */
static Datum
group_value(void *arg, int64 row)
{
	GroupValues *gv = (GroupValues *) arg;

	return scan_fetch_value(gv->fetch, &gv->st->scan.res.tid[slot_at(gv->st, gv->b + row)]);
}

/* A final function's result for group g, copied into the node's memory. */
static void
keep_result(AggScanState *st, ScanAggregate *a, int64 g, Datum result)
{
	MemoryContext old = MemoryContextSwitchTo(st->scan.cxt);

	a->results[g] = datumCopy(result, false, -1);
	MemoryContextSwitchTo(old);
}

/*
 * The final function for every aggregate of the group at output positions
 * [b, e): with an ORDER BY, the transitions' row checks (which the Agg
 * runs at the end of the group, in that order); the array size, the
 * parameters' checks, the clustering (the rows laid out once).  Runs in a
 * memory context the caller resets.
 */
static void
finish_group(AggScanState *st, ScanFetch *fetch, int64 g, int64 b, int64 e)
{
	Rows		rows;
	int			i;

	if (ordered(st))
		check_group_rows(st, fetch, b, e);
	scan_rows_build(&rows, &st->fns, &st->scan.res, st->order, b, e, fetch, false);

	for (i = 0; i < st->naggs; i++)
	{
		ScanAggregate *a = &st->aggs[i];
		ClusterJob	job;

		if (a->kind == AGG_PARAMS)
		{
			keep_result(st, a, g, params_summary(&rows, &a->params, a->fn, a->row_type));
			continue;
		}
		if (a->kind == AGG_COLLECT)
		{
			GroupValues gv = {st, fetch, b};

			memset(&job, 0, sizeof(job));
			job.minpoints = params_check(&a->params, a->fn);
			job.eps = a->params.eps[0];
			job.nminpoints = 1;
			job.ids = palloc_extended(Max(e - b, 1) * sizeof(int32), MCXT_ALLOC_HUGE);
			cluster_rows(&rows, &job);
			keep_result(st, a, g, collect_clusters(&st->collect, job.ids, e - b, group_value, &gv));
			continue;
		}
		if (e - b > MaxArraySize)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s: %lld rows do not fit in one array (at most %d)",
							a->fn, (long long) (e - b), (int) MaxArraySize)));
		memset(&job, 0, sizeof(job));
		job.minpoints = params_check(&a->params, a->fn);
		job.eps = a->params.eps[0];
		job.nminpoints = 1;
		job.ids = a->ids + b;
		cluster_rows(&rows, &job);
	}
}

/* Reads, groups, checks and clusters every row (the node's first call). */
static void
run_agg_scan(ScanNode *node)
{
	AggScanState *st = (AggScanState *) node;
	MemoryContext old = MemoryContextSwitchTo(st->scan.cxt);
	MemoryContext group_cxt;
	ScanFetch	fetch;
	instr_time	start;
	int64		n;
	int64		g;
	int			i;
	GpuHandoff	handoff;

	INSTR_TIME_SET_CURRENT(start);
	/* the GPU worker clusters the rows and writes the ids where they are */
	st->scan.req.share_with_gpu = core_gpu_worker_serves();
	parallel_read(&st->scan.req, &st->scan.res);
	n = st->scan.res.nrows;
	st->scan.times.read_ms = seconds_since(start) * 1000;

	INSTR_TIME_SET_CURRENT(start);
	find_groups(st);
	st->scan.times.order_ms = seconds_since(start) * 1000;
	INSTR_TIME_SET_CURRENT(start);
	gd_gpu_worker_handoff(&handoff);
	for (i = 0; i < st->naggs; i++)
	{
		ScanAggregate *a = &st->aggs[i];

		if (a->kind == AGG_IDS)
			a->ids = scan_ids_alloc(&st->scan, n, 1, NULL);
		else
			a->results = MemoryContextAllocZero(st->scan.cxt, Max(st->ngroups, 1) * sizeof(Datum));
		if (a->kind == AGG_COLLECT && n > 0 && st->collect.geometry_type == InvalidOid)
			collect_fns_init(&st->collect, st->geom_type, st->scan.cxt);
		/* what the first transition reads, before its row (an array's errors) */
		if (n > 0)
			params_read_values(a->eps->constvalue, a->eps->constisnull,
							   a->minpoints->constvalue, a->minpoints->constisnull,
							   a->kind == AGG_PARAMS, a->kind == AGG_PARAMS, a->fn, &a->params,
							   st->scan.cxt);
	}

	rows_fns_init(&st->fns, st->geom_type, st->scan.cxt);
	scan_fetch_open(&fetch, &st->scan.req, NULL, NULL);	/* plain columns only */
	group_cxt = AllocSetContextCreate(st->scan.cxt, "gpu_dbscan aggregate scan group",
									  ALLOCSET_DEFAULT_SIZES);

	MemoryContextSwitchTo(group_cxt);
	if (!ordered(st))
		check_rows(st, &fetch);
	MemoryContextReset(group_cxt);

	for (g = 0; g < st->ngroups && n > 0; g++)
	{
		int64		b = st->group_start[g];
		int64		e = st->group_start[g + 1];

		if (e - b > GD_PROGRESS_MIN_ROWS)
		{
			gd_progress_begin(st->aggs[0].fn, e - b);
			gd_progress_rows(e - b);	/* read in parallel before the first group */
		}
		finish_group(st, &fetch, g, b, e);
		if (e - b > GD_PROGRESS_MIN_ROWS)
			gd_progress_end();
		MemoryContextReset(group_cxt);
	}
	MemoryContextSwitchTo(st->scan.cxt);
	scan_fetch_close(&fetch);
	st->scan.times.cluster_ms = seconds_since(start) * 1000;
	scan_handoff_since(&handoff, &st->scan.times);
	MemoryContextSwitchTo(old);
	st->scan.done = true;
}

/* The ids of positions [b, e) as int[], NULL for noise and NULL rows. */
static Datum
ids_array(const int32 *ids, int64 b, int64 e)
{
	int64		n = e - b;
	Datum	   *elems = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(Datum));
	bool	   *nulls = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(bool));
	int			dims[1];
	int			lbs[1] = {1};
	int64		i;

	for (i = 0; i < n; i++)
	{
		elems[i] = Int32GetDatum(ids[b + i]);
		nulls[i] = ids[b + i] < 0;
	}
	dims[0] = (int) n;
	return PointerGetDatum(construct_md_array(elems, nulls, 1, dims, lbs, INT4OID,
											  sizeof(int32), true, TYPALIGN_INT));
}

/* The next group's row in the scan tuple: its key values, the aggregates' arrays. */
static TupleTableSlot *
next_agg_row(ScanState *ss)
{
	AggScanState *st = (AggScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	MemoryContext old;
	bool		empty;
	int64		g;
	int64		b;
	int64		e;
	int			c;

	ExecClearTuple(slot);
	if (st->next_group >= st->ngroups)
		return slot;
	g = st->next_group++;
	b = st->group_start[g];
	e = st->group_start[g + 1];
	empty = b == e;				/* no row without GROUP BY: the aggregate is NULL */
	MemoryContextReset(st->row_cxt);
	old = MemoryContextSwitchTo(st->row_cxt);
	for (c = 0; c < st->ncolumns; c++)
	{
		int64		s = empty ? 0 : slot_at(st, b);

		slot->tts_values[c] = empty ? (Datum) 0 : st->scan.res.values[c][s];
		slot->tts_isnull[c] = empty ? true : st->scan.res.isnull[c][s];
	}
	for (c = 0; c < st->naggs; c++)
	{
		ScanAggregate *a = &st->aggs[c];

		if (empty)
			slot->tts_values[st->ncolumns + c] = (Datum) 0;
		else if (a->kind != AGG_IDS)
			slot->tts_values[st->ncolumns + c] = a->results[g];
		else
			slot->tts_values[st->ncolumns + c] = ids_array(a->ids, b, e);
		slot->tts_isnull[st->ncolumns + c] = empty;
	}
	MemoryContextSwitchTo(old);
	return ExecStoreVirtualTuple(slot);
}

static void
rescan_agg_scan(CustomScanState *node)
{
	((AggScanState *) node)->next_group = 0;
}

/* The keys [from, to) as EXPLAIN shows sort keys: column [DESC] [NULLS FIRST|LAST]. */
static List *
key_names(AggScanState *st, int from, int to)
{
	List	   *names = NIL;
	int			k;

	for (k = from; k < to; k++)
	{
		const SortKeyColumn *col = &st->keys[k];
		char	   *name = get_attname(st->scan.req.relid, st->scan.req.columns[st->key_column[k]], false);

		names = lappend(names, psprintf("%s%s%s", name, col->descending ? " DESC" : "",
										col->nulls_first == col->descending ? "" :
										col->nulls_first ? " NULLS FIRST" : " NULLS LAST"));
	}
	return names;
}

static void
explain_agg_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	AggScanState *st = (AggScanState *) node;
	char	   *relname = get_rel_name(st->scan.req.relid);

	ExplainPropertyText("Relation", relname ? relname : "?", es);
	if (st->ngroupkeys > 0)
		ExplainPropertyList("Group Key", key_names(st, 0, st->ngroupkeys), es);
	if (ordered(st))
		ExplainPropertyList("Order Key", key_names(st, st->ngroupkeys, st->nkeys), es);
	scan_explain_read(&st->scan.req, &st->scan.res, st->scan.done, "Groups",
					  st->scan.res.nrows > 0 ? st->ngroups : 0, &st->scan.times, es);
}

/* Registers the node and chains the planner hook (see agg_scan.h). */
void
agg_scan_init(void)
{
	path_methods.CustomName = NODE_NAME;
	path_methods.PlanCustomPath = plan_agg_scan;

	plan_methods.CustomName = NODE_NAME;
	plan_methods.CreateCustomScanState = create_agg_scan_state;
	RegisterCustomScanMethods(&plan_methods);

	exec_methods.CustomName = NODE_NAME;
	exec_methods.BeginCustomScan = begin_agg_scan;
	exec_methods.ExecCustomScan = scan_node_exec;
	exec_methods.EndCustomScan = scan_node_end;
	exec_methods.ReScanCustomScan = rescan_agg_scan;
	exec_methods.ExplainCustomScan = explain_agg_scan;

	prev_create_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = agg_scan_upper_paths;
}
