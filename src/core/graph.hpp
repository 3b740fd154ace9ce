// graph.hpp — clustering of non-point geometries: candidate pairs from
// bounding boxes (cpu_pairs.cpp) and DBSCAN over an explicit neighbour graph
// (graph.cpp).  The C entry points in api.cpp validate and call these.
#pragma once

#include <cstdint>
#include <vector>

#include "backend.hpp"

namespace gd {

// Candidate pairs (i < j) of GD_ROW_POINT / GD_ROW_OTHER rows whose boxes
// are within eps on both axes; out->pairs is malloc'ed.
void candidate_pairs(const gd_box* boxes, const uint8_t* row_kind, int64_t nrows, double eps,
                     const gd_params& params, const CancelToken& cancel, gd_pair_list* out);

// Moves the pairs found in chunks (emptied) into one malloc'ed list: out.
void gather_pairs(std::vector<std::vector<gd_pair>>& chunks, gd_pair_list* out);

// DBSCAN over the graph whose edges are the neighbour pairs; the relation is
// symmetric here (an unordered pair is a neighbour of each of its ends), so
// the rules reduce to the usual ones: core by degree, core-core edges join,
// a border goes to its core neighbour with the smallest row.  An edge list
// cannot say that only one end sees the other, as PostGIS's query boxes can
// at the last bit for points (backend.hpp): point partitions go through
// gd_cluster_points, which follows that.  core_out, when given, receives 1
// for each core point, else 0, one per GD_ROW_POINT or GD_ROW_OTHER row in
// row order.
void cluster_graph(const uint8_t* row_kind, int64_t nrows, const gd_pair* edges, int64_t nedges,
                   int64_t minpoints, int32_t* cluster_ids, uint8_t* core_out = nullptr);

}  // namespace gd
