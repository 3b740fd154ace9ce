/*
 * window_scan.c — the fast path of gpu_dbscan(geom, eps, minpoints) OVER
 * ([PARTITION BY p] [ORDER BY k]) FROM t [WHERE ...] (issue 9): a planner
 * hook that offers, beside the WindowAgg over a scan, a custom scan node
 * "GpuDbscanWindow" that reads the table in parallel (parallel_read.c),
 * orders the rows as the window does (sort_keys.c), clusters each partition
 * through the core and emits the rows in the window's order with their ids.
 *
 * It is offered only when it gives the window function's answers: one base
 * table (no join, inheritance or sample), no aggregate, grouping or
 * set-returning function, every window function gpu_dbscan(geometry, ...),
 * gpu_dbscan_sweep(geometry, ...) or gpu_dbscan_point_type(geometry, ...) of
 * one window (or every one their _3d form over POINT Z: the read keeps each
 * point's Z; or every one over geography; or every one over one float8[]
 * column), with the geometry a
 * plain column or an expression over the table and eps and minpoints constants, PARTITION BY / ORDER BY on plain
 * columns of the types sort_keys.c orders, every other column the query
 * needs of a by-value type, and quals without parameters, sub-plans or row
 * security.  Anything else plans as before.
 * gpu_dbscan.fast_path turns it off.  Beside it, the same node as a partial
 * path for an outer query level (window_partial.c).
 *
 * What the ids depend on where the window gives no order (no ORDER BY, or
 * ties in it): the fast path takes the rows in heap order (block, line
 * pointer) and keeps it among ties, which is what the WindowAgg over a
 * serial sequential scan gets for OVER () when the scan starts at block 0
 * (synchronized scans start elsewhere on tables larger than a quarter of
 * shared_buffers); the executor's sort leaves ties in an order of its own.
 *
 * The hook is installed by _PG_init, so the module must be loaded when the
 * query is planned: gpu_dbscan's support function (gpu_dbscan_support) loads
 * it as the planner costs the window, and shared_preload_libraries or
 * session_preload_libraries load it before that.
 */
#include "postgres.h"

#include "gd_core.h"

#include "access/htup_details.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_class.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "optimizer/tlist.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"

#include "cluster.h"
#include "core_call.h"
#include "guc.h"
#include "memory_budget.h"
#include "parallel_read.h"
#include "params.h"
#include "prefault.h"
#include "progress.h"
#include "rows.h"
#include "scan_plan.h"
#include "scan_rows.h"
#include "sort_keys.h"
#include "window.h"
#include "window_scan.h"
#include "window_scan_state.h"

#define NODE_NAME "GpuDbscanWindow"

static create_upper_paths_hook_type prev_create_upper_paths_hook = NULL;

/*
 * What the path and the plan carry after the common fields (scan_plan.h),
 * in this order; at PF_NFIELDS the path has its window functions, the plan
 * the scan tuple's order (scan_tuple_order).
 */
typedef enum PlanField
{
	PF_NPARTKEYS = SP_NCOMMON,	/* the first keys are PARTITION BY's, the rest ORDER BY's */
	PF_GEOM_EXPR,				/* the geometry expression (varno 1), or NULL for a column */
	PF_NFIELDS
} PlanField;

/* ---- recognising the query ------------------------------------------------ */

/*
 * The window functions the node serves: each one's C symbol, SQL name (for
 * its errors), form, and whether it clusters POINT Z in 3D (the _3d ones).
 */
static const struct
{
	const char *symbol;
	const char *name;
	ScanForm	form;
	bool		point_z;
}			forms[] = {
	{"gpu_dbscan_window", "gpu_dbscan", SCAN_IDS, false},
	{"gpu_dbscan_array_window", "gpu_dbscan", SCAN_IDS, false},
	{"gpu_dbscan_geography_window", "gpu_dbscan", SCAN_IDS, false},
	{"gpu_dbscan_sweep", "gpu_dbscan_sweep", SCAN_SWEEP, false},
	{"gpu_dbscan_point_type", "gpu_dbscan_point_type", SCAN_POINT_TYPE, false},
	{"gpu_dbscan_3d_window", "gpu_dbscan_3d", SCAN_IDS, true},
	{"gpu_dbscan_sweep_3d", "gpu_dbscan_sweep_3d", SCAN_SWEEP, true},
	{"gpu_dbscan_point_type_3d", "gpu_dbscan_point_type_3d", SCAN_POINT_TYPE, true},
};

