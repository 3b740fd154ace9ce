// radix_sort.cpp — LSD radix sort: per pass, each thread counts the digits of
// its block, the counts are turned into per-thread offsets, and each thread
// scatters its block (stable, since blocks and threads are in order).
#include "radix_sort.hpp"

#include <algorithm>

namespace gd {

namespace {
constexpr int kDigitBits = 11;
constexpr size_t kBuckets = size_t{1} << kDigitBits;
// Up to this many keys an insertion sort beats clearing the digit counts
// (tiny partitions, e.g. 100,000 windows of a few rows each).
constexpr size_t kInsertionMax = 64;
}  // namespace

void radix_sort(BigVector<uint64_t>& keys, BigVector<uint32_t>& vals, int bits,
                ThreadTeam& team) {
  const size_t n = keys.size();
  if (n < 2 || bits <= 0) return;
  if (n <= kInsertionMax) {  // stable, like the passes below
    for (size_t i = 1; i < n; ++i) {
      uint64_t k = keys[i];
      uint32_t v = vals[i];
      size_t j = i;
      for (; j > 0 && keys[j - 1] > k; --j) {
        keys[j] = keys[j - 1];
        vals[j] = vals[j - 1];
      }
      keys[j] = k;
      vals[j] = v;
    }
    return;
  }
  const int T = team.size();
  BigVector<uint64_t> keys_tmp(n);
  BigVector<uint32_t> vals_tmp(n);
  std::vector<size_t> count(static_cast<size_t>(T) * kBuckets);

  for (int shift = 0; shift < bits; shift += kDigitBits) {
    std::fill(count.begin(), count.end(), 0);
    const uint64_t* src = keys.data();
    team.for_static(n, [&](int t, size_t begin, size_t end) {
      size_t* c = &count[static_cast<size_t>(t) * kBuckets];
      for (size_t i = begin; i < end; ++i) ++c[(src[i] >> shift) & (kBuckets - 1)];
    });

    // Exclusive prefix over (bucket, thread); skip a pass where one digit
    // value holds every key.
    bool trivial = false;
    size_t offset = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      size_t bucket_total = 0;
      for (int t = 0; t < T; ++t) {
        size_t& c = count[static_cast<size_t>(t) * kBuckets + b];
        size_t k = c;
        c = offset;
        offset += k;
        bucket_total += k;
      }
      if (bucket_total == n) trivial = true;
    }
    if (trivial) continue;

    uint64_t* kdst = keys_tmp.data();
    uint32_t* vdst = vals_tmp.data();
    const uint32_t* vsrc = vals.data();
    team.for_static(n, [&](int t, size_t begin, size_t end) {
      size_t* c = &count[static_cast<size_t>(t) * kBuckets];
      for (size_t i = begin; i < end; ++i) {
        size_t pos = c[(src[i] >> shift) & (kBuckets - 1)]++;
        kdst[pos] = src[i];
        vdst[pos] = vsrc[i];
      }
    });
    keys.swap(keys_tmp);
    vals.swap(vals_tmp);
  }
}

}  // namespace gd
