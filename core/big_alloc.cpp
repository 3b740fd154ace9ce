// big_alloc.cpp — huge-page-advised anonymous mappings (big_alloc.hpp).
#include "big_alloc.hpp"

#include <sys/mman.h>

#include <cstdint>

namespace gd {

namespace {
constexpr size_t kHugePage = size_t{2} << 20;

size_t mapped_size(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }
}  // namespace

void* big_alloc(size_t bytes) {
  const size_t size = mapped_size(bytes);
  // Map one huge page more and trim, so that the array starts on a huge
  // page boundary and every page of it can be a huge one.
  void* raw = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) munmap(raw, aligned - start);
  const uintptr_t end = start + size + kHugePage;
  if (end > aligned + size) munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
#ifdef MADV_HUGEPAGE
  // Advice only: where THP is off the pages are small, as before.
  madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
#endif
  return reinterpret_cast<void*>(aligned);
}

void big_free(void* p, size_t bytes) noexcept {
  if (p) munmap(p, mapped_size(bytes));
}

}  // namespace gd