/*
 * Whether fnoid is a window function the node serves (C, this module), and
 * which (its entry of forms[]): the sweep's and the point type's symbols
 * serve float8[] and geography too, which the caller tells apart by the
 * type.
 */
static bool
window_form(Oid fnoid, int *which)
{
	static Oid	cached[lengthof(forms)];	/* the last of each seen (one overload of several) */

	for (int f = 0; f < lengthof(forms); f++)
		if (fnoid == cached[f] || is_module_function(fnoid, forms[f].symbol))
		{
			cached[f] = fnoid;
			*which = f;
			return true;
		}
	return false;
}

/* What the walk over the window's target collects. */
typedef struct TargetScan
{
	Index		relid;
	bool		ok;
	List	   *wfuncs;			/* distinct WindowFuncs */
	Index		winref;
	AttrNumber	geom_attno;		/* the geometry column, or 0 for: */
	Expr	   *geom_expr;		/* a geometry expression over the relation */
	Oid			geom_type;
	int			input;			/* -1: no function yet; else their RowsInput (one read) */
	List	   *columns;		/* attnos of the Vars outside window functions */
} TargetScan;

/*
 * Whether expr can be the geometry of the fast path as an expression: over
 * the relation's columns only, no volatile function (the leader evaluates it
 * again for a row it fetches again), no parameter or sub-plan.
 */
static bool
geometry_expression_ok(Node *expr, Index relid)
{
	Relids		varnos;

	if (unsupported_qual_walker(expr, NULL) || contain_volatile_functions(expr))
		return false;
	varnos = pull_varnos(NULL, expr);	/* no PlaceHolderVar: no root needed */
	return bms_membership(varnos) == BMS_SINGLETON && bms_is_member((int) relid, varnos);
}

static bool
scan_target_walker(Node *node, TargetScan *ts)
{
	if (node == NULL || !ts->ok)
		return false;
	if (IsA(node, WindowFunc))
	{
		WindowFunc *wf = (WindowFunc *) node;
		int			which;
		Node	   *geom;
		Node	   *eps;
		Node	   *minpoints;
		RowsInput	input;

		if (!window_form(wf->winfnoid, &which) || list_length(wf->args) != 3 || wf->aggfilter != NULL)
		{
			ts->ok = false;
			return false;
		}
		geom = linitial(wf->args);
		eps = lsecond(wf->args);
		minpoints = lthird(wf->args);
		input = rows_input_of_type(exprType(geom), forms[which].point_z);

		/*
		 * geometry (2D or POINT Z), geography or a float8[] column, the same
		 * input for every function (one read)
		 */
		if (!IsA(eps, Const) || !IsA(minpoints, Const) ||
			(input == ROWS_ARRAY && !is_plain_column(geom, ts->relid)) ||
			(ts->input >= 0 && ts->input != (int) input) ||
			(ts->wfuncs != NIL && wf->winref != ts->winref) ||
			(!is_plain_column(geom, ts->relid) && !geometry_expression_ok(geom, ts->relid)))
		{
			ts->ok = false;
			return false;
		}
		if (is_plain_column(geom, ts->relid))
		{
			if (ts->geom_expr != NULL ||
				(ts->geom_attno != 0 && ((Var *) geom)->varattno != ts->geom_attno))
			{
				ts->ok = false;	/* one geometry for every function */
				return false;
			}
			ts->geom_attno = ((Var *) geom)->varattno;
		}
		else
		{
			if (ts->geom_attno != 0 || (ts->geom_expr != NULL && !equal(ts->geom_expr, geom)))
			{
				ts->ok = false;
				return false;
			}
			ts->geom_expr = (Expr *) geom;
		}
		ts->winref = wf->winref;
		ts->geom_type = exprType(geom);
		ts->input = input;
		if (!list_member(ts->wfuncs, wf))
			ts->wfuncs = lappend(ts->wfuncs, wf);
		return false;			/* its arguments are read by the scan */
	}
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		/* ctid: the reader keeps each row's TID */
		if (v->varno == (int) ts->relid && v->varlevelsup == 0 &&
			v->varattno == SelfItemPointerAttributeNumber)
		{
			ts->columns = list_append_unique_int(ts->columns, v->varattno);
			return false;
		}
		if (!is_plain_column(node, ts->relid) || !carried_type(v->vartype))
		{
			ts->ok = false;
			return false;
		}
		ts->columns = list_append_unique_int(ts->columns, v->varattno);
		return false;
	}
	if (IsA(node, Param) || IsA(node, SubPlan) || IsA(node, SubLink) ||
		IsA(node, PlaceHolderVar) || IsA(node, Aggref) || IsA(node, GroupingFunc))
	{
		ts->ok = false;
		return false;
	}
	return expression_tree_walker(node, scan_target_walker, (void *) ts);
}

