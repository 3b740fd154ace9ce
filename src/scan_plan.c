/*
 * scan_plan.c — what the fast paths' custom scans share (see scan_plan.h).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/value.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"

#include "guc.h"
#include "memory_budget.h"
#include "rows.h"
#include "scan_plan.h"
#include "sort_keys.h"

/* Whether fnoid is a C function of this module named prosrc (see scan_plan.h). */
bool
is_module_function(Oid fnoid, const char *prosrc)
{
	HeapTuple	tup;
	bool		ours = false;

	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fnoid));
	if (!HeapTupleIsValid(tup))
		return false;
	if (((Form_pg_proc) GETSTRUCT(tup))->prolang == ClanguageId)
	{
		bool		isnull;
		Datum		src = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
		Datum		bin;

		if (!isnull && strcmp(TextDatumGetCString(src), prosrc) == 0)
		{
			bin = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_probin, &isnull);
			if (!isnull)
			{
				char	   *path = TextDatumGetCString(bin);
				const char *base = strrchr(path, '/');

				base = base ? base + 1 : path;
				ours = strncmp(base, "gpu_dbscan", 10) == 0 &&
					(base[10] == '\0' || base[10] == '.');
			}
		}
	}
	ReleaseSysCache(tup);
	return ours;
}

/* A plain column of the relation (see scan_plan.h). */
bool
is_plain_column(Node *node, Index relid)
{
	Var		   *v = (Var *) node;

	return node && IsA(node, Var) && v->varno == (int) relid && v->varlevelsup == 0 &&
		v->varattno > 0;
}

/* Whether a column's values can be carried by value (see scan_plan.h). */
bool
carried_type(Oid type)
{
	int16		len;
	bool		byval;

	get_typlenbyval(type, &len, &byval);
	return byval && len > 0 && len <= (int) sizeof(Datum);
}

/* Whether an expression holds a Param, a sub-plan or a whole-row or outer Var. */
bool
unsupported_qual_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) || IsA(node, SubPlan) || IsA(node, SubLink) ||
		IsA(node, PlaceHolderVar))
		return true;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		return v->varlevelsup != 0 || v->varattno == 0;
	}
	return expression_tree_walker(node, unsupported_qual_walker, context);
}

/* The index of attno among the carried columns (see scan_plan.h). */
int
column_index(List **columns, AttrNumber attno)
{
	int			i = 0;
	ListCell   *lc;

	foreach(lc, *columns)
	{
		if (lfirst_int(lc) == attno)
			return i;
		i++;
	}
	*columns = lappend_int(*columns, attno);
	return i;
}

/* Adds the keys of a sort or group clause (see scan_plan.h). */
bool
add_keys(PlannerInfo *root, List *clause, Index relid, List **columns, List **keys)
{
	return add_keys_of(root->processed_tlist, clause, relid, columns, keys);
}

/* Adds the keys of a sort or group clause over tlist (see scan_plan.h). */
bool
add_keys_of(List *tlist, List *clause, Index relid, List **columns, List **keys)
{
	ListCell   *lc;

	foreach(lc, clause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		Node	   *expr = get_sortgroupclause_expr(sgc, tlist);
		bool		descending;
		Var		   *v;

		if (!is_plain_column(expr, relid))
			return false;
		v = (Var *) expr;
		if (!OidIsValid(sgc->sortop) || !sort_key_supported(v->vartype, sgc->sortop, &descending))
			return false;
		*keys = lappend(*keys, list_make4(makeInteger(column_index(columns, v->varattno)),
										  makeInteger((int) v->vartype),
										  makeInteger(descending),
										  makeInteger(sgc->nulls_first)));
	}
	return true;
}

/* Workers for the read (see scan_plan.h). */
int
scan_workers(RelOptInfo *rel, RangeTblEntry *rte, List *quals, PlannerInfo *root)
{
	int			planner;
	int			linear;

	/* workers cannot read the leader's temporary tables (its local buffers) */
	if (get_rel_persistence(rte->relid) == RELPERSISTENCE_TEMP ||
		!is_parallel_safe(root, (Node *) quals))
		return 0;
	if (gd_scan_workers >= 0)
		return gd_scan_workers;
	planner = compute_parallel_worker(rel, rel->pages, -1, max_parallel_workers_per_gather);
	if (planner == 0 || rel->rel_parallel_workers != -1 || min_parallel_table_scan_size <= 0)
		return planner;

	/*
	 * The planner's count grows with the logarithm of the table's size: more
	 * workers would mostly wait on the Gather's one reader of their tuples.
	 * Here the read is all that runs in parallel before the clustering, and
	 * the workers write points into shared memory, not tuples into a queue:
	 * one worker per min_parallel_table_scan_size of heap, up to
	 * max_parallel_workers_per_gather (1M points: 6 workers where the planner
	 * gives 2).  A table's parallel_workers option still decides alone.
	 */
	linear = (int) Min((BlockNumber) max_parallel_workers_per_gather,
					   rel->pages / (BlockNumber) min_parallel_table_scan_size);
	return Max(planner, linear);
}

