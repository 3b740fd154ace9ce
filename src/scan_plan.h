/*
 * scan_plan.h — what the fast paths' custom scans share (window_scan.c,
 * agg_scan.c): which functions are this module's, which expressions and
 * columns the parallel read (parallel_read.c) can serve, how many workers
 * it asks for; the plan fields both carry, read back at execution; the
 * executor state both start with and its callbacks; the read's and the
 * times' lines of EXPLAIN.
 */
#ifndef GPU_DBSCAN_SCAN_PLAN_H
#define GPU_DBSCAN_SCAN_PLAN_H

#include "postgres.h"

#include "commands/explain.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

#include "gpu_worker.h"
#include "parallel_read.h"
#include "sort_keys.h"

/*
 * What both nodes' custom_private lists start with, in this order; each
 * node's own fields follow from SP_NCOMMON.
 */
typedef enum ScanPlanField
{
	SP_RELID,
	SP_GEOM_ATTNO,
	SP_GEOM_TYPE,
	SP_NWORKERS,
	SP_COLUMNS,					/* attnos of the carried by-value columns */
	SP_KEYS,					/* per key: column index, type, descending, nulls first */
	SP_QUALS,					/* over the relation (varno 1 in the plan) */
	SP_ROWS,					/* the planner's estimate of the rows the quals keep
								 * (at most PG_INT32_MAX) */
	SP_NCOMMON
} ScanPlanField;

/* The common fields, as a list to append the node's own to. */
extern List *scan_private(Oid relid, AttrNumber geom_attno, Oid geom_type, int nworkers,
						  List *columns, List *keys, List *quals, double rows);

/*
 * The scan tuple: a Var of range table entry varno per carried column of
 * relid, then a copy of each of exprs.
 */
extern List *scan_tlist(Oid relid, Index varno, List *columns, List *exprs);

/*
 * An expression over range table entry varno made ready to travel to the
 * workers as text: operator functions set, its Vars at varno 1.
 */
extern void scan_localize(Node *node, Index varno);

/*
 * At execution: req's relation, geometry column, workers, quals and
 * snapshot from the plan's common fields (the rest of req zeroed; for
 * float8[] points also every row's TID and, unless eflags says EXPLAIN
 * alone, the read's count: parallel_read_array_dims); returns the
 * geometry's type.
 */
extern Oid	scan_request(ScanRequest *req, List *priv, EState *estate, int eflags);

/* Key k of SP_KEYS into col; returns the key's column index. */
extern int	scan_key(List *k, SortKeyColumn *col);

/*
 * Where a node's first call spent its time (ms): the read, putting the rows
 * in order (the window's sort, the groups), the clustering (the rest), and
 * the GPU worker's share of the clustering (gpu_worker.h).
 */
typedef struct ScanTimes
{
	double		read_ms;
	double		order_ms;
	double		cluster_ms;
	GpuHandoff	handoff;
} ScanTimes;

/* times->handoff: the GPU worker's requests since *before (gd_gpu_worker_handoff). */
extern void scan_handoff_since(const GpuHandoff *before, ScanTimes *times);

/*
 * EXPLAIN's lines of the read, after the node's own: Filter, Workers
 * Planned, and with ANALYZE once the node ran (done) Workers Launched,
 * Rows Read, "count_label: count", Read Passes, the times and, when the GPU
 * worker served the node, its handoff.
 */
extern void scan_explain_read(const ScanRequest *req, const ScanResult *res, bool done,
							  const char *count_label, int64 count, const ScanTimes *times,
							  ExplainState *es);

/*
 * What both nodes' states start with: the read, what the first call made
 * (in cxt) and how long it took; run does the first call's work, next
 * returns the next row (ExecScan's access method).
 */
typedef struct ScanNode
{
	CustomScanState css;
	ScanRequest req;
	ScanResult	res;
	MemoryContext cxt;			/* what the node holds between calls */
	bool		done;			/* run has run */
	ScanTimes	times;
	void		(*run) (struct ScanNode *node);
	TupleTableSlot *(*next) (ScanState *ss);
} ScanNode;

/* A node's state of size bytes (its ScanNode first) with its callbacks. */
extern Node *scan_node_create(Size size, const CustomExecMethods *methods,
							  void (*run) (ScanNode *node),
							  TupleTableSlot *(*next) (ScanState *ss));

/* ExecCustomScan of both nodes: run once, then the rows one by one. */
extern TupleTableSlot *scan_node_exec(CustomScanState *node);

/* EndCustomScan of both nodes: the read's memory, then the node's context. */
extern void scan_node_end(CustomScanState *node);

/*
 * nvalues blocks of n ids for the core to write (a huge allocation in
 * node->cxt), where the GPU worker writes them in place when the request
 * shares its rows with it; charged to gpu_dbscan.max_query_memory as what
 * (NULL: not charged).
 */
extern int32 *scan_ids_alloc(ScanNode *node, int64 n, int nvalues, const char *what);

/* Whether fnoid is a C function of this module whose link symbol is prosrc. */
extern bool is_module_function(Oid fnoid, const char *prosrc);

/* A plain column of the relation: a Var of this level, a user column. */
extern bool is_plain_column(Node *node, Index relid);

/* Whether a column's values can be carried by value (at most 8 bytes). */
extern bool carried_type(Oid type);

/*
 * Whether an expression holds a Param, a sub-plan or a whole-row or outer
 * Var (an expression_tree_walker callback; context unused).
 */
extern bool unsupported_qual_walker(Node *node, void *context);

/* The index of attno among the carried columns (attnos), added when missing. */
extern int	column_index(List **columns, AttrNumber attno);

/*
 * Adds the keys of a sort or group clause (SortGroupClauses over
 * root->processed_tlist) to keys, each a list (column index, type,
 * descending, nulls first), their columns to columns; false when a key is
 * not a plain column of relid of a type and order sort_keys.c takes.
 */
extern bool add_keys(PlannerInfo *root, List *clause, Index relid, List **columns, List **keys);

/* add_keys over the entries of tlist (an aggregate's arguments for its ORDER BY). */
extern bool add_keys_of(List *tlist, List *clause, Index relid, List **columns, List **keys);

/*
 * input_rel's table when the read can serve it (a base relation with a
 * path, a plain table or materialized view without TABLESAMPLE or
 * children), else NULL.
 */
extern RangeTblEntry *scan_relation(PlannerInfo *root, RelOptInfo *input_rel);

/*
 * input_rel's restrictions into *quals when each can travel to the workers
 * (no security barrier, see unsupported_qual_walker); false when one cannot.
 */
extern bool scan_quals(RelOptInfo *input_rel, List **quals);

/*
 * Workers for the read: gpu_dbscan.scan_workers; else the table's
 * parallel_workers option; else one per min_parallel_table_scan_size of heap,
 * at least the planner's count for a parallel scan and at most
 * max_parallel_workers_per_gather.
 */
extern int	scan_workers(RelOptInfo *rel, RangeTblEntry *rte, List *quals, PlannerInfo *root);

#endif							/* GPU_DBSCAN_SCAN_PLAN_H */