static CustomPathMethods path_methods;
static CustomScanMethods plan_methods;
static CustomExecMethods exec_methods;

/* Adds the custom path to the window's rel when the query is one it serves. */
static void
consider_window_scan(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *window_rel)
{
	Query	   *parse = root->parse;
	PathTarget *target = root->upper_targets[UPPERREL_WINDOW];
	RangeTblEntry *rte;
	TargetScan	ts;
	WindowClause *wc = NULL;
	List	   *keys = NIL;
	List	   *quals = NIL;
	int			npartkeys;
	ListCell   *lc;
	CustomPath *cpath;
	Path	   *cheapest;

	if (parse->commandType != CMD_SELECT || parse->hasAggs || parse->groupClause != NIL ||
		parse->groupingSets != NIL || parse->havingQual != NULL || parse->hasTargetSRFs ||
		parse->rowMarks != NIL || target == NULL)
		return;
	if ((rte = scan_relation(root, input_rel)) == NULL)
		return;

	memset(&ts, 0, sizeof(ts));
	ts.relid = input_rel->relid;
	ts.ok = true;
	ts.input = -1;
	foreach(lc, target->exprs)
		scan_target_walker((Node *) lfirst(lc), &ts);
	if (!ts.ok || ts.wfuncs == NIL)
		return;
	foreach(lc, parse->windowClause)
	{
		if (lfirst_node(WindowClause, lc)->winref == ts.winref)
			wc = lfirst_node(WindowClause, lc);
	}
	if (wc == NULL)
		return;
	if (!add_keys(root, wc->partitionClause, ts.relid, &ts.columns, &keys))
		return;
	npartkeys = list_length(keys);
	if (!add_keys(root, wc->orderClause, ts.relid, &ts.columns, &keys))
		return;
	if (list_length(ts.columns) > SCAN_MAX_COLUMNS)
		return;

	if (!scan_quals(input_rel, &quals))
		return;

	cpath = makeNode(CustomPath);
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = window_rel;
	cpath->path.pathtarget = target;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = false;
	cpath->path.parallel_safe = false;
	cpath->path.parallel_workers =
		scan_workers(input_rel, rte, lappend(list_copy(quals), ts.geom_expr), root);
	cpath->path.rows = input_rel->rows;
	/*
	 * A read of the table and no sort: well below every WindowAgg path over
	 * it, startup included (the WindowAgg's startup cost leaves out the read
	 * of the partition that its first row waits for, too).
	 */
	cheapest = input_rel->cheapest_total_path;
	cpath->path.startup_cost = 0;
	cpath->path.total_cost = cheapest->total_cost / (2 * (cpath->path.parallel_workers + 1));
	cpath->path.pathkeys = root->window_pathkeys;
	cpath->flags = 0;
	cpath->custom_private = scan_private(rte->relid, ts.geom_attno, ts.geom_type,
										 cpath->path.parallel_workers, ts.columns, keys, quals,
										 input_rel->rows);
	cpath->custom_private = lappend(cpath->custom_private, makeInteger(npartkeys));
	cpath->custom_private = lappend(cpath->custom_private, ts.geom_expr);
	/* the window functions, for the plan's scan tuple */
	cpath->custom_private = lappend(cpath->custom_private, ts.wfuncs);
	cpath->methods = &path_methods;
	add_path(window_rel, (Path *) cpath);
	window_partial_path(root, input_rel, window_rel, ts.wfuncs, cpath);
}

