// radix_sort.hpp — parallel LSD radix sort of 64-bit keys with a 32-bit payload.
#pragma once

#include <cstdint>
#include <vector>

#include "parallel.hpp"

namespace gd {

// Sorts keys ascending by their low `bits` bits (the others must be zero),
// carrying vals along; stable.  Uses n * 12 bytes of scratch.
void radix_sort(std::vector<uint64_t>& keys, std::vector<uint32_t>& vals, int bits,
                ThreadTeam& team);

}  // namespace gd
