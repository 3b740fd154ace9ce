// graph.hpp — clustering of non-point geometries: candidate pairs from
// bounding boxes (cpu_pairs.cpp) and DBSCAN over an explicit neighbour graph
// (graph.cpp).  The C entry points in api.cpp validate and call these.
#pragma once

#include <cstdint>
#include <vector>

#include "backend.hpp"
#include "pair_collect.hpp"

namespace gd {

class BoxTree;

// Candidate pairs (i < j) of GD_ROW_POINT / GD_ROW_OTHER rows whose boxes
// are within eps on both axes; out->pairs is malloc'ed; the search runs on
// the back end params.backend names.  More than max_pairs pairs:
// GD_ERR_NOMEM, before the list is allocated.
void candidate_pairs(const gd_box* boxes, const uint8_t* row_kind, int64_t nrows, double eps,
                     const gd_params& params, const CancelToken& cancel, gd_pair_list* out,
                     int64_t max_pairs = default_max_pairs());

// The search of candidate_pairs on the GPU (cuda/box_pairs.cu, or the
// stub): each item a of the tree lists the rows row_at[b] of the items b > a
// that meet it by within.
void gpu_box_pairs(const BoxTree& tree, const uint32_t* row_at, double within,
                   const gd_params& params, const CancelToken& cancel, gd_pair_list* out,
                   int64_t max_pairs);

// DBSCAN over the graph whose edges are the neighbour pairs.  dirs, when
// given, says per edge which end sees the other (GD_EDGE_I_SEES_J,
// GD_EDGE_J_SEES_I, GD_EDGE_BOTH): the relation is then one-sided as
// PostGIS's query boxes make it, and the rules are the point path's
// (rules/dbscan_rules.hpp, run by rules/relation_dbscan.hpp): core by the row's own view (itself
// included); core rows joined by the later row's view; every row joined to
// its first claimer, the smallest-row core that sees it; a non-core row takes
// its first claimer's cluster, else is noise; minpoints <= 1: either
// direction joins.  dirs NULL: every edge both ways (the usual symmetric
// rules).  core_out, when given, receives 1 for each core point, else 0, one
// per GD_ROW_POINT or GD_ROW_OTHER row in row order.
void cluster_graph(const uint8_t* row_kind, int64_t nrows, const gd_pair* edges, int64_t nedges,
                   int64_t minpoints, int32_t* cluster_ids, uint8_t* core_out = nullptr,
                   const uint8_t* dirs = nullptr);
// The same at nvalues minpoints values (a sweep), value k's ids into ids[k]:
// the rows and edges checked and each row's neighbours counted once for all
// (core_out: the last value's flags).
void cluster_graph_levels(const uint8_t* row_kind, int64_t nrows, const gd_pair* edges,
                          int64_t nedges, const int64_t* minpoints, size_t nvalues,
                          int32_t* const* ids, uint8_t* core_out = nullptr,
                          const uint8_t* dirs = nullptr);

}  // namespace gd