/* create_upper_paths_hook: the custom path at the window stage. */
static void
window_scan_upper_paths(PlannerInfo *root, UpperRelationKind stage, RelOptInfo *input_rel,
						RelOptInfo *output_rel, void *extra)
{
	if (prev_create_upper_paths_hook)
		prev_create_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (stage == UPPERREL_WINDOW && gd_fast_path)
		consider_window_scan(root, input_rel, output_rel);
}

/* ---- the plan --------------------------------------------------------------- */

/*
 * The scan tuple's entries (canon: the carried columns, then the window
 * functions) in the order of the node's targetlist where it names them, the
 * rest after: as a list of canon's positions.  A targetlist that is the scan
 * tuple needs no projection per row (ExecConditionalAssignProjectionInfo).
 */
static List *
scan_tuple_order(List *tlist, List *canon)
{
	int			n = list_length(canon);
	bool	   *taken = palloc0(Max(n, 1) * sizeof(bool));
	List	   *order = NIL;
	ListCell   *lc;

	foreach(lc, tlist)
	{
		Expr	   *expr = ((TargetEntry *) lfirst(lc))->expr;

		for (int j = 0; j < n; j++)
			if (!taken[j] && equal(expr, ((TargetEntry *) list_nth(canon, j))->expr))
			{
				taken[j] = true;
				order = lappend_int(order, j);
				break;
			}
	}
	for (int j = 0; j < n; j++)
		if (!taken[j])
			order = lappend_int(order, j);
	pfree(taken);
	return order;
}

static Plan *
plan_window_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist,
				 List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *priv = best_path->custom_private;
	Oid			relid = (Oid) intVal(list_nth(priv, SP_RELID));
	List	   *columns = (List *) list_nth(priv, SP_COLUMNS);
	List	   *quals = (List *) copyObject(list_nth(priv, SP_QUALS));
	Node	   *geom_expr = (Node *) copyObject(list_nth(priv, PF_GEOM_EXPR));
	List	   *wfuncs = (List *) list_nth(priv, PF_NFIELDS);
	/* the range table index of the relation, from a window function's geometry */
	Index		varno = bms_singleton_member(pull_varnos(root, (Node *) linitial(((WindowFunc *) linitial(wfuncs))->args)));
	List	   *canon;
	List	   *order;
	ListCell   *lc;

	/* the quals travel to the workers as text */
	scan_localize((Node *) quals, varno);
	if (geom_expr)
		scan_localize(geom_expr, varno);

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	canon = scan_tlist(relid, varno, columns, wfuncs);
	order = scan_tuple_order(tlist, canon);
	cscan->custom_scan_tlist = NIL;
	foreach(lc, order)
	{
		TargetEntry *te = list_nth(canon, lfirst_int(lc));

		te->resno = list_length(cscan->custom_scan_tlist) + 1;
		cscan->custom_scan_tlist = lappend(cscan->custom_scan_tlist, te);
	}
	cscan->custom_private = lappend(list_truncate(list_copy(priv), PF_NFIELDS), order);
	list_nth_cell(cscan->custom_private, SP_QUALS)->ptr_value = quals;
	list_nth_cell(cscan->custom_private, PF_GEOM_EXPR)->ptr_value = geom_expr;
	cscan->methods = &plan_methods;
	return &cscan->scan.plan;
}

/* ---- execution ---------------------------------------------------------------- */

static void run_window_scan(ScanNode *node);
static TupleTableSlot *next_window_row(ScanState *ss);

static Node *
create_window_scan_state(CustomScan *cscan)
{
	return scan_node_create(sizeof(WindowScanState), &exec_methods, run_window_scan, next_window_row);
}

