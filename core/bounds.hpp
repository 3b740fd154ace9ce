// bounds.hpp — the bounding box of a set of points, as both back ends
// reduce it (cpu_grid.cpp, cuda/strips.cu, cuda/transfer.cu): an aggregate,
// so that device buffers and CUB reductions hold it as it is.
#pragma once

#include <cmath>

#include "rules/hd.hpp"

namespace gd {

struct Bounds {
  double xmin, xmax, ymin, ymax;
};

// The bounds of no point: every extend or merge replaces them.
GD_HD inline Bounds empty_bounds() { return Bounds{HUGE_VAL, -HUGE_VAL, HUGE_VAL, -HUGE_VAL}; }

GD_HD inline void extend(Bounds& b, double x, double y) {
  b.xmin = fmin(b.xmin, x);
  b.xmax = fmax(b.xmax, x);
  b.ymin = fmin(b.ymin, y);
  b.ymax = fmax(b.ymax, y);
}

GD_HD inline Bounds merge(const Bounds& a, const Bounds& b) {
  return Bounds{fmin(a.xmin, b.xmin), fmax(a.xmax, b.xmax), fmin(a.ymin, b.ymin),
                fmax(a.ymax, b.ymax)};
}

}  // namespace gd
