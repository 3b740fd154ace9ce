// radix_sort.hpp — parallel LSD radix sort of 64-bit keys with a 32-bit payload.
#pragma once

#include <cstdint>
#include <vector>

#include "big_alloc.hpp"
#include "parallel.hpp"

namespace gd {

// Sorts keys ascending by their low `bits` bits (the others must be zero),
// carrying vals along; stable.  Uses n * 12 bytes of scratch.
void radix_sort(BigVector<uint64_t>& keys, BigVector<uint32_t>& vals, int bits,
                ThreadTeam& team);

}  // namespace gd
