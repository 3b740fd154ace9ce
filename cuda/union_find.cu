// union_find.cu — clusters of core points (ArborX's main phase, fused with
// the neighbour search: no pair is ever stored).
//
// Dense cells are joined at initialisation: every point of a dense cell points
// at the cell's first point, no distance test.  Then each core point p walks
// its 25 neighbour cells:
//   - its own cell when dense: already joined, skipped;
//   - a cell wholly beyond eps: skipped (exact, see grid.cuh);
//   - a dense cell: if its first point is already in p's set, skipped; if it
//     lies wholly within eps, joined at once; else its points are scanned up
//     to the first one within eps (one hit joins the whole cell);
//   - any other cell: only points after p in the sorted order (so each such
//     pair is visited once), core, not already pointing at p's root, and
//     within eps are joined.
// Every core-core pair within eps is thereby joined, directly or through a
// dense cell's set: if neither cell is dense the pair is visited from its
// smaller index, and if one is dense it is visited from the other side.
#include "grid.cuh"
#include "union_find.cuh"

namespace gd {
namespace cuda {

namespace {

__global__ void init_parents_kernel(GridView g, uint32_t* __restrict__ parent) {
  uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= g.n) return;
  uint32_t c = g.cell_of[i];
  parent[i] = g.dense[c] ? g.start[c] : static_cast<uint32_t>(i);
}

__global__ void union_kernel(GridView g, const uint8_t* __restrict__ core, Batch batch,
                             const volatile int* stop, uint32_t* parent) {
  if (cancelled(stop)) return;
  uint32_t i;
  if (!batch_point(batch, g.n, &i)) return;
  if (!core[i]) return;
  uint32_t c = g.cell_of[i];
  bool own_dense = g.dense[c] != 0;
  double px = g.p[i].x, py = g.p[i].y;
  uint32_t root = uf_find(parent, i);
  for (int a = 0; a < 5; ++a) {
    CellRange r = g.rows[static_cast<uint64_t>(c) * 5 + a];
    for (uint32_t d = r.lo; d < r.hi; ++d) {
      if (d == c && own_dense) continue;
      Box b = g.box[d];
      if (!box_may_touch(px, py, b, g.eps, g.t)) continue;
      uint32_t j0 = g.start[d], j1 = g.start[d + 1];
      if (g.dense[d]) {
        uint32_t rd = uf_find(parent, j0);
        root = uf_find(parent, root);
        if (rd == root) continue;
        if (box_all_within(px, py, b, g.eps, g.t)) {
          root = uf_unite(parent, root, rd);
          continue;
        }
        for (uint32_t j = j0; j < j1; ++j) {
          double2 q = g.p[j];
          if (near(px, py, q.x, q.y, g.eps, g.t)) {
            root = uf_unite(parent, root, rd);
            break;
          }
        }
        continue;
      }
      for (uint32_t j = (j0 > i ? j0 : i + 1); j < j1; ++j) {
        if (!core[j]) continue;
        if (static_cast<const volatile uint32_t*>(parent)[j] == root) continue;
        double2 q = g.p[j];
        if (near(px, py, q.x, q.y, g.eps, g.t)) root = uf_unite(parent, root, j);
      }
    }
  }
}

}  // namespace

void init_parents(RunContext& ctx, const GridView& g, uint32_t* parent) {
  init_parents_kernel<<<grid_for(g.n), kBlock, 0, ctx.stream()>>>(g, parent);
  GD_CHECK_LAUNCH("init_parents_kernel");
}

void union_core_pairs(RunContext& ctx, const GridView& g, const uint8_t* core, uint32_t nbatches,
                      uint32_t* parent) {
  for (uint32_t b = 0; b < nbatches; ++b) {
    Batch batch{b, nbatches};
    uint64_t threads = batch_threads(batch, g.n);
    if (threads == 0) continue;
    union_kernel<<<grid_for(threads), kBlock, 0, ctx.stream()>>>(g, core, batch,
                                                                 ctx.cancel_flag_device(), parent);
    GD_CHECK_LAUNCH("union_kernel");
  }
}

}  // namespace cuda
}  // namespace gd
