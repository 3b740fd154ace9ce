/*
 * scan_plan.h — what the fast paths' planner hooks share (window_scan.c,
 * agg_scan.c): which functions are this module's, which expressions and
 * columns the parallel read (parallel_read.c) can serve, how many workers
 * it asks for.
 */
#ifndef GPU_DBSCAN_SCAN_PLAN_H
#define GPU_DBSCAN_SCAN_PLAN_H

#include "postgres.h"

#include "nodes/pathnodes.h"

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

/* Workers for the read: gpu_dbscan.scan_workers, or the planner's count for a parallel scan. */
extern int	scan_workers(RelOptInfo *rel, RangeTblEntry *rte, List *quals, PlannerInfo *root);

#endif							/* GPU_DBSCAN_SCAN_PLAN_H */