RangeTblEntry *
scan_relation(PlannerInfo *root, RelOptInfo *input_rel)
{
	RangeTblEntry *rte;

	if (input_rel->reloptkind != RELOPT_BASEREL || input_rel->rtekind != RTE_RELATION ||
		input_rel->cheapest_total_path == NULL)
		return NULL;
	rte = planner_rt_fetch(input_rel->relid, root);
	if ((rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW) ||
		rte->tablesample != NULL || (rte->inh && has_subclass(rte->relid)))
		return NULL;
	return rte;
}

bool
scan_quals(RelOptInfo *input_rel, List **quals)
{
	ListCell   *lc;

	*quals = NIL;
	foreach(lc, input_rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		if (ri->security_level > 0 || unsupported_qual_walker((Node *) ri->clause, NULL))
			return false;
		*quals = lappend(*quals, ri->clause);
	}
	return true;
}

/* ---- the plan's common fields --------------------------------------------- */

List *
scan_private(Oid relid, AttrNumber geom_attno, Oid geom_type, int nworkers, List *columns,
			 List *keys, List *quals, double rows)
{
	List	   *priv = list_make5(makeInteger((int) relid), makeInteger(geom_attno),
								  makeInteger((int) geom_type), makeInteger(nworkers), columns);

	priv = lappend(lappend(priv, keys), quals);
	/* the read holds at most PG_UINT32_MAX - 1 rows: an int is room enough */
	return lappend(priv, makeInteger((int) Min(rows, (double) PG_INT32_MAX)));
}

List *
scan_tlist(Oid relid, Index varno, List *columns, List *exprs)
{
	List	   *tlist = NIL;
	AttrNumber	resno = 1;
	ListCell   *lc;

	foreach(lc, columns)
	{
		AttrNumber	attno = (AttrNumber) lfirst_int(lc);
		Oid			type;
		int32		typmod;
		Oid			coll;

		get_atttypetypmodcoll(relid, attno, &type, &typmod, &coll);
		tlist = lappend(tlist, makeTargetEntry((Expr *) makeVar(varno, attno, type, typmod, coll, 0),
											   resno++, NULL, false));
	}
	foreach(lc, exprs)
		tlist = lappend(tlist, makeTargetEntry((Expr *) copyObject(lfirst(lc)), resno++, NULL,
											   false));
	return tlist;
}

void
scan_localize(Node *node, Index varno)
{
	fix_opfuncids(node);
	ChangeVarNodes(node, varno, 1, 0);
}

/* ---- execution ------------------------------------------------------------ */

Oid
scan_request(ScanRequest *req, List *priv, EState *estate, int eflags)
{
	Oid			type = (Oid) intVal(list_nth(priv, SP_GEOM_TYPE));

	memset(req, 0, sizeof(*req));
	req->relid = (Oid) intVal(list_nth(priv, SP_RELID));
	req->geom_attno = (AttrNumber) intVal(list_nth(priv, SP_GEOM_ATTNO));
	req->nworkers = intVal(list_nth(priv, SP_NWORKERS));
	req->quals = (List *) list_nth(priv, SP_QUALS);
	req->est_rows = intVal(list_nth(priv, SP_ROWS));
	req->snapshot = estate->es_snapshot;
	/*
	 * float8[] points: the count of the table's first array (a look at the
	 * table, not for EXPLAIN alone), every row's TID (a partition or group
	 * of another count is fetched again)
	 */
	if (type == FLOAT8ARRAYOID)
	{
		req->need_tids = true;
		if (!(eflags & EXEC_FLAG_EXPLAIN_ONLY))
			req->array_dims = parallel_read_array_dims(req);
	}
	else
		req->geography = rows_input_of_type(type, false) == ROWS_GEOGRAPHY;
	return type;
}

