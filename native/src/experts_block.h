// The expert cache's file layout arithmetic, shared by its setup and its I/O threads.
#pragma once
#include <cstddef>

namespace rf {

// Direct I/O block: reads start and end on it, and a slot is congruent to its slice modulo it.
constexpr size_t kExpertBlock = 4096;
inline size_t ExpertAlignDown(size_t v) { return v / kExpertBlock * kExpertBlock; }
inline size_t ExpertAlignUp(size_t v) { return (v + kExpertBlock - 1) / kExpertBlock * kExpertBlock; }

}  // namespace rf