static void
begin_window_scan(CustomScanState *node, EState *estate, int eflags)
{
	WindowScanState *st = (WindowScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *priv = cscan->custom_private;
	List	   *columns = (List *) list_nth(priv, SP_COLUMNS);
	List	   *keys = (List *) list_nth(priv, SP_KEYS);
	ListCell   *lc;
	int			i;
	int		   *canon_at;

	st->geom_type = scan_request(&st->scan.req, priv, estate, eflags);
	st->scan.req.geom_expr = (Expr *) list_nth(priv, PF_GEOM_EXPR);
	st->geom_state = NULL;
	st->geom_econtext = NULL;
	if (st->scan.req.geom_expr && !(eflags & EXEC_FLAG_EXPLAIN_ONLY))
	{
		st->geom_state = ExecInitExpr(st->scan.req.geom_expr, NULL);
		st->geom_econtext = CreateExprContext(estate);
	}
	i = 0;
	st->ntlcolumns = 0;
	foreach(lc, columns)
	{
		AttrNumber	attno = (AttrNumber) lfirst_int(lc);

		if (attno == SelfItemPointerAttributeNumber)
		{
			st->colmap[st->ntlcolumns++] = -1;
			st->scan.req.need_tids = true;
		}
		else
		{
			st->colmap[st->ntlcolumns++] = i;
			st->scan.req.columns[i++] = attno;
		}
	}
	st->scan.req.ncolumns = i;
	st->npartkeys = intVal(list_nth(priv, PF_NPARTKEYS));
	st->nkeys = 0;
	foreach(lc, keys)
	{
		st->key_column[st->nkeys] = st->colmap[scan_key(lfirst(lc), &st->keys[st->nkeys])];
		st->nkeys++;
	}
	/*
	 * The rows in heap order, copied by runs after the workers: the window's
	 * order of OVER () and of keys the table is stored in, which go to the
	 * core in place (see run_window_scan).
	 */
	st->scan.req.heap_order = true;
	/* the partial path: a Gather's participants read (see WindowShared) */
	st->scan.req.gather = node->ss.ps.plan->parallel_aware;

	/* the scan tuple: canon's entries (the columns, then the functions) reordered */
	st->natts = list_length(cscan->custom_scan_tlist);
	st->slot_src = palloc(Max(st->natts, 1) * sizeof(int));
	canon_at = palloc(Max(st->natts, 1) * sizeof(int));
	i = 0;
	foreach(lc, (List *) list_nth(priv, PF_NFIELDS))
	{
		st->slot_src[i] = lfirst_int(lc);
		canon_at[st->slot_src[i]] = i;
		i++;
	}
	st->nfuncs = st->natts - st->ntlcolumns;
	st->funcs = palloc0(Max(st->nfuncs, 1) * sizeof(ScanFunction));
	st->nids = 0;
	for (i = 0; i < st->nfuncs; i++)
	{
		TargetEntry *te = list_nth_node(TargetEntry, cscan->custom_scan_tlist,
										canon_at[st->ntlcolumns + i]);
		WindowFunc *wf = castNode(WindowFunc, te->expr);
		Const	   *eps = castNode(Const, lsecond(wf->args));
		Const	   *minpoints = castNode(Const, lthird(wf->args));
		ScanFunction *fn = &st->funcs[i];
		int			which;

		fn->eps = eps->constvalue;
		fn->eps_null = eps->constisnull;
		fn->minpoints = minpoints->constvalue;
		fn->minpoints_null = minpoints->constisnull;
		if (!window_form(wf->winfnoid, &which))
			elog(ERROR, "gpu_dbscan: a window function the node does not serve");
		fn->form = forms[which].form;
		fn->name = forms[which].name;
		/* the planner took the node's functions all of one input */
		st->scan.req.read_z = forms[which].point_z;
		fn->nvalues = 1;
		if (fn->form == SCAN_SWEEP && !minpoints->constisnull)
		{
			/* every element, whatever the dimensions: the partition's read checks them */
			ArrayType  *a = DatumGetArrayTypeP(minpoints->constvalue);

			fn->nvalues = ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
		}
		fn->ids_first = st->nids;
		st->nids += fn->nvalues;
	}
	/* a point type's answers, the same text for every row */
	for (i = 0; i < lengthof(st->type_names); i++)
		st->type_names[i] = cstring_to_text(window_point_type_name((uint8) i));
	st->scan.cxt = AllocSetContextCreate(estate->es_query_cxt, "gpu_dbscan window scan",
									ALLOCSET_DEFAULT_SIZES);
	st->scan.done = false;
	st->pos = 0;
}

/* Output position p's slot. */
static inline int64
slot_at(const WindowScanState *st, int64 p)
{
	return st->order ? (int64) st->order[p] : p;
}

/*
 * Clusters the partition at output positions [b, e) for every window
 * function, in the window function's order of checks: parameters, rows,
 * clustering.  Runs in a memory context the caller resets.
 */
static void
cluster_partition_range(WindowScanState *st, ScanFetch *fetch, int64 b, int64 e)
{
	Rows		rows;
	int			f;

	for (f = 0; f < st->nfuncs; f++)
	{
		ScanFunction *fn = &st->funcs[f];
		const char *name = fn->name;
		ClusterJob	job;
		Params		params;
		int64		nrows = e - b;
		bool		in_place;

		/* the window function's parameter checks, on the values params_read_window reads */
		params_read_values(fn->eps, fn->eps_null, fn->minpoints, fn->minpoints_null, false,
						   fn->form == SCAN_SWEEP, name, &params, CurrentMemoryContext);
		memset(&job, 0, sizeof(job));
		job.minpoints = params_check(&params, name);
		if (params.nminpoints != fn->nvalues)
			elog(ERROR, "%s: %d minpoints values, %d planned", name, params.nminpoints,
				 fn->nvalues);

		if (f == 0)
		{
			/* the rows, checked and laid out once for every function */
			scan_rows_build(&rows, &st->fns, &st->scan.res, st->order, b, e, fetch, true);
			gd_progress_rows(e - b);	/* read in parallel before the first partition */
		}

		/*
		 * The core writes value k's ids at k * nrows: in place when that is
		 * the node's layout (one value, or one partition of every row).
		 */
		in_place = fn->nvalues == 1 || nrows == fn->ids_stride;
		job.eps = params.eps[0];
		job.nminpoints = params.nminpoints;
		job.ids = in_place ? fn->ids + b :
			gd_alloc_charged(CurrentMemoryContext, nrows * fn->nvalues * sizeof(int32),
							 "the sweep's ids");
		if (fn->form == SCAN_POINT_TYPE)
			job.types = MemoryContextAllocHuge(CurrentMemoryContext, nrows);
		cluster_rows(&rows, &job);
		if (!in_place)
			for (int k = 0; k < fn->nvalues; k++)
				memcpy(fn->ids + k * fn->ids_stride + b, job.ids + k * nrows,
					   nrows * sizeof(int32));
		/* a point type's row holds its type where the id was */
		if (job.types)
			for (int64 i = 0; i < nrows; i++)
				fn->ids[b + i] = job.types[i];
	}
}

/* Whether the rows at output positions p - 1 and p are in one partition. */
static bool
same_partition(WindowScanState *st, int64 p)
{
	return st->npartkeys == 0 ||
		sort_slots_equal(st->keys, st->npartkeys, (uint32) slot_at(st, p - 1),
						 (uint32) slot_at(st, p));
}

/* See window_scan_state.h. */
void
window_order_and_cluster(WindowScanState *st, uint32 *heap, uint32 *order_room, int32 *ids_room,
						 int64 capacity)
{
	MemoryContext part_cxt;
	ScanFetch	fetch;
	instr_time	start;
	int64		n = st->scan.res.nrows;
	int64		b;
	int64		p;
	int			k;
	GpuHandoff	handoff;

	INSTR_TIME_SET_CURRENT(start);
	/*
	 * The window's order: the heap order, sorted stably by the keys.  Rows in
	 * the keys' order already (a table loaded in ORDER BY order) go to the
	 * core in place: no order array, no copy per partition.
	 */
	st->order = heap;
	for (k = 0; k < st->nkeys; k++)
	{
		st->keys[k].values = st->scan.res.values[st->key_column[k]];
		st->keys[k].isnull = st->scan.res.isnull[st->key_column[k]];
	}
	if (st->nkeys > 0 && n > 1 && !sort_slots_sorted(heap, n, st->keys, st->nkeys))
	{
		if (heap == NULL)
		{
			st->order = order_room ? order_room : MemoryContextAllocHuge(st->scan.cxt, n * sizeof(uint32));
			prefault_write(st->order, n * sizeof(uint32));
			for (p = 0; p < n; p++)
				st->order[p] = (uint32) p;
		}
		sort_slots(st->order, n, st->keys, st->nkeys);
	}

	Assert(ids_room == NULL || n <= capacity);
	for (k = 0; k < st->nfuncs; k++)
	{
		ScanFunction *fn = &st->funcs[k];

		/* blocks of n: one partition of every row is clustered in place */
		if (ids_room)
			fn->ids = ids_room + fn->ids_first * n;
		else
			fn->ids = scan_ids_alloc(&st->scan, n, fn->nvalues,
									 fn->nvalues > 1 ? "the sweep's ids" : NULL);
		fn->ids_stride = n;
		prefault_write(fn->ids, n * fn->nvalues * sizeof(int32));
	}
	st->scan.times.order_ms = seconds_since(start) * 1000;
	INSTR_TIME_SET_CURRENT(start);
	gd_gpu_worker_handoff(&handoff);

	rows_fns_init(&st->fns, st->geom_type, st->scan.cxt);
	scan_fetch_open(&fetch, &st->scan.req, st->geom_state, st->geom_econtext);
	part_cxt = AllocSetContextCreate(st->scan.cxt, "gpu_dbscan window scan partition",
									 ALLOCSET_DEFAULT_SIZES);
	for (b = 0; b < n;)
	{
		int64		e = b + 1;

		while (e < n && same_partition(st, e))
			e++;
		MemoryContextSwitchTo(part_cxt);
		if (e - b > GD_PROGRESS_MIN_ROWS)
			gd_progress_begin("gpu_dbscan", e - b);
		cluster_partition_range(st, &fetch, b, e);
		if (e - b > GD_PROGRESS_MIN_ROWS)
			gd_progress_end();
		MemoryContextSwitchTo(st->scan.cxt);
		MemoryContextReset(part_cxt);
		st->npartitions++;
		b = e;
	}
	scan_fetch_close(&fetch);
	st->scan.times.cluster_ms = seconds_since(start) * 1000;
	scan_handoff_since(&handoff, &st->scan.times);
	st->pos = 0;
	st->end = n;
}

/* See window_scan_state.h. */
void
window_run_alone(WindowScanState *st)
{
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	parallel_read(&st->scan.req, &st->scan.res);
	st->scan.times.read_ms = seconds_since(start) * 1000;
	Assert(st->scan.res.order == NULL);
	window_order_and_cluster(st, NULL, NULL, NULL, 0);
}

/* Reads, orders and clusters every row (the node's first call). */
static void
run_window_scan(ScanNode *node)
{
	WindowScanState *st = (WindowScanState *) node;
	MemoryContext old = MemoryContextSwitchTo(st->scan.cxt);

	if (st->shared)
		window_partial_run(st);
	else
	{
		/* the GPU worker clusters the rows and writes the ids where they are */
		st->scan.req.share_with_gpu = core_gpu_worker_serves();
		window_run_alone(st);
	}
	MemoryContextSwitchTo(old);
	st->scan.done = true;
}

/* The next row in the window's order, in the scan tuple. */
static TupleTableSlot *
next_window_row(ScanState *ss)
{
	WindowScanState *st = (WindowScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	int			ncol = st->ntlcolumns;
	int64		p;
	int64		s;
	int			k;

	ExecClearTuple(slot);
	if (st->pos >= st->end && !window_partial_claim(st))
		return slot;
	p = st->pos++;
	s = slot_at(st, p);
	for (k = 0; k < st->natts; k++)
	{
		int			c = st->slot_src[k];

		if (c >= ncol && st->funcs[c - ncol].form == SCAN_SWEEP)
		{
			ScanFunction *fn = &st->funcs[c - ncol];

			/* in the scan tuple's memory, which ExecScan resets for every row */
			slot->tts_values[k] = window_sweep_array(fn->ids + p, fn->ids_stride, fn->nvalues,
													 ss->ps.ps_ExprContext->ecxt_per_tuple_memory);
			slot->tts_isnull[k] = false;
		}
		else if (c >= ncol && st->funcs[c - ncol].form == SCAN_POINT_TYPE)
		{
			int32		type = st->funcs[c - ncol].ids[p];

			slot->tts_isnull[k] = type == POINT_TYPE_NULL_ROW;
			slot->tts_values[k] = slot->tts_isnull[k] ? (Datum) 0 :
				PointerGetDatum(st->type_names[type]);
		}
		else if (c >= ncol)
		{
			int32		id = st->funcs[c - ncol].ids[p];

			slot->tts_values[k] = Int32GetDatum(id);
			slot->tts_isnull[k] = id < 0;
		}
		else if (st->colmap[c] < 0)
		{
			/* the TID lives in the reader's arrays until the node ends */
			slot->tts_values[k] = PointerGetDatum(&st->scan.res.tid[s]);
			slot->tts_isnull[k] = false;
		}
		else
		{
			slot->tts_values[k] = st->scan.res.values[st->colmap[c]][s];
			slot->tts_isnull[k] = st->scan.res.isnull[st->colmap[c]][s];
		}
	}
	return ExecStoreVirtualTuple(slot);
}

static void
rescan_window_scan(CustomScanState *node)
{
	WindowScanState *st = (WindowScanState *) node;

	if (st->shared == NULL)
	{
		st->pos = 0;			/* the same rows again */
		return;
	}
	/* the partial path runs again: ReInitializeDSMCustomScan reset what is shared */
	window_partial_forget(st);
	parallel_read_release(&st->scan.res);
	MemoryContextReset(st->scan.cxt);
	st->scan.done = false;
	memset(&st->scan.times, 0, sizeof(st->scan.times));
	st->order = NULL;
	st->pos = st->end = 0;
	st->npartitions = 0;
}

void
window_scan_end(CustomScanState *node)
{
	WindowScanState *st = (WindowScanState *) node;

	window_partial_forget(st);
	scan_node_end(node);
	if (st->copy_seg)
		dsm_detach(st->copy_seg);
	if (st->out_seg)
		dsm_detach(st->out_seg);
	if (st->data_seg)
		dsm_detach(st->data_seg);
	st->copy_seg = st->out_seg = st->data_seg = NULL;
	st->segs_shared = false;
}

static void
explain_window_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	WindowScanState *st = (WindowScanState *) node;
	char	   *relname = get_rel_name(st->scan.req.relid);

	ExplainPropertyText("Relation", relname ? relname : "?", es);
	if (st->scan.req.geom_expr)
		ExplainPropertyText("Geometry",
							deparse_expression((Node *) st->scan.req.geom_expr,
											   deparse_context_for(relname ? relname : "?",
																   st->scan.req.relid),
											   false, false), es);
	scan_explain_read(&st->scan.req, &st->scan.res, st->scan.done, "Partitions", st->npartitions, &st->scan.times, es);
}

/* Registers the node and installs the hook (from _PG_init). */
void
window_scan_init(void)
{
	path_methods.CustomName = NODE_NAME;
	path_methods.PlanCustomPath = plan_window_scan;

	plan_methods.CustomName = NODE_NAME;
	plan_methods.CreateCustomScanState = create_window_scan_state;
	RegisterCustomScanMethods(&plan_methods);

	exec_methods.CustomName = NODE_NAME;
	exec_methods.BeginCustomScan = begin_window_scan;
	exec_methods.ExecCustomScan = scan_node_exec;
	exec_methods.EndCustomScan = window_scan_end;
	exec_methods.ReScanCustomScan = rescan_window_scan;
	window_partial_methods(&exec_methods);
	exec_methods.ExplainCustomScan = explain_window_scan;

	prev_create_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = window_scan_upper_paths;
}

PG_FUNCTION_INFO_V1(gpu_dbscan_support);

/*
 * gpu_dbscan's planner support function: answers no request; being called
 * while the planner costs the window loads the module, so that its planner
 * hook sees the query without shared_preload_libraries.
 */
Datum
gpu_dbscan_support(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(NULL);
}