int
scan_key(List *k, SortKeyColumn *col)
{
	col->type = (Oid) intVal(lsecond(k));
	col->descending = intVal(lthird(k)) != 0;
	col->nulls_first = intVal(lfourth(k)) != 0;
	return intVal(linitial(k));
}

void
scan_handoff_since(const GpuHandoff *before, ScanTimes *times)
{
	GpuHandoff	now;

	gd_gpu_worker_handoff(&now);
	times->handoff.requests = now.requests - before->requests;
	times->handoff.in_place = now.in_place - before->in_place;
	times->handoff.in_ms = now.in_ms - before->in_ms;
	times->handoff.wait_ms = now.wait_ms - before->wait_ms;
	times->handoff.core_ms = now.core_ms - before->core_ms;
	times->handoff.out_ms = now.out_ms - before->out_ms;
}

void
scan_explain_read(const ScanRequest *req, const ScanResult *res, bool done,
				  const char *count_label, int64 count, const ScanTimes *times,
				  ExplainState *es)
{
	if (req->quals != NIL)
	{
		char	   *relname = get_rel_name(req->relid);
		List	   *dcxt = deparse_context_for(relname ? relname : "?", req->relid);

		ExplainPropertyText("Filter",
							deparse_expression((Node *) make_ands_explicit(req->quals),
											   dcxt, false, false), es);
	}
	if (!req->gather)
		ExplainPropertyInteger("Workers Planned", NULL, req->nworkers, es);
	if (es->analyze && done)
	{
		if (!req->gather)
			ExplainPropertyInteger("Workers Launched", NULL, res->nworkers_launched, es);
		ExplainPropertyInteger("Rows Read", NULL, res->nrows, es);
		ExplainPropertyInteger(count_label, NULL, count, es);
		if (res->passes > 1)
			ExplainPropertyInteger("Read Passes", NULL, res->passes, es);
		/* measured by the node whatever TIMING says (two clock reads a step) */
		ExplainPropertyFloat("Read Time", "ms", times->read_ms, 3, es);
		ExplainPropertyFloat("Order Time", "ms", times->order_ms, 3, es);
		ExplainPropertyFloat("Cluster Time", "ms", times->cluster_ms, 3, es);
		if (times->handoff.requests > 0)
		{
			ExplainPropertyInteger("GPU Worker Requests", NULL, times->handoff.requests, es);
			ExplainPropertyInteger("GPU Worker Requests In Place", NULL, times->handoff.in_place, es);
			ExplainPropertyFloat("GPU Worker Copy In Time", "ms", times->handoff.in_ms, 3, es);
			ExplainPropertyFloat("GPU Worker Wait Time", "ms", times->handoff.wait_ms, 3, es);
			ExplainPropertyFloat("GPU Worker Core Time", "ms", times->handoff.core_ms, 3, es);
			ExplainPropertyFloat("GPU Worker Copy Out Time", "ms", times->handoff.out_ms, 3, es);
		}
	}
}

/* Every row passes: the node has no quals of its own (the read applied the WHERE clauses). */
static bool
scan_node_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

Node *
scan_node_create(Size size, const CustomExecMethods *methods, void (*run) (ScanNode *node),
				 TupleTableSlot *(*next) (ScanState *ss))
{
	ScanNode   *sn = (ScanNode *) newNode(size, T_CustomScanState);

	sn->css.methods = methods;
	sn->run = run;
	sn->next = next;
	return (Node *) sn;
}

TupleTableSlot *
scan_node_exec(CustomScanState *node)
{
	ScanNode   *sn = (ScanNode *) node;

	if (!sn->done)
		sn->run(sn);
	return ExecScan(&node->ss, sn->next, scan_node_recheck);
}

int32 *
scan_ids_alloc(ScanNode *node, int64 n, int nvalues, const char *what)
{
	Size		bytes = Max(n, 1) * nvalues * sizeof(int32);
	int32	   *ids;

	if (what)
		gd_charge_with(node->cxt, bytes, what);
	ids = node->req.share_with_gpu ? gd_gpu_worker_alloc_in(node->cxt, bytes) : NULL;
	return ids != NULL ? ids : MemoryContextAllocHuge(node->cxt, bytes);
}

void
scan_node_end(CustomScanState *node)
{
	ScanNode   *sn = (ScanNode *) node;

	parallel_read_release(&sn->res);
	if (sn->cxt)
		MemoryContextDelete(sn->cxt);
	sn->cxt = NULL;
}
