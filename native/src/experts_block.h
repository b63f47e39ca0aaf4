// The expert cache's file layout arithmetic, shared by its setup and its I/O threads.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace rf {

// Direct I/O block: reads start and end on it, and a slot is congruent to its slice modulo it.
constexpr size_t kExpertBlock = 4096;
inline size_t ExpertAlignDown(size_t v) { return v / kExpertBlock * kExpertBlock; }
inline size_t ExpertAlignUp(size_t v) { return (v + kExpertBlock - 1) / kExpertBlock * kExpertBlock; }

constexpr size_t kHugePage = 2u << 20;

// `len` bytes of anonymous memory starting on a 2 MiB boundary and asking for transparent huge
// pages (direct reads into huge pages ran at about twice the rate here: experts_setup.cpp), the
// mapping ending where the `len` bytes end, so no huge page reaches past them to be charged
// whole. Not yet populated; null if it cannot be mapped. Unmap with munmap(p, len).
inline char* MapHugeAligned(size_t len) {
  void* raw = mmap(nullptr, len + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  char* r = static_cast<char*>(raw);
  char* m = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(r) + kHugePage - 1) & ~static_cast<uintptr_t>(kHugePage - 1));
  if (m > r) munmap(r, static_cast<size_t>(m - r));
  if (r + len + kHugePage > m + len) munmap(m + len, static_cast<size_t>(r + len + kHugePage - (m + len)));
  madvise(m, len, MADV_HUGEPAGE);
  return m;
}

}  // namespace rf
